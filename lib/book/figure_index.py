"""The figure index of the reproducibility report: every figure of the chapters and the code that drew it.

A chapter registers each figure when it draws it (:mod:`lib.book.figures`): number, label, caption,
the function that drew it and those that measured its data. The index lists these entries, with a
link to the figure (its MyST label) and links to those functions on the API page. A chapter that
registers no figure yet is read the old way, from its hand-typed captions (``*Figure N.k. ...*``
naming the code in backticks, :func:`caption_code`).
"""
from __future__ import annotations

import re
from pathlib import Path

from lib.book.pages import markdown_cells, chapter_headings_from_text, chapter_source, section_link
from lib.book.report import list_table

__all__ = ["caption_code", "figure_index", "figure_table"]

_CAPTION = re.compile(r"^\s*\*\s*Figure\s+(?P<num>\d+\.\d+)\.\s*(?P<text>.*?)\*\s*(?:\n\s*\n|\Z)", re.S | re.M)
_CODE = re.compile(r"`([^`]+)`")


def caption_code(caption: str) -> list[str]:
    """The ``lib`` objects a caption names in backticks, in order, without repeats.

    Full names (```lib.x.y```, also ```lib.x.y(...)```) are taken as written; a bare name
    (```y```) is resolved against the modules of the full names before it when it exists there.
    """
    import importlib
    out: list[str] = []
    for span in _CODE.findall(caption):
        m = re.match(r"(lib(?:\.\w+)+)", span)
        if m:
            name = m.group(1)
        elif re.fullmatch(r"[A-Za-z_]\w*", span):
            name = None
            for prev in reversed(out):
                mod = prev.rpartition(".")[0]
                try:
                    if hasattr(importlib.import_module(mod), span):
                        name = f"{mod}.{span}"
                        break
                except ImportError:
                    continue
            if name is None:
                continue
        else:
            continue
        if name not in out:
            out.append(name)
    return out


def figure_index(root: Path, chapters: list[str], results: Path | None = None) -> list[dict]:
    """Every figure of the given chapters: the registered ones (:func:`lib.book.figures.load_figures`,
    with ``code`` = the drawing function then the measuring ones), and for a chapter that registered
    none, its hand-typed captions with the section they are in."""
    from lib.book.figures import load_figures
    out = []
    for chapter in chapters:
        registered = load_figures([chapter], results)
        if registered:
            out.extend(dict(f, section=None, code=[f["drawn_by"], *f["data_from"]]) for f in registered)
            continue
        src = chapter_source(root, chapter)
        if src is None:
            continue
        section = None
        for text in markdown_cells(src):
            heads = [h.source for h in chapter_headings_from_text(text)]
            if heads:
                section = heads[-1]
            for m in _CAPTION.finditer(text):
                out.append(dict(chapter=chapter, figure=m.group("num"), section=section,
                                caption=" ".join(m.group("text").split()),
                                code=caption_code(m.group("text"))))
    return out


def _api_role(name: str, documented: set[str]) -> str:
    """``{py:obj}`` role for a documented lib object or module, plain code otherwise."""
    import importlib
    mod, _, attr = name.rpartition(".")
    if name in documented:
        return f"{{py:mod}}`{name}`"
    if mod in documented:
        try:
            obj = getattr(importlib.import_module(mod), attr)
        except (ImportError, AttributeError):
            return f"`{name}`"
        public = getattr(importlib.import_module(mod), "__all__", None)
        if (public is None and getattr(obj, "__module__", None) == mod and not attr.startswith("_")) or \
                (public is not None and attr in public):
            return f"{{py:obj}}`{name}`"
    return f"`{name}`"


def figure_table(figures: list[dict], root: Path, from_doc: Path, documented: set[str]) -> str:
    """The figure index as a list-table: figure, where it is, code that drew it (API links)."""
    body = []
    for f in figures:
        code = ", ".join(_api_role(n, documented) for n in f["code"]) or "(no lib function named)"
        where = section_link(root, from_doc, f["chapter"], f["section"])
        if f.get("label"):
            where += f", {{ref}}`the figure <{f['label']}>`"
        body.append([f"Figure {f['figure']}", where, code])
    return list_table(["Figure", "Where (drawn by the cell above its caption)", "Code that drew it"],
                       body, [12, 48, 40], "figure-index-table")
