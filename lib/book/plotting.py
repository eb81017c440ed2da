"""One shared figure style for the whole book (matplotlib + seaborn) and small plot helpers."""
from __future__ import annotations

import re

import matplotlib

if matplotlib.get_backend().lower() not in ("module://matplotlib_inline.backend_inline",):
    matplotlib.use("Agg", force=False)

import matplotlib.pyplot as plt
import matplotlib.ticker
import numpy as np
import seaborn as sns
from cycler import cycler
from matplotlib.layout_engine import ConstrainedLayoutEngine

from lib.book.figure_data import INFINITE_GID
from lib.book.figures_audit import legends_of, marks_under

__all__ = ["COLUMN_INCHES", "MIN_PANEL_INCHES", "QUALITATIVE", "INFINITE_GID", "use_style", "fit_to_column",
           "palette", "ordered_palette", "slope_guide", "mark_infinite", "figure", "show", "value_ticks", "band_lines",
           "break_at_gaps", "frame_legend", "place_legends"]

_STYLE_SET = False


#: width of the book's text column in inches at ``figure.dpi`` 100 (about 720 px in the HTML theme):
#: a figure no wider than this is shown at its natural size, so its text keeps its point size
COLUMN_INCHES = 7.2
#: narrowest panel; below this, tick labels collide, so a figure of many panels may exceed the column
MIN_PANEL_INCHES = 2.6

#: the book's colours for series of no order: the colour-blind palette's first five, then black, sky blue, brown,
#: dark purple and olive, no two closer than :data:`lib.book.figures_audit.MIN_COLOUR_DISTANCE` (17.0 at the
#: closest, orange and vermilion; the purple and olive 28.2 and 24.9 from all others); the colour-blind palette's
#: tan, second pink, grey and pale yellow are left out. Ten: Figure 2.7 draws nine activations.
QUALITATIVE = ["#0173b2", "#de8f05", "#029e73", "#d55e00", "#cc78bc", "#000000", "#56b4e9", "#8c564b", "#6a3d9a",
               "#808000"]


#: where a legend may sit inside its panel, tried in this order (:func:`place_legends`)
_INSIDE = ("upper right", "upper left", "lower left", "lower right", "center right", "center left", "upper center",
           "lower center", "center")


def use_style() -> None:
    """Apply the book's style: seaborn whitegrid, the :data:`QUALITATIVE` colours, text sized for the column (tick
    labels 9.7 pt, legends 9.5 pt: at least 9 pt as rendered), legends in a frame (:func:`place_legends` keeps
    them off the data when a figure is registered)."""
    global _STYLE_SET
    sns.set_theme(context="paper", style="whitegrid", palette=QUALITATIVE, font_scale=1.1)
    plt.rcParams.update({
        "figure.figsize": (COLUMN_INCHES * 0.8, 3.6), "figure.dpi": 100, "savefig.dpi": 150,
        "axes.titlesize": "medium", "legend.fontsize": 9.5, "legend.frameon": True, "legend.framealpha": 0.92,
        "legend.edgecolor": "0.75", "lines.linewidth": 1.6, "figure.autolayout": True,
        "axes.prop_cycle": cycler(color=QUALITATIVE), "svg.fonttype": "none",
    })
    _STYLE_SET = True


def fit_to_column(ncols: int, nrows: int, width: float, height: float) -> tuple[float, float]:
    """The figure size for ``ncols x nrows`` panels asked at ``width x height`` inches each.

    A figure wider than the text column would be shrunk by the browser, and its text with it (a
    12.8-inch figure shown in a 7.2-inch column has 5-pixel tick labels). So the panels are scaled
    down to fit :data:`COLUMN_INCHES` (never narrower than :data:`MIN_PANEL_INCHES`), their height
    by that factor to the power 0.3 so that wide panels do not become slits.

    Args:
        ncols, nrows: the panel grid.
        width, height: the size asked for one panel, in inches.

    Returns:
        ``(total width, total height)`` in inches.
    """
    scale = 1.0
    if width * ncols > COLUMN_INCHES:
        scale = max(COLUMN_INCHES / (width * ncols), min(1.0, MIN_PANEL_INCHES / width))
    return width * ncols * scale, height * nrows * scale ** 0.3


def figure(ncols: int = 1, nrows: int = 1, width: float = 6.4, height: float = 4.0, **kw):
    """``plt.subplots`` in the book's style, sized per panel and fitted to the text column
    (:func:`fit_to_column`)."""
    if not _STYLE_SET:
        use_style()
    return plt.subplots(nrows, ncols, figsize=fit_to_column(ncols, nrows, width, height), squeeze=False, **kw)


def show(fig) -> None:
    """Display a figure in the notebook (or do nothing outside IPython) and close it."""
    try:
        from IPython.display import display
    except ImportError:  # pragma: no cover - IPython ships with the notebook stack
        display = None
    if display is not None:
        display(fig)
    plt.close(fig)


