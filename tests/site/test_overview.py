"""lib.site.overview: the verdict grid and the map from the papers' figures to the book's."""
from pathlib import Path

import matplotlib.colors as mcolors
from matplotlib.patches import Rectangle

from lib.book.claims import Claim
from lib.site.overview import VERDICT_COLOURS, figure_map, grid_alt, grid_levels, plot_verdict_grid
from lib.site.report import build_rows

CLAIMS = (Claim("[LH] Thm 2.3", "s", "Sec 2"), Claim("[LH] Fig 3", "s", "Sec 4"),
          Claim("[LH] Fig 4", "s", "Sec 5", untestable="needs CIFAR-10"),
          Claim("[LZB] Table 1", "s", "Sec 3", verdict_of=("[LZB] Fig 2",)), Claim("[LZB] Fig 2", "s", "Sec 3"))


def _rec(claim, status, chapter="03_conditioning", section="sec-fig3"):
    return dict(claim_id=claim, status=status, chapter=chapter, section=section, measured="m")


def test_the_grid_has_one_cell_per_claim_in_its_verdicts_colour():
    rows, _ = build_rows([_rec("[LH] Thm 2.3", "not reproduced"), _rec("[LH] Fig 3", "reproduced")], CLAIMS)
    fig = plot_verdict_grid(rows)
    cells = [p for ax in fig.axes for p in ax.patches if isinstance(p, Rectangle)]
    assert len(cells) == len(CLAIMS)
    colours = [mcolors.to_hex(p.get_facecolor()) for p in cells]
    assert colours[:2] == [VERDICT_COLOURS["not reproduced"], VERDICT_COLOURS["reproduced"]]
    assert colours[2] == VERDICT_COLOURS["not checked"]
    labels = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert labels[:2] == ["Thm 2.3", "Fig 3"] and len(fig.axes) == 2          # one panel per paper


def _legend(fig) -> list[tuple[str, str]]:
    (legend,) = fig.legends
    return [(t.get_text(), mcolors.to_hex(h.get_facecolor())) for t, h in zip(legend.get_texts(), legend.legend_handles)]


def test_the_legend_names_only_the_levels_some_cell_has_with_their_counts():
    """The legend names only the levels present (a red legend entry with no red cell misled). Counterfactual: with a red cell, red is listed."""
    rows, _ = build_rows([_rec("[LH] Thm 2.3", "reproduced"), _rec("[LH] Fig 3", "reproduced")], CLAIMS)
    assert grid_levels(rows) == {"reproduced": 2, "not checked": 3}
    assert _legend(plot_verdict_grid(rows)) == [("reproduced (2)", VERDICT_COLOURS["reproduced"]),
                                                ("not checked (3)", VERDICT_COLOURS["not checked"])]
    assert " red " not in grid_alt(rows) and grid_alt(rows).endswith(": 2 green reproduced, 3 grey not checked")
    rows, _ = build_rows([_rec("[LH] Thm 2.3", "not reproduced"), _rec("[LH] Fig 3", "reproduced")], CLAIMS)
    assert ("not reproduced (1)", VERDICT_COLOURS["not reproduced"]) in _legend(plot_verdict_grid(rows))
    assert "1 red not reproduced" in grid_alt(rows)


def test_the_map_links_each_paper_figure_to_the_book_figures_of_its_verdicts_section(tmp_path: Path):
    """A figure belongs to the paper items whose verdicts were recorded in the section it was recorded in (no
    notebook is read: the executed chapters are not there)."""
    figs = [dict(chapter="03_conditioning", figure="3.1", label="fig-figure3", section="sec-fig3"),
            dict(chapter="03_conditioning", figure="3.2", label="fig-other", section="sec-other"),
            dict(chapter="03_conditioning", figure="3.3", label="fig-none", section=None)]
    rows, _ = build_rows([_rec("[LH] Fig 3", "reproduced with caveat"),
                          _rec("[LZB] Fig 2", "reproduced", section="sec-other")], CLAIMS)
    table = figure_map(rows, figs, tmp_path, tmp_path / "_executed" / "book" / "report.ipynb")
    lines = table.splitlines()
    fig3 = lines.index("* - **[LH] Fig 3**")
    assert "Figure 3.1 <fig-figure3>" in lines[fig3 + 1] and "3.2" not in lines[fig3 + 1]
    assert "reproduced with caveat" in lines[fig3 + 3]
    fig4 = lines.index("* - **[LH] Fig 4**")
    assert lines[fig4 + 1].strip() == "- —" and "needs CIFAR-10" in lines[fig4 + 3]
    tab1 = lines.index("* - **[LZB] Table 1**")                 # takes [LZB] Fig 2's verdict and figure
    assert "Figure 3.2 <fig-other>" in lines[tab1 + 1]
    assert "fig-none" not in table                                # a figure outside any section maps to nothing
    assert "Thm 2.3" not in table                                 # only figures and tables of the papers


def test_the_overview_is_written_beside_the_report_page(tmp_path: Path):
    from lib.site.overview import OVERVIEW_DIR, save_overview
    rows, _ = build_rows([_rec("[LH] Fig 3", "reproduced")], CLAIMS)
    page = tmp_path / "_executed" / "book" / "report.ipynb"
    png, md = save_overview(rows, [], tmp_path, page)
    assert png.parent == md.parent == page.parent / OVERVIEW_DIR
    assert png.read_bytes()[:4] == b"\x89PNG" and md.read_text().startswith(":::{list-table}")
