"""Hessian norm at initialization and in the ball against width, and the kernel's scale: Figure 5.4 and its checks
([LZB] Thm 3.2, Eq 29).
"""
from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from lib.book.plotting import band_lines, figure, palette, slope_guide
from lib.book.results import SEVERITY, Check
from lib.chapters.non_constancy.ball import W0_ONLY, ball_reduce, ball_words
from lib.chapters.non_constancy.hessian_norms import HessianNorms, hessian_summary, measure_hessian_norms
from lib.chapters.non_constancy.kernel_width import width_slopes
from lib.chapters.non_constancy.nets import NONLINEAR
from lib.chapters.non_constancy.rules import (FLAT, UNCONVERGED, band_status, hessian_row, hessian_slope_status)
from lib.finite.hessian import model_hessian_norm
from lib.spectra import fit_slope

__all__ = ["hessian_by_width", "plot_hessian", "figure_hessian", "check_hessian", "check_kernel_scale",
           "check_nonlinear_hessian"]


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
    """Figure 5.4: left, the model Hessian norm at initialization against width, log-log, with the m^(-1/2) guide
    and, dashed, its sup over the ball searched; right, the tangent kernel's scale at initialization.

    Args:
        h: :func:`~lib.chapters.non_constancy.hessian_norms.measure_hessian_norms` output.

    Returns:
        The figure (two axes; one without the kernel's scale).
    """
    names = {"linear": "linear output", "swish": "swish output", "softmax": f"softmax over {h.k} outputs"}
    hw, h_slopes = hessian_by_width(h)
    with_kernel = h.kernel is not None and not h.kernel.empty
    fig, axs = figure(ncols=2 if with_kernel else 1)
    ax = axs[0, 0]
    band_lines(ax, hw, names, suffix={a: f" (slope {v:.2f})" for a, v in h_slopes.items()})
    if h.ball is not None and not h.ball.empty:
        sup, _ = ball_reduce(h.ball, h.ball_radius, ("arch", "width", "seed"))
        g = sup.groupby(["arch", "width"])["hess_norm"].mean()
        for c, a in zip(palette(3), names):
            if a in g.index.get_level_values(0):
                ax.plot(g.loc[a].index, g.loc[a].to_numpy(), "--", color=c, lw=1)
        ax.plot([], [], "--", color="0.3", lw=1, label=f"sup over the ball, R = {h.ball_radius:g}")
    slope_guide(ax, hw.loc["linear"].index, -0.5, hw.loc["linear"]["mean"].iloc[0], label=r"$\propto m^{-1/2}$")
    ax.set(xscale="log", yscale="log", xlabel="width m", ylabel=r"$\max_i\|\nabla^2_w \tilde f(x_i)\|_2$",
           title="Model Hessian spectral norm")
    ax.legend(fontsize=9)
    if with_kernel:
        g = h.kernel.groupby("width")[["lambda_max", "mean_diag"]].mean()
        for col, lab in (("lambda_max", r"$\lambda_{\max}(K(w_0))$"), ("mean_diag", r"mean $K_{ii}(w_0)$")):
            axs[0, 1].plot(g.index, g[col], "o-", label=lab)
        axs[0, 1].set(xscale="log", yscale="log", xlabel="width m", title="Tangent kernel at $w_0$, linear output")
        axs[0, 1].legend(fontsize=9)
    return fig


def figure_hessian(h: HessianNorms) -> dict:
    """Figure 5.4, :func:`plot_hessian` of ``h``, as the arguments of :meth:`lib.book.results.Recorder.figure`."""
    widths = ", ".join(f"{w:,}" for w in h.widths)
    ball = ""
    if h.ball is not None and not h.ball.empty:
        n_random = h.ball[h.ball.point.str.startswith("random")].point.nunique()
        ball = (f"; the ball of radius R = {h.ball_radius:g} searched at m = "
                f"{', '.join(f'{w:,}' for w in h.ball_widths)} ({h.ball.seed.nunique()} seed(s): w_0, {n_random}"
                " random point(s) at distance R and the end point of GD)")
    setting = h.setting(f"one hidden layer ({h.activation}), widths m = {widths}", f"{h.how}; {h.seeds} seeds{ball}",
                        "[LZB] have no experiment on the Hessian norm.", hessian_summary(h))
    return dict(fig=plot_hessian(h), label="fig-hessian-width", drawn_by=plot_hessian, setting=setting,
                data_from=(measure_hessian_norms, model_hessian_norm),
                caption="Left: spectral norm of the model Hessian at initialization against width (line: mean over "
                        "seeds; band: min to max), with the $m^{-1/2}$ line, and its largest value over the points of "
                        "the ball of radius $R$ searched (dashed). Right: the scale of the tangent kernel at "
                        "initialization of the linear-output nets.")


