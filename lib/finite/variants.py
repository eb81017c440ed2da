"""Variations of the MLP of [LH] Eq. (1) for [LH] App. B: scales, parameterization, biases.

What a variation can change ([LH] App. B): the gradient with respect to W^(k) is the outer
product delta^(k) a^(k-1)^T. With a positively homogeneous activation (ReLU) and no biases,

- a **global weight scale** (every W^(k) -> sigma W^(k)) multiplies every block of the gradient by
  sigma^L: angles cannot change;
- **per-layer output multipliers** (a^(l) = r_l sqrt(c/m) s(h^(l))) multiply every block by the same
  prod_l r_l: angles cannot change either;
- **per-layer initialization scales** of trainable weights (W^(k) = sigma_k V^(k)) multiply block k by
  prod_{j != k} sigma_j, i.e. the NTK becomes sum_k sigma_k^-2 K_k (up to a common factor), a
  different weighting of the layer kernels K_k: angles do change;
- the **standard parameterization** (W^(k) of variance c/m_{k-1}, no multipliers, same forward pass)
  weights the hidden-layer blocks by m/c against the first layer: angles change, and as m -> oo
  the first-layer kernel drops out;
- **biases** add kernels beta^2 D_k D_k^T and a constant: angles change.

:class:`VariantMLP` implements all of these on top of :class:`lib.finite.mlp.MLP` (the exact NTK of
:mod:`lib.finite.ntk` applies unchanged; bias blocks are added by :func:`variant_ntk`, which
:func:`lib.finite.tangent.model_ntk` calls for a VariantMLP).
:func:`relu_weighted_gradient_angle` gives the infinite-width angle for a layer weighting
(:func:`lib.theory.relu_gradient_angle_weighted`).
"""
from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np
import torch
from torch import nn

from lib.finite.mlp import MLP
from lib.finite.ntk import bias_ntk, layer_factors, ntk_from_factors, resolve_layers
from lib.theory import relu_gradient_angle_weighted
from lib.validation import InputError, InputTypeError, check_int, check_real, derived_seed, real_array

__all__ = ["VariantMLP", "variant_ntk", "layer_weights", "relu_weighted_gradient_angle"]

PARAMETERIZATIONS = ("ntk", "standard")


def _positive_seq(name: str, v, length: int) -> tuple[float, ...]:
    if v is None:
        return (1.0,) * length
    if isinstance(v, bool):
        raise InputTypeError(f"{name} must be a positive number or one per layer, got {v!r}")
    vals = real_array(v, name, low=0.0, low_open=True)
    if vals.ndim == 0:
        vals = np.full(length, float(vals))
    if vals.shape != (length,):
        raise InputError(f"{name} needs {length} values (one per layer), got shape {vals.shape}")
    return tuple(float(x) for x in vals)


class VariantMLP(MLP):
    """The MLP of [LH] Eq. (1) with the variations of [LH] App. B (see the module docstring).

    Args:
        in_dim, width, depth, activation, seed, dtype, device: as :class:`lib.finite.mlp.MLP`.
        layer_std: sigma_k for k = 1..L+1 (a number applies to all): trainable W^(k) = sigma_k V^(k)
            with V^(k) the N(0, 1) draw of the plain MLP of the same seed.
        layer_mult: r_l for l = 1..L: output multipliers a^(l) = r_l sqrt(c/m_l) s(h^(l)) (NTK
            parameterization only).
        parameterization: ``"ntk"`` ([LH] Eq. 1) or ``"standard"``: no multipliers, W^(k) of standard
            deviation sigma_k sqrt(c/m_{k-1}) for k >= 2 (W^(1) as in Eq. 1), hence the same forward
            pass as the NTK parameterization but a different gradient.
        bias_std: beta >= 0. NTK parameterization: h^(k) = W^(k) a^(k-1) + beta b^(k) with trainable
            b^(k) ~ N(0, 1); standard: trainable b^(k) ~ N(0, beta^2). Layers k = 1..L+1.
    """

    def __init__(self, in_dim: int, width, depth: int | None = None, activation="relu", seed: int = 0,
                 layer_std: float | Sequence[float] | None = None,
                 layer_mult: float | Sequence[float] | None = None,
                 parameterization: str = "ntk", bias_std: float = 0.0,
                 dtype: torch.dtype = torch.float64, device="cpu") -> None:
        super().__init__(in_dim, width, depth, activation, seed=seed, dtype=dtype, device=device)
        if parameterization not in PARAMETERIZATIONS:
            raise InputError(f"parameterization must be one of {PARAMETERIZATIONS}, got {parameterization!r}")
        bias_std = check_real(bias_std, "bias_std", low=0.0)
        L = self.depth
        self.parameterization = parameterization
        self.layer_std = _positive_seq("layer_std", layer_std, L + 1)
        self.layer_mult = _positive_seq("layer_mult", layer_mult, L)
        if parameterization == "standard" and layer_mult is not None:
            raise InputError("layer_mult applies to the NTK parameterization only (standard has no multipliers)")
        self.bias_std = float(bias_std)
        base = self.scales
        with torch.no_grad():
            for k, W in enumerate(self.weights):  # k = 0 is W^(1)
                factor = self.layer_std[k]
                if parameterization == "standard" and k >= 1:
                    factor *= base[k - 1]  # sqrt(c / m_{k-1}) moves into the weights
                W.mul_(factor)
        if parameterization == "standard":
            self.scales = (1.0,) * L
        else:
            self.scales = tuple(s * r for s, r in zip(base, self.layer_mult))
        self.bias_mult = self.bias_std if parameterization == "ntk" else 1.0
        if self.bias_std > 0:
            gen = torch.Generator(device="cpu").manual_seed(derived_seed(self.seed, 7_919))
            init = 1.0 if parameterization == "ntk" else self.bias_std
            dims = (*self.hidden, self.out_dim)
            self.biases = nn.ParameterList(
                nn.Parameter(init * torch.randn(m, generator=gen, dtype=dtype).to(self.device_)) for m in dims)
        else:
            self.biases = None

    def extra_repr(self) -> str:
        return (super().extra_repr() + f", parameterization={self.parameterization}, "
                f"layer_std={list(self.layer_std)}, layer_mult={list(self.layer_mult)}, bias_std={self.bias_std}")

    def preactivation(self, l: int, a: torch.Tensor, W: torch.Tensor) -> torch.Tensor:
        """W^(l+1) a^(l), plus the scaled bias of that layer when biases are on."""
        h = a @ W.T
        return h if self.biases is None else h + self.bias_mult * self.biases[l]


