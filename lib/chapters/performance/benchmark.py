"""Chapter 07 (Performance): the benchmark of the exact NTK against the ``torch.func`` methods.

The measurements come from :func:`lib.finite.benchmark.run_benchmark` (one fresh process per
method and size); this module runs it and turns its rows into the chapter's tables and its two
figures (time and memory against n, throughput against a plain matmul). The three target checks
read the same rows (:mod:`lib.chapters.performance.targets`).
"""
from __future__ import annotations

import os

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from lib.book.plotting import figure, palette
from lib.finite.benchmark import run_benchmark
from lib.finite.benchmark_tables import format_table, summary_table, table_with_notes, target_row
from lib.finite.cost_model import METHODS

__all__ = ["LABELS", "compute_benchmark", "describe_run", "format_cell", "table_time",
           "table_memory", "notes_markdown", "plot_time_memory", "plot_throughput", "summary_table",
           "table_with_notes", "format_table", "target_row"]

LABELS = {"ours": "ours (Hadamard of Grams)", "jacobian": "Jacobian contraction", "ntk_vp": "NTK-vector products"}
SHORT = {"jacobian": "Jacobian", "ntk_vp": "NTK-vp"}
MARKS = {"ours": "o", "jacobian": "s", "ntk_vp": "^"}


def compute_benchmark(ns, width: int, depths, methods, *, in_dim: int, repeats: int, time_budget: float,
                      memory_budget_mb: float, device: str, threads: int,
                      peers_at: tuple[int, int] | None = None) -> pd.DataFrame:
    """Our method at every size, the others at every size or only at ``peers_at``
    (:func:`lib.finite.benchmark.run_benchmark`; timings are never cached).

    Args:
        ns: numbers of inputs n.
        width: hidden width m of the ReLU MLP of [LH] Eq. (1).
        depths: depths L.
        methods: subset of :data:`lib.finite.cost_model.METHODS` including ``"ours"``.
        in_dim, repeats, time_budget, memory_budget_mb, device, threads: as in ``run_benchmark``.
        peers_at: ``(n, depth)`` where the slower torch.func methods are timed (None: everywhere).
            The book's default times them at the targets' size only, where the verdicts are read.

    Returns:
        One row per (size, method) as returned by ``run_benchmark``.
    """
    return run_benchmark(ns, width, depths, methods, in_dim=in_dim, repeats=repeats, time_budget=time_budget,
                         memory_budget_mb=memory_budget_mb, device=device, threads=threads,
                         peer_sizes=None if peers_at is None else [tuple(peers_at)])


def describe_run(df: pd.DataFrame, threads: int) -> str:
    """One sentence on the run: number of measurements, threads, load averages and cores.

    Args:
        df: rows of :func:`lib.chapters.performance.benchmark.compute_benchmark`.
        threads: torch threads per worker (0: torch's default).

    Returns:
        The sentence printed under the benchmark cell.
    """
    return (f"{len(df)} measurements with {threads or 'the default number of'} torch thread(s) per worker; "
            f"1-minute load average {df.load_start.iloc[0]:.2f} at the start, {df.load_end.iloc[0]:.2f} at the end "
            f"({os.cpu_count()} CPU cores).")


def format_cell(v) -> str:
    """A table cell as text: floats with 3 significant digits, anything else as ``str``.

    Args:
        v: the cell value.

    Returns:
        Its text.
    """
    return f"{v:.3g}" if isinstance(v, float) else str(v)


def _peers(cells: pd.DataFrame) -> list[str]:
    return [m for m in METHODS[1:] if f"{m}_s" in cells]


def _select(df: pd.DataFrame, columns) -> pd.DataFrame:
    cells, _ = table_with_notes(df)
    sel = columns(_peers(cells))
    return cells[list(sel)].rename(columns=sel).map(format_cell)


def table_time(df: pd.DataFrame) -> pd.DataFrame:
    """Seconds per NTK, speed-ups of ours over each peer and the throughputs, one row per size (as text).

    Args:
        df: rows of :func:`lib.chapters.performance.benchmark.compute_benchmark`.

    Returns:
        The "Time and throughput" table, cells formatted by :func:`lib.chapters.performance.benchmark.format_cell`.
    """
    return _select(df, lambda peers: {
        "n": "n", "width": "width", "depth": "depth", "ours_s": "ours (s)",
        **{f"{m}_s": f"{SHORT[m]} (s)" for m in peers},
        **{f"speedup_{m}": f"speed-up vs {SHORT[m]}" for m in peers},
        "ours_gflops": "ours GFLOP/s", "matmul_gflops": "matmul GFLOP/s", "ours_frac_matmul": "ours / matmul"})


def table_memory(df: pd.DataFrame) -> pd.DataFrame:
    """Peak extra memory, the ratio peer / ours and the agreement of each peer with our kernel (as text).

    Args:
        df: rows of :func:`lib.chapters.performance.benchmark.compute_benchmark`.

    Returns:
        The "Peak extra memory and agreement with ours" table, cells formatted by :func:`lib.chapters.performance.benchmark.format_cell`.
    """
    return _select(df, lambda peers: {
        "n": "n", "depth": "depth", "ours_MB": "ours (MB)", **{f"{m}_MB": f"{SHORT[m]} (MB)" for m in peers},
        **{f"mem_ratio_{m}": f"{SHORT[m]} / ours" for m in peers},
        **{f"maxreldiff_{m}": f"max rel. diff. {SHORT[m]}" for m in peers}})