def palette(n: int) -> list:
    """``n`` colours for series with no order (activations, data sets, methods): the :data:`QUALITATIVE` colours,
    all distinct up to ten; beyond ten they repeat, so the caller draws the later series with other markers
    or line styles (:func:`lib.book.figures_audit.close_colours` holds every legend to that).

    Series keyed by an ordered quantity (depth, width, sample size) take :func:`ordered_palette` instead."""
    return [QUALITATIVE[i % len(QUALITATIVE)] for i in range(n)]


def ordered_palette(n: int) -> list:
    """``n`` colours for series keyed by an ordered quantity (depth, width, sample size), in the key's order: viridis
    from dark blue to green (its pale yellow end left out), lightness rising monotonely, so the order of the
    colours reads as the order of the values (:func:`lib.book.figures_audit.unordered_palettes`)."""
    cmap = matplotlib.colormaps["viridis"]
    return [tuple(cmap(t)[:3]) for t in (np.linspace(0.0, 0.8, n) if n > 1 else [0.0])]


def slope_guide(ax, x, slope: float, anchor_y: float, label: str | None = None, **kw) -> None:
    """Draw a reference power law y = anchor_y * (x / x[0])^slope on log-log axes."""
    x = np.asarray(x, dtype=float)
    ax.plot(x, anchor_y * (x / x[0]) ** slope, ls=":", color=kw.pop("color", "0.3"),
            label=label if label is not None else f"slope {slope:g}", **kw)


def mark_infinite(ax, xs, y_top: float | None = None, label: str = r"$\kappa=\infty$ (singular)", **kw) -> None:
    """Mark x positions whose value is infinite with upward triangles at the top of the axes.

    An infinite condition number is drawn as such, never as a huge finite number.
    """
    xs = list(xs)
    if not xs:
        return
    top = y_top if y_top is not None else ax.get_ylim()[1]
    ax.scatter(xs, [top] * len(xs), marker="^", s=60, clip_on=False, zorder=5, label=label, gid=INFINITE_GID, **kw)


def value_ticks(ax, values, axis: str = "x") -> None:
    """Label a log axis exactly at ``values`` (e.g. the widths run), with no crowded minor labels."""
    vals = sorted(set(float(v) for v in values))
    labels = [f"{v:g}" for v in vals]
    if axis == "x":
        ax.set_xticks(vals, labels)
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    else:
        ax.set_yticks(vals, labels)
        ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def band_lines(ax, table, labels: dict, colors=None, suffix: dict | None = None) -> None:
    """One line per group with a min-to-max band: ``table`` is indexed by (group, x) with columns
    ``mean``, ``min``, ``max`` (e.g. ``df.groupby([group, x])[y].agg(["mean", "min", "max"])``).

    ``labels`` maps each group to its legend text (and fixes the order); ``suffix`` adds text per group.
    """
    colors = colors or palette(len(labels))
    for c, g in zip(colors, labels):
        t = table.loc[g]
        ax.fill_between(t.index, t["min"], t["max"], color=c, alpha=0.2)
        ax.plot(t.index, t["mean"], "o-", color=c, label=labels[g] + ((suffix or {}).get(g, "")))


def break_at_gaps(x, *ys, grid):
    """``x`` and each of ``ys`` with a NaN put between two neighbouring points that have a value of ``grid`` (the
    values measured for any series, e.g. the depths of a sweep) between them, so that a line drawn through them
    joins only neighbouring measured values and never bridges a value this series lacks (a straight line from
    L = 1 to L = 10 where only 0, 1 and 10 were measured); markers are drawn as before.

    Returns:
        ``(x, *ys)`` as float arrays.
    """
    x = np.asarray(x, dtype=float)
    ys = [np.asarray(y, dtype=float) for y in ys]
    g = np.asarray(sorted(set(float(v) for v in grid)), dtype=float)
    cut = [i for i in range(1, len(x)) if ((g > min(x[i - 1], x[i])) & (g < max(x[i - 1], x[i]))).any()]
    return (np.insert(x, cut, np.nan), *(np.insert(y, cut, np.nan) for y in ys))


def frame_legend(leg) -> None:
    """Give a legend the book's frame: a light edge over an almost opaque face."""
    leg.set_frame_on(True)
    leg.get_frame().set_alpha(0.92)
    leg.get_frame().set_edgecolor("0.75")


def _free(fig, leg, renderer, others) -> bool:
    box = leg.get_window_extent(renderer)
    return not marks_under(fig, box, renderer) and not any(
        o is not leg and o.get_window_extent(renderer).overlaps(box) for o in others)


