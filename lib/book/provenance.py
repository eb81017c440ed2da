"""Where a chapter's numbers come from: profile, overrides, commit, date, versions, machine, wall time.

Every chapter ends with :func:`provenance_line`, and figures state their own data and sizes; a
reader can then tell which run produced a page without opening any file. The profile and the
``-p`` overrides are what :mod:`lib.site.pipeline` told the kernel (``NTK_PROFILE``,
``NTK_OVERRIDES``); a notebook run outside the pipeline says so.
"""
from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from lib.book.paths import ROOT

__all__ = ["run_info", "provenance_line", "profile_text", "kernel_seconds"]

_IMPORTED_AT = time.time()


def _git_commit(root: Path) -> str:
    try:
        sha = subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], cwd=root, capture_output=True,
                             text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown (no git)"
    if not sha:
        return "unknown (not a git checkout)"
    return sha + (" with uncommitted changes" if dirty else "")


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def kernel_seconds() -> float:
    """Seconds since this Python process started (a notebook's kernel: the chapter's wall time so far).

    Read from ``/proc/self/stat`` where it exists; elsewhere, since :mod:`lib.book.provenance` was imported.
    """
    try:
        with open("/proc/self/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        start_ticks = int(fields[19])  # field 22 of proc(5), counted after "pid (comm)"
        with open("/proc/stat") as fh:
            btime = next(int(line.split()[1]) for line in fh if line.startswith("btime"))
        return max(0.0, time.time() - (btime + start_ticks / os.sysconf("SC_CLK_TCK")))
    except (OSError, ValueError, IndexError, StopIteration):
        return time.time() - _IMPORTED_AT


def run_info(root: str | Path | None = None) -> dict:
    """The facts of this run that a reader needs to weigh its numbers.

    Args:
        root: the repository (for the commit); default: the checkout holding :mod:`lib`.

    Returns:
        ``profile``, ``overrides`` (dict, or None outside the pipeline), ``commit``, ``date`` (UTC),
        ``python``, ``torch``, ``numpy``, ``scipy``, ``cpu``, ``cores``, ``gpu`` (None without CUDA).
    """
    import numpy
    import scipy
    import torch
    root = Path(root) if root is not None else ROOT
    raw = os.environ.get("NTK_OVERRIDES")
    try:
        overrides = json.loads(raw) if raw is not None else None
    except json.JSONDecodeError:
        overrides = {"unreadable NTK_OVERRIDES": raw}
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    return {
        "profile": os.environ.get("NTK_PROFILE"),
        "overrides": overrides,
        "commit": _git_commit(root),
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
        "cpu": _cpu_model(),
        "cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "gpu": gpu,
    }


def profile_text(profile: str) -> str:
    """``"profile <name>"``, plus ``" with overrides k = v, ..."`` when the pipeline reported ``-p`` overrides.

    Args:
        profile: the profile name.

    Returns:
        The text for a figure's settings line.
    """
    raw = os.environ.get("NTK_OVERRIDES")
    try:
        over = json.loads(raw) if raw else {}
    except json.JSONDecodeError:
        over = {"?": raw}
    if over:
        return f"profile {profile} with overrides " + ", ".join(f"{k} = {v}" for k, v in over.items())
    return f"profile {profile}"


def provenance_line(profile: str, info: dict | None = None, seconds: float | None = None) -> str:
    """The chapter's closing provenance line, as Markdown.

    Args:
        profile: the profile the notebook's ``parameters`` cell received (used when the pipeline
            did not say, e.g. under plain papermill).
        info: :func:`run_info` (computed if omitted).
        seconds: the chapter's wall time (default: :func:`kernel_seconds`).

    Returns:
        One line: profile, overrides, commit, date, versions, machine and wall time.
    """
    info = info if info is not None else run_info()
    seconds = kernel_seconds() if seconds is None else seconds
    overrides = info.get("overrides")
    if overrides is None:
        how = f"profile `{profile}`, run outside the pipeline (overrides unknown)"
    elif overrides:
        how = f"profile `{info.get('profile') or profile}` **with overrides** " + ", ".join(
            f"`{k} = {json.dumps(v)}`" for k, v in overrides.items())
    else:
        how = f"profile `{info.get('profile') or profile}`, no overrides"
    machine = f"{info['cpu']} ({info['cores']} cores)" + (f", GPU {info['gpu']}" if info.get("gpu") else ", no GPU")
    minutes = f"{seconds / 60:.1f} min" if seconds >= 90 else f"{seconds:.0f} s"
    return (f"*Provenance:* {how}; commit `{info['commit']}`; {info['date']}; Python {info['python']}, "
            f"torch {info['torch']}, numpy {info['numpy']}, scipy {info['scipy']}; {machine}; "
            f"wall time of this chapter {minutes}.")


if __name__ == "__main__":  # pragma: no cover - a quick look from the shell
    print(provenance_line("default"), file=sys.stdout)
