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


def finite(shares, data="digits", n=100, delta=0.02, bound=1e-4, seeds=10):
    """Thm H.1 at finite width: at width m, round(share * seeds) seeds above the bound (the others below)."""
    rows = []
    for m, share in shares.items():
        k = round(share * seeds)
        rows += [dict(data=data, n=n, delta=delta, width=m, seed=s, lam_min=bound * (2.0 if s < k else 0.5),
                      bound=bound, lam_inf=10 * bound) for s in range(seeds)]
    return rows


def h1(*sets, seeds=10):
    return O.OneLayerKernels(pd.DataFrame([row()]), 100, 20, 5, pd.DataFrame([r for rows in sets for r in rows]), seeds)


def test_h1_at_finite_width_holds_fails_caveat_inconclusive():
    ok = O.check_thm_h1(h1(finite({64: 0.0, 128: 0.1, 256: 1.0, 1024: 1.0}), finite({64: 1.0, 256: 1.0}, "Gaussian", 20)))
    assert ok.status == "reproduced" and len(ok.rows) == 2 and all(r["holds"] for r in ok.rows)
    assert "0% (m = 64), 10% (m = 128), 100% (m = 256)" in ok.measured and "median lambda_min is 0.500" not in ok.measured
    # widths below n are not judged: a high share there does not count against the largest width
    assert O.check_thm_h1(h1(finite({64: 1.0, 128: 0.9, 256: 0.9}))).status == "reproduced"
    # with high probability at the largest width, though a smaller judged width had more: a caveat (seed noise)
    noisy = O.check_thm_h1(h1(finite({128: 1.0, 256: 0.9})))
    assert noisy.status == "reproduced with caveat" and "a smaller width had more" in noisy.caveat
    # the bound in most draws only
    most = O.check_thm_h1(h1(finite({128: 0.2, 256: 0.6})))
    assert most.status == "reproduced with caveat" and "not yet 90%" in most.caveat
    # fewer than half, still rising: the width the theorem needs is not reached
    rising = O.check_thm_h1(h1(finite({128: 0.1, 256: 0.4})))
    assert rising.status == "inconclusive" and "still rises" in rising.caveat and rising.rows[0]["holds"] is None
    # fewer than half and not rising: more width does not bring the bound
    assert O.check_thm_h1(h1(finite({128: 0.4, 256: 0.4}))).status == "not reproduced"
    assert O.check_thm_h1(h1(finite({128: 0.4, 256: 0.3}))).status == "not reproduced"
    # one failing data set fails the claim
    assert O.check_thm_h1(h1(finite({256: 1.0}), finite({256: 0.0}, "Gaussian", 20))).status == "not reproduced"
    # every width below n: nothing judged
    low = O.check_thm_h1(h1(finite({32: 0.0, 64: 0.0})))
    assert low.status == "inconclusive" and "every width is below n = 100" in low.caveat


def test_h1_thresholds_just_inside_and_outside():
    """The shares at H1_HIGH_PROB and H1_MOST x 0.99 / x 1.01 (1,000 seeds, so that 0.1% is one seed)."""
    def share(v):
        return O.check_thm_h1(h1(finite({128: 0.0, 256: v}, seeds=1000), seeds=1000)).status
    assert share(OUT * O.H1_HIGH_PROB) == "reproduced"
    assert share(IN * O.H1_HIGH_PROB) == "reproduced with caveat"
    assert share(OUT * O.H1_MOST) == "reproduced with caveat"
    assert share(IN * O.H1_MOST) == "inconclusive"      # rising from 0
    # lambda_min at the bound counts as above it; just below does not
    rows = finite({256: 1.0})
    rows[0]["lam_min"] = rows[0]["bound"] * IN
    assert O.check_thm_h1(h1(rows)).status == "reproduced"       # 9 of 10 = H1_HIGH_PROB
    rows[1]["lam_min"] = rows[1]["bound"]
    assert O.check_thm_h1(h1(rows)).status == "reproduced"
    rows[1]["lam_min"] = rows[1]["bound"] * IN
    assert O.check_thm_h1(h1(rows)).status == "reproduced with caveat"


