"""The figure index of the reproducibility report (lib.book.figure_index): captions, their sections and the
code they name, on a tiny book."""
from __future__ import annotations

from lib.book.figure_index import caption_code, figure_index, figure_table


def test_figure_index_finds_captions_sections_and_code(tmp_path, tiny_book):
    root = tiny_book(tmp_path)
    figs = figure_index(root, ["09_demo", "10_absent"])
    assert [f["figure"] for f in figs] == ["9.1", "9.2"]
    assert figs[0]["section"] == "Deep `code` heading"
    assert figs[0]["code"] == ["lib.book.figure_index.figure_index", "lib.nope.x"]
    assert figs[1]["code"] == ["lib.book.pages.md_escape", "lib.book.pages.section_link"]  # bare name resolved


def test_caption_code_drops_bare_names_it_cannot_resolve():
    assert caption_code("from `lib.book.report.badge`, `no_such_function` and `x + 1`") == ["lib.book.report.badge"]


def test_figure_table_links_documented_public_code_only(tmp_path, tiny_book):
    root = tiny_book(tmp_path)
    figs = figure_index(root, ["09_demo"])
    table = figure_table(figs, root, root / "_executed" / "book" / "report.ipynb",
                         {"lib.book.figure_index", "lib.book.pages"})
    assert "{py:obj}`lib.book.figure_index.figure_index`" in table and "`lib.nope.x`" in table
    assert "{py:obj}`lib.book.pages.section_link`" in table and "Figure 9.2" in table
    assert "](../notebooks/09_demo.ipynb#deep-code-heading)" not in table  # a level-4 heading has no anchor
    assert "[9. Demo chapter](../notebooks/09_demo.ipynb)" in table
