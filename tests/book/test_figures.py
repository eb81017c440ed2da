"""Figures registered when drawn (lib.book.figures) and the Recorder that holds them."""
import json

import matplotlib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from lib.book.figures import FigureError, Figures, load_figures, qualified_name  # noqa: E402
from lib.book.figure_index import figure_index  # noqa: E402
from lib.book.wording import number  # noqa: E402


def test_figures_are_numbered_in_drawing_order_and_written_with_their_code(tmp_path, monkeypatch):
    monkeypatch.setenv("NTK_RESULTS_DIR", str(tmp_path))
    figs = Figures("03_demo", display=False)
    assert figs.show(plt.figure(), "fig-a", "First.", drawn_by=number, data_from=[qualified_name]) == "3.1"
    assert figs.show(plt.figure(), "fig-b", "Second.", drawn_by=number) == "3.2"
    entries = json.loads((tmp_path / "figures" / "03_demo.json").read_text())
    assert [e["figure"] for e in entries] == ["3.1", "3.2"]
    assert entries[0]["drawn_by"] == "lib.book.wording.number"
    assert entries[0]["data_from"] == ["lib.book.figures.qualified_name"]
    assert load_figures(["03_demo", "04_none"]) == entries
    idx = figure_index(["03_demo"], results=tmp_path)
    assert idx[0]["code"] == ["lib.book.wording.number", "lib.book.figures.qualified_name"]
    Figures("03_demo", display=False)  # a new run of the chapter starts its list anew
    assert load_figures(["03_demo"]) == []


def test_a_label_twice_or_not_a_target_name_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("NTK_RESULTS_DIR", str(tmp_path))
    figs = Figures("03_demo", display=False)
    figs.show(plt.figure(), "fig-a", "First.", drawn_by=number)
    with pytest.raises(FigureError, match="twice"):
        figs.show(plt.figure(), "fig-a", "Again.", drawn_by=number)
    with pytest.raises(FigureError, match="fig-name"):
        figs.show(plt.figure(), "Figure 3", "Bad.", drawn_by=number)


def test_run_by_the_pipeline_a_figure_saves_image_and_data_beside_the_page(tmp_path, monkeypatch):
    import pandas as pd
    monkeypatch.setenv("NTK_RESULTS_DIR", str(tmp_path))
    monkeypatch.setenv("NTK_PAGE_DIR", str(tmp_path / "page"))
    monkeypatch.setenv("NTK_OVERRIDES", '{"width": 64}')
    figs = Figures("01_demo", display=False, profile="smoke")
    figs.show(plt.figure(), "fig-a", r"Deviation of $A^\top A/m$ from $I$. More text.", drawn_by=number,
              data=pd.DataFrame({"width": [1, 2], "dev": [0.5, 0.25]}))
    (e,) = load_figures(["01_demo"])
    assert (tmp_path / "page" / e["image"]).stat().st_size > 0
    assert pd.read_csv(tmp_path / "page" / e["csv"]).columns.tolist() == ["width", "dev"]
    assert e["command"] == "python -m lib.book.pipeline --only 01 --profile smoke -p width '64'"


def test_alt_text_is_the_first_sentence_in_plain_words():
    from lib.book.figures import alt_text
    assert alt_text(r"Deviation of $A^\top A/m$ over $\sqrt{L+1}$. Right: more.") == "Deviation of A^T A/m over sqrt(L+1)"
