"""A port of the forward pass and NTK of the authors' published code for [LH] Sec. 4.1 (their scripts
``condition_num.py`` and ``min_angle.py``), written here to compare with :mod:`lib.finite.ntk`.

Their network (bias-free, all weights N(0, 1), ``layer_sizes = [d, m, ..., m, 1]``) is

    a_1 = s(W_1 x) sqrt(2 / d),   a_l = s(W_l a_{l-1}) sqrt(2 / m)  (l = 2..L),   f = W_{L+1} a_L sqrt(2 / m)

(``s`` = ReLU, or the identity for their linear network), i.e. every layer is scaled by sqrt(2 / fan_in),
the first one by sqrt(2 / d) and the output one too. Ours ([LH] Eq. 1, :class:`lib.finite.mlp.MLP`)
scales hidden layers by sqrt(c_s / m) and not the output. For the same weights, by positive
homogeneity of ReLU, their f is sqrt(2 / d) times ours, so their NTK is exactly (2 / d) times ours; for
the linear networks (c_s = 1 in ours) the factor is 2^(L+1) / d (:func:`ntk_scale`). Their NTK is the
"trace" NTK of ``functorch`` (``vmap(jacrev(...))`` and ``einsum('Naf,Maf->NM')`` summed over weight
matrices), their kappa is the ratio of the extreme real parts of a general ``np.linalg.eig``, their
minimum angle the arccos of the largest off-diagonal cosine (:func:`authors_kappa`,
:func:`authors_min_angle`). This is our own port for the comparison, not a dependency. The
scaling is derived on the formulas page, ``book/formulas.md`` (section ``formulas-authors``).
"""
from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn
from torch.func import functional_call, jacrev, vmap

from lib.finite.mlp import MLP
from lib.validation import InputError, as_data, as_matrix, check_int, check_seed, positive_int

__all__ = ["AuthorsNet", "from_mlp", "authors_ntk", "authors_kappa", "authors_min_angle", "ntk_scale"]


