"""The book's PDF as ``make pdf`` prints it from the smoke-profile book (fixture ``smoke_book``): the book
without its API reference, at most :data:`MAX_BOOK_PDF_PAGES` pages, bookmarks for sections, title and author.

Apart from tests/e2e/test_browser.py because :func:`lib.site.pdf.build_pdf` drives its own Playwright session,
which cannot run inside that module's open browser. Needs Chromium and playwright, as there.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import require_chromium

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def chromium() -> str:
    """The Chromium build_pdf drives (its own Playwright session), or skipped/failed as every browser test."""
    return require_chromium()


#: the most pages the book's PDF (without the API reference) may have
MAX_BOOK_PDF_PAGES = 250


def book_pdf_problems(pdf: Path) -> list[str]:
    """What is wrong with the book's PDF (empty when nothing): more than :data:`MAX_BOOK_PDF_PAGES` pages,
    the API reference inside, no bookmark for a section (below a page), no title or author."""
    import pypdf
    r = pypdf.PdfReader(pdf)

    def walk(items, depth=0):
        for it in items:
            yield from walk(it, depth + 1) if isinstance(it, list) else [(depth, it.title)]

    marks = list(walk(r.outline))
    problems = []
    if len(r.pages) > MAX_BOOK_PDF_PAGES:
        problems.append(f"{len(r.pages)} pages, more than {MAX_BOOK_PDF_PAGES}")
    if any(t.startswith("API reference") for _, t in marks):
        problems.append("the API reference is in the book's PDF")
    if not any(d >= 2 and not t.startswith("Figure") for d, t in marks):
        problems.append("no section bookmarks")
    if not (r.metadata and r.metadata.title and r.metadata.author):
        problems.append("no title and author")
    return problems


def test_make_pdf_gives_the_book_without_the_api_reference(chromium, html_dir, tmp_path):
    from lib.site.pdf import build_pdf
    problems = book_pdf_problems(build_pdf(html_dir, tmp_path / "book.pdf", progress=False))
    assert not problems, problems


def test_the_pdf_check_catches_the_api_reference_a_flat_outline_and_no_title(chromium, tmp_path):
    """Counterfactual: a book printed with its API reference, pages without sections and no _config.yml."""
    import yaml
    from lib.site.pdf import build_pdf
    html = tmp_path / "_build" / "html"
    html.mkdir(parents=True)
    for name, title in (("index", "The book"), ("api", "API reference: the lib package")):
        (html / f"{name}.html").write_text(f"<html><head><title>{title}</title></head><body><article class="
                                           f"'bd-article'><h1>{title}</h1><p>text</p></article></body></html>")
    (tmp_path / "_toc.yml").write_text(yaml.safe_dump({"format": "jb-book", "root": "index",
                                                       "chapters": [{"file": "api"}]}))
    problems = book_pdf_problems(build_pdf(html, tmp_path / "book.pdf", exclude=(), progress=False))
    assert problems == ["the API reference is in the book's PDF", "no section bookmarks", "no title and author"]
