"""Chapter 04, :mod:`lib.chapters.infinite_depth.uncentred`: [AAK] Thm 3.10 with rho* < 1 (exponential rate)."""
import math

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from lib import theory
from lib.activations import offset_activation, shifted_relu
from lib.chapters import infinite_depth as D
from lib.chapters.infinite_depth import uncentred as U

DOCUMENTED = dict(UNCENTRED_FIT_MAX=1e-2, UNCENTRED_FLOOR=1e-11, UNCENTRED_RTOL=0.1, UNCENTRED_NO_DECAY=0.1)
IN, OUT = 0.99, 1.01
PRED = math.log(0.9)


def test_the_thresholds_are_the_documented_ones():
    for name, value in DOCUMENTED.items():
        assert getattr(D, name) == value, name


def study(*acts, depth=400):
    """``acts``: (fitted / predicted ratio, rho*, s_hat'(1)) per activation; the slope predicted is log 0.9."""
    facts = pd.DataFrame([dict(activation=f"a{i}", mean=0.2, rho_star=a[1], chi_star=0.9, chi_1=a[2],
                               predicted=PRED, fitted=a[0] * PRED, fit_range="50-300", points=100)
                          for i, a in enumerate(acts)])
    return U.Uncentred(pd.DataFrame(), facts, list(facts.activation), [0.0], depth)


def status(*acts):
    return U.check_uncentred_rate(study(*acts)).status


def test_holds_fails_caveat_and_vacuous():
    assert status((1.0, 0.5, 1.1)) == "reproduced"
    assert status((1.0, 0.5, 1.1), (0.0, 0.5, 1.1)) == "not reproduced"   # one activation does not decay
    assert status((1.0, 1.0, 1.1)) == "not reproduced"                    # rho* = 1 although s_hat'(1) > 1
    mid = U.check_uncentred_rate(study((1.5, 0.5, 1.1)))
    assert mid.status == "reproduced with caveat" and "not at the rate" in mid.caveat
    far = U.check_uncentred_rate(study((math.nan, 0.5, 1.1)))
    assert far.status == "inconclusive" and "deeper needed" in far.caveat
    # premise: only activations with s_hat'(1) > 1 are judged (plain ReLU, s_hat'(1) = 1, has rho* = 1)
    assert status((1.0, 0.5, 1.1), (0.0, 1.0, 1.0)) == "reproduced"
    none = U.check_uncentred_rate(study((0.0, 1.0, 1.0)))
    assert none.status == "not checked" and none.part == "rho* below 1, exponential rate"


def test_every_threshold_inside_and_outside():
    rt, nd = DOCUMENTED["UNCENTRED_RTOL"], DOCUMENTED["UNCENTRED_NO_DECAY"]
    assert status((1 + rt * IN, 0.5, 1.1)) == "reproduced"
    assert status((1 - rt * IN, 0.5, 1.1)) == "reproduced"
    assert status((1 + rt * OUT, 0.5, 1.1)) == "reproduced with caveat"
    assert status((1 - rt * OUT, 0.5, 1.1)) == "reproduced with caveat"
    assert status((nd * OUT, 0.5, 1.1)) == "reproduced with caveat"
    assert status((nd * IN, 0.5, 1.1)) == "not reproduced"
    assert status((1.0, 1 - 1e-9, 1.1)) == "reproduced"
    assert status((1.0, 1.0, 1 + 1e-9)) == "not reproduced"


def test_the_activations_have_unit_second_moment_and_rho_star_below_one():
    for act in (shifted_relu(-0.5), offset_activation("normrelu", 0.1)):
        m = theory.gaussian_moments(act)
        assert abs(act.c * m.second - 1) < 1e-9 and m.mean > 0.05
        fp = theory.correlation_fixed_point(act)
        assert 0 < fp.rho < 1 < fp.chi_1 and fp.chi_star < 1
        # rho* is a fixed point of the map the measurement iterates
        ess, _ = theory.dual_expectations(act, math.acos(fp.rho))
        assert abs(act.c * float(ess) - fp.rho) < 1e-12


def test_on_a_real_case():
    st = U.measure_uncentred(D.SPEC.config(uncentred_depth=80))
    shifted = st.facts[st.facts.activation == "max(z, -1/2)"].iloc[0]
    assert abs(shifted.fitted / shifted.predicted - 1) < 0.05
    last = st.frame[(st.frame.activation == "max(z, -1/2)") & (st.frame.depth == 80)]
    assert (last.gap < 2e-3).all() and (last.gap > 0).all()
    # NormReLU + 0.1 converges 6 times more slowly: not yet below 1e-2 at depth 80
    assert U.check_uncentred_rate(st).status == "inconclusive"
    fig = U.figure_uncentred(st)
    assert isinstance(fig["fig"], Figure) and set(fig["data"].columns) >= {"rho", "gap", "rho_star"}
    assert "starting correlations -0.9, 0, 0.9" in fig["setting"]


def test_the_limits_at_equality_and_the_rows_judged(monkeypatch):
    st = study((0.5, 0.5, 1.1))
    r = float((st.facts.fitted / st.facts.predicted).iloc[0])
    monkeypatch.setattr(U, "UNCENTRED_NO_DECAY", r)
    assert U.check_uncentred_rate(st).status == "reproduced with caveat"          # r = NO_DECAY exactly: a decay
    monkeypatch.undo()
    st = study((1.05, 0.5, 1.1))
    q = (st.facts.fitted / st.facts.predicted - 1).abs()
    monkeypatch.setattr(U, "UNCENTRED_RTOL", float(q.iloc[0]))
    c = U.check_uncentred_rate(st)
    assert c.status == "reproduced" and c.rows[0]["holds"] is True               # |r - 1| = RTOL exactly
    monkeypatch.undo()
    ok = U.check_uncentred_rate(study((1.0, 0.5, 1.1)))
    assert ok.rows[0]["holds"] is True
    one = U.check_uncentred_rate(study((1.0, 1.0, 1.1)))
    assert one.rows[0]["holds"] is False                                         # rho* = 1: not below it
    far = U.check_uncentred_rate(study((1.5, 0.5, 1.1)))
    assert far.rows[0]["holds"] is False