def variant_ntk(model: VariantMLP, X, layers: Iterable[int] | str | None = None) -> np.ndarray:
    """The exact empirical NTK of a :class:`VariantMLP` with respect to its weights and biases ([LH] App. B).

    The weight kernel of :func:`lib.finite.ntk.ntk_from_factors` plus, with biases, the bias kernel
    bias_mult^2 (sum_k D_k D_k^T + 1) of :func:`lib.finite.ntk.bias_ntk`, from one forward/backward pass.
    Reached through :func:`lib.finite.tangent.model_ntk`.

    Args:
        model: the network.
        X: inputs of shape (n, in_dim).
        layers: trainable weight matrices, as in :func:`lib.finite.ntk.resolve_layers`; a net with biases takes
            ``None`` only (its biases are parameters too).

    Returns:
        float64 array of shape (n, n) (or (n k, n k) for k outputs without biases).
    """
    if not isinstance(model, VariantMLP):
        raise InputTypeError(f"variant_ntk needs a lib.finite.variants.VariantMLP, got {type(model).__name__}")
    if model.biases is not None and layers not in (None, "all"):
        raise InputError(f"layers={layers!r}: a VariantMLP with biases (bias_std = {model.bias_std}) is trained in "
                         "all its weights and biases; pass layers=None")
    sel = resolve_layers(model, layers)
    A, D = layer_factors(model, X)
    K = ntk_from_factors(A, D, sel)
    if model.biases is None:
        return K
    return K + bias_ntk(A, D, model.bias_mult)


def layer_weights(depth: int, layer_std=None, parameterization: str = "ntk", width: float | None = None,
                  c: float = 2.0) -> np.ndarray:
    """Relative weights w_k (k = 1..L+1) of the layer kernels in the NTK of a bias-free ReLU :class:`VariantMLP`.

    NTK parameterization: w_k = sigma_k^-2 (up to a common factor; multipliers do not enter).
    Standard: w_1 = sigma_1^-2, w_k = (m / c) sigma_k^-2 for k >= 2 (``width=None`` means m -> oo,
    i.e. w_1 = 0). Normalized to sum 1.
    """
    if parameterization not in PARAMETERIZATIONS:
        raise InputError(f"parameterization must be one of {PARAMETERIZATIONS}, got {parameterization!r}")
    depth = check_int(depth, "depth", 0, meaning="number of hidden layers")
    if width is not None:
        width = check_real(width, "width", low=0.0, low_open=True)
    w = np.array([s ** -2 for s in _positive_seq("layer_std", layer_std, depth + 1)])
    if parameterization == "standard":
        if width is None:
            if depth == 0:
                raise InputError("depth 0 has no hidden layer: the infinite-width standard weights are undefined")
            w[0] = 0.0
        else:
            w[1:] *= width / c
    return w / w.sum()


def relu_weighted_gradient_angle(theta_in, depth: int, weights) -> np.ndarray:
    """Infinite-width gradient angle when layer kernel k is weighted by ``weights[k-1]`` (k = 1..L+1).

    A thin wrapper of :func:`lib.theory.relu_gradient_angle_weighted` ([LH] Lemma 3.1 with weighted layer
    kernels); pass :func:`layer_weights` for a :class:`VariantMLP`.
    """
    depth = check_int(depth, "depth", 0, meaning="number of hidden layers")
    w = real_array(weights, "weights", low=0.0)
    if w.shape != (depth + 1,) or not w.sum() > 0:
        raise InputError(f"weights must be {depth + 1} non-negative numbers with a positive sum, got {weights!r}")
    return relu_gradient_angle_weighted(theta_in, depth, w)
