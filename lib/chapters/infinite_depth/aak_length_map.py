"""[AAK] Thm D.1 and App. D.4: the length map q -> c_s E[s(sqrt(q) z)^2] for inputs that are not of unit length.

The activations App. D.4 lists (standard and leaky ReLU, SELU, the centred sigmoid, tanh, arctan), each with Thm D.1's
premises measured (:func:`d1_premises`), and ReLU shifted to max(z - s, 0), monotone but a counterexample
(``measure_length_maps``, :func:`lib.theory.length_map`); ``check_length_map`` judges Thm D.1 on the activations that
meet its premises, ``check_d4_list`` App. D.4's list, ``check_shifted_relu`` its counterexample.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from lib import theory
from lib.activations import Activation, aak_activation
from lib.book.results import Check
from lib.chapters.infinite_depth.numerics import deviation_text, not_checked, outside_theorem

__all__ = ["D4_LIST", "D4_ACTIVATION", "D4_ROLE_LIST", "D4_ROLE_SHIFT", "LENGTH_Q0", "PREMISE_TOL", "PREMISE_GRID",
           "d1_premises", "LengthMaps", "measure_length_maps", "GAMMA_TOL", "RATIO_FLOOR", "D1_TOL", "D4_AWAY",
           "length_outcomes", "check_length_map", "check_d4_list", "check_shifted_relu"]

#: The activations [AAK] App. D.4 names as convex-concave and 0 at 0 ("for eg. standard/leaky ReLU, SeLU, sigmoid,
#: tanh, arctan"); the sigmoid enters centred, sigmoid(z) - 1/2, since sigmoid(0) = 1/2. Thm D.1 is judged on those
#: of them that meet its premises (:func:`d1_premises`), App. D.4's list on all of them.
D4_LIST = ("relu", "leaky_relu", "selu", "sigmoid_centred", "tanh", "arctan")

#: App. D.4's counterexample: ReLU shifted to max(z - s, 0), monotone but convex on [0, inf) near s.
D4_ACTIVATION = "shifted_relu"

#: The roles of the length maps: an activation of App. D.4's list, and the shifted ReLU.
D4_ROLE_LIST, D4_ROLE_SHIFT = "App D.4 list", "App D.4"

#: Starting squared lengths of the length map (norms 0.5 to 2, as in the chapter's Thm 3.11 study).
LENGTH_Q0 = (0.25, 0.5, 0.9, 1.1, 2.0, 4.0)

#: The premises of Thm D.1 are read on the grid z = -6..6 (step 0.01, with the activation's kinks and 0): beyond
#: ``|z| = 6`` the Gaussian weight of the length map is below 1e-8.
PREMISE_GRID = np.union1d(np.round(np.linspace(-6.0, 6.0, 1201), 12), [0.0])

#: A premise counts as met up to this: ``|s(0)|``, -min s', the wrong-signed s'' and the jumps of s' and s'' at a point
#: (one-sided differences with steps 1e-5, exact to about 3e-5 for a smooth s) are at most 1e-3, while the
#: activations that break one break it by 0.1 or more (leaky ReLU's s' jumps by 0.9, SELU's by 0.71, a ReLU^2's s''
#: by 2).
PREMISE_TOL = 1e-3

#: The one-sided step of the premise differences.
_H = 1e-5


def d1_premises(names) -> pd.DataFrame:
    """The premises of [AAK] Thm D.1, measured per activation on :data:`~lib.chapters.infinite_depth.aak_length_map.PREMISE_GRID`.

    Thm D.1 asks for a twice-differentiable non-decreasing activation with s(0) = 0, concave on [0, inf) and convex
    on (-inf, 0]. Columns: ``activation``; ``s0`` (``|s(0)|``); ``min_slope`` (smallest s'); ``concavity`` (largest
    s'' on z > 0, 0 or less when concave), ``convexity`` (smallest s'' on z < 0, 0 or more when convex), both by
    central differences of s' away from the kinks and by the step of s' across a kink; ``jump1``, ``jump2`` (largest jump of s' and of s'' at a point of
    the grid or a kink, from one-sided differences); and the flags ``zero_at_0``, ``nondecreasing``,
    ``convex_concave``, ``twice_differentiable`` (each up to :data:`~lib.chapters.infinite_depth.aak_length_map.PREMISE_TOL`) and ``premise`` (all four).

    Args:
        names: activation names (:func:`lib.activations.aak_activation`) or :class:`lib.activations.Activation` objects.

    Returns:
        One row per activation.
    """
    rows = []
    for name in names:
        act = name if isinstance(name, Activation) else aak_activation(name)
        name, f, d = act.name, act.np_fn, act.np_deriv
        pts = np.union1d(PREMISE_GRID, np.asarray(act.kinks, dtype=float))
        away = np.all(np.abs(pts[:, None] - np.asarray((*act.kinks, 0.0))[None, :]) > 4 * _H, axis=1)
        curv = (d(pts + _H) - d(pts - _H)) / (2 * _H)
        right, left = d(pts + _H), d(pts - _H)
        jump1 = float(np.max(np.abs(right - left)))
        c_right = (d(pts + 2 * _H) - d(pts + _H)) / _H
        c_left = (d(pts - _H) - d(pts - 2 * _H)) / _H
        jump2 = float(np.max(np.abs(c_right - c_left)))
        pos, neg = away & (pts > 0), away & (pts < 0)
        step = right - left   # a kink where s' steps up breaks concavity, one where it steps down convexity
        row = dict(activation=name, s0=float(abs(f(np.zeros(1))[0])), min_slope=float(np.min(d(pts))),
                   concavity=float(max(np.max(curv[pos]), np.max(step[pts > 0]))),
                   convexity=float(min(np.min(curv[neg]), np.min(step[pts < 0]))), jump1=jump1, jump2=jump2)
        row.update(zero_at_0=row["s0"] <= PREMISE_TOL, nondecreasing=row["min_slope"] >= -PREMISE_TOL,
                   convex_concave=bool(row["concavity"] <= PREMISE_TOL and row["convexity"] >= -PREMISE_TOL),
                   twice_differentiable=bool(jump1 <= PREMISE_TOL and jump2 <= PREMISE_TOL))
        row["premise"] = bool(row["zero_at_0"] and row["nondecreasing"] and row["convex_concave"]
                              and row["twice_differentiable"])
        rows.append(row)
    return pd.DataFrame(rows)


@dataclass(frozen=True, eq=False)
class LengthMaps:
    """Iterates of the length map ([AAK] Thm D.1, App. D.4), with their settings.

    Attributes:
        frame: columns activation, role (:data:`~lib.chapters.infinite_depth.aak_length_map.D4_ROLE_LIST` or
            :data:`~lib.chapters.infinite_depth.aak_length_map.D4_ROLE_SHIFT`), q0, depth, q (NaN once the iterate
            left :data:`~lib.theory.nonlinearity.LENGTH_RANGE`: it collapsed or blew up).
        premises: :func:`d1_premises` of the activations of App. D.4's list.
        q0: the starting squared lengths.
        depth: the deepest layer.
    """

    frame: pd.DataFrame
    premises: pd.DataFrame
    q0: tuple
    depth: int


def measure_length_maps(cfg) -> LengthMaps:
    """The length map of App. D.4's list and of its shifted ReLU from the squared lengths
    :data:`~lib.chapters.infinite_depth.aak_length_map.LENGTH_Q0`, with Thm D.1's premises of the list (:func:`d1_premises`).

    Args:
        cfg: the chapter's parameters (:data:`lib.chapters.infinite_depth.spec.SPEC`); read: ``aak_length_depth``.

    Returns:
        A :class:`lib.chapters.infinite_depth.aak_length_map.LengthMaps`.
    """
    depth = int(cfg.aak_length_depth)
    frames = []
    for name, role in (*((a, D4_ROLE_LIST) for a in D4_LIST), (D4_ACTIVATION, D4_ROLE_SHIFT)):
        q = theory.length_map(aak_activation(name), LENGTH_Q0, depth)
        frames.append(pd.DataFrame({"activation": name, "role": role,
                                    "q0": np.tile(LENGTH_Q0, depth + 1), "depth": np.repeat(np.arange(depth + 1),
                                                                                            len(LENGTH_Q0)),
                                    "q": q.ravel()}))
    return LengthMaps(pd.concat(frames, ignore_index=True), d1_premises(D4_LIST), LENGTH_Q0, depth)


#: Deviations ``|q - 1|`` at or below this enter no ratio ``|q^(l+1) - 1| / |q^(l) - 1|``: the quadrature is exact to about
#: 1e-13, so a ratio of deviations above 1e-6 is exact to 1e-7, below :data:`~lib.chapters.infinite_depth.aak_length_map.GAMMA_TOL`.
RATIO_FLOOR = 1e-6

#: A per-layer ratio ``|q^(l+1) - 1| / |q^(l) - 1|`` above 1 + GAMMA_TOL moves a length away from 1; one within GAMMA_TOL
#: of 1 keeps it (a positively homogeneous activation: q -> q exactly). 1e-6 is ten times the ratio's error above
#: :data:`~lib.chapters.infinite_depth.aak_length_map.RATIO_FLOOR`, and the contracting activations here have ratios below 0.97.
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


def length_outcomes(frame: pd.DataFrame) -> dict[str, tuple[str, float, float]]:
    """How each activation's length map ends: (outcome, gamma_hat, largest ``|q^(L) - 1|``), gamma_hat the largest
    per-layer ratio ``|q^(l+1) - 1| / |q^(l) - 1|`` over every start and layer (deviations above
    :data:`~lib.chapters.infinite_depth.aak_length_map.RATIO_FLOOR`). The outcome is ``"away"`` (gamma_hat > 1 +
    :data:`~lib.chapters.infinite_depth.aak_length_map.GAMMA_TOL`: a length moved away from 1), ``"kept"`` (gamma_hat
    within GAMMA_TOL of 1: every length is a fixed point, as for a positively homogeneous activation), ``"slow"``
    (contracting but not within :data:`~lib.chapters.infinite_depth.aak_length_map.D1_TOL` of 1 at the deepest layer)
    or ``"converged"`` (a start already at 1 everywhere, gamma_hat NaN, counts as converged)."""
    out = {}
    for a in frame.activation.unique():
        g, d = _ratios(frame[frame.activation == a])
        if g > 1 + GAMMA_TOL:
            out[a] = ("away", g, d)
        elif g >= 1 - GAMMA_TOL:
            out[a] = ("kept", g, d)
        elif d > D1_TOL:
            out[a] = ("slow", g, d)
        else:
            out[a] = ("converged", g, d)
    return out


def _convergence_status(res: dict, depth: int) -> tuple[str, str]:
    """The status of "every length converges to 1" from :func:`length_outcomes`: "not reproduced" if one moves away
    or is kept, "inconclusive" (deeper needed) if one still contracts at ``depth``, else "reproduced"; and the
    caveat."""
    if any(o in ("away", "kept") for o, _, _ in res.values()):
        return "not reproduced", ""
    slow = [a for a, (o, _, _) in res.items() if o == "slow"]
    if slow:
        return "inconclusive", (f"{', '.join(slow)} still {'converges' if len(slow) == 1 else 'converge'} at depth "
                                f"{depth}: deeper needed")
    return "reproduced", ""


def _outcome_text(res: dict) -> str:
    return "; ".join(f"{a} {g:.6g} and {deviation_text(d, 1e-12)}" for a, (_, g, d) in res.items())


def _premise_text(p: pd.DataFrame) -> str:
    """Why each activation outside Thm D.1's premises is outside, in words."""
    words = {"zero_at_0": "s(0) != 0", "nondecreasing": "decreasing somewhere", "convex_concave": "not convex-concave",
             "twice_differentiable": "not twice differentiable"}
    return "; ".join(f"{r.activation}: " + ", ".join(w for k, w in words.items() if not getattr(r, k))
                     + f" (jump of s' {r.jump1:.2g}, of s'' {r.jump2:.2g})" for r in p.itertuples())


