"""Hessian norm at initialization against width: Figure 5.4 and its checks ([LZB] Thm 3.2, Eq 29).
"""
from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from lib.book.plotting import band_lines, figure, slope_guide
from lib.book.results import Check
from lib.chapters.non_constancy.hessian_norms import HessianNorms, hessian_summary, measure_hessian_norms
from lib.chapters.non_constancy.kernel_width import width_slopes
from lib.chapters.non_constancy.nets import NONLINEAR
from lib.chapters.non_constancy.rules import UNCONVERGED, hessian_row, hessian_slope_status, is_flat
from lib.finite.hessian import model_hessian_norm

__all__ = ["hessian_by_width", "plot_hessian", "figure_hessian", "check_hessian", "check_nonlinear_hessian"]


def hessian_by_width(h: HessianNorms) -> tuple[pd.DataFrame, dict]:
    """The Hessian norm per (arch, width) (``mean``, ``min``, ``max`` over seeds) and its log-log slope per arch.

    Args:
        h: :func:`~lib.chapters.non_constancy.hessian_norms.measure_hessian_norms` output.

    Returns:
        (the frame indexed by (arch, width), ``{arch: slope}``).
    """
    hw = h.frame.groupby(["arch", "width"])["hess_norm"].agg(["mean", "min", "max"])
    return hw, width_slopes(hw, ("linear", "swish", "softmax"))


def plot_hessian(h: HessianNorms) -> Figure:
    """Figure 5.4: the model Hessian norm at initialization against width, log-log, with the m^(-1/2) guide.

    Args:
        h: :func:`~lib.chapters.non_constancy.hessian_norms.measure_hessian_norms` output.

    Returns:
        The figure (one axes).
    """
    names = {"linear": "linear output", "swish": "swish output", "softmax": f"softmax over {h.k} outputs"}
    hw, h_slopes = hessian_by_width(h)
    fig, axs = figure()
    ax = axs[0, 0]
    band_lines(ax, hw, names, suffix={a: f" (slope {v:.2f})" for a, v in h_slopes.items()})
    slope_guide(ax, hw.loc["linear"].index, -0.5, hw.loc["linear"]["mean"].iloc[0], label=r"$\propto m^{-1/2}$")
    ax.set(xscale="log", yscale="log", xlabel="width m", ylabel=r"$\max_i\|\nabla^2_w \tilde f(x_i)\|_2$",
           title="Model Hessian spectral norm at initialization")
    ax.legend()
    return fig


def figure_hessian(h: HessianNorms) -> dict:
    """Figure 5.4, :func:`plot_hessian` of ``h``, as the arguments of :meth:`lib.book.results.Recorder.figure`."""
    widths = ", ".join(f"{w:,}" for w in h.widths)
    setting = h.setting(f"one hidden layer ({h.activation}), widths m = {widths}", f"{h.how}; {h.seeds} seeds",
                        "[LZB] have no experiment on the Hessian norm.", hessian_summary(h))
    return dict(fig=plot_hessian(h), label="fig-hessian-width", drawn_by=plot_hessian, setting=setting,
                data_from=(measure_hessian_norms, model_hessian_norm),
                caption="Spectral norm of the model Hessian at initialization against width (line: mean over "
                        "seeds; band: min to max), with the $m^{-1/2}$ line.")


def check_hessian(h: HessianNorms) -> Check:
    """[LZB] Thm 3.2: with a linear output layer the model Hessian norm is O~(1/sqrt(m)).

    Measurement: the Hessian norm of the linear-output nets (and their power iterations only) against the width.
    Rule (:func:`~lib.chapters.non_constancy.rules.hessian_slope_status`): the bound read as a bound, the
    chapter's one rule for "decays at least as fast as m^(-1/2)": "reproduced" if the log-log slope is -0.3 or
    steeper (-1/2 within the slope noise, which also covers the logarithmic factors of the O~), "not reproduced"
    above -0.15 (a norm that does not decay, as a non-linear output's), "reproduced with caveat" between;
    "inconclusive" when a linear-output power iteration did not converge (an underestimate, not a measurement).
    The judged row puts the slope beside [LZB]'s exponent.

    Args:
        h: :func:`~lib.chapters.non_constancy.hessian_norms.measure_hessian_norms` output.

    Returns:
        The check.
    """
    dh = h.frame
    _, h_slopes = hessian_by_width(h)
    conv = bool(dh[dh.arch == "linear"].converged.all())
    s = h_slopes["linear"]
    status = hessian_slope_status(s, conv)
    row = hessian_row("Hessian norm, linear output, against m", "linear_hessian", s,
                      f"m = {h.widths[0]:,} to {h.widths[-1]:,}", status)
    return Check(
        "[LZB] Thm 3.2", status=status,
        caveat={"reproduced with caveat": "the norm falls more slowly than m^(-1/2)",
                "inconclusive": UNCONVERGED}.get(status, ""),
        measured=f"Fitted slope of the linear-output Hessian norm against m: {s:.2f} over m = {h.widths[0]}.."
        f"{h.widths[-1]} (the O~ allows logarithmic factors, which flatten a slope fitted over this range); power "
        f"iteration converged for every linear-output net: {conv}.", rows=(row,))


def check_nonlinear_hessian(h: HessianNorms) -> Check:
    """[LZB] Eq 29: with a non-linear output layer the model Hessian norm is O(1), not vanishing with the width.

    Rule: "reproduced" if both non-linear (swish, softmax) slopes against the width are within 0.15 of zero
    (flat, :data:`~lib.chapters.non_constancy.rules.FLAT`); otherwise "not reproduced" (a linear output's norm,
    fed in, falls like m^(-1/2)); "inconclusive" when a non-linear-output power iteration did not converge (an
    underestimate, not a measurement).

    Args:
        h: :func:`~lib.chapters.non_constancy.hessian_norms.measure_hessian_norms` output.

    Returns:
        The check.
    """
    dh = h.frame
    hw, h_slopes = hessian_by_width(h)
    conv = bool(dh[dh.arch.isin(NONLINEAR)].converged.all())
    flat = all(is_flat(h_slopes[a]) for a in NONLINEAR)
    status = "inconclusive" if not conv else "reproduced" if flat else "not reproduced"
    return Check(
        "[LZB] Eq 29", status=status, caveat=UNCONVERGED if status == "inconclusive" else "",
        measured=f"Fitted slopes of the Hessian norm against m: {h_slopes['swish']:.2f} (swish), "
        f"{h_slopes['softmax']:.2f} (softmax), against {h_slopes['linear']:.2f} for the linear output; at "
        f"m={h.widths[-1]} the norms are " + ", ".join(f"{hw.loc[a]['mean'].iloc[-1]:.3g} ({a})" for a in
                                                       ("swish", "softmax", "linear"))
        + f"; power iteration converged for every non-linear-output net: {conv}.")
