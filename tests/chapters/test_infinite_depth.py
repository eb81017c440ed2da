"""Chapter 04, the package :mod:`lib.chapters.infinite_depth`: it re-exports every public name of its modules.

The modules' own tests are ``test_infinite_depth_<module>.py``.
"""
import ast
import importlib
import inspect
import pkgutil
import re

import pytest

import lib.chapters.infinite_depth as D

#: The public names the notebook, ``lib/__init__.py`` and the claims registry (``checked_by=("infinite_depth.
#: check_thm35",)``) look up as ``lib.chapters.infinite_depth.<name>``.
NAMES = (
    "SPEC", "log_depths", "g_iterates", "collapse_profile", "finite_collapse", "phi_depth_profile", "fit_rate",
    "relu_kappa_vs_depth", "finite_kappa", "kernel_kappa_vs_depth", "finite_kernel_kappa", "decay_slope",
    "activation_rates", "DEG", "PHI_INF", "Collapse", "measure_collapse", "plot_collapse", "check_g_plot",
    "check_prop_a1", "check_thm_a2", "plot_phi_depth", "check_thm35", "measure_kappa", "plot_kappa",
    "table_kappa_deepest", "check_thm43", "DualStudy", "measure_dual", "plot_dual", "check_dual_bound",
    "measure_moments", "check_normrelu", "AAK_MIN_RATIO", "AakDepth", "measure_aak_depth", "plot_aak_depth",
    "check_aak_rate", "check_relu_uncentred", "check_phi_90", "measure_phi_profile", "LEMMAS_E",
    "measure_one_layer", "plot_one_layer", "check_lemma_e", "measure_lengths", "check_lengths",
    "measure_small_angle_embedding", "check_lemma_e6", "PAPER_PHI_LIMIT_DEG", "paper_kappa_limit",
    "table_rates_rounded", "glue_values",
)


def _modules():
    return [importlib.import_module(m.name) for m in pkgutil.iter_modules(D.__path__, D.__name__ + ".")]


def _source(mod) -> str:
    """A module's source; the layout tests skip mutmut's instrumented copy (``tools/mutate.py``), whose
    trampolines are imported under a private alias and multiply the lines: that copy is not the layout."""
    text = inspect.getsource(mod)
    if "_mutmut_mutated" in text:
        pytest.skip("mutmut's instrumented copy of the package: its layout is mutmut's")
    return text


def test_the_package_re_exports_every_public_name_of_its_modules():
    names = [n for mod in _modules() for n in mod.__all__]
    assert len(names) == len(set(names)), "a name is defined in two modules"
    assert sorted(D.__all__) == sorted(names) and len(D.__all__) == len(set(D.__all__))
    for mod in _modules():
        for n in mod.__all__:
            assert getattr(D, n) is getattr(mod, n), n
    assert not set(NAMES) - set(D.__all__)


def test_no_private_name_crosses_a_module():
    """No ``_name`` imported from lib, under an alias or not (the front's form is tests/test_layout.py's)."""
    for mod in _modules():
        tree = ast.parse(_source(mod))
        private = [a.name for n in ast.walk(tree)
                   if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("lib")
                   for a in n.names if a.name.startswith("_")]
        aliased = [a.asname for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
                   for a in n.names if a.asname and a.asname.startswith("_")]
        assert not private and not aliased, (mod.__name__, private, aliased)


def test_one_measurement_verb():
    """Public functions that measure are ``measure_*``: no ``compute_*``, ``*_sweep``, ``*_study``, ``run_*``."""
    old = [n for n in D.__all__ if re.match(r"compute_|run_", n) or re.search(r"_sweep$|_study$", n)]
    assert not old


def test_each_check_is_defined_once_and_calls_no_unexported_check_helper():
    """The claims tests read a check's source through the package, and any ``_..._check`` helper it calls."""
    for name in D.__all__:
        obj = getattr(D, name)
        if name.startswith("check_"):
            helpers = re.findall(r"(_\w+_check)\(", inspect.getsource(obj))
            assert all(hasattr(D, h) for h in helpers), (name, helpers)


def test_modules_stay_small():
    for mod in _modules():
        assert len(_source(mod).splitlines()) <= 400, mod.__name__
