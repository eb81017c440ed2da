"""Measurements for chapter 05: constant vs non-constant tangent kernels ([LZB]; THEORY.md Sec. 7).

Architectures (``arch``), all in the NTK parameterization of :class:`lib.finite.mlp.MLP`:

- ``"linear"``: one hidden layer of width m, linear scalar output (transition to linearity);
- ``"swish"``: the same followed by swish on the scalar output ([LZB] Sec. 4);
- ``"softmax"``: one hidden layer, k outputs, softmax over them ([LZB] Sec. 4);
- ``"bottleneck"``: hidden widths [m, b, m] with a linear output ([LZB] Sec. 4.2).

Every net is trained by full-batch GD on the sum square loss with step
eta = lr_scale / (g^2 lambda_max(K(w_0))), K the base network's kernel and g = sup |phi'| of the
output non-linearity (1 for linear, ~1.0998 for swish, 1/2 for softmax), so that the step is
stable for the wrapped kernel K~ = J K J^T as long as the base kernel is nearly constant.
Non-linear outputs are centered at initialization, phi(f(x) - f_{w_0}(x)) (see
:class:`lib.finite.wrapped.OutputWrapped`), so that every output starts at phi(0).
"""
from __future__ import annotations

import hashlib
import json
import os
import pickle
from typing import Callable

import numpy as np
import pandas as pd
import torch
from lib.progress import tqdm

from lib.data.datasets import gaussian_data
from lib.finite.hessian import model_hessian_norm
from lib.finite.wrapped import OutputWrapped
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.book.sweep import cache_root
from lib.spectra import extreme_eigenvalues
from lib.finite.training import KernelTracker, gd_train

__all__ = ["ARCHS", "SUP_DERIV", "cache_dir", "cached", "synthetic_regression", "build", "train_tracked",
           "width_sweep", "bottleneck_sweep", "hessian_sweep"]

ARCHS = ("linear", "swish", "softmax", "bottleneck")
#: sup_z |phi'(z)|: swish' peaks at z ~ 2.3994 with value ~1.0998 (computed, not typed: see _sup_swish)
SUP_DERIV = {"linear": 1.0, "bottleneck": 1.0, "softmax": 0.5}


def _sup_swish() -> float:
    z = torch.linspace(-10, 10, 200001, dtype=torch.float64)
    s = torch.sigmoid(z)
    return float((s * (1 + z * (1 - s))).abs().max())


SUP_DERIV["swish"] = _sup_swish()


def cached(tag: str, key: dict, fn: Callable[[], object]):
    """Return ``fn()``, pickled under the cache dir by a hash of ``tag`` and ``key`` (JSON-able, arrays allowed)."""
    def enc(v):
        if isinstance(v, np.ndarray):
            return hashlib.sha256(np.ascontiguousarray(v).tobytes()).hexdigest() + str(v.shape)
        return str(v)
    h = hashlib.sha256(json.dumps(key, sort_keys=True, default=enc).encode()).hexdigest()[:24]
    path = cache_root() / tag / f"{h}.pkl"
    if path.exists():
        try:
            with open(path, "rb") as fh:
                return pickle.load(fh)
        except (OSError, pickle.UnpicklingError, EOFError):
            pass  # a broken cache entry is recomputed
    out = fn()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as fh:
        pickle.dump(out, fh)
    os.replace(tmp, path)
    return out


def synthetic_regression(n: int, d: int, k: int = 3, seed: int = 0) -> dict:
    """Unit-norm Gaussian inputs with smooth targets that need an O(1) move of the output.

    ``y`` (scalar) = (1 + sin(3 <x, u>)) / 2 in [0, 1], reachable by swish (whose range is
    [-0.278, inf)); ``y_soft`` (n, k) = softmax(2 X U), probability vectors reachable by softmax.
    """
    X = gaussian_data(n, d, seed=seed, unit_norm=True)
    rng = np.random.default_rng(seed + 1)
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    y = 0.5 * (1 + np.sin(3 * X @ u))
    Z = 2 * X @ rng.standard_normal((d, k))
    Z -= Z.max(axis=1, keepdims=True)
    y_soft = np.exp(Z) / np.exp(Z).sum(axis=1, keepdims=True)
    return {"X": X, "y": y, "y_soft": y_soft}


def build(arch: str, d: int, width: int, seed: int, activation: str = "tanh", k: int = 3,
          bottleneck: int | None = None, center: bool = True):
    """The network of one architecture (see the module docstring); returns (model, base MLP).

    Non-linear outputs are centered at initialization (``center``, see :class:`OutputWrapped`).
    """
    if arch == "linear":
        net = MLP(d, width, 1, activation=activation, seed=seed)
        return net, net
    if arch == "swish":
        net = MLP(d, width, 1, activation=activation, seed=seed)
        return OutputWrapped(net, "swish", center=center), net
    if arch == "softmax":
        net = MLP(d, width, 1, activation=activation, seed=seed, out_dim=k)
        return OutputWrapped(net, "softmax", center=center), net
    if arch == "bottleneck":
        if bottleneck is None:
            raise ValueError("arch 'bottleneck' needs the bottleneck width b")
        net = MLP(d, [width, bottleneck, width], activation=activation, seed=seed)
        return net, net
    raise ValueError(f"arch must be one of {ARCHS}, got {arch!r}")


