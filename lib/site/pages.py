"""Find the book's pages and their headings, and build links to chapter sections that cannot break the build.

The book is built from the executed copies of the pages (``_executed/``, see :mod:`lib.site.pipeline`),
in the order of ``_toc.yml``; a page is found there by its stem. Links to chapter sections use the
heading slugs MyST computes (``myst_heading_anchors`` in ``_config.yml``); a link gets an anchor only
when the heading really exists in the chapter, so a renamed section degrades to a link to the chapter
page instead of breaking the build. Used by the reproducibility report (:mod:`lib.site.report`) and the
figure index (:mod:`lib.site.figure_index`).
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Heading", "HEADING_ANCHOR_LEVEL", "toc_documents", "page_path", "chapter_source", "chapter_headings",
           "chapter_headings_from_text", "find_section", "section_link", "chapter_links", "short_chapter_link", "md_escape",
           "markdown_cells"]

#: must equal ``myst_heading_anchors`` in ``_config.yml`` (a test checks it)
HEADING_ANCHOR_LEVEL = 3


@dataclass(frozen=True)
class Heading:
    """A Markdown heading of a chapter: level, source text (with math), text-only slug, and the MyST
    target label written above it (``(sec-prop41)=``), if any."""

    level: int
    source: str
    slug: str | None
    label: str | None = None



def toc_documents(root: Path) -> set[str]:
    """Every document named in ``_toc.yml`` (``root`` and each ``file``), without extension."""
    import yaml
    path = Path(root) / "_toc.yml"
    if not path.exists():
        return set()
    out: set[str] = set()

    def walk(node):
        if isinstance(node, dict):
            for key in ("root", "file"):
                if isinstance(node.get(key), str):
                    out.add(str(Path(node[key]).with_suffix("")) if Path(node[key]).suffix in
                            (".md", ".ipynb") else node[key])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(yaml.safe_load(path.read_text()) or {})
    return out


def page_path(root: Path, stem: str, folders: tuple[str, ...] = ("notebooks", "book")) -> Path | None:
    """Where the book reads the page ``stem`` from, per ``_toc.yml``, whether or not it exists yet.

    The book is built from the executed copies in ``_executed/`` (:mod:`lib.site.pipeline`), so the
    table of contents names e.g. ``_executed/notebooks/01_linear_baseline``; a page is found by
    its stem and its folder (``notebooks`` or ``book``), wherever that folder is.

    Args:
        root: the repository root (where ``_toc.yml`` is).
        stem: the page's file name without extension, e.g. ``"01_linear_baseline"``.
        folders: the folders a page may be in, in order of preference.

    Returns:
        The ``.ipynb`` path of the page (its ``.md`` when only that exists), or None when
        ``_toc.yml`` does not list it.
    """
    docs = sorted(toc_documents(root))
    for folder in folders:
        for doc in docs:
            d = Path(doc)
            if d.name == stem and d.parent.name == folder:
                md = Path(root) / f"{doc}.md"
                return md if md.exists() and not (Path(root) / f"{doc}.ipynb").exists() \
                    else Path(root) / f"{doc}.ipynb"
    return None


def chapter_source(root: Path, chapter: str) -> Path | None:
    """The page file of ``chapter`` (a notebook stem) if the book builds it (``_toc.yml`` lists
    it, see :func:`page_path`) and it exists: a link to any other file would break the build."""
    p = page_path(root, chapter)
    return p if p is not None and p.exists() else None


def markdown_cells(path: Path) -> list[str]:
    """The Markdown cells of a notebook (``.ipynb`` or jupytext ``.py``), or a Markdown page's text."""
    if path.suffix == ".ipynb":
        nb = json.loads(path.read_text())
        return ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
                for c in nb["cells"] if c["cell_type"] == "markdown"]
    if path.suffix == ".py":
        import jupytext
        return [c.source for c in jupytext.read(path).cells if c.cell_type == "markdown"]
    return [path.read_text()]


def _md_parser():
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser
    cfg = MdParserConfig(enable_extensions={"dollarmath", "amsmath", "colon_fence", "deflist"})
    return create_md_parser(cfg, RendererHTML)


