"""The data a matplotlib figure draws, read back from the figure: one home for "the CSV under a figure".

A chapter that hands :meth:`lib.book.figures.Figures.show` its result table (``data=``) gets that table
as the figure's CSV. Any other figure gets :func:`drawn_data`: every line, marker set, error bar, band and bar
as drawn, one row per point, with the panel, the axis labels and the legend name it carries. So every
figure of the book has its numbers beside it, and they are the numbers the reader sees, not a second
computation.

A series is named as the reader names it: by its own legend label; else by the legend entries that share its
colour and its line style (a line of one data set's colour drawn dashed, under a legend that gives the colours
the data sets' names and a black dashed line the name "linear": ``"digits, linear"``); else by how it is drawn
(``"black dashed line"``). Axis labels and panel titles are written in words and Unicode, not TeX
(:func:`plain_math`). Markers pinned to the top of a panel are not data at the axis top: those of
:func:`lib.book.plotting.mark_infinite` stand for an infinite value and are read as ``inf``, those marked
:data:`NOT_MEASURED_GID` (a method not run at a size) as an empty ``y`` of kind ``"not measured"``.
"""
from __future__ import annotations

import re

import matplotlib.colors as mcolors
import numpy as np
import pandas as pd
from matplotlib.patches import Patch

__all__ = ["DRAWN_COLUMNS", "INFINITE_GID", "NOT_MEASURED_GID", "plain_math", "drawn_data"]

#: The columns of :func:`drawn_data`: panel (1-based, in the order of ``fig.axes``) and its title, the axis
#: labels, the series (its legend name, or how it is drawn when no legend names it), what kind of
#: mark it is (line, markers, error bar, band, bar) and the point: ``x``, ``y`` (``y_low``/``y_high`` for an error
#: bar or a band's lower and upper edge at ``x``).
DRAWN_COLUMNS = ["panel", "panel_title", "x_label", "y_label", "series", "kind", "x", "y", "y_low", "y_high"]

#: the ``gid`` of markers that stand for an infinite value (:func:`lib.book.plotting.mark_infinite` sets it): read
#: as ``inf``
INFINITE_GID = "value-infinite"
#: the ``gid`` of markers that stand for a value not measured (a method not run at a size), pinned to the top of a
#: panel: read as an empty ``y`` of kind ``"not measured"``
NOT_MEASURED_GID = "value-not-measured"

_TEX_WORDS = {r"\top": "T", r"\|": "||", r"\,": " ", r"\;": " ", r"\cdot": "·", r"\circ": "°", r"\infty": "∞",
              r"\leq": "≤", r"\geq": "≥", r"\le": "≤", r"\ge": "≥", r"\to": "→", r"\approx": "≈", r"\times": "×",
              r"\pm": "±", r"\min": "min", r"\max": "max", r"\log": "log", r"\ell": "ℓ", r"\nabla": "∇"}
_GREEK = {"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "Delta": "Δ", "epsilon": "ε", "varepsilon": "ε",
          "eta": "η", "theta": "θ", "kappa": "κ", "lambda": "λ", "mu": "μ", "rho": "ρ", "sigma": "σ", "tau": "τ",
          "phi": "φ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω", "pi": "π", "Sigma": "Σ", "Theta": "Θ"}


def _plain_tex(tex: str) -> str:
    tex = re.sub(r"\\(?:left|right)(?![A-Za-z])", "", tex)
    tex = re.sub(r"\\sqrt\{([^{}]*)\}", r"sqrt(\1)", tex)
    tex = re.sub(r"\\(?:bar|overline)\{([^{}]*)\}", r"\1̄", tex)
    for k in sorted(_TEX_WORDS, key=len, reverse=True):
        tex = tex.replace(k, _TEX_WORDS[k])
    tex = re.sub(r"\\(" + "|".join(sorted(_GREEK, key=len, reverse=True)) + r")(?![A-Za-z])",
                 lambda m: _GREEK[m.group(1)], tex)
    tex = re.sub(r"\s*([×±·≤≥→≈])\s*", r"\1", tex)  # math mode ignores the spaces around an operator
    return re.sub(r"\\(?:mathrm|operatorname|text|mathbf)|[\\{}]", "", tex)


