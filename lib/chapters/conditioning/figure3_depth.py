"""[LH] Figure 3, the angle against depth: the ReLU network's smallest pairwise gradient angle grows with depth,
judged against the seed spread (the part "both improving with depth" of the registry's statement)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from lib.book.results import Check
from lib.book.wording import number
from lib.chapters.conditioning.summary import ConditioningSweep

__all__ = ["ANGLE_SE_MULTIPLE", "angle_depth_table", "check_figure3_angle_depth"]

#: A change of the seed-mean smallest angle between two depths counts when it exceeds this multiple of its
#: standard error sqrt(sd_a^2/n_a + sd_b^2/n_b) over seeds (2: about a 95 % two-sided level, as chapter 06).
ANGLE_SE_MULTIPLE = 2.0


def angle_depth_table(sweep: ConditioningSweep) -> pd.DataFrame:
    """Per (data set, depth L >= 1): the ReLU network's smallest pairwise gradient angle on the full set, in degrees,
    mean and sample sd over the seeds that measured it, and their number.

    Args:
        sweep: the sweep (its per-seed ``frame``; none gives an empty table).

    Returns:
        Columns dataset, depth, mean, sd (NaN with one seed), seeds; depths without a full-data measure are left out.
    """
    f = sweep.frame
    if f is None or "min_angle" not in f:  # a sweep built from its seed means alone: no spread to judge against
        return pd.DataFrame(columns=["dataset", "depth", "mean", "sd", "seeds"])
    f = f[(f.activation == "relu") & (f.depth >= 1)].dropna(subset=["min_angle"])
    g = f.assign(deg=np.degrees(f.min_angle)).groupby(["dataset", "depth"]).deg
    return pd.DataFrame({"mean": g.mean(), "sd": g.std(ddof=1), "seeds": g.count()}).reset_index()


def check_figure3_angle_depth(sweep: ConditioningSweep) -> Check:
    """[LH] Fig 3 (angle against depth): the ReLU network's smallest pairwise gradient angle grows with depth.

    Measured on the full data as the authors did (:func:`angle_depth_table`): per data set, the seed-mean angle at
    the smallest and the largest depth L >= 1 measured, and the standard error of their difference over seeds.
    Rule, with k = :data:`~lib.chapters.conditioning.figure3_depth.ANGLE_SE_MULTIPLE`:

    * "not reproduced" if on some data set the angle falls from the smallest to the largest depth by more than
      k standard errors;
    * "reproduced" if on every data set it rises by more than k standard errors and never falls by more than k
      standard errors between consecutive depths;
    * "reproduced with caveat" if it rises on every data set but falls beyond k standard errors between some
      consecutive depths, or a data set was measured with one seed (its rise is judged without a spread; the
      caveat names it);
    * "inconclusive" if on some data set the change is within k standard errors (the growth is not resolved
      against the seed spread at this width);
    * "not checked" if no data set has two depths L >= 1 measured.

    Args:
        sweep: the sweep.

    Returns:
        The check (part "angle grows with depth"), one judged row per data set.
    """
    part = "angle grows with depth"
    tab = angle_depth_table(sweep)
    k = ANGLE_SE_MULTIPLE
    falls, flat, one_seed, dips, lines, judged = [], [], [], [], [], []
    for ds in sweep.names:
        t = tab[tab.dataset == ds].set_index("depth").sort_index()
        if len(t) < 2:
            continue
        a, b = t.iloc[0], t.iloc[-1]
        d = float(b["mean"] - a["mean"])
        se = math.sqrt(a.sd ** 2 / a.seeds + b.sd ** 2 / b.seeds)
        if math.isnan(se):
            one_seed.append(ds)
            se = 0.0
        rose, fell = d > k * se, d < -k * se
        se_step = np.sqrt((t.sd ** 2 / t.seeds).to_numpy()[1:] + (t.sd ** 2 / t.seeds).to_numpy()[:-1])
        steps = np.diff(t["mean"].to_numpy())
        dip = [int(L) for L, s, e in zip(t.index[1:], steps, np.nan_to_num(se_step)) if s < -k * e]
        if fell:
            falls.append(ds)
        elif not rose:
            flat.append(ds)
        if dip:
            dips.append(f"{ds} at L={dip}")
        pm = lambda sd: "" if math.isnan(sd) else f" ± {sd:.2g}"  # one seed: no spread to show
        lines.append(f"{ds}: {a['mean']:.3g}{pm(a.sd)} deg (L={t.index[0]}) -> {b['mean']:.3g}{pm(b.sd)} deg "
                     f"(L={t.index[-1]}), change {d:+.3g} deg, "
                     + (f"{k:g} se = {k * se:.2g} deg ({int(b.seeds)} seeds)" if ds not in one_seed else "one seed"))
        judged.append({"statement": f"{ds}: ReLU φ_min (deg) against depth", "paper": "grows",
                       "this book": f"{number(a['mean'])} (L={t.index[0]}) -> {number(b['mean'])} (L={t.index[-1]})",
                       "rule": f"rises by more than {k:g} standard errors over seeds", "holds": bool(rose)})
    if not lines:
        return Check("[LH] Fig 3", status="not checked", part=part, measured="No data set has two depths L >= 1 "
                     "with a full-data angle per seed.", caveat="not testable on this data: fewer than two depths "
                     "L >= 1 with per-seed angles")
    measured = ("ReLU smallest gradient angle on the full set, seed mean ± sd: " + "; ".join(lines)
                + (f". Falls between consecutive depths beyond {k:g} se: {'; '.join(dips)}." if dips else "."))
    rows = tuple(judged)
    if falls:
        return Check("[LH] Fig 3", status="not reproduced", part=part, measured=measured, rows=rows)
    if flat:
        return Check("[LH] Fig 3", status="inconclusive", part=part, measured=measured, rows=rows,
                     caveat=f"on {', '.join(flat)} the change is within {k:g} standard errors over seeds: the growth "
                     f"is not resolved at width {sweep.width}")
    caveats = ([f"falls between consecutive depths ({'; '.join(dips)})"] if dips else []) + (
        [f"one seed on {', '.join(one_seed)}: its rise is judged without a seed spread"] if one_seed else [])
    return Check("[LH] Fig 3", status="reproduced with caveat" if caveats else "reproduced", part=part,
                 measured=measured, rows=rows, caveat="; ".join(caveats))
