"""Shared fixtures. The expensive one, ``smoke_book``, copies the sources to a temporary
directory, executes every notebook under the ``smoke`` profile with papermill and builds the
book there, once per test session."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ["_config.yml", "_toc.yml", "jupytext.toml", "_static", "book", "notebooks", "lib", "pyproject.toml"]


@pytest.fixture(autouse=True)
def results_outside_the_checkout(tmp_path_factory, monkeypatch):
    """Every test starts with ``NTK_RESULTS_DIR`` in a scratch folder of its own, so no test writes into (or
    deletes from) the checkout's ``results/``; a test that needs another folder sets its own."""
    monkeypatch.setenv("NTK_RESULTS_DIR", str(tmp_path_factory.mktemp("results")))


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture
def one_thread():
    """Tiny matrices: extra torch threads only spin on a shared 2-core machine (30x slower runs seen)."""
    import torch
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


def copy_sources(dest: Path) -> Path:
    for name in SOURCES:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns("*.ipynb", "__pycache__", "_build", "_executed"))
        else:
            shutil.copy2(src, dest / name)
    return dest


@pytest.fixture
def source_copy(tmp_path):
    """A scratch copy of the book's sources (lib, notebooks, book, configuration), as the build sees them."""
    return copy_sources(tmp_path)


def run(cmd, cwd, env=None, timeout=1800):
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="session")
def smoke_book(tmp_path_factory):
    """(root, pipeline result, book build result) of a smoke-profile run in a scratch copy."""
    root = copy_sources(tmp_path_factory.mktemp("book"))
    env = dict(os.environ, NTK_RESULTS_DIR=str(root / "results"), NTK_CACHE_DIR=str(root / ".cache"))
    pipe = run([sys.executable, "-m", "lib.site.pipeline", "--profile", "smoke", "--root", str(root)], root, env)
    # `make html`: jupyter-book build . -W -n --keep-going with Sphinx's parallel jobs
    book = run([sys.executable, "-m", "lib.site.html", "--root", str(root)], root, env) if pipe.returncode == 0 else None
    return root, pipe, book


@pytest.fixture(scope="session")
def html_dir(smoke_book) -> Path:
    """The HTML folder of :func:`smoke_book`; a failed build fails the test that asks for it."""
    root, pipe, book = smoke_book
    if book is None or book.returncode != 0:
        pytest.fail("the book did not build; see tests/e2e/test_book.py")
    return root / "_build" / "html"


#: What a build writes into the checkout; no test may write or delete there (scratch copies and NTK_RESULTS_DIR
#: exist for that). The session fails naming the files a test changed.
GUARDED = ("results", "_executed", "notebooks")


def checkout_outputs(root: Path = ROOT) -> dict[str, int]:
    """Build outputs in the checkout (results, executed pages, notebooks' .ipynb), path -> modification time."""
    out = {}
    for name in GUARDED:
        base = root / name
        if base.is_dir():
            for p in base.rglob("*"):
                if p.is_file() and (name != "notebooks" or p.suffix == ".ipynb"):
                    out[str(p.relative_to(root))] = p.stat().st_mtime_ns
    return out


def changed_outputs(before: dict[str, int], after: dict[str, int]) -> list[str]:
    """Files written, created or deleted between two snapshots of :func:`checkout_outputs`."""
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


def pytest_sessionstart(session):
    session.config.stash[OUTPUTS] = checkout_outputs()


def pytest_sessionfinish(session, exitstatus):
    changed = changed_outputs(session.config.stash[OUTPUTS], checkout_outputs())
    if changed:
        session.config.get_terminal_writer().line(
            f"tests wrote into the checkout's build outputs ({len(changed)} files), e.g. {changed[:5]}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


OUTPUTS = pytest.StashKey[dict]()
