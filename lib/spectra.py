"""Spectra, condition numbers and angles of kernel matrices (float64 throughout).

A matrix that is singular to working precision has an infinite condition number here:
:func:`condition_number` returns ``math.inf`` rather than a meaningless 1e17 or a
negative ratio of rounding errors. A matrix with an eigenvalue clearly negative (beyond
rounding) is not a kernel matrix: :func:`spectrum` and :func:`condition_number` raise
:class:`lib.validation.InputError` (a ValueError).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import linalg
from scipy.linalg import blas, lapack
from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh

from lib.validation import InputError, as_matrix

__all__ = [
    "Spectrum",
    "spectrum",
    "condition_number",
    "extreme_eigenvalues",
    "cosine_matrix",
    "angle_matrix",
    "min_pairwise_angle",
    "EIGH_LIMIT",
    "relative_error",
    "fit_slope",
]

EPS = np.finfo(np.float64).eps
#: above this n, :func:`extreme_eigenvalues` uses Lanczos + Cholesky instead of a full ``eigvalsh``
EIGH_LIMIT = 8000
#: a finite kappa is called trustworthy when lambda_min is known to this relative accuracy
TRUST_REL_ERR = 1e-3


@dataclass(frozen=True)
class Spectrum:
    """Extreme spectrum of a symmetric PSD kernel ([LH] Sec. 4).

    Attributes:
        lambda_min, lambda_max: smallest and largest eigenvalue (float64).
        kappa: lambda_max / lambda_min, or ``math.inf`` when singular to working precision.
        singular: lambda_min <= n * eps * lambda_max (numerically rank-deficient).
        trustworthy: the finite kappa has relative error below ``TRUST_REL_ERR``
            (the eigensolver's absolute error is about n * eps * lambda_max).
        eigenvalues: all eigenvalues in ascending order, when a full decomposition was made.
    """

    lambda_min: float
    lambda_max: float
    kappa: float
    singular: bool
    trustworthy: bool
    n: int
    eigenvalues: np.ndarray | None = None


def _check_psd(lmin: float, lmax: float, n: int) -> None:
    """Raise if lmin is negative beyond rounding: the matrix is not positive semi-definite."""
    if lmin < -max(100.0 * n * EPS, math.sqrt(EPS)) * max(abs(lmax), abs(lmin)):
        raise InputError(f"K is not positive semi-definite: it has the eigenvalue {lmin:.6g} < 0 beyond rounding "
                         f"(lambda_max = {lmax:.6g}); a kernel (Gram) matrix has no negative eigenvalues")


def _classify(lmin: float, lmax: float, n: int, eigenvalues=None) -> Spectrum:
    tol = n * EPS * max(lmax, 0.0)
    _check_psd(lmin, lmax, n)
    if lmax <= 0.0:
        raise InputError("kernel has no positive eigenvalue (is it the zero matrix?)")
    singular = lmin <= tol
    kappa = math.inf if singular else lmax / lmin
    trust = (not singular) and tol / lmin < TRUST_REL_ERR
    return Spectrum(float(lmin), float(lmax), kappa, bool(singular), bool(trust), n, eigenvalues)


def spectrum(K) -> Spectrum:
    """Full eigendecomposition (``eigvalsh``, float64) with the singularity verdict of :class:`Spectrum`."""
    A = as_matrix(K)
    ev = linalg.eigvalsh(A, check_finite=False)
    return _classify(ev[0], ev[-1], A.shape[0], ev)


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


def min_pairwise_angle(K) -> float:
    """min over i != j of the angle (radians) between grad f(x_i) and grad f(x_j) ([LH] Sec. 4.1).

    Computed as arccos of the largest off-diagonal cosine K_ij / sqrt(K_ii K_jj). From K alone an
    angle is resolved only to about sqrt(2 eps) ~ 2e-8 rad, so parallel or duplicate inputs give
    a value below 1e-7 rather than exactly 0.
    """
    C = cosine_matrix(K)
    if C.shape[0] < 2:
        raise InputError("min_pairwise_angle needs at least two samples")
    np.fill_diagonal(C, -np.inf)
    return float(np.arccos(C.max()))


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
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.size < 2 or np.any(x <= 0) or np.any(y <= 0):
        raise InputError("fit_slope needs at least two points with positive x and y")
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])

