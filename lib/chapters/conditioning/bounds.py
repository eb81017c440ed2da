"""Chapter 03: [LH] Prop 4.1 (small angle -> large kappa) and Thm 4.2 (first-layer NTK, kappa < kappa_0)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from lib.book.plotting import figure
from lib.book.provenance import profile_text
from lib.book.results import Check
from lib.book.wording import ints
from lib.chapters.conditioning.data import LABELS, colors, sets_text
from lib.chapters.conditioning.summary import ConditioningSweep, full_data_reductions, monotone_violations
from lib.chapters.conditioning.theory_cells import TheoryResult

__all__ = ["PROP41_MIN_CELLS", "PROP41_RHO", "prop41_bound", "plot_prop41", "CAPTION_PROP41", "setting_prop41",
           "check_prop41", "FirstLayerTable", "table_first_layer", "plot_first_layer", "CAPTION_FIRST_LAYER",
           "setting_first_layer", "check_first_layer"]

#: the caption of the Prop 4.1 figure (:func:`plot_prop41`)
CAPTION_PROP41 = ("Left: smallest NTK eigenvalue (relative to the largest squared gradient norm) against the squared "
                  "smallest gradient angle, one point per non-singular cell of the sweep. Right: condition number "
                  "against $1/\\phi_{\\min}^2$. Dashed: the bounds above.")

#: the caption of the Thm 4.2 figure (:func:`plot_first_layer`)
CAPTION_FIRST_LAYER = ("Condition number of the NTK with only the first layer trainable, at infinite width (lines) and "
                       "width $m$ (points), against $\\kappa_0$ (dashed): full data with finite $\\kappa_0$ (left), "
                       "batches below the rank of $G$ (right).")


def prop41_bound(frame: pd.DataFrame) -> pd.DataFrame:
    """[LH] Prop 4.1 per cell: lambda_min <= (1 - cos phi_min) max_i K_ii <= phi_min^2/2 max_i K_ii.

    (Rayleigh quotient of v ~ e_i/``|F_i|`` - e_j/``|F_j|`` for the pair at the minimum angle.) Adds
    ``phi2`` = phi_min^2, ``lmin_rel`` = lambda_min / max_i K_ii, ``bound_rel`` = 1 - cos phi_min,
    ``tightness`` = lmin_rel / bound_rel, and ``kappa_lower`` = 1/(1 - cos phi_min). Cells whose kappa is
    only an interval (matrix-free, no diagonal recorded) and batch-only cells (no full-data kernel) are left out.

    Args:
        frame: the per-cell frame of :func:`lib.chapters.conditioning.cells.measure_conditioning`.

    Returns:
        A copy of ``frame`` with the columns above.
    """
    df = frame[~frame.get("interval", pd.Series(False, index=frame.index)).astype(bool)
               & frame["min_angle"].notna()].copy()
    df["phi2"] = df["min_angle"] ** 2
    df["lmin_rel"] = df["lambda_min"] / df["diag_max"]
    df["bound_rel"] = 2.0 * np.sin(df["min_angle"] / 2.0) ** 2
    df["tightness"] = df["lmin_rel"] / df["bound_rel"]
    df["kappa_lower"] = 1.0 / df["bound_rel"]
    return df


def plot_prop41(sweep: ConditioningSweep) -> Figure:
    """[LH] Prop 4.1: lambda_min / max K_ii against phi_min^2 (left) and kappa against 1/phi_min^2 (right).

    Args:
        sweep: the sweep; one point per cell of :func:`prop41_bound` (singular cells are left out).

    Returns:
        A figure with two axes, the bounds dashed.
    """
    names, p41 = sweep.names, prop41_bound(sweep.frame)
    COLORS = colors(names)
    fin = p41[~p41.singular.astype(bool)]
    fig, axs = figure(ncols=2, width=5.6, height=4.2)
    ax = axs[0, 0]
    for ds in names:
        for act, mk in (("relu", "o"), ("linear", "s")):
            s = fin[(fin.dataset == ds) & (fin.activation == act)]
            if len(s):
                ax.scatter(s.phi2, s.lmin_rel, s=14, marker=mk, color=COLORS[ds], alpha=0.7,
                           facecolors=COLORS[ds] if act == "relu" else "none", label=f"{ds}, {act}")
    xs = np.geomspace(p41.phi2.min() * 0.8, p41.phi2.max() * 1.2, 50)
    ax.plot(xs, xs / 2, "k--", label=r"bound $\phi_{\min}^2/2$")
    ax.set(xscale="log", yscale="log", xlabel=r"$\phi_{\min}^2$ (rad$^2$)", ylabel=r"$\lambda_{\min}/\max_i K_{ii}$",
           title=r"$\lambda_{\min} = O(\phi_{\min}^2)$")
    ax.legend(fontsize="x-small")
    ax = axs[0, 1]
    for ds in names:
        s = fin[fin.dataset == ds]
        ax.scatter(1 / s.phi2, s.kappa, s=14, color=COLORS[ds], alpha=0.7, label=ds)
    xs = np.geomspace((1 / p41.phi2).min() * 0.8, (1 / p41.phi2).max() * 1.2, 50)
    ax.plot(xs, 2 * xs, "k--", label=r"bound $2/\phi_{\min}^2$")
    ax.set(xscale="log", yscale="log", xlabel=r"$1/\phi_{\min}^2$", ylabel=r"$\kappa$ (finite cells)",
           title=r"$\kappa = \Omega(1/\phi_{\min}^2)$")
    ax.legend(fontsize="x-small")
    return fig


#: Fewest non-singular ReLU cells on which a rank correlation is read (below it: "inconclusive").
PROP41_MIN_CELLS = 6
#: Spearman correlation from which the smallest angle is said to govern lambda_min ("reproduced").
PROP41_RHO = 0.5


def setting_prop41(sweep: ConditioningSweep, profile: str) -> str:
    """The setting under the Prop 4.1 figure: the cells of the Figure 3 sweep it plots, and the profile."""
    return (f"Setting: every non-singular cell of the Figure 3 sweep (data {sets_text(sweep.sizes)}; width m = "
            f"{sweep.width}; depths L = {ints(sweep.depths)}; {sweep.seeds} seeds; full-data kernels"
            + "".join(f"; {LABELS.get(k, k)} at {v}" for k, v in full_data_reductions(sweep).items())
            + f"); {profile_text(profile)}. Deviation: not part of [LH] Figure 3; these points test Prop 4.1 on the "
            "cells of its sweep.")


def check_prop41(sweep: ConditioningSweep, alpha: float = 0.05) -> Check:
    """[LH] Prop 4.1 as the paper uses it: the smallest gradient angle governs lambda_min and kappa.

    The proposition's explicit inequality, lambda_min <= (1 - cos phi_min) max_i K_ii (a Rayleigh quotient),
    holds for every positive semi-definite matrix, so it cannot fail on any network: it is kept only as a
    consistency check of the measurement (the angle and the eigenvalues come from different code), and a
    violation makes the verdict "inconclusive" (a measurement error, not a finding about the paper). What can
    fail is what Sec. 4 takes from it: that the *smallest angle* is what makes the NTK ill-conditioned, so
    that larger angles (Sec. 3) mean smaller kappa (Figure 3). Across the non-singular ReLU cells (data sets,
    depths, seeds, protocols pooled) that predicts a positive rank correlation between log phi_min^2 and
    log(lambda_min / max K_ii); if lambda_min were set by something else (e.g. near rank deficiency of the
    data), it would not follow the angle.

    Rule, on Spearman's rho with its one-sided p-value (t approximation): fewer than
    :data:`~lib.chapters.conditioning.bounds.PROP41_MIN_CELLS` cells: "inconclusive"; rho <= 0: "not reproduced"; p < ``alpha`` and
    rho >= :data:`~lib.chapters.conditioning.bounds.PROP41_RHO` (the angle explains most of the ordering): "reproduced"; p < ``alpha`` and a
    smaller rho: "reproduced with caveat" (weak); otherwise "inconclusive" (positive but not significant at
    this number of cells). Thresholds: 0.5 is the conventional "strong" rank correlation; alpha = 0.05.

    Args:
        sweep: the sweep; its cells are read by :func:`prop41_bound`.
        alpha: one-sided significance level of the rank correlation.

    Returns:
        The verdict.
    """
    from scipy.stats import spearmanr

    p41 = prop41_bound(sweep.frame)
    fin = p41[~p41.singular.astype(bool)]
    ok_l = bool((fin.lmin_rel <= fin.bound_rel * (1 + 1e-9)).all())
    ok_k = bool((fin.kappa >= fin.kappa_lower * (1 - 1e-9)).all())
    relu = fin[(fin.activation == "relu") & (fin.lmin_rel > 0) & (fin.phi2 > 0)]
    n = len(relu)
    n_sing = int(p41.singular.astype(bool).sum())
    if not (ok_l and ok_k):
        return Check("[LH] Prop 4.1", status="inconclusive",
                     measured=f"The bound fails in {int((fin.lmin_rel > fin.bound_rel * (1 + 1e-9)).sum())} of "
                     f"{len(fin)} non-singular cells.",
                     caveat="the measured angles and eigenvalues violate an inequality every PSD matrix satisfies: "
                     "a measurement error")
    if n < PROP41_MIN_CELLS:
        return Check("[LH] Prop 4.1", status="inconclusive", measured=f"{n} non-singular ReLU cells.",
                     caveat=f"fewer than {PROP41_MIN_CELLS} non-singular ReLU cells: no rank correlation can be read")
    x, y = np.log(relu.phi2.to_numpy()), np.log(relu.lmin_rel.to_numpy())
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return Check("[LH] Prop 4.1", status="inconclusive", measured=f"{n} ReLU cells with one angle or one lambda_min.",
                     caveat="the cells do not vary: no correlation can be read")
    res = spearmanr(x, y, alternative="greater")
    rho, p = float(res.statistic), float(res.pvalue)
    measured = (f"Across {n} non-singular ReLU cells, log(lambda_min / max K_ii) and log phi_min^2 have Spearman "
                f"rho = {rho:.2f} (one-sided p = {p:.2g}); lambda_min is {fin.tightness.min():.2g} to "
                f"{fin.tightness.max():.2g} times the bound (1 - cos phi_min) max K_ii. Consistency of the "
                f"measurement: the bound holds in every one of {len(fin)} non-singular cells; {n_sing} singular cells (kappa = inf) are left out.")
    if rho <= 0:
        status, caveat = "not reproduced", ""
    elif p < alpha and rho >= PROP41_RHO:
        status, caveat = "reproduced", ""
    elif p < alpha:
        status, caveat = "reproduced with caveat", f"weak rank correlation (rho = {rho:.2f} < {PROP41_RHO})"
    else:
        status, caveat = "inconclusive", f"positive but not significant at {n} cells (p = {p:.2g} >= {alpha})"
    return Check("[LH] Prop 4.1", status=status, measured=measured, caveat=caveat)


@dataclass(frozen=True, eq=False)
class FirstLayerTable:
    """[LH] Thm 4.2 where it can fail (:func:`table_first_layer`), with the sweep's settings.

    Attributes:
        table: one row per (dataset, protocol) with a finite kappa_0: kappa0, below, lmin_ok, mono, kappa_L1,
            kappa_Lmax, fw_below, fw_mono, fw_L1, fw_Lmax (empty when no data set has a finite kappa_0).
        names: all data sets of the run (those without a row are not testable).
        depths: the sorted depths of the sweep.
        width: hidden width m of the finite networks.
    """

    table: pd.DataFrame
    names: tuple
    depths: tuple
    width: int


def table_first_layer(theory: TheoryResult, sweep: ConditioningSweep) -> FirstLayerTable:
    """[LH] Thm 4.2 where it can fail: the data sets and protocols with a finite kappa_0.

    Full data when G = X X^T is non-singular (faces: n = 200 <= d = 625); batches below the rank when
    it is not (digits, rank 61, batches of 40: per batch, kappa of the batch's K_L against its own
    kappa_0). Infinite width from :func:`lib.chapters.conditioning.theory_cells.theory_cell`, finite width (seed
    means of the first-layer-only NTK of the sweep) from :func:`lib.chapters.conditioning.summary.summarize`.

    Args:
        theory: the infinite-width predictions (:func:`lib.chapters.conditioning.theory_cells.measure_theory`).
        sweep: the finite-width sweep.

    Returns:
        The table with the sweep's data sets, depths and width.
    """
    rows, theory, summary, by = [], theory.frame, sweep.summary, sweep.series
    for ds in sweep.names:
        t = theory[theory.dataset == ds].set_index("depth").sort_index()
        if "kappa_first" not in t or t.kappa_first.isna().all():
            continue
        deep = t[t.index >= 1]
        if deep.empty:
            continue
        k0 = t.kappa_linear.iloc[0]
        if np.isfinite(k0):
            lmin0 = t.lambda_min_linear.iloc[0] / (t.index[0] + 1)
            tol = 1e-10 * t.lambda_max_first.max()
            fw = by(ds, "relu", "kappa_first_mean")[deep.index] if "kappa_first_mean" in summary else None
            rows.append(dict(
                dataset=ds, protocol="full data", kappa0=k0, below=bool((deep.kappa_first < k0).all()),
                lmin_ok=bool((deep.lambda_min_first >= lmin0 - tol).all()),
                mono=[int(t.index[i + 1]) for i in monotone_violations(deep.kappa_first.values, rtol=1e-9)],
                kappa_L1=deep.kappa_first.iloc[0], kappa_Lmax=deep.kappa_first.iloc[-1],
                fw_below=bool((fw < k0).all()) if fw is not None else None,
                fw_mono=[int(fw.index[i + 1]) for i in monotone_violations(fw.values, rtol=0.0)] if fw is not None else [],
                fw_L1=fw.iloc[0] if fw is not None else np.nan, fw_Lmax=fw.iloc[-1] if fw is not None else np.nan))
        if "kappa_first_small" in t and deep.kappa_first_small.notna().all():
            k0s = deep.kappa0_small.iloc[0]
            fw = (by(ds, "relu", "kappa_first_small_mean")[deep.index]
                  if "kappa_first_small_mean" in summary else None)
            fwb = (by(ds, "relu", "first_below0_small_min")[deep.index]
                   if "first_below0_small_min" in summary else None)
            rows.append(dict(
                dataset=ds, protocol="small batches", kappa0=k0s, below=bool((deep.first_below0_small == 1.0).all()),
                lmin_ok=True,
                mono=[int(deep.index[i + 1]) for i in monotone_violations(deep.kappa_first_small.values, rtol=1e-9)],
                kappa_L1=deep.kappa_first_small.iloc[0], kappa_Lmax=deep.kappa_first_small.iloc[-1],
                fw_below=bool((fwb == 1.0).all()) if fwb is not None else None,
                fw_mono=[int(fw.index[i + 1]) for i in monotone_violations(fw.values, rtol=0.0)] if fw is not None else [],
                fw_L1=fw.iloc[0] if fw is not None else np.nan, fw_Lmax=fw.iloc[-1] if fw is not None else np.nan))
    table = pd.DataFrame(rows).set_index(["dataset", "protocol"]) if rows else pd.DataFrame()
    return FirstLayerTable(table=table, names=tuple(sweep.names), depths=tuple(sweep.depths), width=int(sweep.width))


def plot_first_layer(theory: TheoryResult, sweep: ConditioningSweep) -> Figure:
    """[LH] Thm 4.2: kappa of the first-layer NTK K_L against depth, with kappa_0, where kappa_0 is finite.

    Left: full data (lines: infinite width; points: width-m seed means; dashed: kappa_0). Right: the same
    on the small batches (means over batches), dashed: the batches' mean kappa_0.

    Args:
        theory: the infinite-width predictions (:func:`lib.chapters.conditioning.theory_cells.measure_theory`).
        sweep: the finite-width sweep (its data sets in legend order, its width in the legend).

    Returns:
        A figure with two axes.
    """
    names, theory, summary = sweep.names, theory.frame, sweep.summary
    COLORS = colors(names)
    fig, axs = figure(ncols=2, width=5.6, height=4.2)
    for ax, (col, k0col, fwcol, title) in zip(axs[0], (
            ("kappa_first", "kappa_linear", "kappa_first_mean", "full data (finite $\\kappa_0$)"),
            ("kappa_first_small", "kappa0_small", "kappa_first_small_mean", "batches below rank G"))):
        for ds in names:
            t = theory[theory.dataset == ds].set_index("depth").sort_index()
            if col not in t or t[col].isna().all() or not np.isfinite(t[k0col].dropna()).all():
                continue
            t = t[t.index >= 1]
            ax.plot(t.index, t[col], "-", color=COLORS[ds], label=f"{ds}, infinite width")
            if fwcol in summary:
                fw = sweep.series(ds, "relu", fwcol)[t.index]
                ax.plot(fw.index, fw, "o", ms=4, color=COLORS[ds], label=f"{ds}, width {sweep.width}")
            ax.axhline(t[k0col].iloc[0], color=COLORS[ds], ls="--", lw=1, label=rf"{ds}: $\kappa_0$")
        ax.set(yscale="log", xlabel="depth L", ylabel=r"$\kappa(K_L)$, first layer trained", title=title)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize="x-small")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return fig


def setting_first_layer(sweep: ConditioningSweep, profile: str) -> str:
    """The setting under the Thm 4.2 figure: the data sets with a finite kappa_0 (full data or small batches),
    the width and depths of the sweep, and the profile."""
    data = sweep.data
    first = list(data.first_layer) if data is not None else []
    small = [k for k in (data.small if data is not None else {}) if k in sweep.sizes]
    sb = data.small[small[0]] if small else None
    first_txt = (", ".join(LABELS.get(k, k) for k in first)
                 + (f" (batches of {sb} on {', '.join(small)})" if small else "")) if first else \
        "none (no data set with a finite κ₀)"
    return (f"Setting: data with a finite κ₀: {first_txt}; infinite width (lines) and width m = {sweep.width} with "
            f"only the first layer trainable (points, mean of {sweep.seeds} seeds); depths L = {ints(sweep.depths)}; "
            f"{profile_text(profile)}. Deviation: not part of [LH] Figure 3 (all layers trained there); this is the "
            "setting of Thm 4.2.")


def check_first_layer(t42: FirstLayerTable) -> Check:
    """[LH] Thm 4.2: with only W^(1) trained, lambda_min(K_L) >= lambda_min(G), kappa(K_L) < kappa_0, non-increasing.

    Tested only where kappa_0 is finite (:func:`table_first_layer`): with kappa_0 = inf "below" holds for
    any finite kappa(K_L), so such data give "not checked" (not testable on this data). Rule: "reproduced"
    if at infinite width every tested row has kappa(K_L) < kappa_0 for all L >= 1 (on the small batches:
    in every batch), lambda_min(K_L) >= lambda_min(G) up to 1e-10 lambda_max (float64 eigenvalue rounding)
    and kappa(K_L) non-increasing up to 1e-9 relative, and the finite-width seed means are below kappa_0
    and non-increasing; "reproduced with caveat" if only the finite-width part fails (its kappa carries
    O(1/sqrt(m)) noise); "not reproduced" if the infinite-width statement fails.

    Args:
        t42: the table of :func:`table_first_layer` with its data sets, depths and width.

    Returns:
        The verdict.
    """
    depths, width, tab = t42.depths, t42.width, t42.table
    tested = set(tab.index.get_level_values(0)) if not tab.empty else set()
    untested = [d for d in t42.names if d not in tested]
    note = f" Not testable on {', '.join(untested)} (kappa_0 = inf)." if untested else ""
    if tab.empty:
        return Check("[LH] Thm 4.2", status="not checked", measured="kappa_0 = inf on every data set run.",
                     caveat="not testable on this data: kappa_0 is infinite (n > rank G), so kappa(K_L) < kappa_0 "
                     "holds for any finite value; needs data with n <= rank G (faces) or batches below the rank")
    inf_ok = bool(tab.below.all() and tab.lmin_ok.all() and all(not v for v in tab.mono))
    fw_ok = bool(all(b is None or b for b in tab.fw_below) and all(not v for v in tab.fw_mono))
    status = "reproduced" if inf_ok and fw_ok else "reproduced with caveat" if inf_ok else "not reproduced"
    txt = "; ".join(
        f"{ds} ({prot}): kappa_0 = {r.kappa0:.3g}, infinite-width kappa(K_L) {r.kappa_L1:.3g} (L=1) -> "
        f"{r.kappa_Lmax:.3g} (L={max(depths)}), width-{width} mean {r.fw_L1:.3g} -> {r.fw_Lmax:.3g}"
        + (" (finite width NOT below kappa_0)" if r.fw_below is False else "")
        + (f" (rises at L={r.fw_mono})" if r.fw_mono else "") for (ds, prot), r in tab.iterrows())
    return Check(
        "[LH] Thm 4.2", status=status,
        caveat="" if status != "reproduced with caveat" else "the finite-width kernel misses the infinite-width bound",
        measured=f"Where kappa_0 is finite ({len(tab)} data set/protocol pairs): infinite width kappa(K_L) < kappa_0 "
        f"for all L >= 1 on {int(tab.below.sum())}/{len(tab)}, lambda_min(K_L) >= lambda_min(G) on "
        f"{int(tab.lmin_ok.sum())}/{len(tab)}, non-increasing on {sum(not v for v in tab.mono)}/{len(tab)}. {txt}." + note)
