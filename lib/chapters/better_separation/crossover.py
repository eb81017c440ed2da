"""[LH] Sec. 3 and Figure 1: where phi crosses theta_in and 60 deg, figure, verdicts and the "paper vs this book"
table of Figure 1."""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
from matplotlib.figure import Figure

from lib.book.plotting import figure
from lib.book.results import Check
from lib.book.wording import ints, paper_vs_book
from lib.chapters.better_separation.figure1 import depth_colors
from lib.chapters.better_separation.measure import Grids
from lib.chapters.better_separation.separation_theory import DEG, crossover_angles, depth_monotonicity, \
    relu_theory_curves

__all__ = ["Crossovers", "crossovers", "table_crossovers", "plot_crossover", "figure_crossover", "check_crossover",
           "check_large_angles", "table_figure1_vs_paper", "STATED_DEG", "ABOUT_DEG"]

#: The angle of the 60 deg statements of [LH] Sec. 3 (phi > theta_in below it, phi above it for larger angles).
STATED_DEG = 60.0
#: "About 60 deg"; the paper reads its value off Figure 1 without locating it; a value up to this many degrees on
#: the wrong side of 60 deg is "about 60" (a caveat), farther is not (the figure's gridlines are 30 deg apart, so
#: a reading is good to a few degrees, and 5 deg is one twelfth of the value).
ABOUT_DEG = 5.0


def _level(holds: list, about: list) -> tuple[str, str]:
    """The status of rows that each hold (on the stated side of 60 deg) or are "about" (within ABOUT_DEG of it)."""
    if all(holds):
        return "reproduced", ""
    if all(h or a for h, a in zip(holds, about)):
        return "reproduced with caveat", f"a value misses {STATED_DEG:g} deg by less than {ABOUT_DEG:g} deg: 'about' only"
    return "not reproduced", ""


@dataclass(frozen=True)
class Crossovers:
    """The 60 deg statements of [LH] Sec. 3 on the exact infinite-width ReLU angle, with their settings.

    Attributes:
        grids: the angle grids (``grids.grid`` is the theory grid).
        depths: the depths L.
        theory: :func:`lib.chapters.better_separation.relu_theory_curves` on ``grids.grid`` for ``depths``.
        cross: :func:`lib.chapters.better_separation.crossover_angles` of ``depths``.
        mono: :func:`lib.chapters.better_separation.depth_monotonicity` on ``grids.grid``.
    """

    grids: Grids
    depths: list
    theory: pd.DataFrame
    cross: pd.DataFrame
    mono: pd.DataFrame


def crossovers(grids: Grids, depths, theory: pd.DataFrame | None = None) -> Crossovers:
    """The crossover and depth-monotonicity tables of the 60 deg statements ([LH] Sec. 3): exact values, no nets.

    Args:
        grids: the angle grids (the theory grid ``grids.grid``).
        depths: depths of the infinite-width curves.
        theory: :func:`lib.chapters.better_separation.relu_theory_curves` on ``grids.grid`` for ``depths``
            (computed when None).

    Returns:
        The :class:`Crossovers`.
    """
    depths = list(depths)
    theory = relu_theory_curves(grids.grid, depths) if theory is None else theory
    return Crossovers(grids=grids, depths=depths, theory=theory, cross=crossover_angles(depths),
                      mono=depth_monotonicity(depths, grids.grid))


def table_crossovers(cr: Crossovers) -> pd.DataFrame:
    """The crossover table with, per depth, the angle below which the next depth has the larger phi (deg, 2 digits).

    Args:
        cr: the sweep's crossovers (``sweep.crossovers`` of :func:`lib.chapters.better_separation.measure_relu_sweep`).

    Returns:
        Columns of :func:`lib.chapters.better_separation.crossover_angles`, then ``next_depth`` and
        ``increasing_below`` of :func:`lib.chapters.better_separation.depth_monotonicity` (empty at the deepest).
    """
    tab = cr.cross.merge(cr.mono, on="depth", how="left").round(2)
    return tab.astype({"next_depth": "Int64"})


def plot_crossover(cr: Crossovers) -> Figure:
    """The gain phi - theta_in at infinite width, with the crossover angles as dots ([LH] Figure 1).

    Args:
        cr: the sweep's crossovers.

    Returns:
        The figure (one axis).
    """
    theory, cross = cr.theory, cr.cross
    depths = list(cross.depth)
    cols = depth_colors(depths)
    fig, axs = figure()
    ax = axs[0, 0]
    for L in depths:
        t = theory[theory.depth == L]
        ax.plot(DEG * t.theta, DEG * (t.phi - t.theta), color=cols[L], label=f"L={L}")
        cr_L = cross.set_index("depth").loc[L, "cross"]
        ax.plot([cr_L], [0], "o", color=cols[L])
    ax.axhline(0, color="k", lw=1)
    ax.axvline(60, color="0.5", ls=":", label=r"$60^\circ$")
    ax.set(xlabel=r"$\theta_{in}$ (deg)", ylabel=r"$\phi - \theta_{in}$ (deg)", xlim=(0, 180),
           title=r"Gain in separation; dots: crossover $\phi=\theta_{in}$")
    ax.legend()
    return fig


