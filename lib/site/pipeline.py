"""Execute the book's notebooks: jupytext ``.py`` -> ``.ipynb`` -> papermill, with parameter profiles.

The ``.py`` files (``notebooks/NN_*.py``, ``book/*.py``) are the only sources. Their executed
copies are written to ``_executed/`` with the same layout (``_executed/notebooks/NN_*.ipynb``,
``_executed/book/report.ipynb``), and the book's Markdown pages are linked there too
(:func:`stage_pages`), so the book (``_toc.yml``) is built from one tree in which every relative
link between pages resolves. ``jupytext.toml`` pairs ``notebooks/`` and ``book/`` notebooks with
their ``.py`` (``ipynb,py:percent``) but leaves ``_executed/`` unpaired: no executed notebook,
with its injected-parameters cell, can ever be written back into a ``.py`` source.

Usage (from the repository root)::

    python -m lib.site.pipeline                              # every notebook, profile "default"
    python -m lib.site.pipeline --profile smoke              # the fast profile the tests use
    python -m lib.site.pipeline --only 01 -p width 2048      # one notebook, one parameter changed
    python -m lib.site.pipeline --list                       # notebooks and their parameters
    python -m lib.site.pipeline --jobs 1 --html              # one notebook at a time, then the HTML book

Profiles live in ``notebooks/profiles/<notebook stem>.yaml`` (one file per notebook, top-level keys ``smoke``,
``paper``, ...; read by :mod:`lib.book.profile_files`): ``default`` is the values written in each notebook's tagged
``parameters`` cell; other profiles override some of them. ``-p NAME VALUE``
overrides one parameter (VALUE is read as YAML: ``2048``, ``[1, 2, 5]``, ``true``, ``cpu``).
A parameter name the notebook does not declare is rejected before anything runs, and so is
``-p profile ...`` (the profile is chosen with ``--profile``; a record must say what ran).

Only the profile files of the selected notebooks are read, so a damaged profile of another chapter
does not stop this run; a profile file (or a ``-p`` value) that gives a key twice is refused. Every path
the user gives (``NTK_RESULTS_DIR``, ``NTK_CACHE_DIR``, ``--root``, a path parameter given with ``-p``)
is taken from the folder the command was run in, once, before any kernel starts in its notebook's
folder.

The chapters run two at a time (``--jobs N``; ``--jobs 1`` runs one at a time), the longest of the
last run first, each kernel with the BLAS/OpenMP threads shared out (1 each on 2 cores) and its
terminal lines prefixed with its chapter (``[03] ...``); the book's pages, which read every chapter's
verdicts, run after them. A run ends by printing its wall time, each notebook's seconds and the
same-run float32 matmul rate (:mod:`lib.site.machine`), so that times of different machines compare;
``--html`` then builds the book (:mod:`lib.site.html`).

A chapter never runs twice at once: a second pipeline asked to run a chapter that is running stops with
exit code 2 (a lock ``<results>/.<chapter>.lock``), so its verdict file never mixes two runs. Ctrl-C, or
``kill PID`` (SIGTERM) for a run in the background (whose SIGINT the shell ignores), stops the run
within seconds: the running kernels are killed, their locks released, finished cache cells stay and
the next run resumes; the exit code is 130 (Ctrl-C) or 143 (SIGTERM). If the pipeline itself is killed
(SIGKILL), its kernels die with it (:mod:`lib.site.kernels`). Every error the user can fix ends in one
line ``error: ...`` and exit code 2.
"""
from __future__ import annotations

import argparse
import errno
import json
import os
import queue
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import yaml

from lib.book.cache import probe_writable
from lib.book.params import ParameterError, path_or_none
from lib.book.paths import ROOT
from lib.book.profile_files import PROFILES, ProfileError, load_profiles, load_yaml
from lib.book.results import results_dir
from lib.site.console import LineRelay
from lib.site.kernels import KERNEL_ARGUMENTS, die_with_parent, kernel_manager_class, kill_kernels
from lib.site.machine import MATMUL_SHAPE, default_jobs, matmul_threads, measure_matmul_rate, usable_cores
from lib.site.specs import chapter_spec

