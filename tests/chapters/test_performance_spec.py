"""Chapter 07 parameters (lib.chapters.performance.spec): declared once; the notebook's cell and the profiles
follow the spec; the rules across parameters name them."""
from pathlib import Path

import jupytext
import pytest

from lib.book.params import ParameterError
from lib.book.profile_files import load_profiles
from lib.chapters import performance

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "07_performance.py"


def test_the_notebook_parameters_cell_is_written_from_the_spec():
    nb = jupytext.read(NOTEBOOK)
    (cell,) = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert cell.source == performance.SPEC.parameters_cell()


@pytest.mark.parametrize("profile", ["smoke", "paper"])
def test_every_profile_passes_the_spec(profile):
    values = (load_profiles().get(profile) or {}).get("07_performance")
    assert values, f"profile {profile} sets nothing for chapter 07"
    performance.SPEC.check_profile(profile, values)


def test_joint_rules_name_the_parameters():
    with pytest.raises(ParameterError, match="'methods' must include 'ours'"):
        performance.SPEC.config(methods=["jacobian"])
    with pytest.raises(ParameterError, match="'scale_shifts' must give one value per entry of 'scale_depths'"):
        performance.SPEC.config(scale_shifts=[1.0])
    assert performance.SPEC.config(scale_shifts=[1.0, 2.0]).scale_shifts == [1.0, 2.0]
    with pytest.raises(ParameterError, match="(?s)profile 'paper' of 07_performance.*'sgd_runs'"):
        performance.SPEC.check_profile("paper", {"sgd_runs": 1})
