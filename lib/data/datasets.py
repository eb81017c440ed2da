"""Data sets of [LH] Sec. 4.1, all loaded locally (no download ever happens).

- :func:`gaussian_data`: the paper's synthetic set, n samples from N(0, I_d) (paper: 2000 x 5).
- :func:`load_digits_subset`: scikit-learn's 1797 real 8x8 handwritten digits (ship with the package).
- :func:`load_idx_dataset`: MNIST / Fashion-MNIST from standard IDX files the user already has.
- :func:`load_array`: a user's own ``.npy`` / ``.npz`` array.
- :func:`load_dataset`: one entry point by name (``"synthetic"``, ``"digits"``, ``"mnist"``,
  ``"fashion_mnist"``, ``"file"``) with the preprocessing options of chapter 03, and
  :func:`fingerprint`, a content hash used to key cached sweep cells.

Preprocessing (:func:`preprocess`): flatten, subsample ``n`` rows with a seed, center, scale,
unit-normalize. Images are scaled to [0, 1] (digits / 16, MNIST-style pixels / 255).
"""
from __future__ import annotations

import gzip
import hashlib
import struct
from pathlib import Path

import numpy as np
from sklearn.datasets import load_digits

from lib.validation import InputError

__all__ = ["gaussian_data", "load_digits_subset", "preprocess", "load_idx", "load_idx_dataset",
           "load_array", "load_dataset", "find_idx_dir", "fingerprint", "DataMissingError", "IDX_FILES",
           "DATASETS", "IDX_DATASETS"]


class DataMissingError(FileNotFoundError):
    """A data file the user must provide is not there; the message says what and where."""


def _check_n(n, name="n"):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InputError(f"{name} must be a positive integer, got {n!r}")
    return int(n)


def _subsample(X: np.ndarray, y: np.ndarray, n: int | None, seed: int, source: str):
    """n rows of (X, y) without replacement, seeded, in their original order (all rows if n is None)."""
    if n is None:
        return X, y
    n = _check_n(n)
    if n > len(X):
        raise InputError(f"asked for n={n} samples but {source} has only {len(X)}")
    idx = np.sort(np.random.default_rng(seed).choice(len(X), size=n, replace=False))
    return X[idx], y[idx]