__all__ = ["EXECUTED", "PATH_VARIABLES", "THREAD_VARIABLES", "STOP_NAMES", "PipelineError",
           "PipelineInterrupted", "StopRequested", "Task",
           "chapter_lock", "notebook_sources", "executed_path", "stage_pages", "select",
           "to_ipynb", "declared_parameters", "parameter_cell_names", "resolve_parameters", "notebook_warnings",
           "run_environment", "kernel_environment", "execute", "hide_parameter_cells", "parse_overrides",
           "make_plan", "check_results_dir", "clear_verdicts", "stop_on_sigterm", "scoped_environment",
           "absolute_path", "user_environment", "path_parameters", "absolute_overrides", "threads_per_kernel", "previous_seconds", "stages", "run_plan", "matmul_note",
           "build_book", "main"]

EXECUTED = "_executed"  # executed copies and staged pages; the book is built from here (gitignored)


class PipelineError(RuntimeError):
    """A notebook could not be run as asked (bad name, parameter or profile)."""


class PipelineInterrupted(RuntimeError):
    """The run was stopped by Ctrl-C (SIGINT) or ``kill PID`` (SIGTERM); the running kernels were killed.

    Attributes:
        signum: the signal that stopped the run; the exit code is ``128 + signum`` (130, 143).
    """

    def __init__(self, message: str, signum: int = signal.SIGINT):
        super().__init__(message)
        self.signum = int(signum)


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
    """The parameters papermill sees in a notebook's ``parameters`` cell: name -> default, type, help."""
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
    # the book's profiles are known whether or not the selected chapters' files define them (only those
    # files are read); a chapter without a profile runs its parameters cell's values
    if profile not in profiles and profile not in PROFILES:
        raise PipelineError(f"unknown profile {profile!r}; known profiles: {sorted(set(profiles) | set(PROFILES))}")
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
    check_values(src, params)
    return params


def check_values(src: Path, params: dict) -> None:
    """Check the values of ``params`` with the chapter's spec before anything runs: a bad value found by the
    notebook's parameters cell would come after the chapter's verdicts were cleared and its executed page
    overwritten with a failed run.

    Raises:
        PipelineError: naming the notebook and each bad parameter.
    """
    spec = chapter_spec(Path(src).stem)
    if spec is None:
        return
    try:
        spec.config(**{k: v for k, v in params.items() if k in spec.params})
    except ParameterError as exc:
        raise PipelineError(f"{Path(src).name}: {exc}") from None


#: a Python warning as ``warnings.warn`` prints it (``file:line; CategoryWarning; message``), or a
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


def run_environment(profile: str, overrides: dict, run_id: str | None = None) -> dict[str, str]:
    """Environment variables that tell a notebook's kernel how the pipeline ran it.

    ``NTK_PROFILE`` is the profile name and ``NTK_OVERRIDES`` the ``-p`` overrides as a JSON object
    (``{}`` if none); :mod:`lib.book.results` stores both with every verdict, so a record made with
    changed parameters is labelled as such. ``NTK_RUN_ID`` names this run: a verdict file keeps the
    verdicts of one run only.

    Args:
        profile: the profile name.
        overrides: the ``-p`` values this notebook was given (paths made absolute).
        run_id: the run's name (one for every notebook of a run); a new one if omitted.

    Returns:
        The variables to set.
    """
    return {"NTK_PROFILE": profile, "NTK_OVERRIDES": json.dumps(overrides, sort_keys=True, default=str),
            "NTK_RUN_ID": run_id or uuid.uuid4().hex[:16]}


