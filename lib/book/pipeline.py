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
A parameter name the notebook does not declare is rejected before anything runs, and so is
``-p profile ...`` (the profile is chosen with ``--profile``; a record must say what ran).

Only the profile files of the selected notebooks are read, so a damaged profile of another chapter
does not stop this run. One chapter runs at a time: a second pipeline asked to run a chapter that is
running stops with exit code 2 (a lock ``<results>/.<chapter>.lock``), so its verdict file never
mixes two runs. Ctrl-C stops the run within seconds (the notebook's kernel is killed; finished cache
cells stay and the next run resumes) with exit code 130. Every error the user can fix ends in one
line ``error: ...`` and exit code 2.
"""
from __future__ import annotations

import argparse
import errno
import json
import os
import re
import signal
import sys
import tempfile
import threading
import time
import uuid
from contextlib import contextmanager
from pathlib import Path

import yaml

__all__ = ["ROOT", "EXECUTED", "PipelineError", "chapter_lock", "notebook_sources", "executed_path", "stage_pages", "load_profiles",
           "resolve_parameters", "to_ipynb", "notebook_warnings", "run_environment", "execute", "main"]

ROOT = Path(__file__).resolve().parents[2]
EXECUTED = "_executed"  # executed copies and staged pages; the book is built from here (gitignored)
PROFILES = ("smoke", "default", "paper")


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


class DuplicateKeyError(yaml.constructor.ConstructorError):
    """A YAML mapping gives one key twice (PyYAML would silently keep the last value).

    Attributes:
        key: the repeated key.
        lines: the 1-based lines of its first and second appearance.
    """

    def __init__(self, key, lines: tuple[int, int]):
        self.key, self.lines = key, lines
        where = f"lines {lines[0]} and {lines[1]}" if lines[0] != lines[1] else f"both on line {lines[0]}"
        super().__init__(problem=f"key {key!r} is given twice ({where}); YAML would silently keep the last "
                                 "value, so remove one")

    def __str__(self) -> str:
        return self.problem


class UniqueKeyLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing a mapping that gives a key twice (:class:`DuplicateKeyError`).

    A merge key (``<<: *base``) may still be overridden by a key written beside it, as YAML allows.
    """

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen: dict = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=deep)
                line = key_node.start_mark.line + 1
                try:
                    if key in seen:
                        raise DuplicateKeyError(key, (seen[key], line))
                    seen[key] = line
                except TypeError:  # an unhashable key: the base class refuses it
                    continue
        return super().construct_mapping(node, deep=deep)


def load_yaml(text: str):
    """Read YAML text as :func:`yaml.safe_load` does, but refuse a mapping that repeats a key.

    Every profile file and every ``-p`` value is read with it.

    Args:
        text: the YAML text.

    Returns:
        The Python value.

    Raises:
        DuplicateKeyError: a key appears twice in one mapping (its name and both lines in the message).
        yaml.YAMLError: the text is not valid YAML.
    """
    return yaml.load(text, Loader=UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass


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


def load_profiles(root: Path = ROOT, stems: list[str] | None = None) -> dict:
    """``{profile: {notebook stem: {parameter: value}}}`` from ``notebooks/profiles/*.yaml``.

    Args:
        root: the repository root.
        stems: read only the profiles of these notebooks (None: all), so that a damaged profile of
            another chapter does not stop a run.

    Returns:
        The profiles.

    Raises:
        PipelineError: one line naming the file: not UTF-8, not valid YAML, a key given twice in one
            mapping (two ``smoke:`` blocks, or ``seeds`` twice in one profile), a top level that is not a
            mapping of profile names, or a profile that is not a mapping of parameter names to values.
    """
    out: dict = {}
    for path in sorted((root / "notebooks" / "profiles").glob("*.yaml")):
        if stems is not None and path.stem not in stems:
            continue
        try:
            data = load_yaml(path.read_text(encoding="utf-8"))
        except DuplicateKeyError as exc:
            raise PipelineError(f"{path}: {exc}") from None
        except UnicodeDecodeError as exc:
            raise PipelineError(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start}); save it as UTF-8") \
                from None
        except yaml.YAMLError as exc:
            raise PipelineError(f"{path} is not valid YAML: {' '.join(str(exc).split())}") from None
        except OSError as exc:
            raise PipelineError(f"{path} cannot be read: {exc.strerror or exc}") from None
        data = {} if data is None else data
        if not isinstance(data, dict):
            raise PipelineError(f"{path}: the top level must be a mapping of profile names (smoke:, paper:) to "
                                f"parameters, got a YAML {type(data).__name__}")
        for profile, values in data.items():
            if not isinstance(profile, str):
                raise PipelineError(f"{path}: profile names must be strings, got {profile!r}")
            if values is not None and not (isinstance(values, dict) and all(isinstance(k, str) for k in values)):
                raise PipelineError(f"{path}: profile {profile!r} must be a mapping of parameter names to values, "
                                    f"got a YAML {type(values).__name__} ({values!r})")
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
    return params


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


