"""The book at a glance: every verdict in one figure, and the map from the papers' figures and tables to the
book's. Both read only what the chapters recorded: the verdicts (:mod:`lib.book.results`), the
figure registry (:func:`lib.book.figures.load_figures`), each figure with the section it was drawn in.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from lib.book.claims import PAPERS
from lib.book.plotting import COLUMN_INCHES
from lib.book.results import VERDICTS
from lib.site.pages import short_chapter_link
from lib.site.report import ClaimRow, badge, list_table

__all__ = ["VERDICT_COLOURS", "GRID_COLUMNS", "COLOUR_WORDS", "OVERVIEW_DIR", "grid_rows", "grid_levels", "grid_alt",
           "plot_verdict_grid",
           "paper_items", "figure_map", "save_overview"]

#: One colour per verdict level, the colours of the report's badges (sphinx-design's success, warning,
#: danger, info and muted), so the figure and the tables read alike.
VERDICT_COLOURS = {"reproduced": "#198754", "reproduced with caveat": "#ffc107", "not reproduced": "#dc3545",
                   "inconclusive": "#0dcaf0", "not checked": "#adb5bd"}
#: Claims per row of the verdict grid; 9 cells of 0.8 inch fill the text column and hold a label such as
#: "Lemma E.5" at 8 pt.
GRID_COLUMNS = 9

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


def plot_verdict_grid(rows: list[ClaimRow]) -> Figure:
    """Every claim of the registry as one cell coloured by its verdict, one panel per paper, in registry
    order (which follows each paper's sections). The book's own performance targets form the last panel. The
    legend lists the levels some cell has, each with its count (:func:`grid_levels`).

    Args:
        rows: the report's rows (:func:`lib.site.report.build_rows`).
    """
    by_paper = grid_rows(rows)
    papers = list(by_paper)
    heights = [int(np.ceil(len(v) / GRID_COLUMNS)) for v in by_paper.values()]
    cell = COLUMN_INCHES / GRID_COLUMNS
    fig = Figure(figsize=(COLUMN_INCHES, cell * 0.62 * (sum(heights) + 0.9 * len(papers)) + 0.7))
    gs = fig.add_gridspec(len(papers), 1, height_ratios=[h + 0.9 for h in heights], hspace=0.15)
    for k, (paper, items) in enumerate(by_paper.items()):
        ax = fig.add_subplot(gs[k])
        nrow = heights[k]
        for i, row in enumerate(items):
            x, y = i % GRID_COLUMNS, nrow - 1 - i // GRID_COLUMNS
            ax.add_patch(Rectangle((x + 0.04, y + 0.06), 0.92, 0.88, color=VERDICT_COLOURS[row.status], lw=0))
            dark = row.status in ("reproduced", "not reproduced")
            ax.text(x + 0.5, y + 0.5, _short(row.claim_id), ha="center", va="center", fontsize=8,
                    color="white" if dark else "black")
        ax.set_xlim(0, GRID_COLUMNS)
        ax.set_ylim(0, nrow)
        ax.set_axis_off()
        tag = f"[{paper}] " if paper != "book" else ""
        ax.set_title(f"{tag}{PAPERS[paper]}: {len(items)} claims", loc="left", fontsize=10)
    levels = grid_levels(rows)  # only the levels some cell has, each with its count
    fig.legend(handles=[Patch(color=VERDICT_COLOURS[v], label=f"{v} ({n})") for v, n in levels.items()],
               loc="lower center", ncol=len(levels) if len(levels) <= 3 else -(-len(levels) // 2), fontsize=9, frameon=False)
    fig.subplots_adjust(left=0.01, right=0.99, top=0.96, bottom=0.65 / fig.get_figheight())
    return fig


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
    """Write the verdict grid (``verdict_grid.png``) and the figure map (``figure_map.md``, MyST) into the
    folder :data:`OVERVIEW_DIR` beside ``page``, the report page, so that the introduction shows the same
    files (a Markdown page cannot paste another page's glued table).

    Returns:
        The paths of the image and of the Markdown table.
    """
    out = Path(page).parent / OVERVIEW_DIR
    out.mkdir(parents=True, exist_ok=True)
    fig = plot_verdict_grid(rows)
    png = out / "verdict_grid.png"
    fig.savefig(png, dpi=fig.dpi)
    md = out / "figure_map.md"
    # the table is included into pages one folder up, so its links are written from there
    md.write_text(figure_map(rows, figures, root, Path(page)) + "\n", encoding="utf-8")
    return png, md