def chapter_headings(path: Path, anchor_level: int = HEADING_ANCHOR_LEVEL) -> list[Heading]:
    """Every heading of a notebook or Markdown page, with the slug MyST gives it.

    Mirrors ``myst_parser``'s ``compute_unique_slug``: the slug is made from the plain text and
    inline code of the heading (math is dropped), GitHub style, made unique across the page in
    order; headings deeper than ``anchor_level`` get no slug.
    """
    from myst_parser.mdit_to_docutils.base import default_slugify
    md = _md_parser()
    out: list[Heading] = []
    seen: set[str] = set()
    for text in markdown_cells(Path(path)):
        tokens = md.parse(text)
        for i, tok in enumerate(tokens):
            if tok.type != "heading_open":
                continue
            inline = tokens[i + 1]
            level = int(tok.tag[1:])
            slug = None
            if level <= anchor_level:
                title = "".join(c.content for c in (inline.children or []) if c.type in ("text", "code_inline"))
                slug = base = default_slugify(title)
                k = 1
                while slug in seen:
                    slug = f"{base}-{k}"
                    k += 1
                seen.add(slug)
            label = tokens[i - 1].content if i > 0 and tokens[i - 1].type == "myst_target" else None
            out.append(Heading(level, inline.content, slug, label))
    return out


def chapter_headings_from_text(text: str) -> list[Heading]:
    """Every heading of one Markdown text, in order, without slugs (see :func:`chapter_headings`)."""
    md = _md_parser()
    tokens = md.parse(text)
    return [Heading(int(t.tag[1:]), tokens[i + 1].content, None)
            for i, t in enumerate(tokens) if t.type == "heading_open"]


def _plain(s: str) -> str:
    return " ".join(s.replace("*", "").split()).strip().lower()


def find_section(headings: list[Heading], section: str | None) -> Heading | None:
    """The heading ``section`` names: its MyST label (``sec-...``, how a :class:`lib.book.results.Recorder`
    names sections), else its exact text, else the first heading it begins."""
    if not section:
        return None
    for h in headings:
        if h.label is not None and h.label == section:
            return h
    want = _plain(section)
    for h in headings:
        if _plain(h.source) == want:
            return h
    for h in headings:
        if h.level > 1 and _plain(h.source).startswith(want):
            return h
    return None


def section_link(root: Path, from_doc: Path, chapter: str, section: str | None) -> str:
    """Markdown for "chapter title, section" with a link that cannot break the build.

    ``from_doc`` is the page the link appears on. The link points at the section's anchor when
    the heading exists, at the chapter page when it does not, and is plain text when the
    chapter page itself is missing.
    """
    return chapter_links(root, from_doc, chapter, [section])


def chapter_links(root: Path, from_doc: Path, chapter: str, sections: list[str | None]) -> str:
    """``[chapter title](page), [§ section](page#anchor), ...`` for several sections of one
    chapter (see :func:`section_link`); duplicates are dropped."""
    sections = list(dict.fromkeys(s for s in sections if s))
    src = chapter_source(root, chapter)
    if src is None:
        return ", ".join([md_escape(chapter)] + [md_escape(s) for s in sections])
    heads = chapter_headings(src)
    title = next((h.source for h in heads if h.level == 1), chapter)
    rel = os.path.relpath(src, Path(from_doc).parent).replace(os.sep, "/")
    out = [f"[{_link_text(title)}]({rel})"]
    for section in sections:
        h = find_section(heads, section)
        shown = h.source if h is not None and h.label == section else section
        if h is not None and h.slug:
            out.append(f"[§ {_link_text(shown)}]({rel}#{h.slug})")
        else:
            out.append(f"§ {md_escape(shown)}")
    return ", ".join(out)


def short_chapter_link(root: Path, from_doc: Path, chapter: str, section: str | None) -> str:
    """``[Ch. N §](page#anchor)``: a compact link to a chapter's section for narrow table columns (the
    section's anchor when the heading exists, else the chapter page; plain text when the page is missing)."""
    number = int(chapter[:2]) if chapter[:2].isdigit() else None
    text = f"Ch. {number}" if number is not None else md_escape(chapter)
    src = chapter_source(root, chapter)
    if src is None:
        return text
    rel = os.path.relpath(src, Path(from_doc).parent).replace(os.sep, "/")
    h = find_section(chapter_headings(src), section) if section else None
    return f"[{text} §]({rel}#{h.slug})" if h is not None and h.slug else f"[{text}]({rel})"


def _link_text(s: str) -> str:
    return s.replace("[", "\\[").replace("]", "\\]")


def md_escape(s: str) -> str:
    """One line of text safe inside a MyST list-table cell (keeps ``$...$`` math)."""
    s = " ".join(str(s).split())
    pieces = re.split(r"(\$[^$]+\$)", s)  # odd indices are inline math, kept verbatim
    return "".join(p if i % 2 else re.sub(r"([\\`*_\[\]<>|{}#$])", r"\\\1", p)
                   for i, p in enumerate(pieces))