def plain_math(text: str) -> str:
    """``text`` with its TeX spans (``$...$``) written in plain words and Unicode: ``"$\\kappa_{\\min}$ (deg)"`` ->
    ``"κ_min (deg)"``, ``"$A^\\top A/m$"`` -> ``"A^T A/m"``, ``"$\\sqrt{L+1}$"`` -> ``"sqrt(L+1)"``: a figure's
    axis labels in its data table, and its alt text."""
    return re.sub(r"\$([^$]*)\$", lambda m: _plain_tex(m.group(1)), text)


def _rgb(artist):
    """The colour an artist is drawn in (its face colour for markers and bands, unless unfilled), or None."""
    for name in ("get_color", "get_facecolor", "get_edgecolor"):
        if hasattr(artist, name):
            c = np.asarray(mcolors.to_rgba_array(getattr(artist, name)()))
            if len(c) and c[0][3] > 0:
                return tuple(np.round(c[0][:3], 3))
    return None


def _linestyle(artist) -> str:
    ls = artist.get_linestyle() if hasattr(artist, "get_linestyle") else "-"
    if isinstance(ls, list):  # a collection's
        ls = "-" if not ls or ls[0][1] is None else "--"
    return {"solid": "-", "dashed": "--", "dotted": ":", "dashdot": "-."}.get(ls, ls)


def _legend_entries(fig) -> list[tuple[str, tuple | None, str]]:
    """``(label, colour, line style)`` of every entry of every legend of ``fig``."""
    legs = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None] + list(fig.legends)
    out = []
    for leg in legs:
        for text, handle in zip(leg.get_texts(), leg.legend_handles):
            if handle is not None and text.get_text().strip():
                # a patch (a colour swatch) keys a colour only, whatever its edge's style
                ls = None if isinstance(handle, Patch) else _linestyle(handle)
                out.append((text.get_text(), _rgb(handle), ls))
    return out


def _achromatic(c) -> bool:
    return c is not None and max(c) - min(c) < 0.02


_COLOUR_NAMES = {"blue": "#0173b2", "orange": "#de8f05", "green": "#029e73", "vermilion": "#d55e00",
                 "pink": "#cc78bc", "black": "#000000", "sky blue": "#56b4e9", "brown": "#8c564b", "grey": "#808080",
                 "red": "#d62728", "yellow": "#ece133", "purple": "#6a3d9a", "tan": "#ca9161"}
_STYLE_NAMES = {"-": "", "--": "dashed ", ":": "dotted ", "-.": "dash-dot "}


def _describe(c, ls: str, kind: str) -> str:
    if c is None:
        return kind
    name = min(_COLOUR_NAMES, key=lambda k: sum((a - b) ** 2 for a, b in zip(mcolors.to_rgb(_COLOUR_NAMES[k]), c)))
    return f"{name} {_STYLE_NAMES.get(ls, '') if kind == 'line' else ''}{kind}"


def _series_name(artist, kind: str, entries) -> str:
    """The artist's legend label; else the legend entries of its colour and of its line style; else how it is
    drawn."""
    label = artist.get_label() or ""
    if label and not label.startswith("_"):
        return label
    c, ls = _rgb(artist), _linestyle(artist)
    same = lambda a, b: a is not None and b is not None and max(abs(x - y) for x, y in zip(a, b)) < 0.02  # noqa: E731
    exact = {lab for lab, hc, hls in entries if same(hc, c) and hls == ls}
    if len(exact) == 1 and kind != "band":
        return exact.pop()
    by_colour = list(dict.fromkeys(lab for lab, hc, _ in entries if same(hc, c)))
    by_style = list(dict.fromkeys(lab for lab, hc, hls in entries
                                  if _achromatic(hc) and not same(hc, c) and hls == ls and kind == "line"))
    if len(by_colour) == 1:
        return by_colour[0] + (f", {by_style[0]}" if len(by_style) == 1 else "")
    return _describe(c, ls, kind)


