"""The notebook kernels :mod:`lib.site.pipeline` starts, and how they stop.

Each kernel gets its own environment, working folder and output (:func:`kernel_manager_class`),
so that two notebooks can run at once from one pipeline process. Every kernel the pipeline starts
is remembered until it shuts down, so that Ctrl-C or ``kill PID`` (SIGTERM) of the pipeline kills
them (:func:`kill_kernels`). A pipeline killed with SIGKILL cannot clean up; on Linux its kernels
then die at once too (:func:`die_with_parent`), where before they lived on until ipykernel's own
parent poll noticed, which a cell holding the interpreter lock delays.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
from pathlib import Path

__all__ = ["KERNEL_ARGUMENTS", "kernel_manager_class", "kill_kernels", "running_kernels", "die_with_parent"]

#: Arguments of every kernel. No "running over TCP" warning, and no "KeyboardInterrupt caught in
#: kernel" line when jupyter_client's shutdown SIGINT meets an idle handler (a cell's own errors still
#: reach the pipeline through papermill). ``capture_fd_output=False``: what the kernel writes to its
#: file descriptors 1 and 2 (progress bars on ``sys.__stderr__``, :mod:`lib.progress`; C libraries;
#: worker processes) goes to the pipeline's terminal, never into the executed notebook; with
#: ipykernel's default it went into a pipe read into the notebook, and the bars, seeing no
#: terminal, were never drawn at all.
KERNEL_ARGUMENTS = ["--IPKernelApp.log_level=CRITICAL", "--IPKernelApp.capture_fd_output=False"]

#: ``prctl`` option: the signal a process gets when the thread that started it ends
PR_SET_PDEATHSIG = 1

_RUNNING: set = set()
_RUNNING_LOCK = threading.Lock()


def _load_prctl():
    """libc's ``prctl`` (Linux), looked up once here: a forked child must not load libraries."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _load_prctl()


def die_with_parent() -> None:
    """Run in a kernel's process before it starts (``preexec_fn``): have Linux kill it with SIGKILL
    when the pipeline thread that started it ends, also when the pipeline itself is killed with SIGKILL.

    If the pipeline is already gone when this runs, the process exits at once. Elsewhere than on
    Linux nothing is done (ipykernel's parent poll, once a second, still ends an orphaned kernel).
    """
    if _PRCTL is None:
        return
    parent = os.getppid()
    _PRCTL(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent:  # the pipeline died before the request was made
        os._exit(1)


def running_kernels() -> list:
    """The kernel managers of the kernels started and not yet shut down."""
    with _RUNNING_LOCK:
        return list(_RUNNING)


def kernel_manager_class(env: dict[str, str], cwd: Path, output: int | None = None) -> type:
    """A jupyter_client ``AsyncKernelManager`` class for one notebook run.

    Args:
        env: variables added to the pipeline's environment for this kernel (read when it starts).
        cwd: the kernel's working folder (the notebook's folder). It is given to the kernel itself,
            never set with ``chdir`` for the whole pipeline process, which runs other notebooks at once.
        output: a file descriptor for the kernel's stdout and stderr (a :class:`lib.site.console.LineRelay`),
            or None for the pipeline's own.

    Returns:
        The class, for papermill's ``kernel_manager_class``.
    """
    from jupyter_client.manager import AsyncKernelManager

    extra = dict(env)
    folder = str(cwd)

    class PipelineKernelManager(AsyncKernelManager):
        """Starts the kernel with this run's environment, folder and output; remembered while it runs."""

        async def start_kernel(self, **kw):
            kw["env"] = {**os.environ, **extra}
            kw["cwd"] = folder
            kw["preexec_fn"] = die_with_parent
            if output is not None:
                kw["stdout"] = kw["stderr"] = output
            await super().start_kernel(**kw)
            with _RUNNING_LOCK:
                _RUNNING.add(self)

        async def shutdown_kernel(self, *args, **kw):
            with _RUNNING_LOCK:
                _RUNNING.discard(self)
            return await super().shutdown_kernel(*args, **kw)

    return PipelineKernelManager


def kill_kernels() -> int:
    """Kill every kernel still running, with its process group (each kernel starts its own session,
    so processes it started go too).

    Returns:
        How many kernels were killed.
    """
    killed = 0
    for km in running_kernels():
        proc = getattr(getattr(km, "provisioner", None), "process", None)
        if proc is not None and proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                proc.kill()
            killed += 1
        with _RUNNING_LOCK:
            _RUNNING.discard(km)
    return killed
