"""The figure rules every registered figure keeps (lib.book.figures_audit, lib.book.plotting.place_legends), each
shown failing on the defect it closes: a legend over the data or without a frame, a figure legend over the x-labels
that squeezes the panels, colours that cannot be told apart, an unordered palette for ordered depths, a legend
entry drawn unlike its series, a figure without a vector version, an empty CSV, a re-run command that does not say
what it overwrites."""
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
import seaborn as sns  # noqa: E402

from lib.book import figures_audit as FA  # noqa: E402
from lib.book import plotting as PL  # noqa: E402
from lib.book.figures import RERUN_NOTE, Figures  # noqa: E402


def _crowded(legend_kw=None):
    """Four curves filling one panel, as Figure 2.1 does, and a legend where matplotlib put it."""
    fig, axs = PL.figure(ncols=1, width=5.0, height=3.2)
    ax = axs[0, 0]
    x = np.linspace(0, 1, 40)
    for k in range(4):
        ax.plot(x, np.sin(3 * x + k), "o-", ms=3, label=f"activation {k}")
    ax.set(xlabel="input angle (deg)", ylabel="gradient angle (deg)")
    ax.legend(**(legend_kw or {"frameon": False}))
    return fig


def test_a_legend_over_the_data_is_found_and_moved_off_it():
    fig = _crowded()
    found = FA.legend_overlaps(fig)
    assert any("no frame" in p for p in found) and any("drawn point(s)" in p for p in found), found
    PL.place_legends(fig)
    assert FA.legend_overlaps(fig) == []
    plt.close(fig)


def test_a_free_corner_is_used_before_the_strip():
    fig, axs = PL.figure(ncols=1, width=5.0, height=3.2)
    axs[0, 0].plot([0, 1], [0, 0.2], label="low")
    axs[0, 0].plot([0, 1], [0.1, 0.3], label="also low")
    axs[0, 0].set_ylim(0, 3)
    axs[0, 0].legend(loc="lower right")  # on the data; the upper half is empty
    PL.place_legends(fig)
    assert not fig.legends and axs[0, 0].get_legend() is not None and FA.legend_overlaps(fig) == []
    plt.close(fig)


def test_a_figure_legend_over_the_x_labels_goes_below_them_and_the_panels_keep_their_height():
    """Figure 4.9: two legends hung below the panels covered the x-labels, and the layout squeezed the plot area to
    about 80 px."""
    fig, axs = PL.figure(ncols=2, width=3.6, height=3.0)
    for ax in axs[0]:
        for k in range(6):
            ax.plot([1, 2, 4], [k, k + 1, k + 3], label=f"a long legend entry number {k}")
        ax.set(xlabel="depth L", ylabel="steps to eps")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.05))
    fig.canvas.draw()
    before = axs[0, 0].bbox.height
    assert any("covers the text" in p for p in FA.legend_overlaps(fig))
    PL.place_legends(fig)
    assert FA.legend_overlaps(fig) == []
    assert axs[0, 0].bbox.height >= 0.9 * before  # the figure grew by the strip: the panels were not squeezed
    assert len(fig.legends) == 1  # the same legend under two panels is shown once
    plt.close(fig)


def test_a_legend_moved_below_shows_each_entry_as_it_is_plotted():
    """Figure 7.1's legend showed a line for a series plotted as markers with error bars."""
    fig = _crowded()
    ax = fig.axes[0]
    ax.errorbar([0.5], [0.0], yerr=[0.3], fmt="s", label="error-bar series")
    ax.legend()
    from matplotlib.lines import Line2D
    squares = lambda leg: leg.findobj(lambda a: isinstance(a, Line2D) and a.get_marker() == "s")  # noqa: E731
    assert squares(ax.get_legend())
    PL.place_legends(fig)
    (leg,) = fig.legends  # moved below the panel
    assert squares(leg), "the moved legend lost the series' square marker"
    plt.close(fig)


