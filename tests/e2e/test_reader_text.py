"""The book's text as a reader sees it: every verdict lands on its section, every reason reads as a phrase, every
statement is whole, no Python word or ASCII formula in the prose, no development vocabulary on any page.

Runs over the HTML of the smoke-profile book (fixture ``smoke_book``) without a browser; with ``NTK_BUILT_BOOK`` set to
the root of a book already built (its ``_build/html`` and ``results/``), it reads that one instead, e.g. the default
build of main: ``NTK_BUILT_BOOK=/path/to/checkout pytest tests/e2e/test_reader_text.py`` (its verdicts from
``NTK_RESULTS_DIR`` when set, as the build read them). Each check is a function
over a page's HTML, shown failing on a counterfactual page first. The layout of the same pages is read in Chromium by
``test_browser.py``; the report's reasons follow :func:`lib.site.report.phrase_problems`.
"""
from __future__ import annotations

import html.parser
import json
import os
import re
from pathlib import Path

import pytest

from lib.book.results import SECTION_LABEL
from lib.book.tables import ASCII_POWER  # a power in ASCII ("(L+1)^2", "m^(-1/2)")
from lib.site.report import phrase_problems
from tests.e2e.conftest import ARTIFACTS

pytestmark = pytest.mark.slow

SKIP_DIRS = {"_static", "_sources", "_images", "_downloads", "_modules"}
#: pages that list code and docstrings: a Python ``True`` or a ``x^2`` in a signature belongs there
CODE_PAGES = {"api", "genindex", "py-modindex", "search"}
#: development vocabulary: the project's issue tracker and work rounds mean nothing to a reader
DEV_WORDS = re.compile(r"\b(?:issues?|round|PR)\s*#?\d+\b", re.I)
#: a Python boolean printed as the answer to a question ("converged: True", "all converged = True"): the book writes
#: yes or no (a keyword argument written as code, ``unit_norm=True``, is not an answer)
BOOL_ANSWER = re.compile(r"(?::\s*|\s=\s*)(?:True|False)\b")
#: pages that quote the terminal's messages as they are printed (a message keeps its ASCII: "|x|^2")
MESSAGE_PAGES = {"troubleshooting"}


# --------------------------------------------------------------------------- reading a page

class _Page(html.parser.HTMLParser):
    """A page's prose (outside code, scripts and math, which is kept as ``$...$``), its element ids, and the cells of
    its report tables (``table.report-table``: one list of cell texts per row, math kept as ``$...$``)."""

    VOID = {"br", "img", "hr", "meta", "link", "input", "wbr", "col", "source"}
    CODE = {"script", "style", "code", "pre", "textarea"}

    def __init__(self):
        super().__init__()
        self.stack: list[tuple[str, bool, bool]] = []  # (tag, code, math)
        self.prose: list[str] = []
        self.ids: set[str] = set()
        self.rows: list[list[str]] = []
        self.table_depth = 0
        self.cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        cls = (a.get("class") or "").split()
        if tag in self.VOID:
            return
        code = tag in self.CODE or "highlight" in cls
        math = "math" in cls
        if math:
            self._text("$")
        self.stack.append((tag, code, math))
        if tag == "table" and "report-table" in cls:
            self.table_depth = len(self.stack)
        if self.table_depth and tag == "tr":
            self.rows.append([])
        if self.table_depth and tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag):
        if tag in self.VOID or not self.stack:
            return
        if self.table_depth and tag in ("td", "th") and self.cell is not None and self.rows:
            self.rows[-1].append(" ".join("".join(self.cell).split()))
            self.cell = None
        if self.table_depth and tag == "table" and len(self.stack) == self.table_depth:
            self.table_depth = 0
        _, _, math = self.stack.pop()
        if math:
            self._text("$")

    def _text(self, data):
        self.prose.append(data)
        if self.cell is not None:
            self.cell.append(data)

    def handle_data(self, data):
        if any(code for _, code, _ in self.stack):
            return
        if any(math for _, _, math in self.stack):
            data = re.sub(r"^\\\(|\\\)$", "", data.strip())
        self._text(data)

    @property
    def text(self) -> str:
        return " ".join("".join(self.prose).split())


