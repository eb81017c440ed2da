"""The matrix-free empirical NTK: float64 layer factors, products K V and blocks K[I, J] ([LH] Sec. 2).

With the factors of :func:`lib.finite.ntk.layer_factors`,
``K = sum_l (D_l D_l^T) o (A_{l-1} A_{l-1}^T) + A_L A_L^T``, so a product costs ``O(L n m^2)`` and a
b x b block ``O(L b^2 m)``, and nothing n x n is ever held.
"""
from __future__ import annotations

import numpy as np
import torch
from scipy.sparse.linalg import LinearOperator

from lib.finite.mlp import MLP
from lib.finite.ntk import layer_factors
from lib.validation import InputError, InputTypeError, available_memory, check_device, check_kernel_scale, positive_int

__all__ = ["MatrixFreeNTK", "ntk_operator", "EPS"]

#: unit roundoff times two (machine epsilon) of float64
EPS = float(np.finfo(np.float64).eps)


class MatrixFreeNTK:
    """The empirical NTK of a scalar-output :class:`lib.finite.mlp.MLP` as float64 factors ([LH] Sec. 2).

    Holds, for each trainable layer, the pair (D_l, A_{l-1}) (``D = None`` for the output layer, whose
    backward vector is 1): O(n sum_l m_l) memory, nothing n x n.

    Args:
        terms: list of ``(D, A)`` float64 tensors of shapes (n, m_l) and (n, m_{l-1}), or ``(None, A)``.
        chunk_size: rows per chunk in :meth:`lib.finite.extremes.MatrixFreeNTK.matmat` (bounds its workspace to O(chunk_size m)).
    """

    def __init__(self, terms: list[tuple[torch.Tensor | None, torch.Tensor]], chunk_size: int = 8192) -> None:
        if not terms:
            raise InputError("MatrixFreeNTK needs at least one layer term")
        self.terms = terms
        self.n = int(terms[0][1].shape[0])
        self.device = terms[0][1].device
        self.chunk_size = positive_int(chunk_size, "chunk_size")
        diag = torch.zeros(self.n, dtype=torch.float64, device=self.device)
        for Dm, Am in terms:
            a2 = Am.square().sum(1)
            diag += a2 if Dm is None else a2 * Dm.square().sum(1)
        self.diag = diag

    @property
    def nbytes(self) -> int:
        """Bytes held by the factors."""
        return sum(t.numel() * 8 for pair in self.terms for t in pair if t is not None)

    def matmat(self, V) -> np.ndarray:
        """K V for V of shape (n,) or (n, k), in float64 (returns a numpy array of the same shape).

        Args:
            V: vector or block of vectors (numpy or torch).

        Returns:
            K V, computed as sum_l rowwise <d_i, M_l a_i> with M_l = D_l^T diag(v) A_{l-1}.
        """
        Vt = torch.as_tensor(np.asarray(V, dtype=np.float64) if not isinstance(V, torch.Tensor) else V,
                             dtype=torch.float64, device=self.device)
        vec = Vt.ndim == 1
        if vec:
            Vt = Vt[:, None]
        if Vt.ndim != 2 or Vt.shape[0] != self.n:
            raise InputError(f"V must have shape ({self.n},) or ({self.n}, k), got {tuple(Vt.shape)}")
        n, k, cs = self.n, Vt.shape[1], self.chunk_size
        out = torch.zeros((n, k), dtype=torch.float64, device=self.device)
        chunks = [slice(s, min(s + cs, n)) for s in range(0, n, cs)]
        for Dm, Am in self.terms:
            if Dm is None:  # output layer: A A^T V
                W = Am.T @ Vt
                for c in chunks:
                    out[c] += Am[c] @ W
                continue
            for j in range(k):
                M = torch.zeros((Dm.shape[1], Am.shape[1]), dtype=torch.float64, device=self.device)
                for c in chunks:
                    M += Dm[c].T @ (Am[c] * Vt[c, j:j + 1])
                for c in chunks:
                    out[c, j] += ((Am[c] @ M.T) * Dm[c]).sum(1)
        res = out.cpu().numpy()
        return res[:, 0] if vec else res

    def block(self, I, J) -> torch.Tensor:
        """The block K[I, J] (slices or index tensors), ``O(L |I| |J| m)`` time, float64 on the factors' device."""
        out = None
        for Dm, Am in self.terms:
            g = Am[I] @ Am[J].T
            if Dm is not None:
                g.mul_(Dm[I] @ Dm[J].T)
            out = g if out is None else out.add_(g)
        return out

    def dense(self, block_size: int = 4096) -> np.ndarray:
        """The full n x n kernel (only where it fits; used by the dense path and the tests)."""
        n = self.n
        K = np.empty((n, n), dtype=np.float64)
        for s in range(0, n, block_size):
            I = slice(s, min(s + block_size, n))
            for t in range(s, n, block_size):
                J = slice(t, min(t + block_size, n))
                b = self.block(I, J).cpu().numpy()
                K[I, J] = b
                K[J, I] = b.T
        return K

    def operator(self) -> LinearOperator:
        """K as a scipy LinearOperator (for ``eigsh``)."""
        return LinearOperator((self.n, self.n), matvec=self.matmat, matmat=self.matmat, dtype=np.float64)


