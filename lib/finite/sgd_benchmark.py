"""Speed of SGD training: one run at a time against a grid of runs trained as one batched model ([LH] Sec. 5).

[LH] Figure 4 and Table 1 train ReLU MLPs of width 512 by mini-batch SGD (batch 500) with a
learning rate found per depth by grid search. :func:`lib.finite.batched_sgd.sgd_train_runs` trains
the R runs of such a grid together (every layer one ``torch.bmm``). This benchmark measures, per
depth, in a fresh Python process each (peak memory is then the case's own):

* **one run at a time**: ``sgd_train_runs`` with a single run, the cost of looping over the runs;
* **the batched grid**: ``sgd_train_runs`` with R runs (default 9, the rate search of chapter 06's
  record: 9 rates, seed 0);
* **the reference**: the best rate of a plain float32 product (batch x width) @ (width x width),
  500 x 512 @ 512 x 512 by default, the shape of a hidden layer's forward product, timed in the
  same worker between the training calls so that it sees the same machine load.

With ``precisions=("fp32", "bf16")`` (the command line's default) both modes run again with bfloat16 products
(:data:`lib.finite.batched_sgd.PRECISIONS`: float32 master weights, loss and softmax), and the reference is
timed in bfloat16 too, so that each precision's rate is a fraction of its own same-run matmul rate; their ratio
is the speed-up bf16 buys (the CPU's AMX runs a bfloat16 matmul about 4.7x faster than float32).

Updates per second come from two calls of ``sgd_train_runs`` that differ only in the number of
epochs (``epochs_short``, and enough more for at least ``timed_updates`` updates): the difference of
their times over the difference of their updates, so that building the networks and the full-data
losses before and after training cancel. Every run has the same small learning rate (the rate does
not change the work, and a run stopped as diverged would shrink the batch); seeds 0..R-1. The
inputs are Gaussian of MNIST-5k's shape (n = 5000, d = 784, unit norm), with random labels in 10
classes.

The flops of one SGD update of one run (:func:`sgd_update_flops`): forward 2 B P, backward
4 B P (gradients of the weights and of the activations) minus the gradient of the input,
2 B d m, which is never needed; P counts the weights of [LH] Eq. (1) with a 10-class output.
Rates are reported as a fraction of the matmul rate; the speed-up is the grid's run-updates per
second over one run's updates per second. Run ``python -m lib.finite.benchmark --sgd --help``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Sequence

import numpy as np
import pandas as pd
import torch

from lib.data.datasets import gaussian_data
from lib.finite.batched_sgd import PRECISIONS, sgd_train_runs
from lib.finite.cost_model import BenchmarkError
from lib.finite.fresh_process import add_common_options, reset_rss_peak, rss_peak, serve_worker, spawn_worker
from lib.progress import tqdm
from lib.validation import InputError, check_device, positive_int

__all__ = ["SGD_DEPTHS", "GRID_RUNS", "N_TRAIN", "IN_DIM", "OUT_DIM", "SGD_LR", "TIMED_UPDATES", "sgd_update_flops",
           "run_sgd_case", "run_sgd_benchmark", "sgd_line", "bf16_line", "SGD_COLUMNS", "BF16_COLUMNS",
           "format_sgd_table", "main"]

#: the depths benchmarked by default (and by the paper profile of chapter 07)
SGD_DEPTHS = (1, 5, 10)
#: runs in the batched grid; chapter 06's record searches 9 rates with seed 0 at once
GRID_RUNS = 9
#: training images (MNIST-5k's size), input dimension (784 pixels) and classes
N_TRAIN, IN_DIM, OUT_DIM = 5000, 784, 10
#: the learning rate of every benchmarked run (small, so that no run is stopped as diverged)
SGD_LR = 0.01
#: SGD updates timed per mode and repeat, at least (whole epochs; 20 are 2 epochs of MNIST-5k at batch 500)
TIMED_UPDATES = 20

MB = 2.0 ** 20
STARTUP_ALLOWANCE = 60.0  # seconds granted beyond the estimate for the worker's imports and setup


def sgd_update_flops(batch: int, in_dim: int, width: int, depth: int, out_dim: int = OUT_DIM) -> float:
    """Flops of the matrix products of one SGD update of one bias-free ReLU MLP ([LH] Eq. 1, Sec. 5).

    Forward 2 B P, backward 4 B P (weight and activation gradients), minus the gradient with
    respect to the input, 2 B d m, which backpropagation never forms: 6 B P - 2 B d m, with
    P = d m + (L - 1) m^2 + m k. Elementwise work (ReLU, softmax, the update) is not counted.

    Args:
        batch: SGD batch B.
        in_dim: input dimension d.
        width: hidden width m.
        depth: hidden layers L >= 1.
        out_dim: classes k.

    Returns:
        The flop count.
    """
    batch, in_dim, width = positive_int(batch, "batch"), positive_int(in_dim, "in_dim"), positive_int(width, "width")
    depth, out_dim = positive_int(depth, "depth"), positive_int(out_dim, "out_dim")
    dims = [in_dim] + [width] * depth + [out_dim]
    P = sum(a * b for a, b in zip(dims[:-1], dims[1:]))
    return 6.0 * batch * P - 2.0 * batch * in_dim * width


def _updates_per_epoch(n_train: int, batch: int) -> int:
    return -(-n_train // min(batch, n_train))  # the last partial batch is kept


# ---------------------------------------------------------------- the worker (fresh process)
def _prefix(precision: str) -> str:
    """The column prefix of a precision's modes: none for float32 (the columns chapter 07 reads), ``bf16_``."""
    return "" if precision == "fp32" else f"{precision}_"


