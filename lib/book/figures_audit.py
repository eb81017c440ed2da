"""What a reader can and cannot read off a drawn figure, measured on the figure itself: one home for the rules
every figure of the book keeps (:meth:`lib.book.figures.Figures.show` records the problems of each figure in the
registry, and the tests hold every figure to none).

- A legend has a frame and covers no drawn point or line of any panel, and no axis label, tick label or title
  (:func:`legend_overlaps`).
- No two entries of one legend drawn alike (same line style and marker) have colours closer than
  :data:`MIN_COLOUR_DISTANCE` (CIEDE2000; :func:`close_colours`).
- A panel's plot area is at least :data:`MIN_PANEL_INCHES` high and its axis labels fit its sides
  (:func:`cramped_panels`).
- Series keyed by an ordered quantity (depth, width, ...: legend labels such as ``"L = 4"`` or ``"width 512"``)
  are coloured in an ordered palette: their lightness is monotone in the key (:func:`unordered_palettes`).

All take a matplotlib figure and draw it once to measure it.
"""
from __future__ import annotations

import re

import matplotlib.colors as mcolors
import numpy as np
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.path import Path as MplPath
from matplotlib.transforms import Bbox
from skimage.color import deltaE_ciede2000, rgb2lab

__all__ = ["MIN_COLOUR_DISTANCE", "MIN_ORDERED_STEP", "ORDERED_KEY", "colour_distance", "legends_of", "marks_under", "legend_name",
           "legend_overlaps", "cramped_panels", "MIN_PANEL_INCHES",
           "close_colours", "unordered_palettes", "figure_problems"]

#: the smallest CIEDE2000 distance between two legend entries drawn alike: the colour-blind palette's two pinks
#: (14.6) and its orange and tan (11.6) fall below it, its orange and vermilion (17.0) above
MIN_COLOUR_DISTANCE = 15.0

#: the lowest plot area of a panel, in inches at the figure's dpi (1.2 inch: 120 px as the page shows it)
MIN_PANEL_INCHES = 1.2

#: the smallest CIEDE2000 step between neighbouring values of an ordered palette (ten viridis colours: 7.2)
MIN_ORDERED_STEP = 5.0

#: a legend label naming a value of an ordered quantity: ``L = 4``, ``L=4``, ``depth 4``, ``width 512``, ``m = 64``
#: (the key, then the number; text may follow)
ORDERED_KEY = re.compile(r"^\s*\$?(depth|width|L|m|n)\$?\s*=?\s*\$?\s*([0-9][0-9,]*(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?)",
                         re.IGNORECASE)


def colour_distance(a, b) -> float:
    """CIEDE2000 distance of two matplotlib colours (their alpha ignored)."""
    lab = rgb2lab(np.array([mcolors.to_rgb(a), mcolors.to_rgb(b)])[None])[0]
    return float(deltaE_ciede2000(lab[0], lab[1]))


def _lightness(c) -> float:
    return float(rgb2lab(np.array([mcolors.to_rgb(c)])[None])[0, 0, 0])


def legends_of(fig) -> list:
    """``(axes or None, legend)`` for every legend of ``fig``: the panels' then the figure's own."""
    out = [(ax, ax.get_legend()) for ax in fig.axes if ax.get_legend() is not None]
    return out + [(None, leg) for leg in fig.legends]


def _renderer(fig):
    fig.canvas.draw()
    return fig.canvas.get_renderer()


def _clip(points: np.ndarray, box: Bbox) -> np.ndarray:
    if points.size == 0:
        return points.reshape(0, 2)
    ok = np.isfinite(points).all(axis=1)
    points = points[ok]
    inside = (points[:, 0] >= box.x0 - 0.5) & (points[:, 0] <= box.x1 + 0.5) & \
             (points[:, 1] >= box.y0 - 0.5) & (points[:, 1] <= box.y1 + 0.5)
    return points[inside]


def _drawn_marks(ax) -> tuple[list[np.ndarray], list[MplPath]]:
    """The points (display coordinates, inside the panel) and the line paths a panel draws."""
    points, paths = [], []
    box = ax.bbox
    for line in ax.get_lines():
        if not line.get_visible():
            continue
        xy = line.get_transform().transform(np.asarray(line.get_xydata(), dtype=float))
        xy = xy[np.isfinite(xy).all(axis=1)] if xy.size else xy
        if line.get_marker() not in (None, "None", "", " ", ","):
            points.append(_clip(xy, box))
        if line.get_linestyle() not in ("None", "", " ") and len(xy) >= 2:
            paths.append(MplPath(xy))
    for coll in ax.collections:
        if not coll.get_visible():
            continue
        if isinstance(coll, PathCollection):
            off = np.asarray(coll.get_offsets(), dtype=float).reshape(-1, 2)
            points.append(_clip(coll.get_offset_transform().transform(off), box))
        elif isinstance(coll, LineCollection):
            tr = coll.get_transform()
            for seg in coll.get_segments():
                seg = np.asarray(seg, dtype=float)
                if len(seg) >= 2 and np.isfinite(seg).all():
                    paths.append(MplPath(tr.transform(seg)))
    return points, paths


