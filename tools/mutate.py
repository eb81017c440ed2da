"""Mutation testing of the verdict logic with mutmut (``make mutate``).

A verdict is what a reader of the book buys, so the rules that turn a measurement into a status must be
pinned by tests: a mutant of a rule (a flipped comparison, ``and``/``or`` swapped, a threshold changed, a
guard dropped) that changes a status must fail a test. This script runs `mutmut
<https://github.com/boxed/mutmut>`_ (pinned in ``requirements.txt``) on exactly that logic:

* **Scope.** The ``check_*`` functions of ``lib/chapters`` and, transitively, every chapter function they
  call by name (``rule(...)``, ``rules.decay_status(...)``); found by reading the code (:func:`verdict_functions`),
  so a new check is in scope the day it is written. Measurement, tables and figures are not mutated.
* **Tests.** Each chapter's mutants run against that chapter's tests (``tests/chapters/test_<package>*.py``),
  the fast ones (``-m "not slow"``: no notebook, book build or training on all of MNIST).
* **Score.** A surviving mutant that only changes the wording of a verdict cannot change a status; it is
  listed, not counted. Wording is what a reader reads and no rule reads (:func:`wording_only`): prose strings
  (f-strings, literals with a space), the text fields of a ``Check`` and of its judged rows (``measured=``,
  ``caveat=``, ``part=``, ...), the local variables whose value reaches those fields only (found by following
  each variable to its uses, :func:`wording_locals`), the ``rows=`` of a ``Check`` dropped or set to ``None``,
  and every mutant of a function whose result reaches wording only at each of its calls
  (:func:`wording_functions`). Every other mutant can change a status. The score is killed / (killed +
  status-capable survivors); ``make mutate`` fails below :data:`MIN_SCORE`.

mutmut runs in a scratch copy (``build/mutate/``), never in the work tree. The report is written to
``build/mutate/report.md`` and ``report.json``.

Usage::

    python tools/mutate.py                    # every chapter
    python tools/mutate.py --chapter 03 06    # some chapters
    python tools/mutate.py --root /path/to/clone --max-children 2
    python tools/mutate.py --scope            # each chapter's scope fingerprint (README's table), no mutant run
"""
from __future__ import annotations

import argparse
import ast
import difflib
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

from lib.book.results import VERDICTS
from lib.site.specs import CHAPTER_PACKAGES

#: The share of status-capable mutants the tests must kill (at least 95%).
MIN_SCORE = 0.95
#: mutmut's exit codes, as its ``mutmut.stats.status_by_exit_code`` reads them.
KILLED_CODES = {1, 3}
SURVIVED_CODES = {0}
#: "No tests": no test calls the function, so nothing pins it; counted with the survivors.
NO_TESTS_CODES = {5, 33}
TIMEOUT_CODES = {36, 24, -24, 152, 255}
#: The environment mutmut runs in: one thread for OpenMP, MKL and OpenBLAS. mutmut forks each mutant's test run
#: from a process that has run the tests once; torch's OpenMP pool does not survive a fork, so a forked child that
#: multiplies matrices waits forever on a lock, mutmut stops it as a timeout, and the mutant would count as killed
#: although no test caught it (measured: every mutant of chapter 06's record files, 381, hung so). One thread per
#: child has no pool to lose; with ``--max-children 2`` both cores are still busy.
SINGLE_THREAD_ENV = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
#: mutmut stops a mutant's tests after (their clean time + TIMEOUT_CONSTANT) x TIMEOUT_MULTIPLIER seconds of wall
#: time (twice that in CPU seconds) and counts the mutant killed (a mutant that hangs a rule is caught). mutmut's
#: clean time counts only each test's call phase: a module fixture's setup (chapter 06's tiny record, 2.5 s) and
#: the child's own start are left out. With mutmut's constant, 1 s, and a multiplier of 4, a child whose tests
#: take 0.1 s was stopped after 4.4 s of wall time while it needed 5 s: 242 mutants of chapter 06's record files
#: "killed by timeout" survived when run alone. 15 s covers that start; a hanging mutant costs 30 s or more.
TIMEOUT_CONSTANT = 15
TIMEOUT_MULTIPLIER = 2
#: What the scratch copy leaves out (version control, outputs, environments).
IGNORE = shutil.ignore_patterns(".git", ".venv", "__pycache__", "_build", "_executed", "results", ".cache",
                                "build", "mutants", "test-artifacts", "*.ipynb", ".pytest_cache")


