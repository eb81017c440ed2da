"""One parameter spec per chapter: each notebook parameter declared once, with its default, its
checker and its one-line meaning.

A chapter package declares its parameters as a :class:`ChapterSpec` (QuantEcon keeps a model's
parameters in one ``NamedTuple`` with a comment per field; this is the same idea with a checker per
field)::

    SPEC = ChapterSpec("01_linear_baseline", dict(
        profile=Param("default", P.text, "parameter profile this run belongs to"),
        widths=Param([128, 512, 2048], P.int_list(min_value=1), "hidden widths m"),
    ))

A rule that couples parameters is declared in the spec too, as a function of the validated :class:`Config` in
``joint`` (shared forms: :func:`lib.book.params.one_per`, :func:`~lib.book.params.among`,
:func:`~lib.book.params.at_most`); it raises a :class:`~lib.book.params.ParameterError` naming both parameters,
and the parameters' one-line meanings say the rule ("some of depths", "at most seeds"). A chapter never filters
one parameter against another in silence.

Everything else is derived from it:

- the notebook's tagged ``parameters`` cell is plain literals for papermill, written by
  :meth:`ChapterSpec.parameters_cell` (``python -m lib.book.spec --write`` rewrites the cells, after
  checking every spec's defaults and reading back what it would write: a bad default leaves every
  notebook untouched and exits 2 with one message; the test suite fails when a cell and its spec differ);
- the notebook validates with one call, ``cfg = SPEC.validate(locals())``;
- tests build a configuration with ``SPEC.config(seeds=2)``, never a copy of the validate block;
- each profile of ``notebooks/profiles/<chapter>.yaml`` is checked with :meth:`ChapterSpec.check_profile`.
"""
from __future__ import annotations

import argparse
import ast
import importlib
import json
import math
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable, Mapping

from lib.book import profile_files
from lib.book.params import Checker, ParameterError
from lib.book.results import run_context
from lib.book.tables import use_book_tables

__all__ = ["Param", "ChapterSpec", "Config", "CHAPTER_PACKAGES", "chapter_spec", "write_cell", "write_cells", "main"]


@dataclass(frozen=True)
class Param:
    """One notebook parameter.

    Attributes:
        default: the value of the default profile (written into the notebook's parameters cell).
        check: the checker (:mod:`lib.book.params`): returns the normalized value or raises.
        doc: what the parameter means, in one line (the comment of the parameters cell).
    """

    default: Any
    check: Checker
    doc: str


class Config(SimpleNamespace):
    """The validated parameters of one run, as attributes, with the spec they were checked against
    (``cfg.spec``; ``cfg.chapter`` is the notebook stem)."""

    @property
    def chapter(self) -> str:
        return self.spec.chapter

    def values(self) -> dict:
        """The parameter values, by name (the spec's order)."""
        return {k: getattr(self, k) for k in self.spec.params}

    def sources(self, overrides: Mapping[str, Any] | None = None,
                profile_values: Mapping[str, Any] | None = None) -> dict[str, str]:
        """What set each parameter: ``"override"`` (a ``-p`` of the pipeline), ``"profile <name>"`` (the
        chapter's profile file), or ``"default"`` (the spec).

        Args:
            overrides: the ``-p`` overrides (default: this run's, :func:`lib.book.results.run_context`).
            profile_values: the profile's values for this chapter (default: read from
                ``notebooks/profiles/<chapter>.yaml`` by :func:`lib.book.profile_files.profile_values`).
        """
        if overrides is None:
            overrides = run_context(self.profile)["overrides"] or {}
        if profile_values is None:
            profile_values = profile_files.profile_values(self.chapter, self.profile)
        out = {}
        for name in self.spec.params:
            if name == "profile":
                out[name] = "override" if "profile" in overrides else "pipeline"
            elif name in overrides:
                out[name] = "override"
            elif name in profile_values:
                out[name] = f"profile {self.profile}"
            else:
                out[name] = "default"
        return out

    def markdown(self, sources: Mapping[str, str] | None = None) -> str:
        """"Parameters of this run" as a Markdown table: name, value, what set it, what it is."""
        sources = self.sources() if sources is None else sources
        rows = ["**Parameters of this run**", "", "| parameter | value | set by | what it is |",
                "|---|---|---|---|"]
        for name, param in self.spec.params.items():
            value = getattr(self, name)
            shown = value if isinstance(value, str) else json.dumps(value, default=str)
            rows.append(f"| `{name}` | `{shown}` | {sources.get(name, 'default')} | {param.doc.replace('|', '/')} |")
        return "\n".join(rows)


