"""The figures of the built book as a reader gets them: every registered figure keeps the figure rules (its
registry entry, written when it was drawn, lists no problem: no legend over drawn points, lines or labels, no
legend without a frame, no two series alike in colour, no unordered palette for ordered depths; see
lib.book.figures_audit), offers a vector version and a CSV with rows beside its PNG, and its re-run command says
what it overwrites. The checks are shown failing on a counterfactual registry and a counterfactual page.

Uses the smoke-profile book of tests/conftest.py (``html_dir``); the browser part needs Chromium and playwright
(skipped without them unless ``REQUIRE_BROWSER=1``). Screenshots of a few figures go to ``test-artifacts/``.
"""
from __future__ import annotations

import csv
import io
import json
import urllib.request
from pathlib import Path

import pytest

from lib.site.pdf import serve_directory
from tests.e2e.conftest import ARTIFACTS

pytestmark = pytest.mark.slow



def registry_breaks(results: Path, page_dir: Path) -> list[str]:
    """Every registered figure (``<results>/figures/*.json``) that lists a problem, has no vector file or no CSV
    with rows beside the page (``page_dir``), one line each."""
    out = []
    for path in sorted((results / "figures").glob("*.json")):
        for e in json.loads(path.read_text(encoding="utf-8")):
            name = f"Figure {e['figure']} ({e['label']})"
            out += [f"{name}: {p}" for p in e.get("problems", ["no problems recorded"])]
            if not e.get("vector") or not (page_dir / e["vector"]).is_file():
                out.append(f"{name}: no vector file")
            if not e.get("csv") or not (page_dir / e["csv"]).is_file():
                out.append(f"{name}: no CSV")
            elif len((page_dir / e["csv"]).read_text(encoding="utf-8").strip().splitlines()) < 2:
                out.append(f"{name}: the CSV has a header and no rows")
    return out


def _write_registry(tmp_path: Path, entry: dict, csv_text: str = "x,y\n1,2\n") -> tuple[Path, Path]:
    results, page = tmp_path / "results", tmp_path / "page"
    (results / "figures").mkdir(parents=True)
    (page / "figures").mkdir(parents=True)
    (page / "figure-data").mkdir(parents=True)
    (page / "figures" / "fig-a.svg").write_text("<svg/>")
    (page / "figure-data" / "fig-a.csv").write_text(csv_text)
    base = dict(figure="9.1", label="fig-a", vector="figures/fig-a.svg", csv="figure-data/fig-a.csv", problems=[])
    (results / "figures" / "09_demo.json").write_text(json.dumps([dict(base, **entry)]))
    return results, page


def test_the_registry_check_fails_on_a_legend_over_data_an_empty_csv_and_a_missing_vector(tmp_path):
    assert registry_breaks(*_write_registry(tmp_path / "ok", {})) == []
    over = registry_breaks(*_write_registry(tmp_path / "over", {"problems": [
        "legend 'ReLU' covers 12 drawn point(s) and 2 line(s) of panel 1"]}))
    assert over == ["Figure 9.1 (fig-a): legend 'ReLU' covers 12 drawn point(s) and 2 line(s) of panel 1"]
    assert registry_breaks(*_write_registry(tmp_path / "empty", {}, csv_text="x,y\n")) == [
        "Figure 9.1 (fig-a): the CSV has a header and no rows"]
    assert registry_breaks(*_write_registry(tmp_path / "novec", {"vector": None})) == ["Figure 9.1 (fig-a): no vector file"]
    results, page = _write_registry(tmp_path / "old", {})
    entries = json.loads((results / "figures" / "09_demo.json").read_text())
    del entries[0]["problems"]  # a registry written before figures were audited is not taken as clean
    (results / "figures" / "09_demo.json").write_text(json.dumps(entries))
    assert registry_breaks(results, page) == ["Figure 9.1 (fig-a): no problems recorded"]


def test_every_registered_figure_of_the_book_keeps_the_figure_rules(html_dir):
    root = html_dir.parents[1]
    breaks = registry_breaks(root / "results", root / "_executed" / "notebooks")
    assert not breaks, "\n".join(breaks)


