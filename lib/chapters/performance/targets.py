"""Chapter 07 (Performance): the book's three targets for the exact NTK, checked on the benchmark rows.

The targets are this book's, not claims of the paper: at n = 512, width 512, depth 10 ([LH] Sec. 4
computes NTKs of ReLU nets of width 512 and depth up to 10 on batches of 512 inputs by Jacobian
contraction), our NTK should be (1) at least ``SPEEDUP_TARGET`` times faster than Jacobian
contraction, (2) need at least ``MEMORY_TARGET`` times less peak memory, and (3) run at no less
than ``THROUGHPUT_TARGET`` of the throughput of a plain float64 matrix product. The rows come
from :func:`lib.chapters.performance.benchmark.measure_benchmark`. The module also gathers the values the
chapter's prose shows (:func:`glue_values`).
"""
from __future__ import annotations

import os

import numpy as np

from lib.book.results import Check
from lib.chapters.performance.benchmark import PAPER_SIZE, BenchmarkRun, glue_benchmark
from lib.chapters.performance.scale import ScaleRun, glue_scale
from lib.chapters.performance.sgd import SgdRun, glue_sgd
from lib.finite.benchmark_tables import summary_table, target_row
from lib.finite.cost_model import flop_count, param_count

__all__ = ["TARGET_SIZE", "SPEEDUP_TARGET", "MEMORY_TARGET", "THROUGHPUT_TARGET", "TIMING_RTOL", "MEMORY_RTOL",
           "check_speedup", "check_memory", "check_throughput", "paper_cost_text", "glue_targets", "glue_values"]

#: (n, width, depth) at which the targets are stated ([LH] Sec. 4; batches of 512, width 512, depth <= 10).
TARGET_SIZE = PAPER_SIZE
#: target 1; Jacobian time / our time at least this (see :func:`lib.chapters.performance.targets.check_speedup`)
SPEEDUP_TARGET = 100
#: target 2; Jacobian peak memory / ours at least this (see :func:`lib.chapters.performance.targets.check_memory`)
MEMORY_TARGET = 10
#: target 3; our GFLOP/s / plain matmul GFLOP/s at least this (see :func:`lib.chapters.performance.targets.check_throughput`)
THROUGHPUT_TARGET = 0.5
#: A time-based ratio (speed-up, throughput) that misses its target by less than this relative amount is within the
#: timing noise of a shared 2-core machine (minimum-over-repeats times of one build vary by tens of percent between
#: builds with the machine's load), so it is a caveat, not a failure: "not reproduced" needs ratio < target / (1 + 0.2).
TIMING_RTOL = 0.2
#: The same for the memory ratio; the two peaks are resident-set maxima of separate fresh processes whose
#: baselines (interpreter, torch, thread pools) differ by some tens of MB, about a tenth of our peak (140 MB).
MEMORY_RTOL = 0.1


def _target(bench: BenchmarkRun):
    """(row, jacobian rows, ran, where, judge, caveat) at the target size."""
    df, target_n, target_depth, width = bench.frame, bench.target_n, bench.target_depth, bench.width
    row = target_row(df, target_n, target_depth)
    at_size = (target_n, width, target_depth) == TARGET_SIZE
    src = None if row is None else df[(df.method == "jacobian") & (df.n == target_n) & (df.depth == target_depth)]
    jac_ok = bool(src is not None and len(src) and src.status.iloc[0] == "ok")
    where = f"n={target_n}, width {width}, depth {target_depth}"
    caveat = "" if at_size else " (not the size the target names, so no verdict)"

    def judge(ratio: float, target: float, rtol: float) -> str:
        """"reproduced" at or above ``target``, "reproduced with caveat" within ``rtol`` below it (the measurement's
        noise), "not reproduced" below that; "not checked" at another size than the target's."""
        if not at_size:
            return "not checked"
        return ("reproduced" if ratio >= target else
                "reproduced with caveat" if ratio * (1 + rtol) >= target else "not reproduced")
    return row, src, jac_ok, where, judge, caveat


def _noise_caveat(status: str, what: str, rtol: float) -> str:
    return (f"the {what} misses its target by less than the {rtol:.0%} noise of the measurement"
            if status == "reproduced with caveat" else "")


def _not_measured(row, src, where: str) -> str:
    why = ("that size was not benchmarked" if row is None else
           "Jacobian contraction was not in the methods" if src is None or not len(src) else
           f"Jacobian contraction was {src.status.iloc[0]} ({src.reason.iloc[0]})" if src.status.iloc[0] != "ok" else
           "our method did not run")
    return f"Not measured at {where}: {why}."


