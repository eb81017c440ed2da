"""Chapter 07 (Performance), SGD section: one training run at a time against a batched grid of runs ([LH] Sec. 5).

[LH] Figure 4 and Table 1 need a learning rate per depth found by grid search, so many SGD runs
of one architecture. :func:`lib.finite.sgd_benchmark.run_sgd_benchmark` times them one at a
time and as one batched model (:func:`lib.finite.batched_sgd.sgd_train_runs`), each depth in a
fresh process, against the float32 matmul rate measured in the same process; this module runs it
for the chapter (:func:`measure_sgd_benchmark`, an :class:`SgdRun` that carries its settings) and writes
its table and its sentence. Timings are never cached.
"""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from lib.book.wording import ints
from lib.chapters.performance.benchmark import describe_device, describe_threads, paper_profile
from lib.finite.sgd_benchmark import IN_DIM, OUT_DIM, SGD_LR, format_sgd_table, run_sgd_benchmark, sgd_update_flops

__all__ = ["SgdRun", "measure_sgd_benchmark", "table_sgd", "sgd_text", "describe_sgd_sizes", "glue_sgd"]


@dataclass(frozen=True, eq=False)
class SgdRun:
    """The SGD benchmark of one run and the settings it was measured with ([LH] Sec. 5's SGD).

    Attributes:
        frame: one row per depth (:func:`lib.finite.sgd_benchmark.run_sgd_case`).
        depths: depths L (hidden layers, each >= 1) of the ReLU MLP of [LH] Eq. (1).
        width: hidden width m.
        batch: SGD batch.
        runs: runs of the batched grid.
        n_train: training inputs (Gaussian of MNIST's shape).
        device: ``"cpu"`` or ``"cuda"``.
        threads: torch threads in the workers (0: torch's default).
        profile: the parameter profile of the run ("" when unknown).
    """

    frame: pd.DataFrame
    depths: tuple
    width: int
    batch: int
    runs: int
    n_train: int
    device: str = "cpu"
    threads: int = 0
    profile: str = ""


def measure_sgd_benchmark(cfg, repeats: int = 2, timed_updates: int = 10) -> SgdRun:
    """Updates per second of one run and of a grid of ``cfg.sgd_runs`` runs, per depth ([LH] Sec. 5's SGD),
    by :func:`lib.finite.sgd_benchmark.run_sgd_benchmark` (each depth in a fresh process).

    Args:
        cfg: the chapter's validated parameters (:data:`lib.chapters.performance.spec.SPEC`): ``sgd_depths``,
            ``sgd_width`` (the paper's: 512), ``sgd_batch`` (the paper's: 500), ``sgd_runs`` (chapter 06's rate
            search: 9), ``sgd_n_train``, ``device``, ``threads``, ``profile``.
        repeats: repeats per training call; the minimum time is used.
        timed_updates: SGD updates timed per mode and repeat, at least (10 keeps the default build's
            section to a few seconds; the command line times 20).

    Returns:
        :class:`SgdRun`.
    """
    frame = run_sgd_benchmark(list(cfg.sgd_depths), width=cfg.sgd_width, batch=cfg.sgd_batch, runs=cfg.sgd_runs,
                              n_train=cfg.sgd_n_train, device=cfg.device, threads=cfg.threads, repeats=repeats,
                              timed_updates=timed_updates, progress=False)
    return SgdRun(frame, tuple(cfg.sgd_depths), int(cfg.sgd_width), int(cfg.sgd_batch), int(cfg.sgd_runs),
                  int(cfg.sgd_n_train), cfg.device, int(cfg.threads), cfg.profile)


def table_sgd(sgd: SgdRun) -> pd.DataFrame:
    """The SGD benchmark table: per depth, updates per second, fractions of the matmul rate, speed-up, peak memory.

    Args:
        sgd: :func:`lib.chapters.performance.sgd.measure_sgd_benchmark` output.

    Returns:
        The text table of :func:`lib.finite.sgd_benchmark.format_sgd_table`.
    """
    return format_sgd_table(sgd.frame)


def sgd_text(sgd: SgdRun) -> str:
    """What the SGD benchmark measured, one sentence per depth, from the rows (Markdown, [LH] Sec. 5).

    Args:
        sgd: :func:`lib.chapters.performance.sgd.measure_sgd_benchmark` output.

    Returns:
        Per depth: the grid's run-updates per second as a fraction of the same-run matmul rate, the
        speed-up over one run at a time, one run's fraction, the peak memories; then the load.
    """
    df, lines = sgd.frame, []
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


def describe_sgd_sizes(depths, width: int, batch: int, runs: int, n_train: int) -> str:
    """The sizes of an SGD benchmark in words (depths, width, batch, grid, training inputs)."""
    return (f"depth{'s' if len(depths) > 1 else ''} {ints(depths, ranges=False)}, width {width}, batch {batch}, "
            f"a grid of {runs} runs, {n_train:,} training inputs")


def glue_sgd(sgd: SgdRun) -> dict[str, str]:
    """The values the SGD section's prose and table caption show, from the measured run.

    Args:
        sgd: :func:`measure_sgd_benchmark` output.

    Returns:
        ``{name: text}``: ``sgd_caption`` (the setting under the table), ``sgd_sizes``, ``paper_sgd_sizes`` (what
        the ``paper`` profile runs).
    """
    sizes = describe_sgd_sizes(sgd.depths, sgd.width, sgd.batch, sgd.runs, sgd.n_train)
    paper = paper_profile()
    keys = ("sgd_depths", "sgd_width", "sgd_batch", "sgd_runs", "sgd_n_train")
    ours = (sgd.depths, sgd.width, sgd.batch, sgd.runs, sgd.n_train)
    paper_sizes = (describe_sgd_sizes(*(paper.get(k, v) for k, v in zip(keys, ours)))
                   if any(k in paper for k in keys) else "the same sizes")
    caption = (f"Setting: {sizes} (unit-norm Gaussian, d = {IN_DIM}: MNIST's shape), random labels in {OUT_DIM} "
               f"classes; ReLU MLP of [LH] Eq. (1), cross-entropy, plain SGD, float32, every run at rate {SGD_LR:g} "
               f"with seeds 0 to {sgd.runs - 1}; {describe_threads(sgd.threads)} on {describe_device(sgd.device)}; "
               f"{{profile}}. Deviation: the paper trains on MNIST's 60,000 images on a GPU and "
               "reports no training speed; the speed does not depend on the pixel values or the labels, and one small "
               "rate keeps every run in the batch (a run stopped as diverged would shrink it).")
    return {"sgd_caption": caption, "sgd_sizes": sizes, "paper_sgd_sizes": paper_sizes}
