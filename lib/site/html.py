"""Build the HTML book with Sphinx's parallel jobs: ``python -m lib.site.html [--jobs N]``.

This is ``jupyter-book build . -W -n --keep-going`` with one difference: Jupyter Book 1.x's command
line always builds with one Sphinx process (its ``build_sphinx`` takes ``jobs`` but the command does
not pass it, and ``sphinx: config:`` in ``_config.yml`` cannot set it), so this module calls the same
function with ``jobs``. The configuration is the one the command computes: ``_config.yml``,
``_toc.yml`` as the external table of contents, nitpicky, warnings as errors after the whole build.
Every extension of the book is declared safe for parallel reading and writing
(:func:`lib.site.sphinxext.declare_parallel_safe`).

Measured on the smoke book on the shared 2-core machine (load average about 6, so a ratio, not a time):
``--jobs 2`` took 105 s against 101 s for ``--jobs 1``. Reading is dominated by one page (the API
reference, 55 s of about 75 s), which one process reads, and the ~140 ``viewcode`` module pages are
written by the main process, so one process is the default. What made the build 3x faster was the
garbage collector (:func:`lib.site.sphinxext.freeze_read_objects`: 299 s before).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lib.book.paths import ROOT
from lib.site.machine import usable_cores

__all__ = ["build_html", "main"]



def build_html(root: Path = ROOT, jobs: int = 1, builder: str = "html") -> int:
    """Build the book under ``root`` into ``root/_build/html`` with ``jobs`` Sphinx processes.

    Args:
        root: the repository root (where ``_config.yml`` and ``_toc.yml`` are).
        jobs: Sphinx processes (its ``-j``); 1 builds in this process.
        builder: the Sphinx builder.

    Returns:
        Sphinx's status code (0: built without warnings), or 1 when the build raised.
    """
    from jupyter_book.sphinx import build_sphinx

    root = Path(root).resolve()
    result = build_sphinx(root, root / "_build" / builder, use_external_toc=True, noconfig=True,
                          path_config=str(root / "_config.yml"),
                          confoverrides={"external_toc_path": (root / "_toc.yml").as_posix(),
                                         "latex_individualpages": False, "nitpicky": True},
                          builder=builder, warningiserror=True, keep_going=True, jobs=int(jobs))
    if isinstance(result, BaseException):
        return 1
    return int(result or 0)


def main(argv: list[str] | None = None) -> int:
    """``python -m lib.site.html``: build the HTML book from ``_executed/`` (run the pipeline first)."""
    ap = argparse.ArgumentParser(prog="python -m lib.site.html", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jobs", type=int, default=1, metavar="N",
                    help=f"Sphinx processes (default 1: 2 were no faster on the 2-core machine; {usable_cores()} "
                         "core(s) here)")
    ap.add_argument("--root", default=str(ROOT), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    jobs = args.jobs
    if jobs < 1:
        print(f"error: --jobs must be at least 1, got {args.jobs}", file=sys.stderr)
        return 2
    code = build_html(Path(args.root), jobs)
    if code == 0:
        print(f"the book is at {Path(args.root).resolve() / '_build' / 'html' / 'index.html'}")
    return code


if __name__ == "__main__":
    sys.exit(main())