@dataclass
class ChapterScope:
    """The verdict logic of one chapter package: which functions mutmut mutates, and which tests run."""
    package: str                                   # e.g. "conditioning"
    number: str                                    # e.g. "03"
    functions: dict[str, list[str]] = field(default_factory=dict)  # module path -> function names

    @property
    def files(self) -> list[str]:
        return sorted(self.functions)

    def patterns(self) -> list[str]:
        """mutmut's mutant-name patterns for these functions (``lib.chapters.x.mod.x_name__mutmut_*``)."""
        out = []
        for path, names in sorted(self.functions.items()):
            module = path[:-3].replace("/", ".")
            out += [f"{module}.x_{name}__mutmut_*" for name in sorted(names)]
        return out


def chapter_packages(root: Path) -> dict[str, str]:
    """Map a chapter number ("03") to its package name, from ``lib.site.specs.CHAPTER_PACKAGES`` (``root`` is the
    checkout whose chapters are meant; the ``lib`` imported here is that checkout's, as run from it)."""
    return {stem[:2]: pkg.rpartition(".")[2] for stem, pkg in CHAPTER_PACKAGES.items()}


def _module_functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}


#: Verdict rules whose one home is below the chapters (a rule two chapters use), each with the chapter package
#: whose tests pin it: that chapter's run follows its ``check_*`` functions into the module and mutates what they
#: reach there; the other chapters call it unmutated.
RULE_MODULES = {"lib.finite.width_trend": "linear_baseline"}


def _rule_modules(package: str) -> list[str]:
    """The modules of :data:`RULE_MODULES` whose rules ``package``'s tests pin."""
    return sorted(m for m, owner in RULE_MODULES.items() if owner == package)


def _imports(tree: ast.Module, package: str) -> tuple[dict[str, tuple[str, str]], dict[str, str]]:
    """Names imported from the chapter's own modules and its rule modules (:data:`RULE_MODULES`): (function
    name -> (module, name), alias -> module)."""
    names: dict[str, tuple[str, str]] = {}
    modules: dict[str, str] = {}
    base = f"lib.chapters.{package}"
    rules = _rule_modules(package)
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom):
            continue
        src = node.module or ""
        if node.level:                                   # from .rules import x / from . import rules
            src = f"{base}.{src}" if src else base
        for alias in node.names:
            local = alias.asname or alias.name
            if f"{src}.{alias.name}" in rules:           # from lib.finite import width_trend
                modules[local] = f"{src}.{alias.name}"
            elif src in rules:                           # from lib.finite.width_trend import width_trend
                names[local] = (src, alias.name)
            elif not src.startswith(base):
                continue
            elif src == base:                            # from . import rules
                modules[local] = f"{base}.{alias.name}"
            else:
                names[local] = (src, alias.name)
    return names, modules


def _package_paths(root: Path, package: str) -> list[tuple[str, Path]]:
    """(module, file) of the chapter package's modules and of its rule modules (:data:`RULE_MODULES`)."""
    own = [(f"lib.chapters.{package}.{path.stem}", path)
           for path in sorted((root / "lib" / "chapters" / package).glob("*.py"))]
    return own + [(m, root / (m.replace(".", "/") + ".py")) for m in _rule_modules(package)]


def verdict_functions(root: Path, package: str) -> dict[str, list[str]]:
    """The verdict logic of a chapter package: its ``check_*`` functions and, transitively,
    every module-level function of the same package (or of its rule modules, :data:`RULE_MODULES`) they call by
    name or as ``module.name``.

    Returns:
        Module file path (relative to ``root``) -> the names of its functions in scope.
    """
    funcs, imports = {}, {}
    for mod, path in _package_paths(root, package):
        tree = ast.parse(path.read_text(), filename=str(path))
        funcs[mod] = _module_functions(tree)
        imports[mod] = _imports(tree, package)
    todo = [(mod, name) for mod, fs in funcs.items() for name in fs if name.startswith("check_")]
    seen: set[tuple[str, str]] = set()
    while todo:
        mod, name = todo.pop()
        if (mod, name) in seen or name not in funcs.get(mod, {}):
            continue
        seen.add((mod, name))
        names, modules = imports[mod]
        for node in ast.walk(funcs[mod][name]):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            if isinstance(f, ast.Name):
                if f.id in funcs[mod]:
                    todo.append((mod, f.id))
                elif f.id in names:
                    todo.append(names[f.id])
            elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in modules:
                todo.append((modules[f.value.id], f.attr))
    out: dict[str, list[str]] = {}
    for mod, name in sorted(seen):
        out.setdefault(mod.replace(".", "/") + ".py", []).append(name)
    return out


def _without_docstring(func: ast.FunctionDef) -> ast.FunctionDef:
    body = func.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        func = ast.FunctionDef(**{**{f: getattr(func, f) for f in func._fields}, "body": body[1:] or [ast.Pass()]})
    return func


