"""Tables of the benchmark's results: speed-ups, memory ratios and agreement per size, with notes on skipped peers.

The rows come from :func:`lib.finite.benchmark.run_benchmark`; the Performance chapter shows these tables.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from lib.finite.cost_model import METHODS
from lib.validation import check_int, positive_int

__all__ = ["summary_table", "table_with_notes", "format_table", "target_row"]

def _ratio(a: float, b: float) -> float:
    """a / b, NaN when either is missing or b is not positive (e.g. a peak below the measurement's resolution)."""
    return float(a) / float(b) if np.isfinite(a) and np.isfinite(b) and b > 0 else np.nan


def summary_table(df: pd.DataFrame) -> pd.DataFrame:
    """One row per size: seconds, speed-ups, peak MB, memory ratios and max relative differences per peer.

    Args:
        df: rows of :func:`lib.finite.benchmark.run_benchmark`.

    Returns:
        One row per (n, width, depth): ``ours_s``, ``ours_MB``, per peer ``<m>_s``, ``speedup_<m>``,
        ``<m>_MB``, ``mem_ratio_<m>``, ``maxreldiff_<m>``, then ``ours_gflops``, ``matmul_gflops`` and
        ``ours_frac_matmul`` (NaN where a peer did not run; see ``df.reason``).
    """
    out = []
    for (n, width, depth), g in df.groupby(["n", "width", "depth"], sort=True):
        by = {r.method: r for r in g.itertuples()}
        ours = by["ours"]
        row = {"n": n, "width": width, "depth": depth, "ours_s": ours.seconds, "ours_MB": ours.peak_mb}
        for m in [m for m in METHODS if m != "ours" and m in by]:
            r = by[m]
            row.update({f"{m}_s": r.seconds, f"speedup_{m}": _ratio(r.seconds, ours.seconds),
                        f"{m}_MB": r.peak_mb, f"mem_ratio_{m}": _ratio(r.peak_mb, ours.peak_mb),
                        f"maxreldiff_{m}": r.max_rel_diff})
        row.update(ours_gflops=ours.gflops if ours.status == "ok" else np.nan, matmul_gflops=ours.matmul_gflops)
        row["ours_frac_matmul"] = _ratio(row["ours_gflops"], row["matmul_gflops"])
        out.append(row)
    return pd.DataFrame(out)


def table_with_notes(df: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """:func:`summary_table` with a peer that did not run shown as ``<status>[k]``; note k gives the reason.

    Args:
        df: rows of :func:`lib.finite.benchmark.run_benchmark`.

    Returns:
        (cells, notes): the table as objects, and the numbered notes ``"[k] <method> at n=.., depth=..: ..."``.
    """
    tab = summary_table(df)
    notes = []
    cells = tab.astype(object)
    for i, r in tab.iterrows():
        for m in METHODS[1:]:
            if f"{m}_s" not in tab:
                continue
            src = df[(df.method == m) & (df.n == r.n) & (df.depth == r.depth)].iloc[0]
            if src.status != "ok":
                where = f"n={int(r.n)}, depth={int(r.depth)}"
                notes.append(f"[{len(notes) + 1}] {m} at {where}: {src.status}, {src.reason}")
                cells.loc[i, f"{m}_s"] = f"{src.status}[{len(notes)}]"
                for c in (f"speedup_{m}", f"{m}_MB", f"mem_ratio_{m}", f"maxreldiff_{m}"):
                    cells.loc[i, c] = "-"
    return cells, notes


def format_table(df: pd.DataFrame) -> str:
    """The summary table as text, with the reasons of skipped peers as numbered notes.

    Args:
        df: rows of :func:`lib.finite.benchmark.run_benchmark`.

    Returns:
        The text printed by ``python -m lib.finite.benchmark``.
    """
    cells, notes = table_with_notes(df)
    fmt = cells.map(lambda v: f"{v:.3g}" if isinstance(v, float) else str(v))
    return "\n".join([fmt.to_string(index=False), *notes])


def target_row(df: pd.DataFrame, n: int, depth: int) -> pd.Series | None:
    """The :func:`summary_table` row at size (n, depth).

    Args:
        df: rows of :func:`lib.finite.benchmark.run_benchmark`.
        n: number of inputs.
        depth: number of hidden layers.

    Returns:
        That row, or None if that size was not benchmarked.
    """
    n, depth = positive_int(n, "n"), check_int(depth, "depth", 0, meaning="number of hidden layers")
    tab = summary_table(df)
    sel = tab[(tab.n == n) & (tab.depth == depth)]
    return sel.iloc[0] if len(sel) else None
