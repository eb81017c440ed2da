"""Chapter 03 summaries: the sweep's result (:class:`ConditioningSweep`: seed means per (data set, activation,
depth) with the settings they were measured at), the measured tables, the batching sentence and the cost
notes ([LH] Sec. 4.1)."""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import pandas as pd

from lib.book.sweep import SweepResult
from lib.book.wording import ints
from lib.chapters.conditioning.data import LABELS, ChapterData

__all__ = ["ConditioningSweep", "summarize", "monotone_violations", "batching_sentence", "batching_note",
           "full_data_reductions", "table_measured", "table_cell_times", "cost_note", "glue_values"]


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
        frame: the per-cell frame of :func:`lib.chapters.conditioning.cells.measure_conditioning`.

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


@dataclass(frozen=True, eq=False)
class ConditioningSweep:
    """The [LH] Figure 3 sweep: its seed means and the settings they were measured at.

    Made by :func:`lib.chapters.conditioning.cells.measure_conditioning`; every ``plot_*``, ``check_*`` and
    ``table_*`` of the sweep takes it alone (its names, depths, width, batch size travel with it).

    Attributes:
        summary: :func:`summarize` of ``frame``, one row per (dataset, activation, depth).
        names: the data sets, in legend order.
        depths: the sorted depths L of the sweep.
        batch_size: the authors' batch size.
        width: hidden width m.
        seeds: weight draws (and batch partitions) per cell.
        sizes: ``{name: (n, d)}`` of the data sets.
        data: the data sets and their plan (:class:`lib.chapters.conditioning.data.ChapterData`), or None.
        frame: one row per (data set, depth, activation, seed), or None.
        run: the sweep's run (:class:`lib.book.sweep.SweepResult`: cells cached and computed, times), or None.
    """

    summary: pd.DataFrame
    names: tuple
    depths: tuple
    batch_size: int
    width: int = 0
    seeds: int = 0
    sizes: dict = field(default_factory=dict)
    data: ChapterData | None = None
    frame: pd.DataFrame | None = None
    run: SweepResult | None = None

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, names: Sequence[str], depths: Sequence[int], batch_size: int,
                   **kw) -> "ConditioningSweep":
        """The result of a per-cell ``frame`` (summarized here) with its settings; ``kw``: the other attributes."""
        return cls(summary=summarize(frame), names=tuple(names), depths=tuple(sorted(set(int(L) for L in depths))),
                   batch_size=int(batch_size), frame=frame, **kw)

    @property
    def deep(self) -> list[int]:
        """The depths L >= 1 (depth 0 has no ReLU: both networks are the linear model there)."""
        return [L for L in self.depths if L >= 1]

    def series(self, ds: str, act: str, col: str) -> pd.Series:
        """One column of ``summary`` for one data set and activation (``"relu"`` or ``"linear"``), by depth."""
        S = self.summary
        return S[(S.dataset == ds) & (S.activation == act)].set_index("depth")[col]

    def note(self) -> str:
        """One line on the run: cells, executor, computed now vs read from the cache, times
        (:meth:`lib.book.sweep.SweepResult.note`)."""
        return self.run.note() if self.run is not None else f"{len(self.summary)} summary rows (no run recorded)"


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


def full_data_reductions(sweep: ConditioningSweep) -> dict[str, str]:
    """``{name: "k of S seeds[, depths L = ... of ...]"}`` of the large data sets whose full data the sweep
    measured at fewer seeds or depths than the authors' batches (``ChapterData.full_seeds``); empty when none.

    Args:
        sweep: the sweep, with its data (``ConditioningSweep.data``).

    Returns:
        The reduction of each such data set, in words.
    """
    out, all_depths = {}, list(sweep.depths)
    data = sweep.data
    for k, v in (data.full_seeds if data is not None else {}).items():
        dep = sorted(set(int(L) for L in data.full_depths.get(k, all_depths)))
        if k in sweep.sizes and (v < sweep.seeds or dep != all_depths):
            out[k] = f"{v} of {sweep.seeds} seeds" + (f", depths L = {ints(dep, ranges=False)} of {ints(all_depths)}"
                                                      if dep != all_depths else "")
    return out