def scope_fingerprint(root: Path, functions: dict[str, list[str]]) -> str:
    """A short hash of the verdict logic a mutation score was measured on (:func:`verdict_functions`).

    The syntax tree of every function in scope (its name, arguments, decorators and body; its docstring and
    comments left out, since mutmut mutates neither), in a fixed order. The README's mutation table carries it per
    chapter, and ``tests/tools/test_mutate.py`` compares it with the code: a chapter whose verdict logic changed
    after its score was measured fails the test until it is measured again.
    """
    h = hashlib.sha256()
    for path in sorted(functions):
        tree = ast.parse((root / path).read_text(), filename=path)
        funcs = _module_functions(tree)
        for name in sorted(functions[path]):
            if name not in funcs:
                raise SystemExit(f"scope_fingerprint: {path} has no function {name!r}")
            h.update(f"{path}:{name}\n".encode())
            h.update(ast.dump(_without_docstring(funcs[name])).encode())
    return h.hexdigest()[:12]


#: What a reader reads but no rule reads: the text fields of a Check and of the rows it judged (and the part label,
#: which names the part a verdict belongs to), and the local variables the verdict sentence is assembled in. A
#: mutant confined to them changes wording only.
WORDING_FIELDS = frozenset({"measured", "caveat", "rule", "statement", "paper", "this book", "note", "text", "part"})
#: Fields whose value a mutant may drop or replace by ``None`` without changing a status: the judged rows a table
#: shows (:attr:`lib.book.results.Check.rows`). A mutant *inside* them (a row's ``holds``) is not wording.
DROPPABLE_FIELDS = frozenset({"rows"})


#: A claim id of the registry ("[LH] Prop 4.1"): it has a space but names a claim, it is not prose.
CLAIM_ID = re.compile(r"^\[[A-Za-z]+\] \S")


def _is_prose(node: ast.AST) -> bool:
    """A string a reader reads (an f-string, or a literal with a space), not a key, status or name: a verdict
    (:data:`lib.book.results.VERDICTS`, "not reproduced" has a space too) or a claim id is never prose."""
    return isinstance(node, ast.JoinedStr) or (
        isinstance(node, ast.Constant) and isinstance(node.value, str) and " " in node.value
        and node.value not in VERDICTS and not CLAIM_ID.match(node.value))


def _is_none(node: ast.AST | None) -> bool:
    return node is None or (isinstance(node, ast.Constant) and node.value is None)


def _target_names(target: ast.AST) -> list[ast.AST]:
    return list(target.elts) if isinstance(target, (ast.Tuple, ast.List)) else [target]


