"""Chapter 04, :mod:`lib.chapters.infinite_depth.aak_lengths`: [AAK] Thm D.1, App. D.4, Lemma D.6, Thm I.1.

Constructed results fed to the real checks (holds, fails, caveat, inconclusive, vacuous premises, every threshold
just inside and just outside), and small real measurements, with their counterfactuals.
"""
import math

import numpy as np
import pandas as pd
import pytest

from lib.chapters import infinite_depth as D
from lib.chapters.infinite_depth import aak_lengths as A

DOCUMENTED = dict(RATIO_FLOOR=1e-6, GAMMA_TOL=1e-6, D1_TOL=1e-6, D4_AWAY=2.0, D6_ATOL=1e-10, I1_MIN_RATIO=0.8)
IN, OUT = 0.99, 1.01
Q0 = (0.5, 2.0)


def test_the_thresholds_are_the_documented_ones():
    for name, value in DOCUMENTED.items():
        assert getattr(D, name) == value, name


def maps(*acts, depth=10):
    """acts: (name, role, per-layer factor g on q - 1, or a callable (q0, l) -> q)."""
    rows = []
    for name, role, g in acts:
        for q0 in Q0:
            for l in range(depth + 1):
                q = g(q0, l) if callable(g) else 1 + (q0 - 1) * g ** l
                rows.append(dict(activation=name, role=role, q0=q0, depth=l, q=q))
    return A.LengthMaps(pd.DataFrame(rows), Q0, depth)


def test_length_map_holds_fails_caveat_inconclusive_and_vacuous():
    fast = ("tanh", "Thm D.1", 0.1)
    assert A.check_length_map(maps(fast)).status == "reproduced"
    assert A.check_length_map(maps(fast, ("selu", "Thm D.1", 1 + OUT * A.GAMMA_TOL))).status == "not reproduced"
    kept = A.check_length_map(maps(fast, ("leaky_relu", "Thm D.1", 1 + IN * A.GAMMA_TOL)))
    assert kept.status == "reproduced with caveat" and "leaky_relu keeps every length" in kept.caveat
    assert A.check_length_map(maps(fast, ("x", "Thm D.1", 1 - IN * A.GAMMA_TOL))).status == "reproduced with caveat"
    # contracting but not at the fixed point yet: deeper needed
    slow = A.check_length_map(maps(fast, ("selu", "Thm D.1", 0.5), depth=10))
    assert slow.status == "inconclusive" and "deeper needed" in slow.caveat
    # the final deviation just inside / outside D1_TOL (1.5 * 0.5^l at l = 10 is 1.5e-3; scaled here)
    at = lambda dev: (lambda q0, l: 1 + (q0 - 1) * (0.5 ** l if l < 10 else dev / 1.0))  # noqa: E731
    assert A.check_length_map(maps(fast, ("s", "Thm D.1", at(IN * A.D1_TOL)))).status == "reproduced"
    assert A.check_length_map(maps(fast, ("s", "Thm D.1", at(OUT * A.D1_TOL)))).status == "inconclusive"
    # deviations at or below RATIO_FLOOR enter no ratio: a rounding-level wiggle is not a failure
    def tail(dev):
        return lambda q0, l: 1 + (q0 - 1) * 0.1 ** l if l < 7 else 1 + dev(l)
    wiggle = tail(lambda l: IN * A.RATIO_FLOOR * (1.0 if l % 2 else 0.5))   # ratio 2 from a denominator at the floor
    assert A.check_length_map(maps(fast, ("w", "Thm D.1", wiggle))).status == "reproduced"
    grow = tail(lambda l: OUT * A.RATIO_FLOOR * 1.01 ** (l - 7))            # ratio 1.01 above the floor
    assert A.check_length_map(maps(fast, ("w", "Thm D.1", grow))).status == "not reproduced"
    # every start already at the fixed point: no ratio, nothing moved
    assert A.check_length_map(maps(fast, ("flat", "Thm D.1", lambda q0, l: 1.0))).status == "reproduced"
    assert A.check_length_map(maps(("shifted_relu", "App D.4", 2.0))).status == "not checked"


