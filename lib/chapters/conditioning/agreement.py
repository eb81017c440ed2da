"""Chapter 03, "Agreement with the authors' code": their network (a port, :mod:`lib.finite.authors`) against
ours on the same weights, after the exact scaling 2/d (ReLU) or 2^(L+1)/d (linear) ([LH] Sec. 4.1)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from lib.book.spec import reads_config
from lib.book.results import Check
from lib.book.wording import ints
from lib.finite.authors import authors_kappa, authors_min_angle, authors_ntk, from_mlp, ntk_scale
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.progress import tqdm
from lib.spectra import condition_number, min_pairwise_angle
from lib.validation import check_seed

__all__ = ["AuthorsAgreement", "measure_authors_agreement", "check_authors_agreement", "table_authors_agreement",
           "KERNEL_RTOL", "ANGLE_ATOL"]

#: kernels and finite kappas must agree to this relative error (float64 rounding of two summation orders,
#: amplified by kappa for the condition number)
KERNEL_RTOL = 1e-10
#: angles must agree to this many radians (arccos near 0 turns 1e-16 cosine rounding into ~1e-8 rad)
ANGLE_ATOL = 1e-6


@dataclass(frozen=True, eq=False)
class AuthorsAgreement:
    """Their NTK, kappa and angle against ours (:func:`measure_authors_agreement`), with the settings compared.

    Attributes:
        frame: one row per (dataset, depth, activation) (columns in :func:`measure_authors_agreement`).
        depths: the sorted depths L.
        width: hidden width of the networks.
        n: samples per data set (the first ``n``).
    """

    frame: pd.DataFrame
    depths: tuple
    width: int
    n: int

    def text(self) -> str:
        """What was compared, in words (for the prose)."""
        return f"the first {self.n} samples of each data set, width m = {self.width}, depths L = {ints(self.depths, ranges=False)}"


@reads_config(depths="agreement_depths", width="agreement_width", n="agreement_n")
def measure_authors_agreement(data: dict, depths: Sequence[int], width: int, n: int = 40, seed: int = 0,
                              progress: bool = True) -> AuthorsAgreement:
    """Their NTK, kappa and min angle against ours on the same weights, per (data set, depth, activation).

    For each data set, its first ``n`` samples; one network per (depth, activation) of :class:`lib.finite.mlp.MLP`
    and its copy in the authors' form (:func:`lib.finite.authors.from_mlp`); their kernel by their
    ``functorch`` recipe (:func:`lib.finite.authors.authors_ntk`).

    Args:
        data: arrays by name.
        depths: depths L (sorted, duplicates dropped).
        width: hidden width (their Jacobians hold n x (number of weights) numbers, so keep it modest).
        n: samples per data set.
        seed: weight seed.
        progress: show a progress bar.

    Returns:
        The comparison; its frame has one row per (dataset, depth, activation): ``scale`` (their K / ours), ``kernel_rel_err`` (max
        ``|K_theirs / scale - K_ours|`` over max ``|K_ours|``), ``kappa_ours``, ``kappa_theirs`` (their eig
        recipe on their kernel; scale-free), ``kappa_rel_err`` (NaN where ours is infinite),
        ``angle_ours``, ``angle_theirs`` (rad), ``angle_err``.
    """
    seed = check_seed(seed)
    rows, depths = [], sorted(set(int(L) for L in depths))
    jobs = [(ds, int(L), act) for ds in data for L in depths for act in ("relu", "linear")]
    for ds, L, act in tqdm(jobs, desc="authors' code", disable=not progress):
        X = data[ds][:n]
        ours = MLP(X.shape[1], width, L, activation=act, seed=seed)
        K, Ka = empirical_ntk(ours, X), authors_ntk(from_mlp(ours), X)
        s = ntk_scale(X.shape[1], L, act)
        k_o, k_t = condition_number(K), authors_kappa(Ka)
        a_o, a_t = min_pairwise_angle(K), authors_min_angle(Ka)
        rows.append(dict(dataset=ds, depth=L, activation=act, n=X.shape[0], d=X.shape[1], scale=s,
                         kernel_rel_err=float(np.max(np.abs(Ka / s - K)) / np.max(np.abs(K))),
                         kappa_ours=k_o, kappa_theirs=k_t,
                         kappa_rel_err=abs(k_t / k_o - 1) if math.isfinite(k_o) else math.nan,
                         angle_ours=a_o, angle_theirs=a_t, angle_err=abs(a_t - a_o)))
    return AuthorsAgreement(frame=pd.DataFrame(rows), depths=tuple(depths), width=int(width), n=int(n))


def check_authors_agreement(agreement: AuthorsAgreement) -> Check:
    """Our NTK, kappa and angle agree with the authors' code after the exact scaling ([LH] Sec. 4.1).

    Rule: "reproduced" if every kernel agrees to :data:`~lib.chapters.conditioning.agreement.KERNEL_RTOL` relative after dividing theirs by
    2/d (ReLU) or 2^(L+1)/d (linear), every finite kappa to :data:`~lib.chapters.conditioning.agreement.KERNEL_RTOL` relative, and every
    angle to :data:`~lib.chapters.conditioning.agreement.ANGLE_ATOL` rad (each at most the tolerance); otherwise "not reproduced" (a wrong
    scale, e.g. the ReLU factor used for a linear network, is off by O(1)). There is no caveat level: on the
    same weights the two codes compute the same numbers, equal to rounding or not. Where our kappa is infinite
    (singular kernel) their general-``eig`` kappa is reported, not compared: it is rounding noise (negative or
    huge).

    Args:
        agreement: the comparison of :func:`measure_authors_agreement`.

    Returns:
        The check (registry id "[LH] Fig 3", part "agreement with the authors' code"), with one judged row each for
        the kernels, the kappas and the angles.
    """
    table = agreement.frame
    fin = table[np.isfinite(table.kappa_ours)]
    sing = table[~np.isfinite(table.kappa_ours)]
    ok_kernel = bool((table.kernel_rel_err <= KERNEL_RTOL).all())
    ok_kappa = bool((fin.kappa_rel_err <= KERNEL_RTOL).all())
    ok_angle = bool((table.angle_err <= ANGLE_ATOL).all())
    ok = ok_kernel and ok_kappa and ok_angle
    same = "the same as ours after the exact scaling"
    rows = ({"statement": "their NTK against ours, largest relative difference", "paper": same,
             "this book": f"{table.kernel_rel_err.max():.1e}", "rule": f"≤ {KERNEL_RTOL:g} (rounding)",
             "holds": ok_kernel},
            {"statement": "their κ against ours (finite κ), largest relative difference", "paper": same,
             "this book": f"{fin.kappa_rel_err.max():.1e}" if len(fin) else "no finite κ",
             "rule": f"≤ {KERNEL_RTOL:g} (rounding)", "holds": ok_kappa if len(fin) else None},
            {"statement": "their φ_min against ours, largest difference (rad)", "paper": same,
             "this book": f"{table.angle_err.max():.1e}", "rule": f"≤ {ANGLE_ATOL:g} rad (arccos rounding)",
             "holds": ok_angle})
    sing_txt = (f" On the {len(sing)} singular kernels (kappa = inf in ours) their eig-based kappa is "
                f"{sing.kappa_theirs.min():.3g} to {sing.kappa_theirs.max():.3g}: a number, not inf."
                if len(sing) else "")
    return Check(
        "[LH] Fig 3", status="reproduced" if ok else "not reproduced", part="agreement with the authors' code",
        measured=f"{len(table)} networks (depths {sorted(table.depth.unique().tolist())}, ReLU and linear, "
        f"{table.dataset.nunique()} data sets): after the scaling, kernels agree to {table.kernel_rel_err.max():.1e} "
        f"relative (max), finite kappas to {fin.kappa_rel_err.max() if len(fin) else float('nan'):.1e}, angles to "
        f"{table.angle_err.max():.1e} rad." + sing_txt, rows=rows)


def table_authors_agreement(agreement: AuthorsAgreement):
    """The comparison's frame, styled for the page (errors in scientific notation, kappas and angles in full)."""
    return agreement.frame.style.format({
        "scale": "{:.4g}", "kernel_rel_err": "{:.1e}", "kappa_ours": "{:.6g}", "kappa_theirs": "{:.6g}",
        "kappa_rel_err": "{:.1e}", "angle_ours": "{:.6f}", "angle_theirs": "{:.6f}", "angle_err": "{:.1e}"})
