"""The figure index of the reproducibility report: every figure of the chapters and the code that drew it.

A chapter registers each figure when it draws it (:mod:`lib.book.figures`): number, label, caption,
the function that drew it, those that measured its data, its data file and the command that re-runs
it. The index lists these entries, with a link to the figure (its MyST label) and links to those
functions on the API page. It parses no caption.
"""
from __future__ import annotations

from pathlib import Path

from lib.book.figures import load_figures
from lib.site.pages import section_link
from lib.site.report import list_table
from lib.site.sphinxext import api_home

__all__ = ["figure_index", "figure_table"]


def figure_index(chapters: list[str], results: Path | None = None) -> list[dict]:
    """Every registered figure of ``chapters`` (:func:`lib.book.figures.load_figures`), in chapter and
    drawing order, with ``code`` = the function that drew it, then those that measured its data."""
    return [dict(f, code=[f["drawn_by"], *f["data_from"]]) for f in load_figures(chapters, results)]


def _api_role(name: str, documented: set[str]) -> str:
    """``{py:obj}`` role for a documented lib object or module (linking to the section that documents it:
    :func:`lib.site.sphinxext.api_home`), plain code otherwise."""
    mod, _, attr = name.rpartition(".")
    if name in documented:
        return f"{{py:mod}}`{name}`"
    try:
        home = api_home(mod, attr, sorted(documented)) if mod in documented else None
    except ImportError:
        home = None
    if home is None:
        return f"`{name}`"
    return f"{{py:obj}}`{name}`" if home == mod else f"{{py:obj}}`{name} <{home}.{attr}>`"


def figure_table(figures: list[dict], root: Path, from_doc: Path, documented: set[str]) -> str:
    """The figure index as a list-table: figure (a link to it), its chapter, the code that drew it (API links)."""
    body = []
    for f in figures:
        code = ", ".join(_api_role(n, documented) for n in f["code"])
        body.append([f"{{ref}}`Figure {f['figure']} <{f['label']}>`", section_link(root, from_doc, f["chapter"], None),
                     code])
    return list_table(["Figure", "Chapter", "Code that drew it"], body, [14, 36, 50], "figure-index-table")
