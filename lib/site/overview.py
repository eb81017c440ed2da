"""The book at a glance: every verdict in one grid of links, and the map from the papers' figures and tables to the
book's. Both read only what the chapters recorded: the verdicts (:mod:`lib.book.results`), the
figure registry (:func:`lib.book.figures.load_figures`), each figure with the section it was drawn in.
"""
from __future__ import annotations

import html
import re
from pathlib import Path

from lib.book.claims import PAPERS
from lib.book.results import VERDICTS, report_label
from lib.site.pages import short_chapter_link
from lib.site.report import ClaimRow, badge, list_table

__all__ = ["VERDICT_COLOURS", "COLOUR_WORDS", "OVERVIEW_DIR", "REPORT_PAGE", "grid_rows", "grid_levels",
           "grid_alt", "grid_html",
           "paper_items", "figure_map", "save_overview"]

#: One colour per verdict level, the colours of the report's badges (sphinx-design's success, warning,
#: danger, info and muted), so the grid and the tables read alike.
VERDICT_COLOURS = {"reproduced": "#198754", "reproduced with caveat": "#ffc107", "not reproduced": "#dc3545",
                   "inconclusive": "#0dcaf0", "not checked": "#adb5bd"}
#: The words the alt text uses for each verdict level's colour (:data:`VERDICT_COLOURS`).
COLOUR_WORDS = {"reproduced": "green", "reproduced with caveat": "yellow", "not reproduced": "red",
                "inconclusive": "blue", "not checked": "grey"}
#: Where the report page writes the overview files, beside itself; the introduction includes them from there.
OVERVIEW_DIR = "overview"

_KIND = re.compile(r"^\[(?P<paper>[^\]]+)\]\s*(?P<kind>Fig|Table)\s*(?P<num>[\w.]+)")


def _short(claim_id: str) -> str:
    """The label inside a cell: ``"Thm 3.2"`` for ``"[LH] Thm 3.2"``; a book target's own short name."""
    if "] " in claim_id:
        return claim_id.split("] ", 1)[1]
    return claim_id.split(": ", 1)[-1].split(" vs ")[0]


def grid_rows(rows: list[ClaimRow]) -> dict[str, list[ClaimRow]]:
    """The rows the verdict grid shows, by paper (registry order; the book's own targets last)."""
    papers = [p for p in PAPERS if any(r.claim and r.claim.paper == p for r in rows)]
    return {p: [r for r in rows if r.claim and r.claim.paper == p] for p in papers}


def grid_levels(rows: list[ClaimRow]) -> dict[str, int]:
    """How many cells of the grid have each verdict level, for the levels present only (in the order of
    :data:`~lib.book.results.VERDICTS`): the legend and the alt text name no level that no cell has."""
    shown = [r.status for items in grid_rows(rows).values() for r in items]
    return {v: shown.count(v) for v in VERDICTS if v in shown}


def grid_alt(rows: list[ClaimRow]) -> str:
    """The verdict grid's alt text: what it shows, and the count of each level present with its colour."""
    counts = ", ".join(f"{n} {COLOUR_WORDS[v]} {v}" for v, n in grid_levels(rows).items())
    return f"Every claim of the three papers and of the book's own targets as one cell, coloured by its verdict: {counts}"


#: The page the verdict grid's cells link to, beside the pages that show the grid (the report and the introduction,
#: both in ``_executed/book/``): each cell opens its claim's row there (:func:`lib.book.results.report_label`).
REPORT_PAGE = "report.html"


