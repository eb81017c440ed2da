"""[LH] Figure 1 and Lemma 3.1 (Eq. 7): the gradient angle against the input angle at infinite and finite
width, its figure and the width-convergence verdict."""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
from matplotlib.figure import Figure

from lib.book.plotting import figure, ordered_palette, slope_guide, value_ticks
from lib.book.results import Check
from lib.book.wording import ints
from lib.chapters.better_separation.measure import Grids, measure_finite_width_angles, width_errors
from lib.chapters.better_separation.separation_theory import DEG, relu_theory_curves
from lib.spectra import fit_slope

__all__ = ["GradientAngles", "depth_colors", "plot_gradient_angle", "figure_gradient_angle", "NO_CONVERGENCE_SLOPE",
           "RATE_BAND", "check_width_convergence"]


@dataclass(frozen=True)
class GradientAngles:
    """Infinite- and finite-width ReLU gradient angles of [LH] Figure 1 (Lemma 3.1, Eq. 7), with their settings.

    Attributes:
        grids: the angle grids and input dimension (:class:`lib.chapters.better_separation.Grids`).
        theory_depths: the depths asked for the infinite-width curves.
        widths: the widths m of the finite nets.
        fw_depths: the depths of the finite nets.
        seeds: weight draws (and input planes) per (width, depth).
        depths: sorted union of ``theory_depths`` and ``fw_depths`` (the curves drawn).
        theory: :func:`lib.chapters.better_separation.relu_theory_curves` on ``grids.grid`` for ``depths``.
        fw: :func:`lib.chapters.better_separation.measure_finite_width_angles` at ``grids.fw_angles``.
        errs: :func:`lib.chapters.better_separation.width_errors` of ``fw``.
    """

    grids: Grids
    theory_depths: list
    widths: list
    fw_depths: list
    seeds: int
    depths: list
    theory: pd.DataFrame
    fw: pd.DataFrame
    errs: pd.DataFrame


def depth_colors(depths) -> dict:
    """One colour per depth, in the book's ordered palette (:func:`lib.book.plotting.ordered_palette`): depth is
    ordinal, so the colours' lightness follows the depths' order.

    Args:
        depths: the depths, in drawing order.

    Returns:
        depth -> colour.
    """
    return dict(zip(sorted(depths), ordered_palette(len(depths))))


def plot_gradient_angle(ga: GradientAngles) -> Figure:
    """phi(theta_in) at infinite and finite width ([LH] Figure 1), and the error against width.

    Args:
        ga: the sweep's gradient angles (``sweep.angles`` of :func:`lib.chapters.better_separation.measure_relu_sweep`).

    Returns:
        The figure (two axes).
    """
    theory, fw, errs = ga.theory, ga.fw, ga.errs
    fw_depths = sorted(fw.depth.unique())
    cols = depth_colors(ga.depths)
    fig, axs = figure(ncols=2)
    ax = axs[0, 0]
    for L in ga.depths:
        t = theory[theory.depth == L]
        ax.plot(DEG * t.theta, DEG * t.phi, color=cols[L], label=f"ReLU, L={L}")
    wmax = fw.width.max()
    for L in fw_depths:
        g = fw[(fw.width == wmax) & (fw.depth == L)].groupby("theta")["phi"].agg(["mean", "min", "max"])
        ax.errorbar(DEG * g.index, DEG * g["mean"], yerr=[DEG * (g["mean"] - g["min"]), DEG * (g["max"] - g["mean"])],
                    fmt="o", ms=4, color=cols[L], capsize=2)
    ax.plot([0, 180], [0, 180], "k--", label=r"linear net: $\bar\phi=\theta_{in}$")
    ax.plot([], [], "o", color="0.4", label=f"finite width m={wmax}")
    ax.set(xlabel=r"input angle $\theta_{in}$ (deg)", ylabel=r"gradient angle $\phi$ (deg)", xlim=(0, 180),
           ylim=(0, 180), title="[LH] Figure 1: infinite width and finite width")
    ax.legend(loc="upper left", ncol=2, fontsize=9)
    ax = axs[0, 1]
    for L in fw_depths:
        e = errs[errs.depth == L]
        ax.loglog(e.width, DEG * e.rms, "o-", color=cols[L], label=f"L={L}")
    e0 = errs[errs.depth == max(fw_depths)]
    slope_guide(ax, e0.width, -0.5, DEG * e0.rms.iloc[0] * 1.3, label=r"$\propto m^{-1/2}$")
    ax.set(xlabel="width m", ylabel=r"rms of $\phi_m - \phi_\infty$ (deg)", title="Convergence to the infinite-width angle")
    value_ticks(ax, e0.width)
    ax.legend()
    return fig