def _texts(ax, renderer) -> list:
    """The panel's title, axis labels and the tick labels it draws (a log axis keeps labels of ticks outside its
    limits, which are not drawn)."""
    texts = [t for t in (ax.title, ax.xaxis.label, ax.yaxis.label) if t.get_visible() and t.get_text().strip()]
    box = ax.bbox
    for t in ax.get_xticklabels():
        e = t.get_window_extent(renderer)
        if t.get_visible() and t.get_text().strip() and box.x0 - 1 <= (e.x0 + e.x1) / 2 <= box.x1 + 1:
            texts.append(t)
    for t in ax.get_yticklabels():
        e = t.get_window_extent(renderer)
        if t.get_visible() and t.get_text().strip() and box.y0 - 1 <= (e.y0 + e.y1) / 2 <= box.y1 + 1:
            texts.append(t)
    return texts


def marks_under(fig, box: Bbox, renderer=None) -> list[str]:
    """What a box of ``fig`` (display coordinates, e.g. a legend's) covers: drawn points and lines of each panel,
    and its axis labels, tick labels and title; one line per panel and kind (empty: nothing)."""
    r = renderer or _renderer(fig)
    inner = Bbox.from_extents(box.x0 + 1, box.y0 + 1, box.x1 - 1, box.y1 - 1)
    out = []
    for p, ax in enumerate(fig.axes, start=1):
        if ax.bbox.overlaps(inner):
            points, paths = _drawn_marks(ax)
            n_pts = sum(int(((q[:, 0] > inner.x0) & (q[:, 0] < inner.x1) & (q[:, 1] > inner.y0)
                             & (q[:, 1] < inner.y1)).sum()) for q in points if len(q))
            clipped = Bbox.intersection(inner, ax.bbox)
            n_lines = sum(1 for path in paths if clipped is not None and path.intersects_bbox(clipped, filled=False))
            if n_pts or n_lines:
                out.append(f"covers {n_pts} drawn point(s) and {n_lines} line(s) of panel {p}")
        hit = [t.get_text() for t in _texts(ax, r) if t.get_window_extent(r).overlaps(inner)]
        if hit:
            out.append(f"covers the text {hit[0]!r} of panel {p}")
    return out


def legend_name(leg) -> str:
    """A legend as a problem names it: its title, else its first entry."""
    return repr(leg.get_title().get_text() or (leg.get_texts()[0].get_text() if leg.get_texts() else "legend"))


def legend_overlaps(fig) -> list[str]:
    """Each legend of ``fig`` without a frame, over drawn points or lines, over a label or title
    (:func:`marks_under`), or over another legend, said in one line per defect (empty: none)."""
    r = _renderer(fig)
    out = []
    legs = legends_of(fig)
    boxes = [leg.get_window_extent(r) for _, leg in legs]
    for i, ((_, leg), box) in enumerate(zip(legs, boxes)):
        name = legend_name(leg)
        if not leg.get_frame_on():
            out.append(f"legend {name} has no frame")
        out += [f"legend {name} {what}" for what in marks_under(fig, box, r)]
        if any(other.overlaps(box) for other in boxes[i + 1:]):
            out.append(f"legend {name} overlaps another legend")
    return out


def _style(handle) -> tuple:
    """How a legend entry is drawn apart from its colour: line style and marker (and whether the marker is filled)."""
    get = lambda name, default="": getattr(handle, name)() if hasattr(handle, name) else default  # noqa: E731
    ls = get("get_linestyle")
    ls = ls if isinstance(ls, str) else "-"
    marker = get("get_marker", "")
    fill = get("get_fillstyle", "full")
    if isinstance(handle, PathCollection):  # a scatter's marker is its path; unfilled when its faces are clear
        paths = handle.get_paths()
        marker = str(np.round(paths[0].vertices, 2).tolist()) if paths else "o"
        faces = handle.get_facecolor()
        fill = "none" if len(faces) == 0 or faces[0][3] == 0 else "full"
    if hasattr(handle, "get_markerfacecolor") and mcolors.to_rgba(handle.get_markerfacecolor())[3] == 0:
        fill = "none"
    return str(ls), str(marker), str(fill)


