"""The layout rules of the one-source-of-truth redesign, checked mechanically on the source tree:
explicit re-exports, no private name imported across modules, no hand-typed figure provenance, no
``book_text`` modules, the chapters' numerics below the chapters, and notebooks that stay short."""
import ast
import re
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTER_INITS = sorted((ROOT / "lib" / "chapters").glob("*/__init__.py"))
LIB_FILES = sorted((ROOT / "lib").rglob("*.py"))
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py"))
#: at most this many code lines in all notebooks together (outside Markdown and the parameters cells): 250 for
#: the 65 claims of the first registry, plus about two lines (a measure call, a figure, a check) for each of
#: the companion papers' statements added by issue 26
NOTEBOOK_CODE_LINES = 300


@pytest.mark.parametrize("init", CHAPTER_INITS, ids=lambda p: p.parent.name)
def test_chapter_packages_re_export_explicitly(init):
    tree = ast.parse(init.read_text())
    stars = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names)]
    assert not stars, f"{init}: 'import *' on lines {stars}"
    alls = [n for n in tree.body if isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in n.targets)]
    assert len(alls) == 1 and isinstance(alls[0].value, ast.List), f"{init}: __all__ must be one literal list"


def test_no_private_name_is_imported_across_modules():
    bad = []
    for path in LIB_FILES:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("lib"):
                bad += [f"{path.relative_to(ROOT)}:{node.lineno} {a.name}" for a in node.names
                        if a.name.startswith("_") and not a.name.startswith("__")]
    assert not bad, bad


def test_no_hand_typed_figure_provenance_in_notebooks():
    bad = [p.name for p in NOTEBOOKS if re.search(r"Drawn\s+by", p.read_text())]
    assert not bad, f"'Drawn by' typed by hand in {bad}: register the figure with rec.figure"


def test_no_book_text_modules_are_left():
    assert not list((ROOT / "lib").rglob("book_text.py"))


def test_the_chapters_numerics_live_below_the_chapters():
    for name in ("relu_depth_kernels", "fast_extremes"):
        homes = [p for p in LIB_FILES if re.search(rf"^def {name}\(", p.read_text(), re.M)]
        assert homes and all("chapters" not in p.parts for p in homes), (name, homes)


def _code_lines(path: Path) -> int:
    n = 0
    for cell in jupytext.read(path).cells:
        if cell.cell_type == "code" and "parameters" not in cell.metadata.get("tags", []):
            n += sum(1 for line in cell.source.splitlines() if line.strip() and not line.strip().startswith("#"))
    return n


def test_notebooks_are_prose_parameters_and_short_calls():
    counts = {p.name: _code_lines(p) for p in NOTEBOOKS}
    assert sum(counts.values()) <= NOTEBOOK_CODE_LINES, counts


def test_no_legend_or_tick_label_is_set_below_9_points():
    """Issue 27: legends and tick labels at least 9 pt as rendered (figures are shown at their natural size,
    lib.book.plotting.COLUMN_INCHES); a named size below it ("small" is 8.8 pt in the book's style) or a number
    below 9 is refused in the chapters' plotting code."""
    bad = []
    for path in (ROOT / "lib" / "chapters").rglob("*.py"):
        for n, line in enumerate(path.read_text().splitlines(), start=1):
            if re.search(r"fontsize=(\"(xx-small|x-small|small)\"|[0-8](\.\d+)?\b)", line):
                bad.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not bad, "\n".join(bad)
