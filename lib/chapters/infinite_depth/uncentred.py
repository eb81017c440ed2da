"""[AAK] Thm 3.10 with rho* < 1: uncentred ReLU variants whose layer correlations converge exponentially to rho*.

Plain ReLU has rho* = 1, where the approach is not exponential (checked by
:func:`lib.chapters.infinite_depth.aak_depth.check_relu_uncentred`). Here two uncentred ReLU variants with unit
second moment and s_hat'(1) > 1, so that rho* < 1 ([AAK] Lemma C.26): ReLU with its kink moved to -1/2,
max(z, -1/2), and NormReLU moved off centre by 0.1 (:data:`~lib.chapters.infinite_depth.uncentred.UNCENTRED_CASES`). ``measure_uncentred`` iterates the
infinite-width correlation map rho -> c E[s(u) s(v)] from several starting correlations, ``plot_uncentred``
draws ``|rho_L - rho*|`` (figure "fig-aak-uncentred") and ``check_uncentred_rate`` compares the fitted per-layer
slope with log s_hat'(rho*), the derivative of the map at its fixed point.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from lib import theory
from lib.activations import offset_activation, shifted_relu
from lib.book.plotting import figure, palette
from lib.book.results import Check
from lib.chapters.infinite_depth.numerics import LEGEND_PT, ChapterFigure, not_checked

__all__ = ["UNCENTRED_CASES", "UNCENTRED_STARTS", "Uncentred", "measure_uncentred", "plot_uncentred",
           "figure_uncentred", "UNCENTRED_FIT_MAX", "UNCENTRED_FLOOR", "UNCENTRED_RTOL", "UNCENTRED_NO_DECAY",
           "check_uncentred_rate"]

#: The uncentred activations of the check (label, activation factory): ReLU with its kink at -1/2 and NormReLU
#: moved off centre by 0.1, both scaled to unit second moment; both have s_hat'(1) > 1, hence rho* < 1.
UNCENTRED_CASES = (("max(z, -1/2)", lambda: shifted_relu(-0.5)),
                   ("NormReLU + 0.1", lambda: offset_activation("normrelu", 0.1)))

#: Starting correlations rho_0 of the iteration (both signs, near 0 and near 1).
UNCENTRED_STARTS = (-0.9, 0.0, 0.9)

#: The fit of log|rho_L - rho*| against L uses the layers where the gap is below this (the linear regime of the map
#: near rho*: the local slope differs from log s_hat'(rho*) by O(gap), a few percent at 1e-2).
UNCENTRED_FIT_MAX = 1e-2

#: ... and above this (gaps at the rounding level of the quadrature and of rho*, 1e-15, are left out).
UNCENTRED_FLOOR = 1e-11


@dataclass(frozen=True, eq=False)
class Uncentred:
    """[AAK] Thm 3.10 data: layer correlations of uncentred activations, with the settings they were measured with.

    Attributes:
        frame: one row per (activation, start, depth): activation, rho0, depth, rho, gap (``|rho - rho*|``).
        facts: one row per activation: activation, mean (E[s]), rho_star, chi_star (s_hat'(rho*)), chi_1
            (s_hat'(1)), predicted (log chi_star), fitted (slope of log gap against depth), fit_range, points.
        activations: the activation labels.
        starts: the starting correlations.
        depth: the deepest layer.
    """

    frame: pd.DataFrame
    facts: pd.DataFrame
    activations: list
    starts: list
    depth: int


def _fit(sub: pd.DataFrame) -> tuple[float, str, int]:
    """Slope of log gap against depth over the pooled starts, in the window FLOOR < gap < FIT_MAX."""
    w = sub[(sub.gap > UNCENTRED_FLOOR) & (sub.gap < UNCENTRED_FIT_MAX) & (sub.depth > 0)]
    if len(w) < 3 or w.depth.nunique() < 2:
        return float("nan"), "", int(len(w))
    # one slope shared by the starts, one intercept each: regress on depth and start indicators
    starts = sorted(w.rho0.unique())
    A = np.column_stack([w.depth.to_numpy(float)] + [(w.rho0 == s).to_numpy(float) for s in starts])
    coef = np.linalg.lstsq(A, np.log(w.gap.to_numpy()), rcond=None)[0]
    return float(coef[0]), f"{int(w.depth.min())}-{int(w.depth.max())}", int(len(w))


def measure_uncentred(cfg) -> Uncentred:
    """Iterate rho -> c E[s(u) s(v)] (unit variances) from each start for every activation of :data:`~lib.chapters.infinite_depth.uncentred.UNCENTRED_CASES`.

    rho*, s_hat'(rho*) and s_hat'(1) come from :func:`lib.theory.correlation_fixed_point` (Brent's method on the
    same map); the layers are :func:`lib.theory.dual_expectations`, one call per layer for all starts.

    Args:
        cfg: the chapter's parameters (:data:`lib.chapters.infinite_depth.spec.SPEC`); read: ``uncentred_depth``.

    Returns:
        An :class:`lib.chapters.infinite_depth.uncentred.Uncentred`.
    """
    L = int(cfg.uncentred_depth)
    rows, facts = [], []
    for label, make in UNCENTRED_CASES:
        act = make()
        fp = theory.correlation_fixed_point(act)
        r = np.array(UNCENTRED_STARTS, float)
        for l in range(L + 1):
            rows.extend(dict(activation=label, rho0=s, depth=l, rho=float(v), gap=abs(float(v) - fp.rho))
                        for s, v in zip(UNCENTRED_STARTS, r))
            if l < L:
                r = act.c * theory.dual_expectations(act, np.arccos(np.clip(r, -1.0, 1.0)))[0]
        sub = pd.DataFrame(rows[-len(UNCENTRED_STARTS) * (L + 1):])
        slope, rng, pts = _fit(sub)
        facts.append(dict(activation=label, mean=theory.gaussian_moments(act).mean * act.c ** 0.5, rho_star=fp.rho,
                          chi_star=fp.chi_star, chi_1=fp.chi_1,
                          predicted=float(np.log(fp.chi_star)) if fp.chi_star > 0 else float("-inf"),
                          fitted=slope, fit_range=rng, points=pts))
    return Uncentred(pd.DataFrame(rows), pd.DataFrame(facts), [c[0] for c in UNCENTRED_CASES],
                     list(UNCENTRED_STARTS), L)


def plot_uncentred(st: Uncentred) -> Figure:
    """[AAK] Thm 3.10: ``|rho_L - rho*|`` against L (solid, one line per start), with the slope log s_hat'(rho*)
    (dotted).

    Args:
        st: the data of :func:`lib.chapters.infinite_depth.uncentred.measure_uncentred`.

    Returns:
        A figure with one axis and one legend below.
    """
    fig, axs = figure()
    ax = axs[0, 0]
    styles = ("-", "--", "-.", ":")
    for c, a in zip(palette(len(st.activations)), st.activations):
        f = st.facts[st.facts.activation == a].iloc[0]
        for k, s in enumerate(st.starts):
            sub = st.frame[(st.frame.activation == a) & (st.frame.rho0 == s)]
            ax.semilogy(sub.depth, sub.gap.clip(lower=1e-16), styles[k % 4], color=c, lw=1.2,
                        label=fr"{a}, $\rho_0$ = {s:g}" + (fr" ($\rho^*$ = {f.rho_star:.3f})" if k == 0 else ""))
        sub = st.frame[(st.frame.activation == a) & (st.frame.rho0 == st.starts[-1])]
        ok = sub[(sub.gap < UNCENTRED_FIT_MAX) & (sub.gap > UNCENTRED_FLOOR)]
        if len(ok):
            L0, g0 = int(ok.depth.iloc[0]), float(ok.gap.iloc[0])
            xs = np.arange(L0, int(sub.depth.max()) + 1)
            ax.semilogy(xs, 3 * g0 * np.exp(f.predicted * (xs - L0)), ":", lw=2.5, color=c)
    ax.axhline(UNCENTRED_FIT_MAX, color="0.6", lw=0.8)
    ax.set(xlabel="depth L", ylabel=r"$|\rho_L - \rho^*|$", ylim=(1e-16, 2),
           title=r"[AAK] Thm 3.10: uncentred activations, $\rho_L \to \rho^* < 1$")
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2, fontsize=LEGEND_PT)
    return fig


#: The figure of [AAK] Thm 3.10 with rho* < 1 (its data -- one row per activation, start and depth).
figure_uncentred = ChapterFigure(
    "fig-aak-uncentred", drawn_by=plot_uncentred, data_from=measure_uncentred,
    data=lambda st: st.frame.merge(st.facts[["activation", "rho_star", "chi_star"]], on="activation"),
    caption="Distance of the layer correlation $\\rho_L$ to the fixed point $\\rho^*$ of the dual of two uncentred "
    "activations, from three starting correlations (solid, dashed, dash-dotted), at infinite width; dotted: the slope "
    "$\\log\\hat\\sigma'(\\rho^*)$ (shifted up); grey: the gap below which the rate is fitted.",
    setting="Setting: activations {activations} (unit second moment, non-zero mean); starting correlations {starts}; "
    "depths 0 to {depth}; exact quadrature of the infinite-width map, no data and no seeds; {profile}. [AAK] has no "
    "experiment for Thm 3.10.")


#: Largest ``|fitted / predicted - 1|`` of the per-layer slope that counts as the rate log s_hat'(rho*): the fit
#: window's gaps below 1e-2 shift the local slope by O(gap), a few percent; 10% is the margin.
UNCENTRED_RTOL = 0.1

#: Below this fitted / predicted ratio the gap does not decay exponentially (plain ReLU's gap to rho* = 1 shrinks
#: like 1/L^2, a per-layer slope that tends to 0): "not reproduced".
UNCENTRED_NO_DECAY = 0.1


def check_uncentred_rate(st: Uncentred) -> Check:
    """[AAK] Thm 3.10: for a non-affine uncentred activation with s_hat'(1) > 1, top-layer correlations converge to
    the fixed point rho* < 1 of the dual, exponentially fast.

    Measurement: rho* (the smallest fixed point of the computed dual in [0, 1]), s_hat'(1), and the per-layer slope
    of log ``|rho_L - rho*|`` fitted over the layers where the gap lies between
    :data:`~lib.chapters.infinite_depth.uncentred.UNCENTRED_FLOOR` (1e-11) and
    :data:`~lib.chapters.infinite_depth.uncentred.UNCENTRED_FIT_MAX` (1e-2), one slope shared by the starting
    correlations, as the ratio r = fitted / log s_hat'(rho*) (the linearization of the map at its fixed point;
    the paper states an exponential rate without this constant). Rule, over the activations with s_hat'(1) > 1:

    * "not reproduced" if some rho* is 1 or more, or some r < :data:`~lib.chapters.infinite_depth.uncentred.UNCENTRED_NO_DECAY`
      (0.1: no exponential approach);
    * "inconclusive" if some fit has fewer than 3 points (the gap not yet below 1e-2: deeper needed);
    * "reproduced" if every ``|r - 1|`` <= :data:`~lib.chapters.infinite_depth.uncentred.UNCENTRED_RTOL` (0.1);
      otherwise "reproduced with caveat" (exponential, at another rate than s_hat'(rho*)).

    "not checked" if no activation has s_hat'(1) > 1 (the premise of rho* < 1).

    Args:
        st: the data of :func:`lib.chapters.infinite_depth.uncentred.measure_uncentred`.

    Returns:
        The verdict (part "rho* below 1, exponential rate").
    """
    cid, part = "[AAK] Thm 3.10", "rho* below 1, exponential rate"
    f = st.facts[st.facts.chi_1 > 1.0]
    if f.empty:
        return not_checked(cid, "No activation of the run has s_hat'(1) > 1.", "no uncentred activation with rho* < 1",
                           part=part)
    r = f.fitted / f.predicted
    caveat = ""
    if (f.rho_star >= 1.0).any() or (r < UNCENTRED_NO_DECAY).any():
        status = "not reproduced"
    elif r.isna().any():
        status = "inconclusive"
        caveat = f"the gap to rho* is not yet below {UNCENTRED_FIT_MAX:g} for 3 layers at depth {st.depth}: deeper needed"
    elif ((r - 1).abs() <= UNCENTRED_RTOL).all():
        status = "reproduced"
    else:
        status = "reproduced with caveat"
        caveat = "the correlations converge exponentially, but not at the rate log s_hat'(rho*) of the linearized map"
    rows = tuple(dict(statement=f"{x.activation}: rho_L -> rho* < 1 exponentially", paper="exponential, rho* in (0, 1)",
                      **{"this book": f"rho* = {x.rho_star:.4f}, slope {x.fitted:.4g} vs log s_hat'(rho*) = "
                         f"{x.predicted:.4g}"},
                      rule=f"rho* < 1 and |fitted / predicted - 1| <= {UNCENTRED_RTOL:g}",
                      holds=bool(x.rho_star < 1 and abs(q - 1) <= UNCENTRED_RTOL))
                 for x, q in zip(f.itertuples(), r))
    return Check(
        cid, status=status, part=part, caveat=caveat, rows=rows,
        measured="; ".join(f"{x.activation} (E[s] = {x.mean:.3f}, s_hat'(1) = {x.chi_1:.4f}): rho* = {x.rho_star:.6f}, "
                           f"fitted slope of log|rho_L - rho*| {x.fitted:.4g} per layer (layers {x.fit_range}) vs "
                           f"log s_hat'(rho*) = {x.predicted:.4g}, ratio {q:.3f}"
                           for x, q in zip(f.itertuples(), r))
        + f"; from starting correlations {', '.join(f'{s:g}' for s in st.starts)}.")