def run_environment(profile: str, overrides: dict) -> dict[str, str]:
    """Environment variables that tell a notebook's kernel how the pipeline ran it.

    ``NTK_PROFILE`` is the profile name and ``NTK_OVERRIDES`` the ``-p`` overrides as a JSON object
    (``{}`` if none); :mod:`lib.book.results` stores both with every verdict, so a record made with
    changed parameters is labelled as such. ``NTK_RUN_ID`` names this run: a verdict file keeps the
    verdicts of one run only.

    Args:
        profile: the profile name.
        overrides: the ``-p`` values.

    Returns:
        The variables to set.
    """
    return {"NTK_PROFILE": profile, "NTK_OVERRIDES": json.dumps(overrides, sort_keys=True, default=str),
            "NTK_RUN_ID": uuid.uuid4().hex[:16]}


def execute(src: Path, params: dict, log_output: bool = False, root: Path = ROOT) -> float:
    """Run the executed copy of ``src`` (:func:`to_ipynb`) with papermill, in place, with the
    source's folder as working directory; return the seconds it took. ``src`` is never written.

    The warnings the run wrote (:func:`notebook_warnings`) are printed on the terminal, also when
    the run fails, so that the reasons for a failure (a skipped data set, say) are on screen."""
    import papermill
    ipynb = executed_path(src, root)
    t0 = time.perf_counter()
    # the page's folder: figures write their image and data files beside it (lib.book.figures); the
    # kernel imports the lib of this checkout, whatever the installed one (a worktree, a second clone)
    saved = {k: os.environ.get(k) for k in ("NTK_PAGE_DIR", "PYTHONPATH")}
    os.environ["NTK_PAGE_DIR"] = str(ipynb.parent)
    os.environ["PYTHONPATH"] = os.pathsep.join([str(root)] + ([saved["PYTHONPATH"]] if saved["PYTHONPATH"] else []))
    try:
        _interruptible(src, lambda: papermill.execute_notebook(
            str(ipynb), str(ipynb), parameters=params, kernel_name="python3",
            cwd=str(src.parent), progress_bar=False, log_output=log_output,
            # CRITICAL: no "running over TCP" warning, and no "KeyboardInterrupt caught in kernel"
            # line when jupyter_client's shutdown SIGINT meets an idle handler; a cell's own
            # errors still reach us through papermill
            extra_arguments=["--IPKernelApp.log_level=CRITICAL"],
            kernel_manager_class=_tracked_kernel_manager(),
        ))
    except papermill.PapermillExecutionError as exc:
        _report_warnings(src, ipynb)
        raise PipelineError(f"{src.name} failed in cell {exc.cell_index}: {exc.ename}: {exc.evalue}") from None
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
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
    them ``remove-input``, in an executed notebook (issue 27: the page shows the parameters as a table)."""
    import nbformat
    nb = nbformat.read(str(ipynb), as_version=4)
    for cell in nb.cells:
        tags = cell.metadata.setdefault("tags", [])
        extra = [HIDDEN_CELL_TAGS[t] for t in tags if t in HIDDEN_CELL_TAGS]
        if cell.cell_type == "code" and VALIDATE_CALL in cell.source:
            extra.append("remove-input")
        tags.extend(t for t in dict.fromkeys(extra) if t not in tags)
    nbformat.write(nb, str(ipynb))


#: kernel managers started by :func:`execute` and still running (killed on Ctrl-C)
_RUNNING_KERNELS: set = set()


def _tracked_kernel_manager() -> type:
    """jupyter_client's AsyncKernelManager, remembering each kernel it starts in ``_RUNNING_KERNELS``."""
    from jupyter_client.manager import AsyncKernelManager

    class TrackedKernelManager(AsyncKernelManager):
        async def start_kernel(self, **kw):
            await super().start_kernel(**kw)
            _RUNNING_KERNELS.add(self)

        async def shutdown_kernel(self, *args, **kw):
            _RUNNING_KERNELS.discard(self)
            return await super().shutdown_kernel(*args, **kw)

    return TrackedKernelManager


