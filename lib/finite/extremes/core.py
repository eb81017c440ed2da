"""The entry point :func:`lib.finite.extremes.ntk_extremes`: dense, or matrix-free with certified intervals."""
from __future__ import annotations

import hashlib
import math
import os
import time
from dataclasses import dataclass, field

import numpy as np
import torch

from lib.finite.extremes.cholesky import lambda_min_lower_bound, tiled_bytes
from lib.finite.extremes.cholesky import TILE_MEM_FRACTION
from lib.finite.extremes.operator import EPS, ntk_operator
from lib.finite.extremes.scan import lambda_max_bounds, lambda_min_upper_bound, min_angle_scan
from lib.finite.mlp import MLP
from lib.spectra import ANGLE_RESOLUTION, extreme_eigenvalues, warn_below_resolution
from lib.validation import InputError, available_memory, check_int, check_real, positive_int

__all__ = ["NTKExtremes", "ntk_extremes", "DENSE_LIMIT", "CERTIFY_LIMIT"]

#: largest n for which ``method="auto"`` (and ``lambda_min="auto"``) factor the dense kernel
DENSE_LIMIT = 12000
#: dense work needs about this many n x n float64 copies (K, the eigensolver's copy, workspace)
_DENSE_COPIES = 3
#: the dense path is used only when it needs at most this fraction of MemAvailable
_MEM_FRACTION = 0.5
#: largest n for which ``lambda_min="auto"`` runs the certified tiled factorizations (two of n^3 / 3 flops;
#: about 15 minutes at n = 30,000 on 2 cores); above it ``"auto"`` gives the sub-block bounds only
CERTIFY_LIMIT = 30000


def _dense_fits(n: int, extra_bytes: int = 0) -> bool:
    mem = available_memory()
    need = _DENSE_COPIES * 8 * n * n + extra_bytes
    return n <= DENSE_LIMIT and (mem is None or need <= _MEM_FRACTION * mem)


def _tiles_fit(n: int, tile: int) -> bool:
    mem = available_memory()
    return n <= CERTIFY_LIMIT and (mem is None or tiled_bytes(n, tile) + 4 * 8 * tile * tile <= TILE_MEM_FRACTION * mem)



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
        min_angle: the minimum pairwise gradient angle (radians), exact to ``angle_resolution``; a value below
            it is only an upper bound (a :class:`lib.validation.ResolutionWarning` says so).
        min_pair: the pair (i, j), i < j, attaining it.
        method: ``"dense"`` or ``"matrix_free"``.
        lambda_min_mode: how lambda_min was obtained: ``"exact"``, ``"certified"`` or ``"bounds"``.
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
    lambda_min_mode: str = "exact"
    timings: dict = field(default_factory=dict)
    angle_resolution: float = field(default_factory=lambda: ANGLE_RESOLUTION)  # sqrt(8 eps), about 4.2e-8 rad


def _angle_text(min_angle: float) -> str:
    """What the accuracy sentence says of the min angle: exact to the resolution, or below it (and then warn)."""
    if warn_below_resolution(min_angle, "ntk_extremes"):
        return (f"the min angle {min_angle:.3g} rad is below the resolution {ANGLE_RESOLUTION:.1e} rad of an angle "
                f"computed from K, so it is only known to lie in [0, {ANGLE_RESOLUTION:.1e}] (not exact)")
    return f"the min angle is exact to the resolution {ANGLE_RESOLUTION:.1e} rad of an angle computed from K"


