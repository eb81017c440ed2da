"""Every chapter that declares a parameter spec (lib.book.spec): its notebook's parameters cell is the
spec's, and every profile of its YAML file passes the spec's checks."""
from pathlib import Path

import jupytext
import pytest
import yaml

from lib.site.specs import CHAPTER_PACKAGES, chapter_spec

ROOT = Path(__file__).resolve().parents[2]
SPECS = {stem: chapter_spec(stem) for stem in CHAPTER_PACKAGES}
DECLARED = sorted(stem for stem, spec in SPECS.items() if spec is not None)


def test_chapter_01_declares_its_spec():  # the pilot; the others follow as they convert
    assert "01_linear_baseline" in DECLARED


@pytest.mark.parametrize("stem", DECLARED)
def test_the_parameters_cell_is_written_from_the_spec(stem):
    nb = jupytext.read(ROOT / "notebooks" / f"{stem}.py")
    (cell,) = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert cell.source == SPECS[stem].parameters_cell(), \
        f"run `python -m lib.site.specs --write` after changing {stem}'s spec"
    ns: dict = {}
    exec(cell.source, ns)
    assert SPECS[stem].validate(ns).values() == SPECS[stem].config().values()


@pytest.mark.parametrize("stem", DECLARED)
def test_every_profile_passes_the_spec(stem):
    path = ROOT / "notebooks" / "profiles" / f"{stem}.yaml"
    profiles = yaml.safe_load(path.read_text()) if path.exists() else {}
    for name, values in (profiles or {}).items():
        SPECS[stem].check_profile(name, values or {})
