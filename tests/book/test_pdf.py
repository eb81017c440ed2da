"""lib.book.pdf: the page order and bookmarks of the whole-book PDF (on a tiny fake built book),
the merge (on blank PDFs), the one-line errors of the CLI, and one real print of small local pages
with headless Chromium (skipped without Chromium or playwright, unless ``REQUIRE_BROWSER=1``, as in
tests/e2e/test_browser.py)."""
from __future__ import annotations

import importlib.util
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from lib.book import pdf as P

ROOT = Path(__file__).resolve().parents[2]


def _page(title: str, body: str = "", head: str = "") -> str:
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title} &#8212; The Book</title>{head}"
            f"</head><body><article class='bd-article'><h1>{title}<a class='headerlink' href='#t'>#</a></h1>"
            f"{body}</article></body></html>")


def _fake_book(root: Path) -> Path:
    """A built book laid out as ``make book`` leaves it: root/_toc.yml and root/_build/html."""
    toc = {"format": "jb-book", "root": "_executed/book/intro",
           "parts": [{"caption": "Background", "chapters": [{"file": "_executed/book/formulas"}]},
                     {"caption": "Chapters", "chapters": [
                         {"file": "_executed/notebooks/01_a", "sections": [{"file": "_executed/notebooks/01_b"}]},
                         {"file": "_executed/notebooks/02_c"},
                         {"url": "https://example.invalid", "title": "not a page"}]}]}
    (root / "_toc.yml").write_text(yaml.safe_dump(toc))
    html = root / "_build" / "html"
    for d in ("_executed/book", "_executed/notebooks"):
        (html / d).mkdir(parents=True)
    (html / "index.html").write_text("<meta http-equiv='refresh' content='0; url=_executed/book/intro.html'>")
    (html / "_executed/book/intro.html").write_text(_page("The Book"))
    (html / "_executed/book/formulas.html").write_text(_page("Notation &amp; formulas"))
    (html / "_executed/notebooks/01_a.html").write_text(_page("1. Chapter A"))
    (html / "_executed/notebooks/01_b.html").write_text(
        "<html><head><title>Section B &#8212; The Book</title></head><body><p>no heading</p></body></html>")
    (html / "_executed/notebooks/02_c.html").write_text("<html><body><p>no title at all</p></body></html>")
    return html


def test_toc_pages_follow_the_toc_with_titles_parts_and_levels(tmp_path):
    html = _fake_book(tmp_path)
    pages = P.toc_pages(tmp_path / "_toc.yml", html)
    assert [p.docname for p in pages] == ["_executed/book/intro", "_executed/book/formulas", "_executed/notebooks/01_a",
                                          "_executed/notebooks/01_b", "_executed/notebooks/02_c"]
    # the <h1> without its permalink sign, else <title> without the book's name, else the file name
    assert [p.title for p in pages] == ["The Book", "Notation & formulas", "1. Chapter A", "Section B", "02_c"]
    assert [p.part for p in pages] == [None, "Background", "Chapters", "Chapters", "Chapters"]
    assert [p.level for p in pages] == [0, 1, 1, 2, 1]
    assert pages[2].html == html / "_executed/notebooks/01_a.html"


def test_outline_has_one_entry_per_page_under_its_part():
    pages = [P.TocPage("r", Path("r.html"), "Root"),
             P.TocPage("a", Path("a.html"), "A", "Part 1", 1),
             P.TocPage("a1", Path("a1.html"), "A.1", "Part 1", 2),
             P.TocPage("b", Path("b.html"), "B", "Part 1", 1),
             P.TocPage("c", Path("c.html"), "C", "Part 2", 1)]
    assert P.outline_entries(pages) == [
        P.OutlineEntry("Root", 0, 0),
        P.OutlineEntry("Part 1", 1, 0), P.OutlineEntry("A", 1, 1), P.OutlineEntry("A.1", 2, 2),
        P.OutlineEntry("B", 3, 1),
        P.OutlineEntry("Part 2", 4, 0), P.OutlineEntry("C", 4, 1)]
    flat = [P.TocPage("x", Path("x.html"), "X"), P.TocPage("y", Path("y.html"), "Y")]
    assert P.outline_entries(flat) == [P.OutlineEntry("X", 0, 0), P.OutlineEntry("Y", 1, 0)]


def test_a_page_the_toc_lists_but_the_build_lacks_is_an_error(tmp_path):
    html = _fake_book(tmp_path)
    (html / "_executed/notebooks/02_c.html").unlink()
    with pytest.raises(P.PdfBuildError, match="02_c.html is missing.*run make book first"):
        P.toc_pages(tmp_path / "_toc.yml", html)


def test_merge_nests_the_bookmarks_and_starts_each_page_on_its_own(tmp_path):
    pypdf = pytest.importorskip("pypdf")

    def blank(n: int) -> bytes:
        w = pypdf.PdfWriter()
        for _ in range(n):
            w.add_blank_page(595, 842)
        buf = io.BytesIO()
        w.write(buf)
        return buf.getvalue()

    html = _fake_book(tmp_path)
    pages = P.toc_pages(tmp_path / "_toc.yml", html)
    out = P.merge_pdfs([blank(1), blank(2), blank(3), blank(1), blank(1)], pages, tmp_path / "out" / "book.pdf")
    r = pypdf.PdfReader(out)
    assert len(r.pages) == 8

    def walk(items, depth=0):
        for it in items:
            if isinstance(it, list):
                yield from walk(it, depth + 1)
            else:
                yield depth, it.title, r.get_destination_page_number(it)

    assert list(walk(r.outline)) == [
        (0, "The Book", 0), (0, "Background", 1), (1, "Notation & formulas", 1),
        (0, "Chapters", 3), (1, "1. Chapter A", 3), (2, "Section B", 6), (1, "02_c", 7)]
    assert not (tmp_path / "out" / "book.pdf.part").exists()


