"""lib.site.overview: the verdict grid and the map from the papers' figures to the book's."""
import re
from pathlib import Path

from lib.book.claims import Claim
from lib.site.overview import VERDICT_COLOURS, figure_map, grid_alt, grid_html, grid_levels
from lib.site.report import build_rows

CLAIMS = (Claim("[LH] Thm 2.3", "s", "Sec 2"), Claim("[LH] Fig 3", "s", "Sec 4"),
          Claim("[LH] Fig 4", "s", "Sec 5", untestable="needs CIFAR-10"),
          Claim("[LZB] Table 1", "s", "Sec 3", verdict_of=("[LZB] Fig 2",)), Claim("[LZB] Fig 2", "s", "Sec 3"))


def _rec(claim, status, chapter="03_conditioning", section="sec-fig3"):
    return dict(claim_id=claim, status=status, chapter=chapter, section=section, measured="m")


def _cells(html: str) -> list[dict]:
    return [dict(href=m[0], title=m[1], colour=m[2], label=m[3]) for m in re.findall(
        r'<a class="verdict-cell" href="([^"]*)" title="([^"]*)" aria-label="[^"]*" style="background: (#\w+);[^"]*">'
        r'([^<]*)</a>', html)]


def test_the_grid_has_one_link_per_claim_to_its_report_row_in_its_verdicts_colour():
    """Each cell is a link to its claim's row of the report (the anchor the report places on it,
    lib.book.results.report_label), coloured by its verdict, titled with the claim and verdict; one panel per paper."""
    rows, _ = build_rows([_rec("[LH] Thm 2.3", "not reproduced"), _rec("[LH] Fig 3", "reproduced")], CLAIMS)
    html = grid_html(rows)
    cells = _cells(html)
    assert len(cells) == len(CLAIMS)
    assert [c["href"] for c in cells[:3]] == ["report.html#report-lh-thm-2-3", "report.html#report-lh-fig-3",
                                              "report.html#report-lh-fig-4"]
    assert [c["colour"] for c in cells[:3]] == [VERDICT_COLOURS["not reproduced"], VERDICT_COLOURS["reproduced"],
                                                VERDICT_COLOURS["not checked"]]
    assert [c["label"] for c in cells[:2]] == ["Thm 2.3", "Fig 3"] and cells[0]["title"] == "[LH] Thm 2.3: not reproduced"
    assert html.count('class="verdict-grid-title"') == 2                       # one panel per paper
    assert "\n\n" not in html and html.startswith("<div") and html.endswith("</div>")  # one HTML block for MyST


def _legend(html: str) -> list[tuple[str, str]]:
    return re.findall(r'class="verdict-grid-swatch" style="background: (#\w+)"></span>([^<]*)</span>', html)


def test_the_legend_names_only_the_levels_some_cell_has_with_their_counts():
    """The legend names only the levels present (a red legend entry with no red cell misled). Counterfactual: with a red cell, red is listed."""
    rows, _ = build_rows([_rec("[LH] Thm 2.3", "reproduced"), _rec("[LH] Fig 3", "reproduced")], CLAIMS)
    assert grid_levels(rows) == {"reproduced": 2, "not checked": 3}
    assert _legend(grid_html(rows)) == [(VERDICT_COLOURS["reproduced"], "reproduced (2)"),
                                        (VERDICT_COLOURS["not checked"], "not checked (3)")]
    assert " red " not in grid_alt(rows) and grid_alt(rows).endswith(": 2 green reproduced, 3 grey not checked")
    rows, _ = build_rows([_rec("[LH] Thm 2.3", "not reproduced"), _rec("[LH] Fig 3", "reproduced")], CLAIMS)
    assert (VERDICT_COLOURS["not reproduced"], "not reproduced (1)") in _legend(grid_html(rows))
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
    grid, md = save_overview(rows, [], tmp_path, page)
    assert grid.parent == md.parent == page.parent / OVERVIEW_DIR and grid.name == "verdict_grid.md"
    assert grid.read_text() == grid_html(rows) + "\n" and md.read_text().startswith(":::{list-table}")