def figure_crossover(cr: Crossovers) -> dict:
    """What :meth:`lib.book.results.Recorder.figure` needs to show the figure ``fig-separation-crossover``
    ([LH] Sec. 3): :func:`plot_crossover`'s figure, label, caption, sources and a setting line naming ``profile``."""
    return dict(
        fig=plot_crossover(cr), label="fig-separation-crossover", drawn_by=plot_crossover,
        data_from=(crossover_angles, relu_theory_curves),
        caption=r"$\phi - \theta_{in}$ against $\theta_{in}$ at infinite width; dots: the crossover angles (table above).",
        setting=f"Setting: infinite-width curves (Eq. 7) at depths L = {ints(cr.depths)} on a {cr.grids.grid_step:g} "
                f"deg grid (no data, no seeds: exact values); {{profile}}. Deviation: the paper reads its "
                "60 deg statements off Figure 1 without locating the crossovers.")


def check_crossover(cr: Crossovers) -> Check:
    """Verdict on [LH] Sec. 3 / Figure 1: "the gradient angle phi exceeds theta_in for input angles below
    about 60 deg and grows with depth".

    Rule (exact infinite-width values, no noise to allow for): "reproduced" when every crossover
    angle (phi = theta_in) lies above :data:`~lib.chapters.better_separation.crossover.STATED_DEG` (60 deg) and phi grows with depth at every grid
    angle up to at least 60 deg for every pair of consecutive depths; "reproduced with caveat" when the
    values that miss lie within :data:`~lib.chapters.better_separation.crossover.ABOUT_DEG` (5 deg) below 60 deg ("about 60 deg"); else "not
    reproduced". Each depth and each pair of depths is one judged row (the "paper vs this book" table of
    Figure 1); a row holds when its value is on the stated side of 60 deg.

    Args:
        cr: the crossovers; the rule reads ``cr.cross`` and ``cr.mono``.

    Returns:
        The check, with its judged rows.
    """
    c = cr.cross.set_index("depth")
    rows = tuple(dict(statement=f"crossover phi = theta_in, L={L}",
                      paper="about 60 deg (text: phi > theta_in for theta_in < 60 deg)",
                      rule="crossover above 60 deg", holds=bool(v > STATED_DEG), **{"this book": f"{v:.1f} deg"})
                 for L, v in c.cross.items())
    rows += tuple(dict(statement=f"phi grows with depth, L={r.depth}->{r.next_depth}", paper="for theta_in < 60 deg",
                       rule="grows at every grid angle up to 60 deg", holds=bool(r.increasing_below >= STATED_DEG),
                       **{"this book": f"below {r.increasing_below:.1f} deg"})
                  for r in cr.mono.itertuples())
    about = [bool(v > STATED_DEG - ABOUT_DEG) for v in c.cross] + [bool(v >= STATED_DEG - ABOUT_DEG)
                                                                   for v in cr.mono.increasing_below]
    status, caveat = _level([r["holds"] for r in rows], about)
    return Check(
        "[LH] Fig 1", part="small angles", rows=rows, status=status, caveat=caveat,
        measured="Crossover angles (phi = theta_in): " + ", ".join(f"L={L}: {v:.1f} deg" for L, v in c.cross.items())
        + "; phi grows with depth below " + ", ".join(f"{r.increasing_below:.1f} deg (L={r.depth}->{r.next_depth})"
                                                     for r in cr.mono.itertuples()) + ".")


def check_large_angles(cr: Crossovers) -> Check:
    """Verdict on [LH] Sec. 3 / Figure 1: "for large input angles phi stays large (above about 60 deg):
    non-similar data never become similar".

    Rule (exact infinite-width values): "reproduced" when the smallest phi over theta_in in
    [60, 180] deg exceeds :data:`~lib.chapters.better_separation.crossover.STATED_DEG` (60 deg) at every depth; "reproduced with caveat" when the
    smallest phi that misses lies within :data:`~lib.chapters.better_separation.crossover.ABOUT_DEG` (5 deg) below it ("about 60 deg"; a linear
    net, phi = theta_in, sits exactly at 60 deg there); else "not reproduced". Each depth is one judged row.

    Args:
        cr: the crossovers; the rule reads ``cr.cross``.

    Returns:
        The check, with its judged rows.
    """
    c = cr.cross.set_index("depth")
    rows = tuple(dict(statement=f"smallest phi for theta_in in [60, 180] deg, L={L}", paper="above 60 deg",
                      rule="above 60 deg", holds=bool(v > STATED_DEG), **{"this book": f"{v:.1f} deg"})
                 for L, v in c.min_phi_above60.items())
    status, caveat = _level([r["holds"] for r in rows], [bool(v > STATED_DEG - ABOUT_DEG) for v in c.min_phi_above60])
    return Check(
        "[LH] Fig 1", part="large angles", rows=rows, status=status, caveat=caveat,
        measured="Smallest phi over theta_in in [60, 180] deg: " + ", ".join(f"L={L}: {v:.1f}" for L, v in c.min_phi_above60.items())
        + " deg; phi >= 60 deg already for theta_in above " + ", ".join(f"{v:.1f}" for v in c.theta_at_phi60) + " deg.")


def table_figure1_vs_paper(checks) -> pd.io.formats.style.Styler:
    """[LH] Figure 1, paper vs this book: the rows :func:`check_crossover` and :func:`check_large_angles` judged.

    The paper prints no numbers for Figure 1; its text (Sec. 3) states three qualitative values read off
    the figure: phi > theta_in for theta_in below about 60 deg, phi larger for deeper nets there, and
    phi above 60 deg for theta_in above 60 deg. The table renders the checks' rows
    (:func:`lib.book.wording.paper_vs_book`); it judges nothing itself.

    Args:
        checks: the checks already computed, e.g. ``(check_crossover(cr), check_large_angles(cr))``.

    Returns:
        The table as a Styler without the index (no cell cut at 50 characters).
    """
    return paper_vs_book(checks).style.hide(axis="index")