def check_speedup(bench: BenchmarkRun) -> Check:
    """Target 1: our NTK is at least 100x faster than Jacobian contraction at n=512, width 512, depth 10.

    The book's own target (claim "Performance: speed-up vs Jacobian"): the exact NTK is at least 100
    times faster than a Jacobian contraction at n = 512, width 512, depth 10. Rule, on the measured time
    ratio r (Jacobian / ours, minimum over repeats, same network, data and threads): "reproduced" if
    r >= :data:`~lib.chapters.performance.targets.SPEEDUP_TARGET` (100); "reproduced with caveat" if it misses by less than the timing
    noise, r (1 + :data:`~lib.chapters.performance.targets.TIMING_RTOL`) >= 100 (r >= 83); "not reproduced" below; "not checked" at any other
    size than :data:`lib.chapters.performance.targets.TARGET_SIZE` or when the Jacobian method or ours did
    not run. The threshold 100 is the target itself, not a tolerance, and not a foregone
    conclusion: the ratio of operation counts at that size is only about 120
    (:func:`lib.finite.cost_model.flop_count`; the verdict quotes it), so the target holds only if
    our flops run at least about as fast as the Jacobian method's; a slow implementation of ours,
    or timing noise of tens of percent on a shared machine, can put the ratio below 100.

    Args:
        bench: :func:`lib.chapters.performance.benchmark.measure_benchmark` output (its target size and input
            dimension).

    Returns:
        The check, claim id ``"Performance: speed-up vs Jacobian"``.
    """
    row, src, jac_ok, where, judge, caveat = _target(bench)
    if not jac_ok or not np.isfinite(row.speedup_jacobian):
        status, measured = "not checked", _not_measured(row, src, where)
    else:
        jv = src.variant.iloc[0]
        sp = row.speedup_jacobian
        status = judge(sp, SPEEDUP_TARGET, TIMING_RTOL)
        n, d, m, L = bench.target_n, bench.in_dim, bench.width, bench.target_depth
        fl = flop_count("jacobian", n, d, m, L) / flop_count("ours", n, d, m, L)
        measured = (f"At {where}: ours {row.ours_s:.3g} s, Jacobian contraction ({jv} variant) {row.jacobian_s:.3g} s, "
                    f"a speed-up of {sp:.0f}x (target {SPEEDUP_TARGET}x; the ratio of operation counts is {fl:.0f}); the kernels "
                    f"agree to {row.maxreldiff_jacobian:.1e} relative{caveat}.")
    return Check("Performance: speed-up vs Jacobian", status=status, measured=measured,
                 caveat=_noise_caveat(status, "speed-up", TIMING_RTOL) or (measured if status == "not checked" else ""))


def check_memory(bench: BenchmarkRun) -> Check:
    """Target 2: our NTK needs at least 10x less peak memory than Jacobian contraction (n=512, width 512, depth 10).

    The book's own target (claim "Performance: memory vs Jacobian"): the exact NTK needs at least 10
    times less peak memory than a Jacobian contraction at n = 512, width 512, depth 10. Rule, on the
    ratio r of peak extra resident memory (Jacobian / ours, each in a fresh process, baseline after
    setup and warm-up): "reproduced" if r >= :data:`~lib.chapters.performance.targets.MEMORY_TARGET` (10); "reproduced with caveat" if it
    misses by less than the measurement's noise, r (1 + :data:`~lib.chapters.performance.targets.MEMORY_RTOL`) >= 10; "not reproduced"
    below; "not checked" at another size or when the Jacobian method or ours did not run. The threshold is the
    target itself, not a tolerance. The full Jacobian stores n x P numbers (about 10 GB at that size), but the
    per-layer variant the memory budget falls back to holds one n x m^2 slice (about 1 GB)
    against O(L n m + n^2) numbers for ours (a few hundred MB), so the ratio can land on either
    side of 10; the page-level resolution of the resident-set measurement (a few MB) is far
    below both peaks.

    Args:
        bench: :func:`lib.chapters.performance.benchmark.measure_benchmark` output (its target size).

    Returns:
        The check, claim id ``"Performance: memory vs Jacobian"``.
    """
    row, src, jac_ok, where, judge, caveat = _target(bench)
    if not jac_ok or not np.isfinite(row.mem_ratio_jacobian):
        status, measured = "not checked", _not_measured(row, src, where)
    else:
        jv = src.variant.iloc[0]
        mr = row.mem_ratio_jacobian
        status = judge(mr, MEMORY_TARGET, MEMORY_RTOL)
        measured = (f"At {where}: peak extra memory ours {row.ours_MB:.3g} MB, Jacobian contraction ({jv} variant) "
                    f"{row.jacobian_MB:.3g} MB, a ratio of {mr:.3g}x (target {MEMORY_TARGET}x){caveat}.")
    return Check("Performance: memory vs Jacobian", status=status, measured=measured,
                 caveat=_noise_caveat(status, "memory ratio", MEMORY_RTOL) or (measured if status == "not checked" else ""))


