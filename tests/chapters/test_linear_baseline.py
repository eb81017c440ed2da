"""Chapter 01 package (lib.chapters.linear_baseline): every public name of the former single module is
re-exported from the submodule that defines it, with the private helpers the checks call, and each
module stays small. The computations are tested in test_linear_baseline_<module>.py."""
import importlib
import inspect
import re
from pathlib import Path

import pytest

from lib.chapters import linear_baseline as B

#: the public names of the former lib/chapters/linear_baseline.py (notebooks and the registry use them)
FORMER = ["SLOPE_VANISHING", "EXPONENT_TOL", "load_data", "linear_sweep", "gradient_norm_factors", "lemma_d1_sweep",
          "table_sweep_summary", "compute_width_means", "WidthTrend", "width_trend", "plot_width_trend",
          "check_norms_angles", "check_kernel", "check_kernel_factor", "plot_condition_numbers", "check_conditioning",
          "plot_gradient_norm", "check_gradient_norm", "plot_lemma_d1", "check_lemma_d1", "distance_sweep",
          "plot_distances", "check_distances", "PAPER_SEC2", "table_paper_vs_book", "glue_values"]
SUBMODULES = ["data", "measure", "trend", "finite_width", "factors", "condition_numbers", "lemma_d1", "distances",
              "book_text"]


def test_every_former_public_name_is_re_exported_in_all():
    assert sorted(B.__all__) == sorted(FORMER)
    assert all(hasattr(B, name) for name in FORMER)


@pytest.mark.parametrize("sub", SUBMODULES)
def test_each_submodule_exports_what_it_defines_and_the_package_re_exports_it(sub):
    mod = importlib.import_module(f"lib.chapters.linear_baseline.{sub}")
    assert mod.__all__, sub
    for name in mod.__all__:
        assert name in B.__all__ and getattr(B, name) is getattr(mod, name), name
        obj = getattr(mod, name)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            assert obj.__module__ == mod.__name__, name  # defined here, not re-exported from elsewhere
    assert len(Path(mod.__file__).read_text().splitlines()) <= 400, sub


def test_the_private_helpers_the_checks_call_resolve_on_the_package():
    """The claims registry's test reads a check's ``_..._check`` helpers from the package."""
    for name in B.__all__:
        if name.startswith("check_"):
            for callee in re.findall(r"(_\w+_check)\(", inspect.getsource(getattr(B, name))):
                assert callable(getattr(B, callee, None)), (name, callee)
