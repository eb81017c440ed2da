"""Chapter 03: [LH] Prop 4.1 (a small angle bounds lambda_min), Sec. 4's reading of it (the angle orders lambda_min) and
Thm 4.2 (first-layer NTK: lambda_min >= lambda_min(G), kappa < kappa_0, strictly decreasing in depth)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from lib.book.plotting import figure
from lib.book.results import Check
from lib.book.wording import count, ints, number
from lib.chapters.conditioning.data import LABELS, colors, sets_text
from lib.chapters.conditioning.summary import ConditioningSweep, full_data_reductions, monotone_violations
from lib.chapters.conditioning.theory_cells import TheoryResult

__all__ = ["PROP41_RTOL", "PROP41_MIN_CELLS", "PROP41_RHO", "PROP41_ALPHA", "PROP41_BOUND",
           "prop41_bound", "plot_prop41", "CAPTION_PROP41", "setting_prop41", "check_prop41", "check_prop41_ordering",
           "checks_prop41", "FirstLayerTable", "table_first_layer", "plot_first_layer", "CAPTION_FIRST_LAYER",
           "setting_first_layer", "check_first_layer", "check_first_layer_width", "FIRST_LAYER_RTOL",
           "FIRST_LAYER_LMIN_TOL", "FIRST_LAYER_SIGMAS"]

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
    ax.legend(fontsize=9)
    ax = axs[0, 1]
    for ds in names:
        s = fin[fin.dataset == ds]
        ax.scatter(1 / s.phi2, s.kappa, s=14, color=COLORS[ds], alpha=0.7, label=ds)
    xs = np.geomspace((1 / p41.phi2).min() * 0.8, (1 / p41.phi2).max() * 1.2, 50)
    ax.plot(xs, 2 * xs, "k--", label=r"bound $2/\phi_{\min}^2$")
    ax.set(xscale="log", yscale="log", xlabel=r"$1/\phi_{\min}^2$", ylabel=r"$\kappa$ (finite cells)",
           title=r"$\kappa = \Omega(1/\phi_{\min}^2)$")
    ax.legend(fontsize=9)
    return fig


#: Relative slack on the two inequalities of Prop 4.1 in one cell (float64 rounding; the angle is an arccos of a
#: cosine, so 1 - cos phi_min carries an absolute error of a few eps; lambda_min one of about n eps lambda_max).
#: The sweep's cells sit at most at 0.9 of the bound, so the slack decides nothing but rounding.
PROP41_RTOL = 1e-9
#: Fewest non-singular ReLU cells on which a rank correlation is read (below it; "inconclusive"); with fewer, one
#: swapped pair moves rho by 0.1 or more and the t approximation of its p-value is poor.
PROP41_MIN_CELLS = 6
#: Spearman correlation from which the smallest angle is said to set lambda_min ("reproduced"); the
#: conventional threshold of a strong rank correlation.
PROP41_RHO = 0.5
#: One-sided significance level of that rank correlation (below it a positive rho is more than chance).
PROP41_ALPHA = 0.05
#: The part of [LH] Prop 4.1 that is the proposition itself, the per-cell upper bound.
PROP41_BOUND = "bound"


def setting_prop41(sweep: ConditioningSweep) -> str:
    """The setting under the Prop 4.1 figure: the cells of the Figure 3 sweep it plots, and the profile."""
    return (f"Setting: every non-singular cell of the Figure 3 sweep (data {sets_text(sweep.sizes)}; width m = "
            f"{sweep.width}; depths L = {ints(sweep.depths)}; {sweep.seeds} seeds; full-data kernels"
            + "".join(f"; {LABELS.get(k, k)} at {v}" for k, v in full_data_reductions(sweep).items())
            + f"); {{profile}}. Deviation: not part of [LH] Figure 3; these points test Prop 4.1 on the "
            "cells of its sweep.")


def _prop41_cells(sweep: ConditioningSweep) -> tuple[pd.DataFrame, pd.DataFrame, pd.Series, pd.Series, int, int]:
    """The cells Prop 4.1 is read on: (all cells of :func:`prop41_bound`, the non-singular ones with a diagonal,
    the cells where the lambda_min bound fails beyond :data:`~lib.chapters.conditioning.bounds.PROP41_RTOL`, those where the kappa bound fails,
    the number of singular cells, the number of non-singular cells without a recorded diagonal)."""
    p41 = prop41_bound(sweep.frame)
    sing = p41.singular.astype(bool)
    has_diag = p41.diag_max.notna() & (p41.diag_max > 0)
    fin = p41[~sing & has_diag]
    bad_l = fin.lmin_rel > fin.bound_rel * (1 + PROP41_RTOL)
    bad_k = fin.kappa < fin.kappa_lower * (1 - PROP41_RTOL)
    return p41, fin, bad_l, bad_k, int(sing.sum()), int((~sing & ~has_diag).sum())


def check_prop41(sweep: ConditioningSweep) -> Check:
    """[LH] Prop 4.1, the bound: lambda_min = O(phi_min^2) and kappa = Omega(1/phi_min^2), tested per cell.

    The paper: if two rows of a full-row-rank B (here the Jacobian, K = B B^T) are at a small angle phi and
    every row norm is in [c, C], then lambda_min(K) = O(phi^2) and kappa(K) = Omega(1/phi^2). The proof's
    constant (the Rayleigh quotient of v = e_i/``|B_i|`` - e_j/``|B_j|`` for the pair at the smallest angle,
    with lambda_max >= max_i K_ii) makes it, in every cell,

        lambda_min <= (1 - cos phi_min) max_i K_ii <= phi_min^2/2 max_i K_ii,
        kappa >= 1/(1 - cos phi_min) >= 2/phi_min^2.

    Both hold for every positive semi-definite matrix: no network can violate them, and this check says so on
    its rows. They are tested as bounds, in every non-singular cell with a recorded diagonal (the premise
    "full row rank" excludes the singular cells; matrix-free cells record no diagonal and are counted out).

    Rule: "reproduced" if both inequalities hold in every such cell up to :data:`~lib.chapters.conditioning.bounds.PROP41_RTOL` relative
    (rounding); "inconclusive" if one fails beyond it in some cell (the measured angle and eigenvalues
    contradict an identity of linear algebra: a measurement error, which cannot refute the paper, so never
    "not reproduced"); "not checked" when no cell is non-singular with a diagonal (the premise is never met).
    There is no caveat level: the inequality holds or the measurement is wrong. Whether the smallest angle
    *orders* lambda_min across cells is another statement, :func:`check_prop41_ordering`.

    Args:
        sweep: the sweep; its cells are read by :func:`prop41_bound`.

    Returns:
        The check (part :data:`~lib.chapters.conditioning.bounds.PROP41_BOUND`), with one judged row per inequality.
    """
    p41, fin, bad_l, bad_k, n_sing, n_nodiag = _prop41_cells(sweep)
    left_out = (f" {n_sing} singular cells (kappa = inf, not full row rank) are left out"
                + (f", and {n_nodiag} matrix-free cells (no diagonal recorded)" if n_nodiag else "") + ".")
    every_psd = "holds for every PSD matrix (Rayleigh quotient), so no network can violate it"
    if fin.empty:
        return Check("[LH] Prop 4.1", status="not checked", part=PROP41_BOUND,
                     measured=f"No non-singular cell with a recorded diagonal.{left_out}",
                     caveat="not testable on this data: no cell has a full-row-rank Jacobian with its diagonal "
                     "recorded (the premise of Prop 4.1)")
    n, nl, nk = len(fin), int(bad_l.sum()), int(bad_k.sum())
    rule = f"in every cell, up to {PROP41_RTOL:g} relative (rounding); a violation is a measurement error"
    rows = ({"statement": "λ_min ≤ (1 − cos φ_min)·max_i K_ii ≤ φ_min²/2·max_i K_ii, per non-singular cell",
             "paper": f"λ_min = O(φ_min²); {every_psd}",
             "this book": f"holds in {n - nl}/{n} cells; λ_min is {number(fin.tightness.min())} to "
                          f"{number(fin.tightness.max())} of the bound",
             "rule": rule, "holds": nl == 0},
            {"statement": "κ ≥ 1/(1 − cos φ_min) ≥ 2/φ_min², per non-singular cell",
             "paper": f"κ = Ω(1/φ_min²); {every_psd}",
             "this book": f"holds in {n - nk}/{n} cells; κ is {number((fin.kappa / fin.kappa_lower).min())} to "
                          f"{number((fin.kappa / fin.kappa_lower).max())} times the bound",
             "rule": rule, "holds": nk == 0})
    measured = (f"lambda_min <= (1 - cos phi_min) max K_ii holds in {n - nl}/{n} non-singular cells and kappa >= "
                f"1/(1 - cos phi_min) in {n - nk}/{n}; lambda_min is {fin.tightness.min():.2g} to "
                f"{fin.tightness.max():.2g} times the bound. Both inequalities hold for every positive semi-definite "
                f"matrix, so this checks the measurement (angle and eigenvalues come from different code), not the "
                f"network.{left_out}")
    if nl or nk:
        return Check("[LH] Prop 4.1", status="inconclusive", part=PROP41_BOUND, measured=measured, rows=rows,
                     caveat="the measured angles and eigenvalues violate an inequality every PSD matrix satisfies: "
                     "a measurement error, not a finding about the paper")
    return Check("[LH] Prop 4.1", status="reproduced", part=PROP41_BOUND, measured=measured, rows=rows)


def check_prop41_ordering(sweep: ConditioningSweep, alpha: float = PROP41_ALPHA) -> Check:
    """[LH] Sec. 4's reading of Prop 4.1: across cells, the smallest gradient angle is what sets lambda_min.

    The paper, after the proposition: "Therefore, a good data angle separation in the model gradient features, i.e.
    phi not too small, is a necessary condition such that the condition number is not too large. As is shown in the
    last section, the ReLU nonlinearity makes the samples more separated ... Hence, it is expected that the NTK
    condition number will decrease in the presence of the ReLU nonlinearity." Not a statement of the proposition
    (an upper bound, :func:`check_prop41`) but what Sec. 4 takes from it, so it is its own registry row ("[LH] Sec
    4"): that the *smallest angle* makes the NTK ill-conditioned, so larger angles (Sec. 3) mean a smaller kappa
    (Figure 3). Across the non-singular ReLU cells (data sets, depths, seeds pooled) that predicts a positive
    rank correlation between log phi_min^2 and log(lambda_min / max K_ii); if lambda_min were set by something
    else (e.g. a near rank deficiency of the data), it would not follow the angle.

    Rule, on Spearman's rho with its one-sided p-value (t approximation): measured angles and eigenvalues that
    violate the bound of :func:`check_prop41` (a measurement error), fewer than :data:`~lib.chapters.conditioning.bounds.PROP41_MIN_CELLS`
    cells, or cells that do not vary: "inconclusive"; rho <= 0: "not reproduced"; p < ``alpha`` and
    rho >= :data:`~lib.chapters.conditioning.bounds.PROP41_RHO` (the angle explains most of the ordering): "reproduced"; p < ``alpha`` and a
    smaller rho: "reproduced with caveat" (a weak ordering); otherwise "inconclusive" (positive but not
    significant at this number of cells).

    Args:
        sweep: the sweep; its cells are read by :func:`prop41_bound`.
        alpha: one-sided significance level of the rank correlation (:data:`~lib.chapters.conditioning.bounds.PROP41_ALPHA`).

    Returns:
        The check of "[LH] Sec 4", with one judged row.
    """
    from scipy.stats import spearmanr

    _, fin, bad_l, bad_k, n_sing, _ = _prop41_cells(sweep)
    relu = fin[(fin.activation == "relu") & (fin.lmin_rel > 0)]  # with the bound, lambda_min > 0 means phi_min > 0
    n = len(relu)
    statement = "log(λ_min/max K_ii) rises with log φ_min² across the non-singular ReLU cells"
    paper = "a good angle separation is necessary for a small κ: the smallest angle sets λ_min"
    rule = (f"Spearman ρ ≥ {PROP41_RHO} with one-sided p < {alpha:g}; ρ > 0 with p < {alpha:g}: caveat; ρ ≤ 0: "
            f"not reproduced; fewer than {PROP41_MIN_CELLS} cells: inconclusive")

    def out(status, measured, caveat="", shown=None, holds=None):
        row = {"statement": statement, "paper": paper, "this book": shown or measured, "rule": rule, "holds": holds}
        return Check("[LH] Sec 4", status=status, measured=measured, caveat=caveat, rows=(row,))

    if bad_l.any() or bad_k.any():
        return out("inconclusive", f"The Prop 4.1 bound fails in {int((bad_l | bad_k).sum())} of {len(fin)} "
                   "non-singular cells.", "the measured angles and eigenvalues violate an inequality every PSD "
                   "matrix satisfies: a measurement error, so no ordering can be read from them")
    if n < PROP41_MIN_CELLS:
        return out("inconclusive", f"{n} non-singular ReLU cells.",
                   f"fewer than {PROP41_MIN_CELLS} non-singular ReLU cells: no rank correlation can be read")
    x, y = np.log(relu.phi2.to_numpy()), np.log(relu.lmin_rel.to_numpy())
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return out("inconclusive", f"{n} ReLU cells with one angle or one lambda_min.",
                   "the cells do not vary: no correlation can be read")
    res = spearmanr(x, y, alternative="greater")
    rho, p = float(res.statistic), float(res.pvalue)
    shown = f"Spearman ρ = {rho:.2f} (one-sided p = {p:.2g}) over {n} cells"
    measured = (f"Across {n} non-singular ReLU cells, log(lambda_min / max K_ii) and log phi_min^2 have Spearman "
                f"rho = {rho:.2f} (one-sided p = {p:.2g}); {n_sing} singular cells (kappa = inf) are left out.")
    if rho <= 0:
        return out("not reproduced", measured, shown=shown, holds=False)
    if p < alpha and rho >= PROP41_RHO:
        return out("reproduced", measured, shown=shown, holds=True)
    if p < alpha:
        return out("reproduced with caveat", measured, f"weak rank correlation (rho = {rho:.2f} < {PROP41_RHO})",
                   shown=shown, holds=True)
    return out("inconclusive", measured, f"positive but not significant at {n} cells (p = {p:.2g} >= {alpha:g})",
               shown=shown)


def checks_prop41(sweep: ConditioningSweep) -> list[Check]:
    """The checks of [LH] Prop 4.1 and of Sec. 4's reading of it, in the order the chapter records them: the bound
    (:func:`check_prop41`) and that the smallest angle orders lambda_min (:func:`check_prop41_ordering`)."""
    return [check_prop41(sweep), check_prop41_ordering(sweep)]


#: Relative change of the infinite-width kappa(K_L) between depths that float64 cannot resolve; its eigenvalues
#: are exact to about n eps kappa (1e-11 for n = 200, kappa = 2e4; the Lanczos path of
#: :func:`lib.spectra.fast_extremes` to 1e-10), while the curves of the sweep fall by 1% or more per depth. A
#: rise beyond it fails "decreasing"; a fall beyond it, from L = 1 to the largest depth, is required; a step within
#: it is not resolved as strict.
FIRST_LAYER_RTOL = 1e-9
#: lambda_min(K_L) may fall short of lambda_min(G) by this fraction of lambda_max(K_L) (float64 eigenvalue
#: rounding, about n eps lambda_max = 4e-14 for n = 200) before the inequality counts as failed.
FIRST_LAYER_LMIN_TOL = 1e-10
#: A width-m seed mean departs from the infinite-width theorem beyond its finite-width noise when it rises between
#: consecutive depths, or exceeds kappa_0, by more than this many standard errors of the seed means (two: a
#: departure at that level happens by chance about once in 40 comparisons).
FIRST_LAYER_SIGMAS = 2.0


@dataclass(frozen=True, eq=False)
class FirstLayerTable:
    """[LH] Thm 4.2 where it can fail (:func:`table_first_layer`), with the sweep's settings.

    Attributes:
        table: one row per (dataset, protocol) with a finite kappa_0 (empty when no data set has one):
            ``kappa0``; ``depths`` (the depths L >= 1, a tuple) and ``kappa`` (infinite-width kappa(K_L) at those
            depths; on the small batches the mean over batches); ``below`` (kappa(K_L) < kappa_0 at every L,
            on the small batches in every batch); ``lmin_gap`` (the smallest (lambda_min(K_L) - lambda_min(G)) /
            lambda_max(K_L) over the depths, and batches; NaN where not measured); ``fw_kappa`` (the width-m
            seed means at those depths, a tuple, or None), ``fw_se`` (their standard errors over the seeds, a
            tuple, NaN with one seed; or None) and ``fw_below`` (those below kappa_0, or None).
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
    it is not (digits, rank 61, batches of 40: per batch, kappa and lambda_min of the batch's K_L against its
    own G). Infinite width from :func:`lib.chapters.conditioning.theory_cells.theory_cell`, finite width (seed
    means of the first-layer-only NTK of the sweep) from :func:`lib.chapters.conditioning.summary.summarize`.
    The table holds the measurements only; :func:`check_first_layer` judges them.

    Args:
        theory: the infinite-width predictions (:func:`lib.chapters.conditioning.theory_cells.measure_theory`).
        sweep: the finite-width sweep.

    Returns:
        The table with the sweep's data sets, depths and width.
    """
    rows, theory, summary, by = [], theory.frame, sweep.summary, sweep.series

    def series(ds, col, index):
        return tuple(float(v) for v in by(ds, "relu", col)[index]) if col in summary else None

    def spread(ds, col, index):
        """Standard errors of the seed means of ``col`` at the depths ``index`` (NaN with one finite seed)."""
        f = sweep.frame
        if f is None or col not in f:
            return None
        g = f[(f.dataset == ds) & (f.activation == "relu")].replace([np.inf], np.nan).groupby("depth")[col]
        se = g.std(ddof=1) / np.sqrt(g.count())
        return tuple(float(se.get(L, np.nan)) for L in index)

    for ds in sweep.names:
        t = theory[theory.dataset == ds].set_index("depth").sort_index()
        if "kappa_first" not in t or t.kappa_first.isna().all():
            continue
        deep = t[t.index >= 1]
        if deep.empty:
            continue
        depths = tuple(int(L) for L in deep.index)
        k0 = t.kappa_linear.iloc[0]
        if np.isfinite(k0):
            lmin0 = t.lambda_min_linear.iloc[0] / (t.index[0] + 1)  # the linear NTK is (L+1) G
            fw = series(ds, "kappa_first_mean", deep.index)
            rows.append(dict(
                dataset=ds, protocol="full data", kappa0=float(k0), depths=depths,
                kappa=tuple(float(v) for v in deep.kappa_first), below=bool((deep.kappa_first < k0).all()),
                lmin_gap=float(((deep.lambda_min_first - lmin0) / deep.lambda_max_first).min()),
                fw_kappa=fw, fw_se=spread(ds, "kappa_first", deep.index),
                fw_below=bool(all(v < k0 for v in fw)) if fw is not None else None))
        if "kappa_first_small" in t and deep.kappa_first_small.notna().all():
            fw = series(ds, "kappa_first_small_mean", deep.index)
            fwb = series(ds, "first_below0_small_min", deep.index)
            gap = deep.get("first_lmin_gap_small")  # absent from cells cached before it was measured
            rows.append(dict(
                dataset=ds, protocol="small batches", kappa0=float(deep.kappa0_small.iloc[0]), depths=depths,
                kappa=tuple(float(v) for v in deep.kappa_first_small),
                below=bool((deep.first_below0_small == 1.0).all()),
                lmin_gap=float(gap.min()) if gap is not None and gap.notna().all() else np.nan,
                fw_kappa=fw, fw_se=spread(ds, "kappa_first_small", deep.index),
                fw_below=bool(all(v == 1.0 for v in fwb)) if fwb is not None else None))
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
            ax.legend(fontsize=9)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return fig


def setting_first_layer(sweep: ConditioningSweep) -> str:
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
            f"{{profile}}. Deviation: not part of [LH] Figure 3 (all layers trained there); this is the "
            "setting of Thm 4.2.")


def _steps(kappa, rtol: float) -> tuple[list[int], list[int]]:
    """(the indices i where kappa rises from i to i + 1 beyond ``rtol`` relative, those where it changes by at
    most ``rtol``): a rise fails "decreasing", a step within rounding is not resolved as a strict fall."""
    v = np.asarray(kappa, dtype=float)
    rises = monotone_violations(v, rtol=rtol)
    flat = [i for i in range(len(v) - 1) if i not in rises and v[i + 1] >= v[i] * (1 - rtol)]
    return rises, flat


def check_first_layer(t42: FirstLayerTable) -> Check:
    """[LH] Thm 4.2 (the infinite-width theorem): with only W^(1) trained, lambda_min(K_L) >= lambda_min(G),
    kappa(K_L) < kappa_0, and kappa(K_L) strictly decreases with depth.

    The paper: "Consider the ReLU network in Eq.(41) in the limit m -> infinity and at initialization. Let the weights
    of the first layer be trainable and fix the other layers. ... The smallest eigenvalue of its NTK in scenario (a)
    [ReLU] is larger than that of scenario (b) [no activation]: lambda_min(K_L) >= lambda_min(G), and the NTK
    condition number in scenario (a) is less than that in scenario (b): kappa(K_L) < kappa_0. Moreover, for two ReLU
    neural networks of depth L1 and of depth L2 with L1 < L2, we have kappa(K_L2) < kappa(K_L1)" (non-degenerate data,
    G = X X^T, the linear network's kernel up to its factor L+1). Tested only where kappa_0 is finite
    (:func:`table_first_layer`): with kappa_0 = inf "below" holds for any finite kappa(K_L), so such data give "not
    checked" (not testable on this data). On the small batches every batch is compared with its own G. The width-m
    networks of the sweep are a finite-width statement of this book, judged apart
    (:func:`check_first_layer_width`): they never lower this verdict.

    Rule, on the infinite-width kernels (the theorem's setting, computed exactly): "not reproduced" if in some
    row kappa(K_L) >= kappa_0 at some L >= 1 (in some batch), or lambda_min(K_L) < lambda_min(G) by more than
    :data:`~lib.chapters.conditioning.bounds.FIRST_LAYER_LMIN_TOL` lambda_max(K_L) (rounding), or kappa rises between
    consecutive depths by more than :data:`~lib.chapters.conditioning.bounds.FIRST_LAYER_RTOL` relative, or it does not
    fall by more than FIRST_LAYER_RTOL from L = 1 to the largest depth (a flat kappa below kappa_0 is not a
    decrease); "inconclusive" if a row has fewer than two depths L >= 1 (no decrease can be read); "reproduced with
    caveat" if it holds but a step between consecutive depths changes kappa by no more than FIRST_LAYER_RTOL
    (strictness not resolved at float64) or lambda_min was not measured on a row; "reproduced" otherwise.

    Args:
        t42: the table of :func:`table_first_layer` with its data sets, depths and width.

    Returns:
        The check (part "infinite width"), with the three statements of the theorem judged per (data set, protocol).
    """
    part = "infinite width"
    tab = t42.table
    if tab.empty:
        return Check("[LH] Thm 4.2", status="not checked", part=part, measured="kappa_0 = inf on every data set run.",
                     caveat="not testable on this data: kappa_0 is infinite (n > rank G), so kappa(K_L) < kappa_0 "
                     "holds for any finite value; needs data with n <= rank G (faces) or batches below the rank")
    untested = [d for d in t42.names if d not in set(tab.index.get_level_values(0))]
    note = f" Not testable on {', '.join(untested)} (kappa_0 = inf)." if untested else ""
    fails, short, caveats, lines, judged = [], [], [], [], []
    for (ds, prot), r in tab.iterrows():
        name, depths, kappa = f"{ds} ({prot})", list(r.depths), list(r.kappa)
        rises, flat = _steps(kappa, FIRST_LAYER_RTOL)
        two = len(kappa) >= 2
        fell = two and kappa[-1] < kappa[0] * (1 - FIRST_LAYER_RTOL)
        lmin_measured = not pd.isna(r.lmin_gap)
        lmin_ok = bool(r.lmin_gap >= -FIRST_LAYER_LMIN_TOL) if lmin_measured else None
        if not r.below:
            fails.append(f"{name}: kappa(K_L) not below kappa_0")
        if lmin_ok is False:
            fails.append(f"{name}: lambda_min(K_L) < lambda_min(G) by {-r.lmin_gap:.2g} lambda_max")
        if rises:
            fails.append(f"{name}: kappa rises at L={[depths[i + 1] for i in rises]}")
        if two and not fell and not rises:
            fails.append(f"{name}: kappa does not fall from L={depths[0]} to L={depths[-1]}")
        if not two:
            short.append(name)
        if flat and fell:
            caveats.append(f"{name}: kappa changes by at most {FIRST_LAYER_RTOL:g} relative at "
                           f"L={[depths[i + 1] for i in flat]} (strict decrease not resolved)")
        if not lmin_measured:
            caveats.append(f"{name}: lambda_min not measured")
        ends = f"{number(kappa[0])} (L={depths[0]}) -> {number(kappa[-1])} (L={depths[-1]})"
        lines.append(f"{name}: kappa_0 = {r.kappa0:.3g}, infinite-width kappa(K_L) {kappa[0]:.3g} (L={depths[0]}) -> "
                     f"{kappa[-1]:.3g} (L={depths[-1]})"
                     + (f", min (lambda_min(K_L) - lambda_min(G))/lambda_max = {r.lmin_gap:.2g}"
                        if lmin_measured else ""))
        st = ds + f" ({prot}), infinite width"
        judged += [
            {"statement": f"{st}: κ(K_L) against κ₀", "paper": "κ(K_L) < κ₀ at every L ≥ 1",
             "this book": f"κ₀ = {number(r.kappa0)}; κ(K_L) {ends}", "rule": "below at every depth"
             + (" (every batch)" if prot == "small batches" else ""), "holds": bool(r.below)},
            {"statement": f"{st}: λ_min(K_L) against λ_min(G)", "paper": "λ_min(K_L) ≥ λ_min(G)",
             "this book": (f"smallest (λ_min(K_L) − λ_min(G))/λ_max(K_L) = {r.lmin_gap:.2g}" if lmin_measured
                           else "not measured"),
             "rule": f"≥ −{FIRST_LAYER_LMIN_TOL:g} (rounding) at every depth", "holds": lmin_ok},
            {"statement": f"{st}: κ(K_L) against depth", "paper": "strictly decreasing", "this book": ends
             + (f", rises at L={[depths[i + 1] for i in rises]}" if rises else "")
             + (f", flat within rounding at L={[depths[i + 1] for i in flat]}" if flat else ""),
             "rule": f"falls by more than {FIRST_LAYER_RTOL:g} relative from L = {depths[0]} to L = {depths[-1]}, "
                     "no rise beyond it (a step within it: caveat)",
             "holds": (fell and not rises) if two else None}]
    measured = f"Where kappa_0 is finite ({count(len(tab), 'data set/protocol pair')}): " + "; ".join(lines) + "." + note
    if fails:
        measured += " Fails: " + "; ".join(fails) + "."
        return Check("[LH] Thm 4.2", status="not reproduced", part=part, measured=measured, rows=tuple(judged))
    if short:
        return Check("[LH] Thm 4.2", status="inconclusive", part=part, measured=measured, rows=tuple(judged),
                     caveat=f"fewer than two depths L >= 1 on {', '.join(short)}: no decrease can be read")
    if caveats:
        return Check("[LH] Thm 4.2", status="reproduced with caveat", part=part, measured=measured,
                     rows=tuple(judged), caveat="; ".join(caveats))
    return Check("[LH] Thm 4.2", status="reproduced", part=part, measured=measured, rows=tuple(judged))


def check_first_layer_width(t42: FirstLayerTable) -> Check:
    """[LH] Thm 4.2 at finite width (this book's statement beside the infinite-width theorem): the width-m
    first-layer NTKs of the sweep follow the theorem up to finite-width noise.

    The theorem is stated at infinite width (:func:`check_first_layer`); a width-m kernel fluctuates by O(1/sqrt(m))
    from seed to seed, so its seed means may rise between depths, or exceed kappa_0, by chance. A departure within
    :data:`~lib.chapters.conditioning.bounds.FIRST_LAYER_SIGMAS` standard errors of the seed means (combined for a
    rise between two depths) is that noise; one beyond it is a finite-width effect the infinite-width theorem does not
    cover, never a failure of the theorem. On the small batches kappa_0 is each batch's own: a seed mean not below it
    in every batch is a departure whose noise is not measured.

    Rule: "reproduced" if every width-m row keeps kappa below kappa_0 and non-increasing, or departs only within its
    noise (named in the sentence); "reproduced with caveat" if a departure goes beyond the noise (a finite-width
    effect, named); "inconclusive" if a departure's noise is not measured (one seed, or the batches' kappa_0) and none
    goes beyond measured noise; "not checked" when no row has width-m measurements.

    Args:
        t42: the table of :func:`table_first_layer` with its data sets, depths and width.

    Returns:
        The check (part "width m"), one judged row per (data set, protocol).
    """
    part = "width m"
    tab = t42.table
    has = [(k, r) for k, r in tab.iterrows() if r.get("fw_kappa") is not None] if not tab.empty else []
    if not has:
        return Check("[LH] Thm 4.2", status="not checked", part=part, measured="No width-m first-layer kernel in the run.",
                     caveat="not testable on this data: no finite-width kernel where kappa_0 is finite")
    width = t42.width
    beyond, unknown, within, rows, lines = [], [], [], [], []
    for (ds, prot), r in has:
        name, depths, fw = f"{ds} ({prot})", list(r.depths), list(r.fw_kappa)
        se = list(r.fw_se) if r.get("fw_se") is not None else [np.nan] * len(fw)
        found = []
        for i in range(len(fw) - 1):
            if fw[i + 1] > fw[i]:
                noise = FIRST_LAYER_SIGMAS * float(np.hypot(se[i], se[i + 1]))
                found.append((f"rises at L={depths[i + 1]} by {fw[i + 1] - fw[i]:.3g}", fw[i + 1] - fw[i], noise))
        if prot == "full data":
            for j, v in enumerate(fw):
                if v >= r.kappa0:
                    found.append((f"{v:.3g} >= kappa_0 at L={depths[j]}", v - r.kappa0, FIRST_LAYER_SIGMAS * se[j]))
        elif r.fw_below is False:
            found.append(("not below kappa_0 in every batch", np.inf, np.nan))
        kinds = []
        for what, size, noise in found:
            if np.isnan(noise):
                unknown.append(f"{name}: {what}")
                kinds.append(f"{what} (noise not measured)")
            elif size > noise:
                beyond.append(f"{name}: {what}, beyond {FIRST_LAYER_SIGMAS:g} se = {noise:.3g}")
                kinds.append(f"{what}, beyond its noise {noise:.3g}")
            else:
                within.append(f"{name}: {what}, within {FIRST_LAYER_SIGMAS:g} se = {noise:.3g}")
                kinds.append(f"{what}, within its noise {noise:.3g}")
        over = any(size > noise for _, size, noise in found if not np.isnan(noise))
        untold = any(np.isnan(noise) for _, _, noise in found)
        rows.append({"statement": f"{name}, width {width}: κ(K_L) seed means against depth and κ₀",
                     "paper": "(infinite width only)",
                     "this book": f"{number(fw[0])} (L={depths[0]}) -> {number(fw[-1])} (L={depths[-1]})"
                     + (f"; {'; '.join(kinds)}" if kinds else ""),
                     "rule": f"below κ₀ and non-increasing, departures within {FIRST_LAYER_SIGMAS:g} standard errors "
                             "being finite-width noise",
                     "holds": False if over else None if untold else True})
        lines.append(f"{name}: seed means {fw[0]:.3g} (L={depths[0]}) -> {fw[-1]:.3g} (L={depths[-1]})"
                     + (f" ({'; '.join(kinds)})" if kinds else ", below kappa_0 and non-increasing"))
    caveat = ""
    if beyond:
        status = "reproduced with caveat"
        caveat = ("the width-" + str(width) + " kernel departs from the theorem beyond its seed noise ("
                  + "; ".join(beyond) + "): a finite-width effect; the infinite-width theorem is judged apart")
    elif unknown:
        status = "inconclusive"
        caveat = "a departure whose seed noise is not measured (" + "; ".join(unknown) + ")"
    else:
        status = "reproduced"
    measured = (f"Width-{width} networks with only W^(1) trained: " + "; ".join(lines) + "."
                + (f" Finite-width noise: {'; '.join(within)}." if within else ""))
    return Check("[LH] Thm 4.2", status=status, part=part, caveat=caveat, measured=measured, rows=tuple(rows))