def _kill_kernels() -> None:
    """Kill every kernel :func:`execute` started (each in its own session: its process group goes too)."""
    for km in list(_RUNNING_KERNELS):
        proc = getattr(getattr(km, "provisioner", None), "process", None)
        if proc is not None and proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                proc.kill()
        _RUNNING_KERNELS.discard(km)


def _interruptible(src: Path, run) -> None:
    """Run papermill in a worker thread so that Ctrl-C reaches this (main) thread.

    nbclient installs its own SIGINT handler on the event loop of the thread it runs in, and that handler
    only schedules a kernel cleanup: run in the main thread, Ctrl-C was swallowed and the chapter ran to
    its end. In a worker thread nbclient cannot install it (signal handlers belong to the main thread), so
    Ctrl-C raises KeyboardInterrupt here; the kernel is then killed, which ends papermill's wait at once.
    """
    errors: list[BaseException] = []

    def work():
        try:
            run()
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread
            errors.append(exc)

    worker = threading.Thread(target=work, name=f"papermill {src.stem}", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.2)
    except KeyboardInterrupt:
        _kill_kernels()
        worker.join(10)
        raise PipelineInterrupted(f"{src.name} interrupted (Ctrl-C): its kernel was stopped; finished cache "
                                  "cells are kept and the next run resumes from them") from None
    if errors:
        raise errors[0]


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
                plan.append((src, resolve_parameters(src, ipynb, args.profile, overrides, profiles)))
        if plan:
            check_results_dir()
        env = run_environment(args.profile, overrides)
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
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
    except (PipelineInterrupted, KeyboardInterrupt) as exc:
        print(f"interrupted: {exc or 'Ctrl-C'}", file=sys.stderr)
        return 130
    return 0


def check_results_dir() -> Path:
    """Create the results folder and check it can be written, before any notebook runs.

    Returns:
        The folder (:func:`lib.book.results.results_dir`).

    Raises:
        PipelineError: naming the folder (read only, a file in the way, a full disk) and what to do.
    """
    from lib.book.cache import probe_writable
    from lib.book.results import results_dir
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
    from lib.book.results import results_dir
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

    from lib.book.results import results_dir
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
        yield
    finally:
        fh.close()


def _run_plan(plan: list, args: argparse.Namespace, overrides: dict, root: Path) -> float:
    total = 0.0
    for src, params in plan:
        label = f"profile {args.profile}" + (f", overrides {overrides}" if overrides else "")
        print(f"running {src.stem} ({label}) ...", flush=True)
        with chapter_lock(src):
            clear_verdicts(src)
            to_ipynb(src, root)
            dt = execute(src, params, args.log_output, root)
        total += dt
        print(f"  done in {dt:.1f} s", flush=True)
    return total


if __name__ == "__main__":
    sys.exit(main())
