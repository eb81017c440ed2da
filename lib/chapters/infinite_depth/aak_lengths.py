"""[AAK] App. D and I: inputs that are not of unit length.

* Thm D.1 and App. D.4: the length map q -> c_s E[s(sqrt(q) z)^2] of convex-concave activations (leaky ReLU, SELU,
  the centred sigmoid, tanh, arctan) against ReLU shifted to max(z - s, 0), monotone but a counterexample
  (``measure_length_maps``, :func:`lib.theory.length_map`);
* Lemma D.6: one layer of an odd activation never increases ``|rho|``, whatever the lengths
  (``measure_odd_correlations``, :func:`lib.theory.correlation_map`);
* Thm I.1 and Remark I.2: NormReLU's correlations decay for inputs of lengths 0.5 to 2 as for unit inputs
  (``measure_normrelu_lengths``, :func:`lib.theory.layer_kernels`).
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

__all__ = ["D1_ACTIVATIONS", "D4_ACTIVATION", "D6_ODD", "D6_CONTROL", "LENGTH_Q0", "LengthMaps", "measure_length_maps",
           "OddCorrelations", "measure_odd_correlations", "NormReluLengths", "measure_normrelu_lengths",
           "GAMMA_TOL", "RATIO_FLOOR", "D1_TOL", "D4_AWAY", "D6_ATOL", "I1_MIN_RATIO", "D6_LENGTHS", "D6_RHOS", "I1_NORMS",
           "check_length_map", "check_shifted_relu", "check_odd_correlations", "check_normrelu_lengths"]

#: Activations of [AAK] App. D.4's list that meet Thm D.1's premise (non-decreasing, 0 at 0, concave on [0, inf),
#: convex on (-inf, 0]); sigmoid enters centred, sigmoid(z) - 1/2, since sigmoid(0) = 1/2.
D1_ACTIVATIONS = ("leaky_relu", "selu", "sigmoid_centred", "tanh", "arctan")

#: App. D.4's counterexample: ReLU shifted to max(z - s, 0), monotone but convex on [0, inf) near s.
D4_ACTIVATION = "shifted_relu"

#: Odd activations of Lemma D.6.
D6_ODD = ("tanh", "arctan", "sigmoid_centred")
#: The control of Lemma D.6, centred at unit length but not odd.
D6_CONTROL = "norm_relu"

#: Starting squared lengths of the length map (norms 0.5 to 2, as in the chapter's Thm 3.11 study).
LENGTH_Q0 = (0.25, 0.5, 0.9, 1.1, 2.0, 4.0)

#: The pairs of squared lengths of Lemma D.6's grid.
D6_LENGTHS = ((0.25, 0.25), (0.25, 1.0), (0.25, 4.0), (1.0, 4.0), (4.0, 4.0))
#: The correlations of Lemma D.6's grid.
D6_RHOS = (-0.9, -0.6, -0.3, 0.0, 0.3, 0.6, 0.9)

#: Norms of the three digits of the NormReLU study (Thm I.1).
I1_NORMS = (0.5, 1.0, 2.0)



@dataclass(frozen=True, eq=False)
class LengthMaps:
    """Iterates of the length map ([AAK] Thm D.1, App. D.4), with their settings.

    Attributes:
        frame: columns activation, role (``"Thm D.1"`` or ``"App D.4"``), q0, depth, q (NaN once the iterate
            left :data:`~lib.theory.nonlinearity.LENGTH_RANGE`: it collapsed or blew up).
        q0: the starting squared lengths.
        depth: the deepest layer.
    """

    frame: pd.DataFrame
    q0: tuple
    depth: int


def measure_length_maps(cfg) -> LengthMaps:
    """The length map of Thm D.1's activations and of App. D.4's shifted ReLU from the squared lengths
    :data:`~lib.chapters.infinite_depth.aak_lengths.LENGTH_Q0`.

    Args:
        cfg: the chapter's parameters (:data:`lib.chapters.infinite_depth.spec.SPEC`); read: ``aak_length_depth``.

    Returns:
        A :class:`lib.chapters.infinite_depth.aak_lengths.LengthMaps`.
    """
    depth = int(cfg.aak_length_depth)
    frames = []
    for name, role in (*((a, "Thm D.1") for a in D1_ACTIVATIONS), (D4_ACTIVATION, "App D.4")):
        q = theory.length_map(aak_activation(name), LENGTH_Q0, depth)
        frames.append(pd.DataFrame({"activation": name, "role": role,
                                    "q0": np.tile(LENGTH_Q0, depth + 1), "depth": np.repeat(np.arange(depth + 1),
                                                                                            len(LENGTH_Q0)),
                                    "q": q.ravel()}))
    return LengthMaps(pd.concat(frames, ignore_index=True), LENGTH_Q0, depth)


#: Deviations ``|q - 1|`` at or below this enter no ratio ``|q^(l+1) - 1| / |q^(l) - 1|``: the quadrature is exact to about
#: 1e-13, so a ratio of deviations above 1e-6 is exact to 1e-7, below :data:`~lib.chapters.infinite_depth.aak_lengths.GAMMA_TOL`.
RATIO_FLOOR = 1e-6

#: A per-layer ratio ``|q^(l+1) - 1| / |q^(l) - 1|`` above 1 + GAMMA_TOL moves a length away from 1 (Thm D.1 fails);
#: one within GAMMA_TOL of 1 keeps it (a positively homogeneous activation: q -> q exactly). 1e-6 is ten times the
#: ratio's error above :data:`~lib.chapters.infinite_depth.aak_lengths.RATIO_FLOOR`, and the contracting activations here have ratios below 0.97.
GAMMA_TOL = 1e-6

#: ``|q^(L) - 1|`` at the deepest layer at or below this counts as at the fixed point (the contraction is geometric, so
#: 100 layers reach it from every start here), as in the chapter's Thm 3.11 check.
D1_TOL = 1e-6

#: App. D.4: a start whose deviation from 1 grew by this factor at the deepest layer (or that collapsed to 0 or blew
#: up) shows the length map pushing lengths away from its fixed point; geometric divergence multiplies the deviation
#: by 1.13 per layer for the shift 0.1, so 100 layers go far beyond 2, while a converging map shrinks it.
D4_AWAY = 2.0


def _ratios(sub: pd.DataFrame) -> tuple[float, float]:
    """(largest per-layer ratio of deviations above the floor, largest final deviation) of one activation."""
    piv = sub.pivot(index="depth", columns="q0", values="q").to_numpy()
    dev = np.abs(piv - 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(dev[:-1] > RATIO_FLOOR, dev[1:] / dev[:-1], np.nan)
    gamma = float(np.nanmax(r)) if np.isfinite(r).any() else math.nan
    return gamma, float(np.nanmax(dev[-1])) if np.isfinite(dev[-1]).any() else math.inf


def check_length_map(lm: LengthMaps) -> Check:
    """[AAK] Thm D.1: for a non-decreasing activation, 0 at 0, concave on [0, inf) and convex on (-inf, 0], the length
    map brings every squared length to 1 geometrically, ``|q^(l) - 1| <= gamma^l |q^(0) - 1|``.

    Measurement: per activation of :data:`~lib.chapters.infinite_depth.aak_lengths.D1_ACTIVATIONS`, the largest
    per-layer ratio ``gamma_hat = |q^(l+1) - 1| / |q^(l) - 1|`` over every start and layer (deviations above
    :data:`~lib.chapters.infinite_depth.aak_lengths.RATIO_FLOOR`) and the largest ``|q^(L) - 1|`` at the deepest layer.
    Rule: "not reproduced" if some gamma_hat > 1 + :data:`~lib.chapters.infinite_depth.aak_lengths.GAMMA_TOL` (a
    length moved away from 1); "inconclusive" if some activation contracts (gamma_hat < 1 - GAMMA_TOL) but is not
    within :data:`~lib.chapters.infinite_depth.aak_lengths.D1_TOL` of 1 at the deepest layer (deeper needed);
    "reproduced with caveat" if some activation keeps every length (gamma_hat within GAMMA_TOL of 1: leaky ReLU is
    positively homogeneous, so its length map is the identity and gamma = 1, which the premise allows but which is no
    convergence); "reproduced" otherwise; "not checked" without an activation of the premise.

    Args:
        lm: the data of :func:`lib.chapters.infinite_depth.aak_lengths.measure_length_maps`.

    Returns:
        The verdict.
    """
    f = lm.frame[lm.frame.role == "Thm D.1"]
    if f.empty:
        return not_checked("[AAK] Thm D.1", "No convex-concave activation in this run.", "no activation of the premise")
    res = {a: _ratios(f[f.activation == a]) for a in f.activation.unique()}
    away = [a for a, (g, _) in res.items() if g > 1 + GAMMA_TOL]   # NaN: every start at 1 already, nothing moved
    kept = [a for a, (g, _) in res.items() if 1 - GAMMA_TOL <= g <= 1 + GAMMA_TOL]
    slow = [a for a, (g, d) in res.items() if g < 1 - GAMMA_TOL and d > D1_TOL]
    caveat = ""
    if away:
        status = "not reproduced"
    elif slow:
        status, caveat = "inconclusive", (f"{', '.join(slow)} still converge at depth {lm.depth}: deeper needed")
    elif kept:
        status = "reproduced with caveat"
        caveat = (f"{', '.join(kept)} {'keeps' if len(kept) == 1 else 'keep'} every length (gamma = 1: positively "
                  "homogeneous, the length map is the identity); the bound holds but there is no convergence")
    else:
        status = "reproduced"
    return Check(
        "[AAK] Thm D.1", status=status, caveat=caveat,
        measured=f"Length map from the squared lengths {', '.join(f'{q:g}' for q in lm.q0)} over {lm.depth} layers; "
        "largest per-layer ratio |q' - 1| / |q - 1| and largest |q - 1| at the deepest layer: " + "; ".join(
            f"{a} {g:.6g} and {deviation_text(d, 1e-12)}" for a, (g, d) in res.items()) + ".")


def check_shifted_relu(lm: LengthMaps) -> Check:
    """[AAK] App. D.4: monotonicity alone does not make the length map converge; ReLU with a little shift is a
    counterexample.

    Measurement: the length map of max(z - s, 0) (s = :data:`lib.activations.SHIFTED_RELU_SHIFT`, c_s so that q = 1
    is a fixed point) from the starts :data:`~lib.chapters.infinite_depth.aak_lengths.LENGTH_Q0`; per start the
    growth ``|q^(last) - 1| / |q^(0) - 1|`` at the last finite iterate (leaving :data:`~lib.theory.nonlinearity.LENGTH_RANGE`, a
    collapse or a blow-up, counts as moved away). Rule: "reproduced" (the counterexample stands) if some start's deviation grew by at least
    :data:`~lib.chapters.infinite_depth.aak_lengths.D4_AWAY` (2); "not reproduced" if every start ends within
    :data:`~lib.chapters.infinite_depth.aak_lengths.D1_TOL` of 1 (the map converges after all); "inconclusive"
    otherwise (deeper needed); "not checked" without the shifted ReLU.

    Args:
        lm: the data of :func:`lib.chapters.infinite_depth.aak_lengths.measure_length_maps`.

    Returns:
        The verdict.
    """
    f = lm.frame[lm.frame.role == "App D.4"]
    if f.empty:
        return not_checked("[AAK] App D.4", "The shifted ReLU is not in this run.", "no counterexample ran")
    piv = f.pivot(index="depth", columns="q0", values="q")
    out = {}
    for q0 in piv.columns:
        s = piv[q0].dropna()
        gone = len(s) < len(piv)
        last = float(s.iloc[-1])
        out[q0] = (last, int(s.index[-1]), gone, math.inf if gone else abs(last - 1) / abs(q0 - 1))
    grow = [q0 for q0, v in out.items() if v[3] >= D4_AWAY]
    settled = all(abs(v[0] - 1) <= D1_TOL and not v[2] for v in out.values())
    status = "reproduced" if grow else ("not reproduced" if settled else "inconclusive")
    return Check(
        "[AAK] App D.4", status=status,
        caveat="" if status != "inconclusive" else f"neither diverged nor converged within {lm.depth} layers",
        measured=f"Length map of the monotone {f.activation.iloc[0]} (max(z - s, 0)): " + "; ".join(
            f"q0 = {q0:g} -> {v[0]:.3g} at layer {v[1]}" + (f" (left [{theory.LENGTH_RANGE[0]:g}, {theory.LENGTH_RANGE[1]:g}])" if v[2] else "")
            for q0, v in out.items()) + (f"; the lengths leave the fixed point 1 from q0 = "
                                         f"{', '.join(f'{q:g}' for q in grow)}" if grow else "") + ".")


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