def _check_arguments(**kw) -> None:
    """One message naming the argument for every integer/number option of :func:`ntk_extremes`."""
    for name in ("block_size", "chunk_size", "top_pairs", "sub_size", "tile"):
        positive_int(kw[name], name)
    check_int(kw["refine_iters"], "refine_iters", 0)
    for name in ("tol", "delta"):
        check_real(kw[name], name, low=0.0, high=1.0, low_open=True, high_open=True)
    if kw["shift"] is not None:
        check_real(kw["shift"], "shift", low=0.0)


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
                 tol: float = 1e-8, refine_iters: int = 0, tile: int = 2048, delta: float = 1e-3,
                 shift: float | None = None, cache_dir: str | os.PathLike | None = None, progress: bool = True) -> NTKExtremes:
    """lambda_min, lambda_max, kappa and the exact minimum gradient angle of the NTK ([LH] Sec. 4, 4.1).

    Args:
        model: a scalar-output :class:`lib.finite.mlp.MLP` (all layers trainable).
        X: inputs (n, in_dim), finite.
        method: ``"dense"`` (build K, :func:`lib.spectra.extreme_eigenvalues`), ``"matrix_free"`` (nothing
            n x n for the angle and lambda_max: streamed angle scan, Lanczos) or ``"auto"`` (dense when n <=
            ``DENSE_LIMIT`` and three n x n float64 copies fit in half of MemAvailable).
        device: device of the factors and tiles (default: the model's); CPU always works, ``"cuda"`` unchanged.
        lambda_min: for the matrix-free method: ``"exact"`` (factor K densely), ``"certified"`` (a certified
            bracket from shifted tiled Cholesky factorizations, :func:`lib.finite.extremes.lambda_min_lower_bound`;
            it holds the lower triangle of K, ``4 n^2`` bytes), ``"bounds"`` (upper bound from a principal
            sub-block, lower bound 0; nothing n x n) or ``"auto"`` (exact when the dense factorization fits,
            else certified when n <= ``CERTIFY_LIMIT`` and the tiles fit in memory, else bounds).
        block_size: block size of the angle scan.
        chunk_size: rows per forward/backward pass and product chunk.
        top_pairs: most parallel pairs kept for the lambda_min sub-block.
        sub_size: size of the sub-block of the lambda_min upper bound.
        tol: Lanczos tolerance.
        refine_iters: LOBPCG iterations lowering the lambda_min upper bound
            (see :func:`lib.finite.extremes.lambda_min_upper_bound`).
        tile: tile edge of the certified factorization.
        delta: relative gap of the certified shift below the estimate (the bracket's relative width).
        shift: with ``lambda_min="certified"``, certify ``lambda_min >= shift - rounding`` by one
            factorization of ``K - shift I`` instead of two (no estimate; the upper end stays the
            sub-block bound). Halves the cost at large n; if the factorization fails, only 0 is certified.
        cache_dir: directory for the resumable angle-scan state (matrix-free only).
        progress: progress bars.

    Returns:
        An :class:`lib.finite.extremes.NTKExtremes`.

    Raises:
        lib.validation.InputError: an unknown ``method`` or ``lambda_min``, fewer than two samples, bad
            inputs, or ``lambda_min="certified"`` whose tiles do not fit in memory.
    """
    if method not in ("auto", "dense", "matrix_free"):
        raise InputError(f"method must be 'auto', 'dense' or 'matrix_free', got {method!r}")
    if lambda_min not in ("auto", "exact", "certified", "bounds"):
        raise InputError(f"lambda_min must be 'auto', 'exact', 'certified' or 'bounds', got {lambda_min!r}")
    _check_arguments(block_size=block_size, chunk_size=chunk_size, top_pairs=top_pairs, sub_size=sub_size, tile=tile,
                     refine_iters=refine_iters, tol=tol, delta=delta, shift=shift)
    t0 = time.perf_counter()
    op = ntk_operator(model, X, device=device, chunk_size=chunk_size)
    n = op.n
    if n < 2:
        raise InputError("ntk_extremes needs at least two samples (X has one row)")
    timings = {"factors": time.perf_counter() - t0}
    if method == "auto":
        method = "dense" if _dense_fits(n, op.nbytes) else "matrix_free"
    if method == "dense":
        return _dense(op, block_size, timings, t0)

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
    if lambda_min == "auto":
        lambda_min = ("exact" if _dense_fits(n, op.nbytes) else
                      "certified" if _tiles_fit(n, tile) else "bounds")
    lmax_txt = (f"lambda_max = {theta:.10g} by Lanczos, certified in [{lmax_lo:.10g}, {lmax_hi:.10g}] (residual "
                "and Frobenius bounds)")
    common = dict(n=n, lambda_max=theta, min_angle=scan.min_angle, min_pair=scan.pair, method="matrix_free",
                  lambda_max_bounds=(lmax_lo, lmax_hi))
    if lambda_min == "exact":
        sp = extreme_eigenvalues(op.dense(block_size))
        timings["lambda_min"] = time.perf_counter() - t
        timings["total"] = time.perf_counter() - t0
        err = n * EPS * sp.lambda_max
        singular = sp.lambda_min <= n * EPS * theta
        kappa = math.inf if singular else theta / sp.lambda_min
        return NTKExtremes(
            lambda_min=sp.lambda_min, kappa=kappa, lambda_min_mode="exact",
            accuracy=(f"matrix-free angle scan ({_angle_text(scan.min_angle)}) and {lmax_txt}; lambda_min from a "
                      "dense factorization, "
                      f"exact to about {err:.2e}."),
            lambda_min_bounds=(max(sp.lambda_min - err, 0.0), sp.lambda_min + err), singular=bool(singular),
            timings=timings, **common)
    lmin_hi, S = lambda_min_upper_bound(op, scan, sub_size=sub_size, refine_iters=refine_iters, progress=progress)
    timings["lambda_min_upper"] = time.perf_counter() - t
    sub_txt = (f"Cauchy interlacing on a {S.size} x {S.size} principal sub-block"
               f"{f', lowered by {refine_iters} LOBPCG iterations (a Rayleigh quotient)' if refine_iters else ''}")
    lmin_lo, low_txt = 0.0, "no rigorous lower bound on lambda_min other than 0 (K is PSD) was computed"
    if lambda_min == "certified" and lmin_hi <= n * EPS * lmax_hi:
        lambda_min = "bounds"  # singular already by the upper bound: nothing to certify
    if lambda_min == "certified":
        t = time.perf_counter()
        cert = lambda_min_lower_bound(op, tile=tile, delta=delta, shift=shift, tol=max(tol, 1e-10),
                                      progress=progress)
        timings["lambda_min_certified"] = time.perf_counter() - t
        timings.update({f"certified_{k}": v for k, v in cert.timings.items()})
        if cert.upper < lmin_hi:
            lmin_hi, sub_txt = cert.upper, "the Rayleigh quotient of the inverse-Lanczos vector"
        lmin_lo = cert.lower
        tries = ", ".join(f"s = {s:.6g}: {'ok' if p == 0 else f'failed at pivot {p}'}" for s, p in cert.attempts)
        low_txt = (f"lambda_min >= {lmin_lo:.6g} is certified by the floating-point Cholesky factorization of "
                   f"K - s I (tiled, {tile} x {tile} tiles; {tries}) minus the rounding term {cert.rounding:.3g} "
                   "(Rump 2006, Thm. 2.3)" if lmin_lo > 0 else
                   f"no positive shift could be certified ({tries}), so only lambda_min >= 0 holds")
    timings["lambda_min"] = sum(v for k, v in timings.items() if k in ("lambda_min_upper", "lambda_min_certified"))
    timings["total"] = time.perf_counter() - t0
    singular = lmin_hi <= n * EPS * lmax_hi
    if singular:
        kappa: float | tuple[float, float] = math.inf
        note = "the upper bound on lambda_min shows K is singular to working precision, so kappa = inf"
    else:
        kappa = (lmax_lo / lmin_hi, lmax_hi / lmin_lo if lmin_lo > 0 else math.inf)
        note = (f"kappa lies in the certified interval [lambda_max_low / lambda_min_high, lambda_max_high / "
                f"lambda_min_low] = [{kappa[0]:.6g}, {kappa[1]:.6g}]")
    return NTKExtremes(
        lambda_min=lmin_hi, kappa=kappa, lambda_min_mode=lambda_min,
        accuracy=(f"matrix-free: {_angle_text(scan.min_angle)} (streamed over all pairs); {lmax_txt}; "
                  f"lambda_min <= {lmin_hi:.6g} ({sub_txt}); {low_txt}; {note}."),
        lambda_min_bounds=(lmin_lo, lmin_hi), singular=bool(singular), timings=timings, **common)


