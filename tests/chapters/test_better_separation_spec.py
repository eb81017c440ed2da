"""Chapter 02's parameter spec, its figures' settings and the "paper vs this book" table of [LH] Figure 1."""
from pathlib import Path

import jupytext
import numpy as np
import pytest

from lib.book.params import ParameterError
from lib.book.profile_files import load_profiles
from lib.book.results import Recorder
from lib.book.wording import paper_vs_book
from lib.chapters import better_separation as S

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "02_better_separation.py"


@pytest.mark.parametrize("name", ["smoke", "paper"])
def test_every_profile_passes_the_spec(name):
    values = load_profiles(ROOT, stems=["02_better_separation"])[name]["02_better_separation"]
    S.SPEC.check_profile(name, values)


def test_the_notebooks_parameters_cell_is_written_from_the_spec():
    (cell,) = [c for c in jupytext.read(NOTEBOOK).cells if "parameters" in c.metadata.get("tags", [])]
    assert cell.source == S.SPEC.parameters_cell()


def test_bad_parameters_get_one_message():
    with pytest.raises(ParameterError, match="'in_dim' must be at least 2"):
        S.SPEC.config(in_dim=1)
    with pytest.raises(ParameterError, match="(?s)'activations'.*'real_data'"):
        S.SPEC.config(activations=["sigmoid"], real_data=["cifar"])


@pytest.fixture(scope="module")
def tiny():
    cfg = S.SPEC.config(profile="smoke", grid_step=10.0, fw_step=60.0, theory_depths=[1, 3], widths=[8, 16],
                        fw_depths=[1, 2], seeds=2, in_dim=4, small_depths=[1, 5])
    return S.measure_relu_sweep(cfg)


def test_figure_settings_come_from_the_measured_results(tiny, tmp_path, monkeypatch):
    monkeypatch.setenv("NTK_RESULTS_DIR", str(tmp_path))
    rec = Recorder(S.SPEC.config(profile="smoke"), display=False)
    made = [S.figure_gradient_angle(tiny.angles), S.figure_small_angles(tiny.small),
            S.figure_gradient_norm(tiny.norms), S.figure_crossover(tiny.crossovers)]
    for kw in made:
        text = kw["caption"] + kw["setting"]
        assert kw["setting"].startswith("Setting: ") and "{profile}" in kw["setting"] and "Deviation" in text
        assert not any(f"Figure 2.{k}" in text for k in range(1, 9))  # figure numbers are the registry's
    for kw in made:
        rec.figure(**kw)
    assert [e["figure"] for e in rec.figures.entries] == ["2.1", "2.2", "2.3", "2.4"]
    assert rec.figures.entries[0]["drawn_by"] == "lib.chapters.better_separation.plot_gradient_angle"
    s1 = made[0]["setting"]
    assert "depths L = 1, 2, 3" in s1 and "widths m = 8, 16" in s1 and "2 seeds" in s1 and "d = 4" in s1
    assert "3 unit input pairs" in s1 and "1 deg grid" not in s1 and "10 deg grid" in s1
    assert "width m = 16, depths L = 1, 2, 2 seeds" in made[1]["setting"]


def test_figure1_table_renders_the_rows_the_checks_judged():
    cr = S.crossovers(S.angle_grids(1.0, 10.0), [1, 5])
    checks = S.check_crossover(cr), S.check_large_angles(cr)
    t = paper_vs_book(checks)
    assert list(t.columns) == ["claim", "statement", "paper", "this book", "rule", "holds"]
    assert len(t) == 2 * len(cr.cross) + len(cr.mono) and (t.holds == "yes").all()
    assert S.table_figure1_vs_paper(checks).data.equals(t)
    # a counterfactual: crossover below 60 deg, no growth with depth, phi below 60 deg at large angles
    bad = S.Crossovers(cr.grids, cr.depths, cr.theory, cr.cross.assign(cross=50.0, min_phi_above60=55.0),
                       cr.mono.assign(increasing_below=40.0))
    bad_checks = S.check_crossover(bad), S.check_large_angles(bad)
    assert (paper_vs_book(bad_checks).holds == "no").all()
    assert {c.status for c in bad_checks} == {"not reproduced"}
    np.testing.assert_array_equal([r["holds"] for r in checks[0].rows], [True, True, True])