def _model_terms(model: MLP, X, device, chunk_size: int) -> list[tuple[torch.Tensor | None, torch.Tensor]]:
    if not isinstance(model, MLP):
        raise InputTypeError(f"model must be a lib.finite.mlp.MLP, got {type(model).__name__}")
    if model.out_dim != 1:
        raise InputError(f"ntk_extremes supports scalar-output networks only, got out_dim={model.out_dim}")
    Xt = model.prepare(X)  # validates shape and finiteness (ValueError on NaN/inf)
    n = Xt.shape[0]
    dev = check_device(device) if device is not None else Xt.device
    widths = [model.in_dim, *model.hidden]
    L = model.depth
    nbytes = 8 * n * (sum(widths) + sum(model.hidden))
    mem = available_memory()
    if mem is not None and dev.type == "cpu" and nbytes > 0.9 * mem:
        raise InputError(f"the NTK factors need about {nbytes / 2**30:.3g} GiB but only {mem / 2**30:.3g} GiB "
                         "is available (MemAvailable): reduce n, width or depth")
    # preallocated float64 factors, filled chunk by chunk (never two copies of a layer)
    A = [torch.empty((n, w), dtype=torch.float64, device=dev) for w in widths]
    D = [torch.empty((n, w), dtype=torch.float64, device=dev) for w in model.hidden]
    for s in range(0, n, chunk_size):
        c = slice(s, min(s + chunk_size, n))
        Ac, Dc = layer_factors(model, Xt[c], chunk_size=chunk_size)
        for l in range(L + 1):
            A[l][c] = Ac[l].to(device=dev, dtype=torch.float64)
        for l in range(L):
            D[l][c] = Dc[0][l].to(device=dev, dtype=torch.float64)
        del Ac, Dc
    terms: list[tuple[torch.Tensor | None, torch.Tensor]] = [(D[l - 1], A[l - 1]) for l in range(1, L + 1)]
    terms.append((None, A[L]))
    return terms


def _check_scale(op: "MatrixFreeNTK", X: torch.Tensor) -> None:
    """Refuse an operator whose diagonal overflowed or underflowed (|K_ij| <= sqrt(K_ii K_jj) bounds the rest)."""
    check_kernel_scale(int((~torch.isfinite(op.diag)).sum()), float(op.diag.abs().max()), torch.float64,
                       "the NTK (its diagonal)",
                       f"the inputs have max |x| = {float(X.abs().max()):.3g} (the kernel scales like |x|^2 for "
                       "ReLU): rescale X, e.g. to unit norm", float(X.abs().max()))


def ntk_operator(model: MLP, X, device=None, chunk_size: int = 4096) -> MatrixFreeNTK:
    """The matrix-free NTK of ``model`` on the rows of ``X`` ([LH] Sec. 2), all layers trainable.

    Args:
        model: a scalar-output :class:`lib.finite.mlp.MLP` at its current weights.
        X: inputs of shape (n, in_dim), finite.
        device: where the float64 factors live (default: the model's device); CPU always works.
        chunk_size: rows per forward/backward pass and per product chunk.

    Returns:
        A :class:`lib.finite.extremes.MatrixFreeNTK`.
    """
    positive_int(chunk_size, "chunk_size")
    terms = _model_terms(model, X, device, chunk_size)
    op = MatrixFreeNTK(terms, chunk_size)
    _check_scale(op, terms[0][1])  # terms[0][1] is A_0 = X
    return op