def _legend_in(colours, labels=None, marker="o"):
    fig, ax = plt.subplots()
    for k, c in enumerate(colours):
        ax.plot([0, 1], [k, k], marker=marker, color=c, label=(labels or [f"variant {i}" for i in range(len(colours))])[k])
    ax.legend()
    return fig


def test_colours_that_cannot_be_told_apart_are_found():
    """Figure 2.7 drew nine series in the colour-blind palette: its two pinks (14.6 apart) and its orange and tan
    (11.6) are found; the book's palette keeps ten series apart."""
    bad = FA.close_colours(_legend_in(sns.color_palette("colorblind", 9)))
    assert any("'variant 4' and 'variant 6'" in p for p in bad) and any("'variant 1' and 'variant 5'" in p for p in bad)
    assert FA.close_colours(_legend_in(PL.palette(10))) == []
    assert min(FA.colour_distance(a, b) for i, a in enumerate(PL.QUALITATIVE) for b in PL.QUALITATIVE[i + 1:]) \
        >= FA.MIN_COLOUR_DISTANCE
    # beyond ten the colours repeat: drawn alike they are found, drawn with another marker they are told apart
    assert FA.close_colours(_legend_in(PL.palette(11)))
    fig = _legend_in(PL.palette(11))
    fig.axes[0].lines[10].set_marker("s")
    fig.axes[0].legend()
    assert FA.close_colours(fig) == []
    plt.close("all")


def test_the_distance_threshold_is_tested_at_its_value():
    a = "#777777"
    assert FA.close_colours(_legend_in([a, a])) and not FA.close_colours(_legend_in(["#0173b2", "#de8f05"]))
    d = FA.colour_distance("#0173b2", "#56b4e9")
    assert FA.close_colours(_legend_in(["#0173b2", "#56b4e9"]), threshold=d + 0.01)
    assert not FA.close_colours(_legend_in(["#0173b2", "#56b4e9"]), threshold=d - 0.01)
    plt.close("all")


@pytest.mark.parametrize("n", [3, 6, 10])
def test_ordered_depths_need_an_ordered_palette(n):
    """Figure 6.5 drew ten depths in an unordered palette."""
    labels = [f"L={2 ** k} (lr 0.1)" for k in range(n)]
    assert FA.unordered_palettes(_legend_in(sns.color_palette("colorblind", n), labels))
    assert FA.unordered_palettes(_legend_in(PL.ordered_palette(n), labels)) == []
    assert FA.close_colours(_legend_in(PL.ordered_palette(n), labels)) == []  # ordered: held to order, not distance
    # an ordered palette given in the wrong order is found too
    assert FA.unordered_palettes(_legend_in(PL.ordered_palette(n)[::-1][1:] + PL.ordered_palette(n)[-1:], labels))
    plt.close("all")


def test_ordered_keys_are_read_from_the_labels():
    for text, key in (("L=4", "L"), ("L = 4", "L"), ("depth 8", "depth"), ("width 1,024", "width"), ("m=64", "m"),
                      ("n=20", "n"), ("$L$ = 3", "L")):
        assert FA.ORDERED_KEY.match(text).group(1) == key, text
    for text in ("linear", "ReLU, L=3", "layer init std 1..4"):
        assert FA.ORDERED_KEY.match(text) is None


def test_a_registered_figure_has_a_vector_version_data_and_its_problems(tmp_path, monkeypatch):
    monkeypatch.setenv("NTK_RESULTS_DIR", str(tmp_path / "results"))
    monkeypatch.setenv("NTK_PAGE_DIR", str(tmp_path / "page"))
    figs = Figures("02_demo", display=False)
    figs.show(_crowded(), "fig-crowded", "Crowded.", drawn_by=_crowded)
    empty, _ = plt.subplots()
    figs.show(empty, "fig-empty", "Nothing drawn.", drawn_by=_crowded)
    e, f = json.loads((tmp_path / "results" / "figures" / "02_demo.json").read_text())
    assert e["vector"] == "figures/fig-crowded.svg" and (tmp_path / "page" / e["vector"]).read_text().startswith("<?xml")
    assert e["problems"] == [] and e["data_rows"] == 160
    assert pd.read_csv(tmp_path / "page" / e["csv"]).series.unique().tolist() == [f"activation {k}" for k in range(4)]
    assert "csv" not in f and f["data_rows"] == 0 and any("no rows" in p for p in f["problems"])


