"""Chapter 07 (Performance), SGD section: one training run at a time against a batched grid of runs ([LH] Sec. 5).

[LH] Figure 4 and Table 1 need a learning rate per depth found by grid search, so many SGD runs
of one architecture. :func:`lib.finite.sgd_benchmark.run_sgd_benchmark` times them one at a
time and as one batched model (:func:`lib.finite.batched_sgd.sgd_train_runs`), each depth in a
fresh process, against the float32 matmul rate measured in the same process; this module runs it
for the chapter and writes its table and its sentence. Timings are never cached.
"""
from __future__ import annotations

import pandas as pd

from lib.finite.sgd_benchmark import format_sgd_table, run_sgd_benchmark, sgd_update_flops

__all__ = ["compute_sgd_benchmark", "table_sgd", "sgd_text"]


def compute_sgd_benchmark(depths, *, width: int, batch: int, runs: int, n_train: int, device: str,
                          threads: int = 0, repeats: int = 2, timed_updates: int = 10) -> pd.DataFrame:
    """Updates per second of one run and of a grid of ``runs`` runs, per depth ([LH] Sec. 5's SGD).

    Args:
        depths: depths L (hidden layers, each >= 1) of the ReLU MLP of [LH] Eq. (1).
        width: hidden width m (the paper's: 512).
        batch: SGD batch (the paper's: 500).
        runs: runs of the batched grid (chapter 06's rate search: 9).
        n_train: training inputs (Gaussian of MNIST's shape, d = 784).
        device: ``"cpu"`` or ``"cuda"``.
        threads: torch threads in the workers (0: torch's default).
        repeats: repeats per training call; the minimum time is used.
        timed_updates: SGD updates timed per mode and repeat, at least (10 keeps the default build's
            section to a few seconds; the command line times 20).

    Returns:
        One row per depth (:func:`lib.finite.sgd_benchmark.run_sgd_case`).
    """
    return run_sgd_benchmark(list(depths), width=width, batch=batch, runs=runs, n_train=n_train, device=device,
                             threads=threads, repeats=repeats, timed_updates=timed_updates, progress=False)


def table_sgd(df: pd.DataFrame) -> pd.DataFrame:
    """The SGD benchmark table: per depth, updates per second, fractions of the matmul rate, speed-up, peak memory.

    Args:
        df: rows of :func:`lib.chapters.performance.sgd.compute_sgd_benchmark`.

    Returns:
        The text table of :func:`lib.finite.sgd_benchmark.format_sgd_table`.
    """
    return format_sgd_table(df)


def sgd_text(df: pd.DataFrame) -> str:
    """What the SGD benchmark measured, one sentence per depth, from the rows (Markdown, [LH] Sec. 5).

    Args:
        df: rows of :func:`lib.chapters.performance.sgd.compute_sgd_benchmark`.

    Returns:
        Per depth: the grid's run-updates per second as a fraction of the same-run matmul rate, the
        speed-up over one run at a time, one run's fraction, the peak memories; then the load.
    """
    lines = []
    for r in df.itertuples():
        flops = sgd_update_flops(r.batch, r.in_dim, r.width, r.depth, r.out_dim)
        lines.append(
            f"- Depth {r.depth} (width {r.width}, batch {r.batch}, {flops / 1e9:.3g} GFLOP per update of one run): "
            f"the batched grid of {r.runs} runs made {r.grid_updates_per_s:.3g} run-updates per second, "
            f"{100 * r.grid_frac_matmul:.0f}% of the float32 matmul rate measured in the same process "
            f"({r.matmul_gflops:.3g} GFLOP/s), **{r.speedup:.1f}x** one run at a time "
            f"({r.one_updates_per_s:.3g} updates per second, {100 * r.one_frac_matmul:.0f}% of that rate); "
            f"peak extra memory {r.grid_peak_mb:.3g} MB for the grid, {r.one_peak_mb:.3g} MB for one run.")
    lines.append(f"\n1-minute load average {df.load_start.iloc[0]:.2f} at the start, {df.load_end.iloc[-1]:.2f} at "
                 "the end: on a shared machine both rates fall, and their ratio is what the same-run reference "
                 "keeps comparable.")
    return "\n".join(lines)
