"""The ReLU NTKs of all depths of one seed at once, from shared layer Gram matrices ([LH] Sec. 2).

The network of depth L drawn with seed s has the same hidden weights W_1..W_L as every deeper network
of that seed (:class:`lib.finite.mlp.MLP` draws its weights in layer order from one generator), so
the embeddings A_l and their Gram matrices G_l = A_l A_l^T are shared across depths. Only the backward
vectors D_l (which depend on the output layer) differ, and

    K_L = A_L A_L^T + sum_{l=1..L} (D_l D_l^T) o G_{l-1}

(the formulas page ``book/formulas.md``, section ``formulas-ntk``). Each Gram matrix is a symmetric
rank-m update (BLAS ``dsyrk``, half the work of a general product): about L + 1 of them per depth
instead of 2 L + 1 products for a kernel computed from scratch.
"""
from __future__ import annotations

import math
import time
from typing import Iterator, Sequence

import numpy as np
import torch
from scipy.linalg import blas

from lib.finite.mlp import MLP
from lib.validation import InputError

__all__ = ["gram_upper", "relu_depth_kernels", "SHARED_MAX_N"]

#: the shared path keeps max(depths) + 1 Gram matrices of n x n float64; above this n it is not used
#: (5,000: all of MNIST-5k, 11 Gram matrices of 200 MB at depths 0..10)
SHARED_MAX_N = 5000


def gram_upper(A: np.ndarray) -> np.ndarray:
    """The upper triangle of A A^T (float64, Fortran order; the strict lower triangle is zero), by ``dsyrk``.

    Args:
        A: an (n, m) array.

    Returns:
        (n, n) array.
    """
    return blas.dsyrk(1.0, np.asarray(A, dtype=np.float64), lower=0)


def _symmetrize(U: np.ndarray) -> np.ndarray:
    K = np.array(U, order="C")
    il = np.tril_indices(K.shape[0], -1)
    K[il] = K.T[il]
    return K


def relu_depth_kernels(X, width: int, depths: Sequence[int], seed: int, first_layer: bool = False
                       ) -> Iterator[tuple[int, np.ndarray, np.ndarray | None, float]]:
    """The exact NTK of the ReLU :class:`lib.finite.mlp.MLP` of each depth in ``depths`` (seed ``seed``).

    Same values as :func:`lib.finite.ntk.empirical_ntk` (and, with ``first_layer``, the first-layer
    kernel (D_1 D_1^T) o (X X^T) of [LH] Thm 4.2), computed from shared embeddings.

    Args:
        X: inputs (n, d), n <= :data:`SHARED_MAX_N`.
        width: hidden width m.
        depths: depths L >= 0.
        seed: weight seed.
        first_layer: also the first-layer kernel (None at depth 0).

    Yields:
        ``(L, K, K_1, seconds)`` per depth in the order given; ``seconds`` is the time of that depth's
        kernel plus its share of the embeddings.

    Raises:
        lib.validation.InputError: n too large, or a network whose hidden weights are not those of the
            deepest one (the shared path would be wrong).
    """
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    if n > SHARED_MAX_N:
        raise InputError(f"relu_depth_kernels keeps {max(depths) + 1} n x n Gram matrices: n = {n} > {SHARED_MAX_N}")
    depths = [int(L) for L in depths]
    t0 = time.perf_counter()
    Lmax = max(depths)
    deep = MLP(d, width, Lmax, activation="relu", seed=seed)
    W = [w.detach().cpu().numpy() for w in deep.weights[:Lmax]]
    s = math.sqrt(2.0 / width)
    A, gates = [X], []
    for l in range(Lmax):
        H = A[-1] @ W[l].T
        gates.append(H > 0)
        A.append(s * np.maximum(H, 0.0))
    G = [gram_upper(a) for a in A]
    shared = (time.perf_counter() - t0) / max(len(depths), 1)
    for L in depths:
        t = time.perf_counter()
        if L == 0:
            yield 0, _symmetrize(G[0]), None, shared + time.perf_counter() - t
            continue
        net = MLP(d, width, L, activation="relu", seed=seed)
        for l in range(L):
            if not torch.equal(net.weights[l].detach().cpu(), deep.weights[l].detach().cpu()):
                raise InputError(f"the depth-{L} network of seed {seed} does not share layer {l + 1} with the "
                                 f"depth-{Lmax} one")
        v = net.weights[L].detach().cpu().numpy()[0]
        D = s * gates[L - 1] * v[None, :]
        U = G[L].copy(order="F")
        K1 = None
        for l in range(L, 0, -1):
            term = gram_upper(D) * G[l - 1]
            U += term
            if l == 1 and first_layer:
                K1 = _symmetrize(term)
            if l > 1:
                D = s * gates[l - 2] * (D @ W[l - 1])
        yield L, _symmetrize(U), K1, shared + time.perf_counter() - t
