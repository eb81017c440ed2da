"""[AAK] App. D and I: correlations of inputs that are not of unit length.

* Lemma D.6: one layer of an odd activation never increases ``|rho|``, whatever the lengths
  (``measure_odd_correlations``, :func:`lib.theory.correlation_map`);
* Thm I.1 and Remark I.2: NormReLU's correlations decay for inputs of lengths 0.5 to 2 as for unit inputs
  (``measure_normrelu_lengths``, :func:`lib.theory.layer_kernels`).

The length map of App. D.1 and D.4 is :mod:`~lib.chapters.infinite_depth.aak_length_map`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from lib import theory
from lib.activations import aak_activation
from lib.book.results import Check
from lib.chapters.infinite_depth.numerics import decay_slope, deviation_text, not_checked, unit_diagonal
from lib.data.datasets import load_digits_subset

__all__ = ["D6_ODD", "D6_CONTROL", "OddCorrelations", "measure_odd_correlations", "NormReluLengths",
           "measure_normrelu_lengths", "D6_ATOL", "I1_MIN_RATIO", "D6_LENGTHS", "D6_RHOS", "I1_NORMS",
           "check_odd_correlations", "check_normrelu_lengths"]

#: Odd activations of Lemma D.6.
D6_ODD = ("tanh", "arctan", "sigmoid_centred")
#: The control of Lemma D.6, centred at unit length but not odd.
D6_CONTROL = "norm_relu"

#: The pairs of squared lengths of Lemma D.6's grid.
D6_LENGTHS = ((0.25, 0.25), (0.25, 1.0), (0.25, 4.0), (1.0, 4.0), (4.0, 4.0))
#: The correlations of Lemma D.6's grid.
D6_RHOS = (-0.9, -0.6, -0.3, 0.0, 0.3, 0.6, 0.9)

#: Norms of the three digits of the NormReLU study (Thm I.1).
I1_NORMS = (0.5, 1.0, 2.0)

@dataclass(frozen=True, eq=False)
class OddCorrelations:
    """One layer's correlation map at unequal lengths ([AAK] Lemma D.6), with its settings.

    Attributes:
        frame: columns activation, odd (bool), q1, q2, rho, rho_next.
    """

    frame: pd.DataFrame


def measure_odd_correlations(cfg=None) -> OddCorrelations:
    """rho' = corr(s(u), s(v)) for (u, v) of squared lengths q1, q2 and correlation rho (:data:`~lib.chapters.infinite_depth.aak_lengths.D6_LENGTHS`,
    :data:`~lib.chapters.infinite_depth.aak_lengths.D6_RHOS`), for the odd activations :data:`~lib.chapters.infinite_depth.aak_lengths.D6_ODD` and the control :data:`~lib.chapters.infinite_depth.aak_lengths.D6_CONTROL`.

    Args:
        cfg: unused (the grid is fixed); accepted so that every measurement of the chapter takes the parameters.

    Returns:
        An :class:`lib.chapters.infinite_depth.aak_lengths.OddCorrelations`.
    """
    pairs = np.array([(a, b, r) for a, b in D6_LENGTHS for r in D6_RHOS])
    q1, q2, rho = pairs.T
    rows = []
    for name in (*D6_ODD, D6_CONTROL):
        nxt = theory.correlation_map(aak_activation(name), rho, q1, q2)
        rows.append(pd.DataFrame(dict(activation=name, odd=name in D6_ODD, q1=q1, q2=q2, rho=rho, rho_next=nxt)))
    return OddCorrelations(pd.concat(rows, ignore_index=True))


#: The largest ``|rho'| - |rho|`` that counts as rounding (Lemma D.6): the per-pair quadrature is exact to about 1e-13
#: (measured excesses below 1e-16), while the non-odd control exceeds ``|rho|`` by 0.3.
D6_ATOL = 1e-10


def check_odd_correlations(oc: OddCorrelations) -> Check:
    """[AAK] Lemma D.6: for an odd activation, one layer never increases ``|rho|``, whatever the inputs' lengths.

    Measurement: the largest ``|rho'| - |rho|`` over the grid of squared lengths (0.25 to 4, equal and unequal) and
    correlations, per odd activation; the control (normalized ReLU, centred at unit length but not odd) is reported.
    Rule: "reproduced" if every odd activation's largest excess is at most
    :data:`~lib.chapters.infinite_depth.aak_lengths.D6_ATOL` (1e-10, quadrature rounding); "not reproduced"
    otherwise; "not checked" without an odd activation.

    Args:
        oc: the data of :func:`lib.chapters.infinite_depth.aak_lengths.measure_odd_correlations`.

    Returns:
        The verdict.
    """
    f = oc.frame.assign(excess=lambda d: d.rho_next.abs() - d.rho.abs())
    odd = f[f.odd]
    if odd.empty:
        return not_checked("[AAK] Lemma D.6", "No odd activation in this run.", "no odd activation")
    ex = odd.groupby("activation", sort=False).excess.max()
    ctrl = f[~f.odd].groupby("activation", sort=False).excess.max()
    return Check(
        "[AAK] Lemma D.6", status="reproduced" if bool((ex <= D6_ATOL).all()) else "not reproduced",
        measured=f"Largest |rho'| - |rho| over {odd.groupby('activation').size().iloc[0]} pairs of squared lengths "
        f"{', '.join(f'({a:g}, {b:g})' for a, b in D6_LENGTHS)} and correlations {min(D6_RHOS):g} to "
        f"{max(D6_RHOS):g}: " + ", ".join(f"{a} {deviation_text(v, 1e-12)}" for a, v in ex.items())
        + "".join(f"; the control {a}, not odd: {v:.3g}" for a, v in ctrl.items()) + ".")


@dataclass(frozen=True, eq=False)
class NormReluLengths:
    """NormReLU's correlations layer by layer for inputs of lengths 0.5 to 2 and for the same inputs at unit length
    ([AAK] Thm I.1), with the settings.

    Attributes:
        frame: columns depth, max_corr (largest ``|correlation|`` of the non-unit inputs), max_corr_unit (of the unit
            inputs), length_dev (max ``|Sigma_ii - 1|`` of the non-unit inputs).
        activation: the activation's name.
        norms: the input norms.
        depth: the deepest layer.
        mu: NormReLU's coefficient of non-linearity.
    """

    frame: pd.DataFrame
    activation: str
    norms: tuple
    depth: int
    mu: float


def measure_normrelu_lengths(cfg, activation: str = "normrelu") -> NormReluLengths:
    """The top-layer correlations of three digits scaled to the norms :data:`~lib.chapters.infinite_depth.aak_lengths.I1_NORMS` and at unit length.

    Args:
        cfg: the chapter's parameters (:data:`lib.chapters.infinite_depth.spec.SPEC`); read: ``aak_length_depth``.
        activation: a registry name (NormReLU for Thm I.1; plain ReLU is the tests' counterfactual).

    Returns:
        A :class:`lib.chapters.infinite_depth.aak_lengths.NormReluLengths`.
    """
    depth = int(cfg.aak_length_depth)
    X = load_digits_subset(len(I1_NORMS), seed=1, unit_norm=True)
    runs = {k: theory.layer_kernels(Y, depth, activation) for k, Y in
            (("non-unit", X * np.asarray(I1_NORMS)[:, None]), ("unit", X))}
    iu = np.triu_indices(len(I1_NORMS), 1)
    rows = [dict(depth=l, max_corr=float(np.abs(unit_diagonal(runs["non-unit"].sigma[l])[iu]).max()),
                 max_corr_unit=float(np.abs(unit_diagonal(runs["unit"].sigma[l])[iu]).max()),
                 length_dev=float(np.abs(np.diag(runs["non-unit"].sigma[l]) - 1).max()))
            for l in range(depth + 1)]
    return NormReluLengths(pd.DataFrame(rows), activation, I1_NORMS, depth,
                           theory.coefficient_of_nonlinearity(activation))


#: Smallest ratio of the per-layer slope of log max ``|rho|`` of the non-unit inputs to that of the unit inputs, over the
#: second half of the depths, that counts as the unit-length exponential decay ([AAK] Remark I.2): once the lengths
#: have settled both follow the same map, so the ratio tends to 1 (0.97 to 1.0 measured at depths 100 to 300); 0.8 is
#: the margin for lengths still settling. Below it (but decaying): "inconclusive", deeper needed.
I1_MIN_RATIO = 0.8


def check_normrelu_lengths(nl: NormReluLengths) -> Check:
    """[AAK] Thm I.1 (and Remark I.2): NormReLU's correlations decay for inputs not of unit length, exponentially
    in depth as for unit inputs.

    Measurement: the largest ``|correlation|`` of three digits of norms 0.5, 1, 2 layer by layer, and of the same digits
    at unit length; the per-layer slopes of ``log max |rho|`` over the second half of the depths
    (:func:`lib.chapters.infinite_depth.numerics.decay_slope`) and their ratio r (non-unit / unit). Rule: "not
    reproduced" if the largest correlation at the deepest layer is not below its value at the inputs (no decay);
    "reproduced" if r >= :data:`~lib.chapters.infinite_depth.aak_lengths.I1_MIN_RATIO` (0.8; the unit-length
    exponential rate); "inconclusive" otherwise (decaying, but more slowly than unit inputs at the same depths: the
    lengths have not settled, deeper needed); "not checked" if two inputs are parallel (correlation 1: the premise
    fails) or the unit-length correlations do not decay (no rate to compare with).

    Args:
        nl: the data of :func:`lib.chapters.infinite_depth.aak_lengths.measure_normrelu_lengths`.

    Returns:
        The verdict.
    """
    f = nl.frame
    first, last = f.iloc[0], f.iloc[-1]
    if first.max_corr >= 1 - 1e-12:
        return not_checked("[AAK] Thm I.1", "Two inputs are parallel.", "correlation 1: the premise fails")
    try:
        slope, L0, L1 = decay_slope(f.depth, f.max_corr, floor=1e-300)
        unit, _, _ = decay_slope(f.depth, f.max_corr_unit, floor=1e-300)
    except ValueError:
        return not_checked("[AAK] Thm I.1", "Fewer than 3 depths.", "too few layers to fit a rate")
    if not (unit < 0 and last.max_corr_unit < first.max_corr_unit * (1 - 1e-9)):
        return not_checked("[AAK] Thm I.1", f"The unit-length correlations of {nl.activation} do not decay.",
                           "no unit-length decay to compare with")
    r = slope / unit
    caveat = ""
    if not last.max_corr < first.max_corr:
        status = "not reproduced"
    elif r >= I1_MIN_RATIO:
        status = "reproduced"
    else:
        status = "inconclusive"
        caveat = f"the decay is slower than at unit length over layers {L0}-{L1}: deeper needed"
    lo, hi = min(nl.norms), max(nl.norms)
    return Check(
        "[AAK] Thm I.1", status=status, caveat=caveat,
        measured=f"{nl.activation} (mu = {nl.mu:.4g}), three digits of norms {lo:g} to {hi:g}: the largest "
        f"|correlation| goes from {first.max_corr:.3g} to {last.max_corr:.3g} at L = {int(last.depth)} (unit "
        f"inputs: {last.max_corr_unit:.3g}); lengths within {deviation_text(last.length_dev, 1e-12)} of 1; per-layer "
        f"slope of log max |rho| over layers {L0}-{L1}: {slope:.4g} against {unit:.4g} at unit length (ratio "
        f"{r:.3f}; log(1 - mu) = {math.log1p(-nl.mu):.4g}).")
