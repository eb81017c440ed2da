"""Spectra, condition numbers and angles of kernel matrices (float64 throughout).

A matrix that is singular to working precision has an infinite condition number here:
:func:`condition_number` returns ``math.inf`` rather than a meaningless 1e17 or a
negative ratio of rounding errors. A matrix with an eigenvalue clearly negative (beyond
rounding) is not a kernel matrix: :func:`spectrum` and :func:`condition_number` raise
:class:`lib.validation.InputError` (a ValueError).
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import linalg
from scipy.linalg import LinAlgError, blas, cho_factor, cho_solve, lapack
from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh

from lib.validation import InputError, ResolutionWarning, as_matrix, check_real, real_array

__all__ = [
    "Spectrum",
    "spectrum",
    "condition_number",
    "extreme_eigenvalues",
    "cosine_matrix",
    "angle_matrix",
    "min_pairwise_angle",
    "warn_below_resolution",
    "EIGH_LIMIT",
    "ANGLE_RESOLUTION",
    "TINY_SCALE",
    "relative_error",
    "fit_slope",
    "fast_extremes",
    "FAST_MIN_N",
]

EPS = np.finfo(np.float64).eps
#: above this n, :func:`extreme_eigenvalues` uses Lanczos + Cholesky instead of a full ``eigvalsh``
EIGH_LIMIT = 8000
#: a finite kappa is called trustworthy when lambda_min is known to this relative accuracy
TRUST_REL_ERR = 1e-3
#: float64's smallest normal number (2.2e-308); a kernel whose entries all lie below it is subnormal, its digits
#: are lost to underflow, and :func:`lib.validation.as_matrix` refuses it (:func:`lib.validation.subnormal_scale`);
#: a kernel of normal floats, however small, is as accurate as any (LAPACK scales it internally)
TINY_SCALE = float(np.finfo(np.float64).tiny)
#: an angle computed as arccos of a cosine from K is resolved only to about sqrt(8 eps) ~ 4.2e-8 rad; the
#: cosine is rounded by a few ulps (~4 eps), and arccos(1 - 4 eps) = sqrt(8 eps); below it, a computed angle
#: (0, or ~2e-8) says nothing about the true one
ANGLE_RESOLUTION = math.sqrt(8.0 * EPS)


@dataclass(frozen=True)
class Spectrum:
    """Extreme spectrum of a symmetric PSD kernel ([LH] Sec. 4).

    Attributes:
        lambda_min, lambda_max: smallest and largest eigenvalue (float64).
        kappa: lambda_max / lambda_min, or ``math.inf`` when singular to working precision.
        singular: lambda_min <= n * eps * lambda_max (numerically rank-deficient).
        trustworthy: the finite kappa has relative error below ``TRUST_REL_ERR``
            (the eigensolver's absolute error is about n * eps * lambda_max, and never below n times the
            smallest subnormal number).
        eigenvalues: all eigenvalues in ascending order, when a full decomposition was made.
        note: why the spectrum is not trustworthy (``""`` when it is, or when it is singular).
    """

    lambda_min: float
    lambda_max: float
    kappa: float
    singular: bool
    trustworthy: bool
    n: int
    eigenvalues: np.ndarray | None = None
    note: str = ""


def _check_psd(lmin: float, lmax: float, n: int, name: str = "K") -> None:
    """Raise if lmin is negative beyond rounding: the matrix is not positive semi-definite."""
    if lmin < -max(100.0 * n * EPS, math.sqrt(EPS)) * max(abs(lmax), abs(lmin)):
        raise InputError(f"{name} is not positive semi-definite: it has the eigenvalue {lmin:.6g} < 0 beyond "
                         f"rounding (lambda_max = {lmax:.6g}); a kernel (Gram) matrix has no negative eigenvalues")


def _classify(lmin: float, lmax: float, n: int, eigenvalues=None, name: str = "K") -> Spectrum:
    tol = n * EPS * max(lmax, 0.0)
    _check_psd(lmin, lmax, n, name)
    if lmax <= 0.0:
        raise InputError(f"{name} has no positive eigenvalue (is it the zero matrix?)")
    singular = lmin <= tol
    kappa = math.inf if singular else lmax / lmin
    # the absolute error never falls below the subnormal spacing, whatever eps * lambda_max says
    err = max(tol, n * float(np.finfo(np.float64).smallest_subnormal))
    note = ""
    if not singular and err / lmin >= TRUST_REL_ERR:
        note = (f"lambda_min = {lmin:.3g} is known only to about {err:.2g} (n eps lambda_max), a relative error "
                f"above {TRUST_REL_ERR:g}")
    trust = (not singular) and not note
    return Spectrum(float(lmin), float(lmax), kappa, bool(singular), bool(trust), n, eigenvalues, note)


def spectrum(K, name: str = "K") -> Spectrum:
    """Full eigendecomposition (``eigvalsh``, float64) with the singularity verdict of :class:`Spectrum`.

    Args:
        K: a real symmetric positive semi-definite matrix (:func:`lib.validation.as_matrix`).
        name: the argument's name, for messages.

    Raises:
        lib.validation.InputError: K is not a real symmetric finite matrix of normal floats, or has an eigenvalue
            below 0 beyond rounding.
    """
    A = as_matrix(K, name)
    ev = linalg.eigvalsh(A, check_finite=False)
    return _classify(ev[0], ev[-1], A.shape[0], ev, name)


def condition_number(K) -> float:
    """kappa(K) = lambda_max / lambda_min ([LH] Sec. 4); ``math.inf`` if K is singular to working precision.

    Singular means rank-deficient in float64: lambda_min <= n * eps * lambda_max.
    """
    return extreme_eigenvalues(K).kappa


def extreme_eigenvalues(K, method: str = "auto", tol: float = 1e-10) -> Spectrum:
    """lambda_min, lambda_max and kappa of a symmetric PSD matrix, fast for large n.

    ``method``: ``"eigh"`` (full ``eigvalsh``), ``"lanczos"`` (Lanczos for lambda_max; a
    Cholesky factorization, the explicit inverse, then Lanczos on K^{-1} for lambda_min: a failed factorization
    means K is not numerically positive definite, so it is singular), or ``"auto"``
    (eigh up to ``EIGH_LIMIT`` rows, Lanczos above).
    """
    A = as_matrix(K)
    n = A.shape[0]
    if method not in ("auto", "eigh", "lanczos"):
        raise InputError(f"method must be 'auto', 'eigh' or 'lanczos', got {method!r}")
    tol = check_real(tol, "tol", low=0.0, low_open=True)
    if method == "eigh" or (method == "auto" and n <= EIGH_LIMIT) or n < 3:
        return spectrum(A)
    lmax = float(eigsh(A, k=1, which="LA", tol=tol, return_eigenvectors=False)[0])
    chol, info = lapack.dpotrf(A, lower=1, clean=0)
    if info != 0:  # not numerically positive definite: singular to working precision, or indefinite
        _check_psd(_smallest_eigenvalue(A, tol), lmax, n)
        return _classify(0.0, lmax, n)
    # explicit K^{-1}, overwriting the factor (one n x n copy in all): its lower triangle feeds a
    # symmetric BLAS matvec, which beats two triangular solves per Lanczos step
    inv, info = lapack.dpotri(chol, lower=1, overwrite_c=1)
    if info != 0:
        return _classify(0.0, lmax, n)
    op = LinearOperator((n, n), matvec=lambda v: blas.dsymv(1.0, inv, np.ravel(v), lower=1), dtype=np.float64)
    inv_max = float(eigsh(op, k=1, which="LA", tol=tol, return_eigenvectors=False)[0])
    lmin = 1.0 / inv_max if inv_max > 0 else 0.0
    return _classify(lmin, lmax, n)


def _smallest_eigenvalue(A: np.ndarray, tol: float) -> float:
    """Lanczos estimate of lambda_min (only to tell an indefinite matrix from a singular PSD one)."""
    try:
        return float(eigsh(A, k=1, which="SA", tol=max(tol, 1e-6), maxiter=20 * A.shape[0],
                           return_eigenvectors=False)[0])
    except ArpackNoConvergence as exc:
        ev = np.asarray(exc.eigenvalues)
        return float(ev.min()) if ev.size else 0.0


def cosine_matrix(K) -> np.ndarray:
    """C_ij = K_ij / sqrt(K_ii K_jj): cosines of the angles between gradient features."""
    A = as_matrix(K)
    d = np.diag(A)
    if np.any(d <= 0):
        bad = np.flatnonzero(d <= 0)[:5].tolist()
        raise InputError(f"K has non-positive diagonal entries at rows {bad}: a zero gradient has no angle "
                         "(is an input the zero vector?)")
    s = 1.0 / np.sqrt(d)
    return np.clip(A * s[:, None] * s[None, :], -1.0, 1.0)


def angle_matrix(K) -> np.ndarray:
    """Pairwise angles (radians) between gradient features, from K alone ([LH] Sec. 3)."""
    return np.arccos(cosine_matrix(K))


def min_pairwise_angle(K, return_resolution: bool = False) -> float | tuple[float, float]:
    """min over i != j of the angle (radians) between grad f(x_i) and grad f(x_j) ([LH] Sec. 4.1).

    Computed as arccos of the largest off-diagonal cosine K_ij / sqrt(K_ii K_jj). From K alone an
    angle is resolved only to about ``ANGLE_RESOLUTION`` = sqrt(8 eps) ~ 4.2e-8 rad: parallel inputs, or
    inputs 1e-8 rad apart, give a value below it (possibly exactly 0). Such a value is an upper bound, not
    the angle: a :class:`lib.validation.ResolutionWarning` says so, with the resolution.

    Args:
        K: a symmetric PSD kernel with a positive diagonal.
        return_resolution: also return the resolution of the angle.

    Returns:
        The minimum angle, or ``(angle, ANGLE_RESOLUTION)`` with ``return_resolution``.
    """
    C = cosine_matrix(K)
    if C.shape[0] < 2:
        raise InputError("min_pairwise_angle needs at least two samples")
    np.fill_diagonal(C, -np.inf)
    angle = float(np.arccos(C.max()))
    warn_below_resolution(angle, "min_pairwise_angle")
    return (angle, ANGLE_RESOLUTION) if return_resolution else angle


def warn_below_resolution(angle: float, what: str) -> bool:
    """Warn (:class:`lib.validation.ResolutionWarning`) if ``angle`` is below ``ANGLE_RESOLUTION``.

    Args:
        angle: an angle computed as arccos of a cosine from a kernel (radians).
        what: the function or quantity, for the message.

    Returns:
        True if the angle is below the resolution (then it is only an upper bound of about the resolution).
    """
    if angle >= ANGLE_RESOLUTION:
        return False
    warnings.warn(f"{what}: the minimum angle {angle:.3g} rad is below the resolution of an angle computed from "
                  f"the kernel, about {ANGLE_RESOLUTION:.1e} rad (sqrt(8 eps)); the true angle lies somewhere in "
                  f"[0, {ANGLE_RESOLUTION:.1e}], it is not exact", ResolutionWarning, stacklevel=3)
    return True


def relative_error(A, B) -> float:
    """||A - B||_F / ||B||_F for two matrices of the same shape."""
    A, B = as_matrix(A, "A", square=False), as_matrix(B, "B", square=False)
    if A.shape != B.shape:
        raise InputError(f"shapes differ: {A.shape} vs {B.shape}")
    nb = np.linalg.norm(B)
    if nb == 0:
        raise InputError("relative error to the zero matrix is undefined")
    return float(np.linalg.norm(A - B) / nb)


def fit_slope(x, y) -> float:
    """Least-squares slope of log y against log x: the exponent of a power law (e.g. the O(m^-1/2) rates)."""
    x, y = real_array(x, "x", low=0.0, low_open=True), real_array(y, "y", low=0.0, low_open=True)
    if x.ndim != 1 or x.shape != y.shape or x.size < 2:
        raise InputError(f"fit_slope needs two 1-D arrays of the same length, at least two points; got shapes "
                         f"{x.shape} and {y.shape}")
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


#: from this n on, :func:`fast_extremes` uses a Cholesky factor and Lanczos instead of a full ``eigh``
FAST_MIN_N = 700


def fast_extremes(K: np.ndarray) -> tuple[float, float, float, bool]:
    """lambda_min, lambda_max, kappa and singularity of a PSD kernel ([LH] Sec. 4), fast at n in the thousands.

    For n >= :data:`FAST_MIN_N`: one Cholesky factorization (n^3/3 flops), Lanczos (``eigsh``, tol 1e-10)
    on K for lambda_max and on K^-1 (two triangular solves per step) for 1/lambda_min; about 8 times
    faster at n = 2000 than :func:`extreme_eigenvalues` (which forms K^-1 explicitly), same values to
    rounding. A failed factorization (K not numerically positive definite) falls back to
    :func:`extreme_eigenvalues`, which tells a singular kernel (kappa = inf) from an indefinite one.
    Singular means lambda_min <= n eps lambda_max, as in :class:`Spectrum`.

    Args:
        K: a symmetric PSD matrix.

    Returns:
        ``(lambda_min, lambda_max, kappa, singular)``.
    """
    K = as_matrix(K)
    n = K.shape[0]
    if n >= FAST_MIN_N:
        try:
            c = cho_factor(K, lower=True, check_finite=False)
        except LinAlgError:
            c = None
        if c is not None:
            lmax = float(eigsh(K, k=1, which="LA", tol=1e-10, return_eigenvectors=False)[0])
            op = LinearOperator(K.shape, matvec=lambda v: cho_solve(c, v, check_finite=False), dtype=np.float64)
            inv_max = float(eigsh(op, k=1, which="LA", tol=1e-10, return_eigenvectors=False)[0])
            lmin = 1.0 / inv_max if inv_max > 0 else 0.0
            singular = lmin <= n * float(EPS) * lmax
            return lmin, lmax, math.inf if singular else lmax / lmin, bool(singular)
    sp = extreme_eigenvalues(K, method="eigh" if n <= 8000 else "lanczos")
    return sp.lambda_min, sp.lambda_max, sp.kappa, sp.singular
