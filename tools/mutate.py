"""Mutation testing of the verdict logic with mutmut (``make mutate``; issue 25).

A verdict is what a reader of the book buys, so the rules that turn a measurement into a status must be
pinned by tests: a mutant of a rule (a flipped comparison, ``and``/``or`` swapped, a threshold changed, a
guard dropped) that changes a status must fail a test. This script runs `mutmut
<https://github.com/boxed/mutmut>`_ (pinned in ``requirements.txt``) on exactly that logic:

* **Scope.** The ``check_*`` functions of ``lib/chapters`` and, transitively, every chapter function they
  call by name (``rule(...)``, ``rules.decay_status(...)``); found by reading the code (:func:`verdict_functions`),
  so a new check is in scope the day it is written. Measurement, tables and figures are not mutated.
* **Tests.** Each chapter's mutants run against that chapter's tests (``tests/chapters/test_<package>*.py``).
* **Score.** A surviving mutant that only changes the wording of a sentence (it differs from the original
  only inside string literals that are prose: they contain a space, or are f-strings) cannot change a
  status; it is listed, not counted (:func:`wording_only`). Every other mutant can change a status. The
  score is killed / (killed + status-capable survivors); ``make mutate`` fails below :data:`MIN_SCORE`.

mutmut runs in a scratch copy (``build/mutate/``), never in the work tree. The report is written to
``build/mutate/report.md`` and ``report.json``.

Usage::

    python tools/mutate.py                    # every chapter
    python tools/mutate.py --chapter 03 06    # some chapters
    python tools/mutate.py --root /path/to/clone --max-children 2
"""
from __future__ import annotations

import argparse
import ast
import difflib
import functools
import json
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

#: The share of status-capable mutants the tests must kill (issue 25: "at least 95%").
MIN_SCORE = 0.95
#: mutmut's exit codes, as its ``mutmut.stats.status_by_exit_code`` reads them.
KILLED_CODES = {1, 3}
SURVIVED_CODES = {0}
#: "No tests": no test calls the function, so nothing pins it; counted with the survivors.
NO_TESTS_CODES = {5, 33}
TIMEOUT_CODES = {36, 24, -24, 152, 255}
#: mutmut stops a mutant's tests after (their clean time + 1 s) x 2 x this many CPU seconds and counts it
#: killed (a mutant that hangs a rule is caught). mutmut's default, 15, lets each hanging mutant burn
#: half a minute of CPU; 4 still leaves 8 times the clean time.
TIMEOUT_MULTIPLIER = 4
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
    """Map a chapter number ("03") to its package name, from ``lib.book.spec.CHAPTER_PACKAGES``."""
    sys.path.insert(0, str(root))
    try:
        from lib.book.spec import CHAPTER_PACKAGES
    finally:
        sys.path.pop(0)
    return {stem[:2]: pkg.rpartition(".")[2] for stem, pkg in CHAPTER_PACKAGES.items()}


def _module_functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}


def _imports(tree: ast.Module, package: str) -> tuple[dict[str, tuple[str, str]], dict[str, str]]:
    """Names imported from the chapter's own modules: (function name -> (module, name), alias -> module)."""
    names: dict[str, tuple[str, str]] = {}
    modules: dict[str, str] = {}
    base = f"lib.chapters.{package}"
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom):
            continue
        src = node.module or ""
        if node.level:                                   # from .rules import x / from . import rules
            src = f"{base}.{src}" if src else base
        if not src.startswith(base):
            continue
        for alias in node.names:
            local = alias.asname or alias.name
            if src == base:                              # from . import rules
                modules[local] = f"{base}.{alias.name}"
            else:
                names[local] = (src, alias.name)
    return names, modules


def verdict_functions(root: Path, package: str) -> dict[str, list[str]]:
    """[Issue 25] The verdict logic of a chapter package: its ``check_*`` functions and, transitively,
    every module-level function of the same package they call by name or as ``module.name``.

    Returns:
        Module file path (relative to ``root``) -> the names of its functions in scope.
    """
    pkg_dir = root / "lib" / "chapters" / package
    funcs, imports = {}, {}
    for path in sorted(pkg_dir.glob("*.py")):
        mod = f"lib.chapters.{package}.{path.stem}"
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


#: What a reader reads but no rule reads: the text fields of a Check and of the rows it judged, and the
#: local variables the verdict sentence is assembled in. A mutant confined to them changes wording only.
WORDING_FIELDS = frozenset({"measured", "caveat", "rule", "statement", "paper", "this book", "note", "text"})


def _is_prose(node: ast.AST) -> bool:
    """A string a reader reads (an f-string, or a literal with a space), not a key, status or name."""
    return isinstance(node, ast.JoinedStr) or (
        isinstance(node, ast.Constant) and isinstance(node.value, str) and " " in node.value)


def _wording_context(node: ast.AST, parent: ast.AST | None, field: str | None) -> bool:
    """True if ``node``, a child of ``parent`` (in ``parent.field``), is wording by where it sits."""
    if _is_prose(node):
        return True
    if isinstance(node, ast.keyword) and node.arg in WORDING_FIELDS:
        return True
    if isinstance(parent, ast.Dict) and field == "values":
        key = parent.keys[parent.values.index(node)] if node in parent.values else None
        return isinstance(key, ast.Constant) and key.value in WORDING_FIELDS
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return all(isinstance(t, ast.Name) and t.id in WORDING_FIELDS for t in targets)
    return False