def check_length_map(lm: LengthMaps) -> Check:
    """[AAK] Thm D.1, on the activations that meet its premises.

    The paper: "Let s be a twice-differentiable non-decreasing activation function which satisfies the following
    properties: s(0) = 0; s is concave on [0, inf) and is convex on (-inf, 0]." Then the length map
    q -> c_s E[s(sqrt(q) z)^2] brings the squared length of every representation to its fixed point 1 at a
    geometric rate, ``|q^(l) - 1| <= gamma^l |q^(0) - 1|`` with gamma < 1 set by s (Remark D.2).

    Premises: measured per activation of App. D.4's list (:func:`d1_premises`); the activations that miss one
    (standard and leaky ReLU and SELU are not twice differentiable at 0) are outside the theorem, reported as such
    and never judged (App. D.4's list is its own row, :func:`check_d4_list`). Conclusion, per activation meeting
    the premises (:func:`length_outcomes`): "not reproduced" if a length moves away from 1 or is kept (gamma = 1:
    no convergence, which gamma < 1 excludes); "inconclusive" if one still contracts at the deepest layer (deeper
    needed); "reproduced" if every one is within :data:`~lib.chapters.infinite_depth.aak_length_map.D1_TOL` of 1 there;
    "not checked" (outside the theorem) if no activation meets the premises.

    Args:
        lm: the data of :func:`lib.chapters.infinite_depth.aak_length_map.measure_length_maps`.

    Returns:
        The verdict.
    """
    p = lm.premises
    inside = set(p.activation[p.premise.astype(bool)]) if len(p) else set()
    outside = p[~p.premise.astype(bool)] if len(p) else p
    f = lm.frame[(lm.frame.role == D4_ROLE_LIST) & lm.frame.activation.isin(inside)]
    out_txt = f" Outside the theorem: {_premise_text(outside)}." if len(outside) else ""
    if f.empty:
        return outside_theorem("[AAK] Thm D.1", "No activation of the run meets Thm D.1's premises." + out_txt,
                               "no activation is twice differentiable, non-decreasing, 0 at 0 and convex-concave")
    res = length_outcomes(f)
    status, caveat = _convergence_status(res, lm.depth)
    return Check(
        "[AAK] Thm D.1", status=status, caveat=caveat,
        measured=f"Activations meeting the premises: {', '.join(res)}. Length map from the squared lengths "
        f"{', '.join(f'{q:g}' for q in lm.q0)} over {lm.depth} layers; largest per-layer ratio |q' - 1| / |q - 1| and "
        f"largest |q - 1| at the deepest layer: {_outcome_text(res)}." + out_txt)