# --------------------------------------------------------------------------- in the browser

#: per figure image of a page: its label, the vector and CSV links under it, and the re-run text
FIGURE_LINKS_JS = r"""
() => Array.from(document.querySelectorAll('main img')).map(img => {
  const m = (img.getAttribute('src') || '').match(/(?:figures|_images)\/(fig-[\w-]+)\.png$/);
  if (!m) return null;
  const label = m[1];
  const fig = document.querySelector(`main a[href$="/${label}.svg"]`);
  const data = document.querySelector(`main a[href$="/${label}.csv"]`);
  const block = (img.closest('section') || document.body).innerText;
  return {label, svg: fig ? fig.href : null, csv: data ? data.href : null,
          rerun: /Re-run:[\s\S]*overwrites[\s\S]*_executed\/[\s\S]*results\/[\s\S]*--root/.test(block)};
}).filter(x => x)
"""


def figure_link_breaks(browser, url: str) -> list[str]:
    """Each figure of the page at ``url`` without a vector link that loads as SVG, without a CSV with rows, or
    without the re-run note (what it overwrites, ``--root``)."""
    page = browser.new_page()
    try:
        page.goto(url, wait_until="load")
        figs = page.evaluate(FIGURE_LINKS_JS)
    finally:
        page.close()
    out = []
    for f in figs:
        if not f["svg"]:
            out.append(f"{f['label']}: no vector (SVG) link")
        else:
            with urllib.request.urlopen(f["svg"]) as r:
                if b"<svg" not in r.read(4096):
                    out.append(f"{f['label']}: its vector link is not an SVG")
        if f["csv"]:
            with urllib.request.urlopen(f["csv"]) as r:
                rows = list(csv.reader(io.StringIO(r.read().decode("utf-8"))))
            if len(rows) < 2:
                out.append(f"{f['label']}: its CSV has a header and no rows")
        if not f["rerun"]:
            out.append(f"{f['label']}: the re-run command does not say what it overwrites or how to run elsewhere")
    return out


def test_the_link_check_fails_on_a_page_whose_figure_lacks_them(browser, tmp_path):
    (tmp_path / "figures").mkdir()
    (tmp_path / "figure-data").mkdir()
    (tmp_path / "figures" / "fig-a.png").write_bytes(b"")
    (tmp_path / "figure-data" / "fig-a.csv").write_text("x,y\n")
    (tmp_path / "bad.html").write_text('<main><section><img src="figures/fig-a.png"><p>Data: '
                                       '<a href="figure-data/fig-a.csv">fig-a.csv</a> Re-run: <code>python</code></p>'
                                       "</section></main>")
    with serve_directory(tmp_path) as base:
        got = figure_link_breaks(browser, base + "bad.html")
    assert got == ["fig-a: no vector (SVG) link", "fig-a: its CSV has a header and no rows",
                   "fig-a: the re-run command does not say what it overwrites or how to run elsewhere"]


def test_every_figure_offers_its_vector_version_and_data_in_chromium(browser, html_dir):
    pages = sorted(html_dir.glob("**/notebooks/0*.html"))  # the chapters (_executed/notebooks/NN_*.html)
    assert pages, "no chapter pages"
    ARTIFACTS.mkdir(exist_ok=True)
    breaks = []
    with serve_directory(html_dir) as base:
        for p in pages:
            breaks += figure_link_breaks(browser, base + str(p.relative_to(html_dir)))
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        for chapter, label in (("02_better_separation", "fig-separation-app-b"), ("03_conditioning", "fig-figure3"),
                               ("04_infinite_depth", "fig-aak-training")):
            page.goto(base + str(next(p for p in pages if p.stem == chapter).relative_to(html_dir)), wait_until="load")
            img = page.locator(f"main img[src*='{label}']").first
            if img.count():
                img.scroll_into_view_if_needed()
                img.screenshot(path=str(ARTIFACTS / f"figure-{label}.png"))
        page.close()
    assert not breaks, "\n".join(breaks)