def _dense(op, block_size: int, timings: dict, t0: float) -> NTKExtremes:
    n = op.n
    t = time.perf_counter()
    K = op.dense(block_size)
    timings["kernel"] = time.perf_counter() - t
    t = time.perf_counter()
    sp = extreme_eigenvalues(K)
    timings["spectrum"] = time.perf_counter() - t
    t = time.perf_counter()
    dg = np.diag(K).copy()
    if np.any(dg <= 0):
        raise InputError("K has non-positive diagonal entries: a zero gradient has no angle (is an input zero?)")
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
    return NTKExtremes(
        n=n, lambda_min=sp.lambda_min, lambda_max=sp.lambda_max, kappa=float(sp.kappa),
        min_angle=float(np.arccos(cmax)), min_pair=(i, j), method="dense", lambda_min_mode="exact",
        accuracy=(f"dense float64 kernel: eigenvalues exact to about n eps lambda_max = {err:.2e} in absolute "
                  f"terms{' (K is singular to working precision, kappa = inf)' if sp.singular else ''}; "
                  f"{_angle_text(float(np.arccos(cmax)))}."),
        lambda_min_bounds=(max(sp.lambda_min - err, 0.0), sp.lambda_min + err),
        lambda_max_bounds=(sp.lambda_max - err, sp.lambda_max + err), singular=sp.singular, timings=timings)
