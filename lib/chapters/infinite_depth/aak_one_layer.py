"""[AAK] Sec 3.3, Thm H.1 and Thm H.5: the kernel of one hidden layer is non-singular on Assumption-A data.

``measure_one_layer_kernels`` computes, at infinite width, the kernel E_w[s(w.x_i) s(w.x_j)] of one layer on unit-norm
data whose Gram matrix is singular (more points than dimensions), for ReLU ([AAK] Thm H.1), for activations whose
Hermite expansion has infinitely many even and odd terms (the exponential and NormReLU, a shifted ReLU: Thm H.5) and,
as the counterfactual, the 2nd Hermite polynomial, whose finite expansion makes the kernel's rank at most
d(d + 1)/2. The ``check_*`` functions judge the smallest eigenvalues.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from lib import theory
from lib.activations import Activation, aak_activation
from lib.book.results import Check
from lib.chapters.infinite_depth.numerics import not_checked
from lib.data.datasets import gaussian_data, load_digits_subset

__all__ = ["H5_PREMISE", "H5_CONTROL", "OneLayerKernels", "measure_one_layer_kernels", "LAMBDA_RTOL", "DELTA_MIN",
           "check_thm_h1", "check_assumption_b", "check_thm_h5"]

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
    """

    frame: pd.DataFrame
    digits_n: int
    gauss_n: int
    gauss_dim: int


def _parities(act: Activation) -> tuple[int, int]:
    a = theory.hermite_coefficients(act, HERMITE_DEGREES + 1, normalize=False)[2:]
    nz = np.abs(a) > 1e-12
    deg = np.arange(2, HERMITE_DEGREES + 1)
    return int(nz[deg % 2 == 0].sum()), int(nz[deg % 2 == 1].sum())


def _kernel(act: Activation, G: np.ndarray) -> np.ndarray:
    """E_w[s(w.x_i) s(w.x_j)] for unit-norm x (the Gram matrix G), w ~ N(0, I): the dual kernel, no factor c."""
    n = G.shape[0]
    iu = np.triu_indices(n, 1)
    K = np.empty((n, n))
    K[iu] = theory.dual_expectations(act, np.arccos(np.clip(G[iu], -1.0, 1.0)))[0]
    K[(iu[1], iu[0])] = K[iu]
    K[np.diag_indices(n)] = theory.dual_expectations(act, np.zeros(1))[0][0]
    return K


def _extremes(K: np.ndarray) -> tuple[float, float]:
    e = np.linalg.eigvalsh(K)  # n <= a few hundred here: the full symmetric eigensolver, exact to n eps lambda_max
    return float(e[0]), float(e[-1])


def measure_one_layer_kernels(cfg) -> OneLayerKernels:
    """Infinite-width one-layer kernels on unit-norm digits and Gaussian points with singular Gram matrices.

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
            lam = _extremes(_kernel(act, G))
            rows.append(dict(base, activation=act_name, role=role, lam_min=lam[0], lam_max=lam[1],
                             bound=theory.hadamard_power_bound(G, relu_a2) if role == "Thm H.1" else np.nan,
                             rank_bound=d * (d + 1) / 2 if role == "control" else np.nan,
                             **dict(zip(("even", "odd"), _parities(act)))))
    return OneLayerKernels(pd.DataFrame(rows), int(cfg.aak_one_layer_n), int(cfg.aak_n), int(cfg.gauss_dim))


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


def check_thm_h1(st: OneLayerKernels) -> Check:
    """[AAK] Thm H.1: on Assumption-A data one ReLU layer's feature Gram matrix has lambda_min bounded below.

    Measurement (infinite width, the limit of the theorem's m -> infinity): lambda_min of E_w[relu(w.x_i)
    relu(w.x_j)] on unit-norm data with more points than dimensions (the input Gram matrix is singular), beside this
    book's certified lower bound :func:`lib.theory.hadamard_power_bound` (the text of the paper's bound is not
    reproduced here: its exponents of n and delta are the paper's). Rule per data set with delta >
    :data:`~lib.chapters.infinite_depth.aak_one_layer.DELTA_MIN` (Assumption A): holds if lambda_min / lambda_max >
    :data:`~lib.chapters.infinite_depth.aak_one_layer.LAMBDA_RTOL` (1e-10, rounding) and lambda_min is at least the
    certified bound; "reproduced" if every data set holds, "not reproduced" otherwise; "not checked" when no data set
    meets Assumption A.

    Args:
        st: the data of :func:`lib.chapters.infinite_depth.aak_one_layer.measure_one_layer_kernels`.

    Returns:
        The verdict, one judged row per data set.
    """
    f = st.frame[st.frame.role == "Thm H.1"]
    ok_data = _premise(f)
    if ok_data.empty:
        return not_checked("[AAK] Thm H.1", "No data set of the run meets Assumption A (repeated or antipodal "
                           "points).", "Assumption A fails (delta = 0)")
    holds = [bool(_rel(r) > LAMBDA_RTOL and r.lam_min >= r.bound * (1 - 1e-9)) for r in ok_data.itertuples()]
    rule = f"lambda_min / lambda_max > {LAMBDA_RTOL:g} and lambda_min >= this book's certified bound"
    rows = tuple({"statement": f"lambda_min of one ReLU layer's Gram matrix, {_points(r)} (d = {r.d})",
                  "paper": "positive, bounded below in terms of n and delta",
                  "this book": f"{r.lam_min:.3g} (lambda_max {r.lam_max:.3g}; bound {r.bound:.2g})", "rule": rule,
                  "holds": h} for r, h in zip(ok_data.itertuples(), holds))
    return Check(
        "[AAK] Thm H.1", status="reproduced" if all(holds) else "not reproduced", rows=rows,
        measured="Infinite-width Gram matrix of one ReLU layer (no factor 2): " + "; ".join(
            f"{_points(r)} in d = {r.d} (delta = {r.delta:.3g}, input lambda_min {r.input_min:.1e}): "
            f"lambda_min {r.lam_min:.3g}, lambda_min / lambda_max {_rel(r):.2e}, this book's certified lower bound "
            f"{r.bound:.2g}" for r in ok_data.itertuples()) + ".")


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
