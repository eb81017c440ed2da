"""The chapters' parameter specs by notebook, and the writer of the notebooks' ``parameters`` cells.

:data:`CHAPTER_PACKAGES` names the chapter package that declares each notebook's :class:`~lib.book.spec.ChapterSpec`
(``SPEC``); :func:`chapter_spec` imports it by that name when asked, so that a run of one chapter imports no other.
``python -m lib.site.specs --write`` rewrites every notebook's ``parameters`` cell from its spec
(:meth:`~lib.book.spec.ChapterSpec.parameters_cell`), after checking every spec's defaults and reading back what
it would write: a bad default leaves every notebook untouched and exits 2 with one message; the test suite fails
when a cell and its spec differ.
"""
from __future__ import annotations

import argparse
import ast
import importlib
import os
import re
import sys
from pathlib import Path
from typing import Mapping

from lib.book.params import ParameterError
from lib.book.paths import ROOT
from lib.book.spec import ChapterSpec

__all__ = ["CHAPTER_PACKAGES", "chapter_spec", "write_cell", "write_cells", "main"]


#: notebook stem -> chapter package that declares its ``SPEC``
CHAPTER_PACKAGES = {
    "01_linear_baseline": "lib.chapters.linear_baseline",
    "02_better_separation": "lib.chapters.better_separation",
    "03_conditioning": "lib.chapters.conditioning",
    "04_infinite_depth": "lib.chapters.infinite_depth",
    "05_non_constancy": "lib.chapters.non_constancy",
    "06_optimization": "lib.chapters.optimization",
    "07_performance": "lib.chapters.performance",
}


def chapter_spec(chapter: str) -> ChapterSpec | None:
    """The :class:`~lib.book.spec.ChapterSpec` of a notebook stem, or None when its package declares none yet."""
    pkg = CHAPTER_PACKAGES.get(chapter)
    if pkg is None:
        return None
    return getattr(importlib.import_module(pkg), "SPEC", None)


_CELL = re.compile(r"(# %% tags=\[\"parameters\"\]\n)(.*?)(\n\n# %%)", re.S)


def _new_text(path: Path, spec: ChapterSpec) -> tuple[str, str]:
    """(current text, text with the parameters cell written from ``spec``), the spec and the result checked.

    Raises:
        ParameterError: a default fails its own checker (or a joint rule), has no literal that reads back, or
            the new source is not valid Python; the notebook has no parameters cell or cannot be read.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ParameterError(f"{path}: cannot read the notebook source ({exc.strerror or exc})") from None
    m = _CELL.search(text)
    if m is None:
        raise ParameterError(f"{path}: no cell tagged parameters")
    try:
        spec.validate(spec.defaults(), display=False)  # every default passes its own checker and the joint rules
    except ParameterError as exc:
        lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
        raise ParameterError(f"{spec.chapter}: the spec's defaults are refused by its own checks: "
                             + " ".join(lines[:1] + ["; ".join(lines[1:])])) from None
    new = text[:m.start(2)] + spec.parameters_cell() + text[m.end(2):]
    try:
        ast.parse(new, filename=str(path))
    except SyntaxError as exc:
        raise ParameterError(f"{path}: the rewritten source would not parse (line {exc.lineno}: {exc.msg})") from None
    return text, new


def write_cell(path: Path, spec: ChapterSpec) -> bool:
    """Rewrite the ``parameters`` cell of a jupytext percent source from its spec; True if it changed.

    The spec's defaults and the new source are checked first (:func:`write_cells`); the file is replaced in one
    step (a temporary file renamed over it), so it is never left half written.

    Raises:
        ParameterError: see :func:`write_cells`; the file is then untouched.
    """
    return bool(write_cells({path: spec}))


def write_cells(cells: Mapping[Path, ChapterSpec], write: bool = True) -> list[Path]:
    """Check every spec and the source it would write, then (``write``) rewrite the cells that differ.

    Nothing is written unless every notebook passes: a default refused by its own checker, a default with no
    literal that reads back as itself (NaN, a string with a newline), or a rewritten source that does not parse
    leaves every file as it was.

    Args:
        cells: notebook source -> the spec of its parameters cell.
        write: rewrite the files (else only report which differ).

    Returns:
        The notebooks whose cell differs from its spec (rewritten when ``write``).

    Raises:
        ParameterError: one message naming the chapter, the parameter and the problem.
    """
    planned = {path: _new_text(path, spec) for path, spec in cells.items()}
    changed = [path for path, (old, new) in planned.items() if old != new]
    if write:
        for path in changed:
            tmp = path.with_name(f".{path.name}.tmp")
            tmp.write_text(planned[path][1], encoding="utf-8")
            os.replace(tmp, path)
    return changed


def main(argv: list[str] | None = None, root: Path | None = None) -> int:
    """``python -m lib.site.specs --write``: rewrite every notebook's parameters cell from its spec.

    Exit 0 when done (without ``--write`` the cells that differ from their spec are listed, nothing written); exit 2
    with one ``error:`` line, every notebook untouched, when a spec's default is refused (see :func:`write_cells`).
    """
    ap = argparse.ArgumentParser(prog="python -m lib.site.specs", description=main.__doc__)
    ap.add_argument("--write", action="store_true", help="rewrite the parameters cells (else only list differences)")
    args = ap.parse_args(argv)
    root = ROOT if root is None else Path(root)
    cells = {root / "notebooks" / f"{stem}.py": spec for stem in CHAPTER_PACKAGES
             if (spec := chapter_spec(stem)) is not None}
    try:
        changed = write_cells(cells, write=args.write)
    except ParameterError as exc:
        print(f"error: {exc} (no notebook was changed)", file=sys.stderr)
        return 2
    if not args.write:
        for path in changed:
            print(f"{path.name}: parameters cell differs from its spec")
    print(f"{len(changed)} cell(s) {'rewritten' if args.write else 'differ'}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
