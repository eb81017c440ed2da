"""Chapter 05 parameters (lib.chapters.non_constancy.spec): declared once, the notebook's cell and the profiles
follow the spec, bad values are refused with one message naming them."""
from pathlib import Path

import jupytext
import pytest

from lib.book.params import ParameterError
from lib.book.profile_files import load_profiles
from lib.chapters import non_constancy

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "05_non_constancy.py"


def test_the_notebook_parameters_cell_is_written_from_the_spec():
    nb = jupytext.read(NOTEBOOK)
    (cell,) = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert cell.source == non_constancy.SPEC.parameters_cell()


@pytest.mark.parametrize("profile", ["smoke", "paper"])
def test_every_profile_passes_the_spec(profile):
    values = (load_profiles().get(profile) or {}).get("05_non_constancy")
    assert values, f"profile {profile} sets nothing for chapter 05"
    non_constancy.SPEC.check_profile(profile, values)


def test_joint_rules_refuse_bad_combinations_by_name():
    with pytest.raises(ParameterError) as e:
        non_constancy.SPEC.config(k=1, lr_scale=2.5, n_hessian=30)
    assert "'k' must be at least 2" in str(e.value) and "'lr_scale'" in str(e.value) and "'n_hessian'" in str(e.value)
    with pytest.raises(ParameterError, match="'widths'"):
        non_constancy.SPEC.config(widths=[32])  # one width: no slope to fit
    assert non_constancy.SPEC.config(seeds=1).seeds == 1