def _inside(leg, ax, renderer) -> bool:
    box, panel = leg.get_window_extent(renderer), ax.bbox
    return box.x0 >= panel.x0 - 1 and box.x1 <= panel.x1 + 1 and box.y0 >= panel.y0 - 1 and box.y1 <= panel.y1 + 1


def place_legends(fig) -> None:
    """Frame every legend of ``fig`` and keep it off the data, the labels and the other legends.

    A legend inside its panel that covers a drawn point or line goes to the first corner or side of the panel where
    it covers none; a legend with no such place, or one outside the panels that covers a label (a figure legend
    over the x-labels), goes to a strip below the panels, in as many columns as the figure's width holds. The
    figure grows by the strip's height, so the panels keep theirs. A legend repeated under several panels is shown
    once. Called on every figure when it is registered (:meth:`lib.book.figures.Figures.show`).
    """
    legs = legends_of(fig)
    if not legs:
        return
    for _, leg in legs:
        frame_legend(leg)
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    every = [leg for _, leg in legs]
    strip = []
    for owner, leg in legs:
        if _free(fig, leg, r, every):
            continue
        if owner is not None and _inside(leg, owner, r):
            for loc in _INSIDE:
                leg.set_loc(loc)
                if _free(fig, leg, r, every):
                    break
            else:
                strip.append((owner, leg))
        else:
            strip.append((owner, leg))
    if strip:
        _to_strip(fig, strip, r)


def _panel_tag(ax) -> str | None:
    """A panel's tag, ``"(d)"`` of the title ``"(d) length map"``: the title of its legend once moved below the
    panels, so that the reader knows which panel it keys."""
    m = re.match(r"\s*(\([a-z]\))", ax.get_title()) if ax is not None else None
    return m.group(1) if m else None


def _original_handles(fig, owner, labels: list[str], proxies: list) -> list:
    """The artists a legend's entries were made from (an error bar container, a scatter), so that the legend drawn
    again shows each entry as it is plotted; a legend's own copy where no artist carries the label."""
    found: dict = {}
    for ax in ([owner] if owner is not None else []) + list(fig.axes):
        for h, lab in zip(*ax.get_legend_handles_labels()):
            found.setdefault(lab, h)
    return [found.get(lab, proxy) for lab, proxy in zip(labels, proxies)]


def _to_strip(fig, strip, renderer, gap: float = 8.0) -> None:
    """Move the legends of ``strip`` (``(axes or None, legend)``) below the panels; the figure grows to hold them."""
    width_px = fig.bbox.width
    made, seen = [], set()
    for owner, leg in strip:
        labels = [t.get_text() for t in leg.get_texts()]
        handles = _original_handles(fig, owner, labels, list(leg.legend_handles))
        title = leg.get_title().get_text() or _panel_tag(owner)
        size = leg.get_texts()[0].get_fontsize() if labels else None
        handler_map = leg.get_legend_handler_map()
        leg.remove()
        if (title, tuple(labels)) in seen:
            continue
        seen.add((title, tuple(labels)))
        for ncols in range(max(len(labels), 1), 0, -1):  # a figure legend: the panels' layout leaves it out
            new = fig.legend(handles, labels, title=title, ncols=ncols, fontsize=size, loc="upper left",
                              bbox_to_anchor=(0, 0), bbox_transform=fig.transFigure, borderaxespad=0,
                             handler_map=handler_map)
            if new.get_window_extent(renderer).width <= width_px - 4 or ncols == 1:
                break
            new.remove()
        frame_legend(new)
        made.append(new)
    rows: list[list] = [[]]
    for leg in made:  # side by side while the width holds them, else a new row
        row_w = sum(l.get_window_extent(renderer).width + gap for l in rows[-1])
        if rows[-1] and row_w + leg.get_window_extent(renderer).width > width_px - 4:
            rows.append([])
        rows[-1].append(leg)
    heights = [max(l.get_window_extent(renderer).height for l in row) for row in rows]
    strip_px = sum(heights) + gap * (len(rows) + 1)
    w_in, h_in = fig.get_size_inches()
    new_h = h_in + strip_px / fig.dpi
    fig.set_size_inches(w_in, new_h)
    bottom = strip_px / fig.dpi / new_h
    engine = fig.get_layout_engine()
    if isinstance(engine, ConstrainedLayoutEngine):
        engine.set(rect=(0, bottom, 1, 1 - bottom))
    else:
        fig.set_layout_engine("tight", rect=(0, bottom, 1, 1))
    fig.canvas.draw()
    height_px = fig.bbox.height
    y = strip_px - gap
    for row, h in zip(rows, heights):
        widths = [l.get_window_extent(renderer).width for l in row]
        x = (width_px - sum(widths) - gap * (len(row) - 1)) / 2
        for leg, w in zip(row, widths):
            leg.set_bbox_to_anchor((x / width_px, y / height_px), transform=fig.transFigure)
            x += w + gap
        y -= h + gap
