"""Figures registered when drawn (lib.book.figures) and the Recorder that holds them."""
import json

import matplotlib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from lib.book.figures import FigureError, Figures, load_figures, qualified_name  # noqa: E402
from lib.site.figure_index import figure_index  # noqa: E402
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
    assert e["command"] == "python -m lib.site.pipeline --only 01 --profile smoke -p width '64'"


def test_alt_text_is_the_first_sentence_in_plain_words():
    from lib.book.figures import alt_text
    assert alt_text(r"Deviation of $A^\top A/m$ over $\sqrt{L+1}$. Right: more.") == "Deviation of A^T A/m over sqrt(L+1)"
    # never cut at an abbreviation or inside parentheses (chapter 02's caption was cut to "... of the App")
    assert alt_text("Gradient angles of the App. B variations (markers: mean over seeds. Lines: the limit). "
                    "Right: more.") == "Gradient angles of the App. B variations (markers: mean over seeds. Lines: the limit)"
    assert alt_text("Angles for e.g. depth 3 at 0.5 deg. More.") == "Angles for e.g. depth 3 at 0.5 deg"


def test_a_setting_title_is_never_cut_at_an_abbreviation_or_inside_parentheses(tmp_path, monkeypatch):
    monkeypatch.setenv("NTK_RESULTS_DIR", str(tmp_path))
    figs = Figures("02_demo", display=False)
    title = figs.fold_setting("Setting: infinite-width curves (Eq. 7) at depths L = 1 to 8 on a 0.5 deg grid; "
                              "finite width 1024. More.", "2.1").splitlines()[0]
    assert title == ":::{dropdown} Setting: infinite-width curves (Eq. 7) at depths L = 1 to 8 on a 0.5 deg grid"
    title = figs.fold_setting("Setting: curves (Sec. 3; App. B) at depths 1 to 8. More.", "2.2").splitlines()[0]
    assert title == ":::{dropdown} Setting: curves (Sec. 3; App. B) at depths 1 to 8"
    long = figs.fold_setting("Setting: the curves " + "(of width 1024 and depth 8) " * 4, "2.3").splitlines()[0]
    assert long.endswith("(of width 1024 and depth 8) …") and long.count("(") == long.count(")")


def test_a_figure_without_a_table_gets_the_points_it_draws_as_its_csv(tmp_path, monkeypatch):
    import pandas as pd
    monkeypatch.setenv("NTK_RESULTS_DIR", str(tmp_path))
    monkeypatch.setenv("NTK_PAGE_DIR", str(tmp_path / "page"))
    fig, ax = plt.subplots()
    ax.plot([1, 2], [3, 4], label="L = 1")
    ax.set_xlabel("width")
    Figures("01_demo", display=False).show(fig, "fig-a", "A line.", drawn_by=number)
    (e,) = load_figures(["01_demo"])
    got = pd.read_csv(tmp_path / "page" / e["csv"])
    assert got[["series", "x_label", "x", "y"]].values.tolist() == [["L = 1", "width", 1, 3], ["L = 1", "width", 2, 4]]


def test_a_setting_is_one_visible_line_and_a_deviation_is_stated_once_per_chapter(tmp_path, monkeypatch):
    from lib.book.figures import SETTING_TITLE_CHARS
    monkeypatch.setenv("NTK_RESULTS_DIR", str(tmp_path))
    figs = Figures("06_demo", display=False)
    dev = "Deviation: digits, not MNIST; 20 epochs, not 500."
    first = figs.fold_setting(f"Setting: width 512, depths 1 to 8; 3 seeds. {dev}", "6.1")
    assert first.splitlines()[0] == ":::{dropdown} Setting: width 512, depths 1 to 8"
    assert dev in first and first.endswith(":::")
    second = figs.fold_setting(f"Setting: width 256; 2 seeds. {dev}", "6.2")
    assert dev not in second and "Deviations: as under Figure 6.1." in second
    other = figs.fold_setting("Setting: width 64. Deviations: none of the paper's data.", "6.3")
    assert "Deviations: none of the paper's data." in other
    long = figs.fold_setting("Setting: " + "word " * 40, "6.4").splitlines()[0]
    title = long.removeprefix(":::{dropdown} Setting: ")
    assert title.endswith(" …") and len(title) <= SETTING_TITLE_CHARS + 2
    assert len(figs.fold_setting("Setting: " + "w" * SETTING_TITLE_CHARS, "6.5").splitlines()[0]) == \
        len(":::{dropdown} Setting: ") + SETTING_TITLE_CHARS