def figure_gradient_angle(ga: GradientAngles) -> dict:
    """The figure ``fig-separation-gradient-angle`` of :func:`plot_gradient_angle` ([LH] Figure 1 at infinite and finite
    width) with its caption, sources and a setting line naming ``profile``: the keyword arguments of
    :meth:`lib.book.results.Recorder.figure`."""
    g = ga.grids
    return dict(
        fig=plot_gradient_angle(ga), label="fig-separation-gradient-angle", drawn_by=plot_gradient_angle,
        data_from=(relu_theory_curves, measure_finite_width_angles, width_errors),
        caption="Left: model gradient angle against input angle; lines from `lib.theory.relu_gradient_angle`, "
                "markers from finite networks. Right: finite-width error against width.",
        setting=f"Setting: infinite-width curves (Eq. 7) at depths L = {ints(ga.depths)} on a {g.grid_step:g} deg "
                f"grid; finite ReLU nets on {g.pairs_text()}, widths m = {ints(ga.widths)}, depths L = "
                f"{ints(ga.fw_depths)}, {ga.seeds} seeds; {{profile}}. Deviation: the paper's Figure 1 "
                "shows infinite-width curves only; the finite-width markers and the error-against-width panel are ours.")


#: Slope of log rms error against log width above which the error counts as not shrinking; with the default
#: 3 seeds x 18 angles the rms has a relative sampling error of about 10 %, so the fitted slope's noise is about
#: 0.05 to 0.1; -0.15 is more than 3 of those from -0.5.
NO_CONVERGENCE_SLOPE = -0.15
#: The slopes counted as the O(1/sqrt(m)) rate of Gaussian kernel fluctuations (-0.5), open interval; +-0.2 and
#: +-0.3 around -0.5, about 3 of the slope's sampling noise (0.05-0.1) on either side.
RATE_BAND = (-0.8, -0.3)


def check_width_convergence(ga: GradientAngles) -> Check:
    """Verdict on [LH] Lemma 3.1, Eq. (7): for a ReLU network at infinite width, cos phi = (1/(L+1)) sum_l
    cos theta^(l) prod_(l'=l..L-1) (1 - theta^(l')/pi); tested as the limit of finite ReLU nets, which must
    approach this phi(theta_in) as the width grows.

    The errors are phi_m - phi_inf with phi_inf from Eq. (7) (:func:`lib.theory.relu_gradient_angle`).
    If Eq. (7) is the limit, the rms error falls like the O(1/sqrt(m)) Gaussian fluctuations of
    the kernel, a log-log slope of -0.5; if it is not, the error levels off at the gap between
    the limit and Eq. (7), a slope near 0. Rule, on the slope fitted per depth:

    * "not reproduced" if some slope is above :data:`~lib.chapters.better_separation.figure1.NO_CONVERGENCE_SLOPE` (-0.15): the error does
      not shrink with width. With the default 3 seeds x 18 angles the rms has a relative sampling
      error of about 1/sqrt(2 x 54) = 10 %, so over a width ratio of 4 to 16 the slope's noise is
      about 0.05 to 0.1: -0.15 is more than 3 of those from -0.5;
    * "reproduced" if every slope lies in :data:`~lib.chapters.better_separation.figure1.RATE_BAND`
      = (-0.8, -0.3) (-0.5 with margin for the seed spread);
    * "reproduced with caveat" otherwise (falls, but at another rate);
    * "inconclusive" with a single width (no slope can be fitted).

    Args:
        ga: the sweep's gradient angles; the rule reads ``ga.errs`` (columns depth, width, rms, from
            :func:`lib.chapters.better_separation.width_errors`).

    Returns:
        The check, claim ``"[LH] Lemma 3.1"``, part ``"Eq. 7"``.
    """
    errs = ga.errs
    wmax = errs.width.max()
    err_max = errs[errs.width == wmax].set_index("depth")["rms"]
    at_max = ", ".join(f"{DEG * v:.2f} deg (L={L})" for L, v in err_max.items())
    if errs.width.nunique() < 2:
        return Check("[LH] Lemma 3.1", status="inconclusive", part="Eq. 7", caveat="one width only: no rate can be fitted",
                     measured=f"At the only width m={wmax} the rms error of phi against Eq. (7) is {at_max}.")
    slopes = {L: fit_slope(g.width, g.rms) for L, g in errs.groupby("depth")}
    if any(v > NO_CONVERGENCE_SLOPE for v in slopes.values()):
        status, caveat = "not reproduced", ""
    elif all(RATE_BAND[0] < v < RATE_BAND[1] for v in slopes.values()):
        status, caveat = "reproduced", ""
    else:
        status, caveat = "reproduced with caveat", "the error falls with width, but not like m^(-1/2) at every depth"
    return Check(
        "[LH] Lemma 3.1", status=status, part="Eq. 7", caveat=caveat,
        measured="Fitted log-log slopes of the rms error of phi against Eq. (7) over widths "
        + f"{ints(sorted(errs.width.unique()), ranges=False)}: " + ", ".join(f"L={L}: {v:.2f}" for L, v in slopes.items())
        + f" (O(1/sqrt(m)) predicts -0.5; an error that does not shrink, slope above {NO_CONVERGENCE_SLOPE}, means "
        + f"another limit); at m={wmax} the rms error is {at_max}.")
