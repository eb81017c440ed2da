"""The data a figure draws, read back from it (lib.book.figure_data)."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from lib.book.figure_data import DRAWN_COLUMNS, drawn_data  # noqa: E402


def test_lines_markers_error_bars_and_bands_are_read_as_drawn():
    fig, (a, b) = plt.subplots(1, 2)
    a.plot([1, 2], [4, 5], label="L = 1")
    a.plot([1, 2], [1, 1], "o")
    a.fill_between([1, 2], [0, 1], [2, 3], label="seed band")
    a.set_title("kappa")
    b.errorbar([1, 2], [3, 4], yerr=[0.5, 1], fmt="s", label="accuracy")
    b.scatter([5], [7])
    b.set_ylabel("test accuracy")
    d = drawn_data(fig)
    assert d.columns.tolist() == DRAWN_COLUMNS
    assert d[d.series == "L = 1"][["panel_title", "kind", "x", "y"]].values.tolist() == \
        [["kappa", "line", 1, 4], ["kappa", "line", 2, 5]]
    assert d[d.series == "markers 1"].kind.unique().tolist() == ["markers"]
    band = d[d.kind == "band"]
    assert band[["x", "y_low", "y_high"]].values.tolist() == [[1, 0, 2], [2, 1, 3]]
    bars = d[d.kind == "error bar"]
    assert bars.series.unique().tolist() == ["accuracy"]
    assert bars[["x", "y_low", "y_high"]].values.tolist() == [[1, 2.5, 3.5], [2, 3, 5]]
    assert d[(d.panel == 2) & (d.kind == "markers")].series.tolist() == ["accuracy", "accuracy", "markers 1"]
    assert set(d[d.panel == 2].y_label) == {"test accuracy"}


def test_an_empty_figure_gives_an_empty_table_with_the_columns():
    fig, _ = plt.subplots()
    assert drawn_data(fig).empty and drawn_data(fig).columns.tolist() == DRAWN_COLUMNS
