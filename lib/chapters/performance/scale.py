"""Chapter 07 (Performance), full-data section: extreme spectra and the minimum angle at MNIST scale.

Each case is one fresh process of :func:`lib.finite.extremes.bench.run_scale_case` ([LH] Sec. 4, 4.1:
the ReLU MLP of [LH] Eq. (1), exact min pairwise gradient angle, certified lambda_max and a certified
interval for lambda_min, never holding the n x n kernel unless a certified factorization fits), cached
with :func:`lib.book.cache.cached_call`; this module runs the cases (:func:`measure_scale`, a
:class:`ScaleRun` that carries its settings) and writes their table and text.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd

from lib.book.cache import cached_call
from lib.book.wording import ints
from lib.chapters.performance.benchmark import describe_device, paper_profile
from lib.finite.extremes import tiled_bytes
from lib.finite.extremes.bench import SCALE_DATA, run_scale_case
from lib.validation import InputError, check_seed

__all__ = ["SCALE_VERSION", "MNIST_N", "DATA_LABELS", "DATA_WORDS", "data_label", "SCALE_TILE", "LAMBDA_MIN_MODES", "ScaleRun", "measure_scale",
           "measure_scale_cases", "asked_for", "table_scale", "depth_sentence", "scale_text", "glue_scale"]

#: the number of MNIST training images, the size of [LH] Sec. 4's full-data question
MNIST_N = 60000
#: short names of a case's inputs (table column ``data``)
DATA_LABELS = {"gaussian": "Gaussian", "mnist": "MNIST"}
#: the inputs in words (sentences)
DATA_WORDS = {"gaussian": "Gaussian inputs of MNIST's shape", "mnist": "the real MNIST training images"}
#: default tile edge of the certified factorization (:func:`lib.chapters.performance.scale.measure_scale_cases`)
SCALE_TILE = 2048

#: bump when :func:`lib.chapters.performance.scale.measure_scale_cases` changes what a cached case holds
SCALE_VERSION = "1"


@dataclass(frozen=True, eq=False)
class ScaleRun:
    """The full-data cases of one run and the settings they were computed with ([LH] Sec. 4, 4.1).

    Attributes:
        frame: one row per case (:func:`measure_scale_cases`).
        ns: numbers of inputs n.
        data: the inputs, ``"gaussian"`` or ``"mnist"`` (:data:`lib.finite.extremes.bench.SCALE_DATA`).
        depths: depths L.
        width: hidden width m.
        in_dim: input dimension d.
        lambda_min: the lambda_min mode asked for (``"auto"``, ``"exact"``, ``"certified"`` or ``"bounds"``).
        shifts: one certified shift per depth, or None.
        device: ``"cpu"`` or ``"cuda"``.
        profile: the parameter profile of the run ("" when unknown).
    """

    frame: pd.DataFrame
    ns: tuple
    depths: tuple
    width: int
    in_dim: int
    lambda_min: str
    shifts: tuple | None = None
    device: str = "cpu"
    profile: str = ""
    data: str = "gaussian"


def measure_scale(cfg) -> ScaleRun:
    """The chapter's full-data cases (:func:`measure_scale_cases` at every n of ``cfg.scale_ns`` and depth of
    ``cfg.scale_depths``).

    Args:
        cfg: the chapter's validated parameters (:data:`lib.chapters.performance.spec.SPEC`): ``scale_ns``,
            ``scale_depths``, ``scale_width``, ``scale_in_dim``, ``scale_lambda_min``, ``scale_shifts``,
            ``scale_data``, ``device``, ``profile``.

    Returns:
        :class:`ScaleRun`.
    """
    frame = measure_scale_cases(cfg.scale_ns, cfg.scale_depths, width=cfg.scale_width, in_dim=cfg.scale_in_dim,
                                lambda_min=cfg.scale_lambda_min, shifts=cfg.scale_shifts, device=cfg.device,
                                data=cfg.scale_data)
    return ScaleRun(frame, tuple(cfg.scale_ns), tuple(cfg.scale_depths), int(cfg.scale_width), int(cfg.scale_in_dim),
                    cfg.scale_lambda_min, None if cfg.scale_shifts is None else tuple(cfg.scale_shifts), cfg.device,
                    cfg.profile, cfg.scale_data)


def measure_scale_cases(ns, depths, *, width: int, in_dim: int, lambda_min: str, seed: int = 0, device: str = "cpu",
                        tile: int = SCALE_TILE, shifts=None, cache_dir=None, data: str = "gaussian") -> pd.DataFrame:
    """Full-data extreme spectra and min angle ([LH] Sec. 4, 4.1) at every (n, depth), one fresh process each.

    Each case is :func:`lib.finite.extremes.bench.run_scale_case` (ReLU MLP of [LH] Eq. (1) on n inputs
    from N(0, I_d) or MNIST's training images, :func:`lib.finite.extremes.ntk_extremes` with
    ``method="matrix_free"``), cached with
    :func:`lib.book.cache.cached_call`: an interrupted run resumes from the finished cases, and a cached
    case keeps the timings and the date of the run that measured it.

    Args:
        ns: numbers of inputs n.
        depths: depths L.
        width: hidden width m.
        in_dim: input dimension d (784: MNIST's shape).
        lambda_min: ``"auto"``, ``"exact"``, ``"certified"`` or ``"bounds"`` (see ``ntk_extremes``); a
            certified case whose tiles do not fit in memory falls back to ``"bounds"`` (column ``note``).
        seed: seed of inputs and weights.
        device: ``"cpu"`` or ``"cuda"``.
        tile: tile edge of the certified factorization.
        shifts: None (the two-factorization certificate), or one shift per depth, in the order of
            ``depths``: each case certifies ``lambda_min >= shift`` minus rounding with one factorization
            (half the time at large n; the upper end of lambda_min is then the sub-block bound).
        cache_dir: overrides the sweep cache directory.
        data: the inputs, ``"gaussian"`` or ``"mnist"`` (:func:`lib.finite.extremes.bench.scale_inputs`).

    Returns:
        One row per case (the dict of :func:`lib.finite.extremes.bench.scale_case`; ``data`` filled in for
        Gaussian cases cached before it was recorded).
    """
    seed = check_seed(seed)
    if data not in SCALE_DATA:
        raise InputError(f"data must be one of {SCALE_DATA}, got {data!r}")
    if shifts is not None and len(shifts) != len(depths):
        raise InputError(f"shifts must give one shift per depth ({len(depths)} depths), got {len(shifts)}")
    rows = []
    for n in ns:
        for i, L in enumerate(depths):
            key = dict(n=int(n), depth=int(L), width=int(width), in_dim=int(in_dim), lambda_min=lambda_min,
                       seed=int(seed), device=str(device), tile=int(tile))
            if shifts is not None:
                key["shift"] = float(shifts[i])
            if data != "gaussian":  # absent for Gaussian inputs: their cached cases keep their keys
                key["data"] = data
            row = cached_call("07_performance_scale", key, lambda k=key: run_scale_case(**k, progress=False),
                              version=SCALE_VERSION, cache_dir=cache_dir, keep=asked_for(lambda_min))
            rows.append({"data": data, **row})
    return pd.DataFrame(rows)


def asked_for(lambda_min: str) -> Callable[[dict], bool]:
    """Whether a case's result is the one asked for: a ``"certified"`` case that fell back to bounds because this
    machine lacked the memory (:func:`lib.finite.extremes.bench.run_scale_case`'s ``note``) is not, so it is
    never cached as the certified case, and a later run on a machine with the memory certifies it."""
    return lambda row: lambda_min != "certified" or row.get("lambda_min_mode") == "certified"


def _interval(lo, hi) -> str:
    if lo is None or not np.isfinite(lo):
        return "inf (singular)"
    hi_txt = "inf" if hi is None or not np.isfinite(hi) else f"{hi:.6g}"
    return f"[{lo:.6g}, {hi_txt}]"


def _secs(s) -> str:
    return f"{s:.0f}" if s >= 10 else f"{s:.2g}"


def _width(lo, hi) -> str:
    if lo is None or not np.isfinite(lo):
        return "0"
    return "unbounded" if hi is None or not np.isfinite(hi) else f"{hi / lo - 1:.2g}"


def data_label(data: str) -> str:
    """How the tables and sentences name a case's inputs: ``"Gaussian"`` or ``"MNIST"`` (rows without the field,
    written before it was recorded, are Gaussian)."""
    return DATA_LABELS.get(data if isinstance(data, str) else "gaussian", str(data))


def table_scale(df: pd.DataFrame) -> pd.DataFrame:
    """The "Full-data spectra" table: min angle, lambda_max with its certified error, kappa interval, cost.

    Args:
        df: rows of :func:`lib.chapters.performance.scale.measure_scale_cases`.

    Returns:
        One text row per case: its data (Gaussian or MNIST), n, depth, how lambda_min was bounded, min angle (rad), lambda_max, its
        certified relative error ``(high - low) / lambda_max``, the kappa interval, its relative width
        ``high / low - 1``, seconds, peak resident memory (GiB).
    """
    data = df["data"] if "data" in df else ["gaussian"] * len(df)
    out = pd.DataFrame({
        "data": [data_label(d) for d in data], "n": df.n, "depth": df.depth, "lambda_min": df.lambda_min_mode,
        "min angle (rad)": [f"{a:.6f}" for a in df.min_angle],
        "lambda_max": [f"{v:.6g}" for v in df.lambda_max],
        "lambda_max rel. error bound": [f"{(h - lo) / v:.1e}" for v, lo, h in
                                        zip(df.lambda_max, df.lambda_max_low, df.lambda_max_high)],
        "kappa interval": [_interval(lo, hi) for lo, hi in zip(df.kappa_low, df.kappa_high)],
        "kappa rel. width": [_width(lo, hi) for lo, hi in zip(df.kappa_low, df.kappa_high)],
        "seconds": [_secs(s) for s in df.seconds],
        "peak memory (GiB)": [f"{p:.2g}" for p in df.peak_gib]})
    return out


def depth_sentence(rec: pd.DataFrame) -> str:
    """How the certified kappa interval moves between the smallest and largest recorded depth ([LH] Fig 3).

    Args:
        rec: rows of :func:`lib.chapters.performance.scale.measure_scale_cases` (or of the records).

    Returns:
        One sentence per (data, n) with two or more depths whose kappa intervals are finite, naming the data:
        kappa falls (the deeper interval lies wholly below), rises (wholly above) or is undecided (they overlap);
        ``""`` when no (data, n) has two such depths.
    """
    out = []
    rec = rec.assign(data=rec["data"].fillna("gaussian") if "data" in rec else "gaussian")
    for (data, n), g in rec.groupby(["data", "n"]):
        g = g[[lo is not None and hi is not None and np.isfinite(lo) and np.isfinite(hi)
               for lo, hi in zip(g.kappa_low, g.kappa_high)]].sort_values("depth")
        if len(g) < 2:
            continue
        a, b = g.iloc[0], g.iloc[-1]
        how = ("falls with depth: the deeper interval lies wholly below" if b.kappa_high < a.kappa_low else
               "rises with depth: the deeper interval lies wholly above" if b.kappa_low > a.kappa_high else
               "is not decided: the two intervals overlap")
        out.append(f"On {DATA_WORDS.get(data, data)}, at n = {int(n):,}, the full-data $\\kappa$ lies in [{a.kappa_low:.4g}, {a.kappa_high:.4g}] at "
                   f"depth {int(a.depth)} and in [{b.kappa_low:.4g}, {b.kappa_high:.4g}] at depth {int(b.depth)}, "
                   f"so it {how}. ([LH] Figure 3 plots $\\kappa$ on batches of 512, where it falls with depth; "
                   "chapter 3 shows both ways of measuring.)")
    return " ".join(out)


def scale_text(df: pd.DataFrame) -> str:
    """Markdown: per case, what took how long and how much memory, and what the kappa interval is ([LH] Sec. 4).

    Args:
        df: rows of :func:`lib.chapters.performance.scale.measure_scale_cases`.

    Returns:
        One bullet per case, the factorization rate, how kappa moves with depth
        (:func:`lib.chapters.performance.scale.depth_sentence`), then the machine and GPU sentence.
    """
    lines = []
    for r in df.itertuples():
        scan, lmax = getattr(r, "t_angle_scan", np.nan), getattr(r, "t_lambda_max", np.nan)
        lmin = getattr(r, "t_lambda_min", np.nan)
        note = f", because the {r.note}" if getattr(r, "note", "") else ""
        finite = r.kappa_low is not None and np.isfinite(r.kappa_low)
        shift = getattr(r, "shift", None)
        given = (f" by one factorization at the given shift s = {shift:g}"
                 if r.lambda_min_mode == "certified" and shift is not None and np.isfinite(shift) else "")
        kap = (f"$\\kappa$ {'lies in' if finite else '='} {_interval(r.kappa_low, r.kappa_high)} (relative width "
               f"{_width(r.kappa_low, r.kappa_high)}; $\\lambda_{{\\min}}$ {r.lambda_min_mode}{given}{note}, "
               f"{_secs(lmin)} s)")
        rel = (r.lambda_max_high - r.lambda_max_low) / r.lambda_max
        lines.append(f"- {data_label(getattr(r, 'data', 'gaussian'))}, n = {r.n:,}, depth {r.depth}: exact min angle {r.min_angle:.4f} rad in {_secs(scan)} s, "
                     f"$\\lambda_{{\\max}}$ = {r.lambda_max:.6g} (certified to {rel:.0e} relative) in {_secs(lmax)} s; "
                     f"{kap}; {_secs(r.seconds)} s in all, peak memory {r.peak_gib:.2g} GiB (finished {r.date}, "
                     f"load average {r.load_start:.1f} to {r.load_end:.1f} on {r.cpus} cores).")
    # an extrapolation only from sizes where the tile products run at their level-3 BLAS rate
    cert = df[(df.lambda_min_mode == "certified") & np.isfinite(df.t_certified_factor) & (df.n >= 4000)] \
        if "t_certified_factor" in df else df.iloc[:0]
    if len(cert):
        r = cert.sort_values("n").iloc[-1]
        nf = r.get("t_certified_factorizations", 2)
        nf = 2 if nf is None or not np.isfinite(nf) else nf
        rate = nf * r.n ** 3 / 3 / r.t_certified_factor
        done = (f"\nThe certified factorization{'s' if nf > 1 else ''} at n = {r.n:,} ran at {rate / 1e9:.3g} "
                f"GFLOP/s ({nf:.0f} x $n^3/3$ flops in {_secs(r.t_certified_factor)} s, tiles of "
                f"{tiled_bytes(int(r.n), SCALE_TILE) / 2**30:.3g} GiB)")
        lines.append(done + ("." if r.n >= MNIST_N else
                             f"; at that rate one factorization at n = {MNIST_N:,} takes about "
                             f"{MNIST_N ** 3 / 3 / rate / 60:.0f} minutes, and its tiles need "
                             f"{tiled_bytes(MNIST_N, SCALE_TILE) / 2**30:.3g} GiB."))
    depth = depth_sentence(df)
    if depth:
        lines.append("\n" + depth)
    import torch
    gpu = ("a CUDA device is available here but was not used in this run" if torch.cuda.is_available() else
           "no GPU was available on this machine, so nothing was measured on one")
    lines.append(f"\nThe same code runs unchanged with `device=\"cuda\"` (factors and tiles then live on the GPU); {gpu}.")
    return "\n".join(lines)


#: the lambda_min modes in words (:func:`lib.finite.extremes.ntk_extremes`)
LAMBDA_MIN_MODES = {"exact": "exact (dense eigendecomposition)", "bounds": "bounds only (lower bound 0)",
                    "certified": "certified interval (shifted Cholesky factorization where its tiles fit)",
                    "auto": "auto (exact where a dense factorization fits, else certified or bounds)"}


def _shifts(scale: ScaleRun) -> str:
    if scale.lambda_min not in ("certified", "auto") or not scale.shifts:
        return ""
    given = ", ".join(f"s = {s:g} at depth {L}" for s, L in zip(scale.shifts, scale.depths))
    return f", one factorization at the given shift ({given})"


def glue_scale(scale: ScaleRun) -> dict[str, str]:
    """The values the full-data section's prose and table caption show, from the run's cases.

    Args:
        scale: :func:`measure_scale` output.

    Returns:
        ``{name: text}``: ``scale_caption`` (the setting under the full-data table), ``scale_sizes``,
        ``scale_in_dim``, ``scale_lambda_min``, ``paper_scale_n`` (what the ``paper`` profile runs), ``mnist_n``,
        ``mnist_tiles``.
    """
    paper_scale = paper_profile().get("scale_ns")
    if scale.data == "mnist":
        inputs = (f"MNIST training images (d = 784; pixels 2q/255 - 1 as the authors map them; all {MNIST_N:,} at n = "
                  f"{MNIST_N:,}, else n drawn with seed 0; seed 0 for the weights)")
        data_dev = ""
    else:
        inputs = f"inputs from N(0, I_d), d = {scale.in_dim} (seed 0 for data and weights)"
        data_dev = "; the inputs here are Gaussian of MNIST's shape, not MNIST images"
    caption = (f"Setting: n = {ints(scale.ns, ranges=False)} {inputs}; ReLU MLP of width m = {scale.width}, depths L = "
               f"{ints(scale.depths, ranges=False)}, float64 on {describe_device(scale.device)}; lambda_min mode "
               f"{LAMBDA_MIN_MODES[scale.lambda_min]}{_shifts(scale)}; {{profile}}. Deviation: the "
               f"paper computed its NTKs on an A100 GPU in batches of 512 inputs, not on the full {MNIST_N:,}"
               f"{data_dev}.")
    return {"scale_caption": caption,
            "scale_sizes": f"n = {ints(scale.ns, ranges=False)}, depths {ints(scale.depths, ranges=False)}, width "
                           f"{scale.width}, lambda_min mode {scale.lambda_min}",
            "scale_in_dim": str(scale.in_dim), "scale_lambda_min": scale.lambda_min,
            "paper_scale_n": ", ".join(f"{int(v):,}" for v in paper_scale) if paper_scale else "the full data set",
            "mnist_n": f"{MNIST_N:,}", "mnist_tiles": f"{tiled_bytes(MNIST_N, SCALE_TILE) / 2**30:.3g} GiB"}
