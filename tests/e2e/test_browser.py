"""The built book in a real browser (headless Chromium driven by Playwright).

Every HTML page of the smoke-profile book (fixture ``smoke_book``) is served from 127.0.0.1 and
opened; a page fails if an image does not load, if math is not typeset by MathJax (or typesets
to an error), if the browser console reports an error or a script throws, or if the page asks
for anything that is not on the local server (such requests are blocked and listed). A second
test checks every internal link and anchor of the built HTML without a browser. Screenshots of
the index and of chapter 1 are kept in ``test-artifacts/``.

Needs Chromium and the ``playwright`` Python package (no browser download: the system Chromium
is used). Install: ``apt-get install -y chromium`` and ``pip install playwright`` (see README).
Without them the test is skipped, unless ``REQUIRE_BROWSER=1`` (CI), where it fails.
"""
from __future__ import annotations

import html.parser
import time
import urllib.parse
from pathlib import Path

import pytest

from lib.site.pdf import serve_directory
from tests.e2e.conftest import ARTIFACTS, ROOT

pytestmark = pytest.mark.slow

SKIP_DIRS = {"_static", "_sources", "_images", "_downloads"}
#: a figure shown narrower than this fraction of its pixel width has text too small to read
MIN_IMAGE_SCALE = 0.85


def html_pages(html_dir: Path) -> list[Path]:
    """Every page of the built book (not the static assets)."""
    return sorted(p for p in html_dir.rglob("*.html")
                  if not (SKIP_DIRS & set(p.relative_to(html_dir).parts)))


# --------------------------------------------------------------------------- no browser needed

class _Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a" and a.get("name"):
            self.ids.add(a["name"])
        for key in ("href", "src"):
            if a.get(key) and not (tag == "link" and key == "href" and a.get("rel") == "preload"):
                self.hrefs.append(a[key])


def _parse(path: Path) -> _Links:
    p = _Links()
    p.feed(path.read_text(errors="replace"))
    return p


