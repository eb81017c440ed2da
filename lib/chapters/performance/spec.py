"""The parameters of chapter 07 (notebook ``07_performance``), declared once.

The notebook's parameters cell is written from :data:`~lib.chapters.performance.spec.SPEC` (``python -m lib.site.specs --write``) and
validated with ``cfg = performance.SPEC.validate(locals())``; the profiles of
``notebooks/profiles/07_performance.yaml`` are checked against it.
"""
from __future__ import annotations

from lib.book import params as P
from lib.book.spec import ChapterSpec, Param
from lib.finite.cost_model import METHODS

__all__ = ["SPEC"]


def _one_shift_per_depth(cfg) -> None:
    """``scale_shifts``, when given, has one shift per entry of ``scale_depths``."""
    P.one_per(cfg, "scale_shifts", "scale_depths")


def _mnist_has_784_pixels(cfg) -> None:
    """MNIST's images have 784 pixels: ``scale_in_dim`` must be 784 when ``scale_data`` is ``"mnist"``."""
    if cfg.scale_data == "mnist" and cfg.scale_in_dim != 784:
        raise P.ParameterError(f"parameter 'scale_in_dim' must be 784 with scale_data = \"mnist\" (MNIST's images "
                               f"have 784 pixels), got {cfg.scale_in_dim}")


def _targets_are_benchmarked(cfg) -> None:
    """The targets are read at ``(target_n, target_depth)``, so that size is one of the benchmark's: ``target_n``
    among ``ns`` and ``target_depth`` among ``depths``."""
    P.among(cfg, "target_n", "ns", "the targets are read at that size")
    P.among(cfg, "target_depth", "depths", "the targets are read at that depth")


def _ours_is_timed(cfg) -> None:
    """Every ratio is taken against our method, so ``methods`` must include it."""
    if "ours" not in cfg.methods:
        raise P.ParameterError("parameter 'methods' must include 'ours' (every ratio is taken against it)")


#: The parameters of chapter 07, with their defaults (the default profile), checkers and meaning.
SPEC = ChapterSpec("07_performance", dict(
    profile=Param("default", P.text, "parameter profile this run belongs to (recorded with the verdicts)"),
    ns=Param([256, 512, 1024], P.int_list(min_value=1), "numbers of inputs n"),
    width=Param(512, P.positive_int, "hidden width m"),
    depths=Param([1, 10], P.int_list(min_value=0),
                 "depths L (number of hidden layers, the paper profile: 0..10)"),
    in_dim=Param(64, P.positive_int, "input dimension d (unit-norm Gaussian inputs)"),
    methods=Param(["ours", "jacobian"], P.choices_list(METHODS),
                  "methods to time (ours is always needed, the paper profile adds \"ntk_vp\")"),
    repeats=Param(5, P.positive_int, "timed repeats per method and size, within a quarter of the time budget"),
    threads=Param(1, P.nonneg_int, "torch threads per worker (0 means torch's default)"),
    time_budget=Param(180.0, P.positive_float,
                      "seconds allowed per method and size (estimated first, then enforced)"),
    memory_budget_mb=Param(4096.0, P.positive_float,
                           "peak memory in MB allowed per method and size (estimated first)"),
    target_n=Param(512, P.positive_int,
                   "n at which the targets are evaluated, one of ns (a verdict needs the targets' 512)"),
    target_depth=Param(10, P.nonneg_int,
                       "depth at which the targets are evaluated, one of depths (a verdict needs the targets' 10)"),
    peers_everywhere=Param(False, P.boolean,
                           "time the torch.func methods at every size (slow) or only at target_n, target_depth"),
    device=Param("cpu", P.device_name, "\"cpu\" or \"cuda\""),
    scale_ns=Param([2000], P.int_list(min_value=2),
                   "full-data section: numbers of inputs n (the paper profile: 60000, MNIST's size)"),
    scale_depths=Param([1, 10], P.int_list(min_value=0), "full-data section: depths L"),
    scale_width=Param(512, P.positive_int, "full-data section: hidden width m"),
    scale_data=Param("mnist", P.choice(["mnist", "gaussian"]),
                     "full-data section: the inputs, \"mnist\" (MNIST's training images) or \"gaussian\" (N(0, I_d))"),
    scale_in_dim=Param(784, P.positive_int, "full-data section: input dimension d (784: MNIST's shape)"),
    scale_lambda_min=Param("certified", P.choice(["auto", "exact", "certified", "bounds"]),
                           "full-data section: \"auto\", \"exact\", \"certified\" or \"bounds\" (see ntk_extremes)"),
    scale_shifts=Param(None, P.optional(P.float_list(positive=True)),
                       "full-data section: null for no shifts, or one certified shift per depth (one factorization, not two)"),
    sgd_depths=Param([1], P.int_list(min_value=1), "SGD section: depths L (the paper profile: 1, 5, 10)"),
    sgd_width=Param(512, P.positive_int, "SGD section: hidden width m (the paper's)"),
    sgd_batch=Param(500, P.positive_int, "SGD section: SGD batch (the paper's)"),
    sgd_runs=Param(9, P.int_at_least(2), "SGD section: runs of the batched grid (chapter 06's rate search: 9 rates)"),
    sgd_n_train=Param(1000, P.positive_int, "SGD section: training inputs (the paper profile: 5000, MNIST-5k's size)"),
), joint=(_one_shift_per_depth, _ours_is_timed, _mnist_has_784_pixels, _targets_are_benchmarked))
