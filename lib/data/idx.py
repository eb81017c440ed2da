"""MNIST-style data (MNIST, Fashion-MNIST) from standard IDX files the user already has ([LH] Sec. 4.1).

Nothing is downloaded. Pixels are mapped to [-1, 1] by default, the authors' preprocessing
(torchvision's ``ToTensor()`` then ``Normalize(0.5, 0.5)``), or to [0, 1] with ``pixel_range=(0, 1)``.
"""
from __future__ import annotations

import gzip
import struct
from pathlib import Path
from typing import Sequence

import numpy as np

from lib.data.base import DataMissingError, subsample, pixel_range_of, preprocess, scale_pixels
from lib.validation import InputError

__all__ = ["load_idx", "load_idx_dataset", "find_idx_dir", "IDX_FILES", "IDX_DATASETS"]

IDX_FILES = {
    "train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
    "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
}
_IDX_DTYPES = {0x08: np.uint8, 0x09: np.int8, 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}

#: MNIST-style data sets and the sub-directory names searched for them under ``idx_dir``
#: (``<name>/`` as in this book, or torchvision's ``<Name>/raw/`` layout)
IDX_DATASETS = {
    "mnist": ("MNIST", ("mnist", "MNIST", "MNIST/raw", "mnist/raw")),
    "fashion_mnist": ("Fashion-MNIST", ("fashion_mnist", "fashion-mnist", "FashionMNIST", "FashionMNIST/raw",
                                        "fashion_mnist/raw", "fashion-mnist/raw")),
}


def load_idx(path: str | Path, ndim: int | None = None, role: str = "") -> np.ndarray:
    """Read one IDX file (optionally gzipped), the format of MNIST and Fashion-MNIST.

    Args:
        path: the file (``.gz`` is read through gzip).
        ndim: the number of dimensions its role needs (3 for images, 1 for labels), or None (any).
        role: what the file should hold (``"images"``, ``"labels"``), for the message.

    Returns:
        the array with the file's dtype and shape.

    Raises:
        DataMissingError: no such file. lib.validation.InputError: not an IDX file, truncated, unreadable,
            or holding a different number of dimensions than ``ndim`` (e.g. the image and label files swapped).
    """
    path = Path(path)
    want = ndim
    if not path.exists():
        raise DataMissingError(f"IDX file {path} does not exist")
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rb") as fh:
            raw = fh.read()
    except (OSError, EOFError) as exc:  # e.g. a truncated or non-gzip file named .gz
        raise InputError(f"{path} cannot be read: {exc}") from None
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] not in _IDX_DTYPES:
        raise InputError(f"{path} is not an IDX file (bad magic number)")
    ndim = raw[3]
    if ndim == 0 or len(raw) < 4 + 4 * ndim:
        raise InputError(f"{path} is truncated or corrupt: its IDX header announces {ndim} dimension(s)")
    dims = struct.unpack(f">{ndim}I", raw[4:4 + 4 * ndim])
    if want is not None and ndim != want:
        held = "labels" if ndim == 1 else "images" if ndim == 3 else f"{ndim}-dimensional data"
        raise InputError(f"{path} should hold {role or f'{want}-dimensional data'} ({want} dimension(s)) but holds "
                         f"{held} of shape {dims}: are the image and label files swapped?")
    dtype = np.dtype(_IDX_DTYPES[raw[2]])
    expected = int(np.prod(dims)) * dtype.itemsize
    body = raw[4 + 4 * ndim:]
    if len(body) != expected:
        raise InputError(f"{path} is truncated or corrupt: {len(body)} data bytes, expected {expected} for shape {dims}")
    return np.frombuffer(body, dtype=dtype).reshape(dims)


def _find(directory: Path, stem: str) -> Path | None:
    for name in (stem, stem + ".gz", stem.replace("-idx", ".idx"), stem.replace("-idx", ".idx") + ".gz"):
        if (directory / name).exists():
            return directory / name
    return None


