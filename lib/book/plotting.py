"""One shared figure style for the whole book (matplotlib + seaborn) and small plot helpers."""
from __future__ import annotations

import matplotlib

if matplotlib.get_backend().lower() not in ("module://matplotlib_inline.backend_inline",):
    matplotlib.use("Agg", force=False)

import matplotlib.pyplot as plt
import matplotlib.ticker
import numpy as np
import seaborn as sns

__all__ = ["COLUMN_INCHES", "MIN_PANEL_INCHES", "use_style", "fit_to_column", "palette", "slope_guide", "mark_infinite", "figure", "show", "value_ticks", "band_lines"]

_STYLE_SET = False


#: width of the book's text column in inches at ``figure.dpi`` 100 (about 720 px in the HTML theme):
#: a figure no wider than this is shown at its natural size, so its text keeps its point size
COLUMN_INCHES = 7.2
#: narrowest panel; below this, tick labels collide, so a figure of many panels may exceed the column
MIN_PANEL_INCHES = 2.6


def use_style() -> None:
    """Apply the book's style: seaborn whitegrid, colour-blind palette, text sized for the column (tick labels
    9.7 pt, legends 9.5 pt: at least 9 pt as rendered)."""
    global _STYLE_SET
    sns.set_theme(context="paper", style="whitegrid", palette="colorblind", font_scale=1.1)
    plt.rcParams.update({
        "figure.figsize": (COLUMN_INCHES * 0.8, 3.6), "figure.dpi": 100, "savefig.dpi": 150,
        "axes.titlesize": "medium", "legend.fontsize": 9.5, "legend.frameon": False,
        "lines.linewidth": 1.6, "figure.autolayout": True,
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
    """``n`` colours of the book's colour-blind palette."""
    return sns.color_palette("colorblind", n)


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
    ax.scatter(xs, [top] * len(xs), marker="^", s=60, clip_on=False, zorder=5, label=label, **kw)


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