def read_page(page_html: str) -> _Page:
    p = _Page()
    p.feed(page_html)
    return p


def _prose_without_math(text: str) -> str:
    """The prose without its math: ``$...$`` (typeset spans) and MathJax's ``\\(...\\)`` (a table cell's math)."""
    return re.sub(r"\\\(.*?\\\)", " ", re.sub(r"\$[^$]*\$", " ", text))


# --------------------------------------------------------------------------- the checks, one per class

def text_problems(page_html: str, stem: str) -> list[str]:
    """Development vocabulary on any page; on a page of prose, a Python boolean as an answer, and a power written in
    ASCII (outside the pages quoting messages, :data:`MESSAGE_PAGES`; a chapter's tables included)."""
    p = read_page(page_html)
    everything = " ".join(re.sub(r"<[^>]+>", " ", re.sub(r"<(script|style)\b.*?</\1>", " ", page_html, flags=re.S))
                          .split())
    found = [f"development vocabulary: {everything[max(0, m.start() - 60): m.end() + 30]!r}"
             for m in DEV_WORDS.finditer(everything)]
    prose = _prose_without_math(p.text)
    if stem not in CODE_PAGES:
        found += [f"a Python boolean: {prose[max(0, m.start() - 60): m.end() + 10]!r}" for m in BOOL_ANSWER.finditer(prose)]
    if stem not in CODE_PAGES | MESSAGE_PAGES:
        found += [f"a power in ASCII: {prose[max(0, m.start() - 60): m.end() + 20]!r}"
                  for m in ASCII_POWER.finditer(prose)]
    return found


def report_problems(page_html: str) -> list[str]:
    """The report's table rows: a reason that does not read as a phrase (:func:`lib.site.report.phrase_problems`),
    two measured rows with the same reason, a statement cut at an abbreviation ("with i.i.d. …"), a "Checked in" link
    that names no section ("Ch. 4 §")."""
    p = read_page(page_html)
    rows = [r for r in p.rows if r and r[0] not in ("Claim", "Recorded claim, and where it is checked")]
    found, seen = [], {}
    for row in rows:
        claim = row[0]
        cid = re.match(r"(\S+ [^ ]+ [^ ]+|\S+)", claim).group(0)
        why = re.sub(r"^(reproduced with caveat|reproduced|not reproduced|inconclusive|not checked) ", "", row[1]) \
            if len(row) > 1 else ""
        found += [f"{cid}: reason {problem}" for problem in phrase_problems(why)]
        if len(row) > 2 and row[2]:
            if why in seen:
                found.append(f"{cid}: the same reason as {seen[why]}: {why!r}")
            seen.setdefault(why, cid)
            found += [f"{cid}: 'Checked in' names no section: {row[2]!r}" for _ in re.finditer(r"§(?:,|$)", row[2])]
        if re.search(r"\b(?:[A-Za-z]\.){2,}\s*…$|\b[A-Za-z]\.\s*…$", claim):
            found.append(f"{cid}: the statement stops at an abbreviation: {claim[-60:]!r}")
    return found


def section_problems(html_dir: Path, records: list[dict]) -> list[str]:
    """Every section label a verdict records (``with rec.section("sec-...")``) exists on its chapter's page, so that
    the report's link lands on it (a section rendered as a code cell of comments has no label)."""
    found, ids = [], {}
    for r in records:
        section, chapter = r.get("section"), r.get("chapter")
        if not section or not SECTION_LABEL.fullmatch(section):
            continue
        if chapter not in ids:
            page = next((p for p in _pages(html_dir) if p.name == f"{chapter}.html"), None)
            ids[chapter] = read_page(page.read_text(errors="replace")).ids if page else None
        if ids[chapter] is None:
            found.append(f"{r['claim_id']}: chapter page {chapter}.html is missing")
        elif section not in ids[chapter]:
            found.append(f"{r['claim_id']} ({r.get('part') or 'main'}): section {section!r} is not on {chapter}.html")
    return sorted(set(found))


