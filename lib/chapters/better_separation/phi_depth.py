"""[LH] Thm 3.2, its second half: for a small input angle, phi increases with the depth L; measured on the finite
ReLU nets of the chapter's sweep at every depth, judged against the spread over seeds."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from lib.book.results import Check
from lib.book.wording import ints
from lib.chapters.better_separation.measure import Grids, separation_onset
from lib.chapters.better_separation.separation_theory import DEG

__all__ = ["PHI_SE_MULTIPLE", "PhiDepth", "small_angle_depths", "phi_depth_table", "check_phi_depth"]

#: A change of the seed-mean phi between consecutive depths counts when it exceeds this multiple of its standard
#: error sqrt(sd_a^2/n_a + sd_b^2/n_b) over seeds (2: about a 95 % two-sided level, as chapters 03 and 06).
PHI_SE_MULTIPLE = 2.0


@dataclass(frozen=True)
class PhiDepth:
    """Finite-width gradient angles at the small input angles, every width and depth of the sweep ([LH] Thm 3.2).

    Attributes:
        rows: the sweep's rows (:func:`lib.chapters.better_separation.measure_finite_width_angles`) at the small
            angles: width, depth, seed, theta, phi (radians).
        onset: :func:`lib.chapters.better_separation.separation_onset` of ``rows`` at half the gain, per (width,
            depth): the theorem's "wide enough" premise holds above it.
        width: the largest width, the one judged.
        depths: the depths, sorted.
        seeds: weight draws per (width, depth).
    """

    rows: pd.DataFrame
    onset: pd.DataFrame
    width: int
    depths: list
    seeds: int


def small_angle_depths(fw_all: pd.DataFrame, grids: Grids, seeds: int) -> PhiDepth:
    """The small-angle rows of a finite-width ReLU sweep at every depth, with their onsets (no new nets).

    Args:
        fw_all: from :func:`lib.chapters.better_separation.measure_finite_width_angles` (every width and depth).
        grids: the grids ``fw_all`` was measured on (its ``fw_small_angles``).
        seeds: weight draws per (width, depth).

    Returns:
        The :class:`PhiDepth`.
    """
    rows = fw_all[fw_all.theta.isin(grids.fw_small_angles)][["width", "depth", "seed", "theta", "phi"]]
    return PhiDepth(rows=rows.reset_index(drop=True), onset=separation_onset(rows, fraction=0.5),
                    width=int(rows.width.max()), depths=sorted(int(L) for L in rows.depth.unique()), seeds=int(seeds))


def phi_depth_table(pdep: PhiDepth) -> pd.DataFrame:
    """At the largest width and the small angles above every depth's onset there: phi (deg) by depth, seed mean,
    sample sd and seeds.

    Args:
        pdep: the study.

    Returns:
        Columns theta (rad), depth, mean, sd (deg; sd NaN with one seed), seeds; empty if no angle qualifies.
    """
    onset = pdep.onset[pdep.onset.width == pdep.width].onset
    lo = float(onset.max()) if len(onset) and onset.notna().all() else math.inf
    r = pdep.rows[(pdep.rows.width == pdep.width) & (pdep.rows.theta >= lo)]
    g = r.assign(deg=DEG * r.phi).groupby(["theta", "depth"]).deg
    return pd.DataFrame({"mean": g.mean(), "sd": g.std(ddof=1), "seeds": g.count()}).reset_index()


def check_phi_depth(pdep: PhiDepth) -> Check:
    """[LH] Thm 3.2 (phi increases with L): "for a small input angle theta_in, a wide ReLU network has
    phi > theta_in ..., and phi increases with the depth L".

    Measured on the finite nets of the sweep at the largest width, at every small input angle (1e-6 to 0.3 rad)
    above the onset of every depth (the angle above which every seed realizes half the infinite-width gain: the
    theorem's "wide enough" for that angle; below it the finite net is linear between the two inputs, which
    :func:`lib.chapters.better_separation.check_separation_onset` judges). For each such angle and each pair of
    consecutive depths, the change of the seed-mean phi against its standard error over seeds. Rule, with
    k = :data:`~lib.chapters.better_separation.phi_depth.PHI_SE_MULTIPLE`:

    * "not reproduced" if at some angle phi falls from one depth to the next by more than k standard errors;
    * "reproduced" if at every angle it rises from each depth to the next by more than k standard errors;
    * "inconclusive" if some change is within k standard errors (not resolved against the seed spread), or,
      with one seed (no standard error, so a change is not judged), phi does not rise at some step;
    * "reproduced with caveat" if it rises everywhere, some step with one seed (no spread to judge against);
    * "not checked" with one depth, or no small angle above every depth's onset at the largest width.

    Args:
        pdep: the study.

    Returns:
        The check, claim ``"[LH] Thm 3.2"``, part ``"phi increases with L"``.
    """
    part, k = "phi increases with L", PHI_SE_MULTIPLE
    if len(pdep.depths) < 2:
        return Check("[LH] Thm 3.2", status="not checked", part=part, measured=f"One depth ({ints(pdep.depths)}).",
                     caveat="one depth: phi against depth cannot be read")
    t = phi_depth_table(pdep)
    if t.empty:
        return Check("[LH] Thm 3.2", status="not checked", part=part,
                     measured=f"At width {pdep.width} no small input angle lies above the onset of every depth.",
                     caveat=f"not testable at width {pdep.width}: no small angle where every depth separates")
    falls, flat, lone, steps, lone_rises = [], [], [], 0, 0
    for theta, g in t.groupby("theta"):
        g = g.sort_values("depth")
        var = (g.sd ** 2 / g.seeds).to_numpy()      # NaN with one seed: no spread, the step is not judged
        d = np.diff(g["mean"].to_numpy())
        se = np.sqrt(var[1:] + var[:-1])
        L = g.depth.to_numpy()
        for i in range(len(d)):
            steps += 1
            where = f"{theta:.1e} rad, L={L[i]}->{L[i + 1]}"
            if not np.isfinite(se[i]):
                lone_rises += bool(d[i] > 0)
                if d[i] <= 0:
                    lone.append(where)
            elif d[i] < -k * se[i]:
                falls.append(where)
            elif d[i] <= k * se[i]:
                flat.append(where)
    angles = sorted(t.theta.unique())
    lo, hi = t[t.theta == angles[0]], t[t.theta == angles[-1]]
    judged = steps - lone_rises - len(lone)
    tally = (f"{judged - len(falls) - len(flat)} rise beyond {k:g} se, {len(flat)} within, {len(falls)} fall beyond"
             + (f" ({'; '.join(falls)})" if falls else ""))
    if judged < steps:
        tally = ((tally + "; " if judged else "")
                 + f"{lone_rises} rise and {len(lone)} do not, with one seed (no standard error)"
                 + (f" ({'; '.join(lone)})" if lone else ""))
    measured = (f"At width {pdep.width}, {pdep.seeds} seed(s), on the {len(angles)} small input angles from "
                f"{angles[0]:.1e} to {angles[-1]:.2g} rad above every depth's onset: phi (seed mean) at the smallest "
                + ", ".join(f"{m:.3g} deg (L={L})" for L, m in zip(lo.depth, lo["mean"])) + " and at the largest "
                + ", ".join(f"{m:.3g} deg (L={L})" for L, m in zip(hi.depth, hi["mean"]))
                + f"; of {steps} steps to the next depth, {tally}.")
    if falls:
        return Check("[LH] Thm 3.2", status="not reproduced", part=part, measured=measured)
    if flat or lone:
        why = ([f"the change is within {k:g} standard errors over seeds at {'; '.join(flat)}"] if flat else []) + (
            [f"one seed: phi does not rise at {'; '.join(lone)}, with no seed spread to judge the change against"]
            if lone else [])
        return Check("[LH] Thm 3.2", status="inconclusive", part=part, measured=measured, caveat="; ".join(why))
    if lone_rises:
        return Check("[LH] Thm 3.2", status="reproduced with caveat", part=part, measured=measured,
                     caveat="one seed: the rise is judged without a seed spread")
    return Check("[LH] Thm 3.2", status="reproduced", part=part, measured=measured)
