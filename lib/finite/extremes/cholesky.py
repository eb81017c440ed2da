"""A certified lower bound on lambda_min of the NTK by a tiled, shifted Cholesky factorization ([LH] Sec. 4).

The kernel is assembled tile by tile from the matrix-free factors (:meth:`lib.finite.extremes.MatrixFreeNTK.block`)
into lower-triangular tile storage (n^2 / 2 float64 numbers: 14.4 GB at n = 60,000) and factored in
place by a right-looking blocked Cholesky (``potrf`` on a diagonal tile, ``trsm`` below it, ``gemm``
updates of the trailing tiles), all level-3 BLAS through torch, on any device.

The certificate (S. M. Rump, "Verification of positive definiteness", BIT 46, 2006, Thm. 2.3, after
Demmel's backward error bound for Cholesky, see Higham, *Accuracy and Stability of Numerical
Algorithms*, Thm. 10.3): if the floating-point Cholesky factorization of a symmetric float64 matrix
``M`` runs to completion, then ``R^T R = M + E`` with ``|E| <= gamma_k |R^T| |R|``, hence
``||E||_2 <= gamma_k / (1 - gamma_k) tr(M)`` and ``lambda_min(M) >= -gamma_k / (1 - gamma_k) tr(M)``.
Here ``gamma_k = k u / (1 - k u)`` with ``u = 2^-53``; the textbook value is ``k = n + 1``, and we
take ``k = 2 (n + 1)`` to cover blocked BLAS kernels that divide by multiplying with a rounded
reciprocal. Applied to ``M = fl(K~ - s I)``, where ``K~`` is the float64 kernel built from the
factors, this gives::

    lambda_min(K) >= s - c_chol - c_shift - c_build - c_underflow

    c_chol      = gamma_{2(n+1)} / (1 - gamma_{2(n+1)}) * tr(K~)      (the factorization)
    c_shift     = u * max(max_i K~_ii, s)                            (rounding of K~_ii - s)
    c_build     = gamma_{2 m + L + 2} * (1 + 2 gamma) * tr(K~)          (K~ against the exact K of the factors)
    c_underflow = 4 n (2 (n + 2) + max_i K~_ii) * 2^-1074                (Rump's underflow term)

with m the largest layer width (input included) and L the depth. The building term holds because
every entry of K~ is a sum over layers of products of two inner products of length at most m, so
``|K~ - K| <= gamma_{2m+L+2} B`` entrywise with ``B_ij = sum_l |d_i|.|d_j| |a_i|.|a_j|``, and B is
dominated entrywise by the rank-one sum ``sum_l w_l w_l^T``, ``w_{l,i} = ||d_i|| ||a_i||``, whose
norm is at most ``tr(K)``. All the constants are rounded up. "Exact" means the NTK of the float64
layer factors, the same matrix the dense path factors.

The shift s is chosen by a first factorization of K~ itself (s = 0): inverse Lanczos with the factor
gives the smallest eigenvalue ``theta`` of K~; the second factorization, of ``K~ - s I`` with
``s = theta (1 - delta)``, certifies. If it fails, the gap ``delta`` is multiplied by 10 and the
factorization tried again (up to ``max_tries`` times); if none succeeds, only ``lambda_min >= 0`` is
certified.
The Ritz vector of the first pass also gives a rigorous upper bound (its Rayleigh quotient, computed
with the matrix-free product), so lambda_min is bracketed to a relative width of about ``delta``.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import torch
from scipy.sparse.linalg import LinearOperator, eigsh

from lib.finite.extremes.operator import MatrixFreeNTK
from lib.progress import tqdm
from lib.validation import InputError, available_memory, check_real, positive_int

__all__ = ["TiledCholesky", "CertifiedLambdaMin", "lambda_min_lower_bound", "rounding_constants",
           "tiled_bytes", "UNIT_ROUNDOFF", "TILE_MEM_FRACTION"]

#: u = 2^-53, the unit roundoff of float64 (round to nearest)
UNIT_ROUNDOFF = 2.0 ** -53
_ETA = 2.0 ** -1074
#: the tiled factorization may use at most this fraction of MemAvailable
TILE_MEM_FRACTION = 0.85


def _gamma(k: float) -> float:
    ku = k * UNIT_ROUNDOFF
    if ku >= 0.5:
        raise InputError(f"n is too large for a float64 rounding-error certificate (k u = {ku:.3g})")
    return ku / (1.0 - ku)


def tiled_bytes(n: int, tile: int) -> int:
    """Bytes of the lower-triangular tile storage of an n x n float64 matrix with b x b tiles.

    Args:
        n: matrix order.
        tile: tile edge b.

    Returns:
        ``8 * sum_{i >= j} b_i b_j`` (diagonal tiles stored whole).
    """
    n, tile = positive_int(n, "n"), positive_int(tile, "tile")
    sizes = [min(tile, n - s) for s in range(0, n, tile)]
    tot = sum(sizes)
    return 8 * (tot * tot + sum(b * b for b in sizes)) // 2


class TiledCholesky:
    """A symmetric float64 matrix in lower-triangular b x b tiles, factored in place ([LH] Sec. 4).

    ``tiles[i][j]`` (j <= i) is the block ``(I_i, I_j)``; a diagonal tile is stored whole (symmetric).
    After :meth:`lib.finite.extremes.TiledCholesky.factor` succeeds, the tiles hold the Cholesky factor L (``M = L L^T``).

    Args:
        n: matrix order.
        tile: tile edge b.
        device: where the tiles live (CPU always works; ``"cuda"`` unchanged).
    """

    def __init__(self, n: int, tile: int, device="cpu") -> None:
        n, tile = positive_int(n, "n"), positive_int(tile, "tile")
        self.n, self.tile, self.device = int(n), int(tile), torch.device(device)
        self.starts = list(range(0, self.n, self.tile))
        self.slices = [slice(s, min(s + self.tile, self.n)) for s in self.starts]
        nt = len(self.slices)
        self.tiles: list[list[torch.Tensor]] = [
            [torch.empty((self._len(i), self._len(j)), dtype=torch.float64, device=self.device) for j in range(i + 1)]
            for i in range(nt)]
        self.factored = False

    def _len(self, i: int) -> int:
        s = self.slices[i]
        return s.stop - s.start

    @property
    def nbytes(self) -> int:
        """Bytes held by the tiles."""
        return tiled_bytes(self.n, self.tile)

    @classmethod
    def from_dense(cls, M, tile: int) -> TiledCholesky:
        """Tile storage of the lower triangle of a dense symmetric matrix (for tests and small problems).

        Args:
            M: symmetric (n, n) array or tensor.
            tile: tile edge.

        Returns:
            A :class:`lib.finite.extremes.TiledCholesky`.
        """
        Mt = torch.as_tensor(np.asarray(M, dtype=np.float64)) if not isinstance(M, torch.Tensor) else M.double()
        out = cls(Mt.shape[0], tile, Mt.device)
        for i, I in enumerate(out.slices):
            for j, J in enumerate(out.slices[:i + 1]):
                out.tiles[i][j].copy_(Mt[I, J])
        out._symmetrize_diagonal()
        return out

    def fill_from(self, op: MatrixFreeNTK, shift: float = 0.0, progress: bool = True) -> None:
        """Build ``fl(K - shift I)`` tile by tile from the matrix-free kernel (``O(L b^2 m)`` per tile).

        Args:
            op: the matrix-free kernel (same n).
            shift: subtracted from the diagonal.
            progress: show a progress bar over tiles.
        """
        if op.n != self.n:
            raise InputError(f"the operator has n={op.n}, the tiles n={self.n}")
        nt = len(self.slices)
        bar = tqdm(total=nt * (nt + 1) // 2, desc="build K tiles", disable=None if progress else True)
        for i, I in enumerate(self.slices):
            for j, J in enumerate(self.slices[:i + 1]):
                self.tiles[i][j].copy_(op.block(I, J).to(self.device))
                bar.update(1)
        bar.close()
        self._symmetrize_diagonal()
        if shift:
            for i in range(nt):
                self.tiles[i][i].diagonal().sub_(shift)
        self.factored = False

    def _symmetrize_diagonal(self) -> None:
        for i in range(len(self.slices)):
            T = self.tiles[i][i]
            low = torch.tril(T)
            T.copy_(low + torch.tril(T, -1).T)

    def diagonal(self) -> torch.Tensor:
        """The diagonal of the stored matrix (of the factor, after :meth:`lib.finite.extremes.TiledCholesky.factor`)."""
        return torch.cat([self.tiles[i][i].diagonal() for i in range(len(self.slices))])

    def factor(self, progress: bool = True) -> int:
        """Right-looking tiled Cholesky, in place: ``potrf``, ``trsm`` and ``gemm`` on tiles.

        Args:
            progress: show a progress bar over tile operations.

        Returns:
            0 on success, else the 1-based global index of the first pivot that was not positive
            (the matrix is not numerically positive definite; the tiles are then partly overwritten).
        """
        nt = len(self.slices)
        total = sum(1 + (nt - k - 1) + (nt - k - 1) * (nt - k) // 2 for k in range(nt))
        bar = tqdm(total=total, desc="tiled Cholesky (tile ops)", disable=None if progress else True)
        T = self.tiles
        try:
            for k in range(nt):
                Lkk, info = torch.linalg.cholesky_ex(T[k][k])
                if int(info) != 0:
                    return self.starts[k] + int(info)
                T[k][k].copy_(Lkk)
                del Lkk
                bar.update(1)
                for i in range(k + 1, nt):  # trsm: L_ik = A_ik L_kk^-T
                    T[i][k].copy_(torch.linalg.solve_triangular(T[k][k].T, T[i][k], upper=True, left=False))
                    bar.update(1)
                for j in range(k + 1, nt):  # trailing update A_ij -= L_ik L_jk^T
                    Ljk = T[j][k]
                    for i in range(j, nt):
                        T[i][j].addmm_(T[i][k], Ljk.T, alpha=-1.0)
                        bar.update(1)
        finally:
            bar.close()
        if not all(bool(torch.isfinite(t).all()) for row in T for t in row):
            return self.n  # an overflow the pivots did not catch: not a completed factorization
        self.factored = True
        return 0

    def solve(self, V) -> np.ndarray:
        """``M^-1 V`` by the two triangular solves with the factor (``L y = V``, ``L^T x = y``).

        Args:
            V: vector (n,) or block (n, k).

        Returns:
            The solution as a float64 numpy array of the same shape.
        """
        if not self.factored:
            raise InputError("solve needs a factored matrix: call factor() first")
        Vt = torch.as_tensor(np.asarray(V, dtype=np.float64), device=self.device)
        vec = Vt.ndim == 1
        Y = (Vt[:, None] if vec else Vt).clone()
        T, S, nt = self.tiles, self.slices, len(self.slices)
        for i in range(nt):  # forward: L y = v
            for j in range(i):
                Y[S[i]] -= T[i][j] @ Y[S[j]]
            Y[S[i]] = torch.linalg.solve_triangular(T[i][i], Y[S[i]], upper=False)
        for i in reversed(range(nt)):  # backward: L^T x = y
            for j in range(i + 1, nt):
                Y[S[i]] -= T[j][i].T @ Y[S[j]]
            Y[S[i]] = torch.linalg.solve_triangular(T[i][i].T, Y[S[i]], upper=True)
        out = Y.cpu().numpy()
        return out[:, 0] if vec else out

    def lower_dense(self) -> np.ndarray:
        """The lower triangle (the factor L after :meth:`lib.finite.extremes.TiledCholesky.factor`) as a dense array (for tests)."""
        out = np.zeros((self.n, self.n))
        for i, I in enumerate(self.slices):
            for j, J in enumerate(self.slices[:i + 1]):
                out[I, J] = self.tiles[i][j].cpu().numpy()
        return np.tril(out)


def rounding_constants(op: MatrixFreeNTK) -> dict:
    """The rounding terms of the certificate for a shift s (see :mod:`lib.finite.extremes.cholesky`).

    Args:
        op: the matrix-free kernel.

    Returns:
        ``trace`` (an upper bound on tr K~), ``max_diag``, ``c_chol``, ``c_build``, ``c_underflow`` and
        the function ``c_shift(s)``; ``total(s)`` is their sum.
    """
    n = op.n
    d = op.diag.double().cpu().numpy()
    m = max(max(int(A.shape[1]), int(D.shape[1]) if D is not None else 0) for D, A in op.terms)
    kb = 2 * m + len(op.terms) + 2
    # the summed diagonal, with every rounding of its entries and of the sum
    trace = float(d.sum()) * (1.0 + 2.0 * _gamma(n + kb))
    max_diag = float(d.max()) * (1.0 + 2.0 * _gamma(kb))
    g = _gamma(2 * (n + 1))
    c_chol = g / (1.0 - g) * trace
    gb = _gamma(kb)
    c_build = gb * (1.0 + 2.0 * gb) * trace
    c_under = 4.0 * n * (2.0 * (n + 2) + max_diag) * _ETA

    def c_shift(s: float) -> float:
        return UNIT_ROUNDOFF * max(max_diag, s)

    def total(s: float) -> float:
        return (c_chol + c_build + c_under + c_shift(s)) * (1.0 + 1e-10)
    return dict(trace=trace, max_diag=max_diag, c_chol=c_chol, c_build=c_build, c_underflow=c_under,
                c_shift=c_shift, total=total)


@dataclass
class CertifiedLambdaMin:
    """A certified bracket ``lower <= lambda_min(K) <= upper`` ([LH] Sec. 4).

    Attributes:
        lower: the certified lower bound (0 when no factorization of a positive shift succeeded).
        upper: the Rayleigh quotient of the inverse-Lanczos vector plus its rounding slack.
        estimate: the inverse-Lanczos estimate theta of lambda_min (not a bound).
        shift: the shift s whose factorization succeeded (0 if none).
        rounding: the total rounding term subtracted from s.
        attempts: list of ``(shift, pivot)`` per factorization (pivot 0: success).
        tile: the tile edge.
        nbytes: bytes of the tile storage.
        timings: seconds per stage.
    """

    lower: float
    upper: float
    estimate: float
    shift: float
    rounding: float
    attempts: list
    tile: int
    nbytes: int
    timings: dict = field(default_factory=dict)


def _check_memory(n: int, tile: int, device) -> int:
    need = tiled_bytes(n, tile) + 4 * 8 * tile * tile
    mem = available_memory()
    if torch.device(device).type == "cpu" and mem is not None and need > TILE_MEM_FRACTION * mem:
        raise InputError(f"lambda_min='certified' factors K in tiles and needs about {need / 2**30:.3g} GiB, but only "
                         f"{mem / 2**30:.3g} GiB is available (MemAvailable): use lambda_min='bounds' or reduce n")
    return need


def lambda_min_lower_bound(op: MatrixFreeNTK, tile: int = 2048, delta: float = 1e-3, shift: float | None = None,
                           max_tries: int = 3, tol: float = 1e-10, progress: bool = True) -> CertifiedLambdaMin:
    """Certified bracket of lambda_min(K) by shifted tiled Cholesky factorizations ([LH] Sec. 4).

    The rounding-error certificate (Rump 2006, Thm. 2.3) and the terms it subtracts are stated in
    :mod:`lib.finite.extremes.cholesky`. Memory: the lower triangle of K in tiles, ``4 n^2`` bytes;
    time: two factorizations (``n^3 / 3`` flops each) and two assemblies (``O(L n^2 m)``).

    Args:
        op: the matrix-free kernel.
        tile: tile edge b.
        delta: relative gap below the estimate theta at which the shift is certified.
        shift: certify this shift directly (one factorization, no estimate; ``upper`` is then ``inf``).
        max_tries: factorizations of shifted matrices before giving up (the bound is then 0).
        tol: tolerance of the inverse Lanczos iteration.
        progress: progress bars.

    Returns:
        A :class:`lib.finite.extremes.CertifiedLambdaMin`.

    Raises:
        lib.validation.InputError: bad ``tile``, ``delta`` or ``shift``, or the tiles do not fit in memory.
    """
    positive_int(tile, "tile")
    positive_int(max_tries, "max_tries")
    check_real(delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True)
    check_real(tol, "tol", low=0.0, low_open=True)
    if shift is not None:
        shift = check_real(shift, "shift", low=0.0)
    n = op.n
    nbytes = _check_memory(n, tile, op.device)
    rc = rounding_constants(op)
    T = TiledCholesky(n, tile, op.device)
    timings: dict = {}
    attempts: list = []
    theta, upper = math.nan, math.inf

    def attempt(s: float) -> bool:
        t = time.perf_counter()
        T.fill_from(op, shift=s, progress=progress)
        timings["build"] = timings.get("build", 0.0) + time.perf_counter() - t
        t = time.perf_counter()
        piv = T.factor(progress=progress)
        timings["factor"] = timings.get("factor", 0.0) + time.perf_counter() - t
        attempts.append((float(s), int(piv)))
        timings["factorizations"] = len(attempts)
        return piv == 0

    def result(s_ok: float) -> CertifiedLambdaMin:
        lower = max(s_ok - rc["total"](s_ok), 0.0) if s_ok > 0 else 0.0
        return CertifiedLambdaMin(lower=lower, upper=upper, estimate=theta, shift=s_ok if lower > 0 else 0.0,
                                  rounding=rc["total"](s_ok), attempts=attempts, tile=tile, nbytes=nbytes,
                                  timings=timings)

    if shift is not None:
        return result(shift if attempt(shift) else 0.0)
    if not attempt(0.0):  # K~ is not numerically positive definite: only 0 is certified
        return result(0.0)
    t = time.perf_counter()
    bar = tqdm(desc="inverse Lanczos lambda_min (solves)", disable=None if progress else True)

    def inv(v):
        bar.update(1)
        return T.solve(v)
    if n <= 2:
        Kd = T.lower_dense()
        Kd = Kd @ Kd.T
        w, V = np.linalg.eigh(Kd)
        mu, x = 1.0 / w[0], V[:, 0]
    else:
        A = LinearOperator((n, n), matvec=inv, matmat=inv, dtype=np.float64)
        v0 = np.ones(n) / math.sqrt(n)
        vals, vecs = eigsh(A, k=1, which="LA", tol=tol, v0=v0)
        mu, x = float(vals[0]), vecs[:, 0]
    bar.close()
    timings["lanczos"] = time.perf_counter() - t
    rq = float(x @ op.matmat(x)) / float(x @ x)
    upper = rq + rc["total"](0.0) + 2.0 * _gamma(n + 2) * rc["trace"]
    theta = 1.0 / mu if mu > 0 else 0.0
    d = delta
    for _ in range(max_tries):
        s = theta * (1.0 - d)
        if s <= rc["total"](s):
            break
        if attempt(s):
            return result(s)
        d = min(10.0 * d, 0.9)
    return result(0.0)
