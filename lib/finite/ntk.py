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

import math
import time
from typing import Iterable, Iterator, Sequence

import numpy as np
import torch
from scipy.linalg import blas

from lib.finite.mlp import MLP
from lib.validation import (InputError, InputTypeError, as_data, check_int, check_kernel_scale, check_real, check_seed,
                            positive_int, real_array, real_tensor)

__all__ = ["empirical_ntk", "ntk_with_layer_terms", "ntk_from_factors", "bias_ntk", "layer_factors", "resolve_layers",
           "linear_gram", "linear_features", "check_kernel", "gram_upper", "relu_depth_kernels", "relu_depth_batch_kernels",
           "SHARED_MAX_N"]


def _resolve(n_layers: int, depth: int, layers: Iterable[int] | str | None) -> list[int]:
    if layers is None or (isinstance(layers, str) and layers == "all"):
        return list(range(1, n_layers + 1))
    if isinstance(layers, str):
        if layers == "first":
            return [1]
        if layers == "last":
            return [n_layers]
        raise InputError(f"layers must be 'all', 'first', 'last' or layer indices, got {layers!r}")
    try:
        items = list(layers)
    except TypeError:
        raise InputTypeError(f"layers must be 'all', 'first', 'last' or layer indices, got {layers!r}") from None
    bad = [l for l in items if isinstance(l, (bool, np.bool_)) or not isinstance(l, (int, np.integer))]
    if bad:
        raise InputTypeError(f"layer indices must be integers in 1..{n_layers}, got {bad} in layers={items!r}")
    out = sorted(set(int(l) for l in items))
    if not out or out[0] < 1 or out[-1] > n_layers:
        raise InputError(f"layer indices must lie in 1..{n_layers} (depth {depth}), got {list(layers)}")
    return out


def resolve_layers(model: MLP, layers: Iterable[int] | str | None) -> list[int]:
    """Normalize a trainable-layer selection to a sorted list of 1-based layer indices.

    Args:
        model: the network (only its ``depth`` L is used).
        layers: ``None`` or ``"all"``: every layer 1..L+1; ``"first"``: only W^(1) ([LH] Thm 4.2);
            ``"last"``: only the output layer W^(L+1); or an iterable of indices in 1..L+1.

    Returns:
        The sorted, de-duplicated 1-based layer indices.
    """
    return _resolve(model.depth + 1, model.depth, layers)


def layer_factors(model: MLP, X, chunk_size: int = 8192) -> tuple[list[torch.Tensor], list[list[torch.Tensor]]]:
    """Embeddings A_0..A_L and backward vectors D_1..D_L per output ([LH] Eq. 1 and Sec. 2).

    Args:
        model: a :class:`lib.finite.mlp.MLP` (or subclass) at its current weights.
        X: inputs of shape (n, in_dim).
        chunk_size: rows per forward/backward pass.

    Returns:
        ``(A, D)`` with ``A[l]`` = a^(l) of shape (n, m_l), l = 0..L, and ``D[k][l-1]`` = d f_k / d h^(l)
        of shape (n, m_l) for hidden layers l = 1..L and outputs k (tensors of the model's dtype).
    """
    positive_int(chunk_size, "chunk_size")
    model.check_weights()
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


def _assemble(A: list[torch.Tensor], D: list[list[torch.Tensor]], sel: list[int], block_size: int,
              terms: Sequence[int] = ()) -> tuple[torch.Tensor, dict[int, torch.Tensor]]:
    """The Hadamard-of-Grams sum over the layers ``sel``, blockwise; also the single-layer kernels ``terms``.

    The one implementation of K = sum_l (D_l D_l^T) o (A_{l-1} A_{l-1}^T) (+ A_L A_L^T for the output
    layer, on the diagonal output blocks only).
    """
    positive_int(block_size, "block_size")
    n, k_out, L = A[0].shape[0], len(D), len(A) - 1
    dev, dt = A[0].device, A[0].dtype
    K = torch.zeros(n * k_out, n * k_out, dtype=dt, device=dev)
    Kv = K.view(n, k_out, n, k_out)
    T = {l: torch.zeros(n * k_out, n * k_out, dtype=dt, device=dev) for l in terms}
    Tv = {l: t.view(n, k_out, n, k_out) for l, t in T.items()}
    blocks = [slice(s, min(s + block_size, n)) for s in range(0, n, block_size)]
    grams_needed = {s - 1 for s in sel} | {s - 1 for s in terms}
    for bi, I in enumerate(blocks):
        for J in blocks[bi:]:
            gram = {l: A[l][I] @ A[l][J].T for l in grams_needed}
            for c in range(k_out):
                for c2 in range(k_out):
                    out_blk = L + 1 in sel and c == c2
                    blk = gram[L].clone() if out_blk else torch.zeros_like(gram[sel[0] - 1])
                    if L + 1 in Tv and c == c2:
                        _put(Tv[L + 1], I, J, c, c2, gram[L])
                    for l in sorted(set(sel) | set(terms)):
                        if l > L:
                            continue
                        dd = D[c][l - 1][I] @ D[c2][l - 1][J].T
                        if l in Tv:
                            _put(Tv[l], I, J, c, c2, dd * gram[l - 1])
                        if l in sel:
                            blk.addcmul_(dd, gram[l - 1])
                    _put(Kv, I, J, c, c2, blk)
    check_kernel(K, A[0])
    return K, T