def _band_edges(collection) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(x, low, high)`` of a ``fill_between`` band (each of its polygons: the upper edge forward, the lower back;
    a band broken at a gap has one polygon per piece)."""
    xs, lows, highs = [], [], []
    for path in collection.get_paths():
        v = np.asarray(path.vertices, dtype=float)
        v = v[np.isfinite(v).all(axis=1)]
        if len(v) < 4:
            continue
        x = np.unique(v[:, 0])
        xs.append(x)
        lows.append(np.array([v[v[:, 0] == xi, 1].min() for xi in x]))
        highs.append(np.array([v[v[:, 0] == xi, 1].max() for xi in x]))
    if not xs:
        return None
    return np.concatenate(xs), np.concatenate(lows), np.concatenate(highs)


def drawn_data(fig) -> pd.DataFrame:
    """Every point a figure draws, as a table with :data:`DRAWN_COLUMNS` (empty, with those columns, if none).

    Reads the lines (``plot``), marker sets (``scatter``), error bars (``errorbar``: their vertical segments),
    bands (``fill_between``) and bars (``bar``: one row per bar, at its centre) of each panel. Text and images are
    not read, nor lines drawn across the whole panel in its own coordinates (``axhline``, ``axvline``: references,
    not data).

    Args:
        fig: a matplotlib figure.
    """
    from matplotlib.collections import LineCollection, PathCollection, PolyCollection
    rows: list[dict] = []
    entries = _legend_entries(fig)
    for p, ax in enumerate(fig.axes, start=1):
        base = dict(panel=p, panel_title=plain_math(ax.get_title()), x_label=plain_math(ax.get_xlabel()),
                    y_label=plain_math(ax.get_ylabel()))
        bars = [c for c in ax.containers if type(c).__name__ == "ErrorbarContainer"]
        bar_owner = {id(a): c.get_label() for c in bars for a in (c.lines[0], *c.lines[2]) if a is not None}
        for line in ax.get_lines():
            if line.get_transform() != ax.transData:  # axhline/axvline: a reference drawn across the panel
                continue
            x, y = (np.asarray(a, dtype=float) for a in line.get_data())
            drawn = ~(np.isnan(x) & np.isnan(y))  # a NaN pair breaks a line at a gap: not a point
            x, y = x[drawn], y[drawn]
            if x.size == 0:
                continue
            kind = "line" if line.get_linestyle() not in ("None", "", " ") else "markers"
            owner = bar_owner.get(id(line), "")
            series = owner if owner and not owner.startswith("_") else _series_name(line, kind, entries)
            rows += [dict(base, series=series, kind=kind, x=xi, y=yi) for xi, yi in zip(x, y)]
        for coll in ax.collections:
            if isinstance(coll, PathCollection):
                pts = np.asarray(coll.get_offsets(), dtype=float).reshape(-1, 2)
                series = _series_name(coll, "markers", entries)
                gid = coll.get_gid()
                kind = "not measured" if gid == NOT_MEASURED_GID else "markers"
                pinned = {INFINITE_GID: np.inf, NOT_MEASURED_GID: np.nan}
                rows += [dict(base, series=series, kind=kind, x=xi, y=pinned.get(gid, yi)) for xi, yi in pts]
            elif isinstance(coll, LineCollection):
                owner = bar_owner.get(id(coll), "")
                series = owner if owner and not owner.startswith("_") else _series_name(coll, "error bar", entries)
                for seg in coll.get_segments():
                    seg = np.asarray(seg, dtype=float)
                    if len(seg) == 2 and seg[0, 0] == seg[1, 0]:  # a vertical error bar
                        rows.append(dict(base, series=series, kind="error bar", x=seg[0, 0],
                                         y_low=seg[:, 1].min(), y_high=seg[:, 1].max()))
            elif isinstance(coll, PolyCollection):
                edges = _band_edges(coll)
                if edges is not None:
                    series = _series_name(coll, "band", entries)
                    rows += [dict(base, series=series, kind="band", x=xi, y_low=lo, y_high=hi)
                             for xi, lo, hi in zip(*edges)]
        for cont in ax.containers:
            if type(cont).__name__ == "BarContainer":
                label = cont.get_label() or ""
                for patch in cont.patches:
                    name = label if label and not label.startswith("_") else _series_name(patch, "bar", entries)
                    rows.append(dict(base, series=name, kind="bar", x=_category(ax, patch.get_x() + patch.get_width() / 2),
                                     y=patch.get_y() + patch.get_height()))
    out = pd.DataFrame(rows, columns=DRAWN_COLUMNS)
    out["series"] = out.series.map(plain_math)
    return out


def _category(ax, x: float):
    """A bar's position as the reader reads it: the label of the nearest x tick when the ticks name categories
    (``"n=64, L=2"``), else the number."""
    ticks = np.asarray(ax.get_xticks(), dtype=float)
    names = [t.get_text().replace("\n", ", ") for t in ax.get_xticklabels()]
    if len(ticks) == len(names) and names and not all(re.fullmatch(r"[-+−\d.,e$^{}\\a-z ]*", n) for n in names):
        return names[int(np.argmin(np.abs(ticks - x)))]
    return x
