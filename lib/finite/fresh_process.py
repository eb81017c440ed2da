"""Run one benchmark case in a fresh Python process and measure its peak memory there.

Both benchmarks of chapter 07 use it: the NTK benchmark (:mod:`lib.finite.benchmark`, [LH] Sec. 4
computes NTKs) and the SGD speed benchmark (:mod:`lib.finite.sgd_benchmark`, [LH] Sec. 5 trains
by SGD). A case runs as ``python -m <module> --worker <json spec>``; the worker prints its result
as one JSON line. Peak memory on CPU is the kernel's resident high-water mark ``VmHWM``, reset
just before the measured calls (``clear_refs`` 5), minus the resident size at the reset.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

__all__ = ["status_bytes", "reset_rss_peak", "rss_peak", "vm_size", "spawn_worker", "add_common_options",
           "serve_worker"]


def status_bytes(key: str) -> float:
    """A size field of ``/proc/self/status`` (``VmRSS``, ``VmHWM``, ...) in bytes.

    Args:
        key: the field name.

    Returns:
        Its value in bytes.

    Raises:
        RuntimeError: the field is absent.
    """
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key):
                return int(line.split()[1]) * 1024.0
    raise RuntimeError(f"{key} not found in /proc/self/status")


def reset_rss_peak() -> float:
    """Reset the kernel's resident high-water mark (``clear_refs`` 5, Linux >= 4.0); return the baseline RSS.

    If the reset is not possible, the baseline is ``ru_maxrss`` (then a transient peak during the
    setup can hide part of the measured calls' memory).

    Returns:
        The resident size in bytes that later peaks are measured against.
    """
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return status_bytes("VmRSS")
    except OSError:
        return rss_peak()


def rss_peak() -> float:
    """Resident high-water mark in bytes: VmHWM (reset by :func:`reset_rss_peak`), else ``ru_maxrss``.

    Returns:
        The peak resident size in bytes.
    """
    try:
        return status_bytes("VmHWM")
    except (OSError, RuntimeError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024.0  # KiB on Linux


def vm_size() -> int:
    """The process's virtual size in bytes (0 where ``/proc`` is absent).

    Returns:
        ``VmSize`` in bytes.
    """
    try:
        return int(status_bytes("VmSize"))
    except (OSError, RuntimeError):
        return 0


def spawn_worker(module: str, spec: dict, timeout: float) -> tuple[dict | None, str | None]:
    """Run ``python -m <module> --worker <spec>`` in a fresh interpreter and read its last output line as JSON.

    ``spec["threads"]``, when set, also sets ``OMP_NUM_THREADS`` and ``MKL_NUM_THREADS`` in the
    worker; this repository is put first on its ``PYTHONPATH``.

    Args:
        module: the module whose ``--worker`` option runs the case.
        spec: the case, as a JSON-serializable dict.
        timeout: seconds before the worker is killed.

    Returns:
        ``(result, None)``, or ``(None, reason)``: ``"killed after N s (time budget)"``, ``"ran out of
        its hard memory limit"`` or ``"worker failed: <its last error line>"``.
    """
    cmd = [sys.executable, "-m", module, "--worker", json.dumps(spec)]
    threads = {k: str(spec["threads"]) for k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")} if spec.get("threads") else {}
    env = dict(os.environ, **threads, PYTHONPATH=str(Path(__file__).resolve().parents[2]) + os.pathsep
               + os.environ.get("PYTHONPATH", ""))
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None, f"killed after {timeout:.0f} s (time budget)"
    if r.returncode != 0:
        tail = (r.stderr or "").strip().splitlines()[-1:] or ["no message"]
        if "can't allocate memory" in r.stderr or "MemoryError" in r.stderr:
            return None, "ran out of its hard memory limit"
        return None, f"worker failed: {tail[0][:200]}"
    return json.loads(r.stdout.strip().splitlines()[-1]), None


def add_common_options(ap: argparse.ArgumentParser) -> None:
    """Options both benchmark command lines share: ``--device``, ``--threads``, ``--csv``, hidden ``--worker``.

    Args:
        ap: the parser to extend.
    """
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--device", default="cpu", help="cpu or cuda")
    ap.add_argument("--threads", type=int, default=0, help="torch threads per worker (0: torch's default)")
    ap.add_argument("--csv", help="also write the raw rows to this CSV file")


def serve_worker(args: argparse.Namespace, worker) -> bool:
    """If this process was started by :func:`spawn_worker`, run ``worker(spec)`` and print its result as JSON.

    Args:
        args: the parsed command line (with ``worker``, the JSON spec, or None).
        worker: the function that runs one case from its spec dict.

    Returns:
        True if a case was run (the command line then exits 0).
    """
    if not args.worker:
        return False
    print(json.dumps(worker(json.loads(args.worker))))
    return True
