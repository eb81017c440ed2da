"""Extreme NTK spectra and the minimum gradient angle at full-data scale, never holding the n x n kernel.

The exact empirical NTK of the bias-free MLP of [LH] Eq. (1) is ([LH] Sec. 2)

    K = sum_{l=1..L} (D_l D_l^T) o (A_{l-1} A_{l-1}^T)  +  A_L A_L^T          (o: Hadamard product)

with the factors of :func:`lib.finite.ntk.layer_factors`. Hence, without forming K,

* a product is (K v)_i = sum_l d_i^T M_l a_i with M_l = D_l^T diag(v) A_{l-1}: O(L n m^2) time and
  O(L n m) memory (:meth:`MatrixFreeNTK.matmat`);
* a b x b block costs O(L b^2 m) (:meth:`MatrixFreeNTK.block`), so the exact minimum pairwise angle
  ([LH] Sec. 4.1) is a stream over the n(n+1)/2 block pairs (:func:`min_angle_scan`), which also
  accumulates ||K||_F^2, the absolute row sums and K 1 for certified bounds on lambda_max;
* lambda_max comes from Lanczos (``scipy.sparse.linalg.eigsh``) on the product, certified by the
  residual and Frobenius bounds (:func:`lambda_max_bounds`);
* lambda_min is exact where a dense factorization fits; otherwise an upper bound from principal
  sub-blocks (Cauchy interlacing: lambda_min(K) <= lambda_min(K[S, S])) and the trivial lower bound 0
  of a PSD matrix, so kappa = lambda_max / lambda_min ([LH] Sec. 4) is a certified interval
  (low, inf) rather than a point that might be wrong.
"""
from __future__ import annotations

import hashlib
import math
import os
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from scipy import linalg
from scipy.sparse.linalg import LinearOperator, eigsh, lobpcg

from lib.finite.mlp import MLP
from lib.finite.ntk import layer_factors
from lib.progress import tqdm
from lib.spectra import extreme_eigenvalues
from lib.validation import available_memory

__all__ = ["NTKExtremes", "MatrixFreeNTK", "AngleScan", "ntk_operator", "min_angle_scan", "lambda_max_bounds",
           "lambda_min_upper_bound", "ntk_extremes", "DENSE_LIMIT"]

EPS = float(np.finfo(np.float64).eps)
#: largest n for which ``method="auto"`` (and ``lambda_min="auto"``) factor the dense kernel
DENSE_LIMIT = 12000
#: dense work needs about this many n x n float64 copies (K, the eigensolver's copy, workspace)
_DENSE_COPIES = 3
#: the dense path is used only when it needs at most this fraction of MemAvailable
_MEM_FRACTION = 0.5


def _dense_fits(n: int, extra_bytes: int = 0) -> bool:
    mem = available_memory()
    need = _DENSE_COPIES * 8 * n * n + extra_bytes
    return n <= DENSE_LIMIT and (mem is None or need <= _MEM_FRACTION * mem)


