"""Chapter 07 (Performance): the benchmark of the exact NTK against the ``torch.func`` methods.

The measurements come from :func:`lib.finite.benchmark.run_benchmark` (one fresh process per
method and size); this module runs it and turns its rows into the chapter's tables and its two
figures (time and memory against n, throughput against a plain matmul). The three target checks
read the same rows (:mod:`lib.chapters.performance.targets`).
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.legend_handler import HandlerTuple
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from lib.book.figure_data import NOT_MEASURED_GID
from lib.book.plotting import figure, palette
from lib.book.profile_files import profile_values
from lib.book.wording import ints
from lib.finite.benchmark import run_benchmark
from lib.finite.benchmark_tables import format_table, summary_table, table_with_notes, target_row
from lib.chapters.performance.spec import SPEC
from lib.finite.cost_model import METHODS

__all__ = ["LABELS", "PAPER_SIZE", "PAPER_SETTING", "BenchmarkRun", "measure_benchmark", "describe_run", "format_cell",
           "table_time", "table_memory", "notes_markdown", "table_benchmark", "plot_time_memory",
           "figure_time_memory", "plot_throughput", "figure_throughput", "paper_profile", "describe_device",
           "describe_threads", "describe_methods", "glue_benchmark", "summary_table", "table_with_notes",
           "format_table", "target_row"]

#: the NTK methods (:data:`lib.finite.cost_model.METHODS`) by the names the figures and the prose give them
LABELS = {"ours": "ours (Hadamard of Grams)", "jacobian": "Jacobian contraction", "ntk_vp": "NTK-vector products"}
SHORT = {"jacobian": "Jacobian", "ntk_vp": "NTK-vp"}
MARKS = {"ours": "o", "jacobian": "s", "ntk_vp": "^"}
#: (n, width, depth) of [LH] Sec. 4's NTKs: batches of 512 inputs, width 512, depth up to 10
PAPER_SIZE = (512, 512, 10)
#: what [LH] Sec. 4 says about how its NTKs were computed (the setting every caption compares with)
PAPER_SETTING = ("the paper computed its NTKs by Jacobian contraction on an A100 GPU in batches of 512 inputs "
                 "(width 512, depth up to 10) and reports no timing beyond 'hours'")


@dataclass(frozen=True, eq=False)
class BenchmarkRun:
    """The benchmark rows of one run and the settings they were measured with.

    Attributes:
        frame: one row per (size, method) as returned by :func:`lib.finite.benchmark.run_benchmark`.
        ns: numbers of inputs n.
        width: hidden width m of the ReLU MLP of [LH] Eq. (1).
        depths: depths L.
        methods: the methods timed (:data:`lib.finite.cost_model.METHODS`, with ``"ours"``).
        in_dim: input dimension d.
        target_n: n at which the targets are evaluated.
        target_depth: depth at which the targets are evaluated.
        repeats: timed repeats per method and size.
        threads: torch threads per worker (0: torch's default).
        time_budget: seconds allowed per method and size.
        memory_budget_mb: peak MB allowed per method and size.
        device: ``"cpu"`` or ``"cuda"``.
        peers_everywhere: whether the torch.func methods were timed at every size (else only at the targets').
        profile: the parameter profile of the run ("" when unknown).
    """

    frame: pd.DataFrame
    ns: tuple
    width: int
    depths: tuple
    methods: tuple
    in_dim: int
    target_n: int
    target_depth: int
    repeats: int = 5
    threads: int = 1
    time_budget: float = 180.0
    memory_budget_mb: float = 4096.0
    device: str = "cpu"
    peers_everywhere: bool = False
    profile: str = ""


def measure_benchmark(cfg) -> BenchmarkRun:
    """Our method at every size, the others at every size or only at the targets' size
    (:func:`lib.finite.benchmark.run_benchmark`, one fresh process per method and size; timings are never cached).

    Args:
        cfg: the chapter's validated parameters (:data:`lib.chapters.performance.spec.SPEC`): ``ns``, ``width``,
            ``depths``, ``methods``, ``in_dim``, ``repeats``, ``time_budget``, ``memory_budget_mb``, ``device``,
            ``threads``, ``target_n``, ``target_depth``, ``peers_everywhere`` (False: the slower torch.func
            methods are timed at ``(target_n, target_depth)`` only, where the verdicts are read), ``profile``.

    Returns:
        :class:`BenchmarkRun`.
    """
    frame = run_benchmark(cfg.ns, cfg.width, cfg.depths, cfg.methods, in_dim=cfg.in_dim, repeats=cfg.repeats,
                          time_budget=cfg.time_budget, memory_budget_mb=cfg.memory_budget_mb, device=cfg.device,
                          threads=cfg.threads,
                          peer_sizes=None if cfg.peers_everywhere else [(cfg.target_n, cfg.target_depth)])
    return BenchmarkRun(frame, tuple(cfg.ns), int(cfg.width), tuple(cfg.depths), tuple(cfg.methods), int(cfg.in_dim),
                        int(cfg.target_n), int(cfg.target_depth), repeats=int(cfg.repeats), threads=int(cfg.threads),
                        time_budget=float(cfg.time_budget), memory_budget_mb=float(cfg.memory_budget_mb),
                        device=cfg.device, peers_everywhere=bool(cfg.peers_everywhere), profile=cfg.profile)


def describe_run(bench: BenchmarkRun) -> str:
    """One sentence on the run: number of measurements, threads, load averages and cores.

    Args:
        bench: :func:`measure_benchmark` output.

    Returns:
        The sentence printed under the benchmark cell.
    """
    df = bench.frame
    return (f"{len(df)} measurements with {bench.threads or 'the default number of'} torch thread(s) per worker; "
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


def table_time(bench: BenchmarkRun) -> pd.DataFrame:
    """Seconds per NTK, speed-ups of ours over each peer and the throughputs, one row per size (as text).

    Args:
        bench: :func:`measure_benchmark` output.

    Returns:
        The "Time and throughput" table, cells formatted by :func:`lib.chapters.performance.benchmark.format_cell`.
    """
    return _select(bench.frame, lambda peers: {
        "n": "n", "width": "width", "depth": "depth", "ours_s": "ours (s)",
        **{f"{m}_s": f"{SHORT[m]} (s)" for m in peers},
        **{f"speedup_{m}": f"speed-up vs {SHORT[m]}" for m in peers},
        "ours_gflops": "ours GFLOP/s", "matmul_gflops": "matmul GFLOP/s", "ours_frac_matmul": "ours / matmul"})


def table_memory(bench: BenchmarkRun) -> pd.DataFrame:
    """Peak extra memory, the ratio peer / ours and the agreement of each peer with our kernel (as text).

    Args:
        bench: :func:`measure_benchmark` output.

    Returns:
        The "Peak extra memory and agreement with ours" table, cells formatted by :func:`lib.chapters.performance.benchmark.format_cell`.
    """
    return _select(bench.frame, lambda peers: {
        "n": "n", "depth": "depth", "ours_MB": "ours (MB)", **{f"{m}_MB": f"{SHORT[m]} (MB)" for m in peers},
        **{f"mem_ratio_{m}": f"{SHORT[m]} / ours" for m in peers},
        **{f"maxreldiff_{m}": f"max rel. diff. {SHORT[m]}" for m in peers}})


def notes_markdown(bench: BenchmarkRun) -> str:
    """The numbered reasons of peers that did not run, as a Markdown list (or a sentence if all ran).

    Args:
        bench: :func:`measure_benchmark` output.

    Returns:
        Markdown text.
    """
    _, notes = table_with_notes(bench.frame)
    return "\n".join(f"- {s}" for s in notes) if notes else "Every method ran at every size."


def table_benchmark(bench: BenchmarkRun) -> tuple:
    """The results tables of the benchmark as the notebook shows them: "Time and throughput"
    (:func:`table_time`), "Peak extra memory and agreement with ours" (:func:`table_memory`), each under its
    bold title and without index, then the notes on peers that did not run (:func:`notes_markdown`).

    Args:
        bench: :func:`measure_benchmark` output.

    Returns:
        The objects to display, in order (IPython Markdown and pandas Stylers).
    """
    from IPython.display import Markdown
    return (Markdown("**Time and throughput**"), table_time(bench).style.hide(axis="index"),
            Markdown("**Peak extra memory and agreement with ours**"), table_memory(bench).style.hide(axis="index"),
            Markdown(notes_markdown(bench)))


def _log_y_ticks(ax) -> None:
    """At least two labelled ticks on a log y axis: 1-2-5 ticks labelled in plain numbers when the
    limits span less than two decades (a decade-only axis would then show one label or none)."""
    lo, hi = ax.get_ylim()
    if lo > 0 and np.floor(np.log10(hi)) - np.ceil(np.log10(lo)) < 1:
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_formatter(NullFormatter())


def plot_time_memory(bench: BenchmarkRun) -> Figure:
    """Figure 7.1: seconds (top row) and peak extra memory (bottom row) of each method.

    With several n: against n (log axis), one column per depth. With a single n (the paper
    profile's batch of 512): against depth, in one column. Rows share their y axis, so the panels
    compare directly. Methods that did not run at a size are marked by an open symbol on the top
    edge, side by side when several did not run there.

    Args:
        bench: :func:`measure_benchmark` output (its methods, depths, numbers of inputs and width).

    Returns:
        The figure (2 x len(depths) axes with several n, 2 x 1 with one).
    """
    df, methods, width = bench.frame, bench.methods, bench.width
    cols = dict(zip(METHODS, palette(len(METHODS))))
    ns, depths = sorted(set(int(n) for n in bench.ns)), [int(L) for L in bench.depths]
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
                           s=70, clip_on=False, zorder=5, gid=NOT_MEASURED_GID, label=f"{LABELS[m]}: not run")
    handles, labels = axs[0, 0].get_legend_handles_labels()
    handles, labels = zip(*[(h, lab) for h, lab in zip(handles, labels) if not lab.endswith(": not run")]) \
        if handles else ((), ())
    handles, labels = list(handles), list(labels)
    not_run = [m for m in methods if (missing.method == m).any()]
    if not_run:  # the open markers as they are drawn: each method's own, open
        handles.append(tuple(Line2D([], [], marker=MARKS[m], mfc="none", mec=cols[m], ms=8, ls="") for m in not_run))
        labels.append("not run at that size (open, top edge)")
    fig.legend(handles, labels, loc="lower center", ncol=min(len(handles), 4 if by_n and len(depths) >= 3 else 3),
               bbox_to_anchor=(0.5, 1.0), handler_map={tuple: HandlerTuple(ndivide=None)})
    return fig


def plot_throughput(bench: BenchmarkRun) -> Figure:
    """Figure 7.2: our GFLOP/s beside the plain float64 matmul GFLOP/s, one pair of bars per size.

    Args:
        bench: :func:`measure_benchmark` output.

    Returns:
        The figure (one axes).
    """
    tab, width = summary_table(bench.frame), bench.width
    fig, axs = figure(width=9.0, height=3.6)
    ax = axs[0, 0]
    lab = [f"n={r.n}\nL={r.depth}" for r in tab.itertuples()]
    x = np.arange(len(tab))
    ax.bar(x - 0.2, tab.ours_gflops, 0.4, color=palette(len(METHODS))[0], label="ours (counted flops / time)")
    ax.bar(x + 0.2, tab.matmul_gflops, 0.4, color="0.6", label=r"plain float64 matmul $n\times m\times n$")
    ax.set_xticks(x, lab, fontsize=9)
    ax.set(ylabel="GFLOP/s", title=f"Throughput, width {width}")
    top = np.nanmax(np.r_[tab.ours_gflops.to_numpy(float), tab.matmul_gflops.to_numpy(float), 1e-9])
    ax.set_ylim(0, 1.35 * top)  # headroom: the legend sits above the bars
    ax.legend(loc="upper left", ncol=2)
    return fig


def paper_profile() -> dict:
    """The ``paper`` profile of notebook 07 (``notebooks/profiles/07_performance.yaml``): the prose says what that
    profile runs.

    Raises:
        lib.book.profile_files.ProfileError: the profile file cannot be used (one line naming it).
    """
    return profile_values(SPEC.chapter, "paper")


def describe_device(device: str) -> str:
    """The machine the timings ran on, in words (a CUDA GPU, or the CPU with its core count)."""
    return "a CUDA GPU" if device == "cuda" else f"CPU ({os.cpu_count()} shared cores)"


def describe_threads(threads: int) -> str:
    """A torch thread count in words (0: torch's default)."""
    if threads == 0:
        return "torch's default number of threads"
    return f"{threads} torch thread{'s' if threads != 1 else ''}"


def describe_methods(methods) -> str:
    """NTK methods by their labels (:data:`~lib.chapters.performance.benchmark.LABELS`), as a list in prose."""
    names = [LABELS[m] for m in methods]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _peer_sizes(bench: BenchmarkRun) -> str:
    return ("at every size" if bench.peers_everywhere else
            f"only at the targets' size, n = {bench.target_n}, depth {bench.target_depth}")


def _deviation(bench: BenchmarkRun) -> str:
    """How the run departs from [LH] Sec. 4's setting (the sentence ending every benchmark caption)."""
    batch = ("n = 512, the paper's batch, is among the sizes" if 512 in bench.ns else
             "no size here is the paper's batch of 512 inputs")
    width_dev = "" if bench.width == PAPER_SIZE[1] else f", width {bench.width} instead of {PAPER_SIZE[1]}"
    return (f"{PAPER_SETTING}; here {describe_device(bench.device)}, {describe_threads(bench.threads)} per worker, "
            f"synthetic inputs; {batch}{width_dev}.")


def _axes(bench: BenchmarkRun) -> str:
    """What Figure 7.1 plots against (:func:`plot_time_memory`)."""
    return ("against the number of inputs (log axis), one column per depth" if len(set(bench.ns)) > 1 else
            f"against depth at n = {bench.ns[0]}")


def figure_time_memory(bench: BenchmarkRun) -> dict:
    """Figure 7.1 (:func:`plot_time_memory` of ``bench``) with its caption and setting: the arguments of
    :meth:`lib.book.results.Recorder.figure`."""
    peers = [LABELS[m] for m in bench.methods if m != "ours"]
    methods = f"{LABELS['ours']} at every size" + (f"; {' and '.join(peers)} {_peer_sizes(bench)}" if peers else
                                                    "; no torch.func method")
    inputs = (f"n = {ints(bench.ns, ranges=False)} unit-norm Gaussian inputs in d = {bench.in_dim} (seed 0 for data "
              "and weights)")
    net = f"ReLU MLP of width m = {bench.width}, depths L = {ints(bench.depths, ranges=False)}, float64"
    return dict(
        fig=plot_time_memory(bench), label="fig-perf-time-memory", drawn_by=plot_time_memory,
        data_from=(measure_benchmark, run_benchmark),
        caption=f"Wall-clock time (top) and peak extra memory (bottom) of the methods timed, {_axes(bench)}; open "
                "symbols on the top edge mark methods not run at that size.",
        setting=f"Setting: {inputs}; {net}; methods timed: {methods}; minimum over up to {bench.repeats} repeats, "
                f"budgets {bench.time_budget:g} s and {bench.memory_budget_mb:g} MB per method and size; "
                f"{{profile}}. Deviation: {_deviation(bench)}")


def figure_throughput(bench: BenchmarkRun) -> dict:
    """Figure 7.2 (:func:`plot_throughput` of ``bench``) with its caption and setting: the arguments of
    :meth:`lib.book.results.Recorder.figure`."""
    return dict(
        fig=plot_throughput(bench), label="fig-perf-throughput", drawn_by=plot_throughput,
        data_from=(measure_benchmark, run_benchmark),
        caption="Floating-point throughput of our NTK (counted matrix-product flops over measured time) beside a "
                "plain float64 matrix product of the same shape, measured in the same run.",
        setting=f"Setting: the runs of the time and memory figure above: n = {ints(bench.ns, ranges=False)}, "
                f"d = {bench.in_dim}, width m = {bench.width}, depths L = {ints(bench.depths, ranges=False)}, float64, "
                f"{describe_threads(bench.threads)} per worker on {describe_device(bench.device)}; ours is our counted "
                "matrix-product flops over our measured time, the reference the best rate of a plain float64 product "
                f"of the same n and m timed in the same worker; {{profile}}. Deviation: the paper "
                f"reports no throughput; {_deviation(bench)}")


def glue_benchmark(bench: BenchmarkRun) -> dict[str, str]:
    """The values the prose of "How we measure" and "Time and memory" shows, from the measured run.

    Args:
        bench: :func:`measure_benchmark` output.

    Returns:
        ``{name: text}``: ``threads``, ``in_dim``, ``time_budget``, ``memory_budget``, ``peer_sizes``,
        ``peers_everywhere``, ``paper_peers_everywhere``, ``methods_timed``, ``paper_methods``,
        ``fig7_1_axes`` (what Figure 7.1 plots against).
    """
    paper = paper_profile()
    return {"threads": describe_threads(bench.threads), "in_dim": str(bench.in_dim),
            "time_budget": f"{bench.time_budget:g} s", "memory_budget": f"{bench.memory_budget_mb:g} MB",
            "peer_sizes": _peer_sizes(bench), "peers_everywhere": "on" if bench.peers_everywhere else "off",
            "paper_peers_everywhere": "on" if paper.get("peers_everywhere") else "off",
            "methods_timed": describe_methods(bench.methods),
            "paper_methods": describe_methods(paper.get("methods", bench.methods)), "fig7_1_axes": _axes(bench)}
