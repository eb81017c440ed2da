"""The tangent kernel of any model, with one dispatch rule ([LH] Sec. 2; [LZB] Sec. 2-4; [LH] App. B).

K(x, z) = <grad_w f(x), grad_w f(z)>, the empirical NTK, is asked of :func:`model_ntk` whatever the model. It
dispatches on the model's class (``functools.singledispatch``: the most specific registered class in the
model's method resolution order), to the exact method written for that class, once:

* :class:`lib.finite.mlp.MLP`: :func:`lib.finite.ntk.empirical_ntk` (Hadamard of Grams, no Jacobian);
* :class:`lib.finite.variants.VariantMLP`: :func:`lib.finite.variants.variant_ntk` (the same, plus the bias kernel of
  [LH] App. B);
* :class:`lib.finite.wrapped.OutputWrapped`: :func:`lib.finite.wrapped.wrapped_ntk` (J_phi K J_phi^T, [LZB] Sec. 4);
* any other ``torch.nn.Module`` (the CNN and residual nets of [LZB] App. G, a user's model):
  :func:`lib.finite.reference.jacobian_ntk` (the ``torch.func`` Jacobian contraction).

As neural-tangents' ``empirical_ntk_fn`` (one entry for any function, the implementation a detail below it), a
new model class adds its exact kernel to this list (one ``register``); until it does, it gets the Jacobian
contraction, which is exact too. The per-sample gradients themselves (the Jacobian) come from
:func:`lib.finite.reference.jacobian`, re-exported here. Anything that is not a ``torch.nn.Module`` is refused with
one message naming ``model``; bad inputs ``X`` are refused by the model's own input checks
(:func:`lib.finite.reference.model_inputs`, for any other module).
"""
from __future__ import annotations

from functools import singledispatch
from typing import Iterable

import numpy as np
import torch

from lib.data.pairs import pair_angles
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.finite.reference import jacobian, jacobian_ntk
from lib.finite.variants import VariantMLP, variant_ntk
from lib.finite.wrapped import OutputWrapped, wrapped_ntk

__all__ = ["model_ntk", "jacobian", "pair_gradient_angles"]


def model_ntk(model: torch.nn.Module, X, layers: Iterable[int] | str | None = None) -> np.ndarray:
    """The empirical tangent kernel of ``model`` on the rows of ``X`` ([LH] Sec. 2), by the method of its class.

    Args:
        model: any ``torch.nn.Module`` mapping (n, d) inputs to (n,) or (n, k) outputs (see the module docstring for
            the method each class gets).
        X: inputs of shape (n, in_dim).
        layers: trainable weight matrices of an MLP (or of the base MLP of an OutputWrapped model), as in
            :func:`lib.finite.ntk.resolve_layers`; ``None``: every parameter.

    Returns:
        (n, n), or (n k, n k) indexed ``i * k + c`` for k outputs; float64 for the book's networks.

    Raises:
        lib.validation.InputTypeError: ``model`` is not a ``torch.nn.Module``.
        lib.validation.InputError: bad ``X`` or ``layers``, naming them.
    """
    return _kernel_method(model, X, layers)


@singledispatch
def _kernel_method(model, X, layers) -> np.ndarray:
    """Any other model: the Jacobian contraction (which refuses a non-module, naming ``model``)."""
    return jacobian_ntk(model, X, layers)


@_kernel_method.register
def _(model: MLP, X, layers) -> np.ndarray:
    return empirical_ntk(model, X, layers)


@_kernel_method.register
def _(model: VariantMLP, X, layers) -> np.ndarray:
    return variant_ntk(model, X, layers)


@_kernel_method.register
def _(model: OutputWrapped, X, layers) -> np.ndarray:
    return wrapped_ntk(model, X, layers=layers)


def pair_gradient_angles(model: torch.nn.Module, X) -> np.ndarray:
    """phi for every pair of ``X`` (from :func:`lib.data.pairs.angle_pairs`): the angle between grad f(x_2i) and
    grad f(x_2i+1), from :func:`model_ntk` ([LH] Lemma 3.1).

    Args:
        model: any model :func:`model_ntk` takes.
        X: the 2k inputs, pairs in consecutive rows.

    Returns:
        The k angles in radians.
    """
    return pair_angles(model_ntk(model, X))