def grid_html(rows: list[ClaimRow], report: str = REPORT_PAGE) -> str:
    """The verdict grid as HTML: one panel per paper in registry order (which follows each paper's sections; the
    book's own targets last), every cell a link to its claim's row of the report (``report#report-...``), coloured by
    its verdict (:data:`VERDICT_COLOURS`), with the claim and its verdict as the link's title and accessible name; the
    legend lists the levels present, with their counts (:func:`grid_levels`). One HTML block without a blank line,
    so that MyST passes it through whole.

    Args:
        rows: the report's rows (:func:`lib.site.report.build_rows`).
        report: the report page, relative to the page that shows the grid.
    """
    out = ['<div class="verdict-grid" role="group" aria-label="' + html.escape(grid_alt(rows), quote=True) + '">']
    for paper, items in grid_rows(rows).items():
        tag = f"[{paper}] " if paper != "book" else ""
        out.append(f'<p class="verdict-grid-title">{html.escape(tag + PAPERS[paper])}: {len(items)} claims</p>')
        out.append('<div class="verdict-grid-cells">')
        for row in items:
            dark = row.status in ("reproduced", "not reproduced")
            name = html.escape(f"{row.claim_id}: {row.status}", quote=True)
            out.append(f'<a class="verdict-cell" href="{report}#{report_label(row.claim_id)}" title="{name}" '
                       f'aria-label="{name}" style="background: {VERDICT_COLOURS[row.status]}; color: '
                       f'{"white" if dark else "black"}">{html.escape(_short(row.claim_id))}</a>')
        out.append("</div>")
    legend = "".join(f'<span class="verdict-grid-key"><span class="verdict-grid-swatch" style="background: '
                     f'{VERDICT_COLOURS[v]}"></span>{html.escape(v)} ({n})</span>' for v, n in grid_levels(rows).items())
    out.append(f'<p class="verdict-grid-legend">{legend}</p>')
    out.append("</div>")
    return "\n".join(out)


def paper_items(rows: list[ClaimRow]) -> list[ClaimRow]:
    """The rows that are a figure or a table of a paper (``[LH] Fig 3``, ``[LZB] Table 1``), in registry order."""
    return [r for r in rows if _KIND.match(r.claim_id)]


def figure_map(rows: list[ClaimRow], figures: list[dict], root: Path, from_doc: Path) -> str:
    """A table from each figure and table of the papers to the book's figures, chapter and verdict.

    A book figure belongs to a paper item when the figure was recorded in a section where a verdict on that
    item (or on a claim whose verdict the item takes) was recorded (both carry their section,
    :meth:`lib.book.results.Recorder.section`).

    Args:
        rows: the report's rows.
        figures: the figure registry (:func:`lib.book.figures.load_figures`).
        root: the repository root.
        from_doc: the page the table appears on (for relative links).
    """
    body = []
    for row in paper_items(rows):
        records = row.records or [r for b in row.borrowed for r in b.records]
        places = {(r["chapter"], r.get("section") or "") for r in records}
        shown = [f for f in figures if (f["chapter"], f.get("section") or "") in places]
        figs = ", ".join(f"{{ref}}`Figure {f['figure']} <{f['label']}>`" for f in shown) or "—"
        by_chapter: dict[str, list] = {}
        for chapter, section in sorted(places):
            by_chapter.setdefault(chapter, []).append(section or None)
        where = ", ".join(short_chapter_link(root, from_doc, c, s[0]) for c, s in by_chapter.items())
        verdict = badge(row.status)
        if row.claim is not None and row.claim.untestable:
            verdict += f" ({row.claim.untestable})"
        body.append([f"**{row.claim_id}**", figs, where or "—", verdict])
    return list_table(["Paper", "Book figure", "Checked in", "Verdict"], body, [14, 30, 34, 22], "figure-map")


def save_overview(rows: list[ClaimRow], figures: list[dict], root: Path, page: Path) -> tuple[Path, Path]:
    """Write the verdict grid (``verdict_grid.md``, the HTML of :func:`grid_html`, every cell a link to its row of the
    report) and the figure map (``figure_map.md``, MyST) into the folder :data:`OVERVIEW_DIR` beside ``page``, the
    report page, so that the introduction shows the same files (a Markdown page cannot paste another page's glued
    table).

    Returns:
        The paths of the grid and of the figure map.
    """
    out = Path(page).parent / OVERVIEW_DIR
    out.mkdir(parents=True, exist_ok=True)
    grid = out / "verdict_grid.md"
    grid.write_text(grid_html(rows) + "\n", encoding="utf-8")
    md = out / "figure_map.md"
    # the table is included into pages one folder up, so its links are written from there
    md.write_text(figure_map(rows, figures, root, Path(page)) + "\n", encoding="utf-8")
    return grid, md