class MatrixFreeNTK:
    """The empirical NTK of a scalar-output :class:`~lib.finite.mlp.MLP` as float64 factors ([LH] Sec. 2).

    Holds, for each trainable layer, the pair (D_l, A_{l-1}) (``D = None`` for the output layer, whose
    backward vector is 1): O(n sum_l m_l) memory, nothing n x n.

    Args:
        terms: list of ``(D, A)`` float64 tensors of shapes (n, m_l) and (n, m_{l-1}), or ``(None, A)``.
        chunk_size: rows per chunk in :meth:`matmat` (bounds its workspace to O(chunk_size m)).
    """

    def __init__(self, terms: list[tuple[torch.Tensor | None, torch.Tensor]], chunk_size: int = 8192) -> None:
        if not terms:
            raise ValueError("MatrixFreeNTK needs at least one layer term")
        self.terms = terms
        self.n = int(terms[0][1].shape[0])
        self.device = terms[0][1].device
        self.chunk_size = int(chunk_size)
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
            raise ValueError(f"V must have shape ({self.n},) or ({self.n}, k), got {tuple(Vt.shape)}")
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
        raise ValueError(f"model must be a lib.finite.mlp.MLP, got {type(model).__name__}")
    if model.out_dim != 1:
        raise ValueError(f"ntk_extremes supports scalar-output networks only, got out_dim={model.out_dim}")
    Xt = model.prepare(X)  # validates shape and finiteness (ValueError on NaN/inf)
    n = Xt.shape[0]
    dev = torch.device(device) if device is not None else Xt.device
    widths = [model.in_dim, *model.hidden]
    L = model.depth
    nbytes = 8 * n * (sum(widths) + sum(model.hidden))
    mem = available_memory()
    if mem is not None and dev.type == "cpu" and nbytes > 0.9 * mem:
        raise ValueError(f"the NTK factors need about {nbytes / 2**30:.3g} GiB but only {mem / 2**30:.3g} GiB "
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


def ntk_operator(model: MLP, X, device=None, chunk_size: int = 4096) -> MatrixFreeNTK:
    """The matrix-free NTK of ``model`` on the rows of ``X`` ([LH] Sec. 2), all layers trainable.

    Args:
        model: a scalar-output :class:`~lib.finite.mlp.MLP` at its current weights.
        X: inputs of shape (n, in_dim), finite.
        device: where the float64 factors live (default: the model's device); CPU always works.
        chunk_size: rows per forward/backward pass and per product chunk.

    Returns:
        A :class:`MatrixFreeNTK`.
    """
    if chunk_size < 1:
        raise ValueError("chunk_size must be positive")
    return MatrixFreeNTK(_model_terms(model, X, device, chunk_size), chunk_size)


@dataclass
class AngleScan:
    """What one stream over all blocks of K gives ([LH] Sec. 4.1).

    Attributes:
        min_angle: min over i < j of the angle between grad f(x_i) and grad f(x_j) (radians).
        pair: the (i, j), i < j, attaining it.
        max_cos: the largest off-diagonal cosine K_ij / sqrt(K_ii K_jj).
        top_pairs: (T, 2) array of the T pairs with the largest cosines, best first (for sub-blocks).
        top_cos: their cosines.
        fro2: ||K||_F^2.
        row_abs_max: ``max_i sum_j |K_ij|`` (>= lambda_max).
        ones_rayleigh: 1^T K 1 / n (<= lambda_max).
        ones_vector: K 1 (a good Lanczos start for lambda_max).
        trace: sum_i K_ii.
    """

    min_angle: float
    pair: tuple[int, int]
    max_cos: float
    top_pairs: np.ndarray
    top_cos: np.ndarray
    fro2: float
    row_abs_max: float
    ones_rayleigh: float
    ones_vector: np.ndarray
    trace: float


def _merge_top(vals, ii, jj, v2, i2, j2, keep):
    v = np.concatenate([vals, v2])
    i = np.concatenate([ii, i2])
    j = np.concatenate([jj, j2])
    order = np.argsort(-v, kind="stable")[:keep]
    return v[order], i[order], j[order]


def min_angle_scan(op: MatrixFreeNTK, block_size: int = 2048, top: int = 64, cache_dir: str | os.PathLike | None = None,
                   cache_key: str = "", progress: bool = True) -> AngleScan:
    """Exact minimum pairwise gradient angle by streaming the b x b blocks of K ([LH] Sec. 4.1).

    Each block K[I, J], J >= I, is built from the factors, turned into cosines with the diagonal, and
    reduced (largest cosines, ||K||_F^2, absolute row sums, K 1); nothing n x n is kept.

    Args:
        op: the matrix-free kernel.
        block_size: rows/columns per block (workspace O(block_size^2 + block_size m)).
        top: how many of the most parallel pairs to keep (they choose the sub-blocks of
            :func:`lambda_min_upper_bound`).
        cache_dir: if given, the accumulated state is saved there after every block row, and a run
            with the same ``cache_key`` and block size resumes from the last saved row.
        cache_key: identifies the problem (model weights and data) in the cache.
        progress: show a progress bar over block rows.

    Returns:
        An :class:`AngleScan`.
    """
    n, dev = op.n, op.device
    if n < 2:
        raise ValueError("the minimum pairwise angle needs at least two samples")
    if block_size < 1 or top < 1:
        raise ValueError("block_size and top must be positive")
    d = op.diag
    if bool((d <= 0).any()):
        bad = torch.nonzero(d <= 0).flatten()[:5].tolist()
        raise ValueError(f"K has non-positive diagonal entries at rows {bad}: a zero gradient has no angle "
                         "(is an input the zero vector?)")
    s = d.rsqrt()
    starts = list(range(0, n, block_size))
    nb = len(starts)
    state = dict(next_bi=0, fro2=0.0, row_abs=np.zeros(n), k1=np.zeros(n), tv=np.empty(0), ti=np.empty(0, np.int64),
                 tj=np.empty(0, np.int64))
    path = None
    if cache_dir is not None:
        Path(cache_dir).mkdir(parents=True, exist_ok=True)
        tag = hashlib.sha256(f"{cache_key}|{n}|{block_size}|{top}".encode()).hexdigest()[:16]
        path = Path(cache_dir) / f"angle_scan_{tag}.npz"
        if path.exists():
            with np.load(path) as z:
                state = {k: (z[k].item() if z[k].ndim == 0 else z[k].copy()) for k in z.files}
    row_abs = torch.as_tensor(state["row_abs"], device=dev)
    k1 = torch.as_tensor(state["k1"], device=dev)
    fro2 = float(state["fro2"])
    tv, ti, tj = state["tv"], state["ti"], state["tj"]
    bar = tqdm(total=nb * (nb + 1) // 2, desc="min-angle scan (blocks)", disable=None if progress else True)
    done0 = sum(nb - b for b in range(int(state["next_bi"])))
    bar.update(done0)
    for bi in range(int(state["next_bi"]), nb):
        I = slice(starts[bi], min(starts[bi] + block_size, n))
        for bj in range(bi, nb):
            J = slice(starts[bj], min(starts[bj] + block_size, n))
            Kb = op.block(I, J)
            off = bj != bi
            fro2 += float(Kb.square().sum()) * (2.0 if off else 1.0)
            absb = Kb.abs()
            row_abs[I] += absb.sum(1)
            k1[I] += Kb.sum(1)
            if off:
                row_abs[J] += absb.sum(0)
                k1[J] += Kb.sum(0)
            del absb
            C = Kb.mul_(s[I, None]).mul_(s[None, J])
            if not off:
                C.masked_fill_(torch.ones_like(C, dtype=torch.bool).tril_(), -math.inf)
            kk = min(top, C.numel())
            v, idx = C.flatten().topk(kk)
            keep = torch.isfinite(v)
            v, idx = v[keep].cpu().numpy(), idx[keep].cpu().numpy()
            w = C.shape[1]
            tv, ti, tj = _merge_top(tv, ti, tj, v, idx // w + I.start, idx % w + J.start, top)
            bar.update(1)
        if path is not None:
            tmp = path.with_suffix(".tmp.npz")
            np.savez(tmp, next_bi=bi + 1, fro2=fro2, row_abs=row_abs.cpu().numpy(), k1=k1.cpu().numpy(),
                     tv=tv, ti=ti, tj=tj)
            os.replace(tmp, path)
    bar.close()
    max_cos = float(np.clip(tv[0], -1.0, 1.0))
    pair = (int(min(ti[0], tj[0])), int(max(ti[0], tj[0])))
    k1n = k1.cpu().numpy()
    return AngleScan(min_angle=float(np.arccos(max_cos)), pair=pair, max_cos=max_cos,
                     top_pairs=np.stack([ti, tj], axis=1).astype(np.int64), top_cos=np.asarray(tv),
                     fro2=fro2, row_abs_max=float(row_abs.max()), ones_rayleigh=float(k1n.sum() / n),
                     ones_vector=k1n, trace=float(d.sum()))


def lambda_max_bounds(op: MatrixFreeNTK, scan: AngleScan | None = None, tol: float = 1e-8,
                      maxiter: int | None = None, progress: bool = True) -> tuple[float, float, float, int]:
    """lambda_max of K by Lanczos on the matrix-free product, with a certified interval ([LH] Sec. 4).

    With the Ritz pair (theta, x), ||x|| = 1, and r = K x - theta x: theta = x^T K x <= lambda_max, and some
    eigenvalue mu lies in [theta - ||r||, theta + ||r||]. Either mu is lambda_max (then lambda_max <= theta + ||r||)
    or lambda_max^2 + mu^2 <= ||K||_F^2, so lambda_max <= sqrt(||K||_F^2 - (theta - ||r||)^2); also
    lambda_max <= ``max_i sum_j |K_ij|``. The bounds carry a relative slack of 10 n eps for rounding.

    Args:
        op: the matrix-free kernel.
        scan: the result of :func:`min_angle_scan` (gives ||K||_F, the row sums and a start vector);
            without it no certified upper bound is available and ``high`` is ``math.inf``.
        tol: ARPACK's relative tolerance.
        maxiter: ARPACK's iteration limit.
        progress: show the number of products.

    Returns:
        ``(theta, low, high, n_products)``.
    """
    n = op.n
    bar = tqdm(desc="Lanczos lambda_max (products)", disable=None if progress else True)
    count = [0]

    def mv(v):
        count[0] += 1
        bar.update(1)
        return op.matmat(v)

    A = LinearOperator((n, n), matvec=mv, matmat=mv, dtype=np.float64)
    v0 = None
    if scan is not None and np.linalg.norm(scan.ones_vector) > 0:
        v0 = scan.ones_vector / np.linalg.norm(scan.ones_vector)
    if n <= 2:
        K = op.dense()
        ev = linalg.eigvalsh(K)
        bar.close()
        theta = float(ev[-1])
        return theta, theta * (1 - 10 * n * EPS), theta * (1 + 10 * n * EPS), 0
    _, vecs = eigsh(A, k=1, which="LA", tol=tol, v0=v0, maxiter=maxiter)
    x = vecs[:, 0] / np.linalg.norm(vecs[:, 0])
    Kx = mv(x)
    bar.close()
    theta = float(x @ Kx)
    r = float(np.linalg.norm(Kx - theta * x))
    slack = 10 * n * EPS
    low = theta * (1 - slack)
    if scan is not None:
        low = max(low, scan.ones_rayleigh * (1 - slack))
        mu = max(theta - r, 0.0)
        other = math.sqrt(max(scan.fro2 * (1 + slack) - mu * mu * (1 - slack), 0.0))
        high = min(max(theta + r, other), scan.row_abs_max) * (1 + slack)
    else:
        high = math.inf
    return theta, low, max(high, low), count[0]


def lambda_min_upper_bound(op: MatrixFreeNTK, scan: AngleScan, sub_size: int = 2000, seed: int = 0,
                           refine_iters: int = 0, progress: bool = True) -> tuple[float, np.ndarray]:
    """An upper bound on lambda_min(K) from a principal sub-block (Cauchy interlacing, [LH] Sec. 4).

    lambda_min(K) <= lambda_min(K[S, S]) for every index set S. S is the union of the most parallel pairs
    of the scan (where small eigenvalues live: a 2 x 2 block with cosine c gives (1 - c) max K_ii) and
    random rows up to ``sub_size`` indices. A rounding slack ``|S| eps lambda_max(K[S, S])`` is added.
    With ``refine_iters > 0``, LOBPCG on the full matrix-free K, started from the sub-block's eigenvector
    embedded in R^n, lowers the bound further: any Rayleigh quotient x^T K x / x^T x is >= lambda_min, and it
    is recomputed explicitly for the final vector (slack 10 n eps ||K||_F).

    Args:
        op: the matrix-free kernel.
        scan: from :func:`min_angle_scan`.
        sub_size: target size of S (the dense sub-block costs O(sub_size^3)).
        seed: of the random rows.
        refine_iters: LOBPCG iterations on the full K (each costs a few products).
        progress: show a progress bar of the products.

    Returns:
        ``(upper_bound, S)``.
    """
    idx = list(dict.fromkeys(int(i) for i in scan.top_pairs.ravel()))
    rest = max(0, min(sub_size, op.n) - len(idx))
    if rest:
        rng = np.random.default_rng(seed)
        pool = np.setdiff1d(np.arange(op.n), np.asarray(idx, dtype=np.int64))
        idx += rng.choice(pool, size=min(rest, pool.size), replace=False).tolist()
    S = np.asarray(sorted(idx), dtype=np.int64)
    St = torch.as_tensor(S, device=op.device)
    KS = op.block(St, St).cpu().numpy()
    ev, vecs = linalg.eigh(KS, check_finite=False)
    bound = float(ev[0] + S.size * EPS * max(ev[-1], 0.0))
    if refine_iters > 0 and op.n > 8:
        x0 = np.zeros((op.n, 1))
        x0[S, 0] = vecs[:, 0]
        bar = tqdm(desc="LOBPCG lambda_min (products)", disable=None if progress else True)

        def mv(v):
            bar.update(1)
            return op.matmat(v)
        A = LinearOperator((op.n, op.n), matvec=mv, matmat=mv, dtype=np.float64)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _, xs = lobpcg(A, x0, largest=False, maxiter=int(refine_iters), tol=1e-12)
        bar.close()
        x = xs[:, 0] / np.linalg.norm(xs[:, 0])
        rq = float(x @ op.matmat(x)) + 10 * op.n * EPS * math.sqrt(scan.fro2)
        bound = min(bound, rq)
    return bound, S


@dataclass
class NTKExtremes:
    """Extreme spectrum and minimum gradient angle of the empirical NTK ([LH] Sec. 4, 4.1).

    Attributes:
        n: number of samples.
        lambda_min: exact value (dense factorization), or the certified upper bound when only an interval
            is known (see ``lambda_min_bounds``).
        lambda_max: the Lanczos/eigh value.
        kappa: lambda_max / lambda_min (``math.inf`` if singular to working precision) where lambda_min is
            exact; otherwise the certified interval ``(low, high)`` (high may be ``math.inf``).
        min_angle: the exact minimum pairwise gradient angle (radians).
        min_pair: the pair (i, j), i < j, attaining it.
        method: ``"dense"`` or ``"matrix_free"``.
        accuracy: a sentence stating what is exact and what is a bound.
        lambda_min_bounds, lambda_max_bounds: certified intervals.
        timings: seconds per stage.
        singular: K is singular to working precision.
    """

    n: int
    lambda_min: float
    lambda_max: float
    kappa: float | tuple[float, float]
    min_angle: float
    min_pair: tuple[int, int]
    method: str
    accuracy: str
    lambda_min_bounds: tuple[float, float]
    lambda_max_bounds: tuple[float, float]
    singular: bool = False
    timings: dict = field(default_factory=dict)


def _cache_key(model: MLP, X) -> str:
    h = hashlib.sha256()
    for p in model.state_dict().values():
        h.update(p.detach().cpu().numpy().tobytes())
    Xa = X.detach().cpu().numpy() if isinstance(X, torch.Tensor) else np.asarray(X)
    h.update(str(Xa.shape).encode())
    h.update(np.ascontiguousarray(Xa).tobytes())
    h.update(f"{model.activation.name}|{model.hidden}|{model.in_dim}".encode())
    return h.hexdigest()


def ntk_extremes(model: MLP, X, method: str = "auto", device=None, lambda_min: str = "auto",
                 block_size: int = 2048, chunk_size: int = 4096, top_pairs: int = 64, sub_size: int = 2000,
                 tol: float = 1e-8, refine_iters: int = 0, cache_dir: str | os.PathLike | None = None,
                 progress: bool = True) -> NTKExtremes:
    """lambda_min, lambda_max, kappa and the exact minimum gradient angle of the NTK ([LH] Sec. 4, 4.1).

    Args:
        model: a scalar-output :class:`~lib.finite.mlp.MLP` (all layers trainable).
        X: inputs (n, in_dim), finite.
        method: ``"dense"`` (build K, :func:`lib.spectra.extreme_eigenvalues`), ``"matrix_free"`` (nothing
            n x n: streamed angle scan, Lanczos, sub-block bounds) or ``"auto"`` (dense when n <=
            ``DENSE_LIMIT`` and three n x n float64 copies fit in half of MemAvailable).
        device: device of the factors (default: the model's); CPU always works.
        lambda_min: for the matrix-free method, ``"auto"`` (exact when the dense factorization fits, as for
            ``method="auto"``), ``"exact"`` (always factor K densely) or ``"bounds"`` (certified interval only).
        block_size: block size of the angle scan.
        chunk_size: rows per forward/backward pass and product chunk.
        top_pairs: most parallel pairs kept for the lambda_min sub-block.
        sub_size: size of the sub-block of the lambda_min upper bound.
        tol: Lanczos tolerance.
        refine_iters: LOBPCG iterations lowering the lambda_min upper bound (see :func:`lambda_min_upper_bound`).
        cache_dir: directory for the resumable angle-scan state (matrix-free only).
        progress: progress bars.

    Returns:
        An :class:`NTKExtremes`.
    """
    if method not in ("auto", "dense", "matrix_free"):
        raise ValueError(f"method must be 'auto', 'dense' or 'matrix_free', got {method!r}")
    if lambda_min not in ("auto", "exact", "bounds"):
        raise ValueError(f"lambda_min must be 'auto', 'exact' or 'bounds', got {lambda_min!r}")
    t0 = time.perf_counter()
    op = ntk_operator(model, X, device=device, chunk_size=chunk_size)
    n = op.n
    if n < 2:
        raise ValueError("ntk_extremes needs at least two samples")
    timings = {"factors": time.perf_counter() - t0}
    if method == "auto":
        method = "dense" if _dense_fits(n, op.nbytes) else "matrix_free"
    if method == "dense":
        t = time.perf_counter()
        K = op.dense(block_size)
        timings["kernel"] = time.perf_counter() - t
        t = time.perf_counter()
        sp = extreme_eigenvalues(K)
        timings["spectrum"] = time.perf_counter() - t
        t = time.perf_counter()
        dg = np.diag(K).copy()
        if np.any(dg <= 0):
            raise ValueError("K has non-positive diagonal entries: a zero gradient has no angle")
        sq = 1.0 / np.sqrt(dg)
        K *= sq[:, None]
        K *= sq[None, :]
        K[np.tril_indices(n)] = -np.inf
        flat = int(np.argmax(K))
        i, j = divmod(flat, n)
        cmax = float(np.clip(K[i, j], -1.0, 1.0))
        del K
        timings["angle"] = time.perf_counter() - t
        timings["total"] = time.perf_counter() - t0
        err = n * EPS * sp.lambda_max
        kappa = float(sp.kappa)
        return NTKExtremes(
            n=n, lambda_min=sp.lambda_min, lambda_max=sp.lambda_max, kappa=kappa, min_angle=float(np.arccos(cmax)),
            min_pair=(i, j), method="dense",
            accuracy=(f"dense float64 kernel: eigenvalues exact to about n eps lambda_max = {err:.2e} in absolute "
                      f"terms{' (K is singular to working precision, kappa = inf)' if sp.singular else ''}; the angle "
                      "is exact up to the arccos rounding (~1e-8 rad for near-parallel pairs)."),
            lambda_min_bounds=(max(sp.lambda_min - err, 0.0), sp.lambda_min + err),
            lambda_max_bounds=(sp.lambda_max - err, sp.lambda_max + err), singular=sp.singular, timings=timings)

    # matrix-free
    key = _cache_key(model, X) if cache_dir is not None else ""
    t = time.perf_counter()
    scan = min_angle_scan(op, block_size, top_pairs, cache_dir, key, progress)
    timings["angle_scan"] = time.perf_counter() - t
    t = time.perf_counter()
    theta, lmax_lo, lmax_hi, nprod = lambda_max_bounds(op, scan, tol=tol, progress=progress)
    timings["lambda_max"] = time.perf_counter() - t
    timings["lambda_max_products"] = nprod
    t = time.perf_counter()
    exact = lambda_min == "exact" or (lambda_min == "auto" and _dense_fits(n, op.nbytes))
    if exact:
        sp = extreme_eigenvalues(op.dense(block_size))
        timings["lambda_min"] = time.perf_counter() - t
        timings["total"] = time.perf_counter() - t0
        err = n * EPS * sp.lambda_max
        singular = sp.lambda_min <= n * EPS * theta
        kappa = math.inf if singular else theta / sp.lambda_min
        return NTKExtremes(
            n=n, lambda_min=sp.lambda_min, lambda_max=theta, kappa=kappa, min_angle=scan.min_angle,
            min_pair=scan.pair, method="matrix_free",
            accuracy=(f"matrix-free angle scan (exact) and Lanczos lambda_max certified in [{lmax_lo:.10g}, "
                      f"{lmax_hi:.10g}]; lambda_min from a dense factorization, exact to about {err:.2e}."),
            lambda_min_bounds=(max(sp.lambda_min - err, 0.0), sp.lambda_min + err),
            lambda_max_bounds=(lmax_lo, lmax_hi), singular=bool(singular), timings=timings)
    lmin_hi, S = lambda_min_upper_bound(op, scan, sub_size=sub_size, refine_iters=refine_iters, progress=progress)
    timings["lambda_min"] = time.perf_counter() - t
    timings["total"] = time.perf_counter() - t0
    singular = lmin_hi <= n * EPS * lmax_hi
    if singular:
        kappa: float | tuple[float, float] = math.inf
        note = "the sub-block bound shows K is singular to working precision, so kappa = inf"
    else:
        kappa = (lmax_lo / lmin_hi, math.inf)
        note = (f"kappa is the certified interval [lambda_max_low / lambda_min_high, inf) = [{kappa[0]:.6g}, inf): "
                "no rigorous lower bound on lambda_min other than 0 (K is PSD) is available without a dense "
                "factorization")
    return NTKExtremes(
        n=n, lambda_min=lmin_hi, lambda_max=theta, kappa=kappa, min_angle=scan.min_angle, min_pair=scan.pair,
        method="matrix_free",
        accuracy=(f"matrix-free: the min angle is exact (streamed over all pairs); lambda_max = {theta:.10g} by "
                  f"Lanczos, certified in [{lmax_lo:.10g}, {lmax_hi:.10g}] (residual and Frobenius bounds); "
                  f"lambda_min is only bounded: 0 <= lambda_min <= {lmin_hi:.6g} (Cauchy interlacing on a "
                  f"{S.size} x {S.size} principal sub-block"
                  f"{f', lowered by {refine_iters} LOBPCG iterations (a Rayleigh quotient)' if refine_iters else ''}); "
                  f"{note}."),
        lambda_min_bounds=(0.0, lmin_hi), lambda_max_bounds=(lmax_lo, lmax_hi), singular=bool(singular),
        timings=timings)