def _wording_target(target: ast.AST, names: frozenset) -> bool:
    """A target that receives wording only: a wording name, ``_`` inside a tuple, or a tuple of those with at least
    one wording name (``_, _, what, kernel = ...``)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return (all(_wording_target(e, names) or (isinstance(e, ast.Name) and e.id == "_") for e in target.elts)
                and any(_wording_target(e, names) for e in target.elts))
    return isinstance(target, ast.Name) and target.id in names


class Wording(frozenset):
    """The wording variables of a function (:data:`WORDING_FIELDS` and its locals that reach wording only,
    :func:`wording_locals`); ``nested`` maps each nested function to its parameters, so that a keyword argument
    of a call of it (``out(status, shown=...)``) is wording when that parameter is a wording variable."""
    nested: dict = {}   # name -> parameters in order
    returns: frozenset = frozenset()   # the positions of the function's returned tuple that reach wording only
    callees: dict = {}  # a function of the package -> (its parameters in order, those that reach wording only)

    @classmethod
    def of(cls, names, nested=None, returns=frozenset(), callees=None) -> "Wording":
        w = cls(names)
        w.nested = dict(nested or {})
        w.returns = frozenset(returns)
        w.callees = dict(callees or {})
        return w


def _callee(call: ast.AST | None, names: frozenset) -> tuple[list, frozenset]:
    """(parameters, wording parameters) of the package function ``call`` calls (:func:`wording_params`), if any."""
    f = getattr(call, "func", None)
    name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
    return getattr(names, "callees", {}).get(name, ([], frozenset()))


def _wording_keyword(node: ast.keyword, parent: ast.AST | None, names: frozenset) -> bool:
    if node.arg in WORDING_FIELDS or node.arg in _callee(parent, names)[1]:
        return True
    return node.arg in _nested_params(parent, names) and node.arg in names


def _nested_params(call: ast.AST | None, names: frozenset) -> list[str]:
    """The parameters of the nested function ``call`` calls (empty if it calls anything else)."""
    f = getattr(call, "func", None)
    return list(getattr(names, "nested", {}).get(f.id, ())) if isinstance(f, ast.Name) else []


def _wording_context(node: ast.AST, parent: ast.AST | None, field: str | None,
                     names: frozenset = WORDING_FIELDS) -> bool:
    """True if ``node``, a child of ``parent`` (in ``parent.field``), is wording by where it sits; ``names`` are the
    wording variables (a :class:`Wording`, or :data:`WORDING_FIELDS`)."""
    if _is_prose(node):
        return True
    if isinstance(node, ast.keyword) and _wording_keyword(node, parent, names):
        return True
    if isinstance(node, ast.keyword) and node.arg is None and isinstance(node.value, ast.Dict) and node.value.keys \
            and all(isinstance(k, ast.Constant) and k.value in WORDING_FIELDS for k in node.value.keys):
        return True                                 # dict(..., **{"this book": ...})
    if isinstance(parent, ast.Call) and field == "args" and node in parent.args:
        params = _nested_params(parent, names)   # out(status, measured): a positional wording parameter
        i = parent.args.index(node)
        if i < len(params) and params[i] in names:
            return True
        params, wording = _callee(parent, names)  # not_checked(cid, measured, why): a package function's
        if i < len(params) and params[i] in wording:
            return True
    if isinstance(parent, ast.Dict) and field in ("values", "keys"):
        key = node if field == "keys" else (parent.keys[parent.values.index(node)] if node in parent.values else None)
        return isinstance(key, ast.Constant) and key.value in WORDING_FIELDS     # a text field's value, or its key
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return all(_wording_target(t, names) for t in targets)
    if isinstance(parent, (ast.Tuple, ast.List)) and field == "elts":
        # status, caveat = "inconclusive", "..." : the element assigned to a wording name
        return bool(getattr(parent, "_wording_elts", None)) and node in parent._wording_elts
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        f = node.value.func   # lines.append(...) on a wording list
        return isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in names
    if isinstance(node, ast.FunctionDef) and node.name in names:
        return True                                 # a nested helper whose every call writes wording
    if isinstance(parent, ast.arguments) and field in ("defaults", "kw_defaults"):
        return getattr(node, "_wording_default", False)
    return False


def _annotate(tree: ast.AST, names: frozenset) -> None:
    """Mark the places :func:`_wording_context` reads from their parent: the value elements of a tuple assignment
    that go to wording names, the elements of a returned tuple that reach wording only at every call
    (:func:`wording_returns`), and the defaults of the wording parameters of a nested function."""
    returns = getattr(names, "returns", frozenset())
    for node in ast.walk(tree):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple):
            node.value._wording_elts = [e for i, e in enumerate(node.value.elts) if i in returns]
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, (ast.Tuple, ast.List)):
            targets = _target_names(node.targets[0])
            if len(targets) == len(node.value.elts) and len(targets) > 1:
                node.value._wording_elts = [v for t, v in zip(targets, node.value.elts) if _wording_target(t, names)]
        if isinstance(node, ast.arguments):
            pos = node.posonlyargs + node.args
            for a, d in zip(pos[len(pos) - len(node.defaults):], node.defaults):
                d._wording_default = a.arg in names
            for a, d in zip(node.kwonlyargs, node.kw_defaults):
                if d is not None:
                    d._wording_default = a.arg in names


def _parents(tree: ast.AST) -> dict[int, tuple[ast.AST, str]]:
    out = {}
    for node in ast.walk(tree):
        for name, value in ast.iter_fields(node):
            for child in (value if isinstance(value, list) else [value]):
                if isinstance(child, ast.AST):
                    out[id(child)] = (node, name)
    return out


def _in_wording(node: ast.AST, parents: dict, names: frozenset) -> bool:
    """Whether ``node`` lies in a wording context (:func:`_wording_context`) below its statement."""
    child = node
    while id(child) in parents:
        parent, field = parents[id(child)]
        if _wording_context(child, parent, field, names):
            return True
        if isinstance(child, ast.stmt):
            return False
        child = parent
    return False


def wording_locals(func: ast.FunctionDef, returns: frozenset = frozenset(), callees: dict | None = None,
                   params: bool = False) -> frozenset:
    """The local variables of ``func`` whose value reaches wording only: assigned (not a loop or comprehension
    variable, not a parameter of ``func``; parameters of nested functions, and nested functions, count) and read only
    in wording contexts
    (an f-string, a text field, the value of another wording variable, ``lines.append(...)`` on one), at least
    once. Found as the largest such set (a fixed point), together with :data:`WORDING_FIELDS`. ``returns``: the
    positions of the tuple ``func`` returns that reach wording only (:func:`wording_returns`); ``callees``: the
    package's functions and their wording parameters (:func:`wording_params`); ``params``: count ``func``'s own
    parameters as candidates too (to find its wording parameters)."""
    own = {a.arg for a in func.args.posonlyargs + func.args.args + func.args.kwonlyargs}
    own |= {a.arg for a in (func.args.vararg, func.args.kwarg) if a is not None}
    assigned, other, nested = set(), set(), {}
    for node in ast.walk(func):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                for e in _target_names(t):
                    (assigned if isinstance(e, ast.Name) else other).add(getattr(e, "id", None))
        elif isinstance(node, (ast.For, ast.comprehension, ast.With, ast.NamedExpr)):
            for t in ast.walk(getattr(node, "target", None) or getattr(node, "optional_vars", None) or node):
                if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store):
                    other.add(t.id)
        elif isinstance(node, ast.FunctionDef) and node is not func:
            args = node.args
            nested[node.name] = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
            assigned.add(node.name)
    assigned |= {p for params in nested.values() for p in params}
    loads = [n for n in ast.walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    names = (set(assigned) - other - (set() if params else own)) & {n.id for n in loads}
    if params:
        names |= own & {n.id for n in loads}        # a parameter never read is not known to be wording
    parents = _parents(func)
    while True:
        current = Wording.of(names | WORDING_FIELDS, nested, returns, callees)
        _annotate(func, current)
        bad = {n.id for n in loads if n.id in names and not _in_wording(n, parents, current)}
        if not bad:
            return current
        names -= bad


def _differences(a: ast.AST, b: ast.AST, parent=None, field=None, wording=False,
                 names: frozenset = WORDING_FIELDS) -> list[bool]:
    """Walk two ASTs in step; for each smallest place where they differ, whether it lies in wording."""
    if ast.dump(a) == ast.dump(b):
        return []
    wording = wording or _wording_context(a, parent, field, names)
    if isinstance(a, ast.keyword) and isinstance(b, ast.keyword) and a.arg == b.arg in DROPPABLE_FIELDS \
            and _is_none(b.value):
        return [True]                                       # rows=None: a table loses its rows, no status moves
    if type(a) is not type(b):
        return [wording]
    out: list[bool] = []
    for name, va in ast.iter_fields(a):
        vb = getattr(b, name, None)
        if isinstance(va, list):
            if len(va) != len(vb):
                # an element dropped or added: wording only if every unmatched element is wording
                extra = [x for x in va if not any(ast.dump(x) == ast.dump(y) for y in vb)] + \
                        [y for y in vb if not any(ast.dump(y) == ast.dump(x) for x in va)]
                out += [wording or all(isinstance(x, ast.AST) and (
                    _wording_context(x, a, name, names)
                    or (isinstance(x, ast.keyword) and x.arg in DROPPABLE_FIELDS)) for x in extra)]
                continue
            for xa, xb in zip(va, vb):
                if isinstance(xa, ast.AST):
                    out += _differences(xa, xb, a, name, wording, names)
                elif xa != xb:
                    out.append(wording)
        elif isinstance(va, ast.AST) and isinstance(vb, ast.AST):
            out += _differences(va, vb, a, name, wording, names)
        elif va != vb:
            out.append(wording)
    return out or [wording]


def wording_only(original: str, mutant: str, returns: frozenset = frozenset(), callees: dict | None = None) -> bool:
    """True if a mutant (the source of the mutated function) differs from the original function only in
    wording, so it can change what a verdict says but never its status.

    Wording is a prose string (an f-string or a literal with a space), a text field of a ``Check`` or of a
    judged row (:data:`WORDING_FIELDS`: ``measured=``, ``caveat=``, ``part=``, ``rule=``, ``"this book"``, ...), an
    assignment to a local variable of that name or to a local whose value reaches wording only
    (:func:`wording_locals`, e.g. ``left_out`` or ``shown`` assembled into ``measured``), the matching element of
    a tuple assignment (``status, caveat = "inconclusive", ""``), the default of such a parameter of a nested
    function, and the judged rows of a ``Check`` dropped or replaced by ``None`` (:data:`DROPPABLE_FIELDS`). A
    mutant of a string that is not prose (a column name, a status, an architecture such as ``"linear"``), of a
    row's ``holds=``, or of any logic can change what a rule reads, so it is *not* wording-only. ``returns``: the
    positions of the tuple the function returns that reach wording only at every call (:func:`wording_returns`);
    ``callees``: the package's functions with their wording parameters (:func:`wording_params`), so that an argument
    passed to one (``not_checked(cid, measured, why)``) is wording.
    """
    try:
        a, b = ast.parse(textwrap.dedent(original)), ast.parse(textwrap.dedent(mutant))
    except SyntaxError:
        return False
    funcs = [n for n in a.body if isinstance(n, ast.FunctionDef)]
    names = wording_locals(funcs[0], returns, callees) if len(funcs) == 1 else WORDING_FIELDS
    _annotate(a, names)
    diffs = _differences(a, b, names=names)
    return bool(diffs) and all(diffs)


def _calls_of(tree: ast.AST, name: str) -> list[tuple[ast.Call, ast.FunctionDef]]:
    """The calls of ``name`` (as ``name(...)`` or ``module.name(...)``) in the module-level functions of ``tree``,
    with the function each lies in."""
    out = []
    for fn in (n for n in tree.body if isinstance(n, ast.FunctionDef)):
        for node in ast.walk(fn):
            if isinstance(node, ast.Call):
                f = node.func
                if (isinstance(f, ast.Name) and f.id == name) or (isinstance(f, ast.Attribute) and f.attr == name):
                    out.append((node, fn))
    return out


def _package_trees(root: Path, package: str) -> dict[Path, ast.Module]:
    return {path: ast.parse(path.read_text(), filename=str(path)) for _, path in _package_paths(root, package)}


def wording_params(root: Path, package: str) -> dict[str, tuple[list, frozenset]]:
    """For each module-level function of the chapter package: its parameters in order, and those whose value reaches
    wording only in its body (every use in a text field, :func:`wording_locals` with the parameters as candidates),
    e.g. ``measured`` and ``why`` of ``not_checked(claim_id, measured, why)``. An argument passed to such a parameter
    is wording where the function is called.

    Returns:
        Function name -> (parameters, wording parameters).
    """
    funcs = [n for tree in _package_trees(root, package).values() for n in tree.body if isinstance(n, ast.FunctionDef)]
    out: dict = {}
    while True:     # a parameter passed on to another function's wording parameter is wording too: a fixed point
        new = {}
        for fn in funcs:
            own = [a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs]
            new[fn.name] = (own, frozenset(set(own) & wording_locals(fn, callees=out, params=True)))
        if new == out:
            return out
        out = new


def wording_returns(root: Path, package: str) -> dict[str, frozenset]:
    """For each function of the chapter package that returns a tuple, the positions of that tuple that reach
    wording only: at every call of it in the package the tuple is unpacked (``slopes, conv, words = f(...)``) and
    that position goes to ``_`` or to a wording variable of the caller (:func:`wording_locals`), e.g. a clause of
    ``measured`` returned beside the numbers a rule reads.

    Returns:
        Function name -> positions (functions with none are left out).
    """
    trees = _package_trees(root, package)
    funcs = [n for tree in trees.values() for n in tree.body if isinstance(n, ast.FunctionDef)]
    callees = wording_params(root, package)
    out = {}
    for g in funcs:
        sizes = {len(r.value.elts) for r in ast.walk(g) if isinstance(r, ast.Return) and isinstance(r.value, ast.Tuple)}
        calls = [c for tree in trees.values() for c in _calls_of(tree, g.name)]
        if len(sizes) != 1 or not calls:
            continue
        positions = set(range(sizes.pop()))
        for call, fn in calls:
            names = wording_locals(fn, callees=callees)
            target = next((n.targets[0] for n in ast.walk(fn) if isinstance(n, ast.Assign) and n.value is call
                           and len(n.targets) == 1 and isinstance(n.targets[0], ast.Tuple)), None)
            if target is None:
                positions.clear()
                break
            positions &= {i for i, e in enumerate(target.elts)
                          if isinstance(e, ast.Name) and (e.id == "_" or e.id in names)}
        if positions:
            out[g.name] = frozenset(positions)
    return out


def wording_functions(root: Path, package: str, scope: dict[str, list[str]]) -> set[str]:
    """The functions in ``scope`` (:func:`verdict_functions`) whose result reaches wording only: every call of it in
    the chapter package lies in a wording context of the calling function (:func:`wording_locals`), e.g. a helper
    that writes a clause of ``measured``. Every mutant of such a function changes wording only. ``check_*``
    functions (their result is the verdict) and functions never called in the package are not among them.

    Returns:
        ``"module.function"`` names (module as a dotted path).
    """
    trees = _package_trees(root, package)
    returns = wording_returns(root, package)
    callees = wording_params(root, package)
    out = set()
    for file, names in scope.items():
        module = file[:-3].replace("/", ".")
        for name in names:
            if name.startswith("check_"):
                continue
            calls = [c for tree in trees.values() for c in _calls_of(tree, name)]
            if calls and all(_call_in_wording(call, fn, returns.get(fn.name, frozenset()), callees)
                             for call, fn in calls):
                out.add(f"{module}.{name}")
    return out


def _call_in_wording(call: ast.Call, fn: ast.FunctionDef, returns: frozenset = frozenset(),
                     callees: dict | None = None) -> bool:
    names = wording_locals(fn, returns, callees)
    _annotate(fn, names)
    return _in_wording(call, _parents(fn), names)


def _setup_cfg(scopes: list[ChapterScope], work: Path) -> str:
    """mutmut's configuration: the files in scope, each chapter's test files (mutmut passes them to pytest as
    given, so the globs are expanded here), and what the copy needs beside ``lib`` and ``tests``."""
    files = sorted(f for s in scopes for f in s.files)
    tests = sorted({str(p.relative_to(work)) for s in scopes for p in work.glob(f"tests/chapters/test_{s.package}*.py")})
    lines = ["[mutmut]", "source_paths=lib", f"timeout_multiplier={TIMEOUT_MULTIPLIER}",
             f"timeout_constant={TIMEOUT_CONSTANT}", "only_mutate="]
    lines += [f"    {f}" for f in files]
    lines += ["pytest_add_cli_args=", "    -p", "    no:cacheprovider", "    -q", "    -m", "    not slow"]
    lines += ["pytest_add_cli_args_test_selection="] + [f"    {t}" for t in tests]
    lines += ["also_copy="] + [f"    {f}" for f in ("book", "notebooks", "_static", "_config.yml", "_toc.yml",
                                                   "jupytext.toml")]
    return "\n".join(lines) + "\n"


def _results(work: Path) -> dict[str, int | None]:
    """mutant name -> exit code, from mutmut's ``.meta`` files."""
    out: dict[str, int | None] = {}
    for meta in (work / "mutants").rglob("*.meta"):
        out.update(json.loads(meta.read_text()).get("exit_code_by_key", {}))
    return out


