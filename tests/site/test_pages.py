"""Finding the book's pages and headings, and links to chapter sections (lib.site.pages), on a tiny book."""
from __future__ import annotations

import json
from pathlib import Path

import yaml

from lib.site.pages import HEADING_ANCHOR_LEVEL, chapter_headings, md_escape, page_path, section_link

ROOT = Path(__file__).resolve().parents[2]


def myst_slugs(markdown: str) -> list[str]:
    """The slugs MyST itself gives the headings of ``markdown`` (an independent computation)."""
    from docutils.core import publish_doctree
    from myst_parser.parsers.docutils_ import Parser
    doc = publish_doctree(markdown, parser=Parser(), settings_overrides={
        "myst_heading_anchors": HEADING_ANCHOR_LEVEL, "myst_enable_extensions": ["dollarmath"],
        "report_level": 5})
    return list(doc.myst_slugs)


def test_heading_slugs_match_myst(tmp_path, tiny_book):
    root = tiny_book(tmp_path)
    src = root / "_executed" / "notebooks" / "09_demo.ipynb"
    text = "\n\n".join(c["source"] for c in json.loads(src.read_text())["cells"])
    ours = [h.slug for h in chapter_headings(src) if h.slug]
    assert ours == myst_slugs(text)
    assert "data-1" in ours  # duplicate headings get MyST's -1 suffix


def test_section_link_points_at_the_heading_anchor(tmp_path, tiny_book):
    root = tiny_book(tmp_path)
    from_doc = root / "_executed" / "book" / "report.ipynb"
    link = section_link(root, from_doc, "09_demo", "Claim A")
    src = root / "_executed" / "notebooks" / "09_demo.ipynb"
    slug = next(h.slug for h in chapter_headings(src) if h.source.startswith("Claim A"))
    assert f"](../notebooks/09_demo.ipynb#{slug})" in link and "[9. Demo chapter](../notebooks/09_demo.ipynb)" in link
    # a section that is not a heading: link to the chapter only, never a dangling anchor
    link = section_link(root, from_doc, "09_demo", "No such section")
    assert "#" not in link.split("§")[0] and "09_demo.ipynb)" in link and "No such section" in link


def test_pages_are_found_where_the_toc_puts_them(tmp_path, tiny_book):
    root = tiny_book(tmp_path)
    assert page_path(root, "09_demo") == root / "_executed" / "notebooks" / "09_demo.ipynb"
    # the report page: where the book reads it, even before papermill has written it
    assert page_path(root, "report") == root / "_executed" / "book" / "report.ipynb"
    assert page_path(root, "10_absent") is None


def test_the_real_toc_links_every_page_from_one_tree():
    """Chapters link ``../book/intro.md``: pages and executed notebooks must share one folder tree."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]] + [c["file"] for part in toc["parts"] for c in part["chapters"]]
    assert all(f.startswith("_executed/") for f in files), files
    assert "_executed/book/formulas" in files
    assert page_path(ROOT, "01_linear_baseline") == ROOT / "_executed" / "notebooks" / "01_linear_baseline.ipynb"


def test_chapter_outside_the_toc_or_missing_is_not_linked(tmp_path, tiny_book):
    root = tiny_book(tmp_path, in_toc=False)
    link = section_link(root, root / "_executed" / "book" / "report.ipynb", "09_demo", "Claim A")
    assert "](" not in link and "09" in link
    assert "](" not in section_link(root, root / "_executed" / "book" / "report.ipynb", "10_absent", None)

def test_anchor_level_matches_the_book_config():
    cfg = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert cfg["sphinx"]["config"]["myst_heading_anchors"] == HEADING_ANCHOR_LEVEL


def test_md_escape_keeps_math_and_neutralizes_markup():
    s = md_escape("||K||_F over $\\|x\\|_2$ and *x* [a](b)\n next")
    assert "$\\|x\\|_2$" in s and "\\|\\|K\\|\\|\\_F" in s and "\\*x\\*" in s and "\\[a\\]" in s
    assert "\n" not in s
