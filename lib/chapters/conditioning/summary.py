"""Chapter 03 summaries: seed means per (data set, activation, depth), the measured tables, the batching
sentence and the cost notes ([LH] Sec. 4.1)."""
from __future__ import annotations

import math
import os
from typing import Sequence

import numpy as np
import pandas as pd

from lib.book.sweep import SweepResult

__all__ = ["summarize", "by", "monotone_violations", "batching_sentence", "table_measured", "sweep_note",
           "table_cell_times", "cost_note"]


def _mean_inf(s: pd.Series) -> float:
    """Mean over seeds; ``inf`` as soon as one seed is infinite; NaN if nothing was recorded."""
    s = s.dropna()
    if s.empty:
        return math.nan
    return math.inf if np.isinf(s).any() else float(s.mean())


def summarize(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean and spread over seeds per (dataset, activation, depth); angles in degrees.

    Columns: ``angle_mean/min/max`` (deg, full set), ``kappa_mean`` (full data; the low end of an
    interval), ``kappa_high_mean``, ``kappa_min/max``, ``n_inf``, ``seeds``, ``full_seeds`` (seeds with
    full-data measures: fewer than ``seeds`` where batch-only cells ran, whose NaN full-data fields are left
    out of the full-data means), ``interval`` (any interval),
    ``kappa_batch_mean/min/max`` (the authors' batch protocol), ``lambda_min_mean``, ``lambda_max_mean``,
    and when recorded ``kappa_small_mean``, ``kappa0_small_mean``, ``below0_small_min``,
    ``kappa_first_mean``, ``kappa_first_small_mean``, ``first_below0_small_min``.

    Args:
        frame: the per-cell frame of :func:`lib.chapters.conditioning.cells.run_conditioning`.

    Returns:
        One row per (dataset, activation, depth).
    """
    df = frame.copy()
    df["angle_deg"] = np.degrees(df["min_angle"])
    if "kappa_high" not in df:
        df["kappa_high"] = df["kappa"]
    g = df.groupby(["dataset", "activation", "depth"], sort=True)
    out = pd.DataFrame({
        "angle_mean": g["angle_deg"].mean(), "angle_min": g["angle_deg"].min(), "angle_max": g["angle_deg"].max(),
        "kappa_mean": g["kappa"].agg(_mean_inf), "kappa_high_mean": g["kappa_high"].agg(_mean_inf),
        "kappa_min": g["kappa"].min(), "kappa_max": g["kappa"].max(),
        "n_inf": g["kappa"].agg(lambda s: int(np.isinf(s).sum())), "seeds": g["seed"].nunique(),
        "full_seeds": g["kappa"].count(),
        "lambda_min_mean": g["lambda_min"].mean(), "lambda_max_mean": g["lambda_max"].mean(),
        "interval": g["interval"].agg(lambda s: bool(s.fillna(False).astype(bool).any())) if "interval" in df else False,
    })
    if "kappa_batch" in df:
        out["kappa_batch_mean"] = g["kappa_batch"].agg(_mean_inf)
        out["kappa_batch_min"], out["kappa_batch_max"] = g["kappa_batch"].min(), g["kappa_batch"].max()
    for col in ("kappa_small", "kappa0_small", "kappa_first", "kappa_first_small"):
        if col in df:
            out[f"{col}_mean"] = g[col].agg(_mean_inf)
    for col in ("below0_small", "first_below0_small"):
        if col in df:
            out[f"{col}_min"] = g[col].min()
    return out.reset_index()


def by(summary: pd.DataFrame, ds: str, act: str, col: str) -> pd.Series:
    """One column of :func:`summarize` for one data set and activation, as a depth-indexed series.

    Args:
        summary: the frame of :func:`summarize`.
        ds: data set name.
        act: ``"relu"`` or ``"linear"``.
        col: column name.

    Returns:
        The column indexed by depth.
    """
    return summary[(summary.dataset == ds) & (summary.activation == act)].set_index("depth")[col]


def monotone_violations(values: Sequence[float], rtol: float = 1e-9) -> list[int]:
    """Indices i with values[i+1] > values[i] (1 + rtol): where a sequence fails to be non-increasing.

    Args:
        values: the sequence (e.g. kappa against depth).
        rtol: relative increase tolerated (rounding).

    Returns:
        The indices i where the sequence rises from i to i + 1 (none after an infinite value).
    """
    v = np.asarray(values, dtype=float)
    return [i for i in range(len(v) - 1) if v[i + 1] > v[i] * (1 + rtol) and not (np.isinf(v[i]))]


def batching_sentence(summary: pd.DataFrame, data: dict, depths: Sequence[int], batch_size: int,
                      ds: str = "synthetic") -> str:
    """One sentence, with the measured numbers, on what the authors' batching does to [LH] Figure 3.

    Compares, for the ReLU networks on ``ds``, the full-data kappa with the batch mean (ratio range over
    depths >= 1) and the fall of each from the smallest to the largest depth >= 1.

    Args:
        summary: the frame of :func:`summarize`.
        data: arrays by name.
        depths: the sorted depths of the sweep.
        batch_size: the authors' batch size.
        ds: the data set the sentence is about (the first one if absent).

    Returns:
        The sentence (Markdown).
    """
    if ds not in data:
        ds = next(iter(data))
    deep = [L for L in depths if L >= 1]
    if not deep:
        return "Only depth 0 was run: nothing to say about batching."
    full, high = by(summary, ds, "relu", "kappa_mean")[deep], by(summary, ds, "relu", "kappa_high_mean")[deep]
    bat = by(summary, ds, "relu", "kappa_batch_mean")[deep]
    n = data[ds].shape[0]
    if n <= batch_size:
        return (f"On {ds} (n = {n} <= batch {batch_size}) the authors' protocol has a single batch, the full set: "
                f"batching changes nothing there.")
    measured = full.notna()  # depths whose full data was not measured (a large set) are left out
    exact = bool(np.all(np.isclose(full[measured], high[measured])))
    ratio = full / bat
    L0, L1 = deep[0], deep[-1]
    fall_full, fall_b = full[L0] / full[L1], bat[L0] / bat[L1]
    qual = "at least " if not exact else ""
    return (f"**What batching does.** On {ds} (n = {n}, d = {data[ds].shape[1]}), the authors' batch-of-{batch_size} "
            f"kappa of the ReLU networks is {qual}{ratio.min():.3g} to {qual}{ratio.max():.3g} times smaller than the "
            f"full-data kappa (L = {L0}..{L1}), and from L = {L0} to L = {L1} the full-data kappa falls "
            f"{fall_full:.3g}-fold ({full[L0]:.3g} -> {full[L1]:.3g}{'' if exact else ', low ends of intervals'}) "
            f"while the batch mean falls only {fall_b:.3g}-fold ({bat[L0]:.3g} -> {bat[L1]:.3g}): batching keeps the "
            f"direction of the claim but {'flattens' if fall_b < fall_full else 'does not flatten'} the depth trend "
            f"and understates kappa.")


def table_measured(summary: pd.DataFrame, data: dict, batch_size: int, depths: Sequence[int] | None = None
                   ) -> pd.DataFrame:
    """The closing table: seed-mean phi_min (deg, full set) and kappa both ways, by (data set, depth).

    Args:
        summary: the frame of :func:`summarize`.
        data: arrays by name (row order and n, d in the index).
        batch_size: the authors' batch size (column names).
        depths: depths to show (default: all).

    Returns:
        Indexed by (dataset, depth); kappa columns for the full data and the batch mean, ReLU and linear,
        and the small-batch means where recorded.
    """
    S, tabs = summary, {}
    for ds in data:
        tab = pd.DataFrame({
            "phi_min ReLU": by(S, ds, "relu", "angle_mean"), "phi_min linear": by(S, ds, "linear", "angle_mean"),
            "kappa ReLU, full": by(S, ds, "relu", "kappa_mean"),
            "kappa linear, full": by(S, ds, "linear", "kappa_mean"),
            f"kappa ReLU, batch {batch_size}": by(S, ds, "relu", "kappa_batch_mean"),
            f"kappa linear, batch {batch_size}": by(S, ds, "linear", "kappa_batch_mean")})
        if bool(by(S, ds, "relu", "interval").any()):
            tab["kappa ReLU, full (high)"] = by(S, ds, "relu", "kappa_high_mean")
        if "kappa_small_mean" in S and by(S, ds, "relu", "kappa_small_mean").notna().any():
            tab["kappa ReLU, small batch"] = by(S, ds, "relu", "kappa_small_mean")
            tab["kappa linear, small batch"] = by(S, ds, "linear", "kappa_small_mean")
            tab["kappa_0, small batch"] = by(S, ds, "relu", "kappa0_small_mean")
        if depths is not None:
            tab = tab.loc[[L for L in depths if L in tab.index]]
        tabs[f"{ds} (n = {data[ds].shape[0]}, d = {data[ds].shape[1]})"] = tab
    return pd.concat(tabs, names=["dataset", "depth"])


def sweep_note(sweep: SweepResult) -> str:
    """One line on the sweep: cells, executor, computed vs cached, wall and compute time."""
    return (f"{len(sweep.frame)} cells ({sweep.executor}): {sweep.n_computed} computed now, {sweep.n_cached} read "
            f"from the cache; wall time of this run {sweep.wall_seconds:.1f} s; recorded compute time of all "
            f"cells {sweep.compute_seconds:.1f} s")


def table_cell_times(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean seconds per cell by data set (rows) and depth (columns)."""
    return frame.groupby(["dataset", "depth"])["seconds"].mean().unstack("depth")


def cost_note(sweep: SweepResult, data: dict, depths: Sequence[int], width: int, profile: str) -> str:
    """A Markdown paragraph on the cost of the sweep on this machine, against "hours" per NTK in [LH] Sec. 4.1.

    Args:
        sweep: the result of :func:`lib.chapters.conditioning.cells.run_conditioning`.
        data: arrays by name.
        depths: the sorted depths of the sweep.
        width: hidden width m.
        profile: parameter profile of the run.

    Returns:
        The paragraph (includes the machine's load average).
    """
    df = sweep.frame
    nmax_ds = max(data, key=lambda k: data[k].shape[0])
    full = df[df["kappa"].notna()]  # batch-only cells hold no full-data kernel
    per_ntk = full[(full.dataset == nmax_ds) & (full.depth == depths[-1]) & (full.activation == "relu")]["seconds"].mean()
    return (
        f"Profile **{profile}**: {len(df)} cells on {os.cpu_count()} CPU core(s) ({sweep.executor}). Recorded "
        f"compute time of the whole sweep (sum over cells, as measured when each ran): "
        f"**{sweep.compute_seconds / 60:.1f} min**; this run's wall time {sweep.wall_seconds:.1f} s "
        f"({sweep.n_cached} cells read from the cache). "
        f"Largest kernel: {nmax_ds}, n = {data[nmax_ds].shape[0]}, depth {depths[-1]}, width {width}: "
        f"{per_ntk:.2f} s per ReLU cell (kernel, its spectrum, the batch kernels read from it), against 'hours' per "
        f"NTK on an A100 in the paper. The machine's load average at the end of this run was "
        f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores: cell times include waiting for the CPU.")