def _ball_slopes(h: HessianNorms, archs, how: str = "max") -> tuple[dict, bool, bool, str]:
    """Per arch, the log-log slope of the seed mean of the sup (``how="max"``) or inf (``"min"``) of the Hessian norm
    over the ball searched (:func:`~lib.chapters.non_constancy.ball.ball_reduce`; at w_0 when no ball was
    searched), whether every power
    iteration of those archs converged (in the ball and at w_0 over every width), whether the ball was searched, and
    the points in words."""
    frame = h.ball if h.ball is not None and not h.ball.empty else h.frame
    frame = frame[frame.arch.isin(archs)]
    sup, searched = ball_reduce(frame, h.ball_radius, ("arch", "width", "seed"), how=how)
    g = sup.groupby(["arch", "width"])["hess_norm"].mean()
    slopes = {a: fit_slope(g.loc[a].index, g.loc[a].to_numpy()) for a in archs}
    conv = bool(frame.converged.all()) and bool(h.frame[h.frame.arch.isin(archs)].converged.all())
    return slopes, conv, searched, ball_words(frame, h.ball_radius, searched)


def _over(h: HessianNorms, searched: bool) -> str:
    w = h.ball_widths if searched else h.widths
    return f"m = {w[0]:,} to {w[-1]:,}"


def check_hessian(h: HessianNorms) -> Check:
    """[LZB] Thm 3.2: with a linear output layer the model Hessian norm is O~(1/sqrt(m)) at every point of a ball
    of fixed radius R around the initialization (part "Hessian in the ball"; the kernel's O(1) is
    :func:`check_kernel_scale`).

    Measurement: the Hessian norm of the linear-output nets (and their power iterations only), its sup over the
    points of the ball searched (:func:`~lib.chapters.non_constancy.ball.ball_reduce`: w_0, random points at
    distance R, the GD end point when it lies in the ball), seed mean per width, against the width. Rule
    (:func:`~lib.chapters.non_constancy.rules.hessian_slope_status`): the bound read as a bound, the chapter's one
    rule for "decays at least as fast as m^(-1/2)": "reproduced" if the log-log slope is -0.3 or steeper (-1/2
    within the slope noise, which also covers the logarithmic factors of the O~), "not reproduced" above -0.15 (a
    norm that does not decay, as a non-linear output's), "reproduced with caveat" between; "inconclusive" when a
    linear-output power iteration did not converge (an underestimate, not a measurement). Data without the ball
    (w_0 only) cap a "reproduced" at "reproduced with caveat"
    (:data:`~lib.chapters.non_constancy.ball.W0_ONLY`). The judged row puts the slope beside [LZB]'s exponent.

    Args:
        h: :func:`~lib.chapters.non_constancy.hessian_norms.measure_hessian_norms` output.

    Returns:
        The check.
    """
    slopes, conv, searched, words = _ball_slopes(h, ("linear",))
    s = slopes["linear"]
    status = hessian_slope_status(s, conv)
    caveat = {"reproduced with caveat": "the norm falls more slowly than m^(-1/2)",
              "inconclusive": UNCONVERGED}.get(status, "")
    if status == "reproduced" and not searched:
        status, caveat = "reproduced with caveat", W0_ONLY
    row = hessian_row("Hessian norm in the ball, linear output, against m", "linear_hessian", s, _over(h, searched),
                      status)
    _, at0 = hessian_by_width(h)
    return Check(
        "[LZB] Thm 3.2", status=status, caveat=caveat, rows=(row,), part="Hessian in the ball",
        measured=f"Fitted slope of the linear-output Hessian norm ({words}) against m: {s:.2f} over "
        f"{_over(h, searched)} (at w_0 alone: {at0['linear']:.2f} over m = {h.widths[0]:,} to {h.widths[-1]:,}; the "
        f"O~ allows logarithmic factors, which flatten a slope fitted over this range); power iteration converged "
        f"for every linear-output net: {'yes' if conv else 'no'}.")


