"""The whole book as one PDF, printed offline from the built HTML.

Each page of ``_build/html`` is opened in headless Chromium (driven by Playwright, the system
Chromium as in ``tests/e2e/test_browser.py``: no browser is downloaded) from a server on
127.0.0.1; every request that is not local is refused, so nothing is fetched from the internet.
After MathJax (``sphinx-mathjax-offline``) has typeset the page and its images have loaded, the
page is printed to an A4 PDF with the theme's navigation hidden (:data:`PRINT_CSS`). The pages are
merged with ``pypdf`` in the order of ``_toc.yml`` (read with ``sphinx_external_toc``, the parser
Jupyter Book itself uses), with one bookmark per page (its title) under the part it is in, one per
section and figure under its page (:func:`outline_entries`), the book's title and author from
``_config.yml`` as the document's metadata, and links between the book's pages made into links inside
the PDF.

The API reference (the page ``api``, about three quarters of all pages) is left out of the book by
default (:data:`API_PAGES`); ``--api-out`` prints it as a PDF of its own, ``--with-api`` keeps it in
the book as its last part.

    python -m lib.site.pdf                      # _build/html -> _build/pdf/book.pdf, without the API
    python -m lib.site.pdf --api-out _build/pdf/api.pdf    # ... and the API reference on its own
    python -m lib.site.pdf --html _build/html --toc _toc.yml --out book.pdf
"""
from __future__ import annotations

import argparse
import functools
import html.parser
import io
import os
import re
import shutil
import sys
import threading
import time
import urllib.parse
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator, Sequence

from lib.book.sentences import cut_at_word, first_sentence

__all__ = ["PdfBuildError", "TocPage", "PageHeading", "OutlineEntry", "API_PAGES", "PRINT_CSS", "toc_pages", "page_title",
           "book_metadata", "outline_entries", "chromium_path", "serve_directory", "merge_pdfs", "build_pdf", "main"]

#: The pages of the API reference (by docname or file stem), left out of the book's PDF unless asked for.
API_PAGES = ("api",)

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]

#: injected into every page before printing; the theme's header, sidebars, search, buttons,
#: previous/next links and footer are hidden, and so is the code of the cells the page hides
#: (myst-nb's "Show code cell source"); the article takes the whole page width
PRINT_CSS = """
.bd-header, .bd-header-article, .header-article, .bd-sidebar-primary, .bd-sidebar-secondary,
.bd-sidebar, .bd-search, .search-button, .search-button-field, .theme-switch-button,
.sidebar-toggle, .article-header-buttons, .prev-next-area, .prev-next-footer, .bd-footer,
.bd-footer-article, .bd-footer-content, #pst-back-to-top, .skip-link, .headerlink,
.toggle-button, .copybtn, details.hide.above-input, .viewcode-link, .viewcode-back, .pst-scrollable-table-container::-webkit-scrollbar { display: none !important; }
html, body, .bd-page-width, .bd-container, .bd-container__inner, .bd-main, .bd-content,
.bd-article-container, .bd-article { max-width: 100% !important; width: auto !important;
  margin: 0 !important; padding: 0 !important; overflow: visible !important; }
.bd-main .bd-content { display: block !important; }
body { background: #fff !important; }
figure, img, table, .math, mjx-container[display="true"], .admonition { break-inside: avoid; }
div.cell_input, div.highlight { break-inside: avoid; }
h1, h2, h3, h4 { break-after: avoid; }
img { max-width: 100% !important; height: auto !important; }
pre { white-space: pre-wrap !important; overflow-wrap: anywhere; }
.pst-scrollable-table-container, .output, .cell_output, .output_area, div.highlight, .table-wrapper
  { overflow: visible !important; }
"""

