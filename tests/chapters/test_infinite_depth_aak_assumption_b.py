"""Chapter 04, :mod:`lib.chapters.infinite_depth.aak_assumption_b`: [AAK] Thm 3.6 and Thm 3.8 (Assumption B).

Constructed depth studies fed to the real check (the bound from the real correlation map): holds, fails, the caveat,
outside the premise, the tolerance just inside and just outside; and the real study on a few digits.
"""
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from lib.chapters import infinite_depth as D
from lib.chapters.infinite_depth import aak_assumption_b as B

DOCUMENTED = dict(B_DELTA_MIN=1e-9, B_RTOL=1e-9, B_EPS=0.5)
IN, OUT = 0.99, 1.01
ACT = "norm_tanh"


def test_the_thresholds_are_the_documented_ones():
    for name, value in DOCUMENTED.items():
        assert getattr(D, name) == value, name


def study(delta_b=0.02, delta_a=0.06, depth=40, n=20, slack=0.0, at=None, centred=True):
    """A depth study whose measured lambda_min is the Thm 3.6 / 3.8 bound plus ``slack`` (at depth ``at`` only, when
    given; elsewhere 0.01 above it)."""
    f = B.pair_correlations(ACT, 1.0 - delta_b, depth)
    rows = []
    for L in range(depth + 1):
        extra = {k: (slack if at is None or at == L else 0.01) for k in ("nngp", "ntk")}
        rows.append(dict(activation=ACT, depth=L, max_abs_corr_nngp=1 - delta_a, max_abs_corr_ntk=1 - delta_a,
                         lmin_nngp_cos=(delta_b if L == 0 else 1 - f.nngp[L] + extra["nngp"]),
                         lmin_ntk_cos=1 - f.ntk[L] + extra["ntk"]))
    return SimpleNamespace(kk=pd.DataFrame(rows), facts={ACT: SimpleNamespace(centred=centred)}, activations=[ACT],
                           n=n)


@pytest.mark.parametrize("kind, claim", [("nngp", "[AAK] Thm 3.6"), ("ntk", "[AAK] Thm 3.8")])
def test_bound_holds_fails_and_its_tolerance(kind, claim):
    ok = B.check_assumption_b_bound(study(), kind)
    assert ok.claim_id == claim and ok.status == "reproduced" and ok.rows[0]["holds"]
    assert "the bound reaches 1 - 0.5 at depth" in ok.measured
    # lambda_min below the bound by just under / over B_RTOL at one depth
    assert B.check_assumption_b_bound(study(slack=-IN * B.B_RTOL, at=20), kind).status == "reproduced"
    bad = B.check_assumption_b_bound(study(slack=-OUT * B.B_RTOL, at=20), kind)
    assert bad.status == "not reproduced" and "fails at L = 20" in bad.rows[0]["this book"]


def test_the_caveat_when_the_bound_is_nowhere_stronger_than_thm_32s():
    # Assumption A with a wide margin and Assumption B with a thin one, n = 2: Gershgorin's bound wins at every depth
    weak = B.check_assumption_b_bound(study(delta_b=1e-3, delta_a=0.9, n=2), "nngp")
    assert weak.status == "reproduced with caveat" and "nowhere stronger" in weak.caveat


def test_outside_assumption_b_or_without_a_centred_activation():
    out = B.check_assumption_b_bound(study(delta_b=IN * B.B_DELTA_MIN), "nngp")
    assert out.status == "not checked" and out.caveat.startswith("outside the theorem: Assumption B fails")
    assert B.check_assumption_b_bound(study(delta_b=OUT * B.B_DELTA_MIN, depth=5), "nngp").status != "not checked"
    none = B.check_assumption_b_bound(study(centred=False), "ntk")
    assert none.status == "not checked" and "normalized activations" in none.caveat


def test_the_lemma_c8_bound_on_a_real_study():
    st = D.measure_aak_depth(D.SPEC.config(aak_activations=["norm_tanh", "relu"], aak_n=8, aak_max_depth=60,
                                           aak_fw_depths=[1], seeds=1, fw_width=64))
    tab = B.table_assumption_b(st)
    assert set(tab.activation) == {"norm_tanh"}                       # ReLU is not centred: outside
    t0 = tab[tab.depth == 0]
    assert np.allclose(t0.bound_b, t0.delta_b) and np.allclose(t0.lmin, t0.delta_b)   # equality at the inputs
    assert (tab.lmin >= tab.bound_b - B.B_RTOL).all() and (tab.bound_b.diff().dropna() > -1e-12).any()
    for kind in ("nngp", "ntk"):
        assert B.check_assumption_b_bound(st, kind).status in ("reproduced", "reproduced with caveat")


def test_the_bound_at_equality_and_a_bound_exactly_as_strong_as_thm_32s():
    st = study(slack=-B.B_RTOL, at=20)           # lambda_min exactly B_RTOL below the bound: still within rounding
    assert B.check_assumption_b_bound(st, "nngp").status == "reproduced"
    tab = B.table_assumption_b(study())
    assert (tab.bound_b >= tab.bound_a).any()