def preprocess(X, n: int | None = None, seed: int = 0, unit_norm: bool = False, center: bool = False,
               scale: float | None = None) -> np.ndarray:
    """Flatten, optionally subsample ``n`` rows (without replacement, seeded), center, scale, unit-normalize.

    Raises on NaN/inf and on a zero row when ``unit_norm`` is asked (its direction is undefined).
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim == 0 or X.size == 0:
        raise InputError(f"data are empty (shape {X.shape}): need at least one sample")
    X = X.reshape(len(X), -1)
    if not np.all(np.isfinite(X)):
        raise InputError("data contain NaN or inf values")
    X, _ = _subsample(X, np.arange(len(X)), n, seed, "the data set")
    if center:
        X = X - X.mean(axis=0, keepdims=True)
    if scale is not None:
        X = X * float(scale)
    if unit_norm:
        norms = np.linalg.norm(X, axis=1, keepdims=True)
        if np.any(norms == 0):
            raise InputError(f"{int((norms == 0).sum())} zero row(s) cannot be scaled to unit norm")
        X = X / norms
    return X


def gaussian_data(n: int, d: int, seed: int = 0, unit_norm: bool = False) -> np.ndarray:
    """n i.i.d. samples from N(0, I_d) (the synthetic set of [LH] Sec. 4.1 is n=2000, d=5)."""
    n, d = _check_n(n), _check_n(d, "d")
    X = np.random.default_rng(seed).standard_normal((n, d))
    return preprocess(X, unit_norm=unit_norm)


def load_digits_subset(n: int | None = None, seed: int = 0, unit_norm: bool = True,
                       return_labels: bool = False, center: bool = False):
    """scikit-learn's handwritten digits (1797 x 64, real data shipped with the package).

    Pixels are divided by 16 (range [0, 1]); ``n`` rows are subsampled with ``seed``.
    """
    data = load_digits()
    X, y = data.data / 16.0, data.target
    X, y = _subsample(X, y, n, seed, "the digits set")
    X = preprocess(X, unit_norm=unit_norm, center=center)
    return (X, y) if return_labels else X


IDX_FILES = {
    "train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
    "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
}
_IDX_DTYPES = {0x08: np.uint8, 0x09: np.int8, 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}


def load_idx(path: str | Path) -> np.ndarray:
    """Read one IDX file (optionally gzipped), the format of MNIST and Fashion-MNIST."""
    path = Path(path)
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
                     unit_norm: bool = True, return_labels: bool = False, name: str = "MNIST"):
    """MNIST-style data (MNIST, Fashion-MNIST) from IDX files in ``directory``; nothing is downloaded.

    Expects ``train-images-idx3-ubyte[.gz]`` and ``train-labels-idx1-ubyte[.gz]`` (or the ``t10k-``
    files for ``split="test"``). Pixels are divided by 255, images flattened.

    Raises:
        DataMissingError: naming the missing files and where to put them.
    """
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
    raw_images = load_idx(img)
    X = raw_images.astype(np.float64)
    if raw_images.dtype == np.uint8:  # pixels 0..255 -> [0, 1]
        X /= 255.0
    y = load_idx(lab).astype(np.int64)
    if len(X) != len(y):
        raise InputError(f"{img.name} has {len(X)} images but {lab.name} has {len(y)} labels")
    X, y = _subsample(X, y, n, seed, img.name)
    X = preprocess(X, unit_norm=unit_norm)
    return (X, y) if return_labels else X


_NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGIC = b"PK\x03\x04"


def load_array(path: str | Path, key: str | None = None, n: int | None = None, seed: int = 0,
               unit_norm: bool = False) -> np.ndarray:
    """A user's own data from ``.npy`` or ``.npz`` (``key`` picks the array; default: the only/first one).

    Args:
        path: a ``.npy`` file, or an ``.npz`` archive (saved with ``np.save`` / ``np.savez``).
        key: the array of an ``.npz`` holding several (``data_key`` in chapter 03).
        n, seed, unit_norm: as in :func:`preprocess`.

    Returns:
        float64 array (n, d), the samples flattened.

    Raises:
        DataMissingError: the file does not exist. lib.validation.InputError (a ValueError), naming
            the file: not a NumPy file, pickled objects, no/unknown array name, non-numeric values,
            fewer than 2 dimensions, no samples, NaN or inf values.
    """
    path = Path(path).expanduser()
    if not path.exists():
        raise DataMissingError(f"data file {path} does not exist")
    if path.suffix not in (".npy", ".npz"):
        raise InputError(f"unsupported data file {path.name}: use .npy or .npz")
    if not path.is_file():
        raise InputError(f"data file {path} is not a file")
    with open(path, "rb") as fh:
        head = fh.read(6)
    magic, kind = (_ZIP_MAGIC, "an .npz archive (np.savez)") if path.suffix == ".npz" else \
        (_NPY_MAGIC, "a NumPy .npy file (np.save)")
    if not head.startswith(magic):
        raise InputError(f"data file {path} is not {kind}: its first bytes are {head!r}")
    try:
        if path.suffix == ".npz":
            with np.load(path, allow_pickle=False) as z:
                keys = list(z.keys())
                if not keys:
                    raise InputError(f"data file {path} holds no arrays")
                if key is None and len(keys) != 1:
                    raise InputError(f"data file {path} holds arrays {keys}: name one with key= "
                                     f"(data_key= in chapter 03)")
                k = keys[0] if key is None else key
                if k not in keys:
                    raise InputError(f"data file {path} has no array {k!r} (key / data_key); it has {keys}")
                X = z[k]
        else:
            X = np.load(path, allow_pickle=False)
    except InputError:
        raise
    except ValueError as exc:
        if "pickle" in str(exc):
            raise InputError(f"data file {path} holds Python objects (a pickled object array), not numbers; "
                             f"save a numeric array with np.save") from None
        raise InputError(f"data file {path} cannot be read as {kind}: {exc}") from None
    except (OSError, EOFError) as exc:  # truncated header, corrupt zip
        raise InputError(f"data file {path} cannot be read as {kind} (truncated or corrupt?): {exc}") from None
    if not (np.issubdtype(X.dtype, np.number) or X.dtype == np.bool_):
        raise InputError(f"data file {path} holds non-numeric values (dtype {X.dtype}); need a numeric array")
    if X.ndim < 2:
        raise InputError(f"data file {path} holds an array of shape {X.shape}; need (n, d) (or (n, ...)) "
                         f"with n samples")
    if X.size == 0:
        raise InputError(f"data file {path} holds an empty array of shape {X.shape}; need at least one sample "
                         f"with at least one feature")
    if np.iscomplexobj(X):
        raise InputError(f"data file {path} holds complex values (dtype {X.dtype}); need real numbers")
    finite = np.isfinite(X.reshape(len(X), -1)).all(axis=1)
    if not finite.all():
        bad = np.flatnonzero(~finite)[:5].tolist()
        raise InputError(f"data file {path} contains NaN or inf values (first bad rows: {bad})")
    return preprocess(X, n=n, seed=seed, unit_norm=unit_norm)


#: names accepted by :func:`load_dataset`
DATASETS = ("synthetic", "digits", "mnist", "fashion_mnist", "file")
#: MNIST-style data sets and the sub-directory names searched for them under ``idx_dir``
#: (``<name>/`` as in this book, or torchvision's ``<Name>/raw/`` layout)
IDX_DATASETS = {
    "mnist": ("MNIST", ("mnist", "MNIST", "MNIST/raw", "mnist/raw")),
    "fashion_mnist": ("Fashion-MNIST", ("fashion_mnist", "fashion-mnist", "FashionMNIST", "FashionMNIST/raw",
                                        "fashion_mnist/raw", "fashion-mnist/raw")),
}


def find_idx_dir(idx_dir: str | Path | None, name: str, split: str = "train") -> Path:
    """The directory holding the IDX files of ``name`` ("mnist" or "fashion_mnist") under ``idx_dir``.

    Searched: ``idx_dir/<name>/`` (e.g. ``idx_dir/mnist``, ``idx_dir/fashion_mnist``) and
    torchvision's ``idx_dir/<Name>/raw/`` layout. ``idx_dir`` itself is not searched: MNIST and
    Fashion-MNIST use the same file names, so one could silently stand in for the other.

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


