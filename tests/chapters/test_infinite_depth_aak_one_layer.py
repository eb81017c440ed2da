"""Chapter 04, :mod:`lib.chapters.infinite_depth.aak_one_layer`: [AAK] Sec 3.3, Thm H.1, Thm H.5 (one layer's kernel).

Constructed studies fed to the real checks (holds, fails, the inconclusive case, vacuous premises, every threshold
just inside and just outside), and one real measurement on small data.
"""
import numpy as np
import pandas as pd

from lib.chapters import infinite_depth as D
from lib.chapters.infinite_depth import aak_one_layer as O

DOCUMENTED = dict(LAMBDA_RTOL=1e-10, DELTA_MIN=1e-9)
IN, OUT = 0.99, 1.01
R = O.LAMBDA_RTOL


def test_the_thresholds_are_the_documented_ones():
    for name, value in DOCUMENTED.items():
        assert getattr(D, name) == value, name


def row(activation="relu", role="Thm H.1", ratio=1e-3, data="Gaussian", n=20, d=5, delta=0.04, input_ratio=1e-16,
        bound=None, rank_bound=np.nan):
    """One row of a study: lambda_max = 1, lambda_min = ratio; ReLU's bound half its lambda_min unless given."""
    return dict(data=data, n=n, d=d, delta=delta, input_min=input_ratio, input_max=1.0, activation=activation,
                role=role, lam_min=ratio, lam_max=1.0,
                bound=(ratio / 2 if bound is None else bound) if role == "Thm H.1" else np.nan,
                rank_bound=rank_bound, even=6, odd=5)


def study(*rows):
    return O.OneLayerKernels(pd.DataFrame(list(rows)), 100, 20, 5)


def h5(prem=1e-3, ctrl=1e-17, delta=0.04):
    return study(row("exp", "premise", prem, delta=delta), row("normrelu", "premise", prem, delta=delta),
                 row("hermite2", "control", ctrl, delta=delta, rank_bound=15))


def test_h1_holds_fails_thresholds_and_vacuous():
    c = O.check_thm_h1(study(row(), row(data="digits", n=100, d=64)))
    assert c.status == "reproduced" and len(c.rows) == 2 and all(r["holds"] for r in c.rows)
    assert "certified lower bound" in c.measured and "100 digits" in c.measured
    assert O.check_thm_h1(study(row(ratio=OUT * R))).status == "reproduced"
    assert O.check_thm_h1(study(row(ratio=IN * R))).status == "not reproduced"       # singular kernel
    # below the certified bound: the numerics are wrong
    assert O.check_thm_h1(study(row(ratio=1e-3, bound=1.01e-3))).status == "not reproduced"
    # one failing data set fails the claim
    assert O.check_thm_h1(study(row(), row(data="digits", ratio=1e-16))).status == "not reproduced"
    # Assumption A fails (a repeated point): the data set is not judged; alone, not checked
    assert O.check_thm_h1(study(row(), row(data="digits", ratio=0.0, delta=IN * O.DELTA_MIN))).status == "reproduced"
    nc = O.check_thm_h1(study(row(delta=0.0)))
    assert nc.status == "not checked" and "Assumption A" in nc.caveat
    assert O.check_thm_h1(study(row(ratio=1e-16, delta=OUT * O.DELTA_MIN))).status == "not reproduced"


def test_assumption_b_turns_singular_inputs_and_is_vacuous_otherwise():
    ok = O.check_assumption_b(study(row()))
    assert ok.status == "reproduced" and "Assumption B holds with delta' = 0.002" in ok.measured
    assert O.check_assumption_b(study(row(ratio=IN * R))).status == "not reproduced"
    assert O.check_assumption_b(study(row(ratio=OUT * R))).status == "reproduced"
    # an input Gram matrix that already meets Assumption B: nothing to turn
    assert O.check_assumption_b(study(row(input_ratio=OUT * R))).status == "not checked"
    assert O.check_assumption_b(study(row(input_ratio=IN * R, ratio=1e-16))).status == "not reproduced"
    assert O.check_assumption_b(study(row(delta=0.0))).status == "not checked"


def test_h5_holds_fails_inconclusive_and_vacuous():
    assert O.check_thm_h5(h5()).status == "reproduced"
    assert O.check_thm_h5(h5(prem=IN * R)).status == "not reproduced"
    assert O.check_thm_h5(h5(prem=OUT * R)).status == "reproduced"
    # the control not singular: the data cannot tell the premise's role
    inc = O.check_thm_h5(h5(ctrl=OUT * R))
    assert inc.status == "inconclusive" and "control" in inc.caveat
    assert O.check_thm_h5(h5(ctrl=IN * R)).status == "reproduced"
    # one data set where the control is singular suffices
    assert O.check_thm_h5(study(*h5().frame.to_dict("records"),
                                row("hermite2", "control", 1e-3, data="digits", rank_bound=2080))).status == "reproduced"
    assert O.check_thm_h5(h5(delta=0.0)).status == "not checked"
    assert O.check_thm_h5(study(row())).status == "not checked"   # no premise activation


def test_measure_on_small_data():
    st = O.measure_one_layer_kernels(D.SPEC.config(aak_one_layer_n=64, aak_n=12, gauss_dim=3))
    f = st.frame
    assert set(f.data) == {"digits", "Gaussian"} and set(f.role) == {"Thm H.1", "premise", "control"}
    g = f[(f.data == "Gaussian")].set_index("activation")
    assert g.loc["relu", "input_min"] < 1e-12 < g.loc["relu", "lam_min"]            # 12 points in d = 3: singular
    assert g.loc["relu", "bound"] <= g.loc["relu", "lam_min"]
    assert (g.loc["exp", "even"], g.loc["exp", "odd"]) == (6, 5) and g.loc["hermite2", "odd"] == 0
    assert g.loc["hermite2", "lam_min"] / g.loc["hermite2", "lam_max"] < 1e-12       # rank 6 < 12 points
    for check in (O.check_thm_h1, O.check_assumption_b, O.check_thm_h5):
        assert check(st).status == "reproduced", check.__name__
