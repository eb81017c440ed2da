"""Where a chapter run writes: the results folder, below both the verdicts (:mod:`lib.book.results`) and the
figure registry (:mod:`lib.book.figures`), which keep their files in it."""
from __future__ import annotations

import os
from pathlib import Path

__all__ = ["results_dir"]


def results_dir() -> Path:
    """``$NTK_RESULTS_DIR`` if set, else ``results/`` at the repository root (found from the cwd)."""
    env = os.environ.get("NTK_RESULTS_DIR")
    if env:
        return Path(env)
    here = Path.cwd().resolve()
    for p in (here, *here.parents):
        if (p / "_config.yml").exists():
            return p / "results"
    return here / "results"
