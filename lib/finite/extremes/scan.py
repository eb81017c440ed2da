"""Streams over the blocks of the matrix-free NTK: the exact minimum gradient angle ([LH] Sec. 4.1),
certified bounds on lambda_max, and interlacing upper bounds on lambda_min ([LH] Sec. 4)."""
from __future__ import annotations

import hashlib
import math
import os
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from scipy import linalg
from scipy.sparse.linalg import LinearOperator, eigsh, lobpcg

from lib.finite.extremes.operator import EPS, MatrixFreeNTK
from lib.progress import tqdm
from lib.validation import InputError, check_int, check_real, check_seed, positive_int

__all__ = ["AngleScan", "min_angle_scan", "lambda_max_bounds", "lambda_min_upper_bound"]


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
            :func:`lib.finite.extremes.lambda_min_upper_bound`).
        cache_dir: if given, the accumulated state is saved there after every block row, and a run
            with the same ``cache_key`` and block size resumes from the last saved row.
        cache_key: identifies the problem (model weights and data) in the cache.
        progress: show a progress bar over block rows.

    Returns:
        An :class:`lib.finite.extremes.AngleScan`.
    """
    n, dev = op.n, op.device
    if n < 2:
        raise InputError("the minimum pairwise angle needs at least two samples")
    block_size, top = positive_int(block_size, "block_size"), positive_int(top, "top")
    d = op.diag
    if bool((d <= 0).any()):
        bad = torch.nonzero(d <= 0).flatten()[:5].tolist()
        raise InputError(f"K has non-positive diagonal entries at rows {bad}: a zero gradient has no angle "
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
        scan: the result of :func:`lib.finite.extremes.min_angle_scan` (gives ||K||_F, the row sums and a start vector);
            without it no certified upper bound is available and ``high`` is ``math.inf``.
        tol: ARPACK's relative tolerance.
        maxiter: ARPACK's iteration limit.
        progress: show the number of products.

    Returns:
        ``(theta, low, high, n_products)``.
    """
    check_real(tol, "tol", low=0.0, low_open=True)
    if maxiter is not None:
        positive_int(maxiter, "maxiter")
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
        scan: from :func:`lib.finite.extremes.min_angle_scan`.
        sub_size: target size of S (the dense sub-block costs O(sub_size^3)).
        seed: of the random rows.
        refine_iters: LOBPCG iterations on the full K (each costs a few products).
        progress: show a progress bar of the products.

    Returns:
        ``(upper_bound, S)``.
    """
    sub_size, seed = positive_int(sub_size, "sub_size"), check_seed(seed)
    check_int(refine_iters, "refine_iters", 0)
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

