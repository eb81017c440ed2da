"""Networks with a non-linear output layer f~ = phi(f), and their exact tangent kernels ([LZB] Sec. 4).

[LZB] show that a wide network whose *last* operation is non-linear in the output of a linear
layer has a Hessian of norm O(1) and a tangent kernel that moves by O(1) during training, even
when every weight moves by O(1/sqrt(m)). Two such outputs are used ([LZB] Sec. 4):

- ``"swish"``: a scalar network f followed by swish(z) = z * sigmoid(z);
- ``"softmax"``: a k-output network followed by softmax over the k outputs.

By the chain rule grad f~(x) = J_phi(f(x)) grad f(x), so the tangent kernel of the wrapped model
is, block by block,

    K~(x_i, x_j) = J_phi(f(x_i)) K(x_i, x_j) J_phi(f(x_j))^T

with K the (n k x n k) kernel of the base MLP from :func:`lib.finite.ntk.empirical_ntk`
(:func:`wrapped_ntk`; :func:`lib.finite.tangent.model_ntk` calls it for an :class:`OutputWrapped` model). For swish,
J_phi = phi'(f) is a scalar; for softmax, J_s = diag(p) - p p^T with p = softmax(f).

``center=True`` applies phi to f(x) - f_{w_0}(x), with f_{w_0} a frozen copy of the network at
initialization (not trainable, so the kernel formula holds with J_phi taken at f - f_{w_0}).
The output then starts at phi(0) for every input, instead of at phi of a random O(1) value
that may sit where phi' vanishes (swish' = 0 at z ~ -1.28), which would stall GD.
"""
from __future__ import annotations

import copy
from typing import Iterable

import numpy as np
import torch
from torch import nn

from lib.activations import get_activation
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.validation import InputError, InputTypeError, as_matrix, real_tensor

__all__ = ["OUTPUTS", "OutputWrapped", "swish", "swish_deriv", "output_jacobians", "wrapped_ntk"]

OUTPUTS = ("swish", "softmax")


_SWISH = get_activation("swish")


def swish(z: torch.Tensor) -> torch.Tensor:
    """swish(z) = z sigmoid(z), the ``"swish"`` of :data:`lib.activations.ACTIVATIONS` ([LZB] Sec. 4).

    Args:
        z: base outputs.

    Returns:
        swish(z), same shape.
    """
    return _SWISH(real_tensor(z, "z"))


def swish_deriv(z: torch.Tensor) -> torch.Tensor:
    """swish'(z) = s(z) (1 + z (1 - s(z))), s = sigmoid: :meth:`lib.activations.Activation.deriv` of swish.

    Args:
        z: base outputs.

    Returns:
        swish'(z), same shape.
    """
    return _SWISH.deriv(real_tensor(z, "z"))