def load_idx_dataset(directory: str | Path, split: str = "train", n: int | None = None, seed: int = 0,
                     unit_norm: bool = True, return_labels: bool = False, name: str = "MNIST",
                     pixel_range: Sequence[float] | str = (-1, 1)):
    """MNIST-style data (MNIST, Fashion-MNIST) from IDX files in ``directory``; nothing is downloaded.

    Expects ``train-images-idx3-ubyte[.gz]`` and ``train-labels-idx1-ubyte[.gz]`` (or the ``t10k-``
    files for ``split="test"``). Images are flattened; 8-bit pixels ``q`` become ``p = q / 255`` and
    then ``2 p - 1`` (``pixel_range=(-1, 1)``, the default: the authors' preprocessing of [LH]
    Sec. 4.1) or stay ``p`` (``pixel_range=(0, 1)``). Images stored as floats are not rescaled.

    Args:
        directory: the folder holding the files.
        split: ``"train"`` or ``"test"``.
        n: images drawn (seeded, without replacement); None: all.
        seed: seed of the subsample.
        unit_norm: rescale every image to unit norm (after the pixel mapping).
        return_labels: also return the labels.
        name: the data set's name in messages.
        pixel_range: ``(-1, 1)`` or ``(0, 1)`` (see :func:`lib.data.base.pixel_range_of`).

    Returns:
        float64 array (n, 784) for MNIST, or ``(X, y)`` with ``return_labels``.

    Raises:
        DataMissingError: naming the missing files and where to put them.
        lib.validation.InputError: a bad ``split``, ``n`` or ``pixel_range``, or corrupt files.
    """
    pixel_range_of(pixel_range)
    if split not in IDX_FILES:
        raise InputError(f"split must be 'train' or 'test', got {split!r}")
    directory = Path(directory).expanduser()
    img_stem, lab_stem = IDX_FILES[split]
    img, lab = _find(directory, img_stem), _find(directory, lab_stem)
    if img is None or lab is None:
        missing = [s for s, p in ((img_stem, img), (lab_stem, lab)) if p is None]
        raise DataMissingError(
            f"{name} files not found in {directory}: missing {', '.join(m + '[.gz]' for m in missing)}. "
            f"This project never downloads data: copy the standard {name} IDX files into {directory} "
            f"(or pass another directory).")
    raw_images = load_idx(img, ndim=3, role="images")
    y = load_idx(lab, ndim=1, role="labels").astype(np.int64)
    if len(raw_images) != len(y):
        raise InputError(f"{img.name} has {len(raw_images)} images but {lab.name} has {len(y)} labels")
    raw_images, y = subsample(raw_images, y, n, seed, img.name)
    X = raw_images.astype(np.float64)
    if raw_images.dtype == np.uint8:  # pixels 0..255 -> [0, 1] -> pixel_range
        X = scale_pixels(X / 255.0, pixel_range)
    X = preprocess(X, unit_norm=unit_norm)
    return (X, y) if return_labels else X


def find_idx_dir(idx_dir: str | Path | None, name: str, split: str = "train") -> Path:
    """The directory holding the IDX files of ``name`` ("mnist" or "fashion_mnist") under ``idx_dir``.

    Searched: ``idx_dir/<name>/`` (e.g. ``idx_dir/mnist``, ``idx_dir/fashion_mnist``) and
    torchvision's ``idx_dir/<Name>/raw/`` layout. ``idx_dir`` itself is not searched: MNIST and
    Fashion-MNIST use the same file names, so one could silently stand in for the other.

    Args:
        idx_dir: the root folder (None: not given).
        name: ``"mnist"`` or ``"fashion_mnist"``.
        split: ``"train"`` or ``"test"``.

    Returns:
        the folder holding both files.

    Raises:
        DataMissingError: no directory with both files; the message lists the files needed and
            the places searched.
    """
    if name not in IDX_DATASETS:
        raise InputError(f"unknown IDX data set {name!r}; known: {sorted(IDX_DATASETS)}")
    label, subdirs = IDX_DATASETS[name]
    img_stem, lab_stem = IDX_FILES.get(split, (None, None))
    if img_stem is None:
        raise InputError(f"split must be 'train' or 'test', got {split!r}")
    need = f"{img_stem}[.gz] and {lab_stem}[.gz]"
    if idx_dir is None:
        raise DataMissingError(
            f"{label} is not available: no idx_dir was given. This project never downloads data: put the "
            f"standard {label} IDX files ({need}) in <idx_dir>/{subdirs[0]}/ and pass idx_dir=<idx_dir>.")
    root = Path(idx_dir).expanduser()
    if not root.is_dir():
        raise DataMissingError(f"idx_dir {root} is not a directory; put the {label} IDX files ({need}) in "
                               f"{root / subdirs[0]}/")
    candidates = [root / sub for sub in subdirs]
    for c in candidates:
        if c.is_dir() and _find(c, img_stem) is not None and _find(c, lab_stem) is not None:
            return c
    raise DataMissingError(
        f"{label} files not found: need {need} in {root / subdirs[0]}/ (also searched "
        f"{', '.join(str(c) for c in candidates[1:])}). This project never downloads data: copy the "
        f"standard {label} IDX files there, gzipped or not.")