def check_throughput(bench: BenchmarkRun) -> Check:
    """Target 3: our NTK runs at no less than 50% of the measured float64 matmul throughput.

    The book's own target (claim "Performance: throughput vs matmul"): the exact NTK's assembly runs at
    no less than 50 % of the measured float64 matrix-multiply throughput (n = 512, width 512, depth 10).
    Rule, on the fraction f of our counted matrix-product flops over our measured time to the best
    rate of a plain (n x m)(m x n) float64 product timed in the same worker between our repeats:
    "reproduced" if f >= :data:`~lib.chapters.performance.targets.THROUGHPUT_TARGET` (0.5); "reproduced with caveat" if it misses by less
    than the timing noise, f (1 + :data:`~lib.chapters.performance.targets.TIMING_RTOL`) >= 0.5; "not reproduced" below; "not checked" at
    another size or when ours did not run. Half, not all: our
    method also does elementwise work that is not counted and products of other shapes (the
    first with m_0 = d), which run below the peak rate of one square product.

    Args:
        bench: :func:`lib.chapters.performance.benchmark.measure_benchmark` output (its target size).

    Returns:
        The check, claim id ``"Performance: throughput vs matmul"``.
    """
    row, _, _, where, judge, caveat = _target(bench)
    tab = summary_table(bench.frame)
    if row is None or not np.isfinite(row.ours_frac_matmul):
        status, measured = "not checked", f"Not measured at {where}."
    else:
        status = judge(row.ours_frac_matmul, THROUGHPUT_TARGET, TIMING_RTOL)
        measured = (f"At {where} ours runs at {row.ours_gflops:.1f} GFLOP/s against {row.matmul_gflops:.1f} GFLOP/s "
                    f"for the plain matmul, {100 * row.ours_frac_matmul:.0f}% (target {100 * THROUGHPUT_TARGET:.0f}%); over all sizes "
                    f"benchmarked the fraction ranges from {100 * tab.ours_frac_matmul.min():.0f}% "
                    f"to {100 * tab.ours_frac_matmul.max():.0f}%{caveat}.")
    return Check("Performance: throughput vs matmul", status=status, measured=measured,
                 caveat=_noise_caveat(status, "throughput", TIMING_RTOL) or (measured if status == "not checked" else ""))


def paper_cost_text(bench: BenchmarkRun) -> str:
    """Our time at the target size set beside [LH] Sec. 4's "hours on an A100" (Markdown).

    Args:
        bench: :func:`lib.chapters.performance.benchmark.measure_benchmark` output (its target size and input
            dimension).

    Returns:
        Markdown text.
    """
    row, _, jac_ok, where, _, _ = _target(bench)
    ours_t = None if row is None else row.ours_s
    target_n = bench.target_n
    P_target = param_count(bench.in_dim, bench.width, bench.target_depth)
    if ours_t is not None and np.isfinite(ours_t):
        msg = (f"At {where} ($P$ = {P_target:,} weights) our exact NTK took **{ours_t:.2g} s** in float64 on "
               f"this machine ({os.cpu_count()} shared CPU cores)")
        msg += (f", and Jacobian contraction {row.jacobian_s:.3g} s" if jac_ok else "")
        msg += (f". The product $JJ^\\top$ alone is {2 * target_n ** 2 * P_target / 1e12:.2g} TFLOP at this size. "
                "The paper's 'hours' on an A100 is the authors' statement, not our measurement, and the paper "
                "does not say which data sizes it refers to.")
        return msg
    return f"Our method was not run at {where} in this profile."


def glue_targets(bench: BenchmarkRun) -> dict[str, str]:
    """The values the chapter's opening states about its targets: the targets themselves and whether this
    run evaluates them at their size (then the checks give verdicts).

    Args:
        bench: :func:`lib.chapters.performance.benchmark.measure_benchmark` output.

    Returns:
        ``{name: text}``: ``target_size``, ``speedup_target``, ``memory_target``, ``throughput_target``,
        ``target_verdicts``.
    """
    tn, tw, td = TARGET_SIZE
    run_target = f"n = {bench.target_n}, width {bench.width}, depth {bench.target_depth}"
    at_target = (bench.target_n, bench.width, bench.target_depth) == TARGET_SIZE
    return {"target_size": f"n = {tn}, width {tw}, depth {td}", "speedup_target": str(SPEEDUP_TARGET),
            "memory_target": str(MEMORY_TARGET), "throughput_target": f"{100 * THROUGHPUT_TARGET:.0f}%",
            "target_verdicts": (f"This run evaluates them at {run_target}, the targets' size, so the checks below "
                                "give verdicts." if at_target else
                                f"This run evaluates them at {run_target}, not the targets' size, so the checks "
                                "below report the measurements without a verdict.")}


def glue_values(bench: BenchmarkRun, scale: ScaleRun, sgd: SgdRun) -> dict[str, str]:
    """Every value the chapter's prose and table captions show, as plain text to glue, read from the measured
    results: :func:`glue_targets`, :func:`lib.chapters.performance.benchmark.glue_benchmark`,
    :func:`lib.chapters.performance.scale.glue_scale` and :func:`lib.chapters.performance.sgd.glue_sgd`.

    Args:
        bench: :func:`lib.chapters.performance.benchmark.measure_benchmark` output.
        scale: :func:`lib.chapters.performance.scale.measure_scale` output.
        sgd: :func:`lib.chapters.performance.sgd.measure_sgd_benchmark` output.

    Returns:
        ``{name: text}``.
    """
    return {**glue_targets(bench), **glue_benchmark(bench), **glue_scale(scale), **glue_sgd(sgd)}