def notes_markdown(df: pd.DataFrame) -> str:
    """The numbered reasons of peers that did not run, as a Markdown list (or a sentence if all ran).

    Args:
        df: rows of :func:`lib.chapters.performance.benchmark.compute_benchmark`.

    Returns:
        Markdown text.
    """
    _, notes = table_with_notes(df)
    return "\n".join(f"- {s}" for s in notes) if notes else "Every method ran at every size."


def _log_y_ticks(ax) -> None:
    """At least two labelled ticks on a log y axis: 1-2-5 ticks labelled in plain numbers when the
    limits span less than two decades (a decade-only axis would then show one label or none)."""
    lo, hi = ax.get_ylim()
    if lo > 0 and np.floor(np.log10(hi)) - np.ceil(np.log10(lo)) < 1:
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_formatter(NullFormatter())


def plot_time_memory(df: pd.DataFrame, methods, depths, ns, width: int) -> Figure:
    """Figure 7.1: seconds (top row) and peak extra memory (bottom row) of each method.

    With several n: against n (log axis), one column per depth. With a single n (the paper
    profile's batch of 512): against depth, in one column. Rows share their y axis, so the panels
    compare directly. Methods that did not run at a size are marked by an open symbol on the top
    edge, side by side when several did not run there.

    Args:
        df: rows of :func:`lib.chapters.performance.benchmark.compute_benchmark`.
        methods: the methods run.
        depths: the depths run.
        ns: the numbers of inputs run.
        width: hidden width (in the titles).

    Returns:
        The figure (2 x len(depths) axes with several n, 2 x 1 with one).
    """
    cols = dict(zip(METHODS, palette(len(METHODS))))
    ns, depths = sorted(set(int(n) for n in ns)), [int(L) for L in depths]
    by_n = len(ns) > 1
    panels = [(f"depth {L}, width {width}", df.depth == L, "n") for L in depths] if by_n else \
        [(f"n = {ns[0]}, width {width}", df.n == ns[0], "depth")]
    fig, axs = figure(ncols=len(panels), nrows=2, width=4.2 if by_n else 6.4, height=3.4, sharey="row")
    rows = (("seconds", "seconds per NTK"), ("peak_mb", "peak extra memory (MB)"))
    for j, (title, sel, x) in enumerate(panels):
        for i, (col, unit) in enumerate(rows):
            ax = axs[i, j]
            for m in methods:
                g = df[(df.method == m) & sel & (df.status == "ok")].sort_values(x)
                ax.plot(g[x], g[col], marker=MARKS[m], color=cols[m], label=LABELS[m])
            ax.set(yscale="log", ylabel=unit if j == 0 else None, xlabel="n (inputs)" if by_n else "depth L")
            ax.set_title(title, pad=11)  # room for the open markers on the top edge
            if by_n:
                ax.set_xscale("log")
                ax.set_xticks(ns, [str(n) for n in ns])
                ax.minorticks_off()
            else:
                ax.set_xticks(depths, [str(L) for L in depths])
    missing = df[df.method.isin(list(methods)) & (df.status != "ok")]
    for i in range(2):
        top = axs[i, 0].get_ylim()[1]
        for ax in axs[i]:
            ax.set_ylim(axs[i, 0].get_ylim())
        _log_y_ticks(axs[i, 0])
        for j, (_, sel, x) in enumerate(panels):
            ax = axs[i, j]
            miss = missing[sel.loc[missing.index]]
            for k, m in enumerate(methods):
                pts = miss[miss.method == m][x].to_numpy(dtype=float)
                shift = k - (len(methods) - 1) / 2
                pts = pts * 1.06 ** shift if by_n else pts + 0.15 * shift
                ax.scatter(pts, [top] * len(pts), marker=MARKS[m], facecolors="none", edgecolors=cols[m],
                           s=70, clip_on=False, zorder=5)
    handles, labels = axs[0, 0].get_legend_handles_labels()
    if len(missing):
        handles.append(axs[0, 0].scatter([], [], marker="o", facecolors="none", edgecolors="0.4"))
        labels.append("not run at that size (open, top edge)")
    fig.legend(handles, labels, loc="lower center", ncol=min(len(handles), 4 if by_n and len(depths) >= 3 else 3),
               bbox_to_anchor=(0.5, 1.0))
    return fig


def plot_throughput(df: pd.DataFrame, width: int) -> Figure:
    """Figure 7.2: our GFLOP/s beside the plain float64 matmul GFLOP/s, one pair of bars per size.

    Args:
        df: rows of :func:`lib.chapters.performance.benchmark.compute_benchmark`.
        width: hidden width (in the title).

    Returns:
        The figure (one axes).
    """
    tab = summary_table(df)
    fig, axs = figure(width=9.0, height=3.6)
    ax = axs[0, 0]
    lab = [f"n={r.n}\nL={r.depth}" for r in tab.itertuples()]
    x = np.arange(len(tab))
    ax.bar(x - 0.2, tab.ours_gflops, 0.4, color=palette(len(METHODS))[0], label="ours (counted flops / time)")
    ax.bar(x + 0.2, tab.matmul_gflops, 0.4, color="0.6", label=r"plain float64 matmul $n\times m\times n$")
    ax.set_xticks(x, lab, fontsize="small")
    ax.set(ylabel="GFLOP/s", title=f"Throughput, width {width}")
    top = np.nanmax(np.r_[tab.ours_gflops.to_numpy(float), tab.matmul_gflops.to_numpy(float), 1e-9])
    ax.set_ylim(0, 1.35 * top)  # headroom: the legend sits above the bars
    ax.legend(loc="upper left", ncol=2)
    return fig