#: the paper, its margins and the print scale; at 0.8 the page is laid out 879 CSS px wide,
#: about the width of the theme's content column, so the figures keep their size relative to the text
PAPER = "A4"
PAPER_WIDTH_MM = 210.0
MARGIN_MM = {"top": 14.0, "bottom": 14.0, "left": 12.0, "right": 12.0}
SCALE = 0.8
#: the CSS width at which Chromium lays out the printed page
PRINT_WIDTH_PX = round((PAPER_WIDTH_MM - MARGIN_MM["left"] - MARGIN_MM["right"]) / 25.4 * 96 / SCALE)

#: run after the print layout; a table or display equation still wider than the page is shrunk
#: to fit (CSS zoom) instead of being cut at the right edge; returns how many were
FIT_JS = """
() => {
  const article = document.querySelector('.bd-article') || document.body;
  const width = article.clientWidth;
  let n = 0;
  document.querySelectorAll('table, mjx-container[display="true"]').forEach(el => {
    if (el.closest('table') && el.closest('table') !== el) return;
    const w = el.scrollWidth;
    if (w > width + 1) { el.style.zoom = (width / w).toFixed(3); n += 1; }
  });
  return n;
}
"""

#: run on the loaded page; images eager and decoded, fonts loaded, MathJax done, dropdowns
#: opened (``expand``; not myst-nb's hidden cells); returns the counts the caller checks
PREPARE_JS = """
async (expand) => {
  document.documentElement.dataset.theme = 'light';
  document.documentElement.dataset.mode = 'light';
  const imgs = Array.from(document.images);
  imgs.forEach(i => { i.loading = 'eager'; });
  // Chromium keeps an anchor as a PDF destination only when the page links to it: an unseen link
  // to every id lets the links from other pages land on the anchor, not on the page's top
  const hub = document.createElement('div');
  hub.style.display = 'none';
  document.querySelectorAll('[id]').forEach(e => {
    const a = document.createElement('a'); a.href = '#' + encodeURIComponent(e.id); hub.appendChild(a); });
  document.body.appendChild(hub);
  if (expand) document.querySelectorAll('details:not(.hide)').forEach(d => { d.open = true; });
  await Promise.all(imgs.map(i => i.decode().catch(() => null)));
  const math = document.querySelectorAll('.math').length;
  let mathjax = false;
  if (window.MathJax && window.MathJax.startup && window.MathJax.startup.promise) {
    mathjax = true;
    await window.MathJax.startup.promise;
    if (window.MathJax.typesetPromise) await window.MathJax.typesetPromise();
  }
  if (document.fonts) await document.fonts.ready;
  const typeset = Array.from(document.querySelectorAll('.math'))
    .filter(e => e.querySelector('mjx-container') || e.tagName.toLowerCase() === 'mjx-container').length;
  const mathErrors = document.querySelectorAll('mjx-merror, [data-mjx-error]').length;
  const broken = imgs.filter(i => !i.complete || i.naturalWidth === 0).map(i => i.getAttribute('src'));
  // the page's sections (h2-h4, at the id of their <section>) and figures (a "fig-" target, titled by the
  // caption that follows it), in document order, for the bookmarks under the page's own
  const article = document.querySelector('.bd-article') || document.body;
  const outline = [];
  article.querySelectorAll('h2, h3, h4, [id^="fig-"]').forEach(e => {
    if (/^H[2-4]$/.test(e.tagName)) {
      const anchor = (e.closest('section') || e).id || e.id;
      const h = e.cloneNode(true);
      h.querySelectorAll('.headerlink').forEach(x => x.remove());
      if (anchor) outline.push({level: Number(e.tagName[1]) - 1, text: h.textContent, anchor});
    } else {
      let caption = '';
      for (let x = e, k = 0; x && k < 4 && !/^\\s*Figure \\d/.test(caption); x = x.nextElementSibling, k++) {
        caption = x.textContent; }
      if (/^\\s*Figure \\d/.test(caption)) outline.push({level: 0, text: caption.slice(0, 400), anchor: e.id});
    }
  });
  return {math, mathjax, typeset, mathErrors, broken, outline};
}
"""