def _cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lib.book.pdf", "--quiet", *args], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}, timeout=120)


def test_cli_without_a_built_book_says_so_in_one_line(tmp_path):
    r = _cli("--html", str(tmp_path / "_build" / "html"), "--out", str(tmp_path / "b.pdf"))
    assert r.returncode == 1
    assert r.stderr.strip().splitlines() == [f"error: no built book in {tmp_path / '_build' / 'html'} "
                                             "(run make book first)"]
    assert not (tmp_path / "b.pdf").exists()


def test_cli_without_chromium_says_so_in_one_line(tmp_path):
    html = _fake_book(tmp_path)
    r = _cli("--html", str(html), "--out", str(tmp_path / "b.pdf"), env={"CHROMIUM": str(tmp_path / "no-chromium")})
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: no Chromium found"), r.stderr
    assert "Traceback" not in r.stderr


# ---------------------------------------------------------------- a real print with Chromium

def _need_browser() -> None:
    reason = None
    if importlib.util.find_spec("playwright") is None:
        reason = "the Python package playwright is not installed (pip install playwright)"
    elif P.chromium_path() is None:
        reason = "no Chromium found (apt-get install -y chromium, or set CHROMIUM=/path)"
    if reason:
        if os.environ.get("REQUIRE_BROWSER") == "1":
            pytest.fail(f"REQUIRE_BROWSER=1 but {reason}")
        pytest.skip(reason)


def _mathjax_dir() -> Path | None:
    """The offline MathJax the book uses (the sphinx-mathjax-offline package), if installed."""
    spec = importlib.util.find_spec("sphinx-mathjax-offline")
    if spec is None or not spec.submodule_search_locations:
        return None
    d = Path(list(spec.submodule_search_locations)[0]) / "static" / "mathjax"
    return d if (d / "tex-chtml.js").is_file() else None


def test_two_pages_printed_by_chromium_merge_with_bookmarks_text_math_and_links(tmp_path):
    _need_browser()
    pypdf = pytest.importorskip("pypdf")
    root = tmp_path / "book"
    html = root / "_build" / "html"
    (html / "_static").mkdir(parents=True)
    mathjax = _mathjax_dir()
    head, math = "", ""
    if mathjax is not None:
        (html / "_static" / "mathjax").symlink_to(mathjax)
        head = ("<script>window.MathJax = {options: {processHtmlClass: 'math'}}</script>"
                "<script defer src='_static/mathjax/tex-chtml.js'></script>")
        math = "<p><span class='math notranslate nohighlight'>\\(\\kappa_0 = x^2\\)</span></p>"
    sidebar = "<nav class='bd-sidebar-primary'>SIDEBAR-NAVIGATION</nav>"
    (html / "index.html").write_text(_page(
        "First page", sidebar + "<p>alpha bravo charlie</p>" + math
        + "<p style='margin-top:1500px' id='far'>golf</p>", head))  # golf: on the second PDF page
    (html / "second.html").write_text(_page(
        "Second page", "<p>delta echo foxtrot</p><p><a href='index.html'>back to the first</a> "
                       "<a href='index.html#far'>to golf</a> <a href='https://example.org/'>outside</a></p>"))
    (root / "_toc.yml").write_text(yaml.safe_dump({"format": "jb-book", "root": "index",
                                                   "chapters": [{"file": "second"}]}))
    out = P.build_pdf(html, tmp_path / "pdf" / "book.pdf", progress=False)
    r = pypdf.PdfReader(out)
    assert [o.title for o in r.outline] == ["First page", "Second page"]
    assert len(r.pages) == 3
    assert [r.get_destination_page_number(o) for o in r.outline] == [0, 2]
    text = "\n".join(p.extract_text() for p in r.pages)
    for word in ("alpha bravo charlie", "delta echo foxtrot", "golf"):
        assert word in text
    assert "SIDEBAR-NAVIGATION" not in text  # the print stylesheet hides the theme's navigation
    # links: to a page of the book -> inside the PDF; to the web -> kept; none to the dead local server
    actions = [a.get_object().get("/A") for p in r.pages for a in (p.get("/Annots") or [])]
    actions = [a.get_object() for a in actions if a is not None]
    uris = [str(a["/URI"]) for a in actions if a.get("/S") == "/URI"]
    assert uris == ["https://example.org/"]
    gotos = [a["/D"] for a in actions if a.get("/S") == "/GoTo"]
    assert len(gotos) == 2
    page_of = {p.indirect_reference.idnum: i for i, p in enumerate(r.pages)}
    targets = sorted((page_of[d[0].idnum], str(d[1])) for d in gotos)
    assert targets == [(0, "/Fit"), (1, "/XYZ")]  # the first page, whole; #far where it is
    if mathjax is not None:  # typeset by MathJax (build_pdf raises otherwise): no raw TeX in the text
        assert "\\kappa" not in text


def test_math_that_mathjax_cannot_typeset_is_an_error(tmp_path):
    _need_browser()
    html = tmp_path / "_build" / "html"
    html.mkdir(parents=True)
    (html / "index.html").write_text(_page("Math", "<span class='math'>\\(x\\)</span>"))
    (tmp_path / "_toc.yml").write_text(yaml.safe_dump({"format": "jb-book", "root": "index"}))
    with pytest.raises(P.PdfBuildError, match="math element.*MathJax did not load"):
        P.build_pdf(html, tmp_path / "book.pdf", progress=False)
    assert not (tmp_path / "book.pdf").exists()