def broken_links(html_dir: Path) -> list[str]:
    """Every local href/src that points to a missing file or to a missing #anchor."""
    parsed: dict[Path, _Links] = {}

    def links_of(path: Path) -> _Links:
        if path not in parsed:
            parsed[path] = _parse(path)
        return parsed[path]

    html_dir = html_dir.resolve()
    bad = []
    for page in html_pages(html_dir):
        for href in links_of(page).hrefs:
            url = urllib.parse.urlsplit(href)
            if url.scheme or url.netloc or href.startswith(("mailto:", "javascript:", "data:")):
                continue
            target = page if not url.path else (page.parent / urllib.parse.unquote(url.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                bad.append(f"{page.relative_to(html_dir)}: {href} (no such file)")
                continue
            if url.fragment and target.suffix == ".html":
                ids = links_of(target).ids
                if urllib.parse.unquote(url.fragment) not in ids:
                    bad.append(f"{page.relative_to(html_dir)}: {href} (no such anchor)")
    return bad


def test_every_internal_link_and_anchor_exists(html_dir):
    pages = html_pages(html_dir)
    assert len(pages) >= 5, f"only {len(pages)} pages built"
    bad = broken_links(html_dir)
    assert not bad, f"{len(bad)} broken internal link(s):\n" + "\n".join(bad[:40])


def test_link_checker_finds_a_broken_link(tmp_path):
    """The checker itself: a missing file and a missing anchor are both reported."""
    (tmp_path / "a.html").write_text('<a href="b.html#here">x</a><a href="c.html">y</a><p id="top"></p>')
    (tmp_path / "b.html").write_text('<h1 id="there">b</h1><a href="a.html#top">ok</a>')
    bad = broken_links(tmp_path)
    assert len(bad) == 2 and any("no such anchor" in b for b in bad) and any("no such file" in b for b in bad)


# --------------------------------------------------------------------------- in Chromium

PAGE_CHECK_JS = """
async () => {
  if (!document.body) { throw new Error('no document body yet (navigating)'); }
  window.scrollTo(0, document.body.scrollHeight);
  const imgs = Array.from(document.images);
  imgs.forEach(i => { i.loading = 'eager'; });
  await Promise.all(imgs.map(i => i.decode().catch(() => null)));
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
  }
  const math = Array.from(document.querySelectorAll('.math'));
  return {
    images: imgs.map(i => ({src: i.getAttribute('src'), ok: i.complete && i.naturalWidth > 0,
                            natural: i.naturalWidth, shown: i.getBoundingClientRect().width})),
    math: math.length,
    typeset: math.filter(m => m.querySelector('mjx-container')).length,
    mathErrors: document.querySelectorAll('mjx-merror').length,
    mathjax: !!window.MathJax,
    // debris on the book's own pages (not the API reference, whose signatures show defaults)
    book: location.pathname.includes('/_executed/'),
    reprs: (document.querySelector('main') || document.body).innerText
             .match(/<[\\w.]+ object( at 0x[0-9a-f]+)?>|<Figure size [\\d.]+x[\\d.]+ with \\d+ Axes>/g) || [],
    rawCells: Array.from(document.querySelectorAll('main td')).map(td => td.innerText.trim())
             .filter(t => ['nan', 'NaN', 'None', 'True', 'False', 'inf'].includes(t)),
    // a table wider than its column that no box scrolls (a scrolling one is fine: the reader scrolls it)
    wideTables: Array.from(document.querySelectorAll('main table')).filter(t => {
             const box = t.parentElement.getBoundingClientRect().width;
             if (!(box > 0 && t.getBoundingClientRect().width > box + 2)) return false;
             for (let e = t.parentElement; e && e.tagName !== 'MAIN'; e = e.parentElement) {
               if (['auto', 'scroll'].includes(getComputedStyle(e).overflowX)) return false; }
             return true; }).length,
    // a verdict sentence ("Verdict (...): status." in bold, its caveat in italics right after) with any other
    // emphasis: a star of its text read as Markdown (rho* made half a sentence italic)
    verdictEmphasis: Array.from(document.querySelectorAll('main p')).filter(p => {
             const head = p.firstElementChild;
             if (!head || head.tagName !== 'STRONG' || !/^Verdict\\b/.test(head.textContent)) return false;
             let caveat = head.nextSibling;  // the caveat: an <em> after the bold verdict, nothing but space between
             while (caveat && caveat.nodeType === Node.TEXT_NODE && !caveat.textContent.trim()) caveat = caveat.nextSibling;
             return Array.from(p.querySelectorAll('em')).some(e => e !== caveat); })
             .map(p => p.textContent.slice(0, 80)),
    // a table cell whose rendered text breaks inside a number or a word ("0.015/9", "activati/on"): each text
    // node laid out on several lines is read character by character for where its lines start
    brokenTokens: (() => {
             const found = [];
             const alnum = c => /[\\p{L}\\p{N}]/u.test(c), digit = c => /\\p{N}/u.test(c);
             document.querySelectorAll('main td, main th').forEach(cell => {
               const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
               for (let node = walk.nextNode(); node; node = walk.nextNode()) {
                 if (node.parentElement.closest('mjx-container, .MathJax')) continue;
                 const text = node.textContent, range = document.createRange();
                 range.selectNodeContents(node);
                 if (range.getClientRects().length < 2) continue;
                 let top = null;
                 for (let i = 0; i < text.length; i++) {
                   range.setStart(node, i); range.setEnd(node, i + 1);
                   const r = range.getClientRects()[0];
                   if (!r || r.width === 0) continue;
                   if (top !== null && r.top > top + r.height / 2 && i > 0) {
                     const a = text[i - 1], b = text[i];
                     if ((alnum(a) && alnum(b)) || (digit(a) && '.,'.includes(b)) ||
                         ('.,'.includes(a) && digit(b) && i > 1 && digit(text[i - 2]))) {
                       const s = text.slice(0, i).search(/\\S+$/), e = text.slice(i).search(/\\s|$/);
                       found.push(text.slice(s, i) + '/' + text.slice(i, i + e));
                     }
                   }
                   top = r.top;
                 }
               }
             });
             return found; })(),
    pathAlts: Array.from(document.querySelectorAll('main img')).map(i => i.getAttribute('alt') || '')
             .filter(a => !a.trim() || /^[\\w./-]+\\.(png|svg|jpe?g)$/i.test(a.trim())),
    // a registered figure (figures/ or, once Sphinx copied it, _images/fig-....png) without the link to its data (.../fig-....csv)
    noCsv: Array.from(document.querySelectorAll('main img'))
             .map(i => ((i.getAttribute('src') || '').match(/(?:figures|_images)\\/(fig-[\\w-]+)\\.png$/) || [])[1])
             .filter(l => l && !document.querySelector(`main a[href$="/${l}.csv"]`)),
    // a value printed as "nan" in the text a reader sees (code blocks excepted; the API reference and the
    // troubleshooting page, whose subject is code and bad input, may quote it)
    nanWords: /\\/(api|troubleshooting)\\.html$/.test(location.pathname) ? 0 : (() => {
             const m = (document.querySelector('main') || document.body).cloneNode(true);
             m.querySelectorAll('pre, code, .MathJax, mjx-container').forEach(e => e.remove());
             return (m.innerText.match(/\\bnan\\b/g) || []).length; })(),
  };
}
"""


def _evaluate(page, js: str):
    """``page.evaluate(js)``, retried while the page is still navigating (index.html redirects to the
    first chapter after it has loaded, so a script can land on a page that is being replaced)."""
    for attempt in range(10):
        try:
            return page.evaluate(js)
        except Exception as exc:  # noqa: BLE001 - playwright's Error on a navigation
            if not any(m in str(exc) for m in ("context was destroyed", "no document body")) or attempt == 9:
                raise
            page.wait_for_timeout(300)
            page.wait_for_load_state("load")


def visit(browser, base: str, url: str, screenshot: Path | None = None) -> list[str]:
    """Open one page; return its problems (empty when it is fine)."""
    problems: list[str] = []
    context = browser.new_context(viewport={"width": 1280, "height": 900})

    def route(r):
        u = r.request.url
        if u.startswith(base) or u.startswith(("data:", "blob:", "about:")):
            r.continue_()
        else:
            problems.append(f"requests a non-local resource: {u}")
            r.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.on("console", lambda m: m.type == "error" and problems.append(f"console error: {m.text}"))
    page.on("pageerror", lambda e: problems.append(f"script error: {e}"))
    page.on("requestfailed", lambda r: r.url.startswith(base) and
            problems.append(f"failed to load {r.url}: {r.failure}"))
    try:
        page.goto(url, wait_until="load", timeout=60_000)
        if _evaluate(page, "!!document.querySelector('meta[http-equiv=refresh i]')"):  # index.html: a redirect
            page.wait_for_url(lambda u: u != url, timeout=30_000)
            page.wait_for_load_state("load")
        info = _evaluate(page, PAGE_CHECK_JS)
        for img in info["images"]:
            if not img["ok"]:
                problems.append(f"image did not load: {img['src']}")
            elif img["natural"] >= 300 and img["shown"] < MIN_IMAGE_SCALE * img["natural"]:
                problems.append(f"figure {img['src']} shown at {img['shown'] / img['natural']:.0%} of its "
                                f"{img['natural']} px: its text is shrunk (lib.book.plotting.COLUMN_INCHES)")
        if info["math"]:
            if not info["mathjax"]:
                problems.append(f"{info['math']} math element(s) but MathJax is not loaded")
            elif info["typeset"] < info["math"]:
                problems.append(f"only {info['typeset']} of {info['math']} math elements typeset")
            if info["mathErrors"]:
                problems.append(f"{info['mathErrors']} math expression(s) typeset to an error")
        if info["book"]:
            problems += [f"a Python repr on the page: {r}" for r in sorted(set(info["reprs"]))]
            if info["rawCells"]:
                problems.append(f"table cell(s) reading {sorted(set(info['rawCells']))} (write yes/no, —, ∞)")
            if info["wideTables"]:
                problems.append(f"{info['wideTables']} table(s) wider than their column")
            problems += [f"emphasis inside a verdict sentence: {t!r}" for t in info["verdictEmphasis"]]
            if info["brokenTokens"]:
                problems.append(f"{len(info['brokenTokens'])} table cell line(s) broken inside a number or word "
                                f"(the line break marked /): {info['brokenTokens'][:6]}")
            problems += [f"an image without meaningful alt text: {a!r}" for a in info["pathAlts"]]
            problems += [f"figure {label} has no link to its data ({label}.csv)" for label in info["noCsv"]]
            if info["nanWords"]:
                problems.append(f"{info['nanWords']} 'nan' word(s) in the text (write — or n/a)")
        if screenshot is not None:
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            _evaluate(page, "window.scrollTo(0, 0)")
            page.wait_for_timeout(300)
            page.screenshot(path=str(screenshot), full_page=True)
    finally:
        context.close()
    return problems


def test_every_page_loads_cleanly_in_chromium(browser, server, html_dir):
    t0 = time.perf_counter()
    pages = html_pages(html_dir)
    shots = {"_executed/book/intro.html": ARTIFACTS / "intro.png",
             "_executed/book/report.html": ARTIFACTS / "report.png",
             "_executed/notebooks/03_conditioning.html": ARTIFACTS / "chapter-03.png"}
    failures = {}
    for page in pages:
        rel = page.relative_to(html_dir).as_posix()
        problems = visit(browser, server, server + rel, shots.get(rel))
        if problems:
            failures[rel] = problems
    took = time.perf_counter() - t0
    print(f"visited {len(pages)} pages in {took:.1f} s; screenshots in {ARTIFACTS}")
    assert not failures, "\n".join(f"{p}:\n  " + "\n  ".join(v[:8]) for p, v in failures.items())
    for shot in shots.values():
        assert shot.exists() and shot.stat().st_size > 10_000, f"no screenshot {shot}"


def test_browser_check_catches_a_broken_page(browser, tmp_path):
    """The checks themselves: a missing image, a console error, an external request, untypeset
    math, a figure shrunk to a quarter of its size, and on a book page a Python repr, raw nan/True cells, a
    table wider than its column, a cell broken inside a number, emphasis inside a verdict sentence (but not its
    caveat) and an image whose alt text is a file path are all reported."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig = plt.figure(figsize=(8, 3), dpi=100)  # 800 px wide, shown at 200 px
    fig.savefig(tmp_path / "wide.png", dpi=100)  # not rcParams["savefig.dpi"], which other tests may set
    plt.close(fig)
    (tmp_path / "_executed").mkdir()
    (tmp_path / "_executed" / "bad.html").write_text(
        '<html><body><main><img src="../missing.png" alt="a figure"><span class="math">\\(x\\)</span>'
        '<img src="../wide.png" style="width: 200px" alt="figures/wide.png">'
        '<img src="figures/fig-no-data.png" alt="a figure without its data"><p>kappa is nan here</p>'
        '<p>&lt;IPython.core.display.Markdown object&gt;</p>'
        '<div style="width: 100px"><table style="width: 300px"><tr><td>nan</td><td>True</td></tr></table></div>'
        '<p><strong>Verdict (x): reproduced.</strong> <em>A caveat.</em> Fine here.</p>'
        '<p><strong>Verdict (y): reproduced.</strong> For ReLU rho<em>= 0.43, log|rho</em>| falls.</p>'
        '<div style="width: 30px"><table><tr><td style="overflow-wrap: anywhere">0.01594 activation</td></tr></table></div>'
        '<script>console.error("boom")</script><img src="https://example.invalid/x.png" alt="x"></main></body></html>')

    with serve_directory(tmp_path) as base:
        problems = "\n".join(visit(browser, base, base + "_executed/bad.html"))
    for expected in ("image did not load: ../missing.png", "console error: boom",
                     "non-local resource: https://example.invalid", "MathJax is not loaded",
                     "figure ../wide.png shown at 25% of its 800 px",
                     "a Python repr on the page: <IPython.core.display.Markdown object>",
                     "table cell(s) reading ['True', 'nan']", "1 table(s) wider than their column",
                     "an image without meaningful alt text: 'figures/wide.png'",
                     "figure fig-no-data has no link to its data (fig-no-data.csv)",
                     "1 'nan' word(s) in the text", "broken inside a number or word",
                     "emphasis inside a verdict sentence: 'Verdict (y)"):
        assert expected in problems, f"{expected!r} not reported in:\n{problems}"


#: the table rule the book had before: cells broke anywhere to fit the column ("0.015/9", "activati/on")
BREAK_ANYWHERE_CSS = "main table td, main table th { overflow-wrap: anywhere; }"


@pytest.mark.parametrize("css, broken", [("book", False), ("before", True)])
def test_the_book_css_breaks_no_number_in_a_narrow_table(browser, tmp_path, css, broken):
    """The book's stylesheet (_static/book.css) on a column too narrow for its tables: a Markdown table in the
    theme's scrolling container and an output table keep every number and word whole and scroll instead.
    Counterfactual: the rule the book had before breaks them, and the check says so."""
    (tmp_path / "_static").mkdir()
    (tmp_path / "_static" / "book.css").write_text(
        (ROOT / "_static" / "book.css").read_text() if css == "book" else BREAK_ANYWHERE_CSS)
    (tmp_path / "_executed").mkdir()
    cells = "".join(f"<td>{v}</td>" for v in ("0.015934", "1.0407", "23700", "activation", "-0.3821"))
    (tmp_path / "_executed" / "narrow.html").write_text(
        '<html><head><link rel="stylesheet" href="../_static/book.css"></head><body><main style="width: 160px">'
        '<div class="pst-scrollable-table-container" style="overflow-x: auto"><table><tr><th>value</th>'
        f'<th>what it is</th></tr><tr><td><code>[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]</code></td><td>depths L of '
        f'the sweep, one per column</td></tr></table></div>'
        f'<div class="cell_output"><table><tr>{cells}</tr><tr>{cells}</tr></table></div></main></body></html>')
    with serve_directory(tmp_path) as base:
        problems = visit(browser, base, base + "_executed/narrow.html")
    assert any("broken inside a number or word" in p for p in problems) == broken, problems
    if not broken:
        assert problems == []
