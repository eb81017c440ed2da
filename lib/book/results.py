"""Claim verdicts recorded by the notebooks, read back by the reproducibility report.

Each chapter calls :func:`verdict` once per claim it checks. The verdict is written to
``results/<chapter>.json`` (one file per chapter, rewritten atomically) and returned as a
Markdown sentence for the notebook to display. The report page builds its table from these
files only, so it cannot go stale or be typed by hand.
"""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

__all__ = ["VERDICTS", "Check", "results_dir", "verdict", "record", "load_all"]

#: The four verdicts a claim can get, from best to worst.
VERDICTS = ("reproduced", "reproduced with caveat", "not reproduced", "not checked")


@dataclass(frozen=True)
class Check:
    """The outcome of one verdict check of a chapter (a ``check_*`` function in :mod:`lib.chapters`).

    Attributes:
        claim_id: the paper's label, e.g. ``"[LH] Thm 2.3"``.
        claim: what the paper says, in one sentence.
        status: one of :data:`VERDICTS`, computed from the measurement.
        measured: the measured numbers that settle it, in one sentence.
    """

    claim_id: str
    claim: str
    status: str
    measured: str

    def __post_init__(self):
        if self.status not in VERDICTS:
            raise ValueError(f"status must be one of {VERDICTS}, got {self.status!r}")


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


def verdict(chapter: str, claim_id: str, claim: str, status: str, measured: str,
            section: str | None = None, profile: str | None = None) -> str:
    """Record the verdict on one claim and return it as a Markdown sentence.

    Args:
        chapter: notebook stem, e.g. ``"01_linear_baseline"``.
        claim_id: the paper's label, e.g. ``"[LH] Thm 2.3"`` (one row of the report per id).
        claim: what the paper says, in one sentence.
        status: one of :data:`VERDICTS`.
        measured: the measured numbers that settle it, in one sentence.
        section: the heading (anchor text) of the chapter section that checks it.
        profile: the parameter profile of the run (shown in the report).
    """
    if status not in VERDICTS:
        raise ValueError(f"status must be one of {VERDICTS}, got {status!r}")
    d = results_dir()
    d.mkdir(parents=True, exist_ok=True)
    path = d / f"{chapter}.json"
    rows = json.loads(path.read_text()) if path.exists() else {}
    rows[claim_id] = dict(chapter=chapter, claim_id=claim_id, claim=claim, status=status,
                          measured=measured, section=section, profile=profile)
    fd, tmp = tempfile.mkstemp(dir=d, suffix=".tmp")
    with os.fdopen(fd, "w") as fh:
        json.dump(rows, fh, indent=1)
    os.replace(tmp, path)
    return f"**Verdict ({claim_id}): {status}.** {measured}"


def record(chapter: str, check: Check, section: str | None = None, profile: str | None = None) -> str:
    """Record a :class:`Check` with :func:`verdict` and return its Markdown sentence."""
    return verdict(chapter, check.claim_id, check.claim, check.status, check.measured,
                   section=section, profile=profile)


def load_all(directory: str | Path | None = None) -> list[dict]:
    """Every recorded verdict, ordered by chapter then recording order."""
    d = Path(directory) if directory else results_dir()
    rows: list[dict] = []
    for path in sorted(d.glob("*.json")):
        rows.extend(json.loads(path.read_text()).values())
    return rows
