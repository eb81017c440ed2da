"""[AAK] Thm 3.6 and Thm 3.8: under Assumption B the smallest eigenvalue of the normalized kernels is bounded below
without Thm 3.2's factor n.

The bound is read from the steps of the paper's proofs, as :mod:`lib.theory.aak_bounds` reads Cor 3.3 and 3.5. Under
Assumption B (the unit-norm inputs' Gram matrix G has lambda_min(G) >= delta) the proof of Thm C.10 (part 2) applies
Lemma C.8 to the L-fold dual f_L (a power series with non-negative coefficients, by Schoenberg's theorem): writing
G = delta I + (G - delta I), every Hadamard power G^(o k) = (G - delta I)^(o k) + (1 - (1 - delta)^k) I is at least
(1 - (1 - delta)^k) I, so ``lambda_min(f_L(G)) >= f_L(1) - f_L(1 - delta) = 1 - f_L(1 - delta)`` (with f_L(1) = 1, "the
fact" the proof cites); Lemma C.7 then bounds f_L(1 - delta) by the correlation decay of Thm 3.2. Thm 3.8 (Thm C.16,
part 2) does the same for the normalized NTK, whose correlation map is again a power series with non-negative
coefficients. Under Assumption A only (``|<x_i, x_j>|`` <= 1 - delta_A), Thm 3.2 bounds each off-diagonal entry by
f_L(1 - delta_A), and Gershgorin gives ``lambda_min >= 1 - (n - 1) f_L(1 - delta_A)``: the factor n that Assumption B
removes.

``table_assumption_b`` computes both bounds at every depth of the chapter's [AAK] study
(:func:`lib.chapters.infinite_depth.aak_depth.measure_aak_depth`) with the exact f_L of the infinite-width recursion
(:func:`lib.theory.layer_kernels` on two unit inputs), beside the measured lambda_min; ``check_assumption_b_bound``
judges them.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from lib import theory
from lib.book.results import Check
from lib.chapters.infinite_depth.numerics import not_checked, outside_theorem, unit_diagonal

__all__ = ["B_DELTA_MIN", "B_RTOL", "B_EPS", "pair_correlations", "table_assumption_b", "check_assumption_b_bound"]

#: Assumption B needs lambda_min(G) of the unit-norm inputs above 0; at or below this it fails (a singular Gram
#: matrix, e.g. more points than dimensions): 1e-9 is far above rounding (n eps = 1e-14) and far below the digits of
#: the study (lambda_min(G) >= 0.01).
B_DELTA_MIN = 1e-9

#: lambda_min of a normalized kernel below the bound by at most this (absolute; both are O(1) numbers) is rounding:
#: the kernels are exact to about 1e-13 and their eigenvalues to n times that.
B_RTOL = 1e-9

#: The target of the depth comparison: the depth from which each bound guarantees lambda_min >= 1 - eps (the
#: corollaries' "close to 1"); reported, with the statement "stronger than Thm 3.2" judged on every depth.
B_EPS = 0.5


def pair_correlations(activation: str, rho: float, depth: int) -> pd.DataFrame:
    """f_L(rho) for L = 0..depth: the normalized top-layer kernel and NTK of two unit inputs with correlation rho.

    Args:
        activation: a registry name.
        rho: the inputs' correlation, in [-1, 1].
        depth: the deepest layer.

    Returns:
        Columns depth, nngp, ntk (the normalized off-diagonal entries).
    """
    X = np.array([[1.0, 0.0], [rho, math.sqrt(max(0.0, 1.0 - rho * rho))]])
    h = theory.layer_kernels(X, depth, activation)
    return pd.DataFrame(dict(depth=np.arange(depth + 1),
                             nngp=[float(unit_diagonal(h.sigma[L])[0, 1]) for L in range(depth + 1)],
                             ntk=[float(unit_diagonal(h.theta[L])[0, 1]) for L in range(depth + 1)]))


def table_assumption_b(st) -> pd.DataFrame:
    """The bounds of [AAK] Thm 3.6 / 3.8 and of Thm 3.2 + Gershgorin beside the measured lambda_min, per depth.

    Args:
        st: an :class:`lib.chapters.infinite_depth.aak_depth.AakDepth` (its ``kk`` with the normalized kernels'
            ``lmin_*_cos``, ``facts``, ``n``).

    Returns:
        One row per (kernel, centred activation, depth): kernel (``"nngp"``: Thm 3.6; ``"ntk"``: Thm 3.8), activation,
        depth, delta_b (lambda_min of the inputs' Gram matrix), delta_a (1 - max ``|<x_i, x_j>|``), lmin (measured,
        normalized kernel), bound_b (1 - f_L(1 - delta_b)), bound_a (1 - (n - 1) f_L(1 - delta_a)).
    """
    rows = []
    for a in st.activations:
        if not st.facts[a].centred:
            continue
        s = st.kk[st.kk.activation == a].sort_values("depth")
        d0 = s[s.depth == 0].iloc[0]
        delta_b, delta_a = float(d0.lmin_nngp_cos), 1.0 - float(d0.max_abs_corr_nngp)
        depth = int(s.depth.max())
        fb = pair_correlations(a, 1.0 - delta_b, depth) if delta_b > B_DELTA_MIN else None
        fa = pair_correlations(a, 1.0 - delta_a, depth)
        for kind in ("nngp", "ntk"):
            for r in s.itertuples():
                L = int(r.depth)
                rows.append(dict(kernel=kind, activation=a, depth=L, delta_b=delta_b, delta_a=delta_a,
                                 lmin=float(getattr(r, f"lmin_{kind}_cos")),
                                 bound_b=1.0 - float(fb[kind].iloc[L]) if fb is not None else math.nan,
                                 bound_a=1.0 - (st.n - 1) * float(fa[kind].iloc[L])))
    return pd.DataFrame(rows, columns=["kernel", "activation", "depth", "delta_b", "delta_a", "lmin", "bound_b",
                                       "bound_a"])


def _first_depth(s: pd.DataFrame, col: str) -> str:
    hit = s[s[col] >= 1.0 - B_EPS]
    return f"{int(hit.depth.iloc[0])}" if len(hit) else "not reached"


def check_assumption_b_bound(st, kind: str) -> Check:
    """[AAK] Thm 3.6 (``kind="nngp"``) / Thm 3.8 (``"ntk"``): under Assumption B, lambda_min of the normalized kernel
    is at least 1 - f_L(1 - delta), a stronger version of Thm 3.2 (Thm 3.4), without its factor n.

    The paper: "The following somewhat stronger assumption than Assumption A leads to a better conditioning result:
    Assumption B: lambda_min(X X^T) >= delta. ... We have the following stronger versions of Theorem 3.2 and Corollary
    3.3 under Assumption B: Theorem 3.6. Under Assumption B, we have (a lower bound on lambda_min(K^(L)))", and
    "Theorem 3.8. Under Assumption B, we have (the same for the NTK)". The formulas are lost from the text this book
    has; their proofs (Thm C.10 part 2, Thm C.16 part 2) survive in words: Lemma C.8 applied to the L-fold dual, "using
    Lemma C.7 and the fact that" f_L(1) = 1, which gives the bound 1 - f_L(1 - delta) of the module's docstring (this
    book's reading; Lemma C.7 only loosens it further).

    Premise: Assumption B, lambda_min(G) > :data:`~lib.chapters.infinite_depth.aak_assumption_b.B_DELTA_MIN` on the
    study's inputs, and a centred (normalized) activation; otherwise "not checked" (outside the theorem). Rule, on
    every centred activation and depth of the study (:func:`table_assumption_b`):

    * "not reproduced" if the measured lambda_min falls below 1 - f_L(1 - delta) by more than
      :data:`~lib.chapters.infinite_depth.aak_assumption_b.B_RTOL` at some depth (the bound fails);
    * "reproduced with caveat" if it holds everywhere but the bound is nowhere stronger than Thm 3.2's Gershgorin bound
      1 - (n - 1) f_L(1 - delta_A) (the "stronger version" does not show on these data);
    * "reproduced" otherwise. The depths from which each bound reaches 1 - :data:`~lib.chapters.infinite_depth.aak_assumption_b.B_EPS`
      are reported.

    Args:
        st: the data of :func:`lib.chapters.infinite_depth.aak_depth.measure_aak_depth`.
        kind: ``"nngp"`` or ``"ntk"``.

    Returns:
        The verdict, one judged row per activation.
    """
    cid = {"nngp": "[AAK] Thm 3.6", "ntk": "[AAK] Thm 3.8"}[kind]
    tab = table_assumption_b(st)
    tab = tab[tab.kernel == kind]
    if tab.empty:
        return not_checked(cid, "No centred activation in this run.", "the theorem is about normalized activations")
    delta_b = float(tab.delta_b.iloc[0])
    if not delta_b > B_DELTA_MIN:
        return outside_theorem(cid, f"The inputs' Gram matrix has lambda_min = {delta_b:.2g}.",
                               "Assumption B fails (the Gram matrix of the unit-norm inputs is singular)")
    what = "top-layer kernel" if kind == "nngp" else "NTK"
    fails, stronger, rows, lines = [], [], [], []
    for a, s in tab.groupby("activation", sort=False):
        gap = (s.lmin - s.bound_b).min()
        bad = s[s.lmin < s.bound_b - B_RTOL]
        better = s[s.bound_b > s.bound_a]
        if len(bad):
            fails.append(a)
        if len(better):
            stronger.append(a)
        rows.append({"statement": f"{a}: lambda_min of the normalized {what} against 1 - f_L(1 - delta), every depth",
                     "paper": "at least the bound (Assumption B)",
                     "this book": f"smallest lambda_min - bound {gap:.2g}" + (
                         f"; fails at L = {', '.join(str(int(L)) for L in bad.depth[:5])}" if len(bad) else ""),
                     "rule": f">= -{B_RTOL:g} at every depth", "holds": not len(bad)})
        lines.append(f"{a}: lambda_min - bound >= {gap:.2g} at every depth 0..{int(s.depth.max())}; the bound reaches "
                     f"1 - {B_EPS:g} at depth {_first_depth(s, 'bound_b')}, Thm 3.2's Gershgorin bound at depth "
                     f"{_first_depth(s, 'bound_a')}, lambda_min itself at {_first_depth(s, 'lmin')}")
    caveat = ""
    if fails:
        status = "not reproduced"
    elif not stronger:
        status = "reproduced with caveat"
        caveat = (f"the bound holds, but on these data it is nowhere stronger than Thm 3.2's bound with its factor n: "
                  f"delta_B = {delta_b:.3g} against delta_A = {float(tab.delta_a.iloc[0]):.3g}")
    else:
        status = "reproduced"
    return Check(cid, status=status, caveat=caveat, rows=tuple(rows),
                 measured=f"Assumption B on the {st.n} digits: lambda_min(G) = delta = {delta_b:.3g} (Assumption A's "
                 f"delta_A = {float(tab.delta_a.iloc[0]):.3g}). Normalized {what}, bound 1 - f_L(1 - delta) from the "
                 "exact infinite-width correlation map: " + "; ".join(lines) + ".")
