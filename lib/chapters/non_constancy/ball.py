"""The ball of fixed radius R around the initialization in which [LZB] state their bounds (Thm 3.2, Lemma 3.1,
Eq 29, Thm 4.1), and the tangent kernel's scale at initialization (Thm 3.2).

[LZB] bound the Hessian (Thm 3.2, Eq 29, Thm 4.1) and the backward vectors (Lemma 3.1) at every point w of the
ball B(w_0, R), R fixed while the width grows, not at w_0 only. The chapter searches the ball at a few points per
net (:func:`ball_models`): w_0, ``points`` random points on the sphere of radius R (w_0 + R u / ||u||, u Gaussian,
seeded) and the end point of a GD run on the chapter's data, when it lies in the ball (the path GD takes is
where the bound is used, [LZB] Remark 3.5). The checks judge the largest value met (the sup of an upper bound)
or the smallest (the inf of a lower bound, Thm 4.1).
"""
from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import torch

from lib.book.cache import cached_call
from lib.chapters.non_constancy.nets import build, flat_weights, gd_step
from lib.finite.hessian import model_hessian_norm
from lib.finite.ntk import empirical_ntk
from lib.finite.training import gd_train
from lib.progress import tqdm
from lib.spectra import extreme_eigenvalues
from lib.validation import check_seed, derived_seed

__all__ = ["W0_ONLY", "ball_models", "trained_copy", "measure_ball_hessian", "measure_kernel_scale", "ball_sup",
           "ball_reduce", "ball_words"]


#: The caveat of a check whose ball was not searched: [LZB] bound every point of B(w_0, R), the data hold w_0 only.
W0_ONLY = "measured at w_0 only: the ball of fixed radius around it, where the statement bounds it, was not searched"


def _base(model):
    """The MLP under a wrapped output (the model itself otherwise)."""
    return getattr(model, "net", model)


def trained_copy(model, arch: str, data: dict, max_steps: int, rel_tol: float, lr_scale: float):
    """A copy of ``model`` trained by the chapter's GD (:func:`~lib.chapters.non_constancy.nets.gd_step`) on
    ``data`` to L <= rel_tol L(0), and its distance ||w_T - w_0||_2 from ``model``.

    Args:
        model: the net at w_0 (left unchanged).
        arch: a key of :data:`~lib.chapters.non_constancy.nets.SUP_DERIV` (sets the step, and the targets:
            ``y_soft`` for softmax, ``y`` otherwise; ``"linear"`` for any linear-output MLP).
        data: :func:`lib.data.synthetic_regression` output.
        max_steps: cap on GD steps.
        rel_tol: stopping tolerance.
        lr_scale: the step factor.

    Returns:
        (the trained copy, its distance from w_0).
    """
    net = copy.deepcopy(model)
    y = data["y_soft"] if arch == "softmax" else data["y"]
    lr = gd_step(arch, _base(net), data["X"], lr_scale)
    gd_train(net, data["X"], y, lr, max_steps, "square", rel_tol=rel_tol, progress=False)
    return net, float((flat_weights(net) - flat_weights(model)).norm())


def ball_models(model, radius: float, points: int, seed: int, trained=None) -> list[tuple[str, float, object]]:
    """The points of B(w_0, R) searched: ``("init", 0, model)``, ``("random j", R, copy at w_0 + R u_j / ||u_j||)``
    for j = 1..points (u_j standard Gaussian over all weights, from a generator seeded by ``seed``), and
    ``("trained", distance, net)`` for a trained copy (:func:`trained_copy`) when given.

    Args:
        model: the net at w_0.
        radius: R.
        points: random points on the sphere of radius R.
        seed: seed of the directions.
        trained: ``(net, distance)`` of :func:`trained_copy`, or None.

    Returns:
        ``(label, distance from w_0, model)`` triples; the trained point is listed whatever its distance (the
        checks keep it only inside the ball).
    """
    seed = check_seed(seed)
    gen = torch.Generator().manual_seed(derived_seed(seed, 10_000))
    out = [("init", 0.0, model)]
    for j in range(points):
        net = copy.deepcopy(model)
        params = [p for p in net.parameters() if p.requires_grad]
        u = [torch.randn(p.shape, generator=gen, dtype=p.dtype) for p in params]
        scale = radius / float(torch.sqrt(sum((v ** 2).sum() for v in u)))
        with torch.no_grad():
            for p, v in zip(params, u):
                p.add_(scale * v)
        out.append((f"random {j + 1}", float(radius), net))
    if trained is not None:
        out.append(("trained", float(trained[1]), trained[0]))
    return out