def check_d4_list(lm: LengthMaps) -> Check:
    """[AAK] App. D.4's list: the norm convergence of Thm D.1 for the activations used in practice.

    The paper (App. D.4): "our results on the norm convergence holds more generally than odd functions (See Theorem
    D.1). It requires the activation to have a convex-concave structure and be 0 at 0. This assumption is far weaker
    and in fact most of the activations used in practice satisfy this (for eg. standard/leaky ReLU, SeLU, sigmoid,
    tanh, arctan etc.)", after "the assumption of differentiability is only for convenience, the result will hold
    for any function with finite non-smooth points".

    Measurement: the length map of every activation of :data:`~lib.chapters.infinite_depth.aak_length_map.D4_LIST`
    (:func:`length_outcomes`). Rule: "not reproduced" if some listed activation's lengths move away from 1 or are
    kept (gamma = 1: standard and leaky ReLU are positively homogeneous, c_s E[s(sqrt(q) z)^2] = q, so every length is
    a fixed point and none converges); "inconclusive" if one still contracts at the deepest layer; "reproduced" if
    every listed activation brings every length within :data:`~lib.chapters.infinite_depth.aak_length_map.D1_TOL` of 1;
    "not checked" when no listed activation ran.

    Args:
        lm: the data of :func:`lib.chapters.infinite_depth.aak_length_map.measure_length_maps`.

    Returns:
        The verdict, one judged row per activation.
    """
    f = lm.frame[lm.frame.role == D4_ROLE_LIST]
    if f.empty:
        return not_checked("[AAK] App D.4(list)", "No activation of App. D.4's list ran.", "no listed activation")
    res = length_outcomes(f)
    bad = [a for a, (o, _, _) in res.items() if o in ("away", "kept")]
    status, caveat = _convergence_status(res, lm.depth)
    words = {"away": "moves away from 1", "kept": "keeps every length (the identity map)", "slow": "still converging",
             "converged": "at 1"}
    rows = tuple(dict(statement=f"{a}: the length map from q0 = {min(lm.q0):g} to {max(lm.q0):g}",
                      paper="converges to the fixed point 1", **{"this book": f"{words[o]}; largest ratio {g:.4g}"},
                      rule=f"|q - 1| <= {D1_TOL:g} at depth {lm.depth}", holds=o == "converged")
                 for a, (o, g, _) in res.items())
    note = (f" Note on the paper: {', '.join(bad)} {'is' if len(bad) == 1 else 'are'} on the list, but for a positively "
            "homogeneous activation c_s E[s(sqrt(q) z)^2] = q: the length map is the identity, so the convex-concave "
            "shape and s(0) = 0 do not make it converge, and Thm D.1's twice-differentiability (which they lack at 0) "
            "is not only for convenience." if any(res[a][0] == "kept" for a in bad) else "")
    return Check(
        "[AAK] App D.4(list)", status=status, caveat=caveat, rows=rows,
        measured=f"Length map of App. D.4's list from the squared lengths {', '.join(f'{q:g}' for q in lm.q0)} over "
        f"{lm.depth} layers; largest per-layer ratio |q' - 1| / |q - 1| and largest |q - 1| at the deepest layer: "
        f"{_outcome_text(res)}." + note)