def _worker(spec: dict) -> dict:
    """One depth in this (fresh) process: one run and the grid in each precision, interleaved with the matmul
    reference in each precision's dtype."""
    dev = check_device(spec["device"])
    if spec.get("threads"):
        torch.set_num_threads(int(spec["threads"]))
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    n, d, m, B = spec["n_train"], spec["in_dim"], spec["width"], spec["batch"]
    precisions = spec.get("precisions", ["fp32"])
    X = gaussian_data(n, d, seed=0, unit_norm=True)
    y = np.random.default_rng(0).integers(0, spec["out_dim"], n)
    gen = torch.Generator().manual_seed(1)
    a = torch.randn(B, m, generator=gen).to(dev)
    b = torch.randn(m, m, generator=gen).to(dev)
    refs = {p: (a.to(dt), b.to(dt), torch.matmul(a.to(dt), b.to(dt)))
            for p, dt in (("fp32", torch.float32), ("bf16", torch.bfloat16)) if p in precisions}
    mm_best = dict.fromkeys(refs, np.inf)

    def matmuls() -> None:
        for p, (x, w, out) in refs.items():
            for _ in range(spec["matmuls"]):
                sync()
                t0 = time.perf_counter()
                torch.matmul(x, w, out=out)
                sync()
                mm_best[p] = min(mm_best[p], time.perf_counter() - t0)

    def train(runs: int, epochs: int, precision: str) -> float:
        sync()
        t0 = time.perf_counter()
        res = sgd_train_runs(X, y, depth=spec["depth"], width=m, lrs=[spec["lr"]] * runs, seeds=range(runs),
                             epochs=epochs, batch_size=B, out_dim=spec["out_dim"], dtype="float32",
                             precision=precision, device=str(dev), loss_record="epoch_mean", progress=False)
        sync()
        if res.diverged.any():
            raise BenchmarkError(f"a run diverged at lr {spec['lr']}; the timing would cover a smaller batch")
        return time.perf_counter() - t0

    for p in precisions:
        train(1, 1, p)  # warm-up: lazy imports, allocator and kernels
    matmuls()
    modes = {f"{_prefix(p)}{k}": (r, p) for p in precisions for k, r in (("one", 1), ("grid", spec["runs"]))}
    times = {(k, e): [] for k in modes for e in ("short", "long")}
    peak = dict.fromkeys(modes, 0.0)
    for _ in range(spec["repeats"]):
        for mode, (runs, precision) in modes.items():
            for e in ("short", "long"):
                if dev.type == "cuda":
                    torch.cuda.reset_peak_memory_stats(dev)
                    base = torch.cuda.memory_allocated(dev)
                else:
                    base = reset_rss_peak()
                times[mode, e].append(train(runs, spec[f"epochs_{e}"], precision))
                top = torch.cuda.max_memory_allocated(dev) if dev.type == "cuda" else rss_peak()
                peak[mode] = max(peak[mode], top - base)
                matmuls()
    updates = (spec["epochs_long"] - spec["epochs_short"]) * _updates_per_epoch(n, B)
    out = dict(updates=updates)
    for p, t in mm_best.items():
        out[f"{_prefix(p)}matmul_gflops"] = 2.0 * B * m * m / t / 1e9
    for mode in modes:
        out[f"{mode}_s_per_update"] = (min(times[mode, "long"]) - min(times[mode, "short"])) / updates
        out[f"{mode}_peak_bytes"] = float(peak[mode])
        out[f"{mode}_times"] = times[mode, "short"] + times[mode, "long"]
    return out


