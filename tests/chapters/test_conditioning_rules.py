"""Chapter 03 verdict rules on constructed inputs fed to the real ``check_*``: for each rule a case where the
paper's statement holds, one where it fails, the caveat level where there is one, and every threshold just
inside and just outside its value (built from the module constant, so x10, x0.1, a flipped comparison or a
dropped guard fails a test)."""
import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from lib.chapters import conditioning as C
from lib.spectra import min_pairwise_angle

# --------------------------------------------------------------------------- [LH] Prop 4.1, the bound

ANG = np.linspace(0.2, 0.6, 8)


def _bound(a):
    """1 - cos(a), written as prop41_bound writes it (the same float)."""
    return 2.0 * np.sin(np.asarray(a, dtype=float) / 2.0) ** 2


def _p41(angles, lmin_rel, activation="relu", kappa=None, extra=()):
    """A sweep whose cells have these smallest angles and lambda_min / max K_ii (max K_ii = 1, lambda_max = 2)."""
    angles, lmin = np.asarray(angles, dtype=float), np.asarray(lmin_rel, dtype=float)
    df = pd.DataFrame(dict(dataset="s", activation=activation, depth=1, seed=np.arange(len(angles)),
                           min_angle=angles, lambda_min=lmin, lambda_max=2.0, diag_max=1.0, singular=False,
                           interval=False))
    df["kappa"] = 2.0 / lmin if kappa is None else np.asarray(kappa, dtype=float)
    df = pd.concat([df, *extra], ignore_index=True) if extra else df
    return C.ConditioningSweep(pd.DataFrame(), ("s",), (0, 1), 512, frame=df)


def _odd_cells():
    """Cells the bound must not read: singular (not full row rank), matrix-free (no diagonal), an interval kappa;
    each with a lambda_min far above the bound."""
    base = dict(dataset="s", activation="relu", depth=1, seed=99, min_angle=0.3, lambda_min=10.0, lambda_max=20.0,
                diag_max=1.0, kappa=2.0, interval=False, singular=False)
    return pd.DataFrame([{**base, "singular": True, "kappa": math.inf}, {**base, "diag_max": math.nan},
                         {**base, "interval": True}])


def test_prop41_bound_holds_in_every_cell_reproduced_and_its_rows_say_every_psd_matrix_satisfies_it():
    c = C.check_prop41(_p41(ANG, 0.5 * _bound(ANG), extra=(_odd_cells(),)))
    assert c.status == "reproduced" and c.part == C.PROP41_BOUND and c.claim_id == "[LH] Prop 4.1"
    assert [r["holds"] for r in c.rows] == [True, True]
    assert all("every PSD matrix" in r["paper"] for r in c.rows)
    assert "holds in 8/8 non-singular cells" in c.measured and "1 singular cells" in c.measured
    assert "1 matrix-free cells" in c.measured and "not the network" in c.measured


def _coplanar_cells(n_cells=20, seed=0):
    """Real kernels K = B B^T whose lambda_min comes from a nearly coplanar triple of rows (eps off the plane),
    while the smallest angle is a separate pair at angle phi: phi rises while eps falls across the cells."""
    rng = np.random.default_rng(seed)
    rows = []
    for k, (phi, eps) in enumerate(zip(np.linspace(0.3, 0.5, n_cells), np.geomspace(3e-2, 3e-3, n_cells))):
        Q = np.linalg.qr(rng.standard_normal((12, 12)))[0]
        B = np.empty((6, 12))
        B[0], B[1] = Q[0], np.cos(phi) * Q[0] + np.sin(phi) * Q[1]  # the pair at the smallest angle
        B[2], B[3] = Q[2], Q[3]  # a triple: B[4] almost in the plane of B[2], B[3], at 45 degrees from each
        B[4] = (Q[2] + Q[3]) / np.sqrt(2) + eps * Q[4]
        B[5] = Q[5]
        B /= np.linalg.norm(B, axis=1, keepdims=True)
        K = B @ B.T
        ev = np.linalg.eigvalsh(K)
        rows.append(dict(dataset="s", activation="relu", depth=1, seed=k, min_angle=min_pairwise_angle(K),
                         lambda_min=ev[0], lambda_max=ev[-1], kappa=ev[-1] / ev[0], diag_max=K.diagonal().max(),
                         singular=False, interval=False))
    return C.ConditioningSweep(pd.DataFrame(), ("s",), (0, 1), 512, frame=pd.DataFrame(rows))


