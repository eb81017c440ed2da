"""lib.site.pdf: the page order and bookmarks of the whole-book PDF (on a tiny fake built book),
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

from lib.site import pdf as P

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


def test_sections_and_figures_are_bookmarked_under_their_page():
    pages = [P.TocPage("r", Path("r.html"), "Root"),
             P.TocPage("a", Path("a.html"), "Chapter A", "Part 1", 1)]
    heads = [[], [P.PageHeading("1.1 Setup", 1, "sec-setup"), P.PageHeading("Figure 1.1. Curves (Eq. 7) at depth 3. More.", 0, "fig-a"),
                  P.PageHeading("A detail", 3, "sec-detail"), P.PageHeading("1.2 Next", 1, "sec-next")]]
    assert P.outline_entries(pages, heads) == [
        P.OutlineEntry("Root", 0, 0),
        P.OutlineEntry("Part 1", 1, 0), P.OutlineEntry("Chapter A", 1, 1),
        P.OutlineEntry("1.1 Setup", 1, 2, "sec-setup"),
        P.OutlineEntry("Figure 1.1: Curves (Eq. 7) at depth 3", 1, 3, "fig-a"),  # a figure: under its section
        P.OutlineEntry("A detail", 1, 3, "sec-detail"),                           # a skipped level closes up
        P.OutlineEntry("1.2 Next", 1, 2, "sec-next")]
    assert P.outline_entries(pages) == P.outline_entries(pages, [[], []])


def test_the_metadata_are_the_books_title_and_author(tmp_path):
    (tmp_path / "_config.yml").write_text('title: "A  Book"\nauthor: The team\n')
    info = P.book_metadata(tmp_path / "_config.yml")
    assert info["/Title"] == "A Book" and info["/Author"] == "The team"
    assert "/Title" not in P.book_metadata(tmp_path / "missing.yml")
    assert P.book_metadata(ROOT / "_config.yml")["/Title"] == yaml.safe_load((ROOT / "_config.yml").read_text())["title"]


def _fake_print(monkeypatch):
    """``build_pdf`` with Chromium replaced by one blank page per book page; the pages it was asked for."""
    pypdf = pytest.importorskip("pypdf")
    asked: list = []

    def fake(pages, html_dir, **kw):
        asked.extend(p.docname for p in pages)
        blank = []
        for _ in pages:
            w = pypdf.PdfWriter()
            w.add_blank_page(595, 842)
            buf = io.BytesIO()
            w.write(buf)
            blank.append(buf.getvalue())
        return blank, None, [], [[P.PageHeading("A section", 1, "sec-a")] for _ in pages]

    monkeypatch.setattr(P, "_print_pages", fake)
    return asked


def test_the_book_leaves_out_the_api_reference_unless_asked(tmp_path, monkeypatch):
    html = _fake_book(tmp_path)
    (html / "_executed/book/api.html").write_text(_page("API reference"))
    toc = yaml.safe_load((tmp_path / "_toc.yml").read_text())
    toc["parts"].append({"caption": "Back matter", "chapters": [{"file": "_executed/book/api"}]})
    (tmp_path / "_toc.yml").write_text(yaml.safe_dump(toc))
    (tmp_path / "_config.yml").write_text("title: The Book\nauthor: Us\n")
    asked = _fake_print(monkeypatch)
    out = P.build_pdf(html, tmp_path / "book.pdf", progress=False)
    assert "_executed/book/api" not in asked and len(asked) == 5
    pypdf = pytest.importorskip("pypdf")
    r = pypdf.PdfReader(out)
    assert r.metadata.title == "The Book" and r.metadata.author == "Us"
    titles = [o.title for o in r.outline if not isinstance(o, list)]
    assert "API reference" not in titles and "Back matter" not in titles
    assert any(isinstance(o, list) and any(getattr(x, "title", "") == "A section" for x in o) for o in r.outline)
    asked.clear()
    P.build_pdf(html, tmp_path / "all.pdf", exclude=(), progress=False)
    assert asked[-1] == "_executed/book/api"
    asked.clear()
    r = pypdf.PdfReader(P.build_pdf(html, tmp_path / "api.pdf", only=P.API_PAGES, progress=False))
    assert asked == ["_executed/book/api"] and r.outline[0].title == "API reference"


def test_the_cli_writes_the_book_and_on_request_the_api_reference_apart(tmp_path, monkeypatch, capsys):
    html = _fake_book(tmp_path)
    (html / "_executed/book/api.html").write_text(_page("API reference"))
    toc = yaml.safe_load((tmp_path / "_toc.yml").read_text())
    toc["parts"][-1]["chapters"].insert(0, {"file": "_executed/book/api"})
    (tmp_path / "_toc.yml").write_text(yaml.safe_dump(toc))
    asked = _fake_print(monkeypatch)
    assert P.main(["--html", str(html), "--out", str(tmp_path / "b.pdf"), "--api-out", str(tmp_path / "a.pdf"),
                   "--quiet"]) == 0
    assert asked.count("_executed/book/api") == 1 and asked[-1] == "_executed/book/api"
    err = capsys.readouterr().err
    assert f"wrote {tmp_path / 'b.pdf'} (5 pages, " in err and f"wrote {tmp_path / 'a.pdf'} (1 pages, " in err
    asked.clear()
    assert P.main(["--html", str(html), "--out", str(tmp_path / "c.pdf"), "--with-api", "--quiet"]) == 0
    assert "_executed/book/api" in asked


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
    return subprocess.run([sys.executable, "-m", "lib.site.pdf", "--quiet", *args], cwd=ROOT, capture_output=True,
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


def _code_page(html: Path) -> None:
    """One page whose code frame (a notebook cell's input) starts near the bottom of the first printed page,
    under two sections and a figure."""
    code = "\n".join(f"line_{k} = {k}" for k in range(12))
    (html / "index.html").write_text(_page(
        "Code page",
        "<section id='sec-one'><h2>1.1 First section<a class='headerlink' href='#sec-one'>#</a></h2>"
        "<p id='fig-curves'>[figure]</p><p><em>Figure 1.1. Curves (Eq. 7) at depth 3. Drawn by f.</em></p>"
        "<p style='margin-top:950px'>above the code</p>"
        "<div class='cell_input docutils container' style='border:1px solid #888; padding:6px'>"
        f"<div class='highlight'><pre>{code}</pre></div></div></section>"
        "<section id='sec-two'><h2>1.2 Second section</h2><p>after</p></section>"))
    (html.parent.parent / "_toc.yml").write_text(yaml.safe_dump({"format": "jb-book", "root": "index"}))


def test_a_code_frame_moves_whole_to_the_next_page_and_sections_are_bookmarked(tmp_path):
    """A code frame that would straddle a page break starts on the next page (it was split, an empty frame
    left at the bottom of the page); sections and figures get bookmarks at their place; title metadata.
    Counterfactual: without the print rule the same frame is split across the break."""
    _need_browser()
    pypdf = pytest.importorskip("pypdf")
    html = tmp_path / "book" / "_build" / "html"
    html.mkdir(parents=True)
    _code_page(html)
    (tmp_path / "book" / "_config.yml").write_text("title: Code book\nauthor: Us\n")
    r = pypdf.PdfReader(P.build_pdf(html, tmp_path / "book.pdf", progress=False))
    pages = [p.extract_text() for p in r.pages]
    assert "above the code" in pages[0] and "line_0" not in pages[0] and "line_0 = 0" in pages[1]
    assert r.metadata.title == "Code book" and r.metadata.author == "Us"
    (top, children) = r.outline
    assert top.title == "Code page"
    marks = [(o.title, r.get_destination_page_number(o)) for o in children if not isinstance(o, list)]
    assert marks == [("1.1 First section", 0), ("1.2 Second section", 1)]
    assert [o.title for o in children[1]] == ["Figure 1.1: Curves (Eq. 7) at depth 3"]


def test_without_the_print_rule_the_code_frame_splits(tmp_path, monkeypatch):
    _need_browser()
    pypdf = pytest.importorskip("pypdf")
    html = tmp_path / "book" / "_build" / "html"
    html.mkdir(parents=True)
    _code_page(html)
    monkeypatch.setattr(P, "PRINT_CSS", P.PRINT_CSS.replace("div.cell_input, div.highlight { break-inside: avoid; }", ""))
    r = pypdf.PdfReader(P.build_pdf(html, tmp_path / "book.pdf", progress=False))
    first, second = (p.extract_text() for p in r.pages[:2])
    assert "line_0" in first and "line_11" in second  # the frame starts on the first page and runs on