def measure_ball_hessian(data: dict, n_inputs: int, widths, seeds: int, radius: float, points: int,
                         archs=("linear", "swish", "softmax"), activation: str = "tanh", k: int = 3,
                         tol: float = 1e-6, max_iter: int = 500, max_steps: int = 4000, rel_tol: float = 1e-3,
                         lr_scale: float = 1.8) -> pd.DataFrame:
    """The model Hessian norm (max over the first ``n_inputs`` inputs, :func:`lib.finite.hessian.model_hessian_norm`)
    at the points of :func:`ball_models` of every (arch, width, seed), the trained point by GD on ``data`` ([LZB]
    Thm 3.2, Eq 29). Cached one net per record.

    Args:
        data: :func:`lib.data.synthetic_regression` output.
        n_inputs: inputs over which each norm is maximized.
        widths: hidden widths m.
        seeds: weight draws.
        radius: R.
        points: random points per net.
        archs: output types.
        activation: hidden activation.
        k: softmax outputs.
        tol: power iteration tolerance.
        max_iter: power iteration cap.
        max_steps: GD cap of the trained point.
        rel_tol: GD stopping tolerance.
        lr_scale: GD step factor.

    Returns:
        One row per (arch, width, seed, point): ``distance``, ``hess_norm``, ``iterations``, ``converged``.
    """
    X = np.asarray(data["X"])[:n_inputs]
    rows = []
    grid = [(a, int(m), s) for a in archs for m in widths for s in range(seeds)]
    for a, m, s in tqdm(grid, desc="Hessian norms in the ball", leave=False):
        def run(a=a, m=m, s=s):
            model, _ = build(a, X.shape[1], m, s, activation, k, bottleneck=m)
            pts = ball_models(model, radius, points, s, trained_copy(model, a, data, max_steps, rel_tol, lr_scale))
            out = {c: [] for c in ("point", "distance", "hess_norm", "iterations", "converged")}
            for label, dist, net in pts:
                h = model_hessian_norm(net, X, tol=tol, max_iter=max_iter, seed=s)
                for c, v in zip(out, (label, dist, h.norm, h.iterations, h.converged)):
                    out[c].append(v)
            return out
        key = dict(a=a, m=m, s=s, act=activation, k=k, tol=tol, it=max_iter, R=float(radius), p=int(points),
                   steps=max_steps, rel=rel_tol, lr=lr_scale, X=np.asarray(data["X"]), y=data["y"],
                   ys=data["y_soft"], n=int(n_inputs))
        res = cached_call("05_non_constancy_ball", key, run, version="1")
        rows += [dict(arch=a, width=m, seed=s, **{c: res[c][i] for c in res}) for i in range(len(res["point"]))]
    return pd.DataFrame(rows)


def measure_kernel_scale(X, widths, seeds: int, activation: str = "tanh") -> pd.DataFrame:
    """The scale of the tangent kernel at initialization of the linear-output nets ([LZB] Thm 3.2: K = O(1)):
    its largest eigenvalue and its mean diagonal entry (the mean ||grad f(x_i)||^2) on the rows of X.

    Args:
        X: inputs.
        widths: hidden widths m.
        seeds: weight draws.
        activation: hidden activation.

    Returns:
        One row per (width, seed): ``lambda_max``, ``mean_diag``.
    """
    rows = []
    for m in widths:
        for s in range(seeds):
            K = empirical_ntk(build("linear", X.shape[1], int(m), s, activation)[1], X)
            rows.append(dict(width=int(m), seed=s, lambda_max=extreme_eigenvalues(K).lambda_max,
                             mean_diag=float(np.mean(np.diag(K)))))
    return pd.DataFrame(rows)


def ball_sup(ball: pd.DataFrame, radius: float, value: str = "hess_norm", how: str = "max",
             by=("arch", "width", "seed")) -> pd.DataFrame:
    """The largest (``how="max"``) or smallest (``"min"``) ``value`` over the points of the ball of each net, the
    trained point kept only when it lies in the ball (distance <= R).

    Args:
        ball: rows of :func:`measure_ball_hessian` (or any frame with ``point``, ``distance`` and ``value``).
        radius: R.
        value: the column to reduce.
        how: ``"max"`` or ``"min"``.
        by: the columns that name one net.

    Returns:
        One row per net: ``value`` reduced over its points inside the ball, and ``converged`` (all of them) when
        the frame has that column.
    """
    inside = ball[ball.distance <= radius * (1 + 1e-9)]
    agg = {value: how} | ({"converged": "all"} if "converged" in inside else {})
    return inside.groupby(list(by)).agg(agg).reset_index()


def ball_reduce(frame: pd.DataFrame, radius: float, by, value: str = "hess_norm", how: str = "max"
                ) -> tuple[pd.DataFrame, bool]:
    """``value`` reduced over the ball of each net whose ball was searched (:func:`ball_sup`), or its value at w_0
    for every net when no ball was searched (a frame without ``point``, or with ``"init"`` points only).

    Args:
        frame: rows with the columns of ``by``, ``value`` and, when the ball was searched, ``point`` and
            ``distance``.
        radius: R.
        by: the columns of one reduced row (the net's, and e.g. ``"layer"``, which is not part of the net).
        value: the column to reduce.
        how: ``"max"`` (the sup of an upper bound) or ``"min"`` (the inf of a lower bound).

    Returns:
        (one row per ``by``, whether those rows come from the ball rather than from w_0 alone).
    """
    nets = [c for c in by if c != "layer"]
    if "point" not in frame.columns or not (frame.point != "init").any():
        init = frame if "point" not in frame.columns else frame[frame.point == "init"]
        return ball_sup(init.assign(distance=0.0), radius, value, how, by), False
    key = frame[nets].apply(tuple, axis=1)
    done = set(key[frame.point != "init"])
    return ball_sup(frame[key.isin(done)], radius, value, how, by), True


def ball_words(frame: pd.DataFrame, radius: float, searched: bool) -> str:
    """The points searched, in words, for the measured sentence of a check: how many random points at distance R
    and how many GD end points, inside the ball and outside it (those are left out)."""
    if not searched:
        return "at w_0 only"
    nets = frame[frame.point != "init"]
    trained = nets[nets.point == "trained"]
    trained = trained.drop_duplicates([c for c in ("arch", "width", "seed") if c in trained.columns])
    inside = int((trained.distance <= radius * (1 + 1e-9)).sum())
    far = f", {len(trained) - inside} left out beyond R" if len(trained) > inside else ""
    dist = f" at distance {trained.distance.min():.2f} to {trained.distance.max():.2f}" if len(trained) else ""
    return (f"sup over w_0, {nets[nets.point != 'trained'].point.nunique()} random point(s) at distance "
            f"R = {radius:g} and {inside} GD end point(s){dist}{far}")
