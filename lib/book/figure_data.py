"""The data a matplotlib figure draws, read back from the figure: one home for "the CSV under a figure".

A chapter that hands :meth:`lib.book.figures.Figures.show` its result table (``data=``) gets that table
as the figure's CSV. Any other figure gets :func:`drawn_data`: every line, marker set, error bar and band
as drawn, one row per point, with the panel, the axis labels and the legend label it carries. So every
figure of the book has its numbers beside it, and they are the numbers the reader sees, not a second
computation.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["DRAWN_COLUMNS", "drawn_data"]

#: The columns of :func:`drawn_data`: panel (1-based, in the order of ``fig.axes``) and its title, the axis
#: labels, the series (legend label, or ``"line 2"`` / ``"markers 1"`` / ... when it has none), what kind of
#: mark it is (line, markers, error bar, band) and the point: ``x``, ``y`` (``y_low``/``y_high`` for an error
#: bar or a band's lower and upper edge at ``x``).
DRAWN_COLUMNS = ["panel", "panel_title", "x_label", "y_label", "series", "kind", "x", "y", "y_low", "y_high"]


def _label(artist, kind: str, counts: dict) -> str:
    label = artist.get_label() or ""
    if label and not label.startswith("_"):
        return label
    counts[kind] = counts.get(kind, 0) + 1
    return f"{kind} {counts[kind]}"


def _band_edges(collection) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(x, low, high)`` of a ``fill_between`` band (its one polygon: the upper edge forward, the lower back)."""
    paths = collection.get_paths()
    if len(paths) != 1:
        return None
    v = np.asarray(paths[0].vertices, dtype=float)
    v = v[np.isfinite(v).all(axis=1)]
    if len(v) < 4:
        return None
    x = np.unique(v[:, 0])
    low = np.array([v[v[:, 0] == xi, 1].min() for xi in x])
    high = np.array([v[v[:, 0] == xi, 1].max() for xi in x])
    return x, low, high


def drawn_data(fig) -> pd.DataFrame:
    """Every point a figure draws, as a table with :data:`DRAWN_COLUMNS` (empty, with those columns, if none).

    Reads the lines (``plot``), marker sets (``scatter``), error bars (``errorbar``: their vertical segments)
    and bands (``fill_between``) of each panel. Text, images and patches such as bars are not read.

    Args:
        fig: a matplotlib figure.
    """
    from matplotlib.collections import LineCollection, PathCollection, PolyCollection
    rows: list[dict] = []
    for p, ax in enumerate(fig.axes, start=1):
        base = dict(panel=p, panel_title=ax.get_title(), x_label=ax.get_xlabel(), y_label=ax.get_ylabel())
        counts: dict = {}
        bars = [c for c in ax.containers if type(c).__name__ == "ErrorbarContainer"]
        bar_owner = {id(a): c.get_label() for c in bars for a in (c.lines[0], *c.lines[2]) if a is not None}
        for line in ax.get_lines():
            x, y = (np.asarray(a, dtype=float) for a in line.get_data())
            if x.size == 0:
                continue
            kind = "line" if line.get_linestyle() not in ("None", "", " ") else "markers"
            owner = bar_owner.get(id(line), "")
            series = owner if owner and not owner.startswith("_") else _label(line, kind, counts)
            rows += [dict(base, series=series, kind=kind, x=xi, y=yi) for xi, yi in zip(x, y)]
        for coll in ax.collections:
            if isinstance(coll, PathCollection):
                pts = np.asarray(coll.get_offsets(), dtype=float).reshape(-1, 2)
                series = _label(coll, "markers", counts)
                rows += [dict(base, series=series, kind="markers", x=xi, y=yi) for xi, yi in pts]
            elif isinstance(coll, LineCollection):
                owner = bar_owner.get(id(coll), "")
                series = owner if owner and not owner.startswith("_") else _label(coll, "error bar", counts)
                for seg in coll.get_segments():
                    seg = np.asarray(seg, dtype=float)
                    if len(seg) == 2 and seg[0, 0] == seg[1, 0]:  # a vertical error bar
                        rows.append(dict(base, series=series, kind="error bar", x=seg[0, 0],
                                         y_low=seg[:, 1].min(), y_high=seg[:, 1].max()))
            elif isinstance(coll, PolyCollection):
                edges = _band_edges(coll)
                if edges is not None:
                    series = _label(coll, "band", counts)
                    rows += [dict(base, series=series, kind="band", x=xi, y_low=lo, y_high=hi)
                             for xi, lo, hi in zip(*edges)]
    return pd.DataFrame(rows, columns=DRAWN_COLUMNS)
