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
  :meth:`ChapterSpec.parameters_cell` (``python -m lib.site.specs --write`` rewrites the cells, after
  checking every spec's defaults and reading back what it would write: a bad default leaves every
  notebook untouched and exits 2 with one message; the test suite fails when a cell and its spec differ);
- the notebook validates with one call, ``cfg = SPEC.validate(locals())``;
- tests build a configuration with ``SPEC.config(seeds=2)``, never a copy of the validate block;
- each profile of ``notebooks/profiles/<chapter>.yaml`` is checked with :meth:`ChapterSpec.check_profile`.
"""
from __future__ import annotations

import ast
import functools
import json
import math
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Callable, Mapping

from lib.book import profile_files
from lib.book.params import Checker, ParameterError
from lib.book.results import run_context
from lib.book.tables import use_book_tables

__all__ = ["Param", "ChapterSpec", "Config", "reads_config"]


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


def reads_config(**fields: str | Callable[[Config], Any]) -> Callable:
    """Let a ``measure_*`` function that takes its sizes as arguments be called ``measure_x(cfg, *inputs)``, the
    way a notebook calls every measurement: the run's :class:`Config` passed whole.

    Each keyword names an argument of the function and the parameter it is read from (``width="two_sample_width"``)
    or a function of the config (``width=lambda cfg: max(cfg.widths)``). Called with a :class:`Config` first, the
    function gets the other positional arguments (earlier results, e.g. the data) and these values; a keyword given
    in the call wins (a second run at another setting). Called without one (tests), it is the function as written.
    """
    def wrap(func: Callable) -> Callable:
        @functools.wraps(func)
        def measure(*args, **kwargs):
            if not args or not isinstance(args[0], Config):
                return func(*args, **kwargs)
            cfg, *inputs = args
            read = {k: (v(cfg) if callable(v) else getattr(cfg, v)) for k, v in fields.items()}
            return func(*inputs, **(read | kwargs))
        measure.config_fields = dict(fields)
        return measure
    return wrap
