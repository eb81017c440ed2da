"""The figure index of the reproducibility report (lib.site.figure_index): the figures the chapters
registered when they drew them, and the code that drew and measured them."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from lib.site.figure_index import figure_index, figure_table  # noqa: E402
from lib.book.figures import Figures  # noqa: E402
from lib.site.pages import md_escape, section_link  # noqa: E402


def _register(tmp_path, monkeypatch):
    monkeypatch.setenv("NTK_RESULTS_DIR", str(tmp_path / "results"))
    figs = Figures("09_demo", display=False)
    figs.show(plt.figure(), "fig-one", "One.", drawn_by=figure_index, data_from=[md_escape])
    figs.show(plt.figure(), "fig-two", "Two.", drawn_by=section_link)


def test_figure_index_lists_the_registered_figures_with_their_code(tmp_path, monkeypatch):
    _register(tmp_path, monkeypatch)
    figs = figure_index(["09_demo", "10_absent"])
    assert [f["figure"] for f in figs] == ["9.1", "9.2"] and [f["label"] for f in figs] == ["fig-one", "fig-two"]
    assert figs[0]["code"] == ["lib.site.figure_index.figure_index", "lib.site.pages.md_escape"]
    assert figs[1]["code"] == ["lib.site.pages.section_link"]


def test_figure_table_links_each_figure_and_documented_public_code_only(tmp_path, monkeypatch, tiny_book):
    root = tiny_book(tmp_path)
    _register(tmp_path, monkeypatch)
    table = figure_table(figure_index(["09_demo"]), root, root / "_executed" / "book" / "report.ipynb",
                         {"lib.site.figure_index"})
    assert "{ref}`Figure 9.1 <fig-one>`" in table and "{ref}`Figure 9.2 <fig-two>`" in table
    assert "{py:obj}`lib.site.figure_index.figure_index`" in table and "`lib.site.pages.md_escape`" in table
    assert "{py:obj}`lib.site.pages.md_escape`" not in table  # its module is not documented in this call
    assert "[9. Demo chapter](../notebooks/09_demo.ipynb)" in table


def test_a_function_named_by_its_chapter_package_links_to_the_module_that_documents_it():
    """The figures name their code by the chapter package (``lib.chapters.infinite_depth.plot_collapse``); the API page
    documents it once, in its own module: the link goes there, the text keeps the name the figure gave."""
    from lib.site.figure_index import _api_role
    from lib.site.sphinxext import public_modules
    found = set(public_modules())
    role = _api_role("lib.chapters.infinite_depth.plot_collapse", found)
    assert role == ("{py:obj}`lib.chapters.infinite_depth.plot_collapse "
                    "<lib.chapters.infinite_depth.collapse.plot_collapse>`")
    assert _api_role("lib.chapters.infinite_depth.collapse.plot_collapse", found) == \
        "{py:obj}`lib.chapters.infinite_depth.collapse.plot_collapse`"
    assert _api_role("lib.chapters.infinite_depth.no_such_thing", found) == "`lib.chapters.infinite_depth.no_such_thing`"
    assert _api_role("lib.chapters.infinite_depth.plot_collapse", found - {"lib.chapters.infinite_depth"}) == \
        "`lib.chapters.infinite_depth.plot_collapse`"