def test_prop41_bound_is_not_failed_when_the_smallest_angle_does_not_order_lambda_min():
    """The issue's example: lambda_min set by a nearly coplanar triple, not by the pair at the smallest angle. The
    bound holds in every cell (reproduced); only Sec. 4's ordering reading fails, under its own part."""
    sweep = _coplanar_cells()
    bound = C.check_prop41(sweep)
    assert bound.status == "reproduced" and "holds in 20/20" in bound.measured
    order = C.check_prop41_ordering(sweep)
    assert order.status == "not reproduced" and order.part == C.PROP41_ORDERING
    assert order.rows[0]["holds"] is False and "rho = -" in order.measured
    assert [c.part for c in C.checks_prop41(sweep)] == [C.PROP41_BOUND, C.PROP41_ORDERING]


@pytest.mark.parametrize("factor, status", [(0.5, "reproduced"), (2.0, "inconclusive")])
def test_prop41_lambda_min_bound_tolerance(factor, status):
    lmin = 0.5 * _bound(ANG)
    lmin[3] = _bound(ANG[3]) * (1 + factor * C.PROP41_RTOL)  # above the bound by rounding, or beyond it
    c = C.check_prop41(_p41(ANG, lmin))
    assert c.status == status and c.rows[0]["holds"] is (status == "reproduced") and c.rows[1]["holds"] is True
    if status == "inconclusive":  # an identity of linear algebra violated: a measurement error, never "not reproduced"
        assert "measurement error" in c.caveat and "holds in 7/8" in c.measured


@pytest.mark.parametrize("factor, status", [(0.5, "reproduced"), (2.0, "inconclusive")])
def test_prop41_kappa_bound_tolerance(factor, status):
    kappa = 2.0 / (0.5 * _bound(ANG))
    kappa[5] = (1.0 / _bound(ANG[5])) * (1 - factor * C.PROP41_RTOL)  # below 1/(1 - cos phi) by rounding, or beyond
    c = C.check_prop41(_p41(ANG, 0.5 * _bound(ANG), kappa=kappa))
    assert c.status == status and c.rows[0]["holds"] is True and c.rows[1]["holds"] is (status == "reproduced")


def test_prop41_bound_not_checked_when_no_cell_meets_the_premise():
    singular = _p41(ANG, 0.5 * _bound(ANG)).frame.assign(singular=True, kappa=math.inf)
    c = C.check_prop41(C.ConditioningSweep(pd.DataFrame(), ("s",), (0, 1), 512, frame=singular))
    assert c.status == "not checked" and c.caveat.startswith("not testable on this data") and "8 singular" in c.measured
    no_diag = _p41(ANG, 0.5 * _bound(ANG)).frame.assign(diag_max=math.nan)
    c = C.check_prop41(C.ConditioningSweep(pd.DataFrame(), ("s",), (0, 1), 512, frame=no_diag))
    assert c.status == "not checked" and "8 matrix-free cells" in c.measured


# --------------------------------------------------------------------------- Prop 4.1, Sec. 4's ordering reading

def _ranked(perm, activation="relu", extra=()):
    """Cells at rising angles whose lambda_min ranks follow ``perm``, all well under the bound."""
    n = len(perm)
    return _p41(np.linspace(0.2, 0.6, n), 1e-4 * (1.0 + np.asarray(perm, dtype=float)), activation=activation,
                extra=extra)


def _find(pred, sizes):
    """A rank permutation whose Spearman (rho, one-sided p) against 0..n-1 satisfies ``pred`` (searched, seeded)."""
    rng = np.random.default_rng(0)
    for n in sizes:
        for s in np.linspace(0.02, 1.0, 50):
            for _ in range(30):
                perm = np.argsort(np.argsort(np.arange(n) + s * n * rng.standard_normal(n)))
                r = spearmanr(np.arange(n), perm, alternative="greater")
                if pred(float(r.statistic), float(r.pvalue)):
                    return perm, float(r.statistic), float(r.pvalue)
    raise AssertionError("no permutation found")


