"""More of [LZB], measured: one hidden layer, Prop 3.1's bound, LeCun parameterization, other architectures,
and Prop 2.3 along trained paths; every net cached one record at a time.

:func:`measure_lzb_more` returns a :class:`LzbMore`, which carries its settings, so the figure and the checks of
:mod:`~lib.chapters.non_constancy.lzb_checks` take it alone.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from lib.activations import get_activation
from lib.book.cache import cached_call
from lib.book.sweep import torch_threads
from lib.chapters.non_constancy.nets import SUP_DERIV, NetSetting, build
from lib.data import synthetic_regression
from lib.finite.archs import Conv1dNet, ResMLP
from lib.finite.hessian import hvp_operator, model_hessian_norm
from lib.finite.hessian_bounds import one_layer_hessian_norm, two_layer_bound
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.finite.tangent import model_ntk
from lib.finite.training import gd_train
from lib.finite.variants import VariantMLP
from lib.progress import tqdm
from lib.spectra import extreme_eigenvalues
from lib.validation import check_seed

__all__ = ["one_layer_row", "two_layer_rows", "lecun_row", "arch_row", "segment_rows", "LzbMore",
           "measure_lzb_more", "SEGMENT_POINTS"]

#: Points tau of the segment w_0 + tau (w_T - w_0) at which the Hessian norm is taken for [LZB] Prop 2.3's epsilon
#: (its proof integrates the Hessian along that segment only); five points, both ends included.
SEGMENT_POINTS = (0.0, 0.25, 0.5, 0.75, 1.0)


def _norm2(K: np.ndarray) -> float:
    return float(np.linalg.eigvalsh(K)[-1])


def one_layer_row(X, width: int, seed: int, activation: str, tol: float, max_iter: int) -> dict:
    """[LZB] Remark 3.1 on one net f = s v . sigma(W x) with v fixed: the Hessian in W and the kernel in W.

    Returns a dict: ``hess_norm`` (power iteration, max over the rows of X), ``hess_closed`` (the block formula
    of :func:`lib.finite.hessian_bounds.one_layer_hessian_norm`, max over the rows), ``off_block`` (the largest
    ``|(H u)_j|`` outside neuron k's block for u supported on that block, over three neurons k and the first input,
    relative to ||H u||: 0 for a block-diagonal H), ``kernel_norm`` (||K_W||_2 on the rows of X), ``iterations``,
    ``converged``.
    """
    seed = check_seed(seed)
    net = MLP(X.shape[1], width, 1, activation=activation, seed=seed)
    net.weights[1].requires_grad_(False)
    h = model_hessian_norm(net, X, tol=tol, max_iter=max_iter, seed=seed)
    closed = max(one_layer_hessian_norm(net, x) for x in X)
    hvp, P = hvp_operator(net, net.prepare(X)[:1])
    d = X.shape[1]
    gen = torch.Generator().manual_seed(seed)
    off = 0.0
    for k in sorted({0, width // 2, width - 1}):
        u = torch.zeros(P, dtype=torch.float64)
        u[k * d:(k + 1) * d] = torch.randn(d, generator=gen, dtype=torch.float64)
        hu = hvp(u)
        outside = torch.cat([hu[:k * d], hu[(k + 1) * d:]])
        off = max(off, float(outside.abs().max() / hu.norm()) if outside.numel() else 0.0)
    K = empirical_ntk(net, X, layers="first")
    return dict(width=int(width), seed=int(seed), hess_norm=h.norm, hess_closed=closed, off_block=off,
                kernel_norm=_norm2(K), iterations=h.iterations, converged=h.converged)


def two_layer_rows(X, width: int, seed: int, activation: str, tol: float, max_iter: int) -> list[dict]:
    """[LZB] Prop 3.1 on one [m, m] net with its output layer fixed: per input, the Hessian norm in (W1, W2) by
    power iteration and the right side of Eq 17 (:func:`lib.finite.hessian_bounds.two_layer_bound`)."""
    seed = check_seed(seed)
    net = MLP(X.shape[1], [width, width], activation=activation, seed=seed)
    net.weights[2].requires_grad_(False)
    h = model_hessian_norm(net, X, tol=tol, max_iter=max_iter, seed=seed)
    return [dict(width=int(width), seed=int(seed), input=i, hess_norm=float(h.per_input[i, 0]),
                 bound=two_layer_bound(net, x).bound, converged=h.converged) for i, x in enumerate(X)]


def _train_steps(model, X, y, lr: float, max_steps: int, rel_tol: float | None) -> tuple[float, int]:
    w0 = torch.cat([p.detach().reshape(-1).clone() for p in model.parameters() if p.requires_grad])
    res = gd_train(model, X, y, lr, max_steps, "square", rel_tol=rel_tol, progress=False)
    w1 = torch.cat([p.detach().reshape(-1) for p in model.parameters() if p.requires_grad])
    return float((w1 - w0).norm()), int(res["steps"])


def lecun_row(data: dict, width: int, seed: int, activation: str, tol: float, max_iter: int, lr_scale: float,
              max_steps: int, rel_tol: float) -> dict:
    """[LZB] App. A and Eq 41 on one [m, m] net, in the NTK and in the LeCun (standard) parameterization of the same
    function (:class:`lib.finite.variants.VariantMLP`), at the first input for the Hessian and on all of X for K.

    Two versions: ``full`` (every layer trained; LeCun's factor is 1 for the input layer and m/c_s for the others)
    and ``common`` (input layer fixed, so one factor m/c_s for every trained layer, [LZB] App. A's premise). Keys
    ``K_<par>_<version>``, ``H_<par>_<version>`` (||K||_2, ||H||_2), ``conv`` (every power iteration converged), and
    for the common version trained by GD at the chapter's step (lr_scale / lambda_max(K)) ``move_ntk``,
    ``move_lecun`` (||w_T - w_0||_2 after the same number of steps, ``steps``); ``factor`` = m / c_s, LeCun's factor
    of a layer of fan-in m.
    """
    seed = check_seed(seed)
    X, y = data["X"], data["y"]
    row, conv = dict(width=int(width), seed=int(seed)), True
    for version in ("full", "common"):
        for par in ("ntk", "lecun"):
            net = VariantMLP(X.shape[1], [width, width], activation=activation, seed=seed,
                             parameterization="ntk" if par == "ntk" else "standard")
            layers = None
            if version == "common":
                net.weights[0].requires_grad_(False)
                layers = [2, 3]
            h = model_hessian_norm(net, X[:1], tol=tol, max_iter=max_iter, seed=seed)
            conv = conv and h.converged
            K = empirical_ntk(net, X, layers=layers)
            row[f"K_{par}_{version}"], row[f"H_{par}_{version}"] = _norm2(K), h.norm
            if version == "common":
                lr = lr_scale / extreme_eigenvalues(K).lambda_max
                if par == "ntk":
                    row["move_ntk"], row["steps"] = _train_steps(net, X, y, lr, max_steps, rel_tol)
                else:
                    row["move_lecun"], _ = _train_steps(net, X, y, lr, row["steps"], None)
    row["factor"] = width / get_activation(activation).c
    row["conv"] = conv
    return row


def arch_row(X, arch: str, width: int, seed: int, activation: str, tol: float, max_iter: int) -> dict:
    """[LZB] App. G: the Hessian norm at initialization of a :class:`~lib.finite.archs.Conv1dNet` (``"cnn"``,
    width = channels) or a :class:`~lib.finite.archs.ResMLP` (``"resnet"``), max over the rows of X."""
    seed = check_seed(seed)
    net = (Conv1dNet if arch == "cnn" else ResMLP)(X.shape[1], width, activation=activation, seed=seed)
    h = model_hessian_norm(net, X, tol=tol, max_iter=max_iter, seed=seed)
    return dict(arch=arch, width=int(width), seed=int(seed), hess_norm=h.norm, iterations=h.iterations,
                converged=h.converged)


def _set(params, flat: torch.Tensor) -> None:
    i = 0
    with torch.no_grad():
        for p in params:
            p.copy_(flat[i:i + p.numel()].reshape(p.shape))
            i += p.numel()


def segment_rows(data: dict, arch: str, width: int, seed: int, activation: str, tol: float, max_iter: int,
                 n_hessian: int, lr_scale: float, max_steps: int, rel_tol: float) -> list[dict]:
    """[LZB] Prop 2.3 along one trained net: train it as the chapter does (:func:`~lib.chapters.non_constancy.nets.build`,
    step lr_scale / (g^2 lambda_max(K_0))) to w_T, then on the first ``n_hessian`` inputs, per pair (i, j):
    ``dK`` = ``|K_ij(w_T) - K_ij(w_0)|`` and ``bound`` = ``R (eps_i ||g_j(w_T)|| + eps_j ||g_i(w_0)||)``, with
    R = ||w_T - w_0||, K the tangent kernel (:func:`lib.finite.tangent.model_ntk`), g the gradients (||g_i||^2 =
    K_ii) and eps_i the largest Hessian norm of f_i at the :data:`~lib.chapters.non_constancy.lzb_measure.SEGMENT_POINTS`
    of the segment [w_0, w_T]; ``converged`` (every power iteration), ``R``, ``eps`` (max over inputs)."""
    seed = check_seed(seed)
    X = data["X"]
    model, base = build(arch, X.shape[1], width, seed, activation)
    params = [p for p in model.parameters() if p.requires_grad]
    w0 = torch.cat([p.detach().reshape(-1).clone() for p in params])
    K0 = model_ntk(model, X[:n_hessian])
    lr = lr_scale / (SUP_DERIV[arch] ** 2 * extreme_eigenvalues(empirical_ntk(base, X)).lambda_max)
    gd_train(model, X, data["y"], lr, max_steps, "square", rel_tol=rel_tol, progress=False)
    w1 = torch.cat([p.detach().reshape(-1).clone() for p in params])
    K1 = model_ntk(model, X[:n_hessian])
    eps, conv = np.zeros(n_hessian), True
    for tau in SEGMENT_POINTS:
        _set(params, w0 + tau * (w1 - w0))
        h = model_hessian_norm(model, X[:n_hessian], tol=tol, max_iter=max_iter, seed=seed)
        eps, conv = np.maximum(eps, h.per_input[:, 0]), conv and h.converged
    _set(params, w1)
    R = float((w1 - w0).norm())
    rows = []
    for i in range(n_hessian):
        for j in range(i, n_hessian):
            dK = abs(float(K1[i, j] - K0[i, j]))
            bound = R * (eps[i] * math.sqrt(K1[j, j]) + eps[j] * math.sqrt(K0[i, i]))
            rows.append(dict(arch=arch, width=int(width), seed=int(seed), i=i, j=j, dK=dK, bound=bound, R=R,
                             eps=float(eps.max()), converged=conv))
    return rows


@dataclass(frozen=True, eq=False)
class LzbMore(NetSetting):
    """The measurements of the [LZB] statements of Sec. 2-3 and App. A, G beyond the width sweeps; the data, seeds,
    activation and profile are those of :class:`~lib.chapters.non_constancy.nets.NetSetting`.

    Attributes:
        one_layer: one row per (width, seed) of :func:`~lib.chapters.non_constancy.lzb_measure.one_layer_row` (the chapter's widths).
        two_layer: one row per (width, seed, input) of :func:`~lib.chapters.non_constancy.lzb_measure.two_layer_rows`.
        lecun: one row per (width, seed) of :func:`~lib.chapters.non_constancy.lzb_measure.lecun_row`.
        archs: one row per (arch, width, seed) of :func:`~lib.chapters.non_constancy.lzb_measure.arch_row`.
        segment: one row per (arch, width, seed, i, j) of :func:`~lib.chapters.non_constancy.lzb_measure.segment_rows` (seed 0).
        widths: the chapter's widths (one hidden layer).
        arch_widths: the widths of the two-layer nets, the CNN (channels), the residual net and the trained paths.
        n_hessian: inputs of every Hessian norm.
    """

    one_layer: pd.DataFrame
    two_layer: pd.DataFrame
    lecun: pd.DataFrame
    archs: pd.DataFrame
    segment: pd.DataFrame
    widths: tuple
    arch_widths: tuple
    n_hessian: int = 0


def _cached(name: str, key: dict, fn, version: str = "1"):
    return cached_call(f"05_non_constancy_lzb_{name}", key, fn, version=version)


def measure_lzb_more(cfg) -> LzbMore:
    """Every measurement of :class:`LzbMore` on the chapter's data (:func:`lib.data.synthetic_regression`, seed 0),
    with one torch thread; each net cached (:func:`lib.book.cache.cached_call`).

    Args:
        cfg: the chapter's validated parameters (:data:`lib.chapters.non_constancy.spec.SPEC`): ``widths``,
            ``arch_widths``, ``seeds``, ``n_samples``, ``d``, ``k``, ``activation``, ``n_hessian``,
            ``hessian_tol``, ``hessian_max_iter``, ``lr_scale``, ``max_steps``, ``rel_tol``, ``profile``.

    Returns:
        :class:`LzbMore`.
    """
    data = synthetic_regression(cfg.n_samples, cfg.d, cfg.k, seed=0)
    X = data["X"][:cfg.n_hessian]
    hk = dict(activation=cfg.activation, tol=cfg.hessian_tol, max_iter=cfg.hessian_max_iter)
    train = dict(lr_scale=cfg.lr_scale, max_steps=cfg.max_steps, rel_tol=cfg.rel_tol)
    aw, seeds = [int(m) for m in cfg.arch_widths], range(cfg.seeds)
    key = dict(hk, X=np.asarray(X))
    one, two, lec, arc, seg = [], [], [], [], []
    jobs = ([("one", m, s) for m in cfg.widths for s in seeds] + [("two", m, s) for m in aw for s in seeds]
            + [("lecun", m, s) for m in aw for s in seeds] + [(a, m, s) for a in ("cnn", "resnet") for m in aw
                                                             for s in seeds]
            + [(f"seg_{a}", m, 0) for a in ("linear", "swish") for m in aw])
    with torch_threads(1):
        for job, m, s in tqdm(jobs, desc="more of [LZB]", leave=False):
            k = dict(key, m=int(m), s=s)
            if job == "one":
                one.append(_cached("one", k, lambda m=m, s=s: one_layer_row(X, m, s, **hk)))
            elif job == "two":
                two.extend(_cached("two", k, lambda m=m, s=s: two_layer_rows(X, m, s, **hk)))
            elif job == "lecun":
                lec.append(_cached("lecun", dict(k, **train, Xall=data["X"], y=data["y"]),
                                   lambda m=m, s=s: lecun_row(data, m, s, **hk, **train)))
            elif job in ("cnn", "resnet"):
                arc.append(_cached("arch", dict(k, arch=job), lambda j=job, m=m, s=s: arch_row(X, j, m, s, **hk)))
            else:
                a = job[4:]
                seg.extend(_cached("segment", dict(k, **train, arch=a, n=cfg.n_hessian, Xall=data["X"], y=data["y"]),
                                   lambda a=a, m=m: segment_rows(data, a, m, 0, n_hessian=cfg.n_hessian, **hk,
                                                                 **train)))
    return LzbMore(pd.DataFrame(one), pd.DataFrame(two), pd.DataFrame(lec), pd.DataFrame(arc), pd.DataFrame(seg),
                   tuple(int(m) for m in cfg.widths), tuple(aw), n_hessian=int(cfg.n_hessian), seeds=int(cfg.seeds),
                   n=int(cfg.n_samples), d=int(cfg.d), activation=cfg.activation, profile=cfg.profile)
