"""Input checks and accurate input angles shared by the theory modules."""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from lib.validation import InputError, as_data, check_int, real_array

__all__ = ["check_depth", "check_count", "check_angles", "check_correlations", "check_variances", "check_data",
           "input_angles", "row_norms"]


def check_depth(depth, name: str = "depth") -> int:
    """Return ``depth`` as an int >= 0 (:func:`lib.validation.check_int`; a float such as 2.7 is refused, never
    truncated)."""
    return check_int(depth, name, 0, meaning="number of hidden layers")


def check_count(n, name: str = "n") -> int:
    """Return ``n`` as an int >= 1, a number of inputs (:func:`lib.validation.check_int`)."""
    return check_int(n, name, 1, meaning="number of inputs")


def check_angles(theta: ArrayLike, name: str = "theta_in") -> np.ndarray:
    """Validate angles in radians: finite reals in [0, pi] (values within 1e-12 of the ends are clipped)."""
    arr = real_array(theta, name)
    if arr.size and (arr.min() < -1e-12 or arr.max() > math.pi + 1e-12):
        raise InputError(f"{name} must lie in [0, pi] radians, got values in [{arr.min():.6g}, {arr.max():.6g}] "
                         "(did you pass degrees?)")
    return np.clip(arr, 0.0, math.pi)


def check_correlations(rho: ArrayLike, name: str = "rho") -> np.ndarray:
    """Validate correlations: finite reals in [-1, 1] (values within 1e-12 of the ends are clipped to them)."""
    return np.clip(real_array(rho, name, low=-1.0 - 1e-12, high=1.0 + 1e-12), -1.0, 1.0)


def check_variances(q: ArrayLike, name: str = "q", positive: bool = True) -> np.ndarray:
    """Validate variances (squared lengths): finite reals, positive (or non-negative with ``positive=False``)."""
    return real_array(q, name, low=0.0, low_open=positive)


def check_data(X: ArrayLike, name: str = "X") -> np.ndarray:
    """Validate a data matrix of shape (n, d): real, 2-D, non-empty, finite; returned as float64
    (:func:`lib.validation.as_data`)."""
    return as_data(X, name=name)


def row_norms(X: np.ndarray, name: str = "X") -> np.ndarray:
    """Euclidean norms of the rows; a zero row raises ValueError (its angle to other inputs is undefined)."""
    norms = np.linalg.norm(as_data(X, name=name), axis=1)
    if np.any(norms == 0.0):
        bad = np.flatnonzero(norms == 0.0)[:5].tolist()
        raise InputError(f"{name} has zero rows {bad}: the angle between a zero input and another input is "
                         "undefined (and a bias-free ReLU network maps it to a zero gradient)")
    return norms


def input_angles(X: ArrayLike, near: float = 0.1) -> np.ndarray:
    """Pairwise input angles theta_in(x_i, x_j) in radians, shape (n, n), zero diagonal.

    ``arccos`` of the cosine loses half the digits near 0 and pi (error ~ sqrt(eps) = 1e-8 rad),
    which matters here because the ReLU gradient angle grows like sqrt(L theta_in / pi)
    ([LH] Cor. 3.3). Pairs within ``near`` radians of parallel or anti-parallel are therefore
    recomputed with Kahan's formula ``theta = 2 atan2(|x|z| - z|x||, |x|z| + z|x||)``, accurate to a
    few ulps (exactly 0 for x and 2x).
    """
    A = check_data(X)
    norms = row_norms(A)
    U = A / norms[:, None]
    C = np.clip(U @ U.T, -1.0, 1.0)
    theta = np.arccos(C)
    i, j = np.nonzero(np.triu(np.abs(C) > math.cos(near), k=1))
    step = max(1, 2_000_000 // A.shape[1])
    for s in range(0, i.size, step):
        a, b = i[s:s + step], j[s:s + step]
        xa, xb = A[a] * norms[b, None], A[b] * norms[a, None]
        theta[a, b] = 2.0 * np.arctan2(np.linalg.norm(xa - xb, axis=1), np.linalg.norm(xa + xb, axis=1))
        theta[b, a] = theta[a, b]
    np.fill_diagonal(theta, 0.0)
    return theta