def _display_in_notebook(cfg: Config) -> None:
    """In a notebook kernel (nothing in scripts and tests): show the parameters table, and show every
    DataFrame as the book's tables read (:func:`lib.book.tables.use_book_tables`)."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython ships with the notebook stack
        return
    shell = get_ipython()
    if shell is None or not hasattr(shell, "kernel"):   # a terminal IPython has no kernel
        return
    from IPython.display import Markdown, display

    use_book_tables(shell)
    display(Markdown(cfg.markdown()))


@dataclass(frozen=True)
class ChapterSpec:
    """The parameters of one chapter notebook, declared once.

    Attributes:
        chapter: the notebook stem, e.g. ``"01_linear_baseline"``.
        params: name -> :class:`Param`, in the order of the parameters cell.
        joint: the rules across parameters (e.g. :func:`lib.book.params.one_per`, :func:`~lib.book.params.among`),
            run on the validated :class:`Config`; each raises :class:`~lib.book.params.ParameterError` naming the
            parameters it couples.
    """

    chapter: str
    params: dict[str, Param]
    joint: tuple[Callable[[Config], None], ...] = field(default=())

    def __post_init__(self):
        if "profile" not in self.params:
            raise ValueError(f"{self.chapter}: a chapter spec must declare 'profile'")

    @property
    def names(self) -> list[str]:
        return list(self.params)

    def defaults(self) -> dict:
        """The default profile's values, by name."""
        return {k: p.default for k, p in self.params.items()}

    def _check(self, values: Mapping[str, Any]) -> tuple[dict, list[str]]:
        out, errors = {}, []
        for name, p in self.params.items():
            try:
                out[name] = p.check(name, values[name])
            except ParameterError as exc:
                errors.append(str(exc))
        return out, errors

    def validate(self, values: Mapping[str, Any], display: bool = True) -> Config:
        """Check the chapter's parameters in ``values`` (a notebook passes ``locals()``).

        Every parameter of the spec must be in ``values``; other names are ignored (a notebook's
        namespace holds more). All problems are collected into one
        :class:`~lib.book.params.ParameterError` naming each parameter. In a notebook kernel the
        parameters table is shown, unless ``display`` is False.
        """
        missing = [k for k in self.params if k not in values]
        if missing:
            raise ParameterError(f"{self.chapter}: parameter(s) {missing} not set (the parameters cell must "
                                 "assign every parameter of the chapter's spec)")
        out, errors = self._check(values)
        if errors:
            raise ParameterError("bad notebook parameter(s):\n  " + "\n  ".join(errors))
        cfg = Config(spec=self, **out)
        for rule in self.joint:
            rule(cfg)
        if display:
            _display_in_notebook(cfg)
        return cfg

    def config(self, **overrides: Any) -> Config:
        """The defaults with ``overrides``, validated (for tests and scripts).

        Raises:
            ParameterError: an override names no parameter of this chapter, or a value is bad.
        """
        unknown = sorted(set(overrides) - set(self.params))
        if unknown:
            raise ParameterError(f"{self.chapter}: unknown parameter(s) {unknown}; known: {self.names}")
        return self.validate({**self.defaults(), **overrides})

    def check_profile(self, name: str, values: Mapping[str, Any]) -> None:
        """Check one profile of ``notebooks/profiles/<chapter>.yaml``: known names, good values.

        Raises:
            ParameterError: one message naming the profile, the chapter and each bad parameter.
        """
        try:
            self.config(**dict(values))
        except ParameterError as exc:
            raise ParameterError(f"profile {name!r} of {self.chapter}: {exc}") from None

    def parameters_cell(self) -> str:
        """The notebook's ``parameters`` cell: one ``name = literal  # doc`` line per parameter.

        Each line is read back (``ast.literal_eval``) and must give the default again, so a default that has
        no literal (NaN, inf, an object) or that would break the line (a string holding a newline) is refused. The
        comments must not hold ``=`` or a line break (papermill's parser would then miss the line).

        Raises:
            ParameterError: naming the chapter, the parameter and what is wrong.
        """
        lines = []
        for k, p in self.params.items():
            if "=" in p.doc or _breaks_line(p.doc):
                raise ParameterError(f"{self.chapter}: the doc of {k!r} holds '=' or a line break, which hides "
                                     "the line from papermill; reword it")
            if _breaks_line(p.default):
                raise ParameterError(f"{self.chapter}: the default of {k!r} holds a line break or another control "
                                     f"character ({p.default!r}); a parameters cell has one line per parameter")
            line = f"{k} = {_literal(p.default)}  # {p.doc}"
            try:
                back = ast.literal_eval(line.split(" = ", 1)[1].split("  # ", 1)[0])
            except (ValueError, SyntaxError):
                back = _UNREADABLE
            if not _same(back, p.default):
                raise ParameterError(f"{self.chapter}: the default of {k!r} ({p.default!r}) has no Python literal "
                                     "that reads back as itself (NaN, inf or an object?); papermill could not "
                                     "pass it")
            lines.append(line)
        return "\n".join(lines)


_UNREADABLE = object()


def _breaks_line(v: Any) -> bool:
    """Whether a value (or a string inside a list or dict) holds a line break or another control character."""
    if isinstance(v, str):
        return any(ord(c) < 32 or c in "\x7f\u2028\u2029\x85" for c in v)
    if isinstance(v, (list, tuple)):
        return any(_breaks_line(x) for x in v)
    if isinstance(v, dict):
        return any(_breaks_line(k) or _breaks_line(x) for k, x in v.items())
    return False


def _same(a: Any, b: Any) -> bool:
    """Equal as parameter values: same types (True is not 1), floats compared as floats (NaN is never the same)."""
    if isinstance(b, float) and not math.isfinite(b):
        return False
    if type(a) is not type(b):
        return False
    if isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in b)
    return a == b


def _literal(v: Any) -> str:
    """A Python literal as the parameters cells write it (strings in double quotes)."""
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(_literal(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_literal(k)}: {_literal(x)}" for k, x in v.items()) + "}"
    return repr(v)


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
    """The :class:`ChapterSpec` of a notebook stem, or None when its package declares none yet."""
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
    """``python -m lib.book.spec --write``: rewrite every notebook's parameters cell from its spec.

    Exit 0 when done (without ``--write`` the cells that differ from their spec are listed, nothing written); exit 2
    with one ``error:`` line, every notebook untouched, when a spec's default is refused (see :func:`write_cells`).
    """
    ap = argparse.ArgumentParser(prog="python -m lib.book.spec", description=main.__doc__)
    ap.add_argument("--write", action="store_true", help="rewrite the parameters cells (else only list differences)")
    args = ap.parse_args(argv)
    root = Path(__file__).resolve().parents[2] if root is None else Path(root)
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