# --------------------------------------------------------------------------- the checks fail on counterfactual pages

def _report_page(rows: list[tuple[str, str, str]]) -> str:
    body = "".join(f"<tr><td><p>{a}</p></td><td><p>{b}</p></td><td><p>{c}</p></td></tr>" for a, b, c in rows)
    return ('<table class="report-table table"><thead><tr><th><p>Claim</p></th><th><p>Why</p></th>'
            f"<th><p>Checked in</p></th></tr></thead><tbody>{body}</tbody></table>")


def test_each_check_fails_on_its_counterfactual_page(tmp_path):
    ok = _report_page([("<strong>[LH] Thm 4.2</strong> A whole statement.",
                        'κ falls 263 → 10.4, always below <span class="math">\\(\\kappa_0\\)</span>',
                        '<a href="x.html#s"><span>Ch. 3 § Thm 4.2</span></a>')])
    assert report_problems(ok) == [] and text_problems(ok, "report") == []
    cut = _report_page([("<strong>[LH] Lemma D.1</strong> For A with i.i.d. …", "digits", "<a>Ch. 1 §</a>"),
                        ("<strong>[LH] Thm 3.5</strong> Whole.", "within 1 deg of the limit, though their …",
                         "<a>Ch. 4 § Thm 3.5</a>"),
                        ("<strong>[LH] Eq 9</strong> Whole.", "within 1 deg of the limit, though their …",
                         "<a>Ch. 6 § Bounds</a>")])
    found = "\n".join(report_problems(cut))
    for what in ("a bare word", "cut after 'their'", "the same reason as [LH] Thm 3.5", "names no section",
                 "stops at an abbreviation"):
        assert what in found, (what, found)
    bad = {"<p>Tracked in issue 27: tables show no index.</p>": ("api", "development vocabulary"),
           "<p>power iteration converged: True</p>": ("05_non_constancy", "a Python boolean"),
           "<p>[LH] Cor 2.4 (K = (L+1)^2 G): at width 2048</p>": ("errata", "a power in ASCII"),
           "<p>K_xx / ((L+1)|x|^2) has mean 1</p>": ("report", "a power in ASCII")}
    for snippet, (stem, what) in bad.items():
        assert any(what in f for f in text_problems(snippet, stem)), (snippet, text_problems(snippet, stem))
    assert text_problems('<p>converged: yes, <span class="math">\\((L+1)^2\\)</span></p><pre>x: True</pre>',
                         "report") == []
    assert text_problems("<p>status: True unless refuted</p>", "api") == []  # a docstring's Python on the API page
    # a chapter's paper-vs-book table: its math as MathJax spans passes, the same cell in ASCII is found
    assert text_problems(r'<table><tr><td>shrinks like <span class="math">\(L^{-1/2}\)</span></td></tr></table>',
                         "04_infinite_depth") == []
    assert any("a power in ASCII" in f for f in
               text_problems("<table><tr><td>shrinks like L^(-1/2)</td></tr></table>", "04_infinite_depth"))
    assert text_problems("<p>the kernel scales like |x|^2</p>", "troubleshooting") == []  # a message as printed
    chapter = tmp_path / "_executed" / "notebooks"
    chapter.mkdir(parents=True)
    (chapter / "04_demo.html").write_text('<section id="sec-a"><h2>A</h2></section>'
                                          '<div class="cell"><pre># ## More of [AAK]</pre></div>')
    records = [dict(claim_id="[AAK] Def 3.1", chapter="04_demo", section="sec-a"),
               dict(claim_id="[AAK] Lemma C.2", chapter="04_demo", section="sec-aak-more")]
    assert section_problems(tmp_path, records) == ["[AAK] Lemma C.2 (main): section 'sec-aak-more' is not on 04_demo.html"]