def fingerprint(X) -> str:
    """A short SHA-256 of an array's shape, dtype and bytes (float64, C order): changes iff the data change."""
    A = np.ascontiguousarray(np.asarray(X, dtype=np.float64))
    h = hashlib.sha256(f"{A.shape}|float64|".encode())
    h.update(A.tobytes())
    return h.hexdigest()[:20]


def load_dataset(name: str, n: int | None = None, seed: int = 0, unit_norm: bool = False,
                 center: bool = False, scale: float | None = None, *, d: int = 5,
                 idx_dir: str | Path | None = None, split: str = "train",
                 path: str | Path | None = None, key: str | None = None) -> np.ndarray:
    """Load one data set of chapter 03 ([LH] Sec. 4.1) by name, preprocessed, as float64 (n, d).

    Args:
        name: ``"synthetic"`` (N(0, I_d), ``n`` samples drawn with ``seed``; paper n=2000, d=5),
            ``"digits"`` (scikit-learn, 1797 x 64, pixels / 16), ``"mnist"`` / ``"fashion_mnist"``
            (IDX files under ``idx_dir``, pixels / 255, 784 features), ``"file"`` (``path`` to a
            ``.npy``/``.npz``, ``key`` picks an array of an ``.npz``).
        n: number of samples; for the real sets a seeded subsample without replacement
            (``None``: all of them; MNIST's 60000 give a 60000 x 60000 kernel, so subsample).
        seed: seed of the synthetic draw or of the subsample.
        unit_norm, center, scale: as in :func:`preprocess` (applied after flattening and subsampling).

    Raises:
        DataMissingError: MNIST-style files or the user's file are absent (the message says what
            is missing and where to put it); ValueError: NaN/inf data, unknown name, bad n.
    """
    if name not in DATASETS:
        raise InputError(f"unknown data set {name!r}; choose from {list(DATASETS)}")
    if name == "synthetic":
        if n is None:
            raise InputError("the synthetic data set needs n (the paper uses n=2000, d=5)")
        X = gaussian_data(n, d, seed=seed)
        return preprocess(X, unit_norm=unit_norm, center=center, scale=scale)
    if name == "digits":
        X = load_digits().data / 16.0
    elif name in IDX_DATASETS:
        directory = find_idx_dir(idx_dir, name, split)
        X = load_idx_dataset(directory, split=split, unit_norm=False, name=IDX_DATASETS[name][0])
    else:
        if path is None:
            raise InputError("data set 'file' needs path= (a .npy or .npz file)")
        X = load_array(path, key=key)
    return preprocess(X, n=n, seed=seed, unit_norm=unit_norm, center=center, scale=scale)
