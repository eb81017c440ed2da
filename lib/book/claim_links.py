"""Which chapter function checks which claim, read from the chapters' sources: the link is written once.

The one declaration of the link between a claim and its checks is the claim id a check records,
``Check("[LH] Thm 2.3", ...)``, in the check's own source. This module reads it back with :mod:`ast`
(it never imports :mod:`lib.chapters`), so :attr:`lib.book.claims.Claim.checked_by`, the part labels a claim's
checks record, and the table on the reproducibility report are derived, never typed.

A *check* is a module-level function of a chapter package whose name starts with ``check`` and that returns a
:class:`lib.book.results.Check` (its return annotation names ``Check``, or its body builds one). Its claim ids are
read from the ``Check(...)`` calls in its body, and from the calls to a *builder* (a chapter function that passes
one of its arguments on as a ``Check``'s claim id, such as ``not_checked(claim_id, ...)``). An id is a string
literal, or a name bound in the check to literals or to an entry of a literal module constant
(``cid = {"nngp": "[AAK] Thm 3.2", ...}[kind]``; an entry picked by an argument stands for all of them), or an
f-string whose fields are arguments the check validates against a module constant
(``if lemma not in LEMMAS_E: raise ...`` then ``f"[LH] Lemma {lemma}"``); part labels are read the same way. A
private helper of the same module that returns a ``Check`` is read as part of the check that calls it. A check
that records no id this way, or an id that is not a literal, is a :class:`LinkProblem`; ``tests/test_layout.py``
fails on any.
"""
from __future__ import annotations

import ast
import functools
import itertools
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CHAPTERS", "CheckLink", "LinkProblem", "scan_module", "scan_chapters", "check_links", "link_problems"]

#: The chapter packages whose sources are read (``lib/chapters``).
CHAPTERS = Path(__file__).resolve().parents[1] / "chapters"


@dataclass(frozen=True)
class CheckLink:
    """One claim a check records.

    Attributes:
        function: the check, ``"package.function"`` (as the chapter package exports it), e.g.
            ``"linear_baseline.check_kernel"``.
        claim_id: the registry id it records.
        parts: the part labels it records for that claim where they are literals (a label built at run time,
            like ``f"real pairs, {data}"``, is not listed).
        path: the module's path relative to ``lib/chapters``.
        line: the check's first line.
    """

    function: str
    claim_id: str
    parts: tuple[str, ...]
    path: str
    line: int


@dataclass(frozen=True)
class LinkProblem:
    """A check whose claim is not declared with it (no literal claim id), with where it is and why."""

    function: str
    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line} {self.function}: {self.message}"


