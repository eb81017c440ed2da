"""[LZB] Lemma 3.1's three quantities in a ball around the initialization, and their checks: the backward vectors'
infinity norms (Q_inf), the spectral norms of each layer's first derivatives (Q_L) and the (2,2,1)-norms of its
second-derivative tensors (Q_221).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from lib.book.results import Check
from lib.book.wording import ints
from lib.book.sweep import torch_threads
from lib.data import synthetic_regression
from lib.chapters.non_constancy.ball import W0_ONLY, ball_models, ball_reduce, ball_words, trained_copy
from lib.chapters.non_constancy.rules import FLAT, VANISHING, bounded_status, decay_status
from lib.finite.hessian_bounds import layer_norms
from lib.finite.mlp import MLP
from lib.finite.ntk import layer_factors
from lib.spectra import fit_slope

__all__ = ["BackwardNorms", "measure_backward_norms", "measure_backward", "LEMMA31_PARTS", "check_backward",
           "check_lemma31_bounded", "glue_backward"]

#: The parts of [LZB] Lemma 3.1 the checks record: (part label, frame column, what it bounds).
LEMMA31_PARTS = {"Q_inf": ("backward vectors", "inf_norm", "the backward vectors' infinity norm"),
                 "Q_L": ("first derivatives", "q_l", "the spectral norms of dalpha/dW and dalpha/dalpha"),
                 "Q_221": ("(2,2,1)-norms", "q_221", "the (2,2,1)-norms of the second-derivative tensors")}


@dataclass(frozen=True, eq=False)
class BackwardNorms:
    """The infinity norms of the backward vectors at initialization and the settings they were measured with.

    Attributes:
        frame: columns width, seed, layer, inf_norm (:func:`measure_backward_norms`).
        widths: the widths asked for (those above ``max_width`` were skipped).
        seeds: weight draws per width.
        depth: hidden layers.
        activation: hidden activation.
        bottleneck: the width of the middle layer, or None.
        max_width: the largest width run.
        n_inputs: the inputs over which each norm is maximized.
        ball_radius: R of the ball searched (0 when only w_0 was measured).
        q_max_width: the largest width at which ``q_l`` and ``q_221`` were computed (NaN above it).
    """

    frame: pd.DataFrame
    widths: tuple
    seeds: int
    depth: int = 3
    activation: str = "tanh"
    bottleneck: int | None = None
    max_width: int = 2048
    n_inputs: int = 0
    ball_radius: float = 0.0
    q_max_width: int = 0


def measure_backward(cfg, bottleneck: int | None = None, max_width: int = 2048) -> BackwardNorms:
    """The backward vectors of depth-3 linear-output nets over the chapter's widths ([LZB] Lemma 3.1), at the
    first ``cfg.n_hessian`` inputs of :func:`lib.data.synthetic_regression` (seed 0): at w_0 for every width, and
    at the points of the ball B(w_0, ``cfg.ball_radius``) (:func:`~lib.chapters.non_constancy.ball.ball_models`:
    ``cfg.ball_points`` random points and the end point of GD on the chapter's data) for the widths of
    ``cfg.ball_widths`` and the first ``cfg.ball_seeds`` seeds.

    Args:
        cfg: the chapter's validated parameters (:data:`lib.chapters.non_constancy.spec.SPEC`): ``n_samples``,
            ``d``, ``k``, ``n_hessian``, ``widths``, ``seeds``, ``activation``, ``ball_radius``, ``ball_points``,
            ``ball_widths``, ``ball_seeds``, ``max_steps``, ``rel_tol``, ``lr_scale``, ``lemma31_max_width``.
        bottleneck: width of the middle layer (the counterfactual of the tests), or None.
        max_width: widths above it are skipped (see :func:`measure_backward_norms`).

    Returns:
        :class:`BackwardNorms`.
    """
    data = synthetic_regression(cfg.n_samples, cfg.d, cfg.k, seed=0)
    ball = dict(data=data, radius=cfg.ball_radius, points=cfg.ball_points, ball_widths=tuple(cfg.ball_widths),
                ball_seeds=cfg.ball_seeds, max_steps=cfg.max_steps, rel_tol=cfg.rel_tol, lr_scale=cfg.lr_scale)
    with torch_threads(1):
        frame = measure_backward_norms(data["X"][:cfg.n_hessian], cfg.widths, cfg.seeds, activation=cfg.activation,
                                       bottleneck=bottleneck, max_width=max_width, ball=ball,
                                       q_max_width=cfg.lemma31_max_width)
    return BackwardNorms(frame, tuple(cfg.widths), int(cfg.seeds), 3, cfg.activation, bottleneck, max_width,
                         int(cfg.n_hessian), float(cfg.ball_radius), int(cfg.lemma31_max_width))


def measure_backward_norms(X, widths, seeds: int, depth: int = 3, activation: str = "tanh",
                           bottleneck: int | None = None, max_width: int = 2048, ball: dict | None = None,
                           q_max_width: int = 0) -> pd.DataFrame:
    """[LZB] Lemma 3.1's quantities of a linear-output net, at w_0 and in the ball.

    The backward vector of hidden layer l is d f / d h^(l) (:func:`lib.finite.ntk.layer_factors`); its
    largest entry over the units and the rows of X is recorded per layer. Up to ``q_max_width``, the layer's first
    derivatives and second-derivative tensors too, at the first row of X (the lemma is stated for one fixed input;
    :func:`lib.finite.hessian_bounds.layer_norms`, exact): the larger of ``||dalpha/dW||`` and
    ``||dalpha/dalpha^(l-1)||`` (``q_l``) and the largest of the three (2,2,1)-norms (``q_221``). With ``bottleneck`` the middle hidden layer of a depth-3 net has
    width b instead of m (the counterfactual of the tests: that layer's backward vector does not shrink with m).

    Args:
        X: inputs.
        widths: hidden widths m.
        seeds: weight draws.
        depth: number of hidden layers.
        activation: hidden activation.
        bottleneck: width of the middle layer (depth 3 only), or None.
        max_width: widths above it are skipped (a hidden m x m layer holds m^2 weights: 0.5 GB at m = 8192).
        ball: None (w_0 only), or the points of the ball to add
            (:func:`~lib.chapters.non_constancy.ball.ball_models`) as a dict: ``data`` (GD's training data),
            ``radius``, ``points``, ``ball_widths``, ``ball_seeds``, ``max_steps``, ``rel_tol``, ``lr_scale``.

        q_max_width: the largest width at which ``q_l`` and ``q_221`` are computed (NaN above it).

    Returns:
        Columns width, seed, layer, inf_norm, q_l, q_221, point (``"init"``, ``"random j"``, ``"trained"``),
        distance (from w_0).
    """
    rows = []
    for m in [w for w in widths if w <= max_width]:
        for s in range(seeds):
            if bottleneck is None:
                net = MLP(X.shape[1], int(m), depth, activation=activation, seed=s)
            else:
                net = MLP(X.shape[1], [int(m), int(bottleneck), int(m)], activation=activation, seed=s)
            pts = [("init", 0.0, net)]
            if ball is not None and m in ball["ball_widths"] and s < ball["ball_seeds"]:
                trained = trained_copy(net, "linear", ball["data"], ball["max_steps"], ball["rel_tol"],
                                       ball["lr_scale"])
                pts = ball_models(net, ball["radius"], ball["points"], s, trained)
            for label, dist, point in pts:
                _, D = layer_factors(point, X)
                q = layer_norms(point, X[0]) if m <= q_max_width else None
                for l, d in enumerate(D[0]):
                    ql = max(q.jac_w[l], np.nan_to_num(q.jac_a[l])) if q else np.nan
                    q221 = float(np.nanmax([q.t_ww[l], q.t_aw[l], q.t_aa[l]])) if q else np.nan
                    rows.append(dict(width=int(m), seed=s, layer=l + 1, inf_norm=float(d.abs().max()), q_l=ql,
                                     q_221=q221, point=label, distance=dist))
    return pd.DataFrame(rows)


def _widths_run(widths: list) -> str:
    """The widths a sweep measured, in words: ``"32, 128"``, or ``"none"``."""
    return ints(widths, ranges=False) or "none"


def _layer_slopes(backward: BackwardNorms, col: str) -> tuple[dict, bool, list, pd.DataFrame]:
    """Per layer, the log-log slope of the seed mean of the sup over the ball searched of ``col``; whether the ball
    was searched; the widths fitted; the rows with ``col`` measured."""
    bw = backward.frame
    bw = bw[bw[col].notna()] if col in bw else bw.iloc[0:0]
    sup, searched = (ball_reduce(bw, backward.ball_radius, ("layer", "width", "seed"), col) if len(bw)
                     else (bw, False))
    widths = sorted(sup.width.unique()) if len(sup) else []
    if len(widths) < 2:
        return {}, searched, widths, bw
    g = sup.groupby(["layer", "width"])[col].mean()
    return ({int(l): fit_slope(sub.index.get_level_values("width"), sub.to_numpy()) for l, sub in g.groupby(level=0)},
            searched, widths, bw)


def check_backward(backward: BackwardNorms) -> Check:
    """[LZB] Lemma 3.1, its backward vectors: with a linear output layer the backward vectors have infinity norm
    O~(1/sqrt(m)) at every point of a ball of fixed radius R around the initialization.

    The paper: "Consider a fully connected neural network with linear output layer and Gaussian random
    initialization w_0. Given any fixed R > 0, at any point w in B(w_0, R), with high probability over the
    initialization, the quantity Q_L(f) = O(1), Q_{2,2,1}(f) = O(1), Q_inf(f) = O~(1/sqrt(m))" (Eq 23, with App. F's
    three layer-wise properties). This part is Q_inf; Q_L and Q_221 are :func:`check_lemma31_bounded`.

    Measurement: for every hidden layer, the largest entry of d f / d h^(l) over the inputs, its sup over the
    points of the ball searched (:func:`~lib.chapters.non_constancy.ball.ball_reduce`: w_0, random points at
    distance R and the GD end point when it lies in the ball), seed mean per width (:func:`measure_backward`).
    Rule: the bound read as a bound, the chapter's one rule for "decays at least as fast as m^(-1/2)"
    (:func:`~lib.chapters.non_constancy.rules.decay_status`) on the log-log slope of every layer; the least
    favourable layer decides: "not reproduced" if one layer's norm does not decay (slope above -0.15, as a
    bottleneck layer's), "reproduced" if every slope is -0.3 or steeper (the predicted -1/2, flattened by about
    0.1 by the sqrt(log m) of the O~, the largest of m Gaussian entries, within the slope noise), "reproduced
    with caveat" otherwise; "inconclusive" with fewer than two widths. Data without the ball (w_0 only) cap a
    "reproduced" at "reproduced with caveat" (:data:`~lib.chapters.non_constancy.ball.W0_ONLY`): the statement
    is about the ball.

    Args:
        backward: :func:`measure_backward` output.

    Returns:
        The check (part "backward vectors").
    """
    part = LEMMA31_PARTS["Q_inf"][0]
    bw = backward.frame
    slopes, searched, widths, _ = _layer_slopes(backward, "inf_norm")
    if not slopes:
        return Check("[LZB] Lemma 3.1", status="inconclusive", part=part, measured=f"Widths run: {_widths_run(widths)}.",
                     caveat="fewer than two widths within the memory cap of the sweep: no slope to fit")
    statuses = {decay_status(v) for v in slopes.values()}
    status = next(s for s in ("not reproduced", "reproduced with caveat", "reproduced") if s in statuses)
    caveat = "a layer's norm falls more slowly than m^(-1/2)" if status == "reproduced with caveat" else ""
    if status == "reproduced" and not searched:
        status, caveat = "reproduced with caveat", W0_ONLY
    init = ""
    if searched:
        g0 = bw[bw.point == "init"].groupby(["layer", "width"])["inf_norm"].mean()
        init = (f" (at w_0 alone over m = {min(bw.width)}..{max(bw.width)}: " + ", ".join(
            f"{fit_slope(sub.index.get_level_values('width'), sub.to_numpy()):.2f}" for _, sub in g0.groupby(level=0))
            + ")")
    return Check(
        "[LZB] Lemma 3.1", status=status, caveat=caveat, part=part,
        measured=f"Largest entry of d f / d h^(l), {ball_words(bw, backward.ball_radius, searched)}, over "
        f"m = {widths[0]}..{widths[-1]}: log-log slopes "
        + ", ".join(f"{v:.2f} (layer {l})" for l, v in slopes.items()) + init + " (the bound: -0.5 or steeper, up to "
        "a log factor).")


def check_lemma31_bounded(backward: BackwardNorms, quantity: str) -> Check:
    """[LZB] Lemma 3.1, its O(1) quantities: ``quantity="Q_L"``, the spectral norms of each layer's first
    derivatives ``||dalpha^(l)/dW^(l)||`` and ``||dalpha^(l)/dalpha^(l-1)||``; ``"Q_221"``, the (2,2,1)-norms of its
    second-derivative tensors; both O(1) in m at every point of the ball (the paper's Eq 23, App. F's second and third
    properties; see :func:`check_backward`).

    Measurement: per hidden layer, the quantity at the first input (exact, :func:`lib.finite.hessian_bounds.layer_norms`), its sup over the points of the ball searched, seed mean per width,
    at the widths up to ``backward.q_max_width``. Rule on the log-log slope of every layer, the least favourable
    deciding (:func:`~lib.chapters.non_constancy.rules.bounded_status`): "reproduced" below
    :data:`~lib.chapters.non_constancy.rules.FLAT` (it does not grow; a decay agrees with a bound), "not reproduced"
    at 0.3 or more (a power of m), "reproduced with caveat" between; "inconclusive" with fewer than two widths; data
    at w_0 only cap a "reproduced" at "reproduced with caveat" (:data:`~lib.chapters.non_constancy.ball.W0_ONLY`).

    Args:
        backward: :func:`measure_backward` output.
        quantity: ``"Q_L"`` or ``"Q_221"``.

    Returns:
        The check (part "first derivatives" or "(2,2,1)-norms").
    """
    part, col, what = LEMMA31_PARTS[quantity]
    slopes, searched, widths, bw = _layer_slopes(backward, col)
    if not slopes:
        return Check("[LZB] Lemma 3.1", status="inconclusive", part=part,
                     measured=f"{what[0].upper() + what[1:]} computed at widths: {_widths_run(widths)} (up to m = "
                              f"{backward.q_max_width}).",
                     caveat=f"fewer than two widths at or below m = {backward.q_max_width}: no slope to fit")
    statuses = {bounded_status(v) for v in slopes.values()}
    status = next(s for s in ("not reproduced", "reproduced with caveat", "reproduced") if s in statuses)
    caveat = "a layer's quantity drifts upwards with m" if status == "reproduced with caveat" else ""
    if status == "reproduced" and not searched:
        status, caveat = "reproduced with caveat", W0_ONLY
    rng = bw.groupby("layer")[col].agg(["min", "max"])
    return Check(
        "[LZB] Lemma 3.1", status=status, caveat=caveat, part=part,
        measured=f"{what[0].upper() + what[1:]} at the first input, "
        f"{ball_words(bw, backward.ball_radius, searched)}, over m = {widths[0]}..{widths[-1]}: log-log slopes "
        + ", ".join(f"{v:.2f} (layer {l}; values {rng.loc[l, 'min']:.3g} to {rng.loc[l, 'max']:.3g})"
                    for l, v in slopes.items())
        + f" (O(1): below {FLAT:g}; growing like a power of m from {-VANISHING:g}).")


def glue_backward(backward: BackwardNorms) -> dict[str, str]:
    """The value the prose of [LZB] Lemma 3.1 shows: the largest width at which its backward norms were computed."""
    return {"lemma31_max_width": f"{backward.q_max_width:,}"}
