"""The faces data set: scikit-image's LFW subset (``skimage.data.lfw_subset()``), shipped inside the
scikit-image package (no download).

200 grey images of 25 x 25 = 625 pixels: the first 100 are faces from Labeled Faces in the Wild,
the other 100 are background patches (non-faces) cut from the same photographs. With n = 200 <=
d = 625 and a Gram matrix of full rank 200, its kappa_0 = kappa(X X^T) is finite, so [LH] Thm 4.2
(kappa < kappa_0) and "ReLU kappa < linear kappa" ([LH] Fig 3) can fail on it.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from lib.data.base import DataMissingError, subsample, preprocess, scale_pixels, pixel_range_of

__all__ = ["load_faces", "FACES_SHAPE"]

#: (samples, height, width) of ``skimage.data.lfw_subset()``
FACES_SHAPE = (200, 25, 25)


def _raw_faces() -> np.ndarray:
    try:
        from skimage import data as skdata
    except ImportError as exc:
        raise DataMissingError(
            f"the faces data set ships with scikit-image, which is not installed ({exc}); install the version "
            f"pinned in requirements.txt (pip install -r requirements.txt)") from None
    try:
        images = np.asarray(skdata.lfw_subset())
    except Exception as exc:  # a damaged installation: the .npy inside the package is missing
        raise DataMissingError(f"scikit-image is installed but its lfw_subset data cannot be read: {exc}") from None
    if images.shape != FACES_SHAPE:
        raise DataMissingError(f"scikit-image's lfw_subset has shape {images.shape}, expected {FACES_SHAPE}")
    images = images.astype(np.float64)
    if images.max() > 1.0:  # documented as uint8 in some versions: 0..255 -> [0, 1]
        images = images / 255.0
    return images


def load_faces(n: int | None = None, seed: int = 0, unit_norm: bool = False, return_labels: bool = False,
               pixel_range: Sequence[float] | str = (-1, 1), center: bool = False):
    """The faces set (scikit-image's LFW subset), flattened to 625 features, as float64.

    Pixels in [0, 1] are mapped to ``pixel_range``: ``(-1, 1)`` (default, as the authors of [LH]
    preprocess images) or ``(0, 1)``.

    Args:
        n: images drawn (seeded, without replacement, original order kept); None: all 200.
        seed: seed of the subsample.
        unit_norm: rescale every image to unit norm (after the pixel mapping).
        return_labels: also return labels, 1 for a face (first 100), 0 for a non-face patch.
        pixel_range: ``(-1, 1)`` or ``(0, 1)`` (see :func:`lib.data.base.pixel_range_of`).
        center: subtract the mean image.

    Returns:
        X of shape (n, 625), or ``(X, y)`` with ``return_labels``.

    Raises:
        DataMissingError: scikit-image is not installed (the message says how to install it).
        lib.validation.InputError: bad ``n`` or ``pixel_range``.
    """
    pixel_range_of(pixel_range)
    images = _raw_faces()
    y = np.r_[np.ones(100, dtype=np.int64), np.zeros(100, dtype=np.int64)]
    X, y = subsample(images.reshape(len(images), -1), y, n, seed, "the faces set")
    X = preprocess(scale_pixels(X, pixel_range), unit_norm=unit_norm, center=center)
    return (X, y) if return_labels else X