def batching_sentence(sweep: ConditioningSweep, ds: str = "synthetic") -> str:
    """One sentence, with the measured numbers, on what the authors' batching does to [LH] Figure 3.

    Compares, for the ReLU networks on ``ds``, the full-data kappa with the batch mean (ratio range over
    depths >= 1) and the fall of each from the smallest to the largest depth >= 1.

    Args:
        sweep: the sweep (:func:`lib.chapters.conditioning.cells.measure_conditioning`).
        ds: the data set the sentence is about (the first one if absent).

    Returns:
        The sentence (Markdown).
    """
    if ds not in sweep.sizes:
        ds = next(iter(sweep.sizes))
    batch_size, deep = sweep.batch_size, sweep.deep
    if not deep:
        return "Only depth 0 was run: nothing to say about batching."
    full, high = sweep.series(ds, "relu", "kappa_mean")[deep], sweep.series(ds, "relu", "kappa_high_mean")[deep]
    bat = sweep.series(ds, "relu", "kappa_batch_mean")[deep]
    n, d = sweep.sizes[ds]
    if n <= batch_size:
        return (f"On {ds} (n = {n} <= batch {batch_size}) the authors' protocol has a single batch, the full set: "
                f"batching changes nothing there.")
    measured = full.notna()  # depths whose full data was not measured (a large set) are left out
    exact = bool(np.all(np.isclose(full[measured], high[measured])))
    ratio = full / bat
    L0, L1 = deep[0], deep[-1]
    fall_full, fall_b = full[L0] / full[L1], bat[L0] / bat[L1]
    qual = "at least " if not exact else ""
    return (f"**What batching does.** On {ds} (n = {n}, d = {d}), the authors' batch-of-{batch_size} "
            f"kappa of the ReLU networks is {qual}{ratio.min():.3g} to {qual}{ratio.max():.3g} times smaller than the "
            f"full-data kappa (L = {L0}..{L1}), and from L = {L0} to L = {L1} the full-data kappa falls "
            f"{fall_full:.3g}-fold ({full[L0]:.3g} -> {full[L1]:.3g}{'' if exact else ', low ends of intervals'}) "
            f"while the batch mean falls only {fall_b:.3g}-fold ({bat[L0]:.3g} -> {bat[L1]:.3g}): batching keeps the "
            f"direction of the claim but {'flattens' if fall_b < fall_full else 'does not flatten'} the depth trend "
            f"and understates kappa.")


def batching_note(sweep: ConditioningSweep) -> str:
    """:func:`batching_sentence` on the synthetic set (or the first one), and on MNIST-5k when it was run."""
    first = "synthetic" if "synthetic" in sweep.sizes else next(iter(sweep.sizes))
    sets = [first] + (["mnist_5k"] if "mnist_5k" in sweep.sizes and first != "mnist_5k" else [])
    return "\n\n".join(batching_sentence(sweep, ds) for ds in sets)


def table_measured(sweep: ConditioningSweep, depths: Sequence[int] | None = None) -> pd.DataFrame:
    """The closing table: seed-mean phi_min (deg, full set) and kappa both ways, by (data set, depth).

    Args:
        sweep: the sweep (row order and n, d in the index; the batch size in the column names).
        depths: depths to show (default: all).

    Returns:
        Indexed by (dataset, depth); kappa columns for the full data and the batch mean, ReLU and linear,
        and the small-batch means where recorded.
    """
    S, by, tabs = sweep.summary, sweep.series, {}
    for ds, (n, d) in sweep.sizes.items():
        tab = pd.DataFrame({
            "phi_min ReLU": by(ds, "relu", "angle_mean"), "phi_min linear": by(ds, "linear", "angle_mean"),
            "kappa ReLU, full": by(ds, "relu", "kappa_mean"),
            "kappa linear, full": by(ds, "linear", "kappa_mean"),
            f"kappa ReLU, batch {sweep.batch_size}": by(ds, "relu", "kappa_batch_mean"),
            f"kappa linear, batch {sweep.batch_size}": by(ds, "linear", "kappa_batch_mean")})
        if bool(by(ds, "relu", "interval").any()):
            tab["kappa ReLU, full (high)"] = by(ds, "relu", "kappa_high_mean")
        if "kappa_small_mean" in S and by(ds, "relu", "kappa_small_mean").notna().any():
            tab["kappa ReLU, small batch"] = by(ds, "relu", "kappa_small_mean")
            tab["kappa linear, small batch"] = by(ds, "linear", "kappa_small_mean")
            tab["kappa_0, small batch"] = by(ds, "relu", "kappa0_small_mean")
        if depths is not None:
            tab = tab.loc[[L for L in depths if L in tab.index]]
        tabs[f"{ds} (n = {n}, d = {d})"] = tab
    return pd.concat(tabs, names=["dataset", "depth"])