def test_h1_outside_its_premise_or_vacuous_is_not_checked():
    assert O.check_thm_h1(h1()).status == "not checked"                                    # nothing ran
    nc = O.check_thm_h1(h1(finite({256: 1.0}, delta=IN * O.DELTA_MIN)))
    assert nc.status == "not checked" and "Assumption A" in nc.caveat
    assert O.check_thm_h1(h1(finite({256: 1.0}, delta=OUT * O.DELTA_MIN))).status == "reproduced"
    # Assumption A fails on one data set: that one is not judged
    assert O.check_thm_h1(h1(finite({256: 1.0}), finite({256: 0.0}, "Gaussian", 20, delta=0.0))).status == "reproduced"
    zero = O.check_thm_h1(h1(finite({256: 1.0}, bound=0.0)))
    assert zero.status == "not checked" and "vacuous" in zero.caveat


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
    fw = st.finite
    assert set(fw.width) == set(D.SPEC.config().aak_h1_widths) and st.seeds == D.SPEC.config().aak_h1_seeds
    wide = fw[(fw.data == "digits") & (fw.width == fw.width.max())]
    assert ((wide.lam_min - wide.lam_inf).abs() < 0.1 * wide.lam_inf).all()   # concentrates on the infinite width


def test_h1_a_width_equal_to_n_is_judged():
    """m = n is not below the theorem's condition (rank m = n is possible): its share counts."""
    c = O.check_thm_h1(h1(finite({99: 1.0, 100: 0.0})))
    assert c.status == "not reproduced" and "0% (m = 100)" in c.rows[0]["this book"]
    assert O.check_thm_h1(h1(finite({100: 1.0}))).status == "reproduced"


def test_h1_rows_order_worst_data_set_and_every_limit_at_equality():
    two = O.check_thm_h1(h1(finite({256: 1.0}, "digits"), finite({256: 1.0}, "Gaussian", 20)))
    assert [r["statement"].split(" ")[0] for r in two.rows] == ["digits", "Gaussian"]     # in the data's order
    # one data set not reproduced, another inconclusive: not reproduced decides (the order of severity, not the alphabet)
    mix = O.check_thm_h1(h1(finite({128: 0.4, 256: 0.4}), finite({32: 0.0, 64: 0.0}, "Gaussian", n=100)))
    assert mix.status == "not reproduced" and [r["holds"] for r in mix.rows] == [False, None]
    # exactly half the draws above the bound at the largest width: "most" of them (a caveat)
    assert O.check_thm_h1(h1(finite({128: 0.0, 256: O.H1_MOST}))).status == "reproduced with caveat"
    # delta exactly DELTA_MIN: Assumption A fails
    assert O.check_thm_h1(h1(finite({256: 1.0}, delta=O.DELTA_MIN))).status == "not checked"


def _scaled(activation, role, ratio, lam_max, **kw):
    """A row whose lambda_min / lambda_max is ``ratio`` with lambda_max != 1 (a product would read another number)."""
    r = row(activation, role, ratio * lam_max, **kw)
    r["lam_max"] = lam_max
    return r


def test_ratios_are_ratios_and_limits_are_inclusive():
    # H.5: a premise activation at lambda_min / lambda_max = R exactly is singular; with lambda_max = 0.5 just above R
    # it is not (lambda_min * lambda_max would be below R)
    assert O.check_thm_h5(study(_scaled("exp", "premise", R, 1.0), row("hermite2", "control", 1e-17, rank_bound=15))).status \
        == "not reproduced"
    assert O.check_thm_h5(study(_scaled("exp", "premise", OUT * R, 0.5), row("hermite2", "control", 1e-17, rank_bound=15))).status \
        == "reproduced"
    # the control at R exactly is singular (it tells); with lambda_max = 2 just above R it is not
    assert O.check_thm_h5(study(row("exp", "premise", 1e-3), row("hermite2", "control", R, rank_bound=15))).status == "reproduced"
    assert O.check_thm_h5(study(row("exp", "premise", 1e-3), _scaled("hermite2", "control", IN * R, 2.0, rank_bound=15))).status \
        == "reproduced"
    assert O.check_thm_h5(study(row("exp", "premise", 1e-3), _scaled("hermite2", "control", OUT * R, 0.5, rank_bound=15))).status \
        == "inconclusive"
    # Sec 3.3: an input Gram matrix at R exactly is singular (to turn); the representations at R exactly are not
    # turned; lambda_max != 1 on both sides
    assert O.check_assumption_b(study(row(input_ratio=R))).status == "reproduced"
    assert O.check_assumption_b(study(row(ratio=R))).status == "not reproduced"
    b = row(ratio=OUT * R * 0.5)
    b.update(lam_max=0.5, input_min=IN * R * 2.0, input_max=2.0)
    assert O.check_assumption_b(study(b)).status == "reproduced"
    c = row()
    c.update(input_min=OUT * R * 0.5, input_max=0.5)
    assert O.check_assumption_b(study(c)).status == "not checked"
    # H.5 and Sec 3.3 judge no data set whose delta is DELTA_MIN exactly
    assert O.check_thm_h5(h5(delta=O.DELTA_MIN)).status == "not checked"
