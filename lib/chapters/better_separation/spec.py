"""The parameters of notebook 02 (better separation), declared once: default, checker and meaning of each
(:class:`lib.book.spec.ChapterSpec`). The notebook's ``parameters`` cell is written from :data:`~lib.chapters.better_separation.spec.SPEC`."""
from __future__ import annotations

from lib.book import params as P
from lib.book.spec import ChapterSpec, Config, Param
from lib.chapters.better_separation.other_activations import ACTIVATIONS
from lib.chapters.better_separation.real_data import REAL_DATA, REAL_SIZES

__all__ = ["SPEC", "check_in_dim", "MIN_IN_DIM", "rule_real_n"]

#: The smallest input dimension; two unit inputs at a prescribed angle span a plane, so d >= 2.
MIN_IN_DIM = 2


def check_in_dim(cfg: Config) -> None:
    """A pair needs two directions: ``in_dim`` must be at least :data:`~lib.chapters.better_separation.spec.MIN_IN_DIM` (2).

    Raises:
        lib.book.params.ParameterError: ``in_dim`` is 1.
    """
    if cfg.in_dim < MIN_IN_DIM:
        raise P.ParameterError(f"parameter 'in_dim' must be at least {MIN_IN_DIM} (a pair needs two directions)")


def rule_real_n(cfg: Config) -> None:
    """``real_n`` images are drawn from every set of ``real_data``: at most the smallest of them holds
    (:data:`~lib.chapters.better_separation.real_data.REAL_SIZES`: faces 200, digits 1797, MNIST-5k 5000).

    Raises:
        lib.book.params.ParameterError: naming both parameters and the set.
    """
    smallest = min(cfg.real_data, key=REAL_SIZES.__getitem__)
    if cfg.real_n > REAL_SIZES[smallest]:
        raise P.ParameterError(f"parameter 'real_n' ({cfg.real_n}) must be at most the {REAL_SIZES[smallest]} images "
                               f"of {smallest!r}, one of 'real_data' ({cfg.real_data})")


#: The chapter's parameters; the notebook validates ``locals()`` against it, tests build ``SPEC.config(...)``.
SPEC = ChapterSpec("02_better_separation", dict(
    profile=Param("default", P.text, "parameter profile of this run (recorded with the verdicts)"),
    theory_depths=Param([1, 2, 5, 10, 20], P.int_list(min_value=1), "depths L of the infinite-width curves"),
    grid_step=Param(1.0, P.positive_float, "spacing in degrees of the theory angle grid"),
    fw_step=Param(10.0, P.positive_float, "spacing in degrees of the finite-width input angles"),
    widths=Param([128, 512, 2048], P.int_list(min_value=1), "widths m of the finite-width networks"),
    fw_depths=Param([1, 5, 20], P.int_list(min_value=1), "depths of the finite-width networks"),
    seeds=Param(3, P.positive_int, "weight draws (and input planes) per setting"),
    in_dim=Param(16, P.positive_int, "input dimension d of the pairs"),
    small_depths=Param([1, 5, 20, 100], P.int_list(min_value=1), "depths of the small-angle study"),
    activations=Param(["relu2", "gelu", "tanh", "normrelu", "norm_tanh"], P.choices_list(ACTIVATIONS),
                      "activations beyond ReLU (Figure 2)"),
    act_depths=Param([1, 5, 20], P.int_list(min_value=1), "depths for the other activations"),
    act_width=Param(512, P.positive_int, "width for the other activations"),
    appb_depths=Param([3, 10], P.int_list(min_value=1), "depths of the App. B variations"),
    appb_width=Param(512, P.positive_int, "width of the App. B variations"),
    real_data=Param(["digits", "faces"], P.choices_list(REAL_DATA),
                    "real image sets whose pairs are measured (digits, faces, mnist_5k)"),
    real_n=Param(150, P.int_at_least(2), "images per real set, at most the smallest (all their pairs are used)"),
    real_depths=Param([1, 5], P.int_list(min_value=1), "depths of the real-pair study"),
    real_width=Param(512, P.positive_int, "width of the real-pair study"),
    device=Param("cpu", P.device_name, '"cpu" or "cuda"'),
), joint=(check_in_dim, rule_real_n))