class OutputWrapped(nn.Module):
    """f~(x) = phi(f(x)) for a :class:`lib.finite.mlp.MLP` f ([LZB] Sec. 4, non-linear output layer).

    Args:
        net: the base MLP. ``output="swish"`` needs ``net.out_dim == 1``; ``output="softmax"``
            needs ``net.out_dim >= 2`` (softmax over one output is the constant 1).
        output: ``"swish"`` or ``"softmax"``.

    The wrapped model exposes ``in_dim``, ``out_dim``, ``dtype``, ``prepare`` like an MLP, and its
    parameters are the MLP's (named ``net.weights.<l>``).
    """

    def __init__(self, net: MLP, output: str, center: bool = False) -> None:
        super().__init__()
        if not isinstance(net, MLP):
            raise InputTypeError(f"OutputWrapped needs a lib.finite.mlp.MLP, got {type(net).__name__}")
        if output not in OUTPUTS:
            raise InputError(f"output must be one of {OUTPUTS}, got {output!r}")
        if output == "swish" and net.out_dim != 1:
            raise InputError(f"a swish output wraps a scalar network; this MLP has out_dim={net.out_dim}")
        if output == "softmax" and net.out_dim < 2:
            raise InputError("a softmax output needs an MLP with out_dim >= 2 (softmax of one output is constant)")
        self.net = net
        self.output = output
        self.center = bool(center)
        ref = copy.deepcopy(net).requires_grad_(False) if center else None
        self.__dict__["_ref"] = ref  # not a submodule: its weights are not parameters of the model

    in_dim = property(lambda self: self.net.in_dim)
    out_dim = property(lambda self: self.net.out_dim)
    dtype = property(lambda self: self.net.dtype)
    depth = property(lambda self: self.net.depth)

    def prepare(self, X, name: str = "X") -> torch.Tensor:
        """X validated for the base MLP (:meth:`lib.finite.mlp.MLP.prepare`)."""
        return self.net.prepare(X, name)

    def extra_repr(self) -> str:
        return f"output={self.output}, center={self.center}"

    def base_output(self, X, validate: bool = True) -> torch.Tensor:
        """The argument of phi: f(X), or f(X) - f_{w_0}(X) when centered."""
        f = self.net(X, validate=validate)
        if self._ref is not None:
            f = f - self._ref(X, validate=validate)
        return f

    def apply_output(self, f: torch.Tensor) -> torch.Tensor:
        """phi applied to base outputs f ((n,) for swish, (n, k) for softmax)."""
        return swish(f) if self.output == "swish" else torch.softmax(f, dim=-1)

    def forward(self, X, validate: bool = True) -> torch.Tensor:
        """f~(X): shape (n,) for swish, (n, k) for softmax."""
        return self.apply_output(self.base_output(X, validate=validate))


def output_jacobians(output: str, f: torch.Tensor) -> torch.Tensor:
    """J_phi at each sample: shape (n, k, k) (k = 1 for swish) for base outputs f."""
    if output == "swish":
        return swish_deriv(f.reshape(-1)).reshape(-1, 1, 1)
    if output == "softmax":
        if f.ndim != 2:
            raise InputError(f"softmax outputs need f of shape (n, k), got {tuple(f.shape)}")
        p = torch.softmax(f, dim=-1)
        return torch.diag_embed(p) - p[:, :, None] * p[:, None, :]
    raise InputError(f"output must be one of {OUTPUTS}, got {output!r}")


def wrapped_ntk(model: OutputWrapped, X, base_kernel: np.ndarray | None = None,
                layers: Iterable[int] | str | None = None) -> np.ndarray:
    """Exact tangent kernel of f~ = phi(f): K~ = J_phi K J_phi^T blockwise ([LZB] Sec. 4).

    ``base_kernel`` may pass an already computed :func:`lib.finite.ntk.empirical_ntk` of ``model.net``
    on ``X``; otherwise it is computed with the trainable ``layers`` of the base MLP. Returns float64 (n, n) for
    swish, (n k, n k) indexed ``i * k + c`` for softmax. Reached through :func:`lib.finite.tangent.model_ntk`.
    """
    if not isinstance(model, OutputWrapped):
        raise InputTypeError(f"wrapped_ntk needs an OutputWrapped model, got {type(model).__name__}")
    Xt = model.prepare(X)
    if base_kernel is not None and layers is not None:
        raise InputError("pass base_kernel or layers, not both (base_kernel was computed with its own layers)")
    K = empirical_ntk(model.net, Xt, layers) if base_kernel is None else as_matrix(base_kernel, "base_kernel")
    n, k = Xt.shape[0], model.out_dim
    if K.shape != (n * k, n * k):
        raise InputError(f"base kernel has shape {K.shape}, expected {(n * k, n * k)} for n={n}, k={k}")
    with torch.no_grad():
        J = output_jacobians(model.output, model.base_output(Xt)).cpu().numpy()  # (n, k, k)
    Kv = K.reshape(n, k, n, k)
    out = np.einsum("iab,ibjc,jdc->iajd", J, Kv, J, optimize=True)
    return out.reshape(n * k, n * k)
