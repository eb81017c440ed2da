"""End to end: every notebook under the smoke profile through papermill, then the book with -W."""
import json
import re

import pytest

from lib.site.pipeline import executed_path, notebook_sources

pytestmark = pytest.mark.slow


def test_every_notebook_executes_under_smoke_profile(smoke_book):
    root, pipe, _ = smoke_book
    assert pipe.returncode == 0, pipe.stdout[-3000:] + pipe.stderr[-3000:]
    for src in notebook_sources(root):
        assert not src.with_suffix(".ipynb").exists(), f"{src.name}: no executed copy beside the source"
        nb = json.loads(executed_path(src, root).read_text())
        errors = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])
                  if o.get("output_type") == "error"]
        assert not errors, f"{src.name}: {errors[:1]}"
        injected = [c for c in nb["cells"] if "injected-parameters" in c.get("metadata", {}).get("tags", [])]
        assert injected and 'profile = "smoke"' in "".join(injected[0]["source"])


def test_every_chapter_records_verdicts(smoke_book):
    root, pipe, _ = smoke_book
    assert pipe.returncode == 0
    chapters = {p.stem for p in notebook_sources(root) if p.parent.name == "notebooks"}
    recorded = {p.stem for p in (root / "results").glob("*.json")}
    assert chapters <= recorded, f"chapters without verdicts: {chapters - recorded}"


def test_book_builds_without_warnings(smoke_book):
    root, pipe, book = smoke_book
    assert book is not None, "notebooks failed; see the other test"
    assert book.returncode == 0, book.stdout[-4000:] + book.stderr[-4000:]
    assert "WARNING" not in book.stderr
    html = root / "_build" / "html"
    page = (html / "_executed" / "notebooks" / "01_linear_baseline.html").read_text()
    assert len(re.findall(r"<img [^>]*src=\"\.\./\.\./_images/", page)) >= 3
    assert "_static/mathjax/" in page and "cdn.jsdelivr" not in page
