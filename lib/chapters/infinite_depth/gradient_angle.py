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
from lib.book.plotting import figure, palette
from lib.book.results import Check
from lib.chapters.infinite_depth.numerics import DEG, NO_EXPERIMENT, ChapterFigure, fit_rate, log_depths, nearest_depth

__all__ = ["PHI_INF", "PAPER_PHI_LIMIT_DEG", "phi_depth_profile", "PhiProfile", "measure_phi_profile", "plot_phi_depth",
           "figure_phi_depth", "THM35_RULE", "check_thm35"]


#: the infinite-depth ReLU gradient angle arccos(1/4) ([LH] Thm 3.5)
PHI_INF = theory.relu_gradient_angle_limit()


#: the paper's limit of Thm 3.5 in degrees: arccos(1/4), about 75.52 deg ([LH] Thm 3.5)
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
    pa = dict(zip(phi_angles_deg, palette(len(phi_angles_deg))))
    for t0, c in pa.items():
        s = prof[np.isclose(prof.theta_in, math.radians(t0))]
        axs[0, 0].semilogx(s.depth.clip(lower=0.5), DEG * s.phi, color=c, label=fr"$\theta_{{in}}={t0:g}^\circ$")
        s = s[s.depth > 0]
        axs[0, 1].loglog(s.depth, DEG * np.abs(s.gap), color=c)
    axs[0, 0].axhline(DEG * PHI_INF, color="k", ls="--", label=r"$\arccos(1/4)$")
    axs[0, 0].set(xlabel="depth L (0 drawn at 0.5)", ylabel=r"$\phi$ (deg)",
                  title="[LH] Thm 3.5: gradient angle vs depth")
    axs[0, 0].legend(fontsize="x-small")
    Ls = np.geomspace(100, p.max_depth, 20)
    ref = prof[np.isclose(prof.theta_in, math.radians(phi_angles_deg[-2])) & (prof.depth >= 100)]
    anchor = DEG * abs(ref.gap.iloc[0]) if len(ref) else 1.0
    axs[0, 1].loglog(Ls, anchor * (np.log(Ls) / Ls) / (math.log(100) / 100), "k:", label=r"$\propto \log L / L$")
    axs[0, 1].set(xlabel="depth L", ylabel=r"$|\phi_L - \arccos(1/4)|$ (deg)", title="Rate of approach")
    axs[0, 1].legend()
    return fig


#: The figure of [LH] Thm 3.5 (its data are the frame of a ``PhiProfile``).
figure_phi_depth = ChapterFigure(
    "fig-phi-depth", drawn_by=plot_phi_depth, data_from=measure_phi_profile,
    caption="Gradient angle against depth for several input angles (left) and its distance to the limit (right).",
    setting="Setting: infinite width, input angles {angles_deg} deg, depths up to {max_depth:,}; no data and no seeds "
    "(exact recursion); {profile}. " + NO_EXPERIMENT)


#: The rule of [LH] Thm 3.5 for one input angle, as the "paper vs this book" table states it.
THM35_RULE = ("within 1 deg of the limit at the deepest depth; the verdict is inconclusive if farther but every gap "
              "still shrinks, not reproduced if one stopped shrinking")


def check_thm35(p: PhiProfile) -> Check:
    """[LH] Thm 3.5: phi -> arccos(1/4) for every non-parallel pair in the infinite-width-then-depth limit.

    Rule: "reproduced" if at the deepest L every input angle has ``|phi - arccos(1/4)|`` < 1 deg (the
    approach is slow, ~ log L / L, so 1 deg is what L ~ 1e5..1e7 can reach); "inconclusive" if not yet within
    1 deg but every gap shrank over the last decade of depth (the limit lies beyond the depths computed);
    "not reproduced" if some gap is above 1 deg and did not shrink (phi settles elsewhere). The judged rows are
    one per input angle: the paper's limit beside phi at the deepest depth, held if within 1 deg.

    Args:
        p: the profile of :func:`lib.chapters.infinite_depth.gradient_angle.measure_phi_profile` (depths up to at
            least 10).

    Returns:
        The verdict.
    """
    prof, phi_angles_deg = p.frame, p.angles_deg
    at = prof.pivot_table(index="depth", columns="theta_in", values="phi")
    Lmax = int(at.index.max())
    L3 = nearest_depth(at.index, 1000)
    gap_max = DEG * float(np.abs(at.loc[Lmax] - PHI_INF).max())
    gap_1e3 = DEG * float(np.abs(at.loc[L3] - PHI_INF).max())
    L_dec = nearest_depth(at.index, Lmax / 10)
    converging = bool((np.abs(at.loc[Lmax] - PHI_INF) < np.abs(at.loc[L_dec] - PHI_INF)).all())
    slowest = DEG * float(at.columns[np.argmax(np.abs(at.loc[Lmax] - PHI_INF).to_numpy())])
    rates = {}
    for t0 in phi_angles_deg:
        s = prof[np.isclose(prof.theta_in, math.radians(t0)) & (prof.depth >= max(10, Lmax // 1000))]
        rates[t0] = fit_rate(s.depth, s.gap, tail=0.5)[0]
    status = "reproduced" if gap_max < 1.0 else ("inconclusive" if converging else "not reproduced")
    rows = tuple({"statement": f"gradient angle phi, input angle {math.degrees(t0):g} deg",
                  "paper": f"{PAPER_PHI_LIMIT_DEG:.2f} deg", "this book": f"{DEG * float(phi):.2f} deg at L = {Lmax:,}",
                  "rule": THM35_RULE, "holds": bool(DEG * abs(float(phi) - PHI_INF) < 1.0)}
                 for t0, phi in at.loc[Lmax].items())
    return Check(
        "[LH] Thm 3.5", status=status, rows=rows,
        caveat=f"depth {Lmax} is not enough: the gaps still shrink, towards a limit beyond the depths computed"
        if status == "inconclusive" else "",
        measured=f"At L = {Lmax}, phi lies within {gap_max:.2g} deg of {DEG * PHI_INF:.2f} deg for every input angle in "
        f"{phi_angles_deg} deg (at L = {L3}: within {gap_1e3:.2f} deg). Fitted log-log slopes of the gap over the "
        "last decades: " + ", ".join(f"{t0:g} deg: {r:.2f}" for t0, r in rates.items())
        + f" (log L / L has local slope just above -1): slow; every gap shrinks over the last "
        f"decade: {converging}. The slowest pair is theta_in = {slowest:g} deg: the approach starts only once "
        "L theta_in is of order 1.")
