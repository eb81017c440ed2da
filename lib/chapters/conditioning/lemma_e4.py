"""[LH] Lemma E.4: contracting the Gram matrix with the ReLU gates of a random layer raises its smallest eigenvalue
and lowers its largest one (strictly for non-degenerate data).

With W a random layer of width q and the gates S_ik = 1{w_k . x_i >= 0}, the contracted matrix
M_ij = G_ij (2/q) sum_k S_ik S_jk tends, as q -> infinity, to G o P_1 with (P_1)_ij = 1 - theta_ij / pi
([LH] Lemma E.1), a correlation matrix (unit diagonal, positive semi-definite). Its expectation at infinite width
is :func:`lib.theory.relu_first_layer_ntk` at depth 1, the one home of that formula; the lemma is the step of
[LH] Thm 4.2's proof from depth L - 1 to L. Measured here exactly on the chapter's data sets (a seeded subsample
of at most :data:`~lib.chapters.conditioning.lemma_e4.E4_MAX_N` rows): both extreme eigenvalues of G and of M by a dense symmetric eigensolver.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits  # a dependency of scikit-learn

from lib.book.results import Check
from lib.book.wording import number
from lib.theory import input_angles, relu_first_layer_ntk

__all__ = ["E4_MAX_N", "E4_TOL", "LemmaE4", "measure_lemma_e4", "table_lemma_e4", "check_lemma_e4"]

#: Rows of a data set used (a seeded subsample of a larger set) -- a dense eigensolver on 800 x 800 takes a fraction
#: of a second, and the lemma holds for any set of inputs, so a subsample tests it as well as the whole set.
E4_MAX_N = 800
#: Eigenvalue gaps are read relative to lambda_max(G); float64 eigenvalues of an n x n symmetric matrix are exact to
#: about n eps lambda_max (2e-13 at n = 800), so a gap below -E4_TOL fails an inequality and a gap within E4_TOL of
#: 0 does not resolve it as strict (the measured gaps on the chapter's data are 2e-5 of lambda_max(G) or more).
E4_TOL = 1e-10


@dataclass(frozen=True)
class LemmaE4:
    """The extreme eigenvalues of G = X X^T and of its gate contraction M = G o P_1 per data set ([LH] Lemma E.4).

    Attributes:
        frame: one row per data set: n, d, ``lambda_min_G``, ``lambda_min_M``, ``lambda_max_G``, ``lambda_max_M``,
            ``min_angle_deg`` (the smallest input angle: 0 for a degenerate set, with a parallel pair).
        max_n: the subsample cap (:data:`~lib.chapters.conditioning.lemma_e4.E4_MAX_N`).
    """

    frame: pd.DataFrame
    max_n: int = E4_MAX_N


def measure_lemma_e4(data, max_n: int = E4_MAX_N) -> LemmaE4:
    """lambda_min and lambda_max of G and of M = G o P_1 (:func:`lib.theory.relu_first_layer_ntk` at depth 1) on
    every data set of ``data`` (a seeded subsample of ``max_n`` rows of a larger one).

    Args:
        data: the chapter's data sets (:class:`lib.chapters.conditioning.data.ChapterData`; its ``arrays``).
        max_n: the subsample cap.

    Returns:
        The :class:`LemmaE4`.
    """
    rows = []
    for name, X in data.arrays.items():
        X = np.asarray(X, dtype=float)
        X = X[np.linalg.norm(X, axis=1) > 0]
        if len(X) > max_n:
            X = X[np.sort(np.random.default_rng(0).choice(len(X), max_n, replace=False))]
        G, M = X @ X.T, relu_first_layer_ntk(X, 1)
        with threadpool_limits(limits=1):  # dense eigensolvers: one BLAS thread is faster on a busy machine
            eg, em = np.linalg.eigvalsh(G), np.linalg.eigvalsh(M)
        theta = input_angles(X)
        rows.append(dict(dataset=name, n=len(X), d=X.shape[1], lambda_min_G=eg[0], lambda_min_M=em[0],
                         lambda_max_G=eg[-1], lambda_max_M=em[-1],
                         min_angle_deg=float(np.degrees(theta[np.triu_indices(len(X), 1)].min()))))
    return LemmaE4(pd.DataFrame(rows), int(max_n))


def table_lemma_e4(e4: LemmaE4) -> pd.DataFrame:
    """The measured eigenvalues with the two gaps relative to lambda_max(G) (both >= 0 by the lemma).

    Args:
        e4: :func:`measure_lemma_e4` output.

    Returns:
        Indexed by data set: n, d, the four eigenvalues, ``min gap`` = (lambda_min(M) - lambda_min(G)) / lambda_max(G),
        ``max gap`` = (lambda_max(G) - lambda_max(M)) / lambda_max(G), ``min angle (deg)``.
    """
    f = e4.frame.set_index("dataset")
    return pd.DataFrame({"n": f.n, "d": f.d, "λmin(G)": f.lambda_min_G, "λmin(M)": f.lambda_min_M,
                         "λmax(G)": f.lambda_max_G, "λmax(M)": f.lambda_max_M,
                         "min gap": (f.lambda_min_M - f.lambda_min_G) / f.lambda_max_G,
                         "max gap": (f.lambda_max_G - f.lambda_max_M) / f.lambda_max_G,
                         "min angle (deg)": f.min_angle_deg})


def check_lemma_e4(e4: LemmaE4) -> Check:
    """[LH] Lemma E.4: contracting the Gram matrix with the ReLU gates of a random layer gives M with
    lambda_min(M) >= lambda_min(G) and lambda_max(M) <= lambda_max(G), strictly for non-degenerate data.

    Measured at the lemma's limit (infinite width, M = G o P_1, exact) on every data set of the chapter
    (:func:`measure_lemma_e4`); gaps relative to lambda_max(G) (:func:`table_lemma_e4`). Rule, with
    tol = :data:`~lib.chapters.conditioning.lemma_e4.E4_TOL`:

    * "not reproduced" if on some data set either gap is below -tol (an inequality fails beyond rounding);
    * "reproduced" if both gaps exceed tol on every non-degenerate data set (no parallel pair: smallest input
      angle > 0) and are >= -tol on the degenerate ones;
    * "reproduced with caveat" if both inequalities hold but on a non-degenerate data set a gap is within tol of 0
      (strictness not resolved in float64), or every data set is degenerate (strictness not tested);
    * "not checked" if there is no data set.

    Args:
        e4: the measurement.

    Returns:
        The check, claim ``"[LH] Lemma E.4"``, one judged row per data set and inequality.
    """
    t = table_lemma_e4(e4)
    if t.empty:
        return Check("[LH] Lemma E.4", status="not checked", measured="no data set", caveat="no data set was run")
    fails, unresolved, judged = [], [], []
    for ds, r in t.iterrows():
        degenerate = r["min angle (deg)"] <= 0
        for key, words in (("min gap", "λmin(M) ≥ λmin(G)"), ("max gap", "λmax(M) ≤ λmax(G)")):
            gap = float(r[key])
            if gap < -E4_TOL:
                fails.append(f"{ds}: {words} fails by {-gap:.2g} λmax(G)")
            elif gap <= E4_TOL and not degenerate:
                unresolved.append(f"{ds}: {words} by {gap:.2g} λmax(G), within rounding")
            judged.append({"statement": f"{ds}: {words}", "paper": "strict" if not degenerate else "holds",
                           "this book": f"gap {number(gap)} λmax(G)",
                           "rule": f"gap > {E4_TOL:g} (strict), ≥ -{E4_TOL:g} (holds)",
                           "holds": gap > E4_TOL or (degenerate and gap >= -E4_TOL)})
    degenerate_all = bool((t["min angle (deg)"] <= 0).all())
    measured = (f"At infinite width (M = G o P_1, exact), on at most {e4.max_n} rows per data set: "
                + "; ".join(f"{ds} (n = {int(r.n)}): λmin {r['λmin(G)']:.3g} -> {r['λmin(M)']:.3g}, λmax "
                            f"{r['λmax(G)']:.4g} -> {r['λmax(M)']:.4g}, gaps {r['min gap']:.2g} and {r['max gap']:.2g} "
                            f"of λmax(G)" for ds, r in t.iterrows()) + ".")
    rows = tuple(judged)
    if fails:
        return Check("[LH] Lemma E.4", status="not reproduced", measured=measured + " Fails: " + "; ".join(fails) + ".",
                     rows=rows)
    caveats = unresolved + (["every data set has a parallel pair: strictness is not tested"] if degenerate_all else [])
    return Check("[LH] Lemma E.4", status="reproduced with caveat" if caveats else "reproduced", measured=measured,
                 rows=rows, caveat="; ".join(caveats))