def train_tracked(arch: str, data: dict, width: int, seed: int, activation: str = "tanh",
                  bottleneck: int | None = None, max_steps: int = 3000, rel_tol: float = 1e-4,
                  track_every: int = 10, lr_scale: float = 1.0) -> dict:
    """Train one net by full-batch GD to L <= rel_tol L(0), tracking the kernel change ([LZB] Sec. 4-5).

    Returns a dict: ``delta_K`` (max_t ||K_t - K_0||_F / ||K_0||_F), ``kernel_steps``/``kernel_change``
    (the tracked curve), ``loss`` (per step), ``steps``, ``converged``, ``lr``, ``weight_move``
    (||w_T - w_0||_2) and ``lambda_min`` (the PL constant: smallest non-trivial eigenvalue of the
    model's kernel at each tracked step, see :class:`lib.finite.training.KernelTracker`).
    """
    X = data["X"]
    y = data["y_soft"] if arch == "softmax" else data["y"]
    k = data["y_soft"].shape[1]
    model, base = build(arch, X.shape[1], width, seed, activation, k, bottleneck)
    lam_max = extreme_eigenvalues(empirical_ntk(base, X)).lambda_max
    lr = lr_scale / (SUP_DERIV[arch] ** 2 * lam_max)
    w0 = torch.cat([p.detach().reshape(-1).clone() for p in model.parameters()])
    tracker = KernelTracker(X, every=track_every, null_dim=X.shape[0] if arch == "softmax" else 0)
    res = gd_train(model, X, y, lr, max_steps, "square", rel_tol=rel_tol, callback=tracker, progress=False)
    w1 = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    return dict(arch=arch, width=width, bottleneck=bottleneck, seed=seed, delta_K=tracker.max_change,
                kernel_steps=np.asarray(tracker.steps), kernel_change=np.asarray(tracker.changes),
                loss=res["loss"], steps=res["steps"], converged=res["converged"], lr=lr,
                weight_move=float((w1 - w0).norm()), lambda_min=np.asarray(tracker.lambda_min))


def _sweep(runs: list[dict], data: dict, desc: str, **common) -> pd.DataFrame:
    rows = []
    for r in tqdm(runs, desc=desc, leave=False):
        key = dict(r, **common, X=data["X"], y=data["y"], ys=data["y_soft"], v=2)
        rows.append(cached("05_non_constancy", key, lambda r=r: train_tracked(data=data, **r, **common)))
    return pd.DataFrame(rows)


def width_sweep(data: dict, widths, seeds: int, archs=("linear", "swish", "softmax"), **common) -> pd.DataFrame:
    """:func:`train_tracked` for every architecture, width and seed; one row per net."""
    runs = [dict(arch=a, width=int(m), seed=s) for a in archs for m in widths for s in range(seeds)]
    return _sweep(runs, data, "width sweep", **common)


def bottleneck_sweep(data: dict, width: int, bottlenecks, seeds: int, **common) -> pd.DataFrame:
    """:func:`train_tracked` for the [m, b, m] net at fixed m over bottleneck widths b ([LZB] Sec. 4.2)."""
    runs = [dict(arch="bottleneck", width=int(width), bottleneck=int(b), seed=s)
            for b in bottlenecks for s in range(seeds)]
    return _sweep(runs, data, "bottleneck sweep", **common)


def hessian_sweep(X, widths, seeds: int, archs=("linear", "swish", "softmax"), activation: str = "tanh",
                  k: int = 3, tol: float = 1e-6, max_iter: int = 500) -> pd.DataFrame:
    """Spectral norm of the model Hessian at initialization, max over the rows of X ([LZB] Thm 3.2).

    For softmax the norm is the max over the k probability outputs as well.
    """
    rows = []
    grid = [(a, int(m), s) for a in archs for m in widths for s in range(seeds)]
    for a, m, s in tqdm(grid, desc="Hessian norms", leave=False):
        def run(a=a, m=m, s=s):
            model, _ = build(a, X.shape[1], m, s, activation, k, bottleneck=m)
            h = model_hessian_norm(model, X, tol=tol, max_iter=max_iter, seed=s)
            return dict(arch=a, width=m, seed=s, hess_norm=h.norm, iterations=h.iterations, converged=h.converged)
        key = dict(a=a, m=m, s=s, act=activation, k=k, tol=tol, it=max_iter, X=np.asarray(X), v=1)
        rows.append(cached("05_non_constancy_hessian", key, run))
    return pd.DataFrame(rows)


