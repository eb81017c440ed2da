"""The data a figure draws, read back from it (lib.book.figure_data)."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

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
    assert d[d.series == "orange markers"].kind.unique().tolist() == ["markers"]  # named as drawn: no legend
    band = d[d.kind == "band"]
    assert band[["x", "y_low", "y_high"]].values.tolist() == [[1, 0, 2], [2, 1, 3]]
    bars = d[d.kind == "error bar"]
    assert bars.series.unique().tolist() == ["accuracy"]
    assert bars[["x", "y_low", "y_high"]].values.tolist() == [[1, 2.5, 3.5], [2, 3, 5]]
    assert d[(d.panel == 2) & (d.kind == "markers")].series.tolist() == ["accuracy", "accuracy", "blue markers"]
    assert set(d[d.panel == 2].y_label) == {"test accuracy"}


def test_an_empty_figure_gives_an_empty_table_with_the_columns():
    fig, _ = plt.subplots()
    assert drawn_data(fig).empty and drawn_data(fig).columns.tolist() == DRAWN_COLUMNS


def test_series_carry_their_legend_names_and_axes_their_labels_in_words():
    """Figure 3.1's lines have no labels of their own: a legend names the colours (data sets) and, in black, the line
    styles (activations). Each line, band and marker set is named by both, never "line 3" / "band 2"."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    fig, ax = plt.subplots()
    for c, ls, y in (("C0", "-", 1), ("C0", "--", 2), ("C1", "-", 3)):
        ax.plot([0, 1, 10], [y, y + 1, y + 2], ls=ls, marker="o", color=c)
    ax.fill_between([0, 1, 10], [0, 0, 0], [1, 1, 1], color="C1", alpha=0.2)
    ax.legend(handles=[Patch(color="C0", label="digits"), Patch(color="C1", label="faces"),
                       Line2D([], [], color="k", ls="-", label="ReLU"), Line2D([], [], color="k", ls="--", label="linear")])
    ax.set_ylabel(r"min pairwise gradient angle $\phi_{\min}$ (deg)")
    ax.set_xlabel(r"depth $L$")
    d = drawn_data(fig)
    assert d.series.unique().tolist() == ["digits, ReLU", "digits, linear", "faces, ReLU", "faces"]
    assert d[d.kind == "band"].series.unique().tolist() == ["faces"]
    assert set(d.y_label) == {"min pairwise gradient angle φ_min (deg)"} and set(d.x_label) == {"depth L"}
    assert not d.series.str.fullmatch(r"(line|markers|band|error bar) \d+").any()
    # the counterfactual: without the legend the lines are named by how they are drawn, still not "line N"
    ax.get_legend().remove()
    assert drawn_data(fig).series.unique().tolist()[:2] == ["blue line", "blue dashed line"]


def test_markers_pinned_to_the_axis_top_are_infinite_values_not_the_axis_top():
    from lib.book.plotting import mark_infinite
    fig, ax = plt.subplots()
    ax.semilogy([1, 2, 3], [10, 100, 1000], label="kappa")
    ax.set_ylim(1, 1e4)
    mark_infinite(ax, [4, 5], label="singular")
    d = drawn_data(fig)
    inf = d[d.series == "singular"]
    assert inf.x.tolist() == [4, 5] and np.isinf(inf.y).all()
    assert (d[d.series == "kappa"].y < 1e4).all()


def test_bars_are_read_and_reference_lines_are_not():
    fig, ax = plt.subplots()
    ax.bar([0, 1], [3.0, 5.0], 0.4, label="ours")
    ax.axhline(1.0, color="k", ls=":")
    d = drawn_data(fig)
    assert d[["series", "kind", "x", "y"]].values.tolist() == [["ours", "bar", 0.0, 3.0], ["ours", "bar", 1.0, 5.0]]


def test_bars_at_named_categories_are_read_at_their_names():
    fig, ax = plt.subplots()
    ax.bar([-0.2, 0.8], [3.0, 5.0], 0.4, label=r"matmul $n\times m$")
    ax.set_xticks([0, 1], ["n=64\nL=2", "n=128\nL=2"])
    d = drawn_data(fig)
    assert d[["series", "x", "y"]].values.tolist() == [["matmul n×m", "n=64, L=2", 3.0], ["matmul n×m", "n=128, L=2", 5.0]]
