"""A bottleneck layer in [m, b, m] nets: Figures 5.2 and 5.5 and their checks ([LZB] Fig 2, Thm 3.3, Thm 4.1).

Figure 5.2 is the kernel change against the bottleneck width b; Figure 5.5 the Hessian norm at initialization
against b (at fixed m) and against m (at the narrowest b).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from lib.book.plotting import figure, slope_guide, value_ticks
from lib.book.results import Check
from lib.book.wording import ints
from lib.chapters.non_constancy.ball import ball_reduce
from lib.chapters.non_constancy.hessian_norms import HessianNorms, measure_bottleneck_hessian, measure_hessian_norms
from lib.chapters.non_constancy.kernel_runs import KernelRuns, measure_kernel_runs
from lib.chapters.non_constancy.rules import (DECAY_RULE, UNCONVERGED, decay_status, flat_status, hessian_row,
                                              hessian_slope_status, slope_row, steeper_note)
from lib.spectra import fit_slope

__all__ = ["kernel_change_by_bottleneck", "plot_bottleneck", "figure_bottleneck", "check_bottleneck",
           "plot_bottleneck_hessian", "figure_bottleneck_hessian", "check_bottleneck_hessian",
           "check_bottleneck_hessian_width"]


def _log_value_ticks(ax, lo: float, hi: float, axis: str = "y") -> None:
    """At least two labelled ticks on a log axis spanning [lo, hi]: 1-2-5 values (or finer) inside the range."""
    lo, hi = float(lo), float(hi)
    if not (np.isfinite(lo) and np.isfinite(hi)) or lo <= 0 or hi <= lo:
        return
    for mantissas in ((1,), (1, 2, 5), (1, 1.5, 2, 3, 5, 7)):
        vals = [m * 10.0 ** e for e in range(int(np.floor(np.log10(lo))) - 1, int(np.ceil(np.log10(hi))) + 1)
                for m in mantissas if lo <= m * 10.0 ** e <= hi]
        if len(vals) >= 2:
            break
    if len(vals) < 2:
        vals = [float(f"{lo:.2g}"), float(f"{hi:.2g}")]
    value_ticks(ax, vals, axis=axis)


def kernel_change_by_bottleneck(runs: KernelRuns) -> tuple[pd.DataFrame, float]:
    """Delta_K of the [m, b, m] nets per bottleneck width b (``mean``, ``min``, ``max`` over seeds) and the
    log-log slope of the mean against b.

    Args:
        runs: :func:`~lib.chapters.non_constancy.kernel_runs.measure_kernel_runs` output.

    Returns:
        (the frame indexed by b, the slope).
    """
    bw = runs.df_b.groupby("bottleneck")["delta_K"].agg(["mean", "min", "max"])
    return bw, fit_slope(bw.index, bw["mean"])


def plot_bottleneck(runs: KernelRuns) -> Figure:
    """Figure 5.2: Delta_K of the [m, b, m] net against the bottleneck width b, with the b^(-1/2) guide.

    Args:
        runs: :func:`~lib.chapters.non_constancy.kernel_runs.measure_kernel_runs` output.

    Returns:
        The figure (one axes).
    """
    bw, s_b = kernel_change_by_bottleneck(runs)
    fig, axs = figure()
    ax = axs[0, 0]
    ax.fill_between(bw.index, bw["min"], bw["max"], alpha=0.2)
    ax.plot(bw.index, bw["mean"], "o-", label=f"[m, b, m], m={runs.bottleneck_width} (slope {s_b:.2f})")
    slope_guide(ax, bw.index, -0.5, bw["mean"].iloc[0], label=r"$\propto b^{-1/2}$")
    ax.set(xscale="log", yscale="log", xlabel="bottleneck width b", ylabel=r"$\Delta_K$",
           title="Kernel change with a bottleneck layer")
    value_ticks(ax, list(bw.index))
    _log_value_ticks(ax, bw["min"].min(), bw["max"].max())
    ax.legend()
    return fig


def figure_bottleneck(runs: KernelRuns) -> dict:
    """Figure 5.2, :func:`plot_bottleneck` of ``runs``, as the arguments of :meth:`lib.book.results.Recorder.figure`."""
    nets = f"[m, b, m] nets ({runs.activation}), m = {runs.bottleneck_width:,}, b = {ints(runs.bottlenecks, False)}"
    return dict(fig=plot_bottleneck(runs), label="fig-kernel-bottleneck", drawn_by=plot_bottleneck,
                data_from=measure_kernel_runs, setting=runs.setting(nets, f"{runs.gd}; {runs.seeds} seeds",
                                                                   runs.departure),
                caption="Relative kernel change of the bottleneck net against the bottleneck width (line: mean over "
                        "seeds; band: min to max), with the $b^{-1/2}$ line.")


def check_bottleneck(runs: KernelRuns) -> Check:
    """[LZB] Fig 2: with a bottleneck of width b the kernel change falls with b, like b^(-1/2) at any m.

    The b^(-1/2) comes from the Hessian bound O~(1/sqrt(b)) of Thm 3.3 (the kernel changes by at most the
    Hessian norm times the distance travelled), so it is read as the bound it is: the change decays at least as
    fast as b^(-1/2). Rule: the chapter's one rule for it
    (:func:`~lib.chapters.non_constancy.rules.decay_status`) on the log-log slope of the seed-mean Delta_K
    against b: "reproduced" at -0.3 or steeper (a steeper fall agrees with a bound), "not reproduced" above
    -0.15 (a kernel change that does not depend on b), "reproduced with caveat" in between.

    Args:
        runs: :func:`~lib.chapters.non_constancy.kernel_runs.measure_kernel_runs` output.

    Returns:
        The check (registry id ``"[LZB] Fig 2"``).
    """
    bw, s_b = kernel_change_by_bottleneck(runs)
    measured = (f"At m={runs.bottleneck_width}, Delta_K falls from {bw['mean'].iloc[0]:.3g} at b={bw.index[0]} to "
                f"{bw['mean'].iloc[-1]:.3g} at b={bw.index[-1]}: fitted slope {s_b:.2f} (the bound: -0.5 or steeper); "
                f"the narrow layer, not m, sets the kernel change." + steeper_note(s_b, "b"))
    status = decay_status(s_b)
    row = slope_row("kernel change against the bottleneck width b", "bottleneck_kernel",
                    f"{s_b:.2f} (b = {bw.index[0]} to {bw.index[-1]})", DECAY_RULE, status)
    return Check("[LZB] Fig 2", status=status, measured=measured, rows=(row,),
                 caveat="the change falls more slowly than b^(-1/2)" if status == "reproduced with caveat" else "")


def plot_bottleneck_hessian(h: HessianNorms) -> Figure:
    """Figure 5.5: Hessian norm of [m, b, m] nets against b at fixed m (left) and against m at the narrowest b (right).

    Args:
        h: :func:`~lib.chapters.non_constancy.hessian_norms.measure_hessian_norms` output with a bottleneck sweep.

    Returns:
        The figure (two axes).
    """
    fig, axs = figure(ncols=2)
    bt = h.bottleneck
    for ax, sweep, col, lab in ((axs[0, 0], "b", "bottleneck", "bottleneck width b"),
                                (axs[0, 1], "m", "width", "wide-layer width m")):
        g = bt[bt.sweep == sweep].groupby(col)["hess_norm"].agg(["mean", "min", "max"])
        ax.fill_between(g.index, g["min"], g["max"], alpha=0.2)
        ax.plot(g.index, g["mean"], "o-", label=f"[m, b, m], slope {fit_slope(g.index, g['mean']):.2f}")
        slope_guide(ax, g.index, -0.5, g["mean"].iloc[0], label=fr"$\propto {sweep}^{{-1/2}}$")
        lo, hi = g["min"].min(), g["max"].max()
        if sweep == "m":
            lin = h.frame[h.frame.arch == "linear"].groupby("width")["hess_norm"].mean()
            ax.plot(lin.index, lin.to_numpy(), "s--", label="one hidden layer,\nlinear output")
            lo, hi = min(lo, lin.min()), max(hi, lin.max())
            if getattr(h, "quadratic", None) is not None and not h.quadratic.empty:
                inf, _ = ball_reduce(h.quadratic, h.ball_radius, ("width", "seed"), how="min")
                q = inf.groupby("width")["hess_norm"].mean()
                ax.plot(q.index, q.to_numpy(), "^:", label=f"[LZB] Eq 31 net (b={int(h.quadratic.bottleneck.iloc[0])}),"
                        f"\nmin over the ball R = {h.ball_radius:g}")
                lo, hi = min(lo, q.min()), max(hi, q.max())
        ax.set(xscale="log", yscale="log", xlabel=lab, ylabel=r"$\max_i\|\nabla^2_w f(x_i)\|_2$")
        value_ticks(ax, list(g.index) if len(g) <= 4 else list(g.index)[::2])
        _log_value_ticks(ax, lo, hi)
        ax.legend(fontsize=9, loc="upper center", bbox_to_anchor=(0.5, -0.25), ncol=1)
    axs[0, 0].set_title(f"against b, m={int(bt[bt.sweep == 'b'].width.iloc[0])}")
    axs[0, 1].set_title(f"against m, b={int(bt[bt.sweep == 'm'].bottleneck.iloc[0])}")
    return fig


def figure_bottleneck_hessian(h: HessianNorms) -> dict:
    """Figure 5.5, :func:`plot_bottleneck_hessian` of ``h`` (with a bottleneck sweep), as the arguments of
    :meth:`lib.book.results.Recorder.figure`."""
    nets = (f"[m, b, m] nets ({h.activation}): b = {ints(h.bottlenecks, False)} at m = {h.bottleneck_width:,} (left), "
            f"m = {', '.join(f'{w:,}' for w in h.widths)} at b = {min(h.bottlenecks)} (right)")
    q = getattr(h, "quadratic", None)
    if q is not None and not q.empty:
        nets += (f"; the network of [LZB] Eq 31 ($\\sigma(z) = z^2/2$, linear bottleneck b = {int(q.bottleneck.iloc[0])}) "
                 f"at the same m, {q.seed.nunique()} seed(s), at w_0 and {q[q.point != 'init'].point.nunique()} "
                 f"random point(s) at distance R = {h.ball_radius:g}")
    caption = ("Spectral norm of the model Hessian of the bottleneck nets at initialization (line: mean over seeds; "
               "band: min to max), against the bottleneck width (left) and the wide-layer width (right); right, also "
               "the network of [LZB] Thm 4.1 (their Eq 31), its smallest norm over the points of the ball searched.")
    return dict(fig=plot_bottleneck_hessian(h), label="fig-hessian-bottleneck", drawn_by=plot_bottleneck_hessian,
                data_from=(measure_hessian_norms, measure_bottleneck_hessian), caption=caption,
                setting=h.setting(nets, f"{h.how}; {h.seeds} seeds", "[LZB] have no experiment on the Hessian norm."))


#: The verdict of a bottleneck Hessian check on a run without the bottleneck sweep.
_NO_BOTTLENECK_SWEEP = dict(status="not checked", measured="No bottleneck Hessian sweep in this run.",
                            caveat="not testable on this data: no network with a narrow layer")


def _bottleneck_hessian_fit(h: HessianNorms, sweep: str) -> tuple[pd.DataFrame, pd.Series, float, bool] | None:
    """The rows of one bottleneck Hessian sweep (``"b"``: against b at fixed m; ``"m"``: against m at the
    narrowest b), their seed means, the log-log slope of those and whether every power iteration converged;
    None without the sweep."""
    if h.bottleneck is None or h.bottleneck.empty:
        return None
    bt = h.bottleneck[h.bottleneck.sweep == sweep]
    g = bt.groupby("bottleneck" if sweep == "b" else "width")["hess_norm"].mean()
    return bt, g, fit_slope(g.index, g.to_numpy()), bool(bt.converged.all())


def check_bottleneck_hessian(h: HessianNorms) -> Check:
    """[LZB] Thm 3.3: the Hessian norm is controlled by the smallest hidden width, O~(1/sqrt(b)).

    Measurement: the Hessian norm of [m, b, m] nets at fixed m against the bottleneck width b. Rule
    (:func:`~lib.chapters.non_constancy.rules.hessian_slope_status`): the bound read as a bound, the chapter's one
    rule for "decays at least as fast as b^(-1/2)" on the log-log slope against b ("reproduced" at -0.3 or
    steeper, "not reproduced" above -0.15: a norm that does not depend on the narrowest layer is not controlled by
    it, "reproduced with caveat" between); "inconclusive" when a power iteration did not converge; "not checked"
    without the sweep.

    Args:
        h: :func:`~lib.chapters.non_constancy.hessian_norms.measure_hessian_norms` output.

    Returns:
        The check.
    """
    fit = _bottleneck_hessian_fit(h, "b")
    if fit is None:
        return Check("[LZB] Thm 3.3", **_NO_BOTTLENECK_SWEEP)
    bt, g, s, conv = fit
    status = hessian_slope_status(s, conv)
    row = hessian_row("Hessian norm against the bottleneck width b", "bottleneck_hessian", s,
                      f"b = {g.index[0]} to {g.index[-1]}", status)
    return Check(
        "[LZB] Thm 3.3", status=status, rows=(row,),
        caveat={"reproduced with caveat": "the norm falls more slowly than b^(-1/2)",
                "inconclusive": UNCONVERGED}.get(status, ""),
        measured=f"At m={int(bt.width.iloc[0])} the Hessian norm is "
        + ", ".join(f"{v:.3g} (b={b})" for b, v in g.items())
        + f": log-log slope {s:.2f} against b (the bound: -0.5 or steeper); power iteration converged: {'yes' if conv else 'no'}.")


def check_bottleneck_hessian_width(h: HessianNorms) -> Check:
    """[LZB] Thm 4.1: with a narrow bottleneck the Hessian norm stays bounded below however wide the other layers.

    Measurement: the Hessian norm of [m, b, m] nets at the narrowest b against m, next to the
    one-hidden-layer linear-output nets of the same widths. Rule: "reproduced" if its log-log slope
    against m is within 0.15 of zero (flat, :func:`~lib.chapters.non_constancy.rules.flat_status`); "not
    reproduced" if it falls with slope -0.3 or steeper (vanishing like a wide net's); "reproduced with caveat"
    in between; "inconclusive" when a power iteration did not converge (an underestimate, not a measurement).
    The chapter's [m, b, m] tanh net is more general than the theorem's network (quadratic wide layers,
    identity bottleneck); [LZB] Sec. 4 argues the same for general bottlenecks. This is the part "tanh [m, b, m]
    net" of the claim, measured at w_0; the theorem's own network, in the ball, is
    :func:`~lib.chapters.non_constancy.quadratic_bottleneck.check_quadratic_bottleneck`.

    Args:
        h: :func:`~lib.chapters.non_constancy.hessian_norms.measure_hessian_norms` output.

    Returns:
        The check.
    """
    fit = _bottleneck_hessian_fit(h, "m")
    if fit is None:
        return Check("[LZB] Thm 4.1", part="tanh [m, b, m] net", **_NO_BOTTLENECK_SWEEP)
    bt, g, s, conv = fit
    status = flat_status(s) if conv else "inconclusive"
    lin = h.frame[h.frame.arch == "linear"].groupby("width")["hess_norm"].mean()
    return Check(
        "[LZB] Thm 4.1", status=status, part="tanh [m, b, m] net",
        caveat={"reproduced with caveat": "the norm drifts with the width",
                "inconclusive": UNCONVERGED}.get(status, ""),
        measured=f"At b={int(bt.bottleneck.iloc[0])} the Hessian norm of the [m, b, m] net is "
        + ", ".join(f"{v:.3g} (m={w})" for w, v in g.items()) + f": log-log slope {s:.2f} against m, while the "
        f"one-hidden-layer linear-output net falls to {lin.iloc[-1]:.3g} at m={lin.index[-1]}; power iteration "
        f"converged: {'yes' if conv else 'no'}.")
