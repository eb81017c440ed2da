"""[LH] Thm 3.5: the ReLU gradient angle phi tends to arccos(1/4) with depth, for every input angle.

phi against depth comes from :func:`lib.theory.relu_gradient_angle_profile` (one O(L) pass per input angle);
``measure_phi_profile`` samples it, ``plot_phi_depth`` draws the figure "fig-phi-depth" and ``check_thm35`` computes
the verdict and the rows of the "paper vs this book" table.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from lib import theory
from lib.book.plotting import figure, ordered_palette
from lib.book.results import Check
from lib.chapters.infinite_depth.numerics import (LEGEND_PT, DEG, NO_EXPERIMENT, ChapterFigure, log_depths,
                                                  nearest_depth)

__all__ = ["PHI_INF", "PAPER_PHI_LIMIT_DEG", "phi_depth_profile", "PhiProfile", "measure_phi_profile", "plot_phi_depth",
           "figure_phi_depth", "THM35_TOL_DEG", "THM35_MIN_DECAY", "THM35_RULE", "check_thm35"]


#: the infinite-depth ReLU gradient angle arccos(1/4) ([LH] Thm 3.5)
PHI_INF = theory.relu_gradient_angle_limit()


#: the paper's limit of Thm 3.5 in degrees; arccos(1/4), about 75.52 deg ([LH] Thm 3.5)
PAPER_PHI_LIMIT_DEG = math.degrees(math.acos(0.25))


def phi_depth_profile(theta_ins, max_depth: int, per_decade: int = 12) -> pd.DataFrame:
    """phi_L for L = 0..max_depth (log-sampled) for each theta_in ([LH] Thm 3.5), one O(L) pass per angle.

    Columns theta_in, depth, phi, gap (= phi - phi_inf with phi_inf = arccos(1/4)), from
    :func:`lib.theory.relu_gradient_angle_profile`.

    Args:
        theta_ins: input angles (radians).
        max_depth: deepest depth.
        per_decade: sampled depths per factor 10.

    Returns:
        The frame above, one row per (theta_in, sampled depth).
    """
    t = np.asarray(theta_ins, dtype=float)
    P = theory.relu_gradient_angle_profile(t, max_depth)
    Ls = log_depths(max_depth, per_decade)
    phi_inf = theory.relu_gradient_angle_limit()
    rows = [pd.DataFrame(dict(theta_in=t0, depth=Ls, phi=P[i, Ls], gap=P[i, Ls] - phi_inf)) for i, t0 in enumerate(t)]
    return pd.concat(rows, ignore_index=True)


@dataclass(frozen=True, eq=False)
class PhiProfile:
    """phi against depth ([LH] Thm 3.5) with the settings it was computed with.

    Attributes:
        frame: the frame of :func:`lib.chapters.infinite_depth.gradient_angle.phi_depth_profile` (theta_in in
            radians).
        angles_deg: the input angles (degrees).
        max_depth: the deepest depth.
    """

    frame: pd.DataFrame
    angles_deg: list
    max_depth: int


def measure_phi_profile(cfg) -> PhiProfile:
    """:func:`lib.chapters.infinite_depth.gradient_angle.phi_depth_profile` for input angles given in degrees
    ([LH] Thm 3.5).

    Args:
        cfg: the chapter's parameters (:data:`lib.chapters.infinite_depth.spec.SPEC`); read: ``phi_angles`` (input
            angles, degrees) and ``max_depth`` (deepest depth).

    Returns:
        A :class:`lib.chapters.infinite_depth.gradient_angle.PhiProfile`.
    """
    return PhiProfile(phi_depth_profile(np.deg2rad(cfg.phi_angles), cfg.max_depth), list(cfg.phi_angles),
                      int(cfg.max_depth))


def plot_phi_depth(p: PhiProfile) -> Figure:
    """[LH] Thm 3.5: phi against depth (left) and ``|phi_L - arccos(1/4)|`` with a log L / L guide (right).

    Args:
        p: the profile of :func:`lib.chapters.infinite_depth.gradient_angle.measure_phi_profile` (at least two
            input angles).

    Returns:
        A figure with two axes.
    """
    prof, phi_angles_deg = p.frame, p.angles_deg
    fig, axs = figure(ncols=2)
    pa = dict(zip(phi_angles_deg, ordered_palette(len(phi_angles_deg))))
    for t0, c in pa.items():
        s = prof[np.isclose(prof.theta_in, math.radians(t0))]
        axs[0, 0].semilogx(s.depth.clip(lower=0.5), DEG * s.phi, color=c, label=fr"$\theta_{{in}}={t0:g}^\circ$")
        s = s[s.depth > 0]
        axs[0, 1].loglog(s.depth, DEG * np.abs(s.gap), color=c)
    axs[0, 0].axhline(DEG * PHI_INF, color="k", ls="--", label=r"$\arccos(1/4)$")
    axs[0, 0].set(xlabel="depth L (0 drawn at 0.5)", ylabel=r"$\phi$ (deg)",
                  title="[LH] Thm 3.5: gradient angle vs depth")
    axs[0, 0].legend(fontsize=LEGEND_PT)
    Ls = np.geomspace(100, p.max_depth, 20)
    ref = prof[np.isclose(prof.theta_in, math.radians(phi_angles_deg[-2])) & (prof.depth >= 100)]
    anchor = DEG * abs(ref.gap.iloc[0]) if len(ref) else 1.0
    axs[0, 1].loglog(Ls, anchor * (np.log(Ls) / Ls) / (math.log(100) / 100), "k:", label=r"$\propto \log L / L$")
    axs[0, 1].set(xlabel="depth L", ylabel=r"$|\phi_L - \arccos(1/4)|$ (deg)", title="Rate of approach")
    axs[0, 1].legend(fontsize=LEGEND_PT)
    return fig


#: The figure of [LH] Thm 3.5 (its data are the frame of a ``PhiProfile``).
figure_phi_depth = ChapterFigure(
    "fig-phi-depth", drawn_by=plot_phi_depth, data_from=measure_phi_profile,
    caption="Gradient angle against depth for several input angles (left) and its distance to the limit (right).",
    setting="Setting: infinite width, input angles {angles_deg} deg, depths up to {max_depth:,}; no data and no seeds "
    "(exact recursion); {profile}. " + NO_EXPERIMENT)


#: An input angle whose gap ``|phi - arccos(1/4)|`` at the deepest depth is below this (degrees) has reached the limit
#: within the depths tested ([LH] Thm 3.5): the approach is slow, ~ log L / L, so 1 deg is what L ~ 1e5..1e7 reach.
THM35_TOL_DEG = 1.0

#: A gap not yet within THM35_TOL_DEG still goes to 0 if it falls over the last decade of depth at least like
#: L^(-1/2) (log-log slope <= -THM35_MIN_DECAY): log L / L has local slope just above -1, while a gap tending to a
#: non-zero value (phi settling elsewhere) has a slope tending to 0; 1/2 lies between.
THM35_MIN_DECAY = 0.5

#: The rule of [LH] Thm 3.5 for one input angle, as the "paper vs this book" table states it.
THM35_RULE = ("within 1 deg of the limit at the deepest depth, or the gap still shrinking at least like L^(-1/2) "
              "over the last decade")


def _gap_trends(p: PhiProfile) -> pd.DataFrame:
    """Per input angle (degrees): the gap |phi - arccos(1/4)| (degrees) at the deepest depth, whether it shrank over
    the last decade of depth (smaller at its end than at its start, with a negative log-log slope), that slope,
    and whether it is within :data:`~lib.chapters.infinite_depth.gradient_angle.THM35_TOL_DEG`."""
    Lmax = int(p.frame.depth.max())
    L_dec = nearest_depth(p.frame.depth.unique(), Lmax / 10)
    rows = []
    for t0, s in p.frame.groupby("theta_in"):
        last = s[s.depth >= L_dec].sort_values("depth")
        gap = np.maximum(DEG * np.abs(last.gap.to_numpy()), np.finfo(float).tiny)  # a gap of 0 has a logarithm
        slope = float(np.polyfit(np.log(last.depth.to_numpy()), np.log(gap), 1)[0])
        rows.append(dict(theta_deg=math.degrees(t0), gap=float(gap[-1]), falling=bool(gap[-1] < gap[0] and slope < 0),
                         slope=slope, reached=bool(gap[-1] < THM35_TOL_DEG)))
    return pd.DataFrame(rows)


def check_thm35(p: PhiProfile) -> Check:
    """[LH] Thm 3.5: phi -> arccos(1/4) for every non-parallel pair in the infinite-width-then-depth limit.

    Measurement, per input angle: the gap ``|phi_L - arccos(1/4)|`` at the deepest depth L_max, its log-log
    slope over the last decade (from the sampled depth nearest L_max/10 to L_max), and whether it shrank over
    that decade: smaller at L_max than at its start, with a negative slope (not at every depth: phi of wide
    input angles overshoots the limit first, so its gap dips and grows before it falls). The limit is reached for an angle if the gap at L_max is below
    :data:`~lib.chapters.infinite_depth.gradient_angle.THM35_TOL_DEG` (1 deg); a gap not yet there still goes to 0 if it shrank over the last decade at a
    slope <= -:data:`~lib.chapters.infinite_depth.gradient_angle.THM35_MIN_DECAY` (at least like L^(-1/2); a gap tending to a non-zero value has slope
    -> 0). Convergence is judged by these trends,
    not by the slowest angle alone. Rule:

    * "reproduced" if every angle reached the limit;
    * "reproduced with caveat" if some did not, but each of those shrank over the last decade at least
      like L^(-1/2) (the verdict names the angles that reached the limit and the depth each other one needs
      at its fitted rate);
    * "inconclusive" if every unreached gap shrank over the last decade, but some more slowly (the limit is
      not told apart from a nearby value at these depths);
    * "not reproduced" if some unreached gap did not shrink over the last decade (phi settles elsewhere).

    The judged rows are one per input angle: the paper's limit beside phi at the deepest depth, held if
    within 1 deg or still shrinking at least like L^(-1/2).

    Args:
        p: the profile of :func:`lib.chapters.infinite_depth.gradient_angle.measure_phi_profile` (depths up to at
            least 10).

    Returns:
        The verdict.
    """
    prof, phi_angles_deg = p.frame, p.angles_deg
    at = prof.pivot_table(index="depth", columns="theta_in", values="phi")
    Lmax = int(at.index.max())
    tr = _gap_trends(p)
    open_ = tr[~tr.reached]
    decays = open_.falling & (open_.slope <= -THM35_MIN_DECAY)
    if open_.empty:
        status = "reproduced"
    elif decays.all():
        status = "reproduced with caveat"
    elif open_.falling.all():
        status = "inconclusive"
    else:
        status = "not reproduced"
    holds = tr.reached | (tr.falling & (tr.slope <= -THM35_MIN_DECAY))
    rows = tuple({"statement": f"gradient angle phi, input angle {math.degrees(t0):g} deg",
                  "paper": f"{PAPER_PHI_LIMIT_DEG:.2f} deg", "this book": f"{DEG * float(phi):.2f} deg at L = {Lmax:,}",
                  "rule": THM35_RULE, "holds": bool(h)}
                 for (t0, phi), h in zip(at.loc[Lmax].items(), holds))
    def needed(r) -> str:  # the depth at which the fitted power law brings the gap to THM35_TOL_DEG
        if not r.falling:
            return "no depth (its gap does not shrink)"
        exponent = math.log10(Lmax) + math.log10(r.gap / THM35_TOL_DEG) / -r.slope
        return f"L = {10 ** exponent:.1e} at its fitted rate" if exponent < 100 else "a depth beyond 1e100"
    reached = [f"{t:g}" for t in tr.theta_deg[tr.reached]]
    caveat = {"reproduced with caveat": "input angle(s) " + ", ".join(f"{t:g}" for t in open_.theta_deg)
              + f" deg not yet within {THM35_TOL_DEG:g} deg of the limit at L = {Lmax:,}, though their gaps still "
              "shrink at least like L^(-1/2)",
              "inconclusive": f"depth {Lmax:,} is not enough: some gaps still shrink, but too slowly to tell the limit "
              "from a nearby value"}.get(status, "")
    return Check(
        "[LH] Thm 3.5", status=status, rows=rows, caveat=caveat,
        measured=f"At L = {Lmax:,}, phi lies within {THM35_TOL_DEG:g} deg of {DEG * PHI_INF:.2f} deg for "
        + (f"input angles {', '.join(reached)}" if reached else "none") + f" of the input angles {phi_angles_deg} deg. "
        f"Gap at L = {Lmax:,} and its log-log slope over the last decade: "
        + "; ".join(f"{r.theta_deg:g} deg: {r.gap:.2g} deg (slope {r.slope:.2f}"
                    + (")" if r.falling else ", not shrinking)") for r in tr.itertuples())
        + " (log L / L has local slope just above -1)"
        + "".join(f"; input angle {r.theta_deg:g} deg comes within {THM35_TOL_DEG:g} deg at {needed(r)}"
                  for r in open_.itertuples())
        + ". The slow pairs are the small input angles: the approach starts only once L theta_in is of order 1.")
