"""[AAK] Sec 3.3, Thm H.1 and Thm H.5: the kernel of one hidden layer is non-singular on Assumption-A data.

``measure_one_layer_kernels`` computes, at infinite width, the kernel E_w[s(w.x_i) s(w.x_j)] of one layer on unit-norm
data whose Gram matrix is singular (more points than dimensions), for ReLU ([AAK] Thm H.1), for activations whose
Hermite expansion has infinitely many even and odd terms (the exponential and NormReLU, a shifted ReLU: Thm H.5) and,
as the counterfactual, the 2nd Hermite polynomial, whose finite expansion makes the kernel's rank at most
d(d + 1)/2; and, for Thm H.1's own statement, the Gram matrix of m one-layer ReLU features at finite widths m over
seeds (``measure_h1_widths``). The ``check_*`` functions judge the smallest eigenvalues.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from lib import theory
from lib.activations import Activation, aak_activation
from lib.book.results import Check
from lib.chapters.infinite_depth.numerics import not_checked
from lib.data.datasets import gaussian_data, load_digits_subset

__all__ = ["H5_PREMISE", "H5_CONTROL", "OneLayerKernels", "measure_one_layer_kernels", "measure_h1_widths",
           "LAMBDA_RTOL", "DELTA_MIN", "H1_HIGH_PROB", "H1_MOST", "check_thm_h1", "check_assumption_b", "check_thm_h5"]

#: Activations whose Hermite expansion has infinitely many non-zero even and odd coefficients ([AAK] Thm H.5) -- e^z
#: (a_k = e^(1/2) / sqrt(k!)) and NormReLU, a ReLU shifted to max(z, b) with b != 0.
H5_PREMISE = ("exp", "normrelu")

#: The counterfactual of Thm H.5: the 2nd Hermite polynomial, a finite expansion whose kernel rho^2 has rank at most
#: d(d + 1)/2 (the dimension of the symmetric d x d matrices).
H5_CONTROL = "hermite2"

#: Hermite degrees whose coefficients the study lists (the premise's "infinitely many" cannot be computed; the first
#: degrees show which parities are present).
HERMITE_DEGREES = 12

#: Hermite terms of ReLU in this book's lower bound (terms beyond are left out, which keeps it a lower bound).
BOUND_TERMS = 400



@dataclass(frozen=True, eq=False)
class OneLayerKernels:
    """Infinite-width kernels of one hidden layer on Assumption-A data ([AAK] Sec 3.3, Thm H.1, H.5), with settings.

    Attributes:
        frame: one row per data set and activation: ``data``, ``n``, ``d``, ``delta`` (1 - the largest ``|<x_i,
            x_j>|``, i != j: Assumption A holds when it is positive), ``input_min``, ``input_max`` (extreme eigenvalues
            of the Gram matrix G), ``activation``, ``role`` (``"Thm H.1"``, ``"premise"`` or ``"control"``),
            ``lam_min``, ``lam_max`` (of the kernel E_w[s(w.x_i) s(w.x_j)]; ReLU's without the factor c = 2, as the
            theorem's features have it), ``bound`` (this book's certified lower bound on ReLU's lambda_min,
            :func:`lib.theory.hadamard_power_bound`; NaN otherwise), ``rank_bound`` (d(d + 1)/2 for the control, NaN
            otherwise), ``even``, ``odd`` (non-zero even and odd Hermite coefficients of degrees 2 to 12).
        digits_n: the number of digits.
        gauss_n: the number of Gaussian points.
        gauss_dim: their dimension.
        finite: Thm H.1 at finite width (:func:`measure_h1_widths`): one row per data set, width m and seed, columns
            ``data``, ``n``, ``delta``, ``width``, ``seed``, ``lam_min`` (of the m-feature Gram matrix), ``bound``
            and ``lam_inf`` (the certified bound and lambda_min of the infinite-width kernel); empty when not run.
        seeds: the seeds per width of ``finite``.
    """

    frame: pd.DataFrame
    digits_n: int
    gauss_n: int
    gauss_dim: int
    finite: pd.DataFrame = field(default_factory=pd.DataFrame)
    seeds: int = 0


def _parities(act: Activation) -> tuple[int, int]:
    a = theory.hermite_coefficients(act, HERMITE_DEGREES + 1, normalize=False)[2:]
    nz = np.abs(a) > 1e-12
    deg = np.arange(2, HERMITE_DEGREES + 1)
    return int(nz[deg % 2 == 0].sum()), int(nz[deg % 2 == 1].sum())


def _extremes(K: np.ndarray) -> tuple[float, float]:
    e = np.linalg.eigvalsh(K)  # n <= a few hundred here: the full symmetric eigensolver, exact to n eps lambda_max
    return float(e[0]), float(e[-1])


def measure_one_layer_kernels(cfg) -> OneLayerKernels:
    """Infinite-width one-layer kernels (:func:`lib.theory.dual_kernel_matrix`) on unit-norm digits and Gaussian
    points with singular Gram matrices.

    Args:
        cfg: the chapter's parameters (:data:`lib.chapters.infinite_depth.spec.SPEC`); read: ``aak_one_layer_n``
            (digits, seed 1; more than 61 makes their Gram matrix singular), ``aak_n`` and ``gauss_dim`` (Gaussian
            points, seed 0, the points of the chapter's kappa study).

    Returns:
        An :class:`lib.chapters.infinite_depth.aak_one_layer.OneLayerKernels`.
    """
    data = {"digits": load_digits_subset(int(cfg.aak_one_layer_n), seed=1, unit_norm=True),
            "Gaussian": gaussian_data(int(cfg.aak_n), int(cfg.gauss_dim), seed=0, unit_norm=True)}
    relu_a2 = theory.hermite_coefficients("relu", BOUND_TERMS, normalize=False) ** 2
    rows = []
    for name, X in data.items():
        G = X @ X.T
        G[np.diag_indices_from(G)] = 1.0
        n, d = X.shape
        delta = 1.0 - float(np.abs(G - np.eye(n)).max())
        base = dict(data=name, n=n, d=d, delta=delta, **dict(zip(("input_min", "input_max"), _extremes(G))))
        for act_name, role in (("relu", "Thm H.1"), *((a, "premise") for a in H5_PREMISE), (H5_CONTROL, "control")):
            act = aak_activation(act_name)
            lam = _extremes(theory.dual_kernel_matrix(act, G))
            rows.append(dict(base, activation=act_name, role=role, lam_min=lam[0], lam_max=lam[1],
                             bound=theory.hadamard_power_bound(G, relu_a2) if role == "Thm H.1" else np.nan,
                             rank_bound=d * (d + 1) / 2 if role == "control" else np.nan,
                             **dict(zip(("even", "odd"), _parities(act)))))
    frame = pd.DataFrame(rows)
    return OneLayerKernels(frame, int(cfg.aak_one_layer_n), int(cfg.aak_n), int(cfg.gauss_dim),
                           measure_h1_widths(data, frame[frame.role == "Thm H.1"], cfg.aak_h1_widths, cfg.aak_h1_seeds),
                           int(cfg.aak_h1_seeds))


def measure_h1_widths(data: dict, relu_rows: pd.DataFrame, widths, seeds: int) -> pd.DataFrame:
    """[AAK] Thm H.1 at finite width: lambda_min of the Gram matrix Phi^T Phi of m one-layer ReLU features.

    The theorem's features: ``phi(x) = m^(-1/2) (relu(w_r . x))_{r <= m}``, w_r ~ N(0, I_d) i.i.d. (no factor 2), so
    that ``(Phi^T Phi)_ij -> E_w[relu(w.x_i) relu(w.x_j)]`` as m grows. One weight draw per (data set, width, seed),
    ``numpy.random.default_rng((seed, m))``; float64 and the full symmetric eigensolver (n is at most a few hundred).

    Args:
        data: data set name -> unit-norm inputs (n, d).
        relu_rows: the ReLU rows of :class:`OneLayerKernels`'s ``frame`` (``data``, ``n``, ``delta``, ``bound``,
            ``lam_min``), for the bound and the infinite-width value beside each measurement.
        widths: the widths m.
        seeds: weight draws per width.

    Returns:
        The frame of :attr:`OneLayerKernels.finite`.
    """
    rows = []
    for r in relu_rows.itertuples():
        X = data[r.data]
        for m in widths:
            for s in range(int(seeds)):
                W = np.random.default_rng((s, int(m))).standard_normal((int(m), X.shape[1]))
                Phi = np.maximum(W @ X.T, 0.0) / np.sqrt(m)
                rows.append(dict(data=r.data, n=r.n, delta=r.delta, width=int(m), seed=s,
                                 lam_min=float(np.linalg.eigvalsh(Phi.T @ Phi)[0]), bound=r.bound, lam_inf=r.lam_min))
    return pd.DataFrame(rows)


#: lambda_min / lambda_max at or below this counts as singular: eigenvalues of an n x n kernel with entries exact to
#: about 1e-13 are exact to about n 1e-13 relative (1e-11 for n = 100), while the non-singular kernels here have
#: lambda_min / lambda_max above 1e-5.
LAMBDA_RTOL = 1e-10

#: Assumption A needs 1 - max ``|<x_i, x_j>|`` > 0; at or below this the data have (numerically) repeated or antipodal
#: points and the premise fails: 1e-9 is far above rounding (1e-16) and far below the data here (delta >= 0.02).
DELTA_MIN = 1e-9


def _points(r) -> str:
    return f"{r.n} digits" if r.data == "digits" else f"{r.n} {r.data} points"


def _rel(r) -> float:
    return r.lam_min / r.lam_max


def _premise(f: pd.DataFrame) -> pd.DataFrame:
    return f[f.delta > DELTA_MIN]


#: The share of seeds above the bound at the largest width that counts as "with high probability" ([AAK] Thm H.1):
#: 9 draws in 10, or more.
H1_HIGH_PROB = 0.9
#: Below this share of seeds above the bound at the largest width, the bound holds in fewer than half the draws.
H1_MOST = 0.5


def _h1_fractions(g: pd.DataFrame) -> pd.Series:
    """Per width, the share of seeds whose lambda_min(Phi^T Phi) is at least the bound."""
    return g.assign(above=g.lam_min >= g.bound).groupby("width").above.mean()


def check_thm_h1(st: OneLayerKernels) -> Check:
    """[AAK] Thm H.1: at finite width m, the Gram matrix of m one-layer ReLU features has lambda_min bounded below,
    with high probability, once m is large enough.

    The paper: "Let x_1, ..., x_n be a set of vectors in R^d such that each x_i is a unit length vector and for each
    i != j, it holds that ``|<x_i, x_j>|`` <= 1 - delta. Let w_1, ..., w_m be vectors drawn i.i.d. from N(0, I) and consider
    the feature mapping phi(x) = m^(-1/2) (sigma(w_r . x))_r where sigma is the (un-normalized) relu activation. Let
    Phi be the corresponding data matrix ... There exists a universal constant C, such that if m >= C poly(n, 1/delta),
    then w.p. at least 1 - (small), we have that lambda_min(Phi^T Phi) >= (a positive quantity depending on n and
    delta)." (The text this book has lost the formulas of the width and of the bound.)

    Measurement (:func:`measure_h1_widths`): lambda_min(Phi^T Phi) over seeds at every width of the run, on each data
    set that meets Assumption A (delta > :data:`~lib.chapters.infinite_depth.aak_one_layer.DELTA_MIN`), against this
    book's certified lower bound b on the infinite-width kernel's lambda_min (:func:`lib.theory.hadamard_power_bound`,
    a positive quantity set by the data's Gram matrix, the stand-in for the paper's lost one; lambda_min(Phi^T Phi)
    tends to the infinite-width value >= b). The share f(m) of seeds with lambda_min >= b is the probability the
    theorem speaks of. Widths m < n are below the theorem's condition (Phi^T Phi has rank at most m < n) and are
    reported only. Rule per data set, on the judged widths (m >= n):

    * "reproduced" if f >= :data:`~lib.chapters.infinite_depth.aak_one_layer.H1_HIGH_PROB` at the largest width and
      no smaller width had a larger share (the probability rises with m);
    * "reproduced with caveat" if f >= H1_HIGH_PROB at the largest width but a smaller width had more, or if
      :data:`~lib.chapters.infinite_depth.aak_one_layer.H1_MOST` <= f < H1_HIGH_PROB (the bound holds in most draws,
      not yet with high probability);
    * "inconclusive" if f < H1_MOST at the largest width but rose from the smallest judged width (the width the
      theorem needs is not reached), or if no width is judged;
    * "not reproduced" if f < H1_MOST at the largest width and did not rise (more width does not bring the bound).

    The least favourable data set decides; "not checked" when no data set meets Assumption A, when its bound b is 0
    (vacuous: every lambda_min >= 0 meets it) or when no finite width ran.

    Args:
        st: the data of :func:`lib.chapters.infinite_depth.aak_one_layer.measure_one_layer_kernels`.

    Returns:
        The verdict, one judged row per data set.
    """
    f = st.finite
    if f.empty:
        return not_checked("[AAK] Thm H.1", "No finite-width feature matrix was drawn.", "no width m ran")
    f = f[f.delta > DELTA_MIN]
    if f.empty:
        return not_checked("[AAK] Thm H.1", "No data set of the run meets Assumption A (repeated or antipodal "
                           "points).", "Assumption A fails (delta = 0)")
    f = f[f.bound > 0]
    if f.empty:
        return not_checked("[AAK] Thm H.1", "This book's certified bound is 0 on every data set of the run.",
                           "the bound is vacuous (0: every lambda_min >= 0 meets it)")
    order = ("not reproduced", "inconclusive", "reproduced with caveat", "reproduced")
    statuses, rows, lines, caveats = [], [], [], []
    for name, g in f.groupby("data", sort=False):
        n = int(g.n.iloc[0])
        frac = _h1_fractions(g)
        judged = frac[frac.index >= n]
        shown = ", ".join(f"{v:.0%} (m = {m:,})" for m, v in frac.items())
        med = g[g.width == g.width.max()].lam_min.median() / float(g.lam_inf.iloc[0])
        if judged.empty:
            status = "inconclusive"
            caveats.append(f"{name}: every width is below n = {n}")
        else:
            last, first, best = float(judged.iloc[-1]), float(judged.iloc[0]), float(judged.max())
            if last >= H1_HIGH_PROB and last >= best:
                status = "reproduced"
            elif last >= H1_HIGH_PROB:
                status = "reproduced with caveat"
                caveats.append(f"{name}: a smaller width had more seeds above the bound ({best:.0%})")
            elif last >= H1_MOST:
                status = "reproduced with caveat"
                caveats.append(f"{name}: above the bound in {last:.0%} of the draws at the largest width, not yet "
                               f"{H1_HIGH_PROB:.0%}")
            elif last > first:
                status = "inconclusive"
                caveats.append(f"{name}: the share above the bound still rises ({first:.0%} -> {last:.0%}): the width "
                               "the theorem needs is not reached")
            else:
                status = "not reproduced"
        statuses.append(status)
        rows.append({"statement": f"{name} (n = {n}, delta = {g.delta.iloc[0]:.3g}): share of {st.seeds} seeds with "
                                  f"lambda_min(Phi^T Phi) >= b = {g.bound.iloc[0]:.2g}, against m",
                     "paper": "with high probability for m >= C poly(n, 1/delta)", "this book": shown,
                     "rule": f">= {H1_HIGH_PROB:.0%} at the largest m >= n, the most of any width",
                     "holds": None if status == "inconclusive" else status != "not reproduced"})
        lines.append(f"{name} (n = {n}, delta = {g.delta.iloc[0]:.3g}, bound b = {g.bound.iloc[0]:.2g}, infinite-width "
                     f"lambda_min {float(g.lam_inf.iloc[0]):.3g}): share of seeds with lambda_min >= b {shown}; at "
                     f"m = {int(g.width.max()):,} the median lambda_min is {med:.3f} of the infinite-width value")
    status = min(statuses, key=order.index)
    return Check("[AAK] Thm H.1", status=status, caveat="; ".join(caveats) if status != "reproduced" else "",
                 rows=tuple(rows),
                 measured=f"Gram matrix of m one-layer ReLU features, {st.seeds} seeds per width (widths below n are "
                 "below the theorem's condition, rank at most m): " + "; ".join(lines) + ".")


def check_assumption_b(st: OneLayerKernels) -> Check:
    """[AAK] Sec 3.3: one ReLU layer turns Assumption-A data into Assumption-B data (lambda_min of the Gram matrix of
    the unit-norm representations bounded away from 0).

    Measurement: lambda_min of the input Gram matrix G and of the representations' Gram matrix 2 E_w[relu relu]
    (unit diagonal with c = 2), at infinite width. Rule: among the data sets that meet Assumption A (delta >
    :data:`~lib.chapters.infinite_depth.aak_one_layer.DELTA_MIN`) but not Assumption B (the input's lambda_min /
    lambda_max at most :data:`~lib.chapters.infinite_depth.aak_one_layer.LAMBDA_RTOL`), "reproduced" if every one has
    representations with lambda_min / lambda_max above it, "not reproduced" otherwise; "not checked" when no data set
    is of that kind (nothing to turn).

    Args:
        st: the data of :func:`lib.chapters.infinite_depth.aak_one_layer.measure_one_layer_kernels`.

    Returns:
        The verdict.
    """
    f = _premise(st.frame[st.frame.role == "Thm H.1"])
    turn = f[f.input_min / f.input_max <= LAMBDA_RTOL]
    if turn.empty:
        return not_checked("[AAK] Sec 3.3", "Every data set of the run either fails Assumption A or already meets "
                           "Assumption B.", "no data set meets Assumption A without Assumption B")
    ok = [bool(_rel(r) > LAMBDA_RTOL) for r in turn.itertuples()]
    return Check(
        "[AAK] Sec 3.3", status="reproduced" if all(ok) else "not reproduced",
        measured="Smallest eigenvalue of the Gram matrix before and after one ReLU layer (unit-norm representations): "
        + "; ".join(f"{_points(r)} in d = {r.d}: {r.input_min:.1e} (singular; delta = {r.delta:.3g}) -> "
                    f"{2 * r.lam_min:.3g}, so Assumption B holds with delta' = {2 * r.lam_min:.3g}"
                    if h else f"{_points(r)}: {r.input_min:.1e} -> {2 * r.lam_min:.1e} (still singular)"
                    for r, h in zip(turn.itertuples(), ok)) + ".")


def check_thm_h5(st: OneLayerKernels) -> Check:
    """[AAK] Thm H.5: infinitely many non-zero even and odd Hermite coefficients make one layer's kernel
    non-singular on Assumption-A data.

    Measurement: lambda_min / lambda_max of E_w[s(w.x_i) s(w.x_j)] at infinite width, for the activations of
    :data:`~lib.chapters.infinite_depth.aak_one_layer.H5_PREMISE` (e^z and NormReLU) and the control, the 2nd Hermite
    polynomial, whose kernel has rank at most d(d + 1)/2, on the data sets that meet Assumption A (delta >
    :data:`~lib.chapters.infinite_depth.aak_one_layer.DELTA_MIN`). A data set tells the premise's role when the
    control's kernel is singular on it (ratio at most :data:`~lib.chapters.infinite_depth.aak_one_layer.LAMBDA_RTOL`;
    more points than its rank). Rule: "not reproduced" if a premise activation's kernel is singular on some data set;
    "inconclusive" if the control is singular on none (too few points for a finite expansion to be singular: the data
    cannot tell non-singularity from the premise); "reproduced" otherwise; "not checked" without a data set meeting
    Assumption A or a premise activation.

    Args:
        st: the data of :func:`lib.chapters.infinite_depth.aak_one_layer.measure_one_layer_kernels`.

    Returns:
        The verdict.
    """
    f = _premise(st.frame)
    prem, ctrl = f[f.role == "premise"], f[f.role == "control"]
    if prem.empty:
        return not_checked("[AAK] Thm H.5", "No data set meets Assumption A, or no activation of the premise ran.",
                           "Assumption A fails or no activation with infinitely many even and odd Hermite terms")
    singular = prem[prem.lam_min / prem.lam_max <= LAMBDA_RTOL]
    telling = ctrl[ctrl.lam_min / ctrl.lam_max <= LAMBDA_RTOL]  # data sets where a finite expansion is singular
    caveat = ""
    if not singular.empty:
        status = "not reproduced"
    elif telling.empty:
        status = "inconclusive"
        caveat = ("the control (a finite Hermite expansion) is singular on no data set: too few points for the data "
                  "to tell non-singularity from the premise")
    else:
        status = "reproduced"
    return Check(
        "[AAK] Thm H.5", status=status, caveat=caveat,
        measured="lambda_min / lambda_max of one layer's infinite-width kernel: " + "; ".join(
            f"{r.activation} on {_points(r)} in d = {r.d}: {_rel(r):.2e} (non-zero Hermite coefficients of "
            f"degrees 2-{HERMITE_DEGREES}: {r.even} even, {r.odd} odd)" for r in prem.itertuples())
        + "".join(f"; control {r.activation} on {_points(r)}: {_rel(r):.1e} (its kernel has rank at most "
                  f"{int(r.rank_bound)})" for r in ctrl.itertuples()) + ".")