class AuthorsNet(nn.Module):
    """The authors' bias-free MLP (their class ``NN``), in float64.

    Args:
        layer_sizes: ``[d, m, ..., m, 1]`` (L hidden layers).
        activation: ``"relu"`` (``condition_num.py``) or ``"linear"`` (``min_angle.py``).
        seed: seed of the N(0, 1) weights (ignored by :func:`from_mlp`, which copies weights).
    """

    def __init__(self, layer_sizes: list[int], activation: str = "relu", seed: int = 0) -> None:
        super().__init__()
        if activation not in ("relu", "linear"):
            raise InputError(f"activation must be 'relu' or 'linear', got {activation!r}")
        if isinstance(layer_sizes, (str, bytes)) or not hasattr(layer_sizes, "__len__") or len(layer_sizes) < 2:
            raise InputError(f"layer_sizes must be at least [d, 1] with positive sizes, got {layer_sizes!r}")
        self.layer_sizes = [positive_int(s, f"layer_sizes[{i}]") for i, s in enumerate(layer_sizes)]
        self.activation = activation
        gen = torch.Generator().manual_seed(check_seed(seed))
        self.linears = nn.ModuleList()
        for i in range(len(self.layer_sizes) - 1):
            lin = nn.Linear(self.layer_sizes[i], self.layer_sizes[i + 1], bias=False, dtype=torch.float64)
            with torch.no_grad():
                lin.weight.copy_(torch.randn(lin.weight.shape, generator=gen, dtype=torch.float64))
            self.linears.append(lin)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Their forward pass: every layer times sqrt(2 / fan_in); output shape (n, 1)."""
        for a, lin in enumerate(self.linears[:-1]):
            h = lin(x)
            x = (torch.relu(h) if self.activation == "relu" else h) / math.sqrt(self.layer_sizes[a]) * math.sqrt(2)
        return self.linears[-1](x) / math.sqrt(self.layer_sizes[-2]) * math.sqrt(2)


def from_mlp(model: MLP) -> AuthorsNet:
    """The authors' network with the same weights as a scalar-output ReLU or linear :class:`lib.finite.mlp.MLP`.

    Args:
        model: a bias-free MLP of [LH] Eq. (1) with activation ``"relu"`` or ``"linear"``.

    Returns:
        An :class:`AuthorsNet` whose weight matrices are copies of ``model.weights`` (float64, CPU).
    """
    if model.out_dim != 1 or model.activation.name not in ("relu", "linear"):
        raise InputError("from_mlp needs a scalar-output MLP with activation 'relu' or 'linear'")
    net = AuthorsNet([model.in_dim, *model.hidden, 1], activation=model.activation.name)
    with torch.no_grad():
        for lin, W in zip(net.linears, model.weights):
            lin.weight.copy_(W.detach().to("cpu", torch.float64))
    return net


def authors_ntk(net: AuthorsNet, X1, X2=None) -> np.ndarray:
    """Their empirical NTK: per-sample Jacobians by ``vmap(jacrev)``, ``einsum('Naf,Maf->NM')`` summed over layers.

    Args:
        net: an :class:`AuthorsNet`.
        X1: inputs (n1, d).
        X2: inputs (n2, d); default ``X1``.

    Returns:
        float64 array (n1, n2) (their code returns K(X2, X1) blocks; the matrix is symmetric for X2 = X1).
    """
    params = {k: v.detach() for k, v in net.named_parameters()}
    x1 = torch.from_numpy(as_data(X1, net.layer_sizes[0], "X1"))
    x2 = x1 if X2 is None else torch.from_numpy(as_data(X2, net.layer_sizes[0], "X2"))

    def fnet_single(p, x):
        return functional_call(net, p, (x.unsqueeze(0),)).squeeze(0)

    jac1 = [j.flatten(2) for j in vmap(jacrev(fnet_single), (None, 0))(params, x1).values()]
    jac2 = jac1 if X2 is None else [j.flatten(2) for j in vmap(jacrev(fnet_single), (None, 0))(params, x2).values()]
    K = torch.stack([torch.einsum("Naf,Maf->NM", a, b) for a, b in zip(jac1, jac2)]).sum(0)
    return K.numpy()


def authors_kappa(K) -> float:
    """Their kappa: the largest over the smallest real part of a general ``np.linalg.eig`` (not ``eigh``).

    For a singular kernel the smallest real part is rounding noise, so the result can be negative or
    about 1e17 (in float32) instead of infinite; compare :func:`lib.spectra.condition_number`.

    Args:
        K: a square matrix.

    Returns:
        ``lambda[0] / lambda[-1]`` of the real parts sorted in decreasing order.
    """
    lam = np.sort(np.real(np.linalg.eig(as_matrix(K))[0]))[::-1]
    return float(lam[0] / lam[-1])


def authors_min_angle(K) -> float:
    """Their minimum gradient angle (radians): arccos of the largest off-diagonal cosine (``min_angle.py``).

    Args:
        K: an NTK (n x n, positive diagonal).

    Returns:
        The angle; 90 degrees if no cosine is positive (their running maximum starts at 0).
    """
    K = as_matrix(K)
    d = np.sqrt(np.diag(K))
    C = K / d[:, None] / d[None, :]
    np.fill_diagonal(C, 0.0)
    return float(np.arccos(min(max(C.max(), 0.0), 1.0)))


def ntk_scale(in_dim: int, depth: int, activation: str = "relu") -> float:
    """Their NTK divided by ours for the same weights: 2/d (ReLU), 2^(L+1)/d (linear).

    Args:
        in_dim: input dimension d.
        depth: number of hidden layers L.
        activation: ``"relu"`` or ``"linear"``.

    Returns:
        The factor.
    """
    in_dim, depth = positive_int(in_dim, "in_dim"), check_int(depth, "depth", 0, meaning="number of hidden layers")
    if activation not in ("relu", "linear"):
        raise InputError(f"activation must be 'relu' or 'linear', got {activation!r}")
    return 2.0 / in_dim if activation == "relu" or depth == 0 else 2.0 ** (depth + 1) / in_dim