@functools.lru_cache(maxsize=None)
def _mutated_functions(path: Path) -> dict[str, str]:
    """Source of every module-level function of a mutated file, by name (parsed once per file)."""
    src = path.read_text()
    lines = src.splitlines(True)
    return {n.name: "".join(lines[n.lineno - 1:n.end_lineno]) for n in ast.parse(src).body
            if isinstance(n, ast.FunctionDef)}


def mutant_function(name: str) -> str:
    """The function a mutant of mutmut belongs to, ``"module.function"`` (``lib.chapters.x.mod.x_f__mutmut_3`` ->
    ``lib.chapters.x.mod.f``)."""
    mangled, _, _ = name.partition("__mutmut_")
    module, _, func = mangled.rpartition(".")
    return f"{module}.{func[2:] if func.startswith('x_') else func}"


def mutant_sources(work: Path, name: str) -> tuple[str, str]:
    """The source of the original function of mutant ``name`` and of the mutant, read from mutmut's
    mutated sources (``mutants/lib/...``: ``x_f__mutmut_orig`` and ``x_f__mutmut_N``), both named ``f``."""
    mangled, _, _ = name.partition("__mutmut_")
    module, _, func = mangled.rpartition(".")
    defs = _mutated_functions(work / "mutants" / (module.replace(".", "/") + ".py"))
    short = name.rpartition(".")[2]
    orig, mutant = defs.get(f"{func}__mutmut_orig", ""), defs.get(short, "")
    return orig.replace(f"{func}__mutmut_orig", "f", 1), mutant.replace(short, "f", 1)


