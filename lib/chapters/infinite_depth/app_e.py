"""[LH] App. E: one random ReLU layer (Lemmas E.1-E.3, the figure "fig-one-layer") and the small-angle expansion of
the embedding angles (Lemma E.6).

The infinite-width values of the one-layer lemmas are the arc-cosine kernels of :func:`lib.theory.relu.arccos_kernel`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from lib import theory
from lib.book.plotting import figure, palette, slope_guide
from lib.book.results import Check
from lib.chapters.infinite_depth.numerics import LEGEND_PT, ChapterFigure, fit_rate
from lib.data.pairs import angle_pairs
from lib.finite.width_trend import width_trend

__all__ = ["LEMMAS_E", "OneLayer", "measure_one_layer", "plot_one_layer", "figure_one_layer", "check_lemma_e",
           "SmallAngle", "measure_small_angle_embedding", "E6_MIN_SLOPE", "E6_FAIL_SLOPE", "check_lemma_e6"]


#: The one-layer lemmas of [LH] App. E checked by :func:`lib.chapters.infinite_depth.app_e.check_lemma_e`, with what each
#: measures.
LEMMAS_E = {
    "E.1": "fraction of rows w with w.x >= 0 and w.z >= 0, against 1/2 - theta/(2 pi)",
    "E.2": "(2/m) <relu(W x), relu(W z)>, against ((pi - theta) cos theta + sin theta)/pi",
    "E.3": "||(2/m) U D_x D_z U^T - ((pi - theta)/pi) I||_2 (D: the ReLU gates of W x, W z; U: s x m)",
}


@dataclass(frozen=True, eq=False)
class OneLayer:
    """Deviations of one random ReLU layer from [LH] Lemmas E.1-E.3, with the settings they were measured with.

    Attributes:
        frame: columns lemma, width, seed, dev (the largest deviation over the angles).
        angles_deg: the input angles (degrees).
        widths: the numbers of rows m.
        seeds: draws per width.
        d: the input dimension.
        s: the rows of U (Lemma E.3).
        mean: the mean of the entries of W and U.
    """

    frame: pd.DataFrame
    angles_deg: list
    widths: list
    seeds: int
    d: int
    s: int
    mean: float


def measure_one_layer(cfg, d: int = 8, s: int = 4, mean: float = 0.0) -> OneLayer:
    """Deviations of one random ReLU layer from [LH] Lemmas E.1-E.3, per width and seed.

    For unit pairs (x, z) at each angle theta (:func:`lib.data.pairs.angle_pairs`) and W in R^(m x d) with
    i.i.d. N(``mean``, 1) entries (the lemmas: ``mean = 0``; a non-zero mean is the counterfactual of the
    tests), the largest deviation over the angles of each measured quantity of
    :data:`lib.chapters.infinite_depth.app_e.LEMMAS_E` from its infinite-width value, the arc-cosine kernels
    J_0 / (2 pi), J_1 / pi and J_0 / pi (:func:`lib.theory.relu.arccos_kernel`).

    Args:
        cfg: the chapter's parameters (:data:`lib.chapters.infinite_depth.spec.SPEC`); read: ``collapse_angles``
            (input angles, degrees), ``lemma_widths`` (numbers of rows m), ``seeds`` (draws per width).
        d: input dimension.
        s: rows of U for Lemma E.3.
        mean: mean of the entries of W and U.

    Returns:
        The :class:`lib.chapters.infinite_depth.app_e.OneLayer`.
    """
    angles_deg, widths, seeds = list(cfg.collapse_angles), [int(m) for m in cfg.lemma_widths], int(cfg.seeds)
    t = np.deg2rad(np.asarray(angles_deg, dtype=float))
    X = angle_pairs(t, d, seed=0)
    x, z = X[0::2], X[1::2]
    p_both = theory.arccos_kernel(0, t) / (2 * math.pi)   # Lemma E.1
    k_relu = theory.arccos_kernel(1, t) / math.pi         # Lemma E.2
    gated = theory.arccos_kernel(0, t) / math.pi          # Lemma E.3
    rows = []
    for m in widths:
        for seed in range(seeds):
            rng = np.random.default_rng(seed)
            W = rng.standard_normal((m, d)) + mean
            U = rng.standard_normal((s, m)) + mean
            hx, hz = x @ W.T, z @ W.T                      # (k, m)
            gx, gz = hx >= 0, hz >= 0
            e1 = np.abs((gx & gz).mean(axis=1) - p_both).max()
            e2 = np.abs(2 / m * (np.maximum(hx, 0) * np.maximum(hz, 0)).sum(axis=1) - k_relu).max()
            e3 = max(float(np.linalg.norm(2 / m * (U * (gx[i] & gz[i])) @ U.T - gated[i] * np.eye(s), 2))
                     for i in range(t.size))
            for lemma, dev in (("E.1", e1), ("E.2", e2), ("E.3", e3)):
                rows.append(dict(lemma=lemma, width=int(m), seed=seed, dev=float(dev)))
    return OneLayer(pd.DataFrame(rows), angles_deg, widths, seeds, int(d), int(s), float(mean))


def plot_one_layer(one: OneLayer) -> Figure:
    """Deviations of one random ReLU layer from [LH] Lemmas E.1-E.3 against the width, log-log.

    Args:
        one: the output of :func:`lib.chapters.infinite_depth.app_e.measure_one_layer`.

    Returns:
        A figure with one axis.
    """
    fig, axs = figure()
    ax = axs[0, 0]
    for c, (lemma, g) in zip(palette(3), one.frame.groupby("lemma")):
        st = g.groupby("width")["dev"].agg(["mean", "min", "max"])
        ax.fill_between(st.index, st["min"], st["max"], color=c, alpha=0.2)
        ax.loglog(st.index, st["mean"], "o-", color=c, label=f"Lemma {lemma}")
    st = one.frame[one.frame.lemma == "E.1"].groupby("width")["dev"].mean()
    slope_guide(ax, st.index, -0.5, st.iloc[0] * 2, label=r"$\propto m^{-1/2}$")
    ax.set(xlabel="width m", ylabel="largest deviation over the angles", title="[LH] App. E: one random layer")
    ax.legend(fontsize=LEGEND_PT)
    return fig


#: The figure of [LH] Lemmas E.1-E.3 (its data are the frame of a ``OneLayer``).
figure_one_layer = ChapterFigure(
    "fig-one-layer", drawn_by=plot_one_layer, data_from=measure_one_layer,
    caption="Largest deviation over the input angles of one random layer from Lemmas E.1-E.3 against the width "
    "(mean, and min to max over draws).",
    setting="Setting: one random layer, unit pairs in d = {d} at angles {angles_deg} deg; widths m = {widths}; "
    "{seeds} seeds; {profile}. The paper states Lemmas E.1-E.3 without an experiment.")


def check_lemma_e(one: OneLayer, lemma: str) -> Check:
    """[LH] Lemma E.1, E.2 or E.3: one random ReLU layer's gate agreement, kernel and gated product at infinite width.

    Measurement: the largest deviation over the input angles of the quantity
    :data:`lib.chapters.infinite_depth.app_e.LEMMAS_E` names from its infinite-width value, for every width and draw
    (:func:`lib.chapters.infinite_depth.app_e.measure_one_layer`). Rule:
    :func:`lib.finite.width_trend.width_trend`, the rule of the finite-width checks of chapter 1: the
    extrapolated infinite-width deviation must be zero (finite-width fluctuations are O(1/sqrt(m))); a
    lasting offset (weights with a non-zero mean, for instance) gives "not reproduced".

    Args:
        one: the output of :func:`lib.chapters.infinite_depth.app_e.measure_one_layer`.
        lemma: ``"E.1"``, ``"E.2"`` or ``"E.3"``.

    Returns:
        The verdict.
    """
    if lemma not in LEMMAS_E:
        raise ValueError(f"lemma must be one of {sorted(LEMMAS_E)}, got {lemma!r}")
    sub = one.frame[one.frame.lemma == lemma]
    t = width_trend(sub, "dev")
    by_width = sub.groupby("width")["dev"].mean()
    return Check(
        f"[LH] Lemma {lemma}", status=t.status,
        caveat={"inconclusive": "one width, or too few draws to estimate the scatter: no width trend to fit",
                "reproduced with caveat": "the deviation shrinks more slowly than 1/sqrt(m), or towards a small "
                "offset"}.get(t.status, ""),
        measured=f"{LEMMAS_E[lemma][0].upper()}{LEMMAS_E[lemma][1:]}: largest deviation (mean over "
        f"{sub.seed.nunique()} draws) " + ", ".join(f"{v:.3g} (m={w})" for w, v in by_width.items())
        + f"; {t.describe()}.")


@dataclass(frozen=True, eq=False)
class SmallAngle:
    """The remainder of the small-angle expansion of the embedding angles ([LH] Lemma E.6), with its settings.

    Attributes:
        frame: columns depth, theta_in, rel_remainder.
        angles: the input angles (radians).
        depths: the layers l.
        coefficient: the coefficient c of the expansion theta_in - c l theta_in^2 / pi.
    """

    frame: pd.DataFrame
    angles: tuple
    depths: tuple
    coefficient: float


def measure_small_angle_embedding(angles=(1e-1, 3e-2, 1e-2, 3e-3, 1e-3), depths=(1, 3, 10),
                                  coefficient: float = 1 / 3) -> SmallAngle:
    """Remainder of the small-angle expansion of the embedding angles ([LH] Lemma E.6).

    ``|theta^(l) - (theta_in - coefficient l theta_in^2 / pi)| / theta_in^2`` with theta^(l) from the exact
    recursion (:func:`lib.theory.relu_embedding_angles`); the lemma's coefficient is 1/3, for which the
    remainder is o(theta_in^2), i.e. the ratio vanishes as theta_in -> 0 (another coefficient is the
    counterfactual of the tests).

    Args:
        angles: input angles (radians, small).
        depths: layers l.
        coefficient: the coefficient c of the expansion theta_in - c l theta_in^2 / pi.

    Returns:
        The :class:`lib.chapters.infinite_depth.app_e.SmallAngle`.
    """
    t = np.asarray(angles, dtype=float)
    E = theory.relu_embedding_angles(t, int(max(depths)))
    frame = pd.concat([pd.DataFrame(dict(depth=int(l), theta_in=t,
                                         rel_remainder=np.abs(E[:, l] - (t - coefficient * l * t ** 2 / math.pi))
                                         / t ** 2)) for l in depths], ignore_index=True)
    return SmallAngle(frame, tuple(float(a) for a in angles), tuple(int(l) for l in depths), float(coefficient))


#: [LH] Lemma E.6; the smallest log-log slope of remainder / theta_in^2 against theta_in for "reproduced" (the next
#: term of the expansion gives 1; half of it leaves room for the pre-asymptotic curvature of the deepest layer).
E6_MIN_SLOPE = 0.5

#: Below this slope the ratio does not vanish (a wrong coefficient, e.g. 1 instead of 1/3, gives slope ~ 0):
#: "not reproduced"; between the two, "reproduced with caveat".
E6_FAIL_SLOPE = 0.2


def check_lemma_e6(sa: SmallAngle) -> Check:
    """[LH] Lemma E.6: theta^(l) = theta_in - l theta_in^2 / (3 pi) + o(theta_in^2) for small theta_in.

    Measurement: the remainder over theta_in^2 (:func:`lib.chapters.infinite_depth.app_e.measure_small_angle_embedding`)
    against theta_in, per layer.
    Rule: o(theta_in^2) means the ratio vanishes as theta_in -> 0; the next term of the expansion makes it
    fall like theta_in (log-log slope 1). "reproduced" if every layer's slope is at least
    :data:`~lib.chapters.infinite_depth.app_e.E6_MIN_SLOPE` (0.5); "not reproduced" if some slope is below :data:`~lib.chapters.infinite_depth.app_e.E6_FAIL_SLOPE` (0.2; the ratio
    tends to a constant: a wrong coefficient, e.g. 1
    instead of 1/3, gives slope ~ 0); "reproduced with caveat" in between.

    Args:
        sa: the output of :func:`lib.chapters.infinite_depth.app_e.measure_small_angle_embedding`.

    Returns:
        The verdict.
    """
    df = sa.frame
    slopes = {int(l): fit_rate(g.theta_in, g.rel_remainder, tail=1.0)[0] for l, g in df.groupby("depth")}
    worst = min(slopes.values())
    status = ("reproduced" if worst >= E6_MIN_SLOPE else "not reproduced" if worst < E6_FAIL_SLOPE
              else "reproduced with caveat")
    small = df[df.theta_in == df.theta_in.min()]
    return Check(
        "[LH] Lemma E.6", status=status,
        caveat="the remainder vanishes more slowly than theta_in^3" if status == "reproduced with caveat" else "",
        measured="|theta^(l) - (theta_in - l theta_in^2/(3 pi))| / theta_in^2 against theta_in from "
        f"{df.theta_in.max():g} to {df.theta_in.min():g} rad: log-log slopes "
        + ", ".join(f"{v:.2f} (l={l})" for l, v in slopes.items())
        + " (o(theta_in^2) needs a positive slope; the next term gives 1); at the smallest angle the ratio is "
        + ", ".join(f"{r.rel_remainder:.2g} (l={int(r.depth)})" for r in small.itertuples()) + ".")
