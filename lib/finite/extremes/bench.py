"""Full-data NTK spectra at scale, measured in a fresh process ([LH] Sec. 4, 4.1; MNIST's shape).

One *case* is a ReLU MLP of [LH] Eq. (1) (width m, depth L, seed) on n inputs, passed to
:func:`lib.finite.extremes.ntk_extremes`: synthetic inputs from N(0, I_d) (``data="gaussian"``,
:func:`lib.data.datasets.gaussian_data`; d = 784 is MNIST's shape), or MNIST's training images
(``data="mnist"``, :func:`lib.data.mnist.load_mnist`, pixels in [-1, 1] as the authors map them: all
60,000 at n = 60,000, else n of them drawn with the seed). :func:`lib.finite.extremes.bench.run_scale_case` runs it in a new
Python process so that the peak resident memory (``getrusage().ru_maxrss``) is the case's own.
From a terminal::

    python -m lib.finite.extremes.bench --n 60000 --depth 1 --lambda-min certified [--data mnist]
"""
from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import time
from datetime import datetime, timezone

import torch

from lib.data.datasets import gaussian_data, load_dataset
from lib.data.mnist import MNIST_SPLITS
from lib.finite.extremes.cholesky import tiled_bytes
from lib.finite.extremes.core import ntk_extremes
from lib.finite.mlp import MLP
from lib.validation import InputError, available_memory, check_int, check_real, check_seed, positive_int

__all__ = ["SCALE_DATA", "scale_inputs", "scale_case", "run_scale_case", "main"]

#: the inputs a case can run on
SCALE_DATA = ("gaussian", "mnist")


