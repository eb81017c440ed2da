"""Reference NTK implementations through ``torch.func``: the Jacobian of any model, for tests and the benchmark.

``jacobian`` gives the per-sample gradients of any ``torch.nn.Module`` (``vmap(jacrev)``), the one routine of the
book that forms them. ``jacobian_ntk`` is the Jacobian-contraction method (what the paper's code used): it
materializes the n x P Jacobian, so memory is O(n P).
``ntk_vp`` is the NTK-vector-product method of the PyTorch "Neural Tangent Kernels" tutorial:
column i of K = J J^T is a VJP followed by a JVP, vmapped over the basis vectors e_i, so memory
is O(c P) for ``chunk_size`` c and time is about 4x the Jacobian contraction's flops.
The tangent kernel of a model is asked of :func:`lib.finite.tangent.model_ntk`, which picks the exact method of its
class and falls back to ``jacobian_ntk``.
"""
from __future__ import annotations

import warnings
from typing import Iterable

import numpy as np
import torch
from torch.func import functional_call, jacrev, jvp, vjp, vmap

from lib.finite.mlp import MLP
from lib.finite.ntk import check_kernel, resolve_layers
from lib.finite.wrapped import OutputWrapped
from lib.validation import InputError, InputTypeError, as_tensor, positive_int

__all__ = ["model_inputs", "jacobian", "jacobian_ntk", "ntk_vp"]

#: the book's models whose forward takes ``validate`` (their input checks branch on data, which ``torch.func``
#: transforms cannot; the inputs are checked once, by :func:`model_inputs`, before the transform)
_VALIDATING = (MLP, OutputWrapped)


def model_inputs(model: torch.nn.Module, X) -> torch.Tensor:
    """``X`` checked for ``model``: by the model's own ``prepare`` (the book's networks: dtype, device, in_dim), else
    by :func:`lib.validation.as_tensor` in the dtype and on the device of the model's parameters, and one forward
    pass of its first row (an X the model cannot take is refused here, naming ``X``, not deep inside a transform).

    Args:
        model: a ``torch.nn.Module``.
        X: inputs of shape (n, in_dim).

    Returns:
        The inputs as a tensor.

    Raises:
        lib.validation.InputTypeError: ``model`` is not a ``torch.nn.Module``.
        lib.validation.InputError: bad ``X`` (see :func:`lib.validation.as_tensor`).
    """
    if not isinstance(model, torch.nn.Module):
        raise InputTypeError(f"model must be a torch.nn.Module (a lib.finite network or any torch model), got "
                             f"{type(model).__name__}")
    if isinstance(model, MLP):
        model.check_weights()
    if hasattr(model, "prepare"):
        return model.prepare(X)
    p = next(model.parameters(), None)
    Xt = as_tensor(X, dtype=torch.float64 if p is None else p.dtype, device="cpu" if p is None else p.device)
    try:
        with torch.no_grad():
            model(Xt[:1])
    except (RuntimeError, ValueError, TypeError, IndexError) as e:
        raise InputError(f"X of shape {tuple(Xt.shape)} does not fit model ({type(model).__name__}): "
                         f"{str(e).splitlines()[0]}") from None
    return Xt


def _param_names(model: torch.nn.Module, layers) -> list[str]:
    """Every parameter (``layers`` None or "all", biases of a VariantMLP included), or an MLP's weight matrices."""
    names = [n for n, _ in model.named_parameters()]
    if isinstance(model, MLP) and layers not in (None, "all"):
        return [f"weights.{l - 1}" for l in resolve_layers(model, layers)]
    if layers not in (None, "all"):
        raise InputError("layer selection is only supported for lib.finite.mlp.MLP")
    if not names:
        raise InputError(f"model ({type(model).__name__}) has no parameters: its tangent kernel is 0")
    return names


def _functional_setup(model: torch.nn.Module, X, layers):
    """Validated X, trainable and frozen parameter dicts, and forward kwargs for ``functional_call``."""
    X = model_inputs(model, X)
    names = _param_names(model, layers)
    params = {n: p.detach() for n, p in model.named_parameters()}
    train = {n: params[n] for n in names}
    frozen = {n: p for n, p in params.items() if n not in train}
    kwargs = {"validate": False} if isinstance(model, _VALIDATING) else {}
    return X, train, frozen, kwargs


def jacobian(model: torch.nn.Module, X, layers: Iterable[int] | str | None = None,
             chunk_size: int | None = None) -> torch.Tensor:
    """The per-sample gradients of ``model``: J[i, c] = d f_c(x_i) / d w, by ``vmap(jacrev)`` ([LH] Sec. 2).

    The parameters w are all of the model's (in ``named_parameters`` order, each flattened; the biases of a
    :class:`lib.finite.variants.VariantMLP` too), or, for a :class:`lib.finite.mlp.MLP`, the weight matrices
    ``layers`` selects (:func:`lib.finite.ntk.resolve_layers`).

    Args:
        model: any ``torch.nn.Module`` mapping (n, d) inputs to (n,) or (n, k) outputs.
        X: inputs of shape (n, in_dim) (checked by :func:`lib.finite.reference.model_inputs`).
        layers: trainable layers of an MLP (``None``: every parameter).
        chunk_size: samples per ``vmap`` chunk (``None``: all at once).

    Returns:
        A detached tensor of shape (n, k, P), k = 1 for a scalar output, in the model's dtype.
    """
    return _jacobian(model, X, layers, chunk_size)[1]


def _jacobian(model, X, layers, chunk_size) -> tuple[torch.Tensor, torch.Tensor]:
    """The checked inputs and :func:`jacobian`."""
    if chunk_size is not None:
        positive_int(chunk_size, "chunk_size")
    X, train, frozen, kwargs = _functional_setup(model, X, layers)

    def f_single(p, x):
        return functional_call(model, {**frozen, **p}, (x.unsqueeze(0),), kwargs).reshape(-1)

    with warnings.catch_warnings():  # a missing batching rule (the CNN's unfold) costs time, not accuracy
        warnings.filterwarnings("ignore", message="There is a performance drop", category=UserWarning)
        jac = vmap(jacrev(f_single), (None, 0), chunk_size=chunk_size)(train, X)  # name -> (n, k, *shape)
    n = X.shape[0]
    return X, torch.cat([j.reshape(n, j.shape[1], -1) for j in jac.values()], dim=2).detach()


def jacobian_ntk(model: torch.nn.Module, X, layers: Iterable[int] | str | None = None,
                 chunk_size: int | None = None) -> np.ndarray:
    """NTK by explicit Jacobian contraction K = J J^T of :func:`jacobian` ([LH] Sec. 2), any model with (n, d) -> (n,)
    or (n, k).

    ``layers`` selects trainable layers exactly as :func:`lib.finite.ntk.empirical_ntk` does.
    Returns (n, n), or (n k, n k) indexed ``i * k + c`` for k outputs, in the model's dtype (float64 for the book's
    networks).
    """
    X, flat = _jacobian(model, X, layers, chunk_size)  # (n, k, P)
    F = flat.reshape(flat.shape[0] * flat.shape[1], -1)
    K = F @ F.T
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