def test_shifted_relu_counterexample_rule():
    assert A.check_shifted_relu(maps(("shifted_relu", "App D.4", 1.2))).status == "reproduced"
    # a start whose deviation grew by just under / over D4_AWAY at the deepest layer
    g_in, g_out = (IN * A.D4_AWAY) ** 0.1, (OUT * A.D4_AWAY) ** 0.1
    assert A.check_shifted_relu(maps(("s", "App D.4", g_in))).status == "inconclusive"
    assert A.check_shifted_relu(maps(("s", "App D.4", g_out))).status == "reproduced"
    # a collapse out of the range counts as moved away
    gone = lambda q0, l: math.nan if l > 3 else q0 * 0.1 ** l  # noqa: E731
    c = A.check_shifted_relu(maps(("s", "App D.4", gone)))
    assert c.status == "reproduced" and "left [1e-08, 10000]" in c.measured
    # the map converges after all: no counterexample
    assert A.check_shifted_relu(maps(("s", "App D.4", 0.1))).status == "not reproduced"
    assert A.check_shifted_relu(maps(("tanh", "Thm D.1", 0.1))).status == "not checked"


def test_length_maps_real():
    lm = A.measure_length_maps(D.SPEC.config(aak_length_depth=60))
    assert set(lm.frame.activation) == {*A.D1_ACTIVATIONS, A.D4_ACTIVATION}
    c = A.check_length_map(lm)
    assert c.status == "reproduced with caveat" and c.caveat.startswith("leaky_relu keeps every length"), c.measured
    assert A.check_shifted_relu(lm).status == "reproduced"


def odd(excess_odd=0.0, excess_ctrl=0.3, odd_names=("tanh",)):
    rho = np.array([-0.5, 0.0, 0.5])
    rows = [dict(activation=a, odd=True, q1=0.25, q2=4.0, rho=r, rho_next=r * 0.5 + (excess_odd if r == 0.5 else 0))
            for a in odd_names for r in rho]
    rows += [dict(activation="norm_relu", odd=False, q1=0.25, q2=4.0, rho=r, rho_next=abs(r) + excess_ctrl)
             for r in rho]
    return A.OddCorrelations(pd.DataFrame(rows))


def test_odd_correlations_rule():
    assert A.check_odd_correlations(odd()).status == "reproduced"
    # |rho'| = 0.25 + excess against |rho| = 0.5: an excess of 0.25 + D6_ATOL * (1 +- 1%)
    assert A.check_odd_correlations(odd(0.25 + IN * A.D6_ATOL)).status == "reproduced"
    bad = A.check_odd_correlations(odd(0.25 + OUT * A.D6_ATOL))
    assert bad.status == "not reproduced"
    assert "the control norm_relu, not odd: 0.3" in A.check_odd_correlations(odd()).measured
    assert A.check_odd_correlations(odd(odd_names=())).status == "not checked"


def test_odd_correlations_real():
    oc = A.measure_odd_correlations()
    assert A.check_odd_correlations(oc).status == "reproduced"
    ctrl = oc.frame[~oc.frame.odd]
    assert (ctrl.rho_next.abs() - ctrl.rho.abs()).max() > 0.1   # the non-odd control breaks the bound


def lengths(slope=-0.015, unit=-0.015, start=0.6, depth=20):
    d = np.arange(depth + 1)
    return A.NormReluLengths(pd.DataFrame(dict(depth=d, max_corr=start * np.exp(slope * d),
                                               max_corr_unit=start * np.exp(unit * d), length_dev=0.5 ** d)),
                             "normrelu", (0.5, 1.0, 2.0), depth, 0.0159)


def test_normrelu_lengths_rule():
    assert A.check_normrelu_lengths(lengths()).status == "reproduced"
    assert A.check_normrelu_lengths(lengths(slope=-0.015 * IN * A.I1_MIN_RATIO)).status == "inconclusive"
    assert A.check_normrelu_lengths(lengths(slope=-0.015 * OUT * A.I1_MIN_RATIO)).status == "reproduced"
    assert A.check_normrelu_lengths(lengths(slope=0.01)).status == "not reproduced"   # correlations grow
    assert A.check_normrelu_lengths(lengths(start=1.0)).status == "not checked"        # parallel inputs
    assert A.check_normrelu_lengths(lengths(unit=0.0)).status == "not checked"         # no unit-length decay
    assert A.check_normrelu_lengths(lengths(depth=1)).status == "not checked"          # too few layers


def test_normrelu_lengths_real_and_relu_counterfactual():
    cfg = D.SPEC.config(aak_length_depth=40)
    nl = A.measure_normrelu_lengths(cfg)
    assert nl.frame.length_dev.iloc[-1] < nl.frame.length_dev.iloc[1]
    assert A.check_normrelu_lengths(nl).status in ("reproduced", "inconclusive")
    assert nl.frame.max_corr.iloc[-1] < nl.frame.max_corr.iloc[0]
    relu = A.check_normrelu_lengths(A.measure_normrelu_lengths(cfg, "relu"))   # uncentred: correlations go to 1
    assert relu.status == "not checked" and "do not decay" in relu.measured
    assert nl.mu == pytest.approx(0.01586, abs=1e-5)
