import subprocess
import sys
from pathlib import Path

import pytest

from lib.book import params as P
from lib.book.pipeline import ROOT, notebook_sources, to_ipynb, declared_parameters
from lib.book.results import verdict, load_all


def test_validate_collects_all_errors():
    with pytest.raises(P.ParameterError) as exc:
        P.validate(width=(-3, P.positive_int), depths=([1, -2], P.int_list(min_value=0)),
                   device=("gpu9", P.device_name), act=("sigmoid", P.choice(["relu", "tanh"])))
    msg = str(exc.value)
    for name in ("'width'", "'depths'", "'device'", "'act'"):
        assert name in msg


def test_validate_normalizes():
    cfg = P.validate(depths=(3, P.int_list()), w=(512.0, P.positive_int))
    assert cfg.depths == [3] and cfg.w == 512


def test_lists_given_as_strings_by_plain_papermill_are_read():
    cfg = P.validate(depths=("[0, 2, 5]", P.int_list()), lrs=("[0.1, 1]", P.float_list()),
                     acts=("[relu, tanh]", P.choices_list(["relu", "tanh"])))
    assert cfg.depths == [0, 2, 5] and cfg.lrs == [0.1, 1.0] and cfg.acts == ["relu", "tanh"]
    with pytest.raises(P.ParameterError, match="'depths'"):
        P.validate(depths=("[0, 2", P.int_list()))


@pytest.mark.parametrize("src", notebook_sources(), ids=lambda p: p.stem)
def test_parameters_cell_is_fully_visible_to_papermill(src, tmp_path):
    """Every assignment in the tagged cell must be a papermill parameter (a '=' in a comment hides it)."""
    import ast
    import jupytext
    nb = jupytext.read(src)
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(cells) == 1, "exactly one cell tagged 'parameters'"
    names = {t.id for node in ast.parse(cells[0].source).body if isinstance(node, ast.Assign) for t in node.targets}
    out = tmp_path / (src.stem + ".ipynb")
    jupytext.write(nb, out, fmt="ipynb")
    assert set(declared_parameters(out)) == names
    assert "profile" in names


def pipeline(*args):
    return subprocess.run([sys.executable, "-m", "lib.book.pipeline", *args], cwd=ROOT, capture_output=True, text=True)


def test_unknown_parameter_name_is_rejected_before_running():
    r = pipeline("--only", "01", "-p", "widht", "64")
    assert r.returncode == 2
    assert "unknown parameter(s) ['widht']" in r.stderr


def test_unknown_profile_and_notebook_are_rejected():
    r = pipeline("--only", "01", "--profile", "huge")
    assert r.returncode == 2 and "unknown profile 'huge'" in r.stderr
    r = pipeline("--only", "99")
    assert r.returncode == 2 and "no notebook matches ['99']" in r.stderr


def test_bad_parameter_value_fails_with_a_clear_message():
    r = pipeline("--only", "01", "-p", "widths", "[-5]", "--profile", "smoke")
    assert r.returncode == 2
    assert "parameter 'widths' must contain integers >= 1" in r.stderr


def test_verdicts_round_trip(tmp_path, monkeypatch):
    monkeypatch.setenv("NTK_RESULTS_DIR", str(tmp_path))
    s = verdict("99_x", "[LH] Thm 9", "claim", "reproduced", "numbers", section="S")
    assert s.startswith("**Verdict ([LH] Thm 9): reproduced.**")
    verdict("99_x", "[LH] Thm 9", "claim", "not reproduced", "other")
    rows = load_all(tmp_path)
    assert len(rows) == 1 and rows[0]["status"] == "not reproduced"
    with pytest.raises(ValueError, match="status must be one of"):
        verdict("99_x", "id", "c", "sort of", "m")