def check_kernel(K: torch.Tensor, X: torch.Tensor, what: str = "the empirical NTK") -> None:
    """Refuse a kernel that overflowed (NaN/inf) or underflowed, saying how large the inputs are.

    Args:
        K: the kernel as computed (its dtype decides the underflow threshold).
        X: the inputs it was computed on.
        what: the kernel, for the message.

    Raises:
        lib.validation.InputError: see :func:`lib.validation.check_kernel_scale`.
    """
    real_tensor(K, "K"), real_tensor(X, "X")
    check_kernel_scale(int((~torch.isfinite(K)).sum()), float(K.diagonal().abs().max()), K.dtype, what,
                       f"the inputs have max |x| = {float(X.abs().max()):.3g} (the kernel scales like |x|^2 "
                       "for ReLU): rescale X, e.g. load it with unit_norm=True", float(X.abs().max()))


def _put(Kv: torch.Tensor, I: slice, J: slice, c: int, c2: int, blk: torch.Tensor) -> None:
    Kv[I, c, J, c2] = blk
    if J != I:
        Kv[J, c2, I, c] = blk.T


def _check_factors(A, D) -> None:
    """The factors of :func:`layer_factors`: A a list of L + 1 real tensors, D one list of L real tensors per output."""
    if not isinstance(A, (list, tuple)) or not A or not isinstance(D, (list, tuple)) or not D:
        raise InputTypeError("A and D must be the lists of factors that layer_factors returns")
    for a in A:
        real_tensor(a, "A")
    for Dc in D:
        if not isinstance(Dc, (list, tuple)) or len(Dc) != len(A) - 1:
            raise InputError(f"D must hold, per output, one factor per hidden layer ({len(A) - 1}); "
                             "use the D of layer_factors")
        for t in Dc:
            real_tensor(t, "D")


def ntk_from_factors(A: list[torch.Tensor], D: list[list[torch.Tensor]], layers: Iterable[int] | str | None = None,
                     block_size: int = 4096) -> np.ndarray:
    """The NTK sum_l (D_l D_l^T) o (A_{l-1} A_{l-1}^T) from the factors of :func:`layer_factors` ([LH] Sec. 2).

    Args:
        A, D: the output of :func:`layer_factors` (one forward/backward pass may serve several kernels).
        layers: trainable layers, as in :func:`resolve_layers`.
        block_size: rows/columns per block of the n x n assembly.

    Returns:
        float64 array of shape (n k, n k) (k outputs, index ``i * k + c``).
    """
    _check_factors(A, D)
    L = len(A) - 1
    K, _ = _assemble(A, D, _resolve(L + 1, L, layers), block_size)
    return K.cpu().numpy().astype(np.float64, copy=False)


def bias_ntk(A: list[torch.Tensor], D: list[list[torch.Tensor]], bias_scale: float) -> np.ndarray:
    """The tangent kernel of the biases h^(k) = W^(k) a^(k-1) + beta b^(k), k = 1..L+1 ([LH] App. B).

    d f / d b^(k) = beta delta^(k), so the biases add beta^2 (sum_{k=1..L} D_k D_k^T + 1), the 1 from the
    output bias (delta^(L+1) = 1).

    Args:
        A, D: the output of :func:`layer_factors` for a scalar-output network.
        bias_scale: beta, the multiplier of the biases in the forward pass.

    Returns:
        float64 array of shape (n, n), to be added to the weight kernel (:func:`ntk_from_factors`).
    """
    _check_factors(A, D)
    bias_scale = check_real(bias_scale, "bias_scale")
    if len(D) != 1:
        raise InputError(f"bias_ntk supports scalar-output networks only, got {len(D)} outputs")
    n = A[0].shape[0]
    extra = torch.zeros((n, n), dtype=torch.float64)
    for Dk in D[0]:
        extra += (Dk @ Dk.T).to(torch.float64).cpu()
    return float(bias_scale) ** 2 * (extra.numpy() + 1.0)