# ---------------------------------------------------------------- public measurement functions
def _int(name: str, v, lo: int) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
        raise BenchmarkError(f"{name} must be an integer >= {lo}, got {v!r}")
    return int(v)


def run_sgd_case(depth: int, *, width: int = 512, batch: int = 500, runs: int = GRID_RUNS, n_train: int = N_TRAIN,
                 in_dim: int = IN_DIM, out_dim: int = OUT_DIM, lr: float = SGD_LR, epochs_short: int = 1,
                 timed_updates: int = TIMED_UPDATES, repeats: int = 2, matmuls: int = 10, device: str = "cpu",
                 threads: int = 0, timeout: float = 1800.0, precisions: Sequence[str] = ("fp32",)) -> dict:
    """Updates per second of one run and of a batched grid of ``runs`` runs at one depth, in a fresh process.

    Args:
        depth: hidden layers L >= 1 of the ReLU MLP ([LH] Eq. 1).
        width: hidden width m.
        batch: SGD batch B ([LH] Sec. 5: 500).
        runs: R, the runs of the batched grid (>= 2).
        n_train: training inputs (Gaussian, unit norm; random labels).
        in_dim: input dimension d.
        out_dim: classes k.
        lr: the learning rate of every run.
        epochs_short: the shorter of the two training lengths whose time difference is measured.
        timed_updates: at least this many SGD updates in that difference (the longer length is
            ``epochs_short`` plus as many epochs as needed).
        repeats: repeats of each (mode, length); the minimum time is used.
        matmuls: timed matmuls after every training call (their best rate is the reference).
        device: ``"cpu"`` or ``"cuda"``.
        threads: torch threads in the worker (0: torch's default).
        timeout: seconds before the worker is killed.
        precisions: ``("fp32",)`` or ``("fp32", "bf16")``: also time both modes with bfloat16 products.

    Returns:
        A dict: the settings, ``flops_per_update`` (one run, :func:`sgd_update_flops`),
        ``matmul_gflops``, and per mode (``one``, ``grid``) ``<mode>_updates_per_s`` (run-updates per
        second: R times the batched updates for the grid), ``<mode>_gflops``, ``<mode>_frac_matmul``,
        ``<mode>_peak_mb``; ``speedup`` (grid run-updates per second over one run's); ``seconds``
        (the worker's wall time) and the 1-minute load averages ``load_start`` and ``load_end``. With bf16, the
        same per mode prefixed ``bf16_`` (their fractions of ``bf16_matmul_gflops``, the bfloat16 reference),
        ``bf16_speedup`` (bf16 grid over float32 grid) and ``bf16_one_speedup`` (bf16 one run over float32's).

    Raises:
        lib.finite.cost_model.BenchmarkError: a bad argument (named), or the worker failed.
    """
    depth, width, batch = _int("depth", depth, 1), _int("width", width, 1), _int("batch", batch, 1)
    runs, n_train = _int("runs", runs, 2), _int("n_train", n_train, 1)
    in_dim, out_dim = _int("in_dim", in_dim, 1), _int("out_dim", out_dim, 2)
    epochs_short, timed_updates = _int("epochs_short", epochs_short, 1), _int("timed_updates", timed_updates, 1)
    epochs_long = epochs_short + -(-timed_updates // _updates_per_epoch(n_train, batch))
    repeats, matmuls, threads = _int("repeats", repeats, 1), _int("matmuls", matmuls, 1), _int("threads", threads, 0)
    if isinstance(lr, bool) or not isinstance(lr, (int, float)) or not 0 < lr < float("inf"):
        raise BenchmarkError(f"lr must be a positive number, got {lr!r}")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise BenchmarkError(f"timeout must be a positive number of seconds, got {timeout!r}")
    try:
        check_device(device)
    except InputError as exc:
        raise BenchmarkError(str(exc)) from None
    if isinstance(precisions, str) or not precisions or "fp32" not in precisions \
            or not set(precisions) <= set(PRECISIONS):
        raise BenchmarkError(f"precisions must list 'fp32' and optionally 'bf16', got {precisions!r}")
    precisions = [p for p in PRECISIONS if p in precisions]
    spec = dict(depth=depth, width=width, batch=batch, runs=runs, n_train=n_train, in_dim=in_dim, out_dim=out_dim,
                lr=float(lr), epochs_short=epochs_short, epochs_long=epochs_long, repeats=repeats, matmuls=matmuls,
                device=str(device), threads=threads, precisions=precisions)
    load0, t0 = os.getloadavg()[0], time.perf_counter()
    res, err = spawn_worker("lib.finite.sgd_benchmark", spec, timeout=timeout + STARTUP_ALLOWANCE)
    if err:
        raise BenchmarkError(f"the SGD case at depth {depth} failed: {err}")
    flops = sgd_update_flops(batch, in_dim, width, depth, out_dim)
    row = dict(spec, flops_per_update=flops, updates=res["updates"])
    row.pop("precisions")
    for p in precisions:
        pre = _prefix(p)
        mm = res[f"{pre}matmul_gflops"]
        row[f"{pre}matmul_gflops"] = mm
        for mode, r in (("one", 1), ("grid", runs)):
            s = res[f"{pre}{mode}_s_per_update"]
            ups = r / s if s > 0 else np.nan  # under heavy load the difference of two times can vanish
            row.update({f"{pre}{mode}_updates_per_s": ups, f"{pre}{mode}_gflops": ups * flops / 1e9,
                        f"{pre}{mode}_frac_matmul": ups * flops / 1e9 / mm,
                        f"{pre}{mode}_peak_mb": res[f"{pre}{mode}_peak_bytes"] / MB})
    row.update(speedup=row["grid_updates_per_s"] / row["one_updates_per_s"])
    if "bf16" in precisions:
        row.update(bf16_speedup=row["bf16_grid_updates_per_s"] / row["grid_updates_per_s"],
                   bf16_one_speedup=row["bf16_one_updates_per_s"] / row["one_updates_per_s"])
    row.update(seconds=time.perf_counter() - t0, load_start=load0, load_end=os.getloadavg()[0])
    return row


def run_sgd_benchmark(depths=SGD_DEPTHS, *, progress: bool = True, **kwargs) -> pd.DataFrame:
    """:func:`run_sgd_case` at every depth, one fresh process each; one row per depth ([LH] Sec. 5).

    Args:
        depths: hidden layers L (each >= 1).
        progress: show a progress bar over the depths.
        **kwargs: the keyword arguments of :func:`run_sgd_case` (width, batch, runs, ...).

    Returns:
        One row per depth, the dicts of :func:`run_sgd_case`.

    Raises:
        lib.finite.cost_model.BenchmarkError: bad arguments (named) or a failed worker.
    """
    depths = [depths] if isinstance(depths, (int, np.integer)) and not isinstance(depths, bool) else depths
    if not isinstance(depths, (list, tuple)) or not depths:
        raise BenchmarkError(f"depths must be a non-empty list of integers >= 1, got {depths!r}")
    depths = [_int("depths", L, 1) for L in depths]
    rows = [run_sgd_case(L, **kwargs) for L in tqdm(depths, desc="SGD benchmark", leave=False, disable=not progress)]
    return pd.DataFrame(rows)


def sgd_line(row) -> str:
    """The summary line of one depth ([LH] Sec. 5 trains by SGD), as the command line ends.

    ``sgd depth L: batched grid at N% of the same-run matmul rate, Mx one run at a time``.

    Args:
        row: a row of :func:`run_sgd_benchmark` (dict or pandas row).

    Returns:
        The line (N an integer percent, M with one decimal).
    """
    return (f"sgd depth {int(row['depth'])}: batched grid at {100 * row['grid_frac_matmul']:.0f}% of the same-run "
            f"matmul rate, {row['speedup']:.1f}x one run at a time")


def bf16_line(row) -> str:
    """The bf16 line of one depth, when the row has it: each precision as a fraction of its own same-run matmul rate,
    and the ratio of their speeds ([LH] Sec. 5 trains by SGD).

    ``sgd depth L, bf16 against float32: one run 2.9x (bf16 at 21% of the same-run bf16 matmul rate, float32 at 52%
    of the float32 one), batched grid 3.1x (23% and 61%); matmul 1250 and 190 GFLOP/s``.

    Args:
        row: a row of :func:`run_sgd_benchmark` run with ``precisions=("fp32", "bf16")``.

    Returns:
        The line.
    """
    return (f"sgd depth {int(row['depth'])}, bf16 against float32: one run {row['bf16_one_speedup']:.1f}x (bf16 at "
            f"{100 * row['bf16_one_frac_matmul']:.0f}% of the same-run bf16 matmul rate, float32 at "
            f"{100 * row['one_frac_matmul']:.0f}% of the float32 one), batched grid {row['bf16_speedup']:.1f}x "
            f"({100 * row['bf16_grid_frac_matmul']:.0f}% and {100 * row['grid_frac_matmul']:.0f}%); matmul "
            f"{row['bf16_matmul_gflops']:.0f} and {row['matmul_gflops']:.0f} GFLOP/s")


#: the columns of :func:`format_sgd_table`, with their headers
SGD_COLUMNS = {"depth": "depth", "width": "width", "batch": "batch", "runs": "grid runs",
               "one_updates_per_s": "one run: updates/s", "one_frac_matmul": "one run / matmul",
               "grid_updates_per_s": "grid: run-updates/s", "grid_frac_matmul": "grid / matmul",
               "speedup": "grid / one run", "matmul_gflops": "matmul GFLOP/s",
               "one_peak_mb": "one run peak MB", "grid_peak_mb": "grid peak MB"}


#: the columns a row run with bf16 adds to :func:`format_sgd_table`
BF16_COLUMNS = {"bf16_one_updates_per_s": "bf16 one run: updates/s", "bf16_one_frac_matmul": "bf16 one run / bf16 matmul",
                "bf16_grid_updates_per_s": "bf16 grid: run-updates/s", "bf16_grid_frac_matmul": "bf16 grid / bf16 matmul",
                "bf16_one_speedup": "bf16 / float32, one run", "bf16_speedup": "bf16 / float32, grid",
                "bf16_matmul_gflops": "bf16 matmul GFLOP/s"}


def _cell(col: str, v) -> str:
    if col.endswith("frac_matmul"):
        return f"{100 * v:.0f}%"
    if col.endswith("speedup"):
        return f"{v:.1f}x"
    return str(int(v)) if col in ("depth", "width", "batch", "runs") else f"{v:.3g}"


def format_sgd_table(df: pd.DataFrame) -> pd.DataFrame:
    """The benchmark's rows as a text table, one row per depth (the chapter and the command line show it).

    Args:
        df: rows of :func:`run_sgd_benchmark`.

    Returns:
        The columns of :data:`SGD_COLUMNS` under their headers, then those of :data:`BF16_COLUMNS` when the
        rows have them; fractions of the matmul rate as percents, the speed-ups with one decimal, other numbers
        with three significant digits.
    """
    cols = {**SGD_COLUMNS, **({k: v for k, v in BF16_COLUMNS.items()} if "bf16_speedup" in df else {})}
    return pd.DataFrame({head: [_cell(col, v) for v in df[col]] for col, head in cols.items()})


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit status 2."""

    def error(self, message: str):  # noqa: D102 - argparse's hook
        print(f"error: {message}", file=sys.stderr)
        sys.exit(2)


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python -m lib.finite.benchmark --sgd [--quick] ...``; prints the table and one line per depth.

    Args:
        argv: command-line arguments (default ``sys.argv[1:]``), without ``--sgd``.

    Returns:
        The exit status (0, or 2 for bad arguments or a failed case).
    """
    ap = _Parser(prog="python -m lib.finite.benchmark --sgd", description=__doc__,
                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="depth 10 only, one repeat (under two minutes quiet)")
    ap.add_argument("-L", "--depths", type=int, nargs="+", default=list(SGD_DEPTHS), help="depths L (hidden layers)")
    ap.add_argument("-w", "--width", type=int, default=512, help="hidden width m")
    ap.add_argument("--batch", type=int, default=500, help="SGD batch")
    ap.add_argument("--runs", type=int, default=GRID_RUNS, help="runs of the batched grid")
    ap.add_argument("--n-train", type=int, default=N_TRAIN, help="training inputs (one epoch = n / batch updates)")
    ap.add_argument("--timed-updates", type=int, default=TIMED_UPDATES,
                    help="SGD updates timed per mode and repeat, at least (whole epochs)")
    ap.add_argument("--repeats", type=int, default=2, help="repeats of each training call (the minimum is used)")
    ap.add_argument("--precisions", nargs="+", choices=PRECISIONS, default=list(PRECISIONS),
                    help="fp32 and bf16 (default: both, each against its own matmul rate); fp32 is always timed")
    add_common_options(ap)
    args = ap.parse_args(argv)
    if serve_worker(args, _worker):
        return 0
    depths, repeats = ([10], 1) if args.quick else (args.depths, args.repeats)
    try:
        df = run_sgd_benchmark(depths, width=args.width, batch=args.batch, runs=args.runs, n_train=args.n_train,
                               timed_updates=args.timed_updates, repeats=repeats,
                               device=args.device, threads=args.threads,
                               precisions=tuple(dict.fromkeys(["fp32", *args.precisions])))
    except BenchmarkError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(format_sgd_table(df).to_string(index=False))
    print(f"load average (1 min) at start {df.load_start.iloc[0]:.2f}, at end {df.load_end.iloc[-1]:.2f}")
    if args.csv:
        df.drop(columns=[c for c in df if c.endswith("_times")], errors="ignore").to_csv(args.csv, index=False)
    for row in df.to_dict("records"):
        print(sgd_line(row))
        if "bf16_speedup" in row:
            print(bf16_line(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
