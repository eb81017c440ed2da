"""Execute the book's notebooks: jupytext ``.py`` -> ``.ipynb`` -> papermill, with parameter profiles.

The ``.py`` files (``notebooks/NN_*.py``, ``book/*.py``) are the only sources. Their executed
copies are written to ``_executed/`` with the same layout (``_executed/notebooks/NN_*.ipynb``,
``_executed/book/report.ipynb``), and the book's Markdown pages are linked there too
(:func:`stage_pages`), so the book (``_toc.yml``) is built from one tree in which every relative
link between pages resolves. ``jupytext.toml`` pairs ``notebooks/`` and ``book/`` notebooks with
their ``.py`` (``ipynb,py:percent``) but leaves ``_executed/`` unpaired: no executed notebook,
with its injected-parameters cell, can ever be written back into a ``.py`` source.

Usage (from the repository root)::

    python -m lib.book.pipeline                              # every notebook, profile "default"
    python -m lib.book.pipeline --profile smoke              # the fast profile the tests use
    python -m lib.book.pipeline --only 01 -p width 2048      # one notebook, one parameter changed
    python -m lib.book.pipeline --list                       # notebooks and their parameters

Profiles live in ``notebooks/profiles/<notebook stem>.yaml`` (one file per notebook, top-level
keys ``smoke``, ``paper``, ...): ``default`` is the values written in each notebook's tagged
``parameters`` cell; other profiles override some of them. ``-p NAME VALUE``
overrides one parameter (VALUE is read as YAML: ``2048``, ``[1, 2, 5]``, ``true``, ``cpu``).
A parameter name the notebook does not declare is rejected before anything runs.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

import yaml

__all__ = ["ROOT", "EXECUTED", "notebook_sources", "executed_path", "stage_pages", "load_profiles",
           "resolve_parameters", "to_ipynb", "notebook_warnings", "run_environment", "execute", "main"]

ROOT = Path(__file__).resolve().parents[2]
EXECUTED = "_executed"  # executed copies and staged pages; the book is built from here (gitignored)
PROFILES = ("smoke", "default", "paper")


class PipelineError(RuntimeError):
    """A notebook could not be run as asked (bad name, parameter or profile)."""


def notebook_sources(root: Path = ROOT) -> list[Path]:
    """The jupytext sources in execution order: ``notebooks/NN_*.py`` then ``book/*.py`` pages."""
    chapters = sorted((root / "notebooks").glob("[0-9][0-9]_*.py"))
    pages = sorted((root / "book").glob("*.py"))
    return chapters + pages


def executed_path(src: Path, root: Path = ROOT) -> Path:
    """Where the executed copy of the source ``src`` goes: ``_executed/<folder>/<stem>.ipynb``.

    Args:
        src: a jupytext source under ``root`` (e.g. ``notebooks/01_linear_baseline.py``).
        root: the repository root.

    Returns:
        The path of the executed notebook (outside the reach of the jupytext pairing).
    """
    rel = Path(src).resolve().relative_to(Path(root).resolve())
    return Path(root) / EXECUTED / rel.with_suffix(".ipynb")


def stage_pages(root: Path = ROOT) -> list[Path]:
    """Link every Markdown page of ``book/`` into ``_executed/book/`` (relative symlinks).

    The book is built from ``_executed/``, next to the executed notebooks, so that links such as
    ``../book/intro.md`` from a chapter resolve; a link (not a copy) keeps an edited page current.

    Args:
        root: the repository root.

    Returns:
        The staged links.
    """
    dest = Path(root) / EXECUTED / "book"
    dest.mkdir(parents=True, exist_ok=True)
    out = []
    for page in sorted((Path(root) / "book").glob("*.md")):
        link = dest / page.name
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(Path("..") / ".." / "book" / page.name)
        out.append(link)
    return out


def load_profiles(root: Path = ROOT) -> dict:
    """``{profile: {notebook stem: {parameter: value}}}`` from ``notebooks/profiles/*.yaml``."""
    out: dict = {}
    for path in sorted((root / "notebooks" / "profiles").glob("*.yaml")):
        try:
            data = yaml.safe_load(path.read_text()) or {}
        except yaml.YAMLError as exc:
            raise PipelineError(f"{path} is not valid YAML: {exc}") from None
        for profile, values in data.items():
            out.setdefault(profile, {})[path.stem] = values or {}
    return out


def select(sources: list[Path], only: list[str] | None) -> list[Path]:
    """Sources whose stem starts with one of ``only`` (e.g. ``01`` or ``02_better``)."""
    if not only:
        return sources
    chosen = [s for s in sources if any(s.stem.startswith(o) for o in only)]
    missing = [o for o in only if not any(s.stem.startswith(o) for s in sources)]
    if missing:
        raise PipelineError(f"no notebook matches {missing}; known: {[s.stem for s in sources]}")
    return chosen


def to_ipynb(src: Path, root: Path = ROOT, out: Path | None = None) -> Path:
    """Convert a jupytext percent ``.py`` to a notebook (outputs empty) at :func:`executed_path`.

    Args:
        src: the jupytext source; it is only read.
        root: the repository root.
        out: write here instead (e.g. a scratch file to read the declared parameters from).

    Returns:
        The written notebook.
    """
    import jupytext
    nb = jupytext.read(src)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata.get("jupytext", {}).pop("formats", None)  # the copy is paired with nothing
    out = Path(out) if out is not None else executed_path(src, root)
    out.parent.mkdir(parents=True, exist_ok=True)
    jupytext.write(nb, out, fmt="ipynb")
    return out


def declared_parameters(ipynb: Path) -> dict:
    import papermill
    return papermill.inspect_notebook(str(ipynb))


def parameter_cell_names(src: Path) -> set[str]:
    """The names assigned in the source's cell tagged ``parameters`` (read with :mod:`ast`)."""
    import ast

    import jupytext
    nb = jupytext.read(src)
    names: set[str] = set()
    for cell in nb.cells:
        if "parameters" in cell.metadata.get("tags", []):
            try:
                body = ast.parse(cell.source).body
            except SyntaxError as exc:
                raise PipelineError(f"{Path(src).name}: the parameters cell is not valid Python: {exc}") from None
            names |= {t.id for node in body if isinstance(node, ast.Assign)
                      for t in node.targets if isinstance(t, ast.Name)}
    return names


def resolve_parameters(src: Path, ipynb: Path, profile: str, overrides: dict, profiles: dict) -> dict:
    """Profile values for this notebook merged with ``overrides``; unknown names are an error."""
    if profile not in profiles and profile != "default":
        raise PipelineError(f"unknown profile {profile!r}; known profiles: {sorted(set(profiles) | {'default'})}")
    params = dict((profiles.get(profile) or {}).get(src.stem) or {})
    params.update(overrides)
    params["profile"] = profile
    declared = declared_parameters(ipynb)
    hidden = sorted(parameter_cell_names(src) - set(declared))
    if hidden:
        raise PipelineError(
            f"{src.name}: papermill cannot see parameter(s) {hidden} of the parameters cell (a comment "
            f"with '=' or ';' on the line hides it from papermill's parser); reword that comment")
    unknown = sorted(set(params) - set(declared))
    if unknown:
        raise PipelineError(
            f"{src.name}: unknown parameter(s) {unknown}; this notebook declares: {sorted(declared)}")
    return params


#: a Python warning as ``warnings.warn`` prints it (``file:line: CategoryWarning: message``), or a
#: ``warning: ...`` line (the sweep cache's notices); progress bars and other stderr text do not match
_WARNING_LINE = re.compile(r"^(?:\S.*?:\d+: )?(?P<cat>[A-Z]\w*Warning): (?P<msg>.+)$|^warning: (?P<plain>.+)$")


def notebook_warnings(ipynb: Path) -> list[str]:
    """The warnings a run of ``ipynb`` wrote to stderr, in cell order, each once.

    A skipped data set or a recomputed cache cell is something the user must see on the terminal,
    not only inside the executed notebook; :func:`execute` prints these after every run.

    Args:
        ipynb: an executed notebook.

    Returns:
        ``"cell N: Category: message"`` lines (``Category`` omitted for plain ``warning:`` lines).
    """
    import nbformat
    try:
        nb = nbformat.read(str(ipynb), as_version=4)
    except Exception:  # a notebook papermill could not even write has no warnings to show
        return []
    out: list[str] = []
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") != "stream" or output.get("name") != "stderr":
                continue
            for line in str(output.get("text", "")).splitlines():
                m = _WARNING_LINE.match(line.strip())
                if not m:
                    continue
                msg = f"{m['cat']}: {m['msg']}" if m["cat"] else m["plain"]
                entry = f"cell {index}: {msg}"
                if entry not in out:
                    out.append(entry)
    return out


def _report_warnings(src: Path, ipynb: Path) -> None:
    for line in notebook_warnings(ipynb):
        print(f"  warning in {src.stem}, {line}", file=sys.stderr, flush=True)


def run_environment(profile: str, overrides: dict) -> dict[str, str]:
    """Environment variables that tell a notebook's kernel how the pipeline ran it.

    ``NTK_PROFILE`` is the profile name and ``NTK_OVERRIDES`` the ``-p`` overrides as a JSON object
    (``{}`` if none); :mod:`lib.book.results` stores both with every verdict, so a record made with
    changed parameters is labelled as such.

    Args:
        profile: the profile name.
        overrides: the ``-p`` values.

    Returns:
        The variables to set.
    """
    return {"NTK_PROFILE": profile, "NTK_OVERRIDES": json.dumps(overrides, sort_keys=True, default=str)}


def execute(src: Path, params: dict, log_output: bool = False, root: Path = ROOT) -> float:
    """Run the executed copy of ``src`` (:func:`to_ipynb`) with papermill, in place, with the
    source's folder as working directory; return the seconds it took. ``src`` is never written.

    The warnings the run wrote (:func:`notebook_warnings`) are printed on the terminal, also when
    the run fails, so that the reasons for a failure (a skipped data set, say) are on screen."""
    import papermill
    ipynb = executed_path(src, root)
    t0 = time.perf_counter()
    try:
        papermill.execute_notebook(
            str(ipynb), str(ipynb), parameters=params, kernel_name="python3",
            cwd=str(src.parent), progress_bar=False, log_output=log_output,
            # CRITICAL: no "running over TCP" warning, and no "KeyboardInterrupt caught in kernel"
            # line when jupyter_client's shutdown SIGINT meets an idle handler; a cell's own
            # errors still reach us through papermill
            extra_arguments=["--IPKernelApp.log_level=CRITICAL"],
        )
    except papermill.PapermillExecutionError as exc:
        _report_warnings(src, ipynb)
        raise PipelineError(f"{src.name} failed in cell {exc.cell_index}: {exc.ename}: {exc.evalue}") from None
    _report_warnings(src, ipynb)
    return time.perf_counter() - t0


def parse_overrides(pairs: list[list[str]]) -> dict:
    out = {}
    for name, raw in pairs:
        try:
            out[name] = yaml.safe_load(raw)
        except yaml.YAMLError as exc:
            raise PipelineError(f"cannot read the value of parameter {name!r}: {raw!r} ({exc})") from None
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lib.book.pipeline", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--profile", default="default", help="smoke | default | paper (notebooks/profiles/*.yaml)")
    ap.add_argument("--only", nargs="+", help="run only notebooks whose name starts with these prefixes")
    ap.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
                    help="override one parameter (VALUE parsed as YAML); repeatable")
    ap.add_argument("--list", action="store_true", help="list notebooks and their parameters, run nothing")
    ap.add_argument("--stage-pages", action="store_true",
                    help="only link the Markdown pages of book/ into _executed/ (done by every run)")
    ap.add_argument("--log-output", action="store_true", help="stream cell output to the terminal")
    ap.add_argument("--root", default=str(ROOT), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    root = Path(args.root).resolve()
    os.environ.setdefault("NTK_RESULTS_DIR", str(root / "results"))
    try:
        stage_pages(root)
        if args.stage_pages:
            return 0
        profiles = load_profiles(root)
        overrides = parse_overrides(args.parameter)
        sources = select(notebook_sources(root), args.only)
        if overrides and not args.only and len(sources) > 1:
            print("note: -p applies to every notebook selected; unknown names fail", file=sys.stderr)
        plan = []
        # parameters are read from scratch copies: a run stopped here leaves _executed/ untouched
        with tempfile.TemporaryDirectory(prefix="ntk-pipeline-") as scratch:
            for src in sources:
                ipynb = to_ipynb(src, root, out=Path(scratch) / f"{src.stem}.ipynb")
                if args.list:
                    decl = declared_parameters(ipynb)
                    print(f"{src.stem}: " + ", ".join(f"{k}={v['default']}" for k, v in decl.items()))
                    continue
                plan.append((src, resolve_parameters(src, ipynb, args.profile, overrides, profiles)))
        saved = {k: os.environ.get(k) for k in run_environment(args.profile, overrides)}
        os.environ.update(run_environment(args.profile, overrides))
        try:
            total = _run_plan(plan, args, overrides, root)
        finally:  # the caller's environment is left as it was (main() is also called from tests)
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        if plan:
            print(f"all {len(plan)} notebook(s) done in {total:.1f} s")
    except PipelineError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def clear_verdicts(src: Path) -> None:
    """Remove the verdicts a previous run of ``src`` recorded (``<results>/<stem>.json``).

    A chapter rewrites its verdicts when it runs; a claim it no longer records (renamed, or
    split into parts) would otherwise stay in the report and the errata from an older run.
    """
    from lib.book.results import results_dir
    (results_dir() / f"{src.stem}.json").unlink(missing_ok=True)


def _run_plan(plan: list, args: argparse.Namespace, overrides: dict, root: Path) -> float:
    total = 0.0
    for src, params in plan:
        label = f"profile {args.profile}" + (f", overrides {overrides}" if overrides else "")
        print(f"running {src.stem} ({label}) ...", flush=True)
        clear_verdicts(src)
        to_ipynb(src, root)
        dt = execute(src, params, args.log_output, root)
        total += dt
        print(f"  done in {dt:.1f} s", flush=True)
    return total


if __name__ == "__main__":
    sys.exit(main())