def _wanted_chapters(packages: dict[str, str], chapters: list[str] | None) -> list[str]:
    """The chapters asked for (all when none), each a known chapter number, else one message naming the unknown."""
    wanted = chapters or sorted(packages)
    unknown = [c for c in wanted if c not in packages]
    if unknown:
        raise SystemExit(f"--chapter: unknown chapter(s) {unknown}; known: {sorted(packages)}")
    return wanted


def run(root: Path, chapters: list[str] | None, max_children: int | None, mutmut: str) -> dict:
    """Copy ``root`` to ``root/build/mutate``, run mutmut on the verdict logic of ``chapters``, score it."""
    packages = chapter_packages(root)
    wanted = _wanted_chapters(packages, chapters)
    if "[tool.mutmut]" in (root / "pyproject.toml").read_text():   # mutmut would read it before setup.cfg
        raise SystemExit("pyproject.toml has a [tool.mutmut] table; the configuration is written by tools/mutate.py")
    scopes = [ChapterScope(packages[c], c, verdict_functions(root, packages[c])) for c in wanted]
    work = root / "build" / "mutate"
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(root, work, ignore=IGNORE)
    (work / "setup.cfg").write_text(_setup_cfg(scopes, work))
    patterns = [p for s in scopes for p in s.patterns()]
    cmd = [mutmut, "run", *patterns] + ([f"--max-children={max_children}"] if max_children else [])
    proc = subprocess.run(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          env={**os.environ, **SINGLE_THREAD_ENV})
    codes = _results(work)
    tested = [v for v in codes.values() if v is not None]
    if proc.returncode != 0 and not tested:
        # e.g. the clean test run failed (a test that cannot pass on mutmut's instrumented copy): say so,
        # never report every mutant as "not run" in silence
        raise SystemExit(f"mutmut ran no mutant (exit {proc.returncode}); its output ends with:\n"
                         f"{proc.stdout[-3000:]}")
    report = {"min_score": MIN_SCORE, "chapters": {}}
    for s in scopes:
        prefixes = tuple(p[:-1] for p in s.patterns())         # drop the trailing "*"
        mine = {k: v for k, v in codes.items() if k.startswith(prefixes)}
        killed = sorted(k for k, v in mine.items() if v in KILLED_CODES or v in TIMEOUT_CODES)
        timeouts = sorted(k for k, v in mine.items() if v in TIMEOUT_CODES)
        survived = sorted(k for k, v in mine.items() if v in SURVIVED_CODES | NO_TESTS_CODES)
        other = sorted(k for k, v in mine.items() if k not in killed and k not in survived)
        wording, status = [], []
        words = wording_functions(work, s.package, s.functions)
        returns = wording_returns(work, s.package)
        callees = wording_params(work, s.package)
        for name in survived:
            orig, mutant = mutant_sources(work, name)
            diff = "".join(difflib.unified_diff(orig.splitlines(True), mutant.splitlines(True), n=0))
            func = mutant_function(name)
            only_words = func in words or wording_only(orig, mutant, returns.get(func.rpartition(".")[2], frozenset()),
                                                       callees)
            (wording if only_words else status).append({"name": name, "diff": _diff_lines(diff)})
        capable = len(killed) + len(status)
        report["chapters"][s.number] = dict(
            package=s.package, scope=scope_fingerprint(root, s.functions), functions=s.functions, mutants=len(mine),
            killed=len(killed), timeouts=timeouts,
            survived_wording=wording, survived_status=status, not_run=other,
            score=(len(killed) / capable) if capable else None)
    tot_k = sum(c["killed"] for c in report["chapters"].values())
    tot_s = sum(len(c["survived_status"]) for c in report["chapters"].values())
    report["score"] = tot_k / (tot_k + tot_s) if tot_k + tot_s else None
    (work / "report.json").write_text(json.dumps(report, indent=1))
    (work / "report.md").write_text(markdown(report))
    return report