def test_ordering_reproduced_on_a_perfect_order_and_ignores_the_linear_cells():
    n = C.PROP41_MIN_CELLS
    anti_linear = _ranked(np.arange(10)[::-1], activation="linear").frame
    c = C.check_prop41_ordering(_ranked(np.arange(n), extra=(anti_linear,)))
    assert c.status == "reproduced" and c.rows[0]["holds"] is True and f"Across {n} non-singular ReLU" in c.measured


def test_ordering_min_cells_boundary():
    c = C.check_prop41_ordering(_ranked(np.arange(C.PROP41_MIN_CELLS - 1)))
    assert c.status == "inconclusive" and "fewer than" in c.caveat and c.rows[0]["holds"] is None
    assert C.check_prop41_ordering(_ranked(np.arange(C.PROP41_MIN_CELLS))).status == "reproduced"


def test_ordering_not_reproduced_at_rho_zero_and_below():
    perm = next(p for p in itertools.permutations(range(7))
                if sum((i - v) ** 2 for i, v in enumerate(p)) == 7 * (7 ** 2 - 1) // 6)  # rho exactly 0
    assert spearmanr(np.arange(7), perm).statistic == pytest.approx(0.0, abs=1e-12)
    c = C.check_prop41_ordering(_ranked(perm))
    assert c.status == "not reproduced" and c.rows[0]["holds"] is False
    assert C.check_prop41_ordering(_ranked(np.arange(12)[::-1])).status == "not reproduced"


def test_ordering_alpha_boundary():
    a, r = C.PROP41_ALPHA, C.PROP41_RHO
    inside, rho, p = _find(lambda rho, p: rho >= r and a / 2 < p < a, range(9, 20))
    c = C.check_prop41_ordering(_ranked(inside))
    assert c.status == "reproduced", (rho, p)
    outside, rho, p = _find(lambda rho, p: rho >= r and a <= p < 2 * a, range(6, 14))
    c = C.check_prop41_ordering(_ranked(outside))
    assert c.status == "inconclusive" and "not significant" in c.caveat and c.rows[0]["holds"] is None, (rho, p)


def test_ordering_rho_boundary_and_the_caveat_level():
    a, r = C.PROP41_ALPHA, C.PROP41_RHO
    weak, rho, p = _find(lambda rho, p: 0.9 * r <= rho < r and p < a / 10, range(40, 80, 5))
    c = C.check_prop41_ordering(_ranked(weak))
    assert c.status == "reproduced with caveat" and "weak rank correlation" in c.caveat, (rho, p)
    assert c.rows[0]["holds"] is True
    strong, rho, p = _find(lambda rho, p: r <= rho < 1.1 * r and p < a / 10, range(40, 80, 5))
    assert C.check_prop41_ordering(_ranked(strong)).status == "reproduced", (rho, p)


def test_ordering_inconclusive_on_cells_that_do_not_vary_or_contradict_the_bound():
    same = _p41(np.full(8, 0.3), 1e-4 * (1.0 + np.arange(8)))
    c = C.check_prop41_ordering(same)
    assert c.status == "inconclusive" and "do not vary" in c.caveat
    bad = _ranked(np.arange(10)).frame.copy()
    bad.loc[0, "lambda_min"] = 1.0  # above (1 - cos phi) max K_ii: a measurement error
    c = C.check_prop41_ordering(C.ConditioningSweep(pd.DataFrame(), ("s",), (0, 1), 512, frame=bad))
    assert c.status == "inconclusive" and "measurement error" in c.caveat


# --------------------------------------------------------------------------- [LH] Thm 4.2

R, T = C.FIRST_LAYER_RTOL, C.FIRST_LAYER_LMIN_TOL


def _t42(kappa=(30.0, 20.0, 10.0), kappa0=1e4, below=True, lmin_gap=0.01, fw=(40.0, 25.0, 12.0), fw_below=True,
         protocol="full data"):
    depths = tuple(range(1, len(kappa) + 1))
    row = dict(dataset="s", protocol=protocol, kappa0=kappa0, depths=depths, kappa=tuple(kappa), below=below,
               lmin_gap=lmin_gap, fw_kappa=None if fw is None else tuple(fw), fw_below=fw_below)
    table = pd.DataFrame([row]).set_index(["dataset", "protocol"])
    return C.FirstLayerTable(table, names=("s", "t"), depths=(0, *depths), width=32)


def test_thm42_reproduced_when_every_clause_holds():
    c = C.check_first_layer(_t42())
    assert c.status == "reproduced" and c.caveat == "" and "Not testable on t" in c.measured
    assert [r["holds"] for r in c.rows] == [True, True, True, True]
    c = C.check_first_layer(_t42(fw=None, fw_below=None, protocol="small batches"))
    assert c.status == "reproduced" and len(c.rows) == 3 and "(every batch)" in c.rows[0]["rule"]


def test_thm42_a_flat_kappa_below_kappa0_is_not_a_decrease():
    """The issue's example: kappa = 40 at every depth, kappa_0 = 50."""
    c = C.check_first_layer(_t42(kappa=(40.0,) * 10, kappa0=50.0, fw=None, fw_below=None))
    assert c.status == "not reproduced" and "does not fall from L=1 to L=10" in c.measured
    assert [r["holds"] for r in c.rows] == [True, True, False]


def test_thm42_each_clause_fails_alone():
    assert C.check_first_layer(_t42(below=False)).status == "not reproduced"
    c = C.check_first_layer(_t42(kappa=(30.0, 35.0, 10.0)))
    assert c.status == "not reproduced" and "rises at L=[2]" in c.measured


@pytest.mark.parametrize("factor, status", [(0.5, "reproduced"), (2.0, "not reproduced")])
def test_thm42_lambda_min_tolerance(factor, status):
    c = C.check_first_layer(_t42(lmin_gap=-factor * T))
    assert c.status == status and c.rows[1]["holds"] is (status == "reproduced")


@pytest.mark.parametrize("step, status", [
    (-2.0, "reproduced"),  # a fall beyond rounding: strict
    (-0.5, "reproduced with caveat"),  # a step within rounding: strictness not resolved
    (0.5, "reproduced with caveat"),  # a rise within rounding: the same
    (2.0, "not reproduced"),  # a rise beyond rounding
])
def test_thm42_step_tolerance(step, status):
    c = C.check_first_layer(_t42(kappa=(40.0, 40.0 * (1 + step * R), 20.0)))
    assert c.status == status, c.measured
    if status == "reproduced with caveat":
        assert "strict decrease not resolved" in c.caveat and c.rows[2]["holds"] is True


@pytest.mark.parametrize("step, status", [(-2.0, "reproduced"), (-0.5, "not reproduced"), (0.5, "not reproduced")])
def test_thm42_fall_from_the_first_to_the_last_depth_tolerance(step, status):
    c = C.check_first_layer(_t42(kappa=(40.0, 40.0 * (1 + step * R)), fw=None, fw_below=None))
    assert c.status == status, c.measured


def test_thm42_steps_within_rounding_that_add_up_to_a_fall_are_a_caveat():
    kappa = 40.0 * (1 - 0.5 * R) ** np.arange(11)  # each step within rounding, 5 R in all
    c = C.check_first_layer(_t42(kappa=tuple(kappa), fw=None, fw_below=None))
    assert c.status == "reproduced with caveat" and "strict decrease not resolved" in c.caveat


def test_thm42_caveat_levels_finite_width_and_unmeasured_lambda_min():
    c = C.check_first_layer(_t42(fw=(40.0, 41.0, 12.0)))
    assert c.status == "reproduced with caveat" and "width-32 kernel rises at L=[2]" in c.caveat
    assert c.rows[3]["holds"] is False
    c = C.check_first_layer(_t42(fw_below=False))
    assert c.status == "reproduced with caveat" and "is not below kappa_0" in c.caveat
    c = C.check_first_layer(_t42(lmin_gap=math.nan))
    assert c.status == "reproduced with caveat" and "lambda_min not measured" in c.caveat
    assert c.rows[1]["holds"] is None and c.rows[1]["this book"] == "not measured"


def test_thm42_one_depth_is_inconclusive_and_empty_is_not_checked():
    c = C.check_first_layer(_t42(kappa=(30.0,), fw=None, fw_below=None))
    assert c.status == "inconclusive" and "fewer than two depths" in c.caveat and c.rows[2]["holds"] is None
    assert C.check_first_layer(_t42(kappa=(30.0,), below=False, fw=None, fw_below=None)).status == "not reproduced"
    c = C.check_first_layer(C.FirstLayerTable(pd.DataFrame(), ("s",), (0, 1, 2), 32))
    assert c.status == "not checked" and "not testable on this data" in c.caveat


# --------------------------------------------------------------------------- agreement with the authors' code

def _agree(**kw):
    row = dict(dataset="s", depth=1, activation="relu", n=8, d=3, scale=2 / 3, kernel_rel_err=1e-15,
               kappa_ours=10.0, kappa_theirs=10.0, kappa_rel_err=1e-15, angle_ours=0.5, angle_theirs=0.5,
               angle_err=1e-15)
    row.update(kw)
    singular = dict(row, activation="linear", kappa_ours=math.inf, kappa_theirs=-1e16, kappa_rel_err=math.nan)
    return C.AuthorsAgreement(pd.DataFrame([row, singular]), (1,), 16, 8)


@pytest.mark.parametrize("col, tol, row", [("kernel_rel_err", C.KERNEL_RTOL, 0), ("kappa_rel_err", C.KERNEL_RTOL, 1),
                                           ("angle_err", C.ANGLE_ATOL, 2)])
@pytest.mark.parametrize("factor, status", [(0.5, "reproduced"), (1.0, "reproduced"), (2.0, "not reproduced")])
def test_authors_agreement_tolerances(col, tol, row, factor, status):
    c = C.check_authors_agreement(_agree(**{col: factor * tol}))
    assert c.status == status and c.rows[row]["holds"] is (status == "reproduced")
    assert "a number, not inf" in c.measured  # the singular kernel's kappa is reported, not compared


# --------------------------------------------------------------------------- Figure 3

def _fig3(relu_angle, lin_angle, relu_kappa, lin_kappa, high=None, sizes=None, batch_size=512):
    rows = []
    for act, a, k in (("relu", relu_angle, relu_kappa), ("linear", lin_angle, lin_kappa)):
        for L, (ai, ki) in enumerate(zip(a, k)):
            hi = high[L] if (high is not None and act == "relu") else ki
            rows.append({"dataset": "s", "activation": act, "depth": L, "angle_mean": ai, "kappa_mean": ki,
                         "kappa_high_mean": hi, "kappa_batch_mean": ki, "interval": False})
    return C.ConditioningSweep(pd.DataFrame(rows), ("s",), tuple(range(len(relu_angle))), batch_size,
                               sizes=sizes or {"s": (batch_size, 3)})


def test_fig3_angle_is_strict():
    just_below = [10, 20 * (1 - 1e-12), 30 * (1 - 1e-12)]
    assert C.check_figure3_angle(_fig3([10, 20, 30], just_below, [1] * 3, [1] * 3)).status == "reproduced"
    c = C.check_figure3_angle(_fig3([10, 20, 30], [10, 10, 30], [1] * 3, [1] * 3))  # equal at L=2
    assert c.status == "not reproduced" and "not at s L=2" in c.measured
    assert C.check_figure3_angle(_fig3([10], [10], [1], [1])).status == "not checked"  # depth 0 only


def test_fig3_kappa_is_strict_and_a_single_batch_counts_once():
    ok = _fig3([1] * 3, [1] * 3, [1e4, 50, 20], [1e4, 1e4, 1e4])
    assert C.check_figure3_kappa(ok).status == "reproduced"
    c = C.check_figure3_kappa(_fig3([1] * 3, [1] * 3, [1e4, 50, 1e4], [1e4, 1e4, 1e4]))  # equal at L=2
    assert c.status == "not reproduced" and "(ReLU NOT smaller)" in c.measured
    one = C.check_figure3_kappa(_fig3([1] * 3, [1] * 3, [1e4, 50, 20], [1e4] * 3, sizes={"s": (512, 3)}))
    two = C.check_figure3_kappa(_fig3([1] * 3, [1] * 3, [1e4, 50, 20], [1e4] * 3, sizes={"s": (513, 3)}))
    assert len(one.rows) == 1 and len(two.rows) == 2 and "s (authors' batches)" in two.measured


def test_fig3_depth_fall_is_strict_and_any_rise_is_a_caveat():
    inf = math.inf
    flat = _fig3([1] * 3, [1] * 3, [inf, 50.0, 50.0], [inf] * 3)
    assert C.check_figure3(flat, "batch").status == "not reproduced"
    tick = _fig3([1] * 4, [1] * 4, [inf, 50.0, 20.0, 20.0 * (1 + 1e-12)], [inf] * 4)
    c = C.check_figure3(tick, "batch")
    assert c.status == "reproduced with caveat" and "rises at L=[3]" in c.measured
    fall = _fig3([1] * 3, [1] * 3, [inf, 50.0, 50.0 * (1 - 1e-12)], [inf] * 3)
    assert C.check_figure3(fall, "batch").status == "reproduced"


def test_fig3_depth_needs_two_depths_measured():
    inf = math.inf
    c = C.check_figure3(_fig3([1] * 2, [1] * 2, [inf, 50.0], [inf] * 2), "batch")
    assert c.status == "not checked" and "fewer than two depths" in c.caveat and "depths [0, 1]" in c.measured
    c = C.check_figure3(_fig3([1] * 3, [1] * 3, [inf, 50.0, math.nan], [inf] * 3), "full")
    assert c.status == "not checked" and c.rows == ()
    assert C.check_figure3(_fig3([1] * 3, [1] * 3, [inf, 50.0, 20.0], [inf] * 3), "full").status == "reproduced"


def test_fig3_full_data_fall_must_be_certified():
    inf = math.inf
    k = [inf, 50.0, 20.0]
    c = C.check_figure3(_fig3([1] * 3, [1] * 3, k, [inf] * 3, high=[inf, 50.0, 50.0]), "full")  # high end = start
    assert c.status == "inconclusive" and "intervals" in c.caveat and c.rows[0]["holds"] is None
    c = C.check_figure3(_fig3([1] * 3, [1] * 3, k, [inf] * 3, high=[inf, 50.0, 50.0 * (1 - 1e-12)]), "full")
    assert c.status == "reproduced"


def _cmp(dev, width=400):
    table = pd.DataFrame(dict(dataset="s", depth=[1, 2], angle_relu=[10.0, 20.0], angle_relu_theory=[10.0, 20.0],
                              kappa_relu=[5.0, 4.0], kappa_relu_theory=[5.0, 4.0], angle_rel_dev=[0.0, dev]))
    return C.TheoryComparison(table, width)


@pytest.mark.parametrize("units, status", [
    (C.THEORY_TOL_SQRT_M * 0.99, "reproduced"), (C.THEORY_TOL_SQRT_M * 1.01, "reproduced with caveat"),
    (C.THEORY_LOOSE_SQRT_M * 0.99, "reproduced with caveat"), (C.THEORY_LOOSE_SQRT_M * 1.01, "not reproduced")])
def test_fig3_infinite_width_prediction_tolerances(units, status):
    c = C.check_theory_prediction(_cmp(units / math.sqrt(400)))
    assert c.status == status and c.part == "infinite-width prediction"


# --------------------------------------------------------------------------- [LH] Thm F.1 (App. F)

def _two_sample(step):
    depths = [0, 1, 2, 3]
    kappa = [100.0, 50.0, 40.0, 40.0 * (1 + step * C.TWO_SAMPLE_RTOL)]
    frame = pd.DataFrame(dict(theta_in=0.1, depth=depths, phi=0.1, kappa_theory=kappa, kappa0=100.0,
                              kappa_median=kappa, kappa_mean=kappa))
    return C.TwoSample(frame, (0.1,), tuple(depths), 64, 2)


@pytest.mark.parametrize("step, status", [(0.5, "reproduced"), (2.0, "not reproduced")])
def test_two_sample_rounding_tolerance(step, status):
    assert C.check_two_sample(_two_sample(step)).status == status


# --------------------------------------------------------------------------- the thresholds themselves

def test_the_thresholds_are_the_documented_values():
    """The boundary tests above are built from the module constants, so they pin the comparisons, not the values;
    this pins the values, each justified beside its constant (a value x10 or x0.1 fails here)."""
    assert (C.PROP41_RTOL, C.PROP41_MIN_CELLS, C.PROP41_RHO, C.PROP41_ALPHA) == (1e-9, 6, 0.5, 0.05)
    assert (C.FIRST_LAYER_RTOL, C.FIRST_LAYER_LMIN_TOL) == (1e-9, 1e-10)
    assert (C.KERNEL_RTOL, C.ANGLE_ATOL) == (1e-10, 1e-6)
    assert (C.THEORY_TOL_SQRT_M, C.THEORY_LOOSE_SQRT_M) == (5.0, 15.0)
    assert C.TWO_SAMPLE_RTOL == 1e-12