def check_kernel_scale(h: HessianNorms) -> Check:
    """[LZB] Thm 3.2, its second clause: the tangent kernel of a wide linear-output net is O(1) (Theta(1): the
    Hessian vanishes while the kernel does not, which is what makes the model near-linear).

    Measurement: lambda_max(K(w_0)) and the mean diagonal entry of K(w_0) (the mean squared gradient norm) of the
    linear-output nets on the chapter's data, seed mean per width (the ``kernel`` table of :class:`~lib.chapters.non_constancy.hessian_norms.HessianNorms`). Rule
    (:func:`~lib.chapters.non_constancy.rules.band_status`) on the log-log slope of each against m, the worse
    deciding: "reproduced" within 0.15 of zero (a width-independent scale), "not reproduced" at 0.3 or more in
    absolute value (a kernel that vanishes or grows like a power of m), "reproduced with caveat" between; "not
    checked" without the measurement.

    Args:
        h: :func:`~lib.chapters.non_constancy.hessian_norms.measure_hessian_norms` output.

    Returns:
        The check (part "tangent kernel O(1)").
    """
    part = "tangent kernel O(1)"
    if h.kernel is None or h.kernel.empty:
        return Check("[LZB] Thm 3.2", status="not checked", part=part, measured="The kernel was not measured.",
                     caveat="not testable on this data: no kernel at initialization in this run")
    g = h.kernel.groupby("width")[["lambda_max", "mean_diag"]].mean()
    slopes = {c: round(fit_slope(g.index, g[c].to_numpy()), 6) + 0.0 for c in g.columns}  # + 0.0: no "-0.00"
    status = max((band_status(v) for v in slopes.values()), key=SEVERITY.__getitem__)
    return Check(
        "[LZB] Thm 3.2", status=status, part=part,
        caveat="the kernel's scale drifts with the width" if status == "reproduced with caveat" else "",
        measured=f"At w_0, lambda_max(K) is " + ", ".join(f"{v:.3g}" for v in g.lambda_max) + " and the mean "
        "diagonal entry " + ", ".join(f"{v:.3g}" for v in g.mean_diag) + f" over m = {g.index[0]:,} to "
        f"{g.index[-1]:,} (seed mean): log-log slopes {slopes['lambda_max']:.2f} and {slopes['mean_diag']:.2f}.")


def check_nonlinear_hessian(h: HessianNorms) -> Check:
    """[LZB] Eq 29: with a non-linear output layer the model Hessian norm is O(1), and does not vanish, as the width
    grows, in the ball of fixed radius around the initialization.

    The statement has two directions, each judged on the swish and softmax nets over the points of the ball
    searched (:func:`~lib.chapters.non_constancy.ball.ball_reduce`), seed mean per width: "O(1)" on the sup (its
    log-log slope below :data:`~lib.chapters.non_constancy.rules.FLAT`: it does not grow; Eq 29's second term,
    O(R/sqrt(m)), may make the sup fall at the small widths, which a bound allows), "does not vanish" on the inf
    (its slope above -:data:`~lib.chapters.non_constancy.rules.FLAT`: it does not fall). Rule: "reproduced" if
    both hold for both outputs; otherwise "not reproduced" (a linear output's norm, fed in, falls like
    m^(-1/2)); "inconclusive" when a non-linear-output power iteration did not converge (an underestimate, not a
    measurement). Data without the ball (w_0 only: sup = inf = the norm at w_0) cap a "reproduced" at "reproduced
    with caveat" (:data:`~lib.chapters.non_constancy.ball.W0_ONLY`).

    Args:
        h: :func:`~lib.chapters.non_constancy.hessian_norms.measure_hessian_norms` output.

    Returns:
        The check.
    """
    hw, at0 = hessian_by_width(h)
    sup, conv, searched, words = _ball_slopes(h, NONLINEAR)
    inf, _, _, _ = _ball_slopes(h, NONLINEAR, how="min")
    ok = all(sup[a] < FLAT and inf[a] > -FLAT for a in NONLINEAR)
    status = "inconclusive" if not conv else "reproduced" if ok else "not reproduced"
    caveat = UNCONVERGED if status == "inconclusive" else ""
    if status == "reproduced" and not searched:
        status, caveat = "reproduced with caveat", W0_ONLY
    return Check(
        "[LZB] Eq 29", status=status, caveat=caveat,
        measured=f"Fitted slopes against m over {_over(h, searched)} of the Hessian norm's sup (over "
        f"{words.removeprefix('sup over ')}): "
        f"{sup['swish']:.2f} (swish), {sup['softmax']:.2f} (softmax); of its inf over the same points: "
        f"{inf['swish']:.2f} (swish), {inf['softmax']:.2f} (softmax); at w_0 alone over m = {h.widths[0]:,} to "
        f"{h.widths[-1]:,}: {at0['swish']:.2f} (swish), {at0['softmax']:.2f} (softmax), against {at0['linear']:.2f} "
        f"for the linear output; at m={h.widths[-1]} the norms at w_0 are "
        + ", ".join(f"{hw.loc[a]['mean'].iloc[-1]:.3g} ({a})" for a in ("swish", "softmax", "linear"))
        + f"; power iteration converged for every non-linear-output net: {'yes' if conv else 'no'}.")