#: Variables that set the number of BLAS and OpenMP threads (torch reads ``OMP_NUM_THREADS`` when it starts).
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def kernel_environment(src: Path, root: Path = ROOT, threads: int | None = None) -> dict[str, str]:
    """Variables added to the pipeline's environment for the kernel that runs ``src``.

    ``NTK_PAGE_DIR`` is the executed page's folder (figures write their files beside it,
    :mod:`lib.book.figures`); ``PYTHONPATH`` starts with ``root``, so the kernel imports the ``lib`` of
    this checkout whatever the installed one (a worktree, a second clone), and its other entries are
    made absolute (the kernel runs in the notebook's folder). With ``threads``, the BLAS and OpenMP
    thread counts (:data:`THREAD_VARIABLES`) are set to it, unless the user set them.

    Args:
        src: the notebook source.
        root: the repository root.
        threads: threads per kernel when notebooks run at once, or None for the libraries' defaults.

    Returns:
        The variables.
    """
    entries = [e for e in os.environ.get("PYTHONPATH", "").split(os.pathsep) if e]
    env = {"NTK_PAGE_DIR": str(executed_path(src, root).parent),
           "PYTHONPATH": os.pathsep.join([str(root)] + [str(absolute_path(e)) for e in entries])}
    if threads is not None:
        env.update({k: str(int(threads)) for k in THREAD_VARIABLES if k not in os.environ})
    return env


def execute(src: Path, params: dict, log_output: bool = False, root: Path = ROOT, threads: int | None = None,
            output: int | None = None, env: dict[str, str] | None = None) -> float:
    """Run the executed copy of ``src`` (:func:`to_ipynb`) with papermill, in place, with the
    source's folder as the kernel's working directory; return the seconds it took. ``src`` is never
    written, and the pipeline's own working directory and environment are left alone (other notebooks
    may run at the same time, each from its own thread).

    The warnings the run wrote (:func:`notebook_warnings`) are printed on the terminal, also when
    the run fails, so that the reasons for a failure (a skipped data set, say) are on screen.

    Args:
        src: the notebook source.
        params: the parameters (:func:`resolve_parameters`).
        log_output: stream the cells' output to the terminal (papermill's ``log_output``).
        root: the repository root.
        threads: BLAS/OpenMP threads of the kernel (:func:`kernel_environment`), None for the default.
        output: a file descriptor for the kernel's own stdout and stderr, None for the terminal.
        env: more variables for the kernel (:func:`run_environment`).

    Returns:
        The seconds the notebook took.

    Raises:
        PipelineError: a cell failed (its index, the exception's name and message).
    """
    import papermill
    ipynb = executed_path(src, root)
    t0 = time.perf_counter()
    manager = kernel_manager_class({**(env or {}), **kernel_environment(src, root, threads)}, Path(src).parent, output)
    try:
        papermill.execute_notebook(str(ipynb), str(ipynb), parameters=params, kernel_name="python3",
                                   progress_bar=False, log_output=log_output, extra_arguments=KERNEL_ARGUMENTS,
                                   kernel_manager_class=manager)
    except papermill.PapermillExecutionError as exc:
        _report_warnings(src, ipynb)
        raise PipelineError(f"{src.name} failed in cell {exc.cell_index}: {exc.ename}: {exc.evalue}") from None
    _report_warnings(src, ipynb)
    hide_parameter_cells(ipynb)
    return time.perf_counter() - t0


#: Tags Jupyter Book reads; the parameters cell and papermill's injected cell are removed from the page (the
#: chapter shows "Parameters of this run" instead, :meth:`lib.book.spec.Config.markdown`), and the cell
#: that validates them shows its output only.
HIDDEN_CELL_TAGS = {"parameters": "remove-cell", "injected-parameters": "remove-cell"}
#: A cell whose source contains this validates the parameters (``SPEC.validate(locals())``).
VALIDATE_CALL = ".validate(locals())"


