"""[LH] Sec. 3 and Figure 1: where phi crosses theta_in and 60 deg, figure and verdicts."""
from __future__ import annotations


import pandas as pd
from matplotlib.figure import Figure

from lib.book.plotting import figure
from lib.book.results import Check
from lib.chapters.better_separation.separation_theory import crossover_table, depth_monotonicity, DEG
from lib.chapters.better_separation.figure1 import _depth_colors

__all__ = ['compute_crossovers', 'plot_crossover', 'check_crossover', 'check_large_angles']


def compute_crossovers(depths, angles) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The crossover table and the depth-monotonicity table of the 60 deg statements ([LH] Sec. 3).

    Args:
        depths: depths of the infinite-width curves.
        angles: the theory grid (radians).

    Returns:
        (:func:`lib.chapters.better_separation.separation_theory.crossover_table` of ``depths``, :func:`lib.chapters.better_separation.separation_theory.depth_monotonicity` on ``angles``).
    """
    return crossover_table(depths), depth_monotonicity(depths, angles)


def plot_crossover(theory: pd.DataFrame, cross: pd.DataFrame) -> Figure:
    """Figure 2.4: the gain phi - theta_in at infinite width, with the crossover angles as dots ([LH] Figure 1).

    Args:
        theory: :func:`lib.chapters.better_separation.separation_theory.relu_theory_curves` (the depths drawn are those of ``cross``).
        cross: from :func:`lib.chapters.better_separation.separation_theory.crossover_table`.

    Returns:
        The figure (one axis).
    """
    depths = list(cross.depth)
    cols = _depth_colors(depths)
    fig, axs = figure()
    ax = axs[0, 0]
    for L in depths:
        t = theory[theory.depth == L]
        ax.plot(DEG * t.theta, DEG * (t.phi - t.theta), color=cols[L], label=f"L={L}")
        cr = cross.set_index("depth").loc[L, "cross"]
        ax.plot([cr], [0], "o", color=cols[L])
    ax.axhline(0, color="k", lw=1)
    ax.axvline(60, color="0.5", ls=":", label=r"$60^\circ$")
    ax.set(xlabel=r"$\theta_{in}$ (deg)", ylabel=r"$\phi - \theta_{in}$ (deg)", xlim=(0, 180),
           title=r"Gain in separation; dots: crossover $\phi=\theta_{in}$")
    ax.legend()
    return fig


def check_crossover(cross: pd.DataFrame, mono: pd.DataFrame) -> Check:
    """Verdict on [LH] Sec. 3 / Figure 1: phi > theta_in below about 60 deg, increasing with depth there.

    Rule (exact infinite-width values, no noise to allow for): "reproduced" when every crossover
    angle (phi = theta_in) lies above 60 deg and phi grows with depth at every grid angle up to at
    least 60 deg for every pair of consecutive depths; else "not reproduced".

    Args:
        cross: from :func:`lib.chapters.better_separation.separation_theory.crossover_table`.
        mono: from :func:`lib.chapters.better_separation.separation_theory.depth_monotonicity`.

    Returns:
        The check.
    """
    c = cross.set_index("depth")
    mono_ok = bool((mono.increasing_below >= 60).all())
    return Check(
        "[LH] Fig 1", part="small angles",
        status="reproduced" if (c.cross > 60).all() and mono_ok else "not reproduced",
        measured="Crossover angles (phi = theta_in): " + ", ".join(f"L={L}: {v:.1f} deg" for L, v in c.cross.items())
        + "; phi grows with depth below " + ", ".join(f"{r.increasing_below:.1f} deg (L={r.depth}->{r.next_depth})"
                                                     for r in mono.itertuples()) + ".")


def check_large_angles(cross: pd.DataFrame) -> Check:
    """Verdict on [LH] Sec. 3 / Figure 1: for large input angles the gradient angle stays above 60 deg.

    Rule (exact infinite-width values): "reproduced" when the smallest phi over theta_in in
    [60, 180] deg exceeds 60 deg at every depth, else "not reproduced".

    Args:
        cross: from :func:`lib.chapters.better_separation.separation_theory.crossover_table`.

    Returns:
        The check.
    """
    c = cross.set_index("depth")
    return Check(
        "[LH] Fig 1", part="large angles",
        status="reproduced" if (c.min_phi_above60 > 60).all() else "not reproduced",
        measured="Smallest phi over theta_in in [60, 180] deg: " + ", ".join(f"L={L}: {v:.1f}" for L, v in c.min_phi_above60.items())
        + " deg; phi >= 60 deg already for theta_in above " + ", ".join(f"{v:.1f}" for v in c.theta_at_phi60) + " deg.")