def table_cell_times(sweep: ConditioningSweep) -> pd.DataFrame:
    """Mean seconds per cell by data set (rows) and depth (columns)."""
    return sweep.frame.groupby(["dataset", "depth"])["seconds"].mean().unstack("depth")


def cost_note(sweep: ConditioningSweep) -> str:
    """A Markdown paragraph on the cost of the sweep on this machine, against "hours" per NTK in [LH] Sec. 4.1.

    Args:
        sweep: the sweep, with its run (``ConditioningSweep.run``).

    Returns:
        The paragraph (includes the machine's load average), opening with ``{profile}``, which the recorder's
        :meth:`~lib.book.results.Recorder.show` writes as the run's profile.
    """
    run, df, depths = sweep.run, sweep.frame, sweep.depths
    nmax_ds = max(sweep.sizes, key=lambda k: sweep.sizes[k][0])
    full = df[df["kappa"].notna()]  # batch-only cells hold no full-data kernel
    per_ntk = full[(full.dataset == nmax_ds) & (full.depth == depths[-1]) & (full.activation == "relu")]["seconds"].mean()
    return (
        f"**{{profile}}**: {len(df)} cells on {os.cpu_count()} CPU core(s) ({run.executor}). Recorded "
        f"compute time of the whole sweep (sum over cells, as measured when each ran): "
        f"**{run.compute_seconds / 60:.1f} min**; this run's wall time {run.wall_seconds:.1f} s "
        f"({run.n_cached} cells read from the cache). "
        f"Largest kernel: {nmax_ds}, n = {sweep.sizes[nmax_ds][0]}, depth {depths[-1]}, width {sweep.width}: "
        f"{per_ntk:.2f} s per ReLU cell (kernel, its spectrum, the batch kernels read from it), against 'hours' per "
        f"NTK on an A100 in the paper. The machine's load average at the end of this run was "
        f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores: cell times include waiting for the CPU.")


def glue_values(cfg, sweep: ConditioningSweep, agreement, two_sample) -> dict[str, str]:
    """The values the chapter's prose shows, as plain text to glue ([LH] Sec. 4, App. F), read off the results.

    Sizes come from the data loaded (``ConditioningSweep.data``), the width, depths, seeds and batch size
    from the sweep, the compared networks from ``agreement`` and ``two_sample``; where the prose tells the
    reader which parameter to change (``idx_dir``, ``n_idx``, ``pixel_range``, ``data_file``, ``datasets``,
    ``n_mnist5k``, ``small_batch``, ``large_n``, ...), the entry states the value in force in ``cfg``.

    Args:
        cfg: the validated parameters of notebook 03 (:data:`lib.chapters.conditioning.spec.SPEC`).
        sweep: the sweep, with its data (:func:`lib.chapters.conditioning.cells.measure_conditioning`).
        agreement: the comparison with the authors' code
            (:func:`lib.chapters.conditioning.agreement.measure_authors_agreement`).
        two_sample: the App. F measurement (:func:`lib.chapters.conditioning.two_sample.measure_two_sample`).

    Returns:
        ``{name: text}`` (plain text for ``{glue:text}``): ``n_synthetic``, ``d_synthetic``, ``d10_state``,
        ``datasets``, ``digits``, ``faces``, ``small_batch_sentence``, ``small_batches``, ``idx_dir``, ``n_idx``,
        ``pixel_range``, ``data_file``, ``unit_norm``, ``batch_size``, ``seeds``, ``width``, ``agreement``,
        ``two_sample``, ``rank_bound``, ``mnist5k``, ``n_mnist5k``, ``mnist5k_batches`` (the authors' partition of
        MNIST-5k, in words), ``full_seeds_note`` (the full-data reductions of this run), ``theory_sets`` (the sets
        without infinite-width lines).
    """
    data, sets = sweep.data, sweep.sizes
    sb = cfg.small_batch
    small = [k for k in data.small if k in sets]
    large = [k for k in data.full_seeds if k in sets]
    reduced = full_data_reductions(sweep)
    label = lambda k: LABELS.get(k, k)  # noqa: E731
    knobs = (f" (parameters large_n = {cfg.large_n}, large_full_seeds = {cfg.large_full_seeds}, large_full_depths = "
             f"{cfg.large_full_depths})")
    full_seeds_note = ("**Reduction in this run:** " + "; ".join(
        f"on {label(k)} (n = {sets[k][0]}) the full-data κ and min angle (the {sets[k][0]} x {sets[k][0]} "
        f"NTK, one float64 eigen-problem per depth and seed) are computed at {v}, for both networks; the authors' "
        f"batches use every seed and depth" for k, v in reduced.items())
        + knobs + ". The paper profile computes every seed and depth." if reduced else
        "Every seed measures both protocols.")
    theory_sets = (f"No infinite-width lines for {', '.join(label(k) for k in large)}: its n x n "
                   f"infinite-width kernels are left out of this run{knobs}; the paper profile includes them."
                   if large else "")
    if "mnist_5k" in sets:
        n5, bs = sets["mnist_5k"][0], sweep.batch_size
        nb, last = -(-n5 // bs), n5 - (-(-n5 // bs) - 1) * bs
        cut = (f"{nb - 1} of {bs} and a last one of {last}, kept as their DataLoader keeps it (drop_last=False)"
               if last < bs else f"all of {bs}")
        mnist5k_batches = (f"per seed, a fresh random permutation of the {n5} images cut into {nb} batch"
                           f"{'es' if nb > 1 else ''} ({cut}), the κ of each batch's NTK averaged over the {nb}, "
                           f"then over the {sweep.seeds} seeds")
        mnist5k = "all 5,000" if n5 == 5000 else f"{n5} of the 5,000"
    else:
        mnist5k_batches = "MNIST-5k is not in this run (add \"mnist_5k\" to the parameter datasets)"
        mnist5k = "(not in this run)"
    rank = int(data.info.loc["digits", "rank_G"]) if "digits" in data.info.index else 61
    if sb and small:
        small_sentence = f"we also cut them into batches of {sb} (below the rank {rank}), where κ₀ is finite"
        small_batches = f"{', '.join(label(k) for k in small)} in batches of {sb}"
    elif sb:
        small_sentence = (f"batches of {sb} were asked for, but that is not below the rank of G of any set here "
                          f"(digits: {rank}), so none is cut and κ₀ stays infinite on them")
        small_batches = "no small batches (the size asked for is not below any rank of G)"
    else:
        small_sentence = "they are not cut into batches in this run, so κ₀ stays infinite on them"
        small_batches = "no small batches (none asked for in this run)"
    if "synthetic" in sets:
        (n, d), m = sets["synthetic"], sweep.width
        rank_bound = (f"on the synthetic set (d = {d}, n = {n}) at width m = {m} that rank bound is "
                      f"m(1 + d) = {m * (1 + d)}, {m * (1 + d) / n:.3g} times n")
    else:
        rank_bound = "the synthetic set is not in this run"
    return {
        "n_synthetic": str(sets["synthetic"][0]) if "synthetic" in sets else "none (not in this run)",
        "d_synthetic": str(sets["synthetic"][1]) if "synthetic" in sets else "none",
        "d10_state": "in this run" if "synthetic_d10" in sets else "not in this run",
        "datasets": ", ".join(cfg.datasets),
        "digits": f"{sets['digits'][0]} of the 1797" if "digits" in sets else "none (not in this run)",
        "faces": f"{sets['faces'][0]} of the 200" if "faces" in sets else "none (not in this run)",
        "small_batch_sentence": small_sentence,
        "small_batches": small_batches,
        "idx_dir": str(cfg.idx_dir) if cfg.idx_dir else "not set",
        "n_idx": "None: all 60,000" if cfg.n_idx is None else str(cfg.n_idx),
        "pixel_range": ("None: [-1, 1] for MNIST-style images and faces, [0, 1] for digits" if cfg.pixel_range is None
                        else f"[{cfg.pixel_range[0]:g}, {cfg.pixel_range[1]:g}] for every image set"),
        "data_file": str(cfg.data_file) if cfg.data_file else "not set",
        "unit_norm": ("Inputs are rescaled to unit norm in this run (the authors do not normalize)."
                      if data.unit_norm else "Inputs are not rescaled, as the authors do not normalize."),
        "batch_size": str(sweep.batch_size), "seeds": str(sweep.seeds), "width": str(sweep.width),
        "agreement": agreement.text(),
        "two_sample": f"width m = {two_sample.width} ({two_sample.seeds} seeds)",
        "rank_bound": rank_bound,
        "mnist5k": mnist5k,
        "n_mnist5k": "None: all 5,000" if cfg.n_mnist5k is None else str(cfg.n_mnist5k),
        "mnist5k_batches": mnist5k_batches,
        "full_seeds_note": full_seeds_note,
        "theory_sets": theory_sets,
    }