def _colour(handle):
    for name in ("get_color", "get_facecolor", "get_edgecolor"):  # a bar's face, an unfilled marker's edge
        if hasattr(handle, name):
            c = getattr(handle, name)()
            c = np.asarray(mcolors.to_rgba_array(c))
            if len(c) and c[0][3] > 0:
                return tuple(c[0][:3])
    if hasattr(handle, "get_markeredgecolor"):
        return mcolors.to_rgb(handle.get_markeredgecolor())
    return None


def _ordered_key(label: str) -> str | None:
    m = ORDERED_KEY.match(label)
    return m.group(1) if m else None


def close_colours(fig, threshold: float = MIN_COLOUR_DISTANCE) -> list[str]:
    """Pairs of entries of one legend drawn alike whose colours are closer than ``threshold`` (CIEDE2000). Two values
    of one ordered quantity are held to :func:`unordered_palettes` instead (ten depths in an ordered palette are
    told apart by their order, not by distance)."""
    out = []
    for _, leg in legends_of(fig):
        entries = [(t.get_text(), _style(h), _colour(h)) for t, h in zip(leg.get_texts(), leg.legend_handles)
                   if h is not None]
        for i, (la, sa, ca) in enumerate(entries):
            for lb, sb, cb in entries[i + 1:]:
                if ca is None or cb is None or sa != sb:
                    continue
                if _ordered_key(la) is not None and _ordered_key(la) == _ordered_key(lb):
                    continue
                d = colour_distance(ca, cb)
                if d < threshold:
                    out.append(f"legend entries {la!r} and {lb!r} are drawn alike in colours {d:.1f} apart "
                               f"(at least {threshold:g})")
    return out


def unordered_palettes(fig) -> list[str]:
    """Legends whose entries are values of one ordered quantity (:data:`ORDERED_KEY`, three or more values) drawn
    in colours whose lightness is not monotone in the value, or with neighbours closer than
    :data:`MIN_ORDERED_STEP`."""
    out = []
    for _, leg in legends_of(fig):
        keyed: dict[str, list] = {}
        for t, h in zip(leg.get_texts(), leg.legend_handles):
            m = ORDERED_KEY.match(t.get_text())
            c = _colour(h) if h is not None else None
            if m and c is not None:
                keyed.setdefault(m.group(1), []).append((float(m.group(2).replace(",", "")), _lightness(c), c))
        for key, vals in keyed.items():
            by_value = sorted({v: (l, c) for v, l, c in vals}.items())
            if len(by_value) < 3 or len({c for _, (_, c) in by_value}) < 3:
                continue
            steps = np.diff([l for _, (l, _) in by_value])
            if not ((steps > 0).all() or (steps < 0).all()):
                out.append(f"legend entries keyed by {key} ({len(by_value)} values) are not in an ordered palette "
                           f"(lightness {', '.join(f'{l:.0f}' for _, (l, _) in by_value)})")
            near = min(colour_distance(a[1][1], b[1][1]) for a, b in zip(by_value, by_value[1:]))
            if near < MIN_ORDERED_STEP:
                out.append(f"neighbouring values of {key} are coloured {near:.1f} apart (at least {MIN_ORDERED_STEP:g})")
    return out


def cramped_panels(fig) -> list[str]:
    """Panels whose plot area is lower than :data:`MIN_PANEL_INCHES` (Figure 4.9's was 0.8 inch: its legends took
    its height), or whose axis label is longer than the panel's side (a y-label running past the panel is cut)."""
    r = _renderer(fig)
    out = []
    for p, ax in enumerate(fig.axes, start=1):
        if not ax.get_visible() or not ax.axison:
            continue
        box = ax.bbox
        if box.height < MIN_PANEL_INCHES * fig.dpi:
            out.append(f"panel {p}'s plot area is {box.height / fig.dpi:.2f} inch high (at least {MIN_PANEL_INCHES:g})")
        label = ax.yaxis.label
        if label.get_text().strip() and label.get_window_extent(r).height > 1.1 * box.height:
            out.append(f"panel {p}'s y-label {label.get_text()!r} is longer than the panel is high")
        label = ax.xaxis.label
        if label.get_text().strip() and label.get_window_extent(r).width > 1.25 * box.width:
            out.append(f"panel {p}'s x-label {label.get_text()!r} is longer than the panel is wide")
    return out


def figure_problems(fig) -> list[str]:
    """Every problem of :func:`legend_overlaps`, :func:`close_colours`, :func:`unordered_palettes` and
    :func:`cramped_panels` (empty: none)."""
    return legend_overlaps(fig) + close_colours(fig) + unordered_palettes(fig) + cramped_panels(fig)