# --------------------------------------------------------------------------- on the built book

@pytest.fixture(scope="module")
def built(request) -> Path:
    """The root of a built book: ``NTK_BUILT_BOOK`` when set, else the smoke-profile book of this session."""
    given = os.environ.get("NTK_BUILT_BOOK")
    if given:
        return Path(given)
    root, pipe, book = request.getfixturevalue("smoke_book")
    if book is None or book.returncode != 0:
        pytest.fail("the book did not build; see tests/e2e/test_book.py")
    return root


def _pages(html_dir: Path) -> list[Path]:
    return sorted(p for p in html_dir.rglob("*.html") if not SKIP_DIRS & set(p.relative_to(html_dir).parts))


def _records(folder: Path) -> list[dict]:
    out = []
    for f in sorted(folder.glob("*.json")):
        data = json.loads(f.read_text())
        out += list(data.values()) if isinstance(data, dict) else data
    return out


def test_every_recorded_section_is_on_its_page(built):
    given = os.environ.get("NTK_BUILT_BOOK") and os.environ.get("NTK_RESULTS_DIR")  # a book built elsewhere
    problems = section_problems(built / "_build" / "html", _records(Path(given) if given else built / "results"))
    assert not problems, "\n".join(problems)


def test_every_report_row_reads_whole(built):
    page = next(p for p in _pages(built / "_build" / "html") if p.name == "report.html" and p.parent.name == "book")
    problems = report_problems(page.read_text(errors="replace"))
    assert not problems, "\n".join(problems)


def test_no_page_has_python_words_ascii_powers_or_development_vocabulary(built):
    failures = {}
    for page in _pages(built / "_build" / "html"):
        problems = text_problems(page.read_text(errors="replace"), page.stem)
        if problems:
            failures[page.name] = problems
    assert not failures, "\n".join(f"{k}:\n  " + "\n  ".join(v[:6]) for k, v in failures.items())


# --------------------------------------------------------------------------- as seen in Chromium

#: what a reviewer looks at first: the report's reasons, the chapter 04 section that once rendered as code, the errata
SHOTS = {"report-reasons.png": ("_executed/book/report.html", "#the-table"),
         "chapter-04-more-of-aak.png": ("_executed/notebooks/04_infinite_depth.html", "#sec-aak-more"),
         "errata-part-labels.png": ("_executed/book/errata.html", "#erratum-gradient-norm")}


def test_the_reasons_and_the_aak_section_as_a_reader_sees_them(built, browser):
    """Screenshots (test-artifacts/) of the report's first reason table, of chapter 04's "More of [AAK]" section and of
    the errata's erratum box, at 1280 px in headless Chromium, with MathJax's typesetting done; each element is
    shown (not a code cell) and its text is the page's."""
    from lib.site.pdf import serve_directory
    ARTIFACTS.mkdir(exist_ok=True)
    with serve_directory(built / "_build" / "html") as base:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        for name, (url, selector) in SHOTS.items():
            page.goto(base + url, wait_until="load", timeout=60_000)
            page.wait_for_function("() => !window.MathJax || !MathJax.startup || MathJax.startup.promise"
                                   " .then(() => true)", timeout=30_000)
            page.wait_for_timeout(500)
            target = page.locator(selector).first
            if selector.startswith("#"):  # a MyST target: the section (or box) that follows it
                target = page.locator(f"section:has(> span{selector}), section{selector}, div{selector}").first
            assert target.count() and target.is_visible(), f"{url}: {selector} is not shown"
            assert target.evaluate("e => !e.closest('pre, .highlight')"), f"{url}: {selector} is inside a code cell"
            box = target.bounding_box()
            page.screenshot(path=str(ARTIFACTS / name), full_page=True,
                            clip={"x": 0, "y": box["y"], "width": 1280, "height": min(box["height"] + 20, 1400)})
            assert (ARTIFACTS / name).stat().st_size > 10_000, name
        page.close()