def check_shifted_relu(lm: LengthMaps) -> Check:
    """[AAK] App. D.4: monotonicity alone does not make the length map converge; ReLU with a little shift is a
    counterexample.

    The paper: "Poole et al. [2016] informally (but incorrectly) mention that just monotonicity of activation is a
    sufficient condition, however the standard ReLU with a little shift ... itself presents a simple counter-example
    to the claim." Measurement: the length map of max(z - s, 0) (s = :data:`lib.activations.SHIFTED_RELU_SHIFT`, c_s
    so that q = 1 is a fixed point) from the starts :data:`~lib.chapters.infinite_depth.aak_length_map.LENGTH_Q0`; per
    start the growth ``|q^(last) - 1| / |q^(0) - 1|`` at the last finite iterate (leaving
    :data:`~lib.theory.nonlinearity.LENGTH_RANGE`, a collapse or a blow-up, counts as moved away). Rule: "reproduced"
    (the counterexample stands) if some start's deviation grew by at least
    :data:`~lib.chapters.infinite_depth.aak_length_map.D4_AWAY` (2); "not reproduced" if every start ends within
    :data:`~lib.chapters.infinite_depth.aak_length_map.D1_TOL` of 1 (the map converges after all); "inconclusive"
    otherwise (deeper needed); "not checked" without the shifted ReLU.

    Args:
        lm: the data of :func:`lib.chapters.infinite_depth.aak_length_map.measure_length_maps`.

    Returns:
        The verdict.
    """
    f = lm.frame[lm.frame.role == D4_ROLE_SHIFT]
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