def hide_parameter_cells(ipynb: Path) -> None:
    """Tag the parameters cell and papermill's injected cell ``remove-cell``, and the cell that validates
    them ``remove-input``, in an executed notebook (the page shows the parameters as a table)."""
    import nbformat
    nb = nbformat.read(str(ipynb), as_version=4)
    for cell in nb.cells:
        tags = cell.metadata.setdefault("tags", [])
        extra = [HIDDEN_CELL_TAGS[t] for t in tags if t in HIDDEN_CELL_TAGS]
        if cell.cell_type == "code" and VALIDATE_CALL in cell.source:
            extra.append("remove-input")
        tags.extend(t for t in dict.fromkeys(extra) if t not in tags)
    nbformat.write(nb, str(ipynb))


def parse_overrides(pairs: list[list[str]]) -> dict:
    """The ``-p NAME VALUE`` overrides, each VALUE read as YAML; ``-p profile ...`` is refused."""
    out = {}
    for name, raw in pairs:
        if name == "profile":
            raise PipelineError(f"-p profile {raw}: choose the profile with --profile {raw}, not -p (an override of "
                                "'profile' would run one profile's values and record another's name)")
        try:
            out[name] = load_yaml(raw)
        except yaml.YAMLError as exc:
            raise PipelineError(f"cannot read the value of parameter {name!r}: {raw!r} ({exc})") from None
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m lib.site.pipeline``: run the selected notebooks (see the module's docstring).

    Returns:
        0 when every notebook ran, 2 for an error the user can fix (one line ``error: ...``), 130
        after Ctrl-C and 143 after SIGTERM (``kill PID``).
    """
    ap = argparse.ArgumentParser(prog="python -m lib.site.pipeline", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--profile", default="default", help="smoke | default | paper (notebooks/profiles/*.yaml)")
    ap.add_argument("--only", nargs="+", help="run only notebooks whose name starts with these prefixes")
    ap.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
                    help="override one parameter (VALUE parsed as YAML); repeatable")
    ap.add_argument("--jobs", type=_positive_int, default=None, metavar="N",
                    help=f"notebooks run at once (default: {default_jobs()} here, the cores up to 2); --jobs 1 runs "
                         "one at a time")
    ap.add_argument("--html", action="store_true", help="then build the HTML book (python -m lib.site.html)")
    ap.add_argument("--html-jobs", type=_positive_int, default=1, metavar="N",
                    help="Sphinx processes of --html (default 1; see lib.site.html)")
    ap.add_argument("--list", action="store_true", help="list notebooks and their parameters, run nothing")
    ap.add_argument("--stage-pages", action="store_true",
                    help="only link the Markdown pages of book/ into _executed/ (done by every run)")
    ap.add_argument("--log-output", action="store_true",
                    help="stream cell output to the terminal (one notebook at a time)")
    ap.add_argument("--root", default=str(ROOT), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    started = time.perf_counter()
    cwd = Path.cwd()
    # every path the user gave is made absolute here, once, before any kernel starts in another folder
    root = absolute_path(args.root, cwd).resolve()
    try:
        folders = {"NTK_RESULTS_DIR": str(root / "results"), **user_environment(cwd)}
        with stop_on_sigterm(), scoped_environment(folders):
            if args.stage_pages:
                stage_pages(root)
                return 0
            jobs = 1 if args.log_output else (args.jobs or default_jobs())
            plan = make_plan(root, args, cwd)  # every check first: a refused command line writes nothing
            if plan or args.html:
                stage_pages(root)
            if plan:
                check_results_dir()
            rate_before = measure_matmul_rate() if plan or args.html else None
            times = run_plan(plan, args.profile, root, jobs, args.log_output)
            if plan:
                print(f"all {len(plan)} notebook(s) done in {time.perf_counter() - started:.1f} s "
                      f"({_jobs_note(jobs, plan)}); per notebook: {_times_note(times)}", flush=True)
            if args.html:
                html_seconds = build_book(root, args.html_jobs)
                print(f"HTML built in {html_seconds:.1f} s ({args.html_jobs} Sphinx process(es))", flush=True)
            if plan or args.html:
                print(f"wall time {time.perf_counter() - started:.1f} s; {matmul_note(rate_before)}", flush=True)
    except (PipelineError, ProfileError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (PipelineInterrupted, KeyboardInterrupt) as exc:
        signum = getattr(exc, "signum", signal.SIGINT)
        print(f"interrupted: {exc or STOP_NAMES.get(signum, signum)}", file=sys.stderr)
        return 128 + signum
    return 0


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, got {text!r}")
    return value


@dataclass(frozen=True)
class Task:
    """One notebook of a run.

    Attributes:
        src: the notebook source.
        params: its parameters (profile values and overrides).
        overrides: the ``-p`` overrides it was given, paths made absolute (recorded with its verdicts).
    """

    src: Path
    params: dict
    overrides: dict

    @property
    def label(self) -> str:
        """The short name its terminal lines carry: ``03`` for ``03_conditioning``, ``report``."""
        return self.src.stem.split("_")[0]


def make_plan(root: Path, args: argparse.Namespace, cwd: Path) -> list[Task]:
    """The notebooks to run and their parameters, every check made before anything runs.

    With ``--list``, prints each notebook's parameters and returns no plan.

    Args:
        root: the repository root.
        args: the parsed command line (``only``, ``parameter``, ``profile``, ``list``).
        cwd: where the command was run; a path given with ``-p`` is taken from there
            (:func:`absolute_overrides`).

    Returns:
        The tasks, in the sources' order.

    Raises:
        PipelineError: an unknown notebook, profile or parameter, a bad value.
        lib.book.profile_files.ProfileError: a damaged profile file.
    """
    overrides = parse_overrides(args.parameter)
    sources = select(notebook_sources(root), args.only)
    profiles = load_profiles(root, [s.stem for s in sources])
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
            mine = absolute_overrides(src, overrides, cwd)
            plan.append(Task(src, resolve_parameters(src, ipynb, args.profile, mine, profiles), mine))
    return plan


def check_results_dir() -> Path:
    """Create the results folder and check it can be written, before any notebook runs.

    Returns:
        The folder (:func:`lib.book.results.results_dir`).

    Raises:
        PipelineError: naming the folder (read only, a file in the way, a full disk) and what to do.
    """
    d = results_dir()
    try:
        probe_writable(d)
    except OSError as exc:
        raise PipelineError(_results_unwritable(d, exc)) from None
    return d


def _results_unwritable(d: Path, exc: OSError) -> str:
    todo = ("free space on that disk" if exc.errno == errno.ENOSPC else "make it writable")
    return (f"the results directory {d} cannot be written ({exc.strerror or exc}); {todo}, or set "
            "NTK_RESULTS_DIR to a writable folder")


def clear_verdicts(src: Path) -> None:
    """Remove the verdicts a previous run of ``src`` recorded (``<results>/<stem>.json``).

    A chapter rewrites its verdicts when it runs; a claim it no longer records (renamed, or
    split into parts) would otherwise stay in the report and the errata from an older run.

    Raises:
        PipelineError: the file cannot be removed (a read-only results folder), naming it.
    """
    path = results_dir() / f"{src.stem}.json"
    try:
        path.unlink(missing_ok=True)
    except OSError as exc:
        raise PipelineError(_results_unwritable(path.parent, exc)) from None


@contextmanager
def chapter_lock(src: Path):
    """Hold ``<results>/.<stem>.lock`` while ``src`` runs; a second run of the same chapter is refused.

    Two runs of one chapter at once would interleave their verdicts in one results file, while the
    executed chapter shows only one of them. The lock is an ``flock``: a run that dies releases it.

    Args:
        src: the notebook source.

    Raises:
        PipelineError: another pipeline holds the lock (or it cannot be created), naming the chapter.
    """
    import fcntl

    path = results_dir() / f".{src.stem}.lock"
    try:
        fh = open(path, "a+")
    except OSError as exc:
        raise PipelineError(_results_unwritable(path.parent, exc)) from None
    try:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "another process"
            raise PipelineError(f"{src.stem} is being run by another pipeline ({holder}, lock {path}); wait for "
                                "it to finish, then run again") from None
        fh.seek(0)
        fh.truncate()
        fh.write(f"pid {os.getpid()}")
        fh.flush()
        try:
            yield
        finally:  # released: the file no longer names a holder (a run that dies releases the flock only)
            fh.seek(0)
            fh.truncate()
    finally:
        fh.close()


# --------------------------------------------------------------------------- running notebooks at once

#: what stopped a run, as its message names it
STOP_NAMES = {signal.SIGINT: "Ctrl-C", signal.SIGTERM: "SIGTERM"}


class StopRequested(KeyboardInterrupt):
    """Raised in the main thread when SIGTERM arrives (``kill PID``): handled as Ctrl-C is."""

    signum = signal.SIGTERM


def _raise_stop(signum, frame):
    raise StopRequested()


@contextmanager
def stop_on_sigterm():
    """While the block runs, SIGTERM raises :class:`StopRequested` (a ``KeyboardInterrupt``) in the main
    thread, so that ``kill PID`` stops a run as Ctrl-C does: kernels killed, chapter locks released,
    finished cache cells kept, a nonzero exit. The previous handler is restored afterwards; outside the
    main thread (where no handler can be set) nothing changes.

    A run started in the background of a non-interactive shell ignores SIGINT, as POSIX shells make
    such jobs do, and this is left so: ``kill PID`` is how such a run is stopped.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def scoped_environment(values: dict[str, str]):
    """Set environment variables for the block and restore the caller's afterwards."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


#: Environment variables that name a folder the user chooses (the verdicts, the sweep cache).
PATH_VARIABLES = ("NTK_RESULTS_DIR", "NTK_CACHE_DIR")


def absolute_path(value: str | os.PathLike, cwd: Path | None = None) -> Path:
    """``value`` as an absolute path: ``~`` expanded, a relative path taken from ``cwd``.

    Args:
        value: a path the user gave.
        cwd: the folder the command was run in (default: the current one).

    Returns:
        The absolute path (symbolic links are kept).
    """
    path = Path(value).expanduser()
    if path.is_absolute():
        return Path(os.path.normpath(path))
    return Path(os.path.normpath(Path(cwd if cwd is not None else Path.cwd()) / path))


def user_environment(cwd: Path) -> dict[str, str]:
    """The folders the user set in :data:`PATH_VARIABLES`, made absolute against ``cwd``.

    A kernel runs in its notebook's folder: a relative ``NTK_RESULTS_DIR=relres`` would otherwise
    have it write its verdicts to ``notebooks/relres`` while the pipeline clears and locks ``./relres``
    and the report reads ``book/relres``.

    Args:
        cwd: the folder the command was run in.

    Returns:
        The variables to set for the run.
    """
    return {k: str(absolute_path(os.environ[k], cwd)) for k in PATH_VARIABLES if os.environ.get(k)}


def path_parameters(src: Path) -> set[str]:
    """The parameters of a chapter that hold a path (checked with :func:`lib.book.params.path_or_none`
    in its :class:`lib.book.spec.ChapterSpec`); none for a notebook without a spec."""
    spec = chapter_spec(Path(src).stem)
    if spec is None:
        return set()
    return {name for name, p in spec.params.items() if p.check is path_or_none}


def absolute_overrides(src: Path, overrides: dict, cwd: Path) -> dict:
    """``overrides`` with each path parameter of ``src`` (:func:`path_parameters`) made absolute
    against ``cwd``, the folder the command was run in (the kernel runs in the notebook's folder).

    Args:
        src: the notebook source.
        overrides: the ``-p`` values.
        cwd: the folder the command was run in.

    Returns:
        A new dict; values that are not path strings are left for the chapter's checks.
    """
    if not overrides:
        return {}
    paths = path_parameters(src) & set(overrides)
    return {k: (str(absolute_path(v, cwd)) if k in paths and isinstance(v, str) and v else v)
            for k, v in overrides.items()}


def threads_per_kernel(at_once: int) -> int | None:
    """BLAS/OpenMP threads of each kernel when ``at_once`` notebooks run together: the cores shared out
    (1 each for 2 at once on 2 cores); None (the libraries' defaults) when one runs alone."""
    return None if at_once <= 1 else max(1, usable_cores() // at_once)


def previous_seconds(task: Task, profile: str, root: Path = ROOT) -> float | None:
    """How long the last run of ``task`` under ``profile`` took (papermill's record in the executed
    notebook), or None if unknown. Used only to start the longest notebooks first."""
    try:
        meta = json.loads(executed_path(task.src, root).read_text(encoding="utf-8"))["metadata"]["papermill"]
        if (meta.get("parameters") or {}).get("profile") != profile:
            return None
        return float(meta["duration"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def stages(plan: list[Task]) -> list[list[Task]]:
    """The plan in the order it may run: the chapters (``notebooks/``), which do not read each other,
    then the book's pages (``book/``), which read every chapter's verdicts and figures."""
    chapters = [t for t in plan if t.src.parent.name == "notebooks"]
    pages = [t for t in plan if t.src.parent.name != "notebooks"]
    return [s for s in (chapters, pages) if s]


def run_plan(plan: list[Task], profile: str, root: Path, jobs: int = 1, log_output: bool = False) -> dict[str, float]:
    """Run every task, ``jobs`` at a time within each of :func:`stages`, the longest (by the last run)
    first; return the seconds of each notebook by stem.

    Each notebook holds its chapter lock (:func:`chapter_lock`) and starts from no verdicts
    (:func:`clear_verdicts`). With ``jobs`` above 1, each kernel gets :func:`threads_per_kernel` threads
    and its own output lines on the terminal, prefixed with its notebook (:class:`lib.site.console.LineRelay`).
    After a failure no new notebook starts; the ones running finish, then the first error is raised.

    Raises:
        PipelineError: a notebook failed or its lock is held.
        PipelineInterrupted: Ctrl-C or SIGTERM; every running kernel was killed first.
    """
    run_id = uuid.uuid4().hex[:16]
    times: dict[str, float] = {}
    for stage in stages(plan):
        known = {t.src: previous_seconds(t, profile, root) for t in stage}
        order = sorted(stage, key=lambda t: -(known[t.src] if known[t.src] is not None else float("inf")))
        at_once = min(jobs, len(stage))
        threads = threads_per_kernel(at_once)
        lock = threading.Lock()

        def run_one(task: Task) -> float:
            env = run_environment(profile, task.overrides, run_id)
            note = f"profile {profile}" + (f", overrides {task.overrides}" if task.overrides else "")
            with lock:
                print(f"running {task.src.stem} ({note}) ...", flush=True)
            with chapter_lock(task.src):
                clear_verdicts(task.src)
                to_ipynb(task.src, root)
                if at_once == 1:
                    return execute(task.src, task.params, log_output, root, env=env)
                with LineRelay(task.label, lock=lock) as relay:
                    return execute(task.src, task.params, log_output, root, threads=threads, output=relay.fd, env=env)

        for task, seconds in _run_at_once(order, at_once, run_one):
            times[task.src.stem] = seconds
            with lock:
                print(f"  {'' if at_once == 1 else task.src.stem + ' '}done in {seconds:.1f} s", flush=True)
    return times


def _run_at_once(tasks: list[Task], at_once: int, run_one):
    """Run ``run_one(task)`` for each task in worker threads, ``at_once`` at a time; yield ``(task, seconds)``
    as each finishes. The main thread only waits, so Ctrl-C and SIGTERM reach it: the running kernels are
    then killed (which ends their papermill calls) and :class:`PipelineInterrupted` is raised.

    nbclient installs its own SIGINT handler when it runs in the main thread, and that handler only
    schedules a kernel cleanup: papermill in the main thread swallowed Ctrl-C and ran on.
    """
    done: queue.Queue = queue.Queue()
    pending, running, errors = list(tasks), {}, []

    def work(task):
        try:
            done.put((task, run_one(task), None))
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread
            done.put((task, None, exc))

    try:
        while pending or running:
            while pending and len(running) < at_once and not errors:
                task = pending.pop(0)
                running[task.src] = threading.Thread(target=work, args=(task,), name=f"papermill {task.src.stem}",
                                                     daemon=True)
                running[task.src].start()
            if not running:
                break
            try:
                task, seconds, exc = done.get(timeout=0.5)
            except queue.Empty:
                continue
            running.pop(task.src).join()
            if exc is not None:
                errors.append(exc)
                if running:
                    print(f"{task.src.stem} stopped with an error; the notebooks still running finish first "
                          "(Ctrl-C stops them)", file=sys.stderr, flush=True)
            else:
                yield task, seconds
    except KeyboardInterrupt as exc:
        signum = getattr(exc, "signum", signal.SIGINT)
        kill_kernels()
        for thread in running.values():
            thread.join(10)
        names = ", ".join(src.name for src in running) or "the run"
        their = "its kernel was" if len(running) == 1 else "their kernels were"
        raise PipelineInterrupted(f"{names} interrupted ({STOP_NAMES.get(signum, signum)}): {their} stopped; "
                                  "finished cache cells are kept and the next run resumes from them",
                                  signum) from None
    if errors:
        raise errors[0]


def _jobs_note(jobs: int, plan: list[Task]) -> str:
    at_once = min(jobs, max(len(s) for s in stages(plan)))
    if at_once == 1:
        return "one at a time"
    return f"{at_once} at a time, {threads_per_kernel(at_once)} thread(s) each"


def _times_note(times: dict[str, float]) -> str:
    return ", ".join(f"{stem.split('_')[0]} {sec:.0f} s" for stem, sec in times.items())


def matmul_note(before: float | None) -> str:
    """The same-run float32 matmul rate at the start and the end of a run, for quoting with its time.

    Args:
        before: the rate measured at the start (:func:`lib.site.machine.measure_matmul_rate`), GFLOP/s.

    Returns:
        ``"float32 matmul 500x512x512: 190 GFLOP/s at the start, 185 at the end (2 threads)"``.
    """
    after = measure_matmul_rate()
    first = f"{before:.0f} GFLOP/s at the start, " if before is not None else ""
    return (f"float32 matmul {'x'.join(map(str, MATMUL_SHAPE))}: {first}{after:.0f} GFLOP/s at the end "
            f"({matmul_threads()} thread(s)), same run")


def build_book(root: Path, jobs: int) -> float:
    """Build the HTML book (``python -m lib.site.html``) with ``jobs`` Sphinx processes, in a child process
    that is stopped with the pipeline (Ctrl-C, SIGTERM, or SIGKILL of the pipeline); return its seconds.

    Raises:
        PipelineError: the build failed (its own output is on the terminal).
    """
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "lib.site.html", "--root", str(root), "--jobs", str(jobs)],
                            cwd=root, preexec_fn=die_with_parent)
    try:
        code = proc.wait()
    except KeyboardInterrupt:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        raise
    if code != 0:
        raise PipelineError(f"the HTML build failed (exit code {code}); its messages are above")
    return time.perf_counter() - t0


if __name__ == "__main__":
    sys.exit(main())