def _differences(a: ast.AST, b: ast.AST, parent=None, field=None, wording=False) -> list[bool]:
    """Walk two ASTs in step; for each smallest place where they differ, whether it lies in wording."""
    if ast.dump(a) == ast.dump(b):
        return []
    wording = wording or _wording_context(a, parent, field)
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
                out += [wording or all(isinstance(x, ast.AST) and _wording_context(x, a, name) for x in extra)]
                continue
            for xa, xb in zip(va, vb):
                if isinstance(xa, ast.AST):
                    out += _differences(xa, xb, a, name, wording)
                elif xa != xb:
                    out.append(wording)
        elif isinstance(va, ast.AST) and isinstance(vb, ast.AST):
            out += _differences(va, vb, a, name, wording)
        elif va != vb:
            out.append(wording)
    return out or [wording]


def wording_only(original: str, mutant: str) -> bool:
    """True if a mutant (the source of the mutated function) differs from the original function only in
    wording, so it can change what a verdict says but never its status.

    Wording is a prose string (an f-string or a literal with a space), a text field of a ``Check`` or of a
    judged row (:data:`WORDING_FIELDS`: ``measured=``, ``caveat=``, ``rule=``, ``"this book"``, ...), or an
    assignment to a local variable of that name. A mutant of a string that is not prose (a column name, a
    status, an architecture such as ``"linear"``), of ``holds=``, or of any logic can change what a rule
    reads, so it is *not* wording-only.
    """
    try:
        a, b = ast.parse(textwrap.dedent(original)), ast.parse(textwrap.dedent(mutant))
    except SyntaxError:
        return False
    diffs = _differences(a, b)
    return bool(diffs) and all(diffs)


def _setup_cfg(scopes: list[ChapterScope], work: Path) -> str:
    """mutmut's configuration: the files in scope, each chapter's test files (mutmut passes them to pytest as
    given, so the globs are expanded here), and what the copy needs beside ``lib`` and ``tests``."""
    files = sorted(f for s in scopes for f in s.files)
    tests = sorted({str(p.relative_to(work)) for s in scopes for p in work.glob(f"tests/chapters/test_{s.package}*.py")})
    lines = ["[mutmut]", "source_paths=lib", f"timeout_multiplier={TIMEOUT_MULTIPLIER}", "only_mutate="]
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


def mutant_sources(work: Path, name: str) -> tuple[str, str]:
    """The source of the original function of mutant ``name`` and of the mutant, read from mutmut's
    mutated sources (``mutants/lib/...``: ``x_f__mutmut_orig`` and ``x_f__mutmut_N``), both named ``f``."""
    mangled, _, _ = name.partition("__mutmut_")
    module, _, func = mangled.rpartition(".")
    defs = _mutated_functions(work / "mutants" / (module.replace(".", "/") + ".py"))
    short = name.rpartition(".")[2]
    orig, mutant = defs.get(f"{func}__mutmut_orig", ""), defs.get(short, "")
    return orig.replace(f"{func}__mutmut_orig", "f", 1), mutant.replace(short, "f", 1)


def run(root: Path, chapters: list[str] | None, max_children: int | None, mutmut: str) -> dict:
    """Copy ``root`` to ``root/build/mutate``, run mutmut on the verdict logic of ``chapters``, score it."""
    packages = chapter_packages(root)
    wanted = chapters or sorted(packages)
    unknown = [c for c in wanted if c not in packages]
    if unknown:
        raise SystemExit(f"--chapter: unknown chapter(s) {unknown}; known: {sorted(packages)}")
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
    proc = subprocess.run(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
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
        survived = sorted(k for k, v in mine.items() if v in SURVIVED_CODES | NO_TESTS_CODES)
        other = sorted(k for k, v in mine.items() if k not in killed and k not in survived)
        wording, status = [], []
        for name in survived:
            orig, mutant = mutant_sources(work, name)
            diff = "".join(difflib.unified_diff(orig.splitlines(True), mutant.splitlines(True), n=0))
            (wording if wording_only(orig, mutant) else status).append({"name": name, "diff": _diff_lines(diff)})
        capable = len(killed) + len(status)
        report["chapters"][s.number] = dict(
            package=s.package, functions=s.functions, mutants=len(mine), killed=len(killed),
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
           "| chapter | functions | mutants | killed | survivors that can change a status | "
           "survivors that change wording only | not run | score |", "|---|---|---|---|---|---|---|---|"]
    for num, c in report["chapters"].items():
        nf = sum(len(v) for v in c["functions"].values())
        score = "—" if c["score"] is None else f"{100 * c['score']:.1f}%"
        out.append(f"| {num} {c['package']} | {nf} | {c['mutants']} | {c['killed']} | {len(c['survived_status'])} | "
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
    ap.add_argument("--mutmut", default=str(Path(sys.executable).with_name("mutmut")),
                    help="the mutmut executable (default: the one beside this Python)")
    args = ap.parse_args(argv)
    if not Path(args.mutmut).exists():
        raise SystemExit(f"--mutmut: {args.mutmut} not found; install the pinned mutmut (pip install -r requirements.txt)")
    report = run(args.root.resolve(), args.chapter, args.max_children, args.mutmut)
    print(markdown(report).split("\n## ")[0])
    return 0 if report["score"] is None or report["score"] >= MIN_SCORE else 1


if __name__ == "__main__":
    sys.exit(main())