def test_the_text_under_a_figure_links_the_vector_file_and_says_what_a_re_run_overwrites(tmp_path, monkeypatch):
    shown = []
    monkeypatch.setattr("lib.book.figures.display", lambda obj: shown.append(getattr(obj, "data", obj)))
    monkeypatch.setenv("NTK_RESULTS_DIR", str(tmp_path / "results"))
    monkeypatch.setenv("NTK_PAGE_DIR", str(tmp_path / "page"))
    Figures("02_demo").show(_crowded(), "fig-crowded", "Crowded.", drawn_by=_crowded)
    text = shown[-1]
    assert "{download}`fig-crowded.svg <figures/fig-crowded.svg>`" in text
    assert "{download}`fig-crowded.csv <figure-data/fig-crowded.csv>`" in text
    assert RERUN_NOTE in text
    for words in ("`_executed/`", "`results/`", "overwrites", "`--root DIR`"):
        assert words in RERUN_NOTE


def test_a_line_never_bridges_a_depth_its_series_lacks():
    """Figure 3.1 drew a straight line from L = 1 to L = 10 where only 0, 1 and 10 were measured."""
    from lib.book.figure_data import drawn_data
    x, y = PL.break_at_gaps([0, 1, 10], [3.0, 4.0, 9.0], grid=range(11))
    assert np.isnan(x[2]) and np.isnan(y[2]) and len(x) == 4  # broken between 1 and 10 only
    fig, ax = plt.subplots()
    ax.plot(x, y, "o-", label="mnist, ReLU")
    segments = [s for s in np.split(np.c_[x, y], np.where(np.isnan(x))[0]) if len(s[~np.isnan(s[:, 0])]) > 1]
    assert len(segments) == 1 and segments[0][:, 0].tolist() == [0, 1]  # the only line: 0 to 1
    assert drawn_data(fig)[["x", "y"]].values.tolist() == [[0, 3], [1, 4], [10, 9]]  # the data: the three points
    # a series with every depth of the grid is one unbroken line
    assert not np.isnan(PL.break_at_gaps([0, 1, 2], [1, 2, 3], grid=[0, 1, 2])[0]).any()
    plt.close(fig)


def test_markers_of_a_size_not_run_are_not_data_at_the_axis_top():
    from lib.book.figure_data import NOT_MEASURED_GID, drawn_data
    fig, ax = plt.subplots()
    ax.plot([1, 2], [0.5, 0.7], "o-", label="ours")
    ax.scatter([3], [ax.get_ylim()[1]], marker="s", facecolors="none", edgecolors="C1", gid=NOT_MEASURED_GID,
               label="jacobian: not run", clip_on=False)
    d = drawn_data(fig)
    row = d[d.series == "jacobian: not run"]
    assert row.kind.tolist() == ["not measured"] and row.y.isna().all()
    plt.close(fig)


def test_a_panel_squeezed_by_its_legends_or_a_label_longer_than_it_is_found():
    """Figure 4.9: about 80 px of plot area, its y-label cut off."""
    fig, axs = PL.figure(ncols=2, width=3.6, height=1.4)
    axs[0, 0].plot([1, 2], [1, 2])
    axs[0, 0].set(ylabel="steps (SGD: epochs) to eps, a long label", xlabel="depth L (filled: kappa at most 2 and the "
                  "width premise met, a long note)")
    got = FA.cramped_panels(fig)
    assert any("inch high" in p for p in got) and any("y-label" in p for p in got) and any("x-label" in p for p in got)
    fig.set_size_inches(7.2, 4.0)
    axs[0, 0].set(ylabel="steps to eps", xlabel="depth L")
    assert FA.cramped_panels(fig) == []
    plt.close(fig)
