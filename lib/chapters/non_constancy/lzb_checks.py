"""More of [LZB]: the figure and the checks of one hidden layer (Remark 3.1), the two-layer bound (Prop 3.1),
parameterization (App. A, Eq 41), other architectures (App. G), Prop 2.3 along trained paths, and the kernel along
training at large width (Fig 1, right panel).

Every check takes :class:`~lib.chapters.non_constancy.lzb_measure.LzbMore` (or, for Fig 1, the chapter's
:class:`~lib.chapters.non_constancy.kernel_runs.KernelRuns`) and reads slopes with the chapter's one rule for
"decays at least as fast as m^(-1/2)" (:func:`~lib.chapters.non_constancy.rules.decay_status`) and its one rule
for "does not depend on the width" (:func:`~lib.chapters.non_constancy.rules.flat_status`).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from lib.book.plotting import band_lines, figure, palette, slope_guide, value_ticks
from lib.book.results import Check
from lib.chapters.non_constancy.kernel_runs import KernelRuns
from lib.chapters.non_constancy.kernel_width import O1_CHANGE
from lib.chapters.non_constancy.lzb_measure import LzbMore, measure_lzb_more
from lib.chapters.non_constancy.nets import NONLINEAR
from lib.chapters.non_constancy.rules import (FLAT, UNCONVERGED, VANISHING, band_status, flat_status, hessian_row,
                                              hessian_slope_status, steeper_note)
from lib.finite.hessian_bounds import two_layer_bound
from lib.spectra import fit_slope

__all__ = ["BLOCK_TOL", "CLOSED_FORM_RTOL", "BOUND_RTOL", "RESCALE_RTOL", "EQ41_RTOL", "SEGMENT_SLACK",
           "NEARLY_CONSTANT", "worst", "lzb_more_frame", "plot_lzb_more", "figure_lzb_more", "table_kernel_path",
           "check_one_hidden_layer", "check_two_layer_bound", "check_parameterization", "check_parameter_change",
           "check_architectures", "check_segment_bound", "check_kernel_path"]

#: Largest entry of H u outside neuron k's block (relative to ||H u||) for u supported on that block that still
#: counts as block diagonal. [LZB] Remark 3.1 says those blocks are exactly 0; autograd multiplies the zero entries
#: of u by finite numbers, so anything above float64 rounding is a real coupling.
BLOCK_TOL = 1e-12
#: Agreement of the power iteration with the block formula ``||H|| = s max_k |v_k sigma''(w_k . x)| ||x||^2``. The
#: iteration stops at a relative change of 1e-6 per step; with nearly equal top eigenvalues (many neurons) its
#: estimate can sit below the norm by a few 1e-6; 1e-3 keeps a margin of 100 while a wrong formula (a missing
#: factor s or ||x||^2) is off by far more.
CLOSED_FORM_RTOL = 1e-3
#: A measured Hessian norm above the right side of [LZB] Eq 17 by more than this fraction breaks the bound. The power
#: iteration's estimate never exceeds the true norm, and the bound's terms are float64 eigenvalues and maxima, so
#: only rounding (1e-15 relative) separates an equality; 1e-9 leaves a margin of a million.
BOUND_RTOL = 1e-9
#: [LZB] App. A with one factor for every trained layer -- ||K|| and ||H|| change by the same factor m/c_s when the
#: two ratios agree within this. ||K||_2 is an exact eigenvalue; each ||H|| is a power iteration stopped at a relative
#: change of 1e-6 (a few 1e-6 below the norm), so 1e-3 separates rounding from a different factor.
RESCALE_RTOL = 1e-3
#: [LZB] Eq 41 -- with one factor c for every trained layer and the step rule eta = lr_scale / lambda_max(K), GD in
#: the LeCun weights follows the NTK path scaled by 1/sqrt(c), so the parameter changes agree within float64
#: rounding accumulated over the steps (1e-12 per step, a few hundred steps); 1e-6 keeps a wide margin.
EQ41_RTOL = 1e-6
#: [LZB] Prop 2.3's epsilon is the sup of the Hessian norm on the segment [w_0, w_T]; the chapter takes the largest
#: of :data:`~lib.chapters.non_constancy.lzb_measure.SEGMENT_POINTS` (five points), which can miss a higher value
#: between them. A kernel change above the bound by at most this fraction is within that sampling ("with caveat");
#: beyond it, the bound fails. The Hessian norm along the chapter's paths varies by less than a factor 2 from end to
#: end, so a miss of 10% between two of five points is generous.
SEGMENT_SLACK = 0.1
#: [LZB] Fig 1, right panel -- a "nearly unchanged" kernel moves by less than a tenth of the O(1) change
#: (:data:`~lib.chapters.non_constancy.kernel_width.O1_CHANGE`) the non-linear outputs make.
NEARLY_CONSTANT = O1_CHANGE / 10

_ORDER = ("not reproduced", "inconclusive", "reproduced with caveat", "reproduced")


def worst(*statuses: str) -> str:
    """The least favourable of several statuses (not reproduced, inconclusive, with caveat, reproduced)."""
    return min(statuses, key=_ORDER.index)


def _slope(frame: pd.DataFrame, col: str, by: str = "width") -> float:
    t = frame.groupby(by)[col].mean()
    return fit_slope(t.index, t.values)


def lzb_more_frame(more: LzbMore) -> pd.DataFrame:
    """The data of Figure "more of [LZB]": one row per (quantity, width), mean, min and max over seeds.

    Quantities: the one-hidden-layer Hessian ``H (one layer, in W)`` and kernel ``K (one layer, in W)``, the two-layer
    Hessian and the right side of Eq 17 (max over inputs), the CNN's and the residual net's Hessian norms.
    """
    two = more.two_layer.groupby(["width", "seed"])[["hess_norm", "bound"]].max().reset_index()
    parts = {"H (one layer, in W)": (more.one_layer, "hess_norm"), "K (one layer, in W)": (more.one_layer, "kernel_norm"),
             "H (two layers)": (two, "hess_norm"), "Eq 17 bound (two layers)": (two, "bound"),
             "H (1-D CNN)": (more.archs[more.archs.arch == "cnn"], "hess_norm"),
             "H (residual MLP)": (more.archs[more.archs.arch == "resnet"], "hess_norm")}
    out = [f.groupby("width")[c].agg(["mean", "min", "max"]).assign(quantity=q).reset_index()
           for q, (f, c) in parts.items()]
    return pd.concat(out).set_index(["quantity", "width"])


def plot_lzb_more(more: LzbMore) -> Figure:
    """Left: [LZB] Remark 3.1, one hidden layer: ||H|| in W and ||K|| in W against m. Right: the two-layer Hessian
    beside the right side of [LZB] Eq 17, and the Hessian of a 1-D CNN and of a residual MLP (App. G); log-log, with
    the m^(-1/2) guide."""
    t = lzb_more_frame(more)
    fig, axs = figure(ncols=2)
    left = {q: q for q in ("H (one layer, in W)", "K (one layer, in W)")}
    right = {q: q for q in ("H (two layers)", "Eq 17 bound (two layers)", "H (1-D CNN)", "H (residual MLP)")}
    band_lines(axs[0, 0], t, left, colors=palette(2))
    band_lines(axs[0, 1], t, right, colors=palette(4))
    for ax, q in ((axs[0, 0], "H (one layer, in W)"), (axs[0, 1], "H (two layers)")):
        slope_guide(ax, t.loc[q].index, -0.5, t.loc[q]["mean"].iloc[0], label=r"$\propto m^{-1/2}$")
        ax.set(xscale="log", yscale="log", xlabel="width m (channels for the CNN)")
        value_ticks(ax, t.loc[q].index)  # the widths run, no crowded minor labels
        ax.legend(fontsize=9)
    axs[0, 0].set(title="One hidden layer (Remark 3.1)", ylabel="spectral norm")
    axs[0, 1].set(title="Two layers, Eq 17, CNN, ResNet")
    return fig


def figure_lzb_more(more: LzbMore) -> dict:
    """:func:`plot_lzb_more` of ``more`` as the arguments of :meth:`lib.book.results.Recorder.figure`."""
    setting = more.setting(
        f"one hidden layer ({more.activation}, output layer fixed) at m = {', '.join(f'{w:,}' for w in more.widths)}; "
        f"two hidden layers, a 1-D CNN (two circular convolutions, filter 3) and a residual MLP (three layers) at "
        f"m = {', '.join(str(w) for w in more.arch_widths)}",
        f"Hessian at initialization, maximized over {more.n_hessian} inputs; {more.seeds} seeds",
        "[LZB] have no experiment on these nets.")
    return dict(fig=plot_lzb_more(more), label="fig-lzb-more", drawn_by=plot_lzb_more, setting=setting,
                data_from=(measure_lzb_more, two_layer_bound), data=lzb_more_frame(more).reset_index(),
                caption="Hessian and kernel norms at initialization against width (line: mean over seeds; band: min "
                        "to max), with the $m^{-1/2}$ line.")


def table_kernel_path(runs: KernelRuns, points: int = 6) -> pd.DataFrame:
    """[LZB] Fig 1, right panel, as a table: ||K_t - K_0||_F / ||K_0||_F of the widest nets (seed 0) at ``points``
    tracked steps, spread evenly along the longest run (each net at its last tracked step at or before t).

    Args:
        runs: :func:`~lib.chapters.non_constancy.kernel_runs.measure_kernel_runs` output.
        points: how many steps to show.

    Returns:
        One row per step, one column per output type.
    """
    df, wmax = runs.df, max(runs.widths)
    paths = {runs.names[a]: df[(df.arch == a) & (df.width == wmax) & (df.seed == 0)].iloc[0] for a in runs.names}
    t_end = max(int(r.kernel_steps[-1]) for r in paths.values())
    ts = np.unique(np.linspace(0, t_end, points).astype(int))
    out = {name: [float(r.kernel_change[np.searchsorted(r.kernel_steps, t, side="right") - 1]) for t in ts]
           for name, r in paths.items()}
    return pd.DataFrame(out, index=pd.Index(ts, name=f"GD step t (m = {wmax:,})")).map(lambda v: float(f"{v:.3g}"))


def check_one_hidden_layer(more: LzbMore) -> Check:
    """[LZB] Remark 3.1 (Eq 9-10): for f = v^T sigma(W x) / sqrt(m) with v fixed, the Hessian in W is block diagonal
    (one d x d block per neuron), its norm is O(1/sqrt(m)), and the kernel is Theta(1).

    Measurement (:func:`~lib.chapters.non_constancy.lzb_measure.one_layer_row`, the chapter's widths): Hessian-vector
    products with u on one neuron's block, the Hessian norm by power iteration beside the block formula, and ||K||_2
    in W. Rule, the worst of:

    * block structure: "not reproduced" if any product leaves its block by more than :data:`~lib.chapters.non_constancy.lzb_checks.BLOCK_TOL`;
    * the power iteration against the block formula: "inconclusive" if they differ by more than
      :data:`~lib.chapters.non_constancy.lzb_checks.CLOSED_FORM_RTOL` or an iteration did not converge (the norm is then not measured);
    * ||H|| against m: :func:`~lib.chapters.non_constancy.rules.hessian_slope_status` (slope -0.3 or steeper);
    * ||K|| against m: :func:`~lib.chapters.non_constancy.rules.flat_status` (within 0.15 of flat).

    Args:
        more: :func:`~lib.chapters.non_constancy.lzb_measure.measure_lzb_more` output.

    Returns:
        The check.
    """
    f = more.one_layer
    off = float(f.off_block.max())
    gap = float((f.hess_norm / f.hess_closed - 1).abs().max())
    conv = bool(f.converged.all()) and gap <= CLOSED_FORM_RTOL
    sh, sk = _slope(f, "hess_norm"), _slope(f, "kernel_norm")
    status = worst("not reproduced" if off > BLOCK_TOL else "reproduced", hessian_slope_status(sh, conv),
                   flat_status(sk))
    caveat = {"inconclusive": f"{UNCONVERGED}, or it differs from the block formula by more than "
                              f"{CLOSED_FORM_RTOL:g} (largest gap {gap:.2g})",
              "reproduced with caveat": "the Hessian norm falls more slowly than m^(-1/2), or the kernel drifts with m"
              }.get(status, "")
    over = f"m = {more.widths[0]:,} to {more.widths[-1]:,}"
    row = hessian_row("Hessian norm in W, one hidden layer, against m", "linear_hessian", sh, over, status)
    return Check("[LZB] Remark 3.1", status=status, caveat=caveat, rows=(row,), measured=(
        f"Largest entry of H u outside u's neuron block: {off:.2g} of ||H u|| (block diagonal at {BLOCK_TOL:g}); "
        f"power iteration against the block formula s max_k |v_k sigma''(w_k . x)| ||x||^2: largest relative gap "
        f"{gap:.2g}; fitted slopes against m over {over}: {sh:.2f} for ||H|| ({f.hess_norm.min():.3g} to "
        f"{f.hess_norm.max():.3g}) and {sk:.2f} for ||K|| ({f.kernel_norm.min():.3g} to {f.kernel_norm.max():.3g})."
        + steeper_note(sh)))


def check_two_layer_bound(more: LzbMore) -> Check:
    """[LZB] Prop 3.1 (Eq 17): the Hessian norm of a two-hidden-layer net in (W1, W2) is at most
    ||T11||_{2,2,1} ||b1||_inf + (||J1||^2 ||T2aa||_{2,2,1} + 2 ||J1|| ||T2aw||_{2,2,1} + ||T2ww||_{2,2,1}) ||b2||_inf
    (:mod:`lib.finite.hessian_bounds`, every term exact).

    Rule: a bound, tested as one at every net and input: "not reproduced" if a measured norm (power iteration, which
    never overestimates) exceeds the right side by more than :data:`~lib.chapters.non_constancy.lzb_checks.BOUND_RTOL`; "inconclusive" if a power iteration
    did not converge; "reproduced" otherwise. How tight the bound is and its slope against m are reported.

    Args:
        more: :func:`~lib.chapters.non_constancy.lzb_measure.measure_lzb_more` output.

    Returns:
        The check.
    """
    f = more.two_layer
    ratio = f.hess_norm / f.bound
    worst_ratio = float(ratio.max())
    if not bool(f.converged.all()):
        status = "inconclusive"
    else:
        status = "not reproduced" if worst_ratio > 1 + BOUND_RTOL else "reproduced"
    sb = _slope(f.groupby(["width", "seed"])["bound"].max().reset_index(), "bound")
    return Check("[LZB] Prop 3.1", status=status, caveat=UNCONVERGED if status == "inconclusive" else "", measured=(
        f"Over {len(f)} (net, input) pairs at m = {', '.join(str(w) for w in more.arch_widths)}: measured ||H|| / "
        f"right side of Eq 17 from {float(ratio.min()):.3g} to {worst_ratio:.3g} (a violation is above "
        f"1 + {BOUND_RTOL:g}); the right side falls with slope {sb:.2f} against m."))


def check_parameterization(more: LzbMore) -> Check:
    """[LZB] App. A: another parameterization rescales the tangent kernel and the Hessian norm by the same factor, so
    ||H|| / ||K|| is unchanged and so are the conclusions; LeCun's, w ~ N(0, 1/m) with no factor in the layer, is the
    paper's example.

    The paper: "compared to the NTK parameterization, a different parameterization strategy only rescales the tangent
    kernel and the spectral norm of the Hessian by the same factor, hence the ratio between tangent kernel and Hessian
    spectral norm keeps the same and (||H|| = O~(1/sqrt(m)) ||K||) still holds."

    Measurement (:func:`~lib.chapters.non_constancy.lzb_measure.lecun_row`, two-hidden-layer nets, every layer trained,
    as the paper's networks are): the same function in both parameterizations, and per width the seed mean of
    ``r = (||H|| / ||K||)_LeCun / (||H|| / ||K||)_NTK``. LeCun's factor of a layer is its fan-in over c_s, so the input
    layer (fan-in d) and the others (fan-in m) get different factors: "the same factor" is r = 1. Rule:

    * "reproduced" if r is 1 within :data:`~lib.chapters.non_constancy.lzb_checks.RESCALE_RTOL` at every width (the
      same factor, the ratio unchanged);
    * otherwise :func:`~lib.chapters.non_constancy.rules.band_status` on the log-log slope of r against m, with its
      "reproduced" lowered to "reproduced with caveat": r flat (within 0.15) changes ||H|| / ||K|| by a width-independent
      factor, so its rate in m, the conclusion, is unchanged though the factors differ; r drifting is a caveat too; r
      moving like a power of m (slope 0.3 or more either way) changes the conclusion, "not reproduced";
    * "inconclusive" if a power iteration did not converge or fewer than two widths ran.

    With the input layer fixed, every trained layer has fan-in m and the factors are one, m/c_s, by algebra (an
    identity of the code, not of the paper's claim): that case is reported, not judged.

    Args:
        more: :func:`~lib.chapters.non_constancy.lzb_measure.measure_lzb_more` output.

    Returns:
        The check, with one judged row.
    """
    f = more.lecun
    r = ((f.H_lecun_full / f.K_lecun_full) / (f.H_ntk_full / f.K_ntk_full)).groupby(f.width).mean()
    fk = f.K_lecun_common / f.K_ntk_common
    fh = f.H_lecun_common / f.H_ntk_common
    err_k = float((fk / f.factor - 1).abs().max())
    err_h = float((fh / fk - 1).abs().max())
    ident = (f"With the input layer fixed (one factor m/c_s by algebra, not judged): the kernel's factor is m/c_s within "
             f"{err_k:.2g} and the Hessian's equals it within {err_h:.2g}.")
    widths = ", ".join(str(w) for w in r.index)
    if not bool(f.conv.all()) or len(r) < 2:
        why = UNCONVERGED if not bool(f.conv.all()) else "fewer than two widths: no slope to fit"
        return Check("[LZB] App A", status="inconclusive", caveat=why,
                     measured=f"Every layer trained, m = {widths}: r = " + ", ".join(f"{v:.2f}" for v in r) + ". " + ident)
    same = bool(((r - 1).abs() <= RESCALE_RTOL).all())
    s = fit_slope(r.index, r.to_numpy())
    status = band_status(s)
    caveat = ""
    if not same and status == "reproduced":
        status = "reproduced with caveat"
        caveat = (f"not the same factor: with every layer trained the input layer (fan-in d) has LeCun factor 1 "
                  f"against m/c_s for the others, and ||H|| / ||K|| changes by r = {r.min():.2f} to {r.max():.2f}; but "
                  f"r does not depend on m (slope {s:.2f}), so the rate of ||H|| / ||K|| in m, the conclusion, is unchanged")
    elif status == "reproduced with caveat":
        caveat = f"the ratio r = (||H||/||K||)_LeCun / (||H||/||K||)_NTK drifts with m (slope {s:.2f})"
    row = {"statement": "every layer trained: (||H||/||K||)_LeCun / (||H||/||K||)_NTK against m",
           "paper": "1 (the same factor), so the conclusions do not change",
           "this book": f"{r.min():.2f} to {r.max():.2f} over m = {widths}, slope {s:.2f}",
           "rule": f"1 within {RESCALE_RTOL:g}; else flat within {FLAT:g} (caveat), a power of m from "
                   f"{-VANISHING:g} fails", "holds": status != "not reproduced"}
    return Check("[LZB] App A", status=status, caveat=caveat, rows=(row,), measured=(
        f"Every layer trained, m = {widths}: (||H||/||K||) in LeCun over the same in NTK is "
        + ", ".join(f"{v:.2f} (m = {w})" for w, v in r.items()) + f", log-log slope {s:.2f} against m. " + ident))


def check_parameter_change(more: LzbMore) -> Check:
    """[LZB] Eq 41: under LeCun's parameterization the parameter change of training is 1/sqrt(m/c_s) times the NTK
    parameterization's: O(1/sqrt(m)) instead of O(1).

    Measurement: the nets of :func:`check_parameterization` whose trained layers share the fan-in m, trained by
    full-batch GD at the chapter's step rule (lr_scale / lambda_max(K), which is the NTK step over m/c_s) for the same
    number of steps. Rule: "reproduced" if ||w'_T - w'_0|| sqrt(m/c_s) / ||w_T - w_0|| is 1 within
    :data:`~lib.chapters.non_constancy.lzb_checks.EQ41_RTOL` at every width, "not reproduced" otherwise; "inconclusive" if no net took a GD step.

    Args:
        more: :func:`~lib.chapters.non_constancy.lzb_measure.measure_lzb_more` output.

    Returns:
        The check.
    """
    f = more.lecun
    moved = f[(f.steps > 0) & (f.move_ntk > 0)]
    if moved.empty:
        return Check("[LZB] Eq 41", status="inconclusive", caveat="no net took a GD step: there is no parameter "
                     "change to compare", measured="Every net met the stopping tolerance at initialization.")
    err = float((moved.move_lecun * np.sqrt(moved.factor) / moved.move_ntk - 1).abs().max())
    status = "reproduced" if err <= EQ41_RTOL else "not reproduced"
    return Check("[LZB] Eq 41", status=status, measured=(
        f"At m = {', '.join(str(w) for w in more.arch_widths)}: ||w_T - w_0|| is {moved.move_ntk.min():.3g} to "
        f"{moved.move_ntk.max():.3g} (NTK) and {moved.move_lecun.min():.3g} to {moved.move_lecun.max():.3g} (LeCun) "
        f"after {int(moved.steps.min())} to {int(moved.steps.max())} GD steps; LeCun's times sqrt(m/c_s) over NTK's "
        f"is 1 within {err:.2g} (tolerance {EQ41_RTOL:g})."))


def check_architectures(more: LzbMore) -> Check:
    """[LZB] Sec. 3.3.3 / App. G: the Hessian norm of a CNN (width = channels) and of a ResNet with a linear output
    falls like width^(-1/2), as the MLP's does (Thm 3.2).

    Rule: :func:`~lib.chapters.non_constancy.rules.hessian_slope_status` on each architecture's fitted slope (the
    chapter's one rule: -0.3 or steeper reproduces; above -0.15 does not); the status is the worse of the two.

    Args:
        more: :func:`~lib.chapters.non_constancy.lzb_measure.measure_lzb_more` output.

    Returns:
        The check.
    """
    f = more.archs
    names = {"cnn": "1-D CNN, against channels", "resnet": "residual MLP, against m"}
    over = f"{more.arch_widths[0]} to {more.arch_widths[-1]}"
    slopes = {a: _slope(f[f.arch == a], "hess_norm") for a in names}
    conv = {a: bool(f[f.arch == a].converged.all()) for a in names}
    st = {a: hessian_slope_status(slopes[a], conv[a]) for a in names}
    status = worst(*st.values())
    caveat = {"inconclusive": UNCONVERGED,
              "reproduced with caveat": "a Hessian norm falls more slowly than width^(-1/2)"}.get(status, "")
    rows = tuple(hessian_row(f"Hessian norm, {names[a]}", "linear_hessian", slopes[a], over, st[a]) for a in names)
    return Check("[LZB] App G", status=status, caveat=caveat, rows=rows, measured=(
        f"Fitted slopes of the Hessian norm at initialization over width {over}: {slopes['cnn']:.2f} (1-D CNN) and "
        f"{slopes['resnet']:.2f} (residual MLP); power iterations converged: {'yes' if all(conv.values()) else 'no'}."))


def check_segment_bound(more: LzbMore) -> Check:
    """[LZB] Prop 2.3: a Hessian norm at most epsilon on a ball of radius R around w_0 changes the tangent kernel by
    O(epsilon R) in the ball.

    The constant, from the proof: along the segment from w_0 to w, grad f_i(w) - grad f_i(w_0) is the integral of
    H_i(w_0 + tau (w - w_0)) (w - w_0), so ||g_i(w) - g_i(w_0)|| <= eps_i R with eps_i the sup of ||H_i|| on the
    segment and R = ||w - w_0||; then K_ij(w) - K_ij(w_0) = <g_i(w) - g_i(w_0), g_j(w)> + <g_i(w_0), g_j(w) - g_j(w_0)>
    gives ``|K_ij(w) - K_ij(w_0)| <= R (eps_i ||g_j(w)|| + eps_j ||g_i(w_0)||)``, at most ``2 eps R sup ||grad f||`` per entry.

    Measurement (:func:`~lib.chapters.non_constancy.lzb_measure.segment_rows`): the linear- and swish-output nets
    trained as the chapter trains them, w = w_T, eps_i the largest of the Hessian norms at five points of the segment.
    Rule on the largest ratio ``|Delta K_ij| / bound_ij``: "reproduced" at 1 or below; "reproduced with caveat" up to
    1 + :data:`~lib.chapters.non_constancy.lzb_checks.SEGMENT_SLACK` (within what five points can miss of the sup); "not reproduced" above;
    "inconclusive" if a power iteration did not converge or no net moved (R = 0: the premise is vacuous).

    Args:
        more: :func:`~lib.chapters.non_constancy.lzb_measure.measure_lzb_more` output.

    Returns:
        The check.
    """
    f = more.segment
    moved = f[f.R > 0]
    if moved.empty or not bool(f.converged.all()):
        why = UNCONVERGED if not bool(f.converged.all()) else "no net moved from w_0 (R = 0): the bound is vacuous"
        return Check("[LZB] Prop 2.3", status="inconclusive", caveat=why, measured=f"{len(f)} entries measured.")
    ratio = moved.dK / moved.bound
    r = float(ratio.max())
    status = "reproduced" if r <= 1 else "reproduced with caveat" if r <= 1 + SEGMENT_SLACK else "not reproduced"
    caveat = (f"a kernel change exceeds the bound by {r - 1:.2g}, within what five points of the segment can miss of "
              "the Hessian's sup") if status == "reproduced with caveat" else ""
    per = moved.assign(ratio=ratio).groupby("arch").ratio.max()
    return Check("[LZB] Prop 2.3", status=status, caveat=caveat, measured=(
        f"Along {moved.groupby(['arch', 'width']).ngroups} trained nets (m = "
        f"{', '.join(str(w) for w in more.arch_widths)}, R = {moved.R.min():.3g} to {moved.R.max():.3g}, eps = "
        f"{moved.eps.min():.3g} to {moved.eps.max():.3g}), the largest |Delta K_ij| over R (eps_i ||g_j(w_T)|| + "
        f"eps_j ||g_i(w_0)||) is " + ", ".join(f"{v:.3g} ({a} output)" for a, v in per.items()) + "."))


def check_kernel_path(runs: KernelRuns) -> Check:
    """[LZB] Fig 1, right panel: along training of a very wide net the tangent kernel of a non-linear (softmax or
    swish) output changes significantly from initialization, while a linear output's is nearly unchanged.

    Measurement: the tracked ||K_t - K_0||_F / ||K_0||_F of the chapter's widest nets, every seed. Rule: "reproduced"
    if every linear-output path stays below :data:`~lib.chapters.non_constancy.lzb_checks.NEARLY_CONSTANT` and every non-linear-output path reaches
    :data:`~lib.chapters.non_constancy.kernel_width.O1_CHANGE`; "not reproduced" otherwise.

    Args:
        runs: :func:`~lib.chapters.non_constancy.kernel_runs.measure_kernel_runs` output.

    Returns:
        The check.
    """
    df, wmax = runs.df, max(runs.widths)
    wide = df[df.width == wmax]
    lin = float(wide[wide.arch == "linear"].delta_K.max())
    nl = {a: float(wide[wide.arch == a].delta_K.min()) for a in NONLINEAR}
    ok = lin < NEARLY_CONSTANT and min(nl.values()) >= O1_CHANGE
    return Check("[LZB] Fig 1(right)", status="reproduced" if ok else "not reproduced", measured=(
        f"At m = {wmax:,}, the largest kernel change along training is {lin:.3g} for the linear output (nearly "
        f"unchanged below {NEARLY_CONSTANT:g}) and at least " + ", ".join(f"{v:.3g} ({a})" for a, v in nl.items())
        + f" for the non-linear outputs (significant at {O1_CHANGE:g} or more)."))
