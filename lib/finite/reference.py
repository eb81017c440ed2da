"""Reference NTK implementations through ``torch.func``, for tests and the benchmark.

``jacobian_ntk`` is the Jacobian-contraction method (what the paper's code used, via
``vmap(jacrev)``): it materializes the n x P Jacobian, so memory is O(n P).
``ntk_vp`` is the NTK-vector-product method of the PyTorch "Neural Tangent Kernels" tutorial:
column i of K = J J^T is a VJP followed by a JVP, vmapped over the basis vectors e_i, so memory
is O(c P) for ``chunk_size`` c and time is about 4x the Jacobian contraction's flops.
"""
from __future__ import annotations

from typing import Iterable

import numpy as np
import torch
from torch.func import functional_call, jacrev, jvp, vjp, vmap

from lib.finite.mlp import MLP
from lib.finite.ntk import check_kernel, resolve_layers
from lib.validation import InputError, as_tensor, positive_int

__all__ = ["jacobian_ntk", "ntk_vp"]


def _param_names(model: torch.nn.Module, layers) -> list[str]:
    names = [n for n, _ in model.named_parameters()]
    if isinstance(model, MLP):
        return [f"weights.{l - 1}" for l in resolve_layers(model, layers)]
    if layers not in (None, "all"):
        raise InputError("layer selection is only supported for lib.finite.mlp.MLP")
    return names


def _functional_setup(model: torch.nn.Module, X, layers):
    """Validated X, trainable and frozen parameter dicts, and forward kwargs for ``functional_call``."""
    if isinstance(model, MLP):
        model.check_weights()
    X = model.prepare(X) if hasattr(model, "prepare") else as_tensor(X)
    names = _param_names(model, layers)
    params = {n: p.detach() for n, p in model.named_parameters()}
    train = {n: params[n] for n in names}
    frozen = {n: p for n, p in params.items() if n not in train}
    kwargs = {"validate": False} if isinstance(model, MLP) else {}
    return X, train, frozen, kwargs


def jacobian_ntk(model: torch.nn.Module, X, layers: Iterable[int] | str | None = None,
                 chunk_size: int | None = None) -> np.ndarray:
    """NTK by explicit Jacobian contraction K = J J^T ([LH] Sec. 2), any model with (n, d) -> (n,) or (n, k).

    ``layers`` selects trainable layers exactly as :func:`lib.finite.ntk.empirical_ntk` does.
    Returns float64 (n, n), or (n k, n k) indexed ``i * k + c`` for k outputs.
    """
    if chunk_size is not None:
        positive_int(chunk_size, "chunk_size")
    X, train, frozen, kwargs = _functional_setup(model, X, layers)

    def f_single(p, x):
        return functional_call(model, {**frozen, **p}, (x.unsqueeze(0),), kwargs).reshape(-1)

    jac = vmap(jacrev(f_single), (None, 0), chunk_size=chunk_size)(train, X)  # name -> (n, k, *shape)
    n = X.shape[0]
    flat = torch.cat([j.reshape(n, j.shape[1], -1) for j in jac.values()], dim=2)  # (n, k, P)
    k = flat.shape[1]
    F = flat.reshape(n * k, -1)
    K = (F @ F.T).detach()
    check_kernel(K, X, "the Jacobian NTK")
    return K.cpu().numpy()


def ntk_vp(model: torch.nn.Module, X, layers: Iterable[int] | str | None = None,
           chunk_size: int | None = 64) -> np.ndarray:
    """NTK by NTK-vector products ([LH] Sec. 2; PyTorch tutorial "Neural Tangent Kernels").

    With f: params -> (f(x_1), ..., f(x_n)) and J its Jacobian, column i of K = J J^T is
    ``jvp(f, J^T e_i)``, where ``J^T e_i = vjp(f)(e_i)`` is the gradient of output i. One forward
    pass is shared; the basis vectors e_i are processed ``chunk_size`` at a time under ``vmap``,
    so the largest temporaries are ``chunk_size`` parameter-sized gradients (``None``: all at once).
    ``layers`` selects trainable layers as in :func:`lib.finite.ntk.empirical_ntk`. Returns float64
    (n, n), or (n k, n k) indexed ``i * k + c`` for k outputs.
    """
    if chunk_size is not None:
        positive_int(chunk_size, "chunk_size")
    X, train, frozen, kwargs = _functional_setup(model, X, layers)

    def f_all(p):
        return functional_call(model, {**frozen, **p}, (X,), kwargs).reshape(-1)  # (n k,), index i*k+c

    out, vjp_fn = vjp(f_all, train)

    def column(e):
        (grad,) = vjp_fn(e)                       # J^T e: a dict of parameter-shaped tensors
        return jvp(f_all, (train,), (grad,))[1]   # J J^T e

    basis = torch.eye(out.numel(), dtype=out.dtype, device=out.device)
    cols = vmap(column, chunk_size=chunk_size)(basis)  # row i holds K[:, i]
    K = cols.T.contiguous().detach()
    check_kernel(K, X, "the NTK-vector-product NTK")
    return K.cpu().numpy()