def _num(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None  # JSON has no inf: None means "unbounded"


def scale_inputs(data: str, n: int, in_dim: int, seed: int = 0):
    """The n inputs of a case ([LH] Sec. 4.1): Gaussian N(0, I_d), or MNIST's training images.

    Args:
        data: ``"gaussian"`` or ``"mnist"`` (:data:`~lib.finite.extremes.bench.SCALE_DATA`).
        n: number of inputs (MNIST: at most 60,000; all of them, in order, at 60,000, else n drawn with ``seed``).
        in_dim: input dimension d (MNIST: 784).
        seed: seed of the draw.

    Returns:
        float64 array (n, in_dim).

    Raises:
        lib.validation.InputError: an unknown ``data``, or MNIST with ``in_dim`` other than 784.
    """
    if data not in SCALE_DATA:
        raise InputError(f"data must be one of {SCALE_DATA}, got {data!r}")
    n, in_dim, seed = positive_int(n, "n"), positive_int(in_dim, "in_dim"), check_seed(seed)
    if data == "gaussian":
        return gaussian_data(n, in_dim, seed=seed)
    if in_dim != 784:
        raise InputError(f"in_dim must be 784 for MNIST (its images have 784 pixels), got {in_dim}")
    return load_dataset("mnist", n=None if n == MNIST_SPLITS["train"] else n, seed=seed)


def scale_case(n: int, depth: int, width: int = 512, in_dim: int = 784, seed: int = 0, method: str = "matrix_free",
               lambda_min: str = "auto", device: str = "cpu", tile: int = 2048, shift: float | None = None,
               progress: bool = False, data: str = "gaussian") -> dict:
    """Run :func:`lib.finite.extremes.ntk_extremes` on one case in this process and flatten the result.

    Args:
        n: number of inputs.
        depth: hidden layers L.
        width: hidden width m.
        in_dim: input dimension d.
        seed: seed of the inputs and of the weights.
        method: ``"dense"``, ``"matrix_free"`` or ``"auto"``.
        lambda_min: ``"auto"``, ``"exact"``, ``"certified"`` or ``"bounds"``.
        device: ``"cpu"`` or ``"cuda"``.
        tile: tile edge of the certified factorization.
        shift: certify this shift with one factorization (see :func:`lib.finite.extremes.ntk_extremes`).
        progress: progress bars (to standard error).
        data: the inputs, ``"gaussian"`` or ``"mnist"`` (:func:`scale_inputs`).

    Returns:
        A dict of JSON scalars: the case (with ``data``; ``note``: why a certified case fell back to bounds because its
        tiles do not fit in memory), ``min_angle``, ``lambda_max`` and its certified
        ``lambda_max_low``/``lambda_max_high``, ``lambda_min_low``/``lambda_min_high``,
        ``kappa_low``/``kappa_high`` (None: unbounded), ``seconds`` and the stage timings
        (``t_*``), ``peak_gib`` (this process's peak resident memory), the machine's load and cores.
    """

    _check_case(n, depth, width, in_dim, seed, tile, shift)
    load0 = os.getloadavg()[0]
    note = ""
    if lambda_min == "certified":
        need = tiled_bytes(n, tile) + 8 * n * (in_dim + 2 * width * depth)
        mem = available_memory()
        if device == "cpu" and mem is not None and need > 0.85 * mem:
            lambda_min, note = "bounds", (f"certified lambda_min needs about {need / 2**30:.3g} GiB, "
                                          f"{mem / 2**30:.3g} GiB available: bounds only")
    X = scale_inputs(data, n, in_dim, seed)
    model = MLP(in_dim, width, depth, seed=seed)
    t0 = time.perf_counter()
    r = ntk_extremes(model, X, method=method, lambda_min=lambda_min, device=device, tile=tile, shift=shift,
                     progress=progress)
    secs = time.perf_counter() - t0
    if isinstance(r.kappa, tuple):
        k_lo, k_hi = r.kappa
    else:
        k_lo = k_hi = r.kappa
    out = dict(data=data, n=n, depth=depth, width=width, in_dim=in_dim, seed=seed, device=device, method=r.method,
               shift=shift,
               lambda_min_mode=r.lambda_min_mode, min_angle=r.min_angle, min_pair=f"{r.min_pair[0]},{r.min_pair[1]}",
               lambda_max=r.lambda_max, lambda_max_low=r.lambda_max_bounds[0], lambda_max_high=r.lambda_max_bounds[1],
               lambda_min=r.lambda_min, lambda_min_low=r.lambda_min_bounds[0], lambda_min_high=r.lambda_min_bounds[1],
               kappa_low=_num(k_lo), kappa_high=_num(k_hi), singular=bool(r.singular), seconds=secs, note=note,
               peak_gib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, accuracy=r.accuracy,
               load_start=load0, load_end=os.getloadavg()[0], cpus=os.cpu_count(), threads=torch.get_num_threads(),
               date=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
    out.update({f"t_{k}": float(v) for k, v in r.timings.items()})
    return out


def _check_case(n, depth, width, in_dim, seed, tile, shift) -> None:
    """The sizes, seed, tile and shift of a case, checked before any work (or any process) starts."""
    for name, v in (("n", n), ("width", width), ("in_dim", in_dim), ("tile", tile)):
        positive_int(v, name)
    check_int(depth, "depth", 0, meaning="number of hidden layers")
    check_seed(seed)
    if shift is not None:
        check_real(shift, "shift", low=0.0)


def run_scale_case(n: int, depth: int, width: int = 512, in_dim: int = 784, seed: int = 0,
                   method: str = "matrix_free", lambda_min: str = "auto", device: str = "cpu", tile: int = 2048,
                   shift: float | None = None, fresh_process: bool = True, progress: bool = True,
                   data: str = "gaussian") -> dict:
    """:func:`lib.finite.extremes.bench.scale_case`, by default in a new Python process (an honest peak memory).

    Args:
        n, depth, width, in_dim, seed, method, lambda_min, device, tile, shift, data: as in
            :func:`lib.finite.extremes.bench.scale_case`.
        fresh_process: run in a subprocess.
        progress: progress bars on standard error (the subprocess then shares this process's standard error).

    Returns:
        The dict of :func:`lib.finite.extremes.bench.scale_case`.

    Raises:
        lib.validation.InputError: the case failed; the message quotes the worker's last error line.
    """
    _check_case(n, depth, width, in_dim, seed, tile, shift)
    if not fresh_process:
        return scale_case(n, depth, width, in_dim, seed, method, lambda_min, device, tile, shift, progress, data)
    cmd = [sys.executable, "-m", "lib.finite.extremes.bench", "--n", str(n), "--depth", str(depth), "--width",
           str(width), "--in-dim", str(in_dim), "--seed", str(seed), "--method", method, "--lambda-min", lambda_min,
           "--device", device, "--tile", str(tile), "--data", data, "--json"]
    if shift is not None:
        cmd += ["--shift", repr(float(shift))]
    if progress:
        cmd.append("--progress")
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=None if progress else subprocess.PIPE, text=True)
    if proc.returncode != 0:
        last = [s for s in (proc.stderr or "").strip().splitlines() if s.strip()][-1:] or ["see standard error"]
        raise InputError(f"the scale case n={n}, depth={depth} failed: {last[0]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    """Command line: run one case and print its dict (``--json``: one JSON line) or write it (``--out``).

    Args:
        argv: arguments (default: ``sys.argv[1:]``).

    Returns:
        The exit code.
    """
    p = argparse.ArgumentParser(prog="python -m lib.finite.extremes.bench", description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, required=True)
    p.add_argument("--depth", type=int, required=True)
    p.add_argument("--width", type=int, default=512)
    p.add_argument("--in-dim", type=int, default=784)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--method", default="matrix_free", choices=["auto", "dense", "matrix_free"])
    p.add_argument("--lambda-min", default="auto", choices=["auto", "exact", "certified", "bounds"])
    p.add_argument("--device", default="cpu")
    p.add_argument("--tile", type=int, default=2048)
    p.add_argument("--shift", type=float, default=None,
                   help="certify lambda_min >= this shift (minus rounding) with one factorization")
    p.add_argument("--data", default="gaussian", choices=list(SCALE_DATA), help="the inputs (default: gaussian)")
    p.add_argument("--json", action="store_true", help="print one JSON line (no progress bars unless --progress)")
    p.add_argument("--progress", action="store_true", help="progress bars on standard error with --json")
    p.add_argument("--out", help="also write the JSON to this file")
    a = p.parse_args(argv)
    res = scale_case(a.n, a.depth, a.width, a.in_dim, a.seed, a.method, a.lambda_min, a.device, a.tile, a.shift,
                     progress=a.progress or not a.json, data=a.data)
    text = json.dumps(res)
    if a.out:
        with open(a.out, "w") as fh:
            fh.write(text + "\n")
    print(text if a.json else json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