def empirical_ntk(
    model: MLP,
    X,
    layers: Iterable[int] | str | None = None,
    block_size: int = 4096,
    chunk_size: int = 8192,
) -> np.ndarray:
    """The exact empirical NTK K = F F^T of ``model`` on the rows of ``X`` ([LH] Sec. 2).

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
    _check_model(model, "empirical_ntk")
    positive_int(block_size, "block_size")
    positive_int(chunk_size, "chunk_size")
    sel = resolve_layers(model, layers)
    A, D = layer_factors(model, X, chunk_size)
    K, _ = _assemble(A, D, sel, block_size)
    return K.cpu().numpy().astype(np.float64, copy=False)


def ntk_with_layer_terms(
    model: MLP,
    X,
    terms: Iterable[int] = (1,),
    layers: Iterable[int] | str | None = None,
    block_size: int = 4096,
    chunk_size: int = 8192,
) -> tuple[np.ndarray, dict[int, np.ndarray]]:
    """The NTK and single-layer kernels K_l from one forward/backward pass ([LH] Sec. 2 and Thm 4.2).

    K_l = (D_l D_l^T) o (A_{l-1} A_{l-1}^T) is the NTK with only W^(l) trainable (K_{L+1} = A_L A_L^T);
    K_1 is the first-layer kernel of [LH] Thm 4.2. The full kernel is the same as
    :func:`empirical_ntk` with the same ``layers``; each K_l equals ``empirical_ntk(model, X, layers=[l])``.

    Args:
        model: a :class:`lib.finite.mlp.MLP` at its current weights.
        X: inputs of shape (n, in_dim).
        terms: the layers l in 1..L+1 whose kernels K_l are returned as well (may be empty).
        layers, block_size, chunk_size: as in :func:`empirical_ntk`.

    Returns:
        ``(K, {l: K_l})``, float64 arrays of the shape of :func:`empirical_ntk`'s result.
    """
    _check_model(model, "ntk_with_layer_terms")
    positive_int(block_size, "block_size")
    positive_int(chunk_size, "chunk_size")
    sel = resolve_layers(model, layers)
    terms = list(terms)
    wanted = resolve_layers(model, terms) if terms else []
    A, D = layer_factors(model, X, chunk_size)
    K, T = _assemble(A, D, sel, block_size, wanted)
    return (K.cpu().numpy().astype(np.float64, copy=False),
            {l: t.cpu().numpy().astype(np.float64, copy=False) for l, t in T.items()})


def _check_model(model, fname: str) -> None:
    if not isinstance(model, MLP):
        raise InputTypeError(f"{fname} needs a lib.finite.mlp.MLP, got {type(model).__name__}; "
                        "use lib.finite.tangent.model_ntk for any model")


def linear_gram(net: MLP) -> np.ndarray:
    """Q = K(I_d, I_d), the NTK of a linear network on the d unit vectors, symmetrized ([LH] Cor 2.4).

    A linear network's gradient is linear in x, so its NTK is K(x, y) = x^T Q y at any width and depth.

    Args:
        net: a scalar-output MLP with the linear activation (or of depth 0).

    Returns:
        float64 array (d, d).
    """
    _check_model(net, "linear_gram")
    if net.activation.name != "linear" and net.depth > 0:
        raise InputError("linear_gram (and linear_features) needs a linear network")
    if net.out_dim != 1:
        raise InputError(f"linear_gram (and linear_features) needs a scalar-output network, got out_dim={net.out_dim}")
    Q = empirical_ntk(net, np.eye(net.in_dim))
    return (Q + Q.T) / 2


def linear_features(net: MLP, X) -> np.ndarray:
    """Features F (n x d) with F F^T = the NTK of a linear network ([LH] Cor 2.4: rank <= d at any width).

    A linear network's gradient is linear in x, so K(x, y) = x^T Q y with Q = K(I_d, I_d), the NTK on
    the unit vectors (:func:`linear_gram`); F = X Q^(1/2).

    Args:
        net: a scalar-output MLP with the linear activation.
        X: inputs (n, d) (checked by :func:`lib.validation.as_data`).

    Returns:
        float64 array (n, d).
    """
    w, V = np.linalg.eigh(linear_gram(net))
    return as_data(X, net.in_dim) @ (V * np.sqrt(np.clip(w, 0.0, None)))


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
    return blas.dsyrk(1.0, real_array(A, "A"), lower=0)


def _symmetrize(U: np.ndarray) -> np.ndarray:
    K = np.array(U, order="C")
    il = np.tril_indices(K.shape[0], -1)
    K[il] = K.T[il]
    return K


def _checked(K: np.ndarray, X: np.ndarray) -> np.ndarray:
    """``K`` after :func:`check_kernel` (overflow, or digits lost to underflow)."""
    check_kernel(torch.from_numpy(K), torch.from_numpy(X))
    return K


def _depth_kernel_args(X, width, depths, seed) -> tuple[np.ndarray, int, list[int], int]:
    """The checked arguments of :func:`relu_depth_kernels` and :func:`relu_depth_batch_kernels`."""
    X = as_data(X)
    width, seed = positive_int(width, "width"), check_seed(seed)
    if isinstance(depths, (str, bytes)) or not hasattr(depths, "__iter__"):
        raise InputTypeError(f"depths must be a sequence of depths, got {depths!r}")
    depths = [check_int(L, "depths", 0, meaning="numbers of hidden layers") for L in depths]
    if not depths:
        raise InputError("depths is empty: give at least one depth")
    return X, width, depths, seed


def relu_depth_kernels(X, width: int, depths: Sequence[int], seed: int, first_layer: bool = False
                       ) -> Iterator[tuple[int, np.ndarray, np.ndarray | None, float]]:
    """The exact NTK of the ReLU :class:`lib.finite.mlp.MLP` of each depth in ``depths`` (seed ``seed``),
    all depths of one seed at once from shared layer Gram matrices ([LH] Sec. 2).

    Same values as :func:`empirical_ntk` (and, with ``first_layer``, the first-layer kernel
    (D_1 D_1^T) o (X X^T) of [LH] Thm 4.2). The network of depth L drawn with seed s has the same hidden
    weights W_1..W_L as every deeper network of that seed (:class:`lib.finite.mlp.MLP` draws its weights in
    layer order from one generator), so the embeddings A_l and their Gram matrices G_l = A_l A_l^T are shared
    across depths. Only the backward vectors D_l (which depend on the output layer) differ, and

        K_L = A_L A_L^T + sum_{l=1..L} (D_l D_l^T) o G_{l-1}

    (the formulas page ``book/formulas.md``, section ``formulas-ntk``). Each Gram matrix is a symmetric
    rank-m update (:func:`gram_upper`, half the work of a general product): about L + 1 of them per depth
    instead of 2 L + 1 products for a kernel computed from scratch.

    Args:
        X: inputs (n, d), n <= :data:`SHARED_MAX_N`.
        width: hidden width m.
        depths: depths L >= 0.
        seed: weight seed.
        first_layer: also the first-layer kernel (None at depth 0).

    Yields:
        ``(L, K, K_1, seconds)`` per depth in the order given; ``seconds`` is the time of that depth's
        kernel plus its share of the embeddings (and of drawing the networks).

    Raises:
        lib.validation.InputError: n too large, or a network whose hidden weights are not those of the
            deepest one (the shared path would be wrong).
    """
    X, width, depths, seed = _depth_kernel_args(X, width, depths, seed)
    t0 = time.perf_counter()
    nets = _relu_depth_weights(X.shape[1], width, depths, seed)
    yield from _relu_kernels_of(X, nets, depths, first_layer, time.perf_counter() - t0)


def relu_depth_batch_kernels(X, batches: Sequence[np.ndarray], width: int, depths: Sequence[int], seed: int
                             ) -> Iterator[tuple[int, list[tuple[int, np.ndarray, None, float]]]]:
    """:func:`relu_depth_kernels` of each batch ``X[b]`` in turn, the networks of every depth drawn once.

    The NTK of a batch is the kernel of its rows; the networks are those of the seed whatever the batch, so
    they are drawn (and checked to share their hidden layers) once, not once per batch ([LH] Sec. 4.1: the
    authors' protocol reads the kernels of many batches of one network).

    Args:
        X: inputs (n, d).
        batches: index arrays of the batches, each of at most :data:`SHARED_MAX_N` rows.
        width: hidden width m.
        depths: depths L >= 0.
        seed: weight seed.

    Returns:
        an iterator of ``(i, kernels)`` per batch ``i`` in order (the arguments checked at the call), ``kernels`` the list of ``(L, K, None, seconds)`` of
        :func:`relu_depth_kernels` on ``X[batches[i]]`` (the time of drawing the networks goes to the first batch).
    """
    X, width, depths, seed = _depth_kernel_args(X, width, depths, seed)
    batches = [_batch_index(b, i, X.shape[0]) for i, b in enumerate(batches)]
    return _batch_kernels(X, batches, width, depths, seed)


def _batch_index(b, i: int, n: int) -> np.ndarray:
    """Batch ``i`` of :func:`relu_depth_batch_kernels` as an index array into n rows, or one message naming it."""
    arr = np.asarray(b)
    if arr.ndim != 1 or arr.size == 0 or arr.dtype.kind not in "iu":
        raise InputError(f"batches[{i}] must be a non-empty 1-d array of row indices, got {arr.dtype} of "
                         f"shape {arr.shape}")
    if arr.min() < 0 or arr.max() >= n:
        raise InputError(f"batches[{i}] indexes rows {arr.min()}..{arr.max()} of X, which has {n} rows")
    return arr


def _batch_kernels(X: np.ndarray, batches: list[np.ndarray], width: int, depths: list[int], seed: int
                   ) -> Iterator[tuple[int, list[tuple[int, np.ndarray, None, float]]]]:
    """The generator of :func:`relu_depth_batch_kernels`, its arguments checked."""
    t0 = time.perf_counter()
    nets = _relu_depth_weights(X.shape[1], width, depths, seed)
    drawn = time.perf_counter() - t0
    for i, b in enumerate(batches):
        yield i, list(_relu_kernels_of(X[b], nets, depths, False, drawn if i == 0 else 0.0))


def _relu_depth_weights(d: int, width: int, depths: list[int], seed: int) -> tuple[list, dict]:
    """The hidden weights W_1..W_Lmax of the deepest ReLU network of ``seed`` (numpy) and each depth's output
    vector, each depth's network checked to share the deepest one's hidden layers."""
    Lmax = max(depths)
    deep = MLP(d, width, Lmax, activation="relu", seed=seed)
    W = [w.detach().cpu().numpy() for w in deep.weights[:Lmax]]
    out = {}
    for L in depths:
        if L == 0:
            continue
        net = MLP(d, width, L, activation="relu", seed=seed)
        for l in range(L):
            if not torch.equal(net.weights[l].detach().cpu(), deep.weights[l].detach().cpu()):
                raise InputError(f"the depth-{L} network of seed {seed} does not share layer {l + 1} with the "
                                 f"depth-{Lmax} one")
        out[L] = net.weights[L].detach().cpu().numpy()[0]
    return W, out


def _relu_kernels_of(X: np.ndarray, nets: tuple[list, dict], depths: list[int], first_layer: bool, drawn: float
                     ) -> Iterator[tuple[int, np.ndarray, np.ndarray | None, float]]:
    """The kernels of :func:`relu_depth_kernels` on X, from the weights of :func:`_relu_depth_weights`."""
    n = X.shape[0]
    if n > SHARED_MAX_N:
        raise InputError(f"relu_depth_kernels keeps {max(depths) + 1} n x n Gram matrices: n = {n} > {SHARED_MAX_N}")
    W, outs = nets
    t0 = time.perf_counter()
    width = W[0].shape[0] if W else 1
    s = math.sqrt(2.0 / width)
    A, gates = [X], []
    for l in range(max(depths)):
        H = A[-1] @ W[l].T
        gates.append(H > 0)
        A.append(s * np.maximum(H, 0.0))
    G = [gram_upper(a) for a in A]
    shared = (drawn + time.perf_counter() - t0) / max(len(depths), 1)
    for L in depths:
        t = time.perf_counter()
        if L == 0:
            yield 0, _checked(_symmetrize(G[0]), X), None, shared + time.perf_counter() - t
            continue
        v = outs[L]
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
        yield L, _checked(_symmetrize(U), X), K1, shared + time.perf_counter() - t
