"""Kernel change against width: Figure 5.1 and its checks ([LZB] Prop 2.2, Eq 2, Remark 3.5, Fig 1).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from lib.book.plotting import band_lines, figure, slope_guide
from lib.book.results import Check
from lib.chapters.non_constancy.kernel_runs import KernelRuns, measure_kernel_runs, run_summary
from lib.chapters.non_constancy.nets import NONLINEAR
from lib.chapters.non_constancy.rules import (DECAY_RULE, FLAT, decay_status, flat_status, is_flat, slope_row,
                                              steeper_note)
from lib.spectra import fit_slope

__all__ = ["O1_CHANGE", "CONSTANT_KERNEL_TOL", "MOVING_KERNEL_MIN", "kernel_change_by_width", "width_slopes",
           "plot_width_trend", "figure_width_trend",
           "check_linear_model", "check_weight_change", "check_weight_max_move", "check_linear_kernel",
           "check_nonlinear_kernel"]

#: A kernel change above this at every width is O(1) ([LZB] Fig 1), while a linear-output net of the chapter's
#: widths stays far below it.
O1_CHANGE = 0.1
#: The largest Delta_K that counts as a constant kernel ([LZB] Prop 2.2), since the kernel of a model linear in its weights
#: is X X^T exactly, whatever the weights, so its computed change is float64 rounding (1e-16 relative, 1e-12 at most
#: over a GD run in the tests); 1e-10 keeps a margin of 100 over that.
CONSTANT_KERNEL_TOL = 1e-10
#: The smallest Delta_K that counts as a moving kernel for a model not linear in its weights; 100 times
#: :data:`~lib.chapters.non_constancy.kernel_width.CONSTANT_KERNEL_TOL`, so that rounding cannot pass for a change, and far below the least change of the
#: chapter's networks (1e-4 or more).
MOVING_KERNEL_MIN = 1e-8


def kernel_change_by_width(runs: KernelRuns) -> pd.DataFrame:
    """Delta_K per (arch, width): ``mean``, ``min``, ``max`` over seeds.

    Args:
        runs: :func:`~lib.chapters.non_constancy.kernel_runs.measure_kernel_runs` output.

    Returns:
        A frame indexed by (arch, width).
    """
    return runs.df.groupby(["arch", "width"])["delta_K"].agg(["mean", "min", "max"])


def width_slopes(table: pd.DataFrame, archs) -> dict:
    """Log-log slope of the mean against width per arch (:func:`lib.spectra.fit_slope`).

    Args:
        table: indexed by (arch, width) with a ``mean`` column.
        archs: the archs to fit.

    Returns:
        ``{arch: slope}``.
    """
    return {a: fit_slope(table.loc[a].index, table.loc[a]["mean"]) for a in archs}


def plot_width_trend(runs: KernelRuns) -> Figure:
    """Figure 5.1: Delta_K against width for the three output types, log-log, with the m^(-1/2) guide.

    Args:
        runs: :func:`~lib.chapters.non_constancy.kernel_runs.measure_kernel_runs` output.

    Returns:
        The figure (one axes).
    """
    mean_w = kernel_change_by_width(runs)
    slopes = width_slopes(mean_w, runs.names)
    fig, axs = figure()
    ax = axs[0, 0]
    band_lines(ax, mean_w, runs.names, suffix={a: f" (slope {v:.2f})" for a, v in slopes.items()})
    slope_guide(ax, mean_w.loc["linear"].index, -0.5, mean_w.loc["linear"]["mean"].iloc[0],
                label=r"$\propto m^{-1/2}$")
    ax.set(xscale="log", yscale="log", xlabel="width m",
           ylabel=r"$\Delta_K=\max_t\|K_t-K_0\|_F/\|K_0\|_F$", title="Kernel change during training to convergence")
    ax.legend()
    return fig


def figure_width_trend(runs: KernelRuns) -> dict:
    """Figure 5.1, :func:`plot_width_trend` of ``runs``: the arguments of :meth:`lib.book.results.Recorder.figure`."""
    widths = ", ".join(f"{w:,}" for w in runs.widths)
    nets = f"one hidden layer ({runs.activation}), widths m = {widths}; linear, swish and softmax ({runs.k} outputs)"
    setting = runs.setting(f"{nets} heads", f"{runs.gd}; {runs.seeds} seeds", runs.departure, run_summary(runs))
    return dict(fig=plot_width_trend(runs), label="fig-kernel-width", drawn_by=plot_width_trend,
                data_from=measure_kernel_runs, setting=setting,
                caption="Relative kernel change over a full GD run against width, for one-hidden-layer nets with a "
                        "linear, swish and softmax output (line: mean over seeds; band: min to max).")


def check_linear_model(runs: KernelRuns) -> Check:
    """[LZB] Prop 2.2: a model has a constant tangent kernel if and only if it is linear in its weights.

    Measurement: Delta_K over a full GD run of the model f(x) = W x (linear in W) and of every network of the
    chapter (not linear in their weights). Rule: "reproduced" if the linear model's Delta_K is at most
    :data:`~lib.chapters.non_constancy.kernel_width.CONSTANT_KERNEL_TOL` (rounding: its kernel is X X^T exactly,
    whatever W) and every other net's is at least
    :data:`~lib.chapters.non_constancy.kernel_width.MOVING_KERNEL_MIN` (both directions of the equivalence);
    "not reproduced" if either fails; "not checked" without the linear-model runs. There is no caveat level: the
    statement is exact, and a linear model's kernel either moves beyond rounding or it does not.

    Args:
        runs: :func:`~lib.chapters.non_constancy.kernel_runs.measure_kernel_runs` output.

    Returns:
        The check.
    """
    if runs.df_lm is None or runs.df_lm.empty:
        return Check("[LZB] Prop 2.2", status="not checked", measured="The linear model was not trained in this run.",
                     caveat="not testable on this data: no model linear in its weights was trained")
    lm = float(runs.df_lm.delta_K.max())
    others = pd.concat([runs.df, runs.df_b])
    least = float(others.delta_K.min())
    ok = lm <= CONSTANT_KERNEL_TOL and least >= MOVING_KERNEL_MIN
    return Check(
        "[LZB] Prop 2.2", status="reproduced" if ok else "not reproduced",
        measured=f"Over a full GD run the kernel of f(x) = W x changed by Delta_K = {lm:.2g} (at most, over "
        f"{len(runs.df_lm)} seeds); every network of the chapter, none linear in its weights, changed by at least "
        f"{least:.2g} ({len(others)} nets).")


def check_weight_change(runs: KernelRuns) -> Check:
    """[LZB] Eq 2: training moves the weight vector by an O(1) Euclidean distance, whatever the width.

    Measurement: ``||w_T - w_0||_2`` of the linear-output nets after GD to the tolerance, seed mean per
    width. Rule (:func:`~lib.chapters.non_constancy.rules.flat_status`): "reproduced" if its log-log slope
    against the width is within 0.15 of zero (flat), "not reproduced" if it is -0.3 or steeper (a distance
    that vanishes with the width, as the lazy-training picture would have it), "reproduced with caveat" in
    between. The per-weight clause is :func:`check_weight_max_move`.

    Args:
        runs: :func:`~lib.chapters.non_constancy.kernel_runs.measure_kernel_runs` output.

    Returns:
        The check.
    """
    lin = runs.df[runs.df.arch == "linear"].groupby("width")["weight_move"].mean()
    s = fit_slope(lin.index, lin.to_numpy())
    status = flat_status(s)
    return Check(
        "[LZB] Eq 2", status=status, part="total distance",
        caveat="the distance drifts with the width" if status == "reproduced with caveat" else "",
        measured="||w_T - w_0||_2 of the linear-output nets (seed mean) is "
        + ", ".join(f"{v:.3g} (m={w})" for w, v in lin.items()) + f": log-log slope {s:.2f} against the width.")


def check_weight_max_move(runs: KernelRuns) -> Check:
    """[LZB] Eq 2, its per-weight clause: although the weight vector moves by O(1), each weight moves by
    O(1/sqrt(m)).

    Measurement: the largest move of one weight, ``max_i |w_T,i - w_0,i|`` over all weights, of the linear-output nets
    after GD to the tolerance, seed mean per width (``weight_max`` of
    :func:`~lib.chapters.non_constancy.nets.train_tracked`). Rule: the chapter's one rule for "decays at least as
    fast as m^(-1/2)" (:func:`~lib.chapters.non_constancy.rules.decay_status`) on its log-log slope against m:
    "reproduced" at -0.3 or steeper (the largest of ~ m d moves carries a sqrt(log m), within the slope noise),
    "not reproduced" above -0.15 (some weight moves by O(1), as in a narrow net), "reproduced with caveat"
    between; "not checked" when the runs did not record it. The slopes of each weight matrix and of the
    non-linear outputs are reported, not judged.

    Args:
        runs: :func:`~lib.chapters.non_constancy.kernel_runs.measure_kernel_runs` output.

    Returns:
        The check (part "per weight").
    """
    df = runs.df
    if "weight_max" not in df.columns or df.weight_max.isna().any():
        return Check("[LZB] Eq 2", status="not checked", part="per weight",
                     measured="The runs did not record the move of each weight.",
                     caveat="not testable on this data: runs cached before the per-weight move was recorded")
    g = df.groupby(["arch", "width"])["weight_max"].mean()
    slopes = {a: fit_slope(g.loc[a].index, g.loc[a].to_numpy()) for a in runs.names if a in g.index}
    s = slopes["linear"]
    status = decay_status(s)
    lin = df[df.arch == "linear"]
    layers = np.vstack(lin.weight_max_layers.to_numpy())
    per = pd.DataFrame(layers, index=lin.width.to_numpy()).groupby(level=0).mean()
    layer_slopes = [fit_slope(per.index, per[c].to_numpy()) for c in per.columns]
    return Check(
        "[LZB] Eq 2", status=status, part="per weight",
        caveat="the largest move falls more slowly than m^(-1/2)" if status == "reproduced with caveat" else "",
        measured="max_i |w_T,i - w_0,i| of the linear-output nets (seed mean) is "
        + ", ".join(f"{v:.3g} (m={w})" for w, v in g.loc["linear"].items()) + f": log-log slope {s:.2f} against "
        "the width (per weight matrix, input layer first: " + ", ".join(f"{v:.2f}" for v in layer_slopes)
        + "; swish and softmax outputs: " + ", ".join(f"{slopes[a]:.2f}" for a in NONLINEAR if a in slopes)
        + ")." + steeper_note(s))


def check_linear_kernel(runs: KernelRuns) -> Check:
    """[LZB] Remark 3.5: with a linear output layer the kernel is constant during GD as the width grows.

    [LZB] bound the change by the Hessian norm times the distance travelled, O(m^(-1/2)) x O(1): the change
    vanishes at least as fast as m^(-1/2). Measurement: Delta_K = max_t ||K_t - K_0||_F / ||K_0||_F of the
    linear-output nets, seed mean per width. Rule: the chapter's one rule for "decays at least as fast as
    m^(-1/2)" (:func:`~lib.chapters.non_constancy.rules.decay_status`) on the log-log slope s against the width:
    "reproduced" if s <= -0.3 (:data:`~lib.chapters.non_constancy.rules.VANISHING`; a steeper fall, an O(1/m)
    change as the finer analyses of Dyer and Gur-Ari (2020) and Huang and Yau (2020) find, agrees with a bound);
    "not reproduced" if the change does not decay (s > -0.15, :data:`~lib.chapters.non_constancy.rules.FLAT`);
    "reproduced with caveat" in between (vanishing more slowly than m^(-1/2)).

    Args:
        runs: :func:`~lib.chapters.non_constancy.kernel_runs.measure_kernel_runs` output.

    Returns:
        The check.
    """
    mean_w = kernel_change_by_width(runs)
    s_lin = width_slopes(mean_w, ["linear"])["linear"]
    lin = mean_w.loc["linear"]["mean"]
    status = decay_status(s_lin)
    measured = (f"Delta_K falls from {lin.iloc[0]:.3g} at m={runs.widths[0]} to {lin.iloc[-1]:.3g} at "
                f"m={runs.widths[-1]}: fitted slope {s_lin:.2f} (the bound: -0.5 or steeper)." + steeper_note(s_lin))
    row = slope_row("kernel change, linear output, against m", "linear_kernel",
                    f"{s_lin:.2f} (m = {runs.widths[0]:,} to {runs.widths[-1]:,})", DECAY_RULE, status)
    return Check("[LZB] Remark 3.5", status=status, measured=measured, rows=(row,),
                 caveat="the change vanishes more slowly than m^(-1/2)" if status == "reproduced with caveat" else "")


def check_nonlinear_kernel(runs: KernelRuns) -> Check:
    """[LZB] Fig 1: with a swish or softmax output Delta_K is O(1) at every width.

    Rule: "reproduced" if the log-log slope of Delta_K against width is within 0.15 of zero for
    both swish and softmax (flat: a width-independent change, against -0.5 or steeper for a
    linear output, so 0.15 separates the two cases with room for seed noise) and Delta_K is above
    0.1 at every width (an O(1) change: a linear-output net of the chapter's widths stays far
    below it); otherwise "not reproduced".

    Args:
        runs: :func:`~lib.chapters.non_constancy.kernel_runs.measure_kernel_runs` output.

    Returns:
        The check (registry id ``"[LZB] Fig 1"``).
    """
    mean_w = kernel_change_by_width(runs)
    slopes = width_slopes(mean_w, NONLINEAR)
    nl_min = min(mean_w.loc[a]["mean"].min() for a in NONLINEAR)
    status = "reproduced" if all(is_flat(slopes[a]) for a in NONLINEAR) and nl_min > O1_CHANGE else "not reproduced"
    sw, sm = (round(slopes[a], 2) + 0.0 for a in ("swish", "softmax"))  # + 0.0: no "-0.00"
    measured = (f"Delta_K has fitted slopes {sw:.2f} (swish) and {sm:.2f} (softmax) over "
                f"m = {runs.widths[0]}..{runs.widths[-1]}, and is at least {nl_min:.3g} at every width "
                f"(against {mean_w.loc['linear']['mean'].iloc[-1]:.3g} for the linear output at the largest width).")
    row = slope_row("kernel change, swish and softmax outputs, against m", "nonlinear_kernel",
                    f"{sw:.2f} (swish), {sm:.2f} (softmax) (m = {runs.widths[0]:,} to {runs.widths[-1]:,})",
                    f"reproduced when both slopes are within {FLAT:g} of 0 and the change stays above {O1_CHANGE:g}",
                    status)
    return Check("[LZB] Fig 1", status=status, measured=measured, rows=(row,))
