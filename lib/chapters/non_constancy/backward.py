"""The backward vectors: their infinity norms at initialization and their check ([LZB] Lemma 3.1).
"""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from lib.book.results import Check
from lib.book.sweep import torch_threads
from lib.data import synthetic_regression
from lib.chapters.non_constancy.rules import decay_status
from lib.finite.mlp import MLP
from lib.finite.ntk import layer_factors
from lib.spectra import fit_slope

__all__ = ["BackwardNorms", "measure_backward_norms", "measure_backward", "check_backward"]


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
    """

    frame: pd.DataFrame
    widths: tuple
    seeds: int
    depth: int = 3
    activation: str = "tanh"
    bottleneck: int | None = None
    max_width: int = 2048
    n_inputs: int = 0


def measure_backward(cfg, bottleneck: int | None = None, max_width: int = 2048) -> BackwardNorms:
    """The backward vectors of depth-3 linear-output nets over the chapter's widths ([LZB] Lemma 3.1), at the
    first ``cfg.n_hessian`` inputs of :func:`lib.data.synthetic_regression` (seed 0).

    Args:
        cfg: the chapter's validated parameters (:data:`lib.chapters.non_constancy.spec.SPEC`): ``n_samples``,
            ``d``, ``k``, ``n_hessian``, ``widths``, ``seeds``, ``activation``.
        bottleneck: width of the middle layer (the counterfactual of the tests), or None.
        max_width: widths above it are skipped (see :func:`measure_backward_norms`).

    Returns:
        :class:`BackwardNorms`.
    """
    X = synthetic_regression(cfg.n_samples, cfg.d, cfg.k, seed=0)["X"][:cfg.n_hessian]
    with torch_threads(1):
        frame = measure_backward_norms(X, cfg.widths, cfg.seeds, activation=cfg.activation, bottleneck=bottleneck,
                                       max_width=max_width)
    return BackwardNorms(frame, tuple(cfg.widths), int(cfg.seeds), 3, cfg.activation, bottleneck, max_width,
                         int(cfg.n_hessian))


def measure_backward_norms(X, widths, seeds: int, depth: int = 3, activation: str = "tanh",
                           bottleneck: int | None = None, max_width: int = 2048) -> pd.DataFrame:
    """Infinity norms of the backward vectors of a linear-output net at initialization ([LZB] Lemma 3.1).

    The backward vector of hidden layer l is d f / d h^(l) (:func:`lib.finite.ntk.layer_factors`); its
    largest entry over the units and the rows of X is recorded per layer. With ``bottleneck`` the middle
    hidden layer of a depth-3 net has width b instead of m (the counterfactual of the tests: that layer's
    backward vector does not shrink with m).

    Args:
        X: inputs.
        widths: hidden widths m.
        seeds: weight draws.
        depth: number of hidden layers.
        activation: hidden activation.
        bottleneck: width of the middle layer (depth 3 only), or None.
        max_width: widths above it are skipped (a hidden m x m layer holds m^2 weights: 0.5 GB at m = 8192).

    Returns:
        Columns width, seed, layer, inf_norm.
    """
    rows = []
    for m in [w for w in widths if w <= max_width]:
        for s in range(seeds):
            if bottleneck is None:
                net = MLP(X.shape[1], int(m), depth, activation=activation, seed=s)
            else:
                net = MLP(X.shape[1], [int(m), int(bottleneck), int(m)], activation=activation, seed=s)
            _, D = layer_factors(net, X)
            rows += [dict(width=int(m), seed=s, layer=l + 1, inf_norm=float(d.abs().max())) for l, d in enumerate(D[0])]
    return pd.DataFrame(rows)


def check_backward(backward: BackwardNorms) -> Check:
    """[LZB] Lemma 3.1: with a linear output layer the backward vectors have infinity norm O~(1/sqrt(m)).

    Measurement: for every hidden layer, the seed mean of the largest entry of d f / d h^(l) at
    initialization, against the width (:func:`measure_backward`). Rule: the bound read as a bound, the
    chapter's one rule for "decays at least as fast as m^(-1/2)"
    (:func:`~lib.chapters.non_constancy.rules.decay_status`) on the log-log slope of every layer; the least
    favourable layer decides: "not reproduced" if one layer's norm does not decay (slope above -0.15, as a
    bottleneck layer's), "reproduced" if every slope is -0.3 or steeper (the predicted -1/2, flattened by about
    0.1 by the sqrt(log m) of the O~, the largest of m Gaussian entries, within the slope noise), "reproduced
    with caveat" otherwise; "inconclusive" with fewer than two widths.

    Args:
        backward: :func:`measure_backward` output.

    Returns:
        The check.
    """
    bw = backward.frame
    if bw.empty or bw.width.nunique() < 2:
        return Check("[LZB] Lemma 3.1", status="inconclusive",
                     measured=f"Widths run: {sorted(bw.width.unique()) if len(bw) else []}.",
                     caveat="fewer than two widths within the memory cap of the sweep: no slope to fit")
    g = bw.groupby(["layer", "width"])["inf_norm"].mean()
    slopes = {int(l): fit_slope(sub.index.get_level_values("width"), sub.to_numpy()) for l, sub in g.groupby(level=0)}
    statuses = {decay_status(v) for v in slopes.values()}
    status = next(s for s in ("not reproduced", "reproduced with caveat", "reproduced") if s in statuses)
    widths = sorted(bw.width.unique())
    return Check(
        "[LZB] Lemma 3.1", status=status,
        caveat="a layer's norm falls more slowly than m^(-1/2)" if status == "reproduced with caveat" else "",
        measured=f"Largest entry of d f / d h^(l) at initialization over m = {widths[0]}..{widths[-1]}: log-log slopes "
        + ", ".join(f"{v:.2f} (layer {l})" for l, v in slopes.items()) + " (the bound: -0.5 or steeper, up to a log "
        "factor).")
