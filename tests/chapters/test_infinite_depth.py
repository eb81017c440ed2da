"""Chapter 04, the package :mod:`lib.chapters.infinite_depth`: every public name of its modules is re-exported.

The modules' own tests are ``test_infinite_depth_<module>.py``.
"""
import importlib
import inspect
import pkgutil
import re

import lib.chapters.infinite_depth as D

#: The public names of the single module the package replaced: notebooks, ``lib/__init__.py`` and the claims
#: registry (``checked_by=("infinite_depth.check_thm35",)``) look them up as ``lib.chapters.infinite_depth.<name>``.
OLD_NAMES = (
    "log_depths", "g_iterates", "collapse_profile", "finite_collapse", "phi_depth_profile", "fit_rate",
    "relu_kappa_vs_depth", "finite_kappa", "kernel_kappa_vs_depth", "finite_kernel_kappa", "decay_slope",
    "activation_rates", "DEG", "PHI_INF", "Collapse", "compute_collapse", "plot_collapse", "check_g_plot",
    "check_prop_a1", "check_thm_a2", "plot_phi_depth", "check_thm35", "compute_kappa_study", "plot_kappa",
    "table_kappa_deepest", "check_thm43", "DualStudy", "compute_dual", "plot_dual", "check_dual_bound",
    "normrelu_moments", "check_normrelu", "AAK_MIN_RATIO", "AakDepth", "compute_aak_depth", "plot_aak_depth",
    "table_rates", "check_aak_rate", "check_relu_uncentred", "check_phi_90", "compute_phi_profile", "LEMMAS_E",
    "one_layer_sweep", "plot_one_layer", "check_lemma_e", "compute_lengths", "check_lengths", "small_angle_embedding",
    "check_lemma_e6", "PAPER_PHI_LIMIT_DEG", "paper_kappa_limit", "table_paper_vs_book", "table_rates_rounded",
    "glue_values",
)


def _modules():
    return [importlib.import_module(m.name) for m in pkgutil.iter_modules(D.__path__, D.__name__ + ".")]


def test_the_package_re_exports_every_public_name_of_its_modules():
    names = [n for mod in _modules() for n in mod.__all__]
    assert len(names) == len(set(names)), "a name is defined in two modules"
    assert sorted(D.__all__) == sorted(names)
    for mod in _modules():
        for n in mod.__all__:
            assert getattr(D, n) is getattr(mod, n), n
    assert not set(OLD_NAMES) - set(D.__all__)


def test_each_check_is_defined_once_and_calls_no_unexported_check_helper():
    """The claims tests read a check's source through the package, and any ``_..._check`` helper it calls."""
    for name in D.__all__:
        obj = getattr(D, name)
        if name.startswith("check_"):
            helpers = re.findall(r"(_\w+_check)\(", inspect.getsource(obj))
            assert all(hasattr(D, h) for h in helpers), (name, helpers)


def test_modules_stay_small():
    for mod in _modules():
        assert len(inspect.getsource(mod).splitlines()) <= 400, mod.__name__
