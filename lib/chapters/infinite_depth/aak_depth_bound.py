"""[AAK] Cor 3.3 and Cor 3.5: the explicit depth after which kappa <= 1 + eps, against the depth measured.

The bound is :func:`lib.theory.aak_depth_bound` (the paper's proof steps with its constants: order
log(n/eps)/mu); the measurement is the infinite-width depth study of
:func:`lib.chapters.infinite_depth.aak_depth.measure_aak_depth` (every depth from 0 to its deepest).
``table_depth_bound`` lists both for every centred activation and every eps of :data:`~lib.chapters.infinite_depth.aak_depth_bound.DEPTH_BOUND_EPS`;
``check_depth_bound`` computes the verdicts.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from lib import theory
from lib.book.results import Check
from lib.chapters.infinite_depth.numerics import not_checked

__all__ = ["DEPTH_BOUND_EPS", "measured_depth", "table_depth_bound", "check_depth_bound"]

#: The targets kappa <= 1 + eps of the check, one decade apart: 1 + 0.5 is a kernel still far from the identity, 1.01
#: one within rounding of plots; each gives one (activation, eps) statement of the corollaries.
DEPTH_BOUND_EPS = (0.5, 0.1, 0.01)

def measured_depth(depths, kappa, eps: float) -> float:
    """The first depth from which kappa stays at or below 1 + eps at every deeper depth computed.

    Args:
        depths: increasing depths.
        kappa: the condition numbers at those depths (nan counts as above).
        eps: the target.

    Returns:
        That depth, or ``inf`` if kappa is above 1 + eps at the deepest depth computed.
    """
    d, k = np.asarray(depths, float), np.asarray(kappa, float)
    above = ~(k <= 1.0 + eps)
    if above[-1]:
        return math.inf
    idx = np.flatnonzero(above)
    return float(d[idx[-1] + 1]) if idx.size else float(d[0])


def table_depth_bound(st, kinds=("nngp", "ntk")) -> pd.DataFrame:
    """The [AAK] Cor 3.3 / 3.5 depths: the paper's bound beside the measured depth, per centred activation and eps.

    Args:
        st: an :class:`lib.chapters.infinite_depth.aak_depth.AakDepth` (its ``kk``, ``facts``, ``n``,
            ``max_depth``).
        kinds: the kernels, ``"nngp"`` (Cor 3.3) and/or ``"ntk"`` (Cor 3.5).

    Returns:
        Columns kernel, activation, mu, delta (Assumption A's margin of the inputs), eps, bound (the paper's
        depth), measured (first depth from which kappa <= 1 + eps; inf if not reached), deepest (deepest depth
        computed), tested (bound <= deepest: the corollary speaks about a depth computed), holds (measured <= bound;
        None when not tested and not reached).
    """
    rows = []
    for kind in kinds:
        for a in st.activations:
            f = st.facts[a]
            if not f.centred:
                continue
            s = st.kk[st.kk.activation == a].sort_values("depth")
            delta = 1.0 - float(s[s.depth == 0][f"max_abs_corr_{kind}"].iloc[0])
            deepest = int(s.depth.iloc[-1])
            for eps in DEPTH_BOUND_EPS:
                bound = theory.aak_depth_bound(f.mu, delta, st.n, eps, kind) if delta > 0 else math.inf
                meas = measured_depth(s.depth, s[f"kappa_{kind}_cos"], eps)
                tested = bound <= deepest
                holds = bool(meas <= bound) if (tested or math.isfinite(meas)) else None
                rows.append(dict(kernel=kind, activation=a, mu=f.mu, delta=delta, eps=eps, bound=bound,
                                 measured=meas, deepest=deepest, tested=tested, holds=holds))
    return pd.DataFrame(rows, columns=["kernel", "activation", "mu", "delta", "eps", "bound", "measured", "deepest",
                                       "tested", "holds"])


def _depth(v: float) -> str:
    return "not reached" if not math.isfinite(v) else f"{int(v)}"


def check_depth_bound(st, kind: str) -> Check:
    """[AAK] Cor 3.3 (``kind="nngp"``) / Cor 3.5 (``"ntk"``): kappa <= 1 + eps once the depth reaches the paper's
    bound, of order log(n/eps)/mu.

    The bound (:func:`lib.theory.aak_depth_bound`): L_0(delta) + ceil((2/mu) log(1/(2t))) for the top-layer kernel,
    2 (L_0(delta) + ceil((2/mu) log(1/t))) for the NTK, t = eps/((2 + eps)(n - 1)), delta = 1 - max
    ``|<x_i, x_j>|`` of the inputs, mu of the activation. Measurement: for every centred activation of the depth
    study and every eps of :data:`~lib.chapters.infinite_depth.aak_depth_bound.DEPTH_BOUND_EPS`, the first depth from which the infinite-width kernel's kappa
    stays at or below 1 + eps (:func:`measured_depth`). Rule, per (activation, eps):

    * it holds if the measured depth is at most the bound, fails if it is larger (also when kappa is still above
      1 + eps at the deepest depth computed while the bound lies within the computed depths);
    * it is untested when the bound lies beyond the deepest depth computed and kappa has not reached 1 + eps
      (the corollary says nothing about shallower depths).

    "not reproduced" if some statement fails; "inconclusive" if none is tested (deeper needed); else
    "reproduced", naming the untested ones. "not checked" without a centred activation (the premise).

    Args:
        st: the data of :func:`lib.chapters.infinite_depth.aak_depth.measure_aak_depth`.
        kind: ``"nngp"`` or ``"ntk"``.

    Returns:
        The verdict, with one row per (activation, eps).
    """
    cid = {"nngp": "[AAK] Cor 3.3", "ntk": "[AAK] Cor 3.5"}[kind]
    tab = table_depth_bound(st, (kind,))
    if tab.empty:
        return not_checked(cid, "No centred activation in this run.",
                           "the corollary is about normalized (centred) activations")
    judged = tab[tab.holds.notna()]
    untested = tab[tab.holds.isna()]
    what = "top-layer kernel" if kind == "nngp" else "NTK"
    rows = tuple(dict(statement=f"{r.activation}: kappa of the {what} <= 1 + {r.eps:g} from depth {_depth(r.bound)} on",
                      paper=f"depth {_depth(r.bound)} (mu = {r.mu:.3g}, delta = {r.delta:.3g}, n = {st.n})",
                      **{"this book": f"from depth {_depth(r.measured)} (computed to {r.deepest})"},
                      rule="measured depth <= the paper's bound", holds=r.holds) for r in tab.itertuples())
    if (judged.holds == False).any():  # noqa: E712 (a column of objects)
        status, caveat = "not reproduced", ""
    elif judged.empty:
        status = "inconclusive"
        caveat = (f"every bound lies beyond the deepest depth computed ({int(tab.deepest.max())}) and kappa has not "
                  "reached 1 + eps there: deeper needed")
    else:
        status, caveat = "reproduced", ""
    ratio = (judged.measured / judged.bound).replace([np.inf, -np.inf], np.nan)
    return Check(
        cid, status=status, caveat=caveat, rows=rows,
        measured=f"Depth from which kappa of the normalized {what} stays <= 1 + eps, against the paper's bound "
        f"(n = {st.n}): " + "; ".join(f"{r.activation}, eps = {r.eps:g}: {_depth(r.measured)} vs {_depth(r.bound)}"
                                      for r in tab.itertuples())
        + (f"; measured / bound between {ratio.min():.2f} and {ratio.max():.2f} over the {len(judged)} statements "
           "judged" if len(judged) else "")
        + (f"; untested (bound beyond depth {int(untested.deepest.max())}, not reached): "
           + ", ".join(f"{r.activation} at eps = {r.eps:g}" for r in untested.itertuples()) if len(untested) else "")
        + ".")
