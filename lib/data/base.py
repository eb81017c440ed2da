"""Shared pieces of the data loaders: the missing-data error, seeded subsampling, preprocessing, pixel
ranges and content fingerprints ([LH] Sec. 4.1). Nothing here reads a file or downloads anything."""
from __future__ import annotations

import hashlib
import math
from typing import Sequence

import numpy as np

from lib.validation import InputError, check_seed, positive_int, real_array

__all__ = ["DataMissingError", "preprocess", "pixel_range_of", "scale_pixels", "fingerprint", "PIXEL_RANGES",
           "check_seed", "check_n", "subsample"]

#: the accepted pixel ranges; ``(-1, 1)`` is the authors' image preprocessing (torchvision's
#: ``ToTensor()`` then ``Normalize(0.5, 0.5)``: ``2 p - 1`` for ``p`` in [0, 1]); ``(0, 1)`` is ``p`` itself
PIXEL_RANGES = ((-1.0, 1.0), (0.0, 1.0))


class DataMissingError(FileNotFoundError):
    """A data file (or the package shipping a data set) the user must provide is not there; the
    message says what and where."""


def check_n(n, name: str = "n") -> int:
    """``n`` as an int if it is a positive integer, else one :class:`~lib.validation.InputError` naming ``name``
    (:func:`lib.validation.positive_int`)."""
    return positive_int(n, name)


def subsample(X: np.ndarray, y: np.ndarray, n: int | None, seed: int, source: str):
    """n rows of (X, y) without replacement, seeded, in their original order (all rows if n is None)."""
    seed = check_seed(seed)
    X, y = real_array(X, "X", finite=False, keep_dtype=True), real_array(y, "y", finite=False, keep_dtype=True)
    if n is None:
        return X, y
    n = check_n(n)
    if n > len(X):
        raise InputError(f"asked for n={n} samples but {source} has only {len(X)}")
    idx = np.sort(np.random.default_rng(seed).choice(len(X), size=n, replace=False))
    return X[idx], y[idx]


def pixel_range_of(pixel_range: Sequence[float] | str) -> tuple[float, float]:
    """Validate a pixel range: ``(-1, 1)`` (the authors' preprocessing of [LH] Sec. 4.1) or ``(0, 1)``.

    Args:
        pixel_range: a pair ``(-1, 1)`` / ``(0, 1)`` (a list is fine, e.g. from a YAML profile), or
            the strings ``"[-1, 1]"`` / ``"[0, 1]"``.

    Returns:
        the range as a tuple of two floats.

    Raises:
        lib.validation.InputError: any other value, naming ``pixel_range``.
    """
    value = pixel_range
    if isinstance(value, str):
        text = value.strip().strip("[]()").replace(" ", "")
        value = tuple(text.split(",")) if "," in text else (text,)
    try:
        pair = tuple(float(v) for v in value)
    except (TypeError, ValueError):
        pair = None
    if pair not in PIXEL_RANGES:
        raise InputError(f"pixel_range must be [-1, 1] (the authors' preprocessing) or [0, 1], got {pixel_range!r}")
    return pair


def scale_pixels(P: np.ndarray, pixel_range: Sequence[float] | str = (-1, 1)) -> np.ndarray:
    """Map pixels ``P`` in [0, 1] to ``pixel_range``: ``2 P - 1`` for ``(-1, 1)``, ``P`` for ``(0, 1)``.

    Args:
        P: float64 pixels in [0, 1].
        pixel_range: see :func:`pixel_range_of`.

    Returns:
        float64 array of the same shape.
    """
    low, _ = pixel_range_of(pixel_range)
    P = np.asarray(P, dtype=np.float64)
    return 2.0 * P - 1.0 if low == -1.0 else P


def preprocess(X, n: int | None = None, seed: int = 0, unit_norm: bool = False, center: bool = False,
               scale: float | None = None) -> np.ndarray:
    """Flatten, optionally subsample ``n`` rows (without replacement, seeded), center, scale, unit-normalize.

    Args:
        X: samples of shape (n, ...), flattened to (n, d).
        n: rows kept (None: all), drawn with ``seed``.
        seed: seed of the subsample.
        unit_norm: rescale every row to unit norm.
        center: subtract the column means.
        scale: multiply by this factor.

    Returns:
        float64 array (n, d).

    Raises:
        lib.validation.InputError: empty data, NaN/inf, a ``scale`` that is not a finite positive number or
            that makes the data overflow, or a zero row when ``unit_norm`` is asked (its direction is undefined).
    """
    if scale is not None and (isinstance(scale, bool) or not isinstance(scale, (int, float, np.integer, np.floating))
                              or not math.isfinite(float(scale)) or float(scale) <= 0):
        raise InputError(f"scale must be a finite positive number (or None), got {scale!r}")
    X = real_array(X, "X", finite=False)
    if X.ndim == 0 or X.size == 0:
        raise InputError(f"data are empty (shape {X.shape}): need at least one sample")
    X = X.reshape(len(X), -1)
    if not np.all(np.isfinite(X)):
        raise InputError("data contain NaN or inf values")
    X, _ = subsample(X, np.arange(len(X)), n, seed, "the data set")
    if center:
        X = X - X.mean(axis=0, keepdims=True)
    if scale is not None:
        with np.errstate(over="ignore", under="ignore"):
            X = X * float(scale)
        if not np.all(np.isfinite(X)):
            raise InputError(f"scale={scale!r} makes the data overflow to inf (largest |x| after scaling exceeds "
                             f"{np.finfo(np.float64).max:.3g}); use a smaller scale")
    if unit_norm:
        norms = np.linalg.norm(X, axis=1, keepdims=True)
        if np.any(norms == 0):
            raise InputError(f"{int((norms == 0).sum())} zero row(s) cannot be scaled to unit norm")
        X = X / norms
    return X


def fingerprint(X) -> str:
    """A short SHA-256 of an array's shape, dtype and bytes (float64, C order): changes iff the data change."""
    A = np.ascontiguousarray(real_array(X, "X", finite=False))
    h = hashlib.sha256(f"{A.shape}|float64|".encode())
    h.update(A.tobytes())
    return h.hexdigest()[:20]
