"""Chapter 04, :mod:`lib.chapters.infinite_depth.spec`: the parameters declared once, the profiles checked against them."""
from pathlib import Path

import jupytext
import pytest
import yaml

from lib.book.params import ParameterError
from lib.chapters.infinite_depth import SPEC

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "04_infinite_depth.py"
PROFILES = ROOT / "notebooks" / "profiles" / "04_infinite_depth.yaml"


def test_every_profile_passes_the_spec():
    profiles = yaml.safe_load(PROFILES.read_text(encoding="utf-8"))
    assert set(profiles) == {"smoke", "paper"}
    for name, values in profiles.items():
        SPEC.check_profile(name, values)
    # counterfactual: an activation the study does not know, or a parameter the chapter does not have, is refused
    with pytest.raises(ParameterError, match="(?s)profile 'smoke' of 04_infinite_depth.*'aak_activations'"):
        SPEC.check_profile("smoke", {**profiles["smoke"], "aak_activations": ["sigmoid"]})
    with pytest.raises(ParameterError, match="unknown parameter.*fw_widths"):
        SPEC.check_profile("paper", {"fw_widths": [512]})


def test_the_notebook_parameters_cell_is_the_spec():
    cells = [c for c in jupytext.read(NOTEBOOK).cells if "parameters" in c.metadata.get("tags", [])]
    assert len(cells) == 1 and cells[0].source == SPEC.parameters_cell()
    ns: dict = {}
    exec(cells[0].source, ns)
    assert SPEC.validate(ns).values() == SPEC.config().values()


def test_bad_parameters_are_named_in_one_message():
    with pytest.raises(ParameterError) as e:
        SPEC.config(collapse_angles=[90.0, 180.0], lemma_widths=[256])
    assert "'collapse_angles'" in str(e.value) and "'lemma_widths'" in str(e.value)
