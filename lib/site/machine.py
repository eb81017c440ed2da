"""How fast this machine is right now: the float32 matmul rate a build time is quoted with.

Machines of one class differ, and a shared machine differs from minute to minute, so a time is
quoted with the rate of one fixed matmul (500 x 512 by 512 x 512, float32, torch's default threads)
measured in the same run (:mod:`lib.site.pipeline` prints it beside its wall time). A reader compares
machines by that rate.
"""
from __future__ import annotations

import os
import time

import torch

__all__ = ["MATMUL_SHAPE", "measure_matmul_rate", "matmul_threads", "usable_cores", "default_jobs"]

#: ``(m, k, n)``: an ``m x k`` by ``k x n`` float32 matmul, ``2 m k n`` flops
MATMUL_SHAPE = (500, 512, 512)


def matmul_threads() -> int:
    """torch's intra-op threads in this process (what :func:`measure_matmul_rate` uses)."""
    return torch.get_num_threads()


def measure_matmul_rate(seconds: float = 1.0, shape: tuple[int, int, int] = MATMUL_SHAPE) -> float:
    """The float32 matmul rate of this machine now, in GFLOP/s: the best of repeated timings.

    The best repeat, not the mean, is the machine's rate; what other jobs take shows as a lower best
    only when they take it all the time.

    Args:
        seconds: how long to keep repeating (after a short warm-up); at least 20 repeats are timed.
        shape: ``(m, k, n)`` of the product.

    Returns:
        ``2 m k n / best seconds / 1e9``.
    """
    m, k, n = (int(v) for v in shape)
    gen = torch.Generator().manual_seed(0)
    a = torch.randn(m, k, generator=gen, dtype=torch.float32)
    b = torch.randn(k, n, generator=gen, dtype=torch.float32)
    for _ in range(5):
        a @ b
    best, repeats, start = float("inf"), 0, time.perf_counter()
    while repeats < 20 or time.perf_counter() - start < seconds:
        t0 = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - t0)
        repeats += 1
    return 2.0 * m * k * n / best / 1e9


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def default_jobs() -> int:
    """How many notebooks the pipeline runs at once, and Sphinx processes the HTML build uses, by
    default: one per core, at most 2 (a chapter can hold 4 GB, and a build of 2 at a time is what
    was measured against one at a time)."""
    return min(2, usable_cores())
