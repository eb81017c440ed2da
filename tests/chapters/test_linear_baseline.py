"""Chapter 01 package (lib.chapters.linear_baseline): every public name is re-exported from the submodule
that defines it, with the helpers the checks call, and each module stays small. The computations are tested in test_linear_baseline_<module>.py."""
import importlib
import inspect
import os
import re
from pathlib import Path

import pytest

from lib.chapters import linear_baseline as B

SUBMODULES = ["spec", "data", "measure", "depth_zero", "finite_width", "factors", "condition_numbers", "lemma_d1",
              "distances"]


def test_the_package_re_exports_exactly_its_submodules_public_names():
    names = [n for sub in SUBMODULES for n in importlib.import_module(f"lib.chapters.linear_baseline.{sub}").__all__]
    assert sorted(B.__all__) == sorted(names) and all(hasattr(B, n) for n in names)


@pytest.mark.parametrize("sub", SUBMODULES)
def test_each_submodule_exports_what_it_defines_and_the_package_re_exports_it(sub):
    mod = importlib.import_module(f"lib.chapters.linear_baseline.{sub}")
    assert mod.__all__, sub
    for name in mod.__all__:
        assert name in B.__all__ and getattr(B, name) is getattr(mod, name), name
        obj = getattr(mod, name)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            assert obj.__module__ == mod.__name__, name  # defined here, not re-exported from elsewhere


@pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ,
                    reason="under mutmut (tools/mutate.py) each module holds its mutants as well")
@pytest.mark.parametrize("sub", SUBMODULES)
def test_each_submodule_stays_small(sub):
    mod = importlib.import_module(f"lib.chapters.linear_baseline.{sub}")
    assert len(Path(mod.__file__).read_text().splitlines()) <= 400, sub


def test_the_private_helpers_the_checks_call_resolve_on_the_package():
    """The claims registry's test reads a check's ``..._check`` helpers from the package."""
    for name in B.__all__:
        if name.startswith("check_"):
            for callee in re.findall(r"\b(\w+_check)\(", inspect.getsource(getattr(B, name))):
                assert callable(getattr(B, callee, None)), (name, callee)