class PdfBuildError(RuntimeError):
    """The PDF cannot be built; the message says why in one line (the CLI prints only that)."""


@dataclass(frozen=True)
class TocPage:
    """A page of the book in reading order: its Sphinx docname, the built HTML file, its title,
    the caption of the part that lists it (None outside a captioned part) and its outline level."""

    docname: str
    html: Path
    title: str
    part: str | None = None
    level: int = 0


@dataclass(frozen=True)
class PageHeading:
    """A section or a figure inside a book page: its title, its level below the page's title (1 = a
    section, 2 = a subsection, ...; 0 = a figure, one level below the section it is in) and the id of
    the HTML element it starts at."""

    title: str
    level: int
    anchor: str


@dataclass(frozen=True)
class OutlineEntry:
    """A bookmark of the PDF: its title, the index of the book page it opens (into the list of
    :class:`TocPage`), its nesting level (0 = top) and, for a section or figure, the anchor in that
    page it opens at (None: the page's top)."""

    title: str
    page: int
    level: int
    anchor: str | None = None


class _TitleParser(html.parser.HTMLParser):
    """The text of the first ``<h1>`` (without its ``#`` permalink) and of ``<title>``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.h1: list[str] = []
        self.title: list[str] = []
        self._in: str | None = None
        self._skip = 0
        self.h1_done = False

    def handle_starttag(self, tag, attrs):
        cls = dict(attrs).get("class") or ""
        if tag == "title" and not self.title:
            self._in = "title"
        elif tag == "h1" and not self.h1_done:
            self._in = "h1"
        elif self._in == "h1" and tag == "a" and "headerlink" in cls.split():
            self._skip += 1

    def handle_endtag(self, tag):
        if tag == "a" and self._skip:
            self._skip -= 1
        elif tag == "title" and self._in == "title":
            self._in = None
        elif tag == "h1" and self._in == "h1":
            self._in, self.h1_done = None, True

    def handle_data(self, data):
        if self._in == "title":
            self.title.append(data)
        elif self._in == "h1" and not self._skip:
            self.h1.append(data)


def page_title(html_file: Path) -> str:
    """The title of a built page: its first ``<h1>`` (permalink sign dropped), else its
    ``<title>`` without the book's name after the last em dash, else the file's stem."""
    p = _TitleParser()
    p.feed(Path(html_file).read_text(encoding="utf-8", errors="replace"))
    h1 = " ".join("".join(p.h1).split())
    if h1:
        return h1
    title = " ".join("".join(p.title).split())
    if title:
        return title.rsplit(" \u2014 ", 1)[0].strip() or title
    return Path(html_file).stem


def toc_pages(toc: Path, html_dir: Path) -> list[TocPage]:
    """The book's pages in the order of its ``_toc.yml``, each with its built HTML file and title.

    The table of contents is read with ``sphinx_external_toc`` (as Jupyter Book does): the root
    page first, then each toctree's documents depth first. A page of the root's captioned
    toctrees (the book's "parts") is at outline level 1 under its part's caption; a page listed
    by another page sits one level below it. URLs and globs in the table are skipped.

    Raises:
        PdfBuildError: no ``_toc.yml``, or a page it lists was not built.
    """
    toc, html_dir = Path(toc), Path(html_dir)
    if not toc.is_file():
        raise PdfBuildError(f"no table of contents {toc} (pass --toc)")
    from sphinx_external_toc.parsing import parse_toc_yaml
    site = parse_toc_yaml(toc)
    pages: list[TocPage] = []
    seen: set[str] = set()

    def add(docname: str, part: str | None, level: int) -> None:
        if docname in seen or docname not in site:
            return
        seen.add(docname)
        path = html_dir / f"{docname}.html"
        if not path.is_file():
            raise PdfBuildError(f"{path} is missing although {toc.name} lists {docname} (run make book first)")
        pages.append(TocPage(docname, path, page_title(path), part, level))
        is_root = docname == site.root.docname
        for tree in site[docname].subtrees:
            for item in tree.items:
                if isinstance(item, str):
                    if is_root:
                        add(item, tree.caption, 1 if tree.caption else 0)
                    else:
                        add(item, part, level + 1)

    add(site.root.docname, None, 0)
    return pages


def book_metadata(config: Path) -> dict[str, str]:
    """The PDF's document information from the book's ``_config.yml``: its ``title`` and ``author``
    (those it sets), and the program that made the file."""
    import yaml
    info = {"/Creator": "lib.site.pdf (headless Chromium, pypdf)"}
    config = Path(config)
    if config.is_file():
        cfg = yaml.safe_load(config.read_text(encoding="utf-8")) or {}
        for key in ("title", "author"):
            if cfg.get(key):
                info["/" + key.capitalize()] = " ".join(str(cfg[key]).split())
    return info


def _heading_title(text: str, figure: bool = False, limit: int = 80) -> str:
    """A bookmark's title: a heading's text on one line; for a figure, its number and its caption's first
    sentence ("Figure 3.1: ..."), cut at a word (:mod:`lib.book.sentences`)."""
    text = " ".join(text.split())
    if not figure:
        return text
    m = re.match(r"(Figure \d+(?:\.\d+)*)\.?\s*(.*)", text)
    number, caption = (m.group(1), m.group(2)) if m else ("", text)
    first = first_sentence(caption).rstrip(".")
    short = cut_at_word(first, limit)
    short += " …" if short != first else ""
    return f"{number}: {short}" if number and short else number or short


def outline_entries(pages: Sequence[TocPage],
                    headings: Sequence[Sequence[PageHeading]] | None = None) -> list[OutlineEntry]:
    """The PDF's bookmarks: one per page (its title, at its level), preceded by one for each part
    caption, which opens the part's first page, at the level above its pages; under each page, one
    per section (at its level below the page) and per figure (one level below its section), at its
    anchor, when ``headings`` (one list per page, in document order) are given. A section that skips
    a level is placed one level below the one above it."""
    out: list[OutlineEntry] = []
    part: str | None = None
    for i, p in enumerate(pages):
        if p.part is not None and p.part != part:
            out.append(OutlineEntry(p.part, i, max(p.level - 1, 0)))
        part = p.part
        out.append(OutlineEntry(p.title, i, p.level))
        depth = 0  # the level of the last section below the page
        for h in (headings[i] if headings is not None and i < len(headings) else ()):
            if h.level > 0:
                depth = min(h.level, depth + 1)
                level = depth
            else:
                level = depth + 1
            out.append(OutlineEntry(_heading_title(h.title, figure=h.level == 0), i, p.level + level, h.anchor))
    return out


def chromium_path() -> str | None:
    """``$CHROMIUM`` if set (None when that file does not exist), else the first Chromium or
    Chrome on PATH, else None."""
    if os.environ.get("CHROMIUM"):
        exe = os.environ["CHROMIUM"]
        return exe if Path(exe).exists() else None
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        if shutil.which(name):
            return shutil.which(name)
    return None


@contextmanager
def serve_directory(directory: Path) -> Iterator[str]:
    """``directory`` over ``http://127.0.0.1:<free port>/`` for the duration of the block."""
    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(directory)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()


def _print_pages(pages: Sequence[TocPage], html_dir: Path, *, expand: bool = True,
                 progress: bool = True) -> tuple[list[bytes], str, list[str], list[list[PageHeading]]]:
    """Each page printed by Chromium: the PDFs, the server's base URL, warnings, and each page's sections
    and figures (:class:`PageHeading`)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise PdfBuildError("the Python package playwright is not installed (pip install -r requirements.txt)") from None
    exe = chromium_path()
    if exe is None:
        raise PdfBuildError("no Chromium found (apt-get install -y chromium, or set CHROMIUM=/path/to/chromium)")
    from tqdm import tqdm

    pdfs: list[bytes] = []
    warnings: list[str] = []
    headings: list[list[PageHeading]] = []
    with serve_directory(html_dir) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_FLAGS)
        try:
            context = browser.new_context(viewport={"width": PRINT_WIDTH_PX, "height": 1200},
                                          color_scheme="light")
            blocked: list[str] = []

            def route(r):
                u = r.request.url
                if u.startswith(base) or u.startswith(("data:", "blob:", "about:")):
                    r.continue_()
                else:  # nothing leaves the machine
                    blocked.append(u)
                    r.abort()

            context.route("**/*", route)
            page = context.new_page()
            bar = tqdm(pages, desc="printing", unit="page", file=sys.stderr, disable=not progress)
            for p in bar:
                rel = p.html.relative_to(html_dir).as_posix()
                bar.set_postfix_str(Path(rel).stem, refresh=False)
                page.goto(base + urllib.parse.quote(rel), wait_until="load", timeout=120_000)
                page.add_style_tag(content=PRINT_CSS)
                info = page.evaluate(PREPARE_JS, expand)
                if info["math"] and not info["mathjax"]:
                    raise PdfBuildError(f"{rel}: {info['math']} math element(s) but MathJax did not load")
                if info["typeset"] < info["math"]:
                    raise PdfBuildError(f"{rel}: only {info['typeset']} of {info['math']} math elements typeset")
                if info["mathErrors"]:
                    warnings.append(f"{rel}: {info['mathErrors']} math expression(s) typeset to an error")
                for src in info["broken"]:
                    warnings.append(f"{rel}: image did not load: {src}")
                headings.append([PageHeading(h["text"], int(h["level"]), h["anchor"]) for h in info["outline"]
                                 if " ".join(h["text"].split())])
                page.emulate_media(media="print")
                page.evaluate(FIT_JS)
                pdfs.append(page.pdf(format=PAPER, print_background=True, scale=SCALE, prefer_css_page_size=False,
                                     margin={k: f"{v}mm" for k, v in MARGIN_MM.items()}))
            warnings += [f"refused a non-local request: {u}" for u in dict.fromkeys(blocked)]
            context.close()
        finally:
            browser.close()
    return pdfs, base, warnings, headings


def merge_pdfs(pdfs: Sequence[bytes], pages: Sequence[TocPage], out: Path, *,
               base: str | None = None, html_dir: Path | None = None,
               headings: Sequence[Sequence[PageHeading]] | None = None,
               metadata: dict[str, str] | None = None) -> Path:
    """Merge the printed pages (one PDF each, in the order of ``pages``) into ``out``, with the
    bookmarks of :func:`outline_entries` (a section's or figure's at its anchor, when Chromium kept the
    anchor as a destination; else at its page's top) and the document information ``metadata``
    (:func:`book_metadata`).

    When ``base`` (the URL the pages were served from) and ``html_dir`` are given, a link to
    another page of the book becomes a link inside the PDF: to the anchor it names when Chromium
    kept that anchor as a destination, else to the page's first PDF page. A link to any other
    file of the served folder (a download, the index) is removed, because the server it points
    to is gone. External links are kept. Links within a page keep their anchors.
    """
    try:
        from pypdf import PdfWriter, PdfReader
        from pypdf.generic import ArrayObject, DictionaryObject, Fit, NameObject
    except ImportError:
        raise PdfBuildError("the Python package pypdf is not installed (pip install -r requirements.txt)") from None
    if len(pdfs) != len(pages):
        raise ValueError(f"{len(pdfs)} PDFs for {len(pages)} pages")
    writer = PdfWriter()
    starts: list[int] = []
    anchors: list[dict[str, tuple[int, list]]] = []  # per book page: anchor -> (its PDF page, /XYZ args)
    for data in pdfs:
        reader = PdfReader(io.BytesIO(data))
        named = reader.named_destinations
        anchors.append({str(name).lstrip("/"): (reader.get_destination_page_number(d), list(d.dest_array[1:]))
                        for name, d in named.items()})
        starts.append(len(writer.pages))
        writer.append(reader, import_outline=False)
    # Chromium links the anchors of a page by name, and every page names its own "summary", ...:
    # in the merged file the names would clash, so each such link gets its explicit destination
    owner = [i for i in range(len(pdfs)) for _ in range(starts[i], (starts + [len(writer.pages)])[i + 1])]
    for n, pdf_page in enumerate(writer.pages):
        for ref in pdf_page.get("/Annots") or []:
            a = ref.get_object()
            d = a.get("/Dest")
            if d is not None and not isinstance(d, ArrayObject):
                anchor = anchors[owner[n]].get(str(d).lstrip("/"))
                if anchor is not None:
                    a[NameObject("/Dest")] = ArrayObject(
                        [writer.pages[starts[owner[n]] + anchor[0]].indirect_reference, *anchor[1]])
    names = writer.root_object.get("/Names")
    if names is not None and "/Dests" in names.get_object():
        del names.get_object()["/Dests"]
    parents: dict[int, object] = {}
    for e in outline_entries(pages, headings):
        at = anchors[e.page].get(e.anchor) if e.anchor else None
        if at is not None and at[1] and str(at[1][0]) == "/XYZ":
            item = writer.add_outline_item(e.title, starts[e.page] + at[0], parent=parents.get(e.level - 1),
                                           fit=Fit("/XYZ", tuple(at[1][1:])), is_open=e.level < 1)
        else:
            item = writer.add_outline_item(e.title, starts[e.page] + (at[0] if at else 0),
                                           parent=parents.get(e.level - 1), is_open=e.level < 1)
        parents[e.level] = item
    if metadata:
        writer.add_metadata(dict(metadata))
    if base is not None and html_dir is not None:
        where = {p.html.relative_to(html_dir).as_posix(): i for i, p in enumerate(pages)}
        for pdf_page in writer.pages:
            annots = pdf_page.get("/Annots")
            if annots is None:
                continue
            keep = ArrayObject()
            for ref in annots.get_object():
                a = ref.get_object()
                action = a.get("/A")
                action = action.get_object() if action is not None else None
                uri = str(action.get("/URI", "")) if action is not None else ""
                if not uri.startswith(base):
                    keep.append(ref)
                    continue
                parts = urllib.parse.urlsplit(uri)
                path = urllib.parse.unquote(parts.path).lstrip("/")
                if path not in where:
                    continue
                i = where[path]
                anchor = anchors[i].get(urllib.parse.unquote(parts.fragment)) if parts.fragment else None
                if anchor is not None:
                    dest = ArrayObject([writer.pages[starts[i] + anchor[0]].indirect_reference, *anchor[1]])
                else:
                    dest = ArrayObject([writer.pages[starts[i]].indirect_reference, NameObject("/Fit")])
                a[NameObject("/A")] = DictionaryObject({NameObject("/S"): NameObject("/GoTo"),
                                                        NameObject("/D"): dest})
                keep.append(ref)
            pdf_page[NameObject("/Annots")] = keep
    writer.page_mode = "/UseOutlines"
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".part")
    with open(tmp, "wb") as fh:
        writer.write(fh)
    tmp.replace(out)
    return out


def build_pdf(html_dir: Path, out: Path, toc: Path | None = None, *, expand: bool = True,
              exclude: Sequence[str] | None = None, only: Sequence[str] = (), progress: bool = True) -> Path:
    """Print the pages of the built book with headless Chromium and merge them into one PDF.

    Args:
        html_dir: the built HTML (``_build/html`` of ``make book``).
        out: the PDF to write (its folder is created); written whole or not at all.
        toc: the book's ``_toc.yml``; by default the one two folders above ``html_dir``
            (``<root>/_build/html`` -> ``<root>/_toc.yml``). The ``_config.yml`` beside it gives the
            PDF's title and author (:func:`book_metadata`).
        expand: open every dropdown (``<details>``), so the PDF holds their text; the code of
            the cells a page hides stays hidden.
        exclude: pages to leave out, by docname or file stem; by default (None) the API reference
            (:data:`API_PAGES`) unless ``only`` is given. Pass ``()`` for every page.
        only: when given, print only these pages (by docname or file stem), e.g. :data:`API_PAGES`
            for the API reference on its own.
        progress: show a progress bar over the pages on stderr.

    Returns:
        ``out``.

    Raises:
        PdfBuildError: no built book, no Chromium or Playwright, a page missing, no page left to
            print, or math that MathJax did not typeset. Images that fail to load and non-local
            requests (refused) are reported as warnings on stderr.
    """
    html_dir = Path(html_dir)
    if not (html_dir / "index.html").is_file():
        raise PdfBuildError(f"no built book in {html_dir} (run make book first)")
    toc = Path(toc) if toc is not None else html_dir.resolve().parent.parent / "_toc.yml"

    if exclude is None:
        exclude = () if only else API_PAGES

    def named(p: TocPage, names: Sequence[str]) -> bool:
        return p.docname in names or Path(p.docname).name in names

    pages = [p for p in toc_pages(toc, html_dir) if not named(p, exclude) and (not only or named(p, only))]
    if not pages:
        raise PdfBuildError(f"{toc} lists no page to print" + (f" named {', '.join(only)}" if only else ""))
    if only:  # a PDF of its own: its pages at the top of its outline
        pages = [TocPage(p.docname, p.html, p.title) for p in pages]
    pdfs, base, warnings, headings = _print_pages(pages, html_dir, expand=expand, progress=progress)
    for w in warnings:
        print(f"warning: {w}", file=sys.stderr)
    return merge_pdfs(pdfs, pages, out, base=base, html_dir=html_dir, headings=headings,
                      metadata=book_metadata(toc.parent / "_config.yml"))


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m lib.site.pdf``: see the module docstring. Exit status 1 with a one-line
    ``error:`` message when the PDF cannot be built."""
    ap = argparse.ArgumentParser(prog="python -m lib.site.pdf", description=__doc__.split("\n\n")[0])
    ap.add_argument("--html", type=Path, default=Path("_build/html"), help="the built book (default: %(default)s)")
    ap.add_argument("--toc", type=Path, default=None, help="its _toc.yml (default: two folders above --html)")
    ap.add_argument("--out", type=Path, default=Path("_build/pdf/book.pdf"), help="default: %(default)s")
    ap.add_argument("--collapsed", action="store_true", help="leave dropdowns (<details>) closed")
    ap.add_argument("--exclude", nargs="*", default=[], metavar="PAGE",
                    help="more pages to leave out, by file stem")
    ap.add_argument("--with-api", action="store_true",
                    help="keep the API reference in the book (left out by default)")
    ap.add_argument("--api-out", type=Path, default=None, metavar="PDF",
                    help="also print the API reference as a PDF of its own, e.g. _build/pdf/api.pdf")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    exclude = [*args.exclude, *(() if args.with_api else API_PAGES)]
    jobs = [(args.out, dict(exclude=exclude))]
    if args.api_out is not None:
        jobs.append((args.api_out, dict(exclude=args.exclude, only=API_PAGES)))
    from pypdf import PdfReader
    for out, pick in jobs:
        try:
            out = build_pdf(args.html, out, args.toc, expand=not args.collapsed, progress=not args.quiet, **pick)
        except PdfBuildError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        r = PdfReader(out)
        n, marks = len(r.pages), _count_outline(r.outline)
        print(f"wrote {out} ({n} pages, {marks} bookmarks, {out.stat().st_size / 1e6:.1f} MB) in "
              f"{time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return 0


def _count_outline(items) -> int:
    return sum(_count_outline(i) if isinstance(i, list) else 1 for i in items)


if __name__ == "__main__":
    sys.exit(main())
