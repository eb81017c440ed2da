"""The exact empirical NTK of :class:`lib.finite.mlp.MLP`, without ever forming a Jacobian.

For f(x) = W^(L+1) a^(L)(x) with h^(l) = W^(l) a^(l-1), the gradient with respect to W^(l)
is the outer product delta^(l)(x) a^(l-1)(x)^T, delta^(l) = d f / d h^(l). Hence

    K(x, z) = sum_{l=1..L+1} <delta^(l)(x), delta^(l)(z)> <a^(l-1)(x), a^(l-1)(z)>
    K       = sum_l (D_l D_l^T) o (A_{l-1} A_{l-1}^T)          (o: Hadamard product)

with delta^(L+1) = 1 (the output layer gives A_L A_L^T). One forward and one backward pass
of sum_i f(x_i) give all A_l and D_l; the kernel costs 2 (L+1) matrix products of size
n x m x n and O(L n m + n^2) memory, against O(n P) for the Jacobian (P = number of weights).
The reference Jacobian contraction lives in :mod:`lib.finite.reference`.
"""
from __future__ import annotations

from typing import Iterable

import numpy as np
import torch

from lib.data.pairs import pair_angles
from lib.finite.mlp import MLP

__all__ = ["empirical_ntk", "layer_factors", "resolve_layers", "pair_gradient_angles"]


def resolve_layers(model: MLP, layers: Iterable[int] | str | None) -> list[int]:
    """Normalize a trainable-layer selection to a sorted list of 1-based layer indices.

    ``None`` or ``"all"``: every layer 1..L+1; ``"first"``: only W^(1) ([LH] Thm 4.2);
    ``"last"``: only the output layer W^(L+1); or an iterable of indices in 1..L+1.
    """
    n_layers = model.depth + 1
    if layers is None or (isinstance(layers, str) and layers == "all"):
        return list(range(1, n_layers + 1))
    if isinstance(layers, str):
        if layers == "first":
            return [1]
        if layers == "last":
            return [n_layers]
        raise ValueError(f"layers must be 'all', 'first', 'last' or layer indices, got {layers!r}")
    out = sorted(set(int(l) for l in layers))
    if not out or out[0] < 1 or out[-1] > n_layers:
        raise ValueError(f"layer indices must lie in 1..{n_layers} (depth {model.depth}), got {list(layers)}")
    return out


def layer_factors(model: MLP, X, chunk_size: int = 8192) -> tuple[list[torch.Tensor], list[list[torch.Tensor]]]:
    """Embeddings A_0..A_L and backward vectors D_1..D_L per output ([LH] Eq. 1; THEORY.md Sec. 2).

    Returns ``(A, D)`` with ``A[l]`` of shape (n, m_l) and ``D[k][l-1]`` = d f_k / d h^(l) of shape
    (n, m_l) for hidden layers l = 1..L. Rows are processed in chunks of ``chunk_size``.
    """
    X = model.prepare(X)
    n = X.shape[0]
    A_parts: list[list[torch.Tensor]] = [[] for _ in range(model.depth + 1)]
    D_parts: list[list[list[torch.Tensor]]] = [[[] for _ in range(model.depth)] for _ in range(model.out_dim)]
    with torch.enable_grad():
        for start in range(0, n, chunk_size):
            hs, acts, out = model.features(X[start:start + chunk_size], keep_graph=True)
            for l, a in enumerate(acts):
                A_parts[l].append(a.detach())
            if model.depth == 0:
                continue
            for k in range(model.out_dim):
                grads = torch.autograd.grad(out[:, k].sum(), hs[:-1], retain_graph=k < model.out_dim - 1)
                for l, g in enumerate(grads):
                    D_parts[k][l].append(g.detach())
    A = [torch.cat(p) for p in A_parts]
    D = [[torch.cat(p) for p in per_k] for per_k in D_parts]
    return A, D


def empirical_ntk(
    model: MLP,
    X,
    layers: Iterable[int] | str | None = None,
    block_size: int = 4096,
    chunk_size: int = 8192,
) -> np.ndarray:
    """The exact empirical NTK K = F F^T of ``model`` on the rows of ``X`` ([LH] Sec. 2; THEORY.md Sec. 2).

    Args:
        model: a :class:`lib.finite.mlp.MLP` at its current weights.
        X: inputs of shape (n, in_dim).
        layers: which weight matrices are trainable: ``None``/"all", ``"first"`` (the kernel
            of [LH] Thm 4.2, first layer trainable only), ``"last"``, or 1-based indices.
        block_size: the n x n kernel is assembled in blocks of this many rows/columns, so
            that temporaries stay O(block_size^2) (n in the tens of thousands fits in memory).
        chunk_size: rows per forward/backward pass.

    Returns:
        float64 array of shape (n, n), or (n k, n k) for ``out_dim = k > 1`` with index
        ``i * k + c`` for output c of sample i.
    """
    if not isinstance(model, MLP):
        raise TypeError(f"empirical_ntk needs a lib.finite.mlp.MLP, got {type(model).__name__}; "
                        "use lib.finite.reference.jacobian_ntk for other models")
    if block_size < 1 or chunk_size < 1:
        raise ValueError("block_size and chunk_size must be positive")
    sel = resolve_layers(model, layers)
    A, D = layer_factors(model, X, chunk_size)
    n, k_out, L = A[0].shape[0], model.out_dim, model.depth
    dev, dt = A[0].device, A[0].dtype
    K = torch.zeros(n * k_out, n * k_out, dtype=dt, device=dev)
    Kv = K.view(n, k_out, n, k_out)
    blocks = [slice(s, min(s + block_size, n)) for s in range(0, n, block_size)]
    for bi, I in enumerate(blocks):
        for J in blocks[bi:]:
            gram = {l: A[l][I] @ A[l][J].T for l in {s - 1 for s in sel}}
            for c in range(k_out):
                for c2 in range(k_out):
                    blk = gram[L].clone() if (L + 1 in sel and c == c2) else torch.zeros_like(gram[sel[0] - 1])
                    for l in sel:
                        if l <= L:
                            blk.addcmul_(D[c][l - 1][I] @ D[c2][l - 1][J].T, gram[l - 1])
                    Kv[I, c, J, c2] = blk
                    if J != I:
                        Kv[J, c2, I, c] = blk.T
    return K.cpu().numpy()


def pair_gradient_angles(model, X) -> np.ndarray:
    """phi for every pair of ``X`` (from :func:`angle_pairs`): the angle between grad f(x_2i) and grad f(x_2i+1).

    ``model`` is a :class:`lib.finite.mlp.MLP` (exact fast NTK, :func:`lib.finite.ntk.empirical_ntk`) or any
    model with a ``ntk(X)`` method (e.g. :mod:`lib.finite.variants`).
    """
    if isinstance(model, MLP) and not hasattr(model, "ntk"):
        K = empirical_ntk(model, X)
    elif hasattr(model, "ntk"):
        K = model.ntk(X)
    else:
        raise TypeError(f"need a lib.finite.mlp.MLP or a model with an ntk(X) method, got {type(model).__name__}")
    return pair_angles(K)

