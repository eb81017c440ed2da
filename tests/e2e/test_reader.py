"""The built book as a reader sees it: no debris, no machine paths, no raw TeX, no developer notes.

Runs over every HTML page of the smoke-profile book (fixture ``smoke_book``) without a browser;
the browser test (``test_browser.py``) adds what needs layout (images shown at their size).
"""
from __future__ import annotations

import html.parser
import re

import pytest

pytestmark = pytest.mark.slow

SKIP_DIRS = {"_static", "_sources", "_images", "_downloads", "_modules"}
#: pages of the API reference list code, where names such as ``\\lambda`` may legitimately appear
CODE_PAGES = {"genindex.html", "py-modindex.html", "search.html"}

DEBRIS = [
    (re.compile(r"\d+%\|[^|]{0,60}\|"), "a progress bar"),
    (re.compile(r"\b\d+(\.\d+)?(it/s|s/it)\b"), "a progress bar rate"),
    (re.compile(r"(?<![\w.])/(?:work|tmp|home|root|private|var/folders)/[\w.+-]+"), "a machine path"),
    (re.compile(r"THEORY\.md|DEVELOPERS\.md|\bshared/papers\b|issue \d+ of this project"),
     "a reference the reader cannot follow"),
    (re.compile(r"\[IPKernelApp\]|Traceback \(most recent call last\)"), "kernel or traceback output"),
    (re.compile(r"\d\.\d{10,}"), "absurd precision (10+ decimals)"),
]
RAW_TEX = re.compile(r"\\(?:lambda|kappa|theta|phi|sum|frac|mathrm|top|max|min|sqrt|cdot|infty|le|ge)\b"
                     r"|(?<![\w$])\$[A-Za-z\\][^$\n]{0,40}\$(?![\w$])")


class _Text(html.parser.HTMLParser):
    """Visible prose of a page: outside script/style/code/pre/math, and whether stderr blocks exist."""

    SKIP = {"script", "style", "code", "pre", "mjx-container", "textarea"}

    def __init__(self):
        super().__init__()
        self.depth = 0
        self.instr = 0
        self.stack: list[tuple[bool, bool]] = []
        self.prose: list[str] = []
        self.all_text: list[str] = []
        self.stderr_blocks = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if "stderr" in cls:
            self.stderr_blocks += 1
        skip = tag in self.SKIP or "math" in cls or "highlight" in cls
        # shell instructions to the reader (``bash`` blocks) may name paths such as /tmp/01.ipynb
        instr = any(c in ("highlight-bash", "highlight-shell", "highlight-console") for c in cls)
        if tag not in ("br", "img", "hr", "meta", "link", "input", "wbr", "col", "source"):
            self.stack.append((skip, instr))
            self.depth += skip
            self.instr += instr

    def handle_endtag(self, tag):
        if tag in ("br", "img", "hr", "meta", "link", "input", "wbr", "col", "source"):
            return
        if self.stack:
            skip, instr = self.stack.pop()
            self.depth -= skip
            self.instr -= instr

    def handle_data(self, data):
        if self.instr == 0:
            self.all_text.append(data)
        if self.depth == 0:
            self.prose.append(data)


def reader_problems(page_html: str, code_page: bool = False) -> list[str]:
    """What a reader would find wrong on one page (empty when clean)."""
    p = _Text()
    p.feed(page_html)
    text = " ".join(p.all_text)
    prose = " ".join(p.prose)
    found = []
    if p.stderr_blocks:
        found.append(f"{p.stderr_blocks} stderr output block(s)")
    for rx, what in DEBRIS:
        m = rx.search(text)
        if m:
            found.append(f"{what}: {text[max(0, m.start() - 40): m.end() + 40]!r}")
    if not code_page:
        m = RAW_TEX.search(prose)
        if m:
            found.append(f"raw TeX in prose: {prose[max(0, m.start() - 40): m.end() + 40]!r}")
    return found


def test_reader_check_catches_each_kind_of_problem():
    """Counterfactuals: each kind of debris is reported; clean prose with typeset math is not."""
    clean = ('<p>The kernel <span class="math">\\(\\lambda_{\\min}\\)</span> is 0.25.</p>'
             '<pre>x = "\\lambda"  # TeX in code is fine</pre>'
             '<div class="highlight-bash notranslate"><pre>papermill /tmp/01.ipynb out.ipynb</pre></div>')
    assert reader_problems(clean) == []
    from lib.book.math_text import typeset_html  # a table cell's math, as the book's tables write it
    assert reader_problems(f"<table><tr><td>{typeset_html('like L^(-1/2), kappa_0')}</td></tr></table>") == []
    bad = {
        "<table><tr><td>like \\(\\kappa\\) here</td></tr></table>": "raw TeX",  # the same math outside its span
        '<div class="output stderr"><pre>warning</pre></div>': "stderr",
        "<p>Executing: 96%|█████████▌| 24/25 [00:30&lt;00:01, 1.2s/it]</p>": "progress bar",
        "<p>cached in /work/main/.cache/sweep</p>": "machine path",
        "<p>See THEORY.md for the formula.</p>": "cannot follow",
        "<p>E[s^2] = 1.000000000000</p>": "precision",
        "<p>where \\lambda_{\\max} is the largest</p>": "raw TeX",
        "<p>the projection $P$ onto rows of $JJ^\\top$</p>": "raw TeX",
    }
    for snippet, what in bad.items():
        problems = reader_problems(snippet)
        assert any(what in f for f in problems), (snippet, problems)


def test_every_page_reads_cleanly(smoke_book):
    root, pipe, book = smoke_book
    if book is None or book.returncode != 0:
        pytest.fail("the book did not build; see tests/e2e/test_book.py")
    html_dir = root / "_build" / "html"
    failures = {}
    for page in sorted(html_dir.rglob("*.html")):
        rel = page.relative_to(html_dir)
        if SKIP_DIRS & set(rel.parts):
            continue
        problems = reader_problems(page.read_text(errors="replace"),
                                   code_page=rel.name in CODE_PAGES or rel.stem == "api")
        if problems:
            failures[rel.as_posix()] = problems
    assert not failures, "\n".join(f"{p}:\n  " + "\n  ".join(v[:6]) for p, v in failures.items())