def _diff_lines(diff: str) -> list[str]:
    return [l for l in diff.splitlines() if l[:1] in "+-" and not l.startswith(("+++", "---"))]


def markdown(report: dict) -> str:
    """The report as Markdown: one row per chapter, then every survivor with its diff."""
    out = ["# Mutation testing of the verdict logic (mutmut)", "",
           "| chapter | scope | functions | mutants | killed | of them by timeout | survivors that can change a status | "
           "survivors that change wording only | not run | score |", "|---|---|---|---|---|---|---|---|---|---|"]
    for num, c in report["chapters"].items():
        nf = sum(len(v) for v in c["functions"].values())
        score = "—" if c["score"] is None else f"{100 * c['score']:.1f}%"
        out.append(f"| {num} {c['package']} | `{c.get('scope', '?')}` | {nf} | {c['mutants']} | {c['killed']} | "
                   f"{len(c.get('timeouts', []))} | {len(c['survived_status'])} | "
                   f"{len(c['survived_wording'])} | {len(c['not_run'])} | {score} |")
    total = "—" if report["score"] is None else f"{100 * report['score']:.1f}%"
    out += ["", f"**Score: {total}** (killed / status-capable mutants; the floor is {100 * MIN_SCORE:.0f}%).", ""]
    for kind, title in (("survived_status", "Survivors that can change a status"),
                        ("survived_wording", "Survivors that change wording only")):
        rows = [(n, m) for n, c in report["chapters"].items() for m in c[kind]]
        out += [f"## {title} ({len(rows)})", ""]
        for num, m in rows:
            out += [f"- `{m['name']}`", "  ```diff", *[f"  {l}" for l in m["diff"]], "  ```"]
        out.append("")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1],
                    help="the clone to test (default: this one)")
    ap.add_argument("--chapter", nargs="*", help="chapter numbers, e.g. 03 06 (default: all)")
    ap.add_argument("--max-children", type=int, default=None, help="parallel mutmut workers (default: mutmut's)")
    ap.add_argument("--scope", action="store_true",
                    help="print each chapter's scope fingerprint (scope_fingerprint) and stop; runs no mutant")
    ap.add_argument("--mutmut", default=str(Path(sys.executable).with_name("mutmut")),
                    help="the mutmut executable (default: the one beside this Python)")
    args = ap.parse_args(argv)
    if args.scope:
        root = args.root.resolve()
        packages = chapter_packages(root)
        for num in _wanted_chapters(packages, args.chapter):
            print(num, packages[num], scope_fingerprint(root, verdict_functions(root, packages[num])))
        return 0
    if not Path(args.mutmut).exists():
        raise SystemExit(f"--mutmut: {args.mutmut} not found; install the pinned mutmut (pip install -r requirements.txt)")
    report = run(args.root.resolve(), args.chapter, args.max_children, args.mutmut)
    print(markdown(report).split("\n## ")[0])
    return 0 if report["score"] is None or report["score"] >= MIN_SCORE else 1


if __name__ == "__main__":
    sys.exit(main())