def _callee(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _params(fn: ast.FunctionDef) -> list[str]:
    return [a.arg for a in fn.args.posonlyargs + fn.args.args]


def _literal(node: ast.AST | None):
    try:
        return ast.literal_eval(node) if node is not None else None
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def _returns_check(fn: ast.FunctionDef) -> bool:
    return fn.returns is not None and "Check" in ast.unparse(fn.returns)


def _builds_check(fn: ast.FunctionDef) -> bool:
    return any(isinstance(n, ast.Call) and _callee(n) == "Check" for n in ast.walk(fn))


def _argument(call: ast.Call, index: int | None, name: str | None) -> ast.AST | None:
    if index is not None and index < len(call.args):
        return call.args[index]
    return next((k.value for k in call.keywords if name is not None and k.arg == name), None)


class _Module:
    """One chapter module: its functions and literal constants."""

    def __init__(self, source: str, path: str, package: str):
        self.tree = ast.parse(source, filename=path)
        self.path, self.package = path, package
        self.functions = {f.name: f for f in self.tree.body if isinstance(f, ast.FunctionDef)}
        self.constants = {}
        for node in self.tree.body:
            target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else \
                node.target if isinstance(node, ast.AnnAssign) else None
            if isinstance(target, ast.Name) and _literal(node.value) is not None:
                self.constants[target.id] = _literal(node.value)

    def checks(self) -> list[ast.FunctionDef]:
        return [f for f in self.functions.values()
                if f.name.startswith("check") and (_returns_check(f) or _builds_check(f))]


def _claim_arguments(call: ast.Call, builders: dict) -> tuple[ast.AST | None, ast.AST | None] | None:
    """The (claim id, part) expressions a call passes to a ``Check`` (directly or through a builder), or None."""
    callee = _callee(call)
    if callee == "Check":
        return _argument(call, 0, "claim_id"), _argument(call, None, "part")
    if callee in builders:
        ci, cp, pi, pp = builders[callee]
        return _argument(call, ci, cp), _argument(call, pi, pp)
    return None


def _builders(modules: list[_Module]) -> dict[str, tuple[int, str, int | None, str | None]]:
    """Functions that pass an argument on as a ``Check``'s claim id: name -> (claim index, claim parameter,
    part index, part parameter)."""
    found: dict[str, tuple[int, str, int | None, str | None]] = {}
    changed = True
    while changed:
        changed = False
        for mod in modules:
            for name, fn in mod.functions.items():
                if name in found:
                    continue
                params = _params(fn)
                for call in (n for n in ast.walk(fn) if isinstance(n, ast.Call)):
                    given = _claim_arguments(call, found)
                    if given is None:
                        continue
                    claim, part = given
                    if isinstance(claim, ast.Name) and claim.id in params:
                        pname = part.id if isinstance(part, ast.Name) and part.id in params else None
                        found[name] = (params.index(claim.id), claim.id,
                                       params.index(pname) if pname else None, pname)
                        changed = True
                        break
    return found


class _Reader:
    """Resolves the claim ids and part labels of one check."""

    def __init__(self, mod: _Module, fn: ast.FunctionDef):
        self.mod, self.fn, self.params = mod, fn, _params(fn)

    def _bound(self, name: str) -> list[tuple[ast.AST, int | None]]:
        """The expressions ``name`` is assigned in the check: ``(e, None)`` for ``name = e``, ``(e, i)`` for its place
        ``i`` in ``a, name = e``."""
        out = []
        for node in ast.walk(self.fn):
            if not isinstance(node, ast.Assign):
                continue
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id == name:
                    out.append((node.value, None))
                elif isinstance(target, ast.Tuple):
                    out += [(node.value, i) for i, t in enumerate(target.elts)
                            if isinstance(t, ast.Name) and t.id == name]
        return out

    def _validated(self, name: str) -> list | None:
        """The values an argument may take, from a guard ``if name not in CONSTANT: raise ...``."""
        for node in ast.walk(self.fn):
            if isinstance(node, ast.If) and isinstance(node.test, ast.Compare) \
                    and isinstance(node.test.left, ast.Name) and node.test.left.id == name \
                    and len(node.test.ops) == 1 and isinstance(node.test.ops[0], ast.NotIn) \
                    and isinstance(node.test.comparators[0], ast.Name) \
                    and any(isinstance(s, ast.Raise) for s in node.body):
                const = self.mod.constants.get(node.test.comparators[0].id)
                return list(const) if isinstance(const, (dict, tuple, list, set, frozenset)) else None
        return None

    def _candidates(self, node: ast.AST) -> list | None:
        """The literal values an expression can take, or None when they are not written as literals."""
        if isinstance(node, ast.Name):
            bound = self._bound(node.id)
            if bound:
                out = []
                for expr, index in bound:
                    got = self._candidates(expr)
                    if got is None:
                        return None
                    if index is not None:
                        try:
                            got = [g[index] for g in got]
                        except (TypeError, IndexError, KeyError):
                            return None
                    out += got
                return out
            if node.id in self.params:
                return self._validated(node.id)
            return [self.mod.constants[node.id]] if node.id in self.mod.constants else None
        if isinstance(node, ast.Subscript):
            bases, keys = self._candidates(node.value), self._candidates(node.slice)
            if bases is None:
                return None
            out = []
            for base in bases:
                if not isinstance(base, (dict, tuple, list)):
                    return None
                if keys is None:  # any entry (a key the check is given)
                    out += list(base.values()) if isinstance(base, dict) else list(base)
                    continue
                for key in keys:
                    try:
                        out.append(base[key])
                    except (TypeError, IndexError, KeyError):
                        return None
            return out
        if isinstance(node, ast.JoinedStr):
            pieces = []
            for v in node.values:
                if isinstance(v, ast.Constant):
                    pieces.append([str(v.value)])
                elif isinstance(v, ast.FormattedValue) and v.format_spec is None and v.conversion == -1:
                    got = self._candidates(v.value)
                    if got is None or not all(isinstance(g, str) for g in got):
                        return None
                    pieces.append(got)
                else:
                    return None
            return ["".join(p) for p in itertools.product(*pieces)]
        value = _literal(node)
        return None if value is None else [value]

    def values(self, node: ast.AST | None) -> set[str] | None:
        """The strings an expression can be, or None when they are not all written as literals."""
        got = self._candidates(node) if node is not None else None
        return set(got) if got and all(isinstance(g, str) for g in got) else None


def _read_check(mod: _Module, fn: ast.FunctionDef, builders, seen=()) -> tuple[dict[str, set[str]], list[int]]:
    """claim id -> literal part labels recorded by ``fn`` (and the private helpers it calls), and the lines of
    claim ids that are not literals."""
    reader, ids, bad = _Reader(mod, fn), {}, []
    for call in (n for n in ast.walk(fn) if isinstance(n, ast.Call)):
        given, callee = _claim_arguments(call, builders), _callee(call)
        if given is None:
            if callee.startswith("_") and callee in mod.functions and callee not in seen \
                    and _returns_check(mod.functions[callee]):  # a private helper that builds the check's Check
                sub, sub_bad = _read_check(mod, mod.functions[callee], builders, seen + (fn.name,))
                for cid, parts in sub.items():
                    ids.setdefault(cid, set()).update(parts)
                bad += sub_bad
            continue
        claim, part = given
        cids = reader.values(claim)
        if cids is None:
            bad.append(call.lineno)
            continue
        labels = reader.values(part) if part is not None else set()
        for cid in cids:
            ids.setdefault(cid, set()).update(p for p in labels or () if p)
    return ids, bad


def scan_module(source: str, path: str = "<source>", package: str = "chapter",
                helpers: tuple[str, ...] = ()) -> tuple[list[CheckLink], list[LinkProblem]]:
    """The claim links of one chapter module's checks.

    Args:
        source: the module's source text.
        path: its path, for messages.
        package: the chapter package that exports its checks.
        helpers: the sources of the other modules of the package (where its builders may live).

    Returns:
        The links, and the checks whose claim is not declared with them.
    """
    mod = _Module(source, path, package)
    builders = _builders([mod] + [_Module(s, "<helper>", package) for s in helpers])
    return _links([mod], builders)


def _links(modules: list[_Module], builders) -> tuple[list[CheckLink], list[LinkProblem]]:
    links, problems = [], []
    for mod in modules:
        for fn in mod.checks():
            name = f"{mod.package}.{fn.name}"
            ids, bad = _read_check(mod, fn, builders)
            problems += [LinkProblem(name, mod.path, line, "its Check's claim id is not a string literal (nor a name "
                                     "or f-string bound to literals in the check)") for line in bad]
            calls_checks = any(isinstance(n, ast.Call) and _callee(n).startswith("check_") for n in ast.walk(fn))
            if not ids and not bad and not calls_checks:
                problems.append(LinkProblem(name, mod.path, fn.lineno, "records no claim id: no Check(\"[PAPER] "
                                            "Kind number\", ...) in its body"))
            links += [CheckLink(name, cid, tuple(sorted(parts)), mod.path, fn.lineno)
                      for cid, parts in sorted(ids.items())]
    return links, problems


@functools.cache
def scan_chapters(root: Path = CHAPTERS) -> tuple[tuple[CheckLink, ...], tuple[LinkProblem, ...]]:
    """The claim links of every check of every chapter package under ``root``, in source order, and the problems."""
    links, problems = [], []
    for pkg in sorted(p for p in root.iterdir() if (p / "__init__.py").is_file()):
        modules = [_Module(p.read_text(), p.relative_to(root).as_posix(), pkg.name) for p in sorted(pkg.rglob("*.py"))]
        got, bad = _links(modules, _builders(modules))
        links += got
        problems += bad
    return tuple(links), tuple(problems)


def check_links() -> tuple[CheckLink, ...]:
    """Every (check, claim) link of the chapters (:func:`scan_chapters` of ``lib/chapters``)."""
    return scan_chapters()[0]


def link_problems() -> tuple[LinkProblem, ...]:
    """The chapter checks whose claim is not declared with them (empty when every check records a literal id)."""
    return scan_chapters()[1]
