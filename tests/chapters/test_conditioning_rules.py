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

from lib.book.results import NAMED
from lib.chapters import conditioning as C
from lib.spectra import min_pairwise_angle


def _formed(c, part):
    """A check records its part, says what it measured, names its caveat when its status must, and fills each row."""
    assert c.part == part and isinstance(c.measured, str) and c.measured.strip()
    if c.status in NAMED:
        assert isinstance(c.caveat, str) and c.caveat.strip()
    for r in c.rows:
        assert all(isinstance(r[k], str) and r[k] for k in ("statement", "paper", "this book", "rule")), r
    return c

# --------------------------------------------------------------------------- [LH] Prop 4.1, the bound

ANG = np.linspace(0.2, 0.6, 8)


def _bound(a):
    """1 - cos(a), written as prop41_bound writes it (the same float)."""
    return 2.0 * np.sin(np.asarray(a, dtype=float) / 2.0) ** 2


def _p41(angles, lmin_rel, activation="relu", kappa=None, extra=(), diag=2.5):
    """A sweep whose cells have these smallest angles and lambda_min / max K_ii (max K_ii = ``diag``, lambda_max
    = 2 ``diag``, so kappa = 2 / (lambda_min / max K_ii))."""
    angles, lmin = np.asarray(angles, dtype=float), np.asarray(lmin_rel, dtype=float)
    df = pd.DataFrame(dict(dataset="s", activation=activation, depth=1, seed=np.arange(len(angles)),
                           min_angle=angles, lambda_min=lmin * diag, lambda_max=2.0 * diag, diag_max=diag,
                           singular=False, interval=False))
    df["kappa"] = 2.0 / lmin if kappa is None else np.asarray(kappa, dtype=float)
    df = pd.concat([df, *extra], ignore_index=True) if extra else df
    return C.ConditioningSweep(pd.DataFrame(), ("s",), (0, 1), 512, frame=df)


def _odd_cells():
    """Cells the bound must not read: singular (not full row rank), matrix-free (no diagonal), an interval kappa;
    each with a lambda_min far above the bound."""
    base = dict(dataset="s", activation="relu", depth=1, seed=99, min_angle=0.3, lambda_min=10.0, lambda_max=20.0,
                diag_max=1.0, kappa=2.0, interval=False, singular=False)
    return pd.DataFrame([{**base, "singular": True, "kappa": math.inf}, {**base, "diag_max": math.nan},
                         {**base, "diag_max": 0.0}, {**base, "interval": True}])


def test_prop41_bound_holds_in_every_cell_reproduced_and_its_rows_say_every_psd_matrix_satisfies_it():
    c = C.check_prop41(_p41(ANG, 0.5 * _bound(ANG), extra=(_odd_cells(),)))
    assert c.status == "reproduced" and c.part == C.PROP41_BOUND and c.claim_id == "[LH] Prop 4.1"
    assert [r["holds"] for r in c.rows] == [True, True]
    assert all("every PSD matrix" in r["paper"] for r in c.rows)
    assert "holds in 8/8 non-singular cells" in c.measured and "1 singular cells" in c.measured
    assert "2 matrix-free cells" in c.measured and "not the network" in c.measured
    _formed(c, C.PROP41_BOUND)
    no_interval = _p41(ANG, 0.5 * _bound(ANG)).frame.drop(columns="interval")  # a frame without interval kappas
    c = C.check_prop41(C.ConditioningSweep(pd.DataFrame(), ("s",), (0, 1), 512, frame=no_interval))
    assert c.status == "reproduced" and "holds in 8/8" in c.measured


def test_prop41_bound_at_exactly_the_tolerance_holds():
    lmin = 0.5 * _bound(ANG)
    lmin[2] = _bound(ANG[2]) * (1 + C.PROP41_RTOL)  # at most the tolerance: holds
    kappa = 2.0 / lmin
    kappa[4] = (1.0 / _bound(ANG[4])) * (1 - C.PROP41_RTOL)
    assert C.check_prop41(_p41(ANG, lmin, kappa=kappa, diag=1.0)).status == "reproduced"


def test_prop41_bound_says_how_close_to_the_bound_the_cells_sit():
    c = C.check_prop41(_p41(ANG, 0.5 * _bound(ANG)))
    assert "lambda_min is 0.5 to 0.5 times the bound" in c.measured and "matrix-free" not in c.measured
    assert c.rows[0]["this book"] == "holds in 8/8 cells; λ_min is 0.5 to 0.5 of the bound"


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
    assert order.status == "not reproduced" and order.claim_id == "[LH] Sec 4" and order.part == ""
    assert order.rows[0]["holds"] is False and "rho = -" in order.measured
    assert [(c.claim_id, c.part) for c in C.checks_prop41(sweep)] == [("[LH] Prop 4.1", C.PROP41_BOUND),
                                                                      ("[LH] Sec 4", "")]


@pytest.mark.parametrize("factor, status", [(0.5, "reproduced"), (2.0, "inconclusive")])
def test_prop41_lambda_min_bound_tolerance(factor, status):
    lmin = 0.5 * _bound(ANG)
    lmin[3] = _bound(ANG[3]) * (1 + factor * C.PROP41_RTOL)  # above the bound by rounding, or beyond it
    c = C.check_prop41(_p41(ANG, lmin))
    assert c.status == status and c.rows[0]["holds"] is (status == "reproduced") and c.rows[1]["holds"] is True
    _formed(c, C.PROP41_BOUND)
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
    _formed(c, C.PROP41_BOUND)
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
    _formed(c, "")
    zero = _p41([0.4], [0.0]).frame  # a cell with lambda_min = 0 that is not flagged singular: no log, left out
    c = C.check_prop41_ordering(_ranked(np.arange(n), extra=(zero,)))
    assert c.status == "reproduced" and f"Across {n} non-singular ReLU" in c.measured


def test_ordering_at_exactly_the_rho_threshold_is_reproduced():
    perm = list(range(15))
    for i, j in ((0, 10), (1, 7), (2, 4)):  # sum of d^2 = 280: rho = 1 - 6 * 280 / (15 * 224) = 0.5 exactly
        perm[i], perm[j] = perm[j], perm[i]
    r = spearmanr(np.arange(15), perm, alternative="greater")
    assert r.statistic == C.PROP41_RHO and r.pvalue < C.PROP41_ALPHA
    assert _formed(C.check_prop41_ordering(_ranked(perm)), "").status == "reproduced"


def test_ordering_min_cells_boundary():
    c = C.check_prop41_ordering(_ranked(np.arange(C.PROP41_MIN_CELLS - 1)))
    assert c.status == "inconclusive" and "fewer than" in c.caveat and c.rows[0]["holds"] is None
    _formed(c, "")
    assert C.check_prop41_ordering(_ranked(np.arange(C.PROP41_MIN_CELLS))).status == "reproduced"


def test_ordering_not_reproduced_at_rho_zero_and_below():
    perm = next(p for p in itertools.permutations(range(7))
                if sum((i - v) ** 2 for i, v in enumerate(p)) == 7 * (7 ** 2 - 1) // 6)  # rho exactly 0
    assert spearmanr(np.arange(7), perm).statistic == pytest.approx(0.0, abs=1e-12)
    c = _formed(C.check_prop41_ordering(_ranked(perm)), "")
    assert c.status == "not reproduced" and c.rows[0]["holds"] is False and "Spearman ρ = " in c.rows[0]["this book"]
    assert C.check_prop41_ordering(_ranked(np.arange(12)[::-1])).status == "not reproduced"


def test_ordering_alpha_boundary():
    a, r = C.PROP41_ALPHA, C.PROP41_RHO
    inside, rho, p = _find(lambda rho, p: rho >= r and a / 2 < p < a, range(9, 20))
    c = _formed(C.check_prop41_ordering(_ranked(inside)), "")
    assert c.status == "reproduced" and "Spearman ρ = " in c.rows[0]["this book"], (rho, p)
    outside, rho, p = _find(lambda rho, p: rho >= r and a <= p < 2 * a, range(6, 14))
    c = _formed(C.check_prop41_ordering(_ranked(outside)), "")
    assert c.status == "inconclusive" and "not significant" in c.caveat and c.rows[0]["holds"] is None, (rho, p)
    assert "Spearman ρ = " in c.rows[0]["this book"]


def test_ordering_rho_boundary_and_the_caveat_level():
    a, r = C.PROP41_ALPHA, C.PROP41_RHO
    weak, rho, p = _find(lambda rho, p: 0.9 * r <= rho < r and p < a / 10, range(40, 80, 5))
    c = _formed(C.check_prop41_ordering(_ranked(weak)), "")
    assert c.status == "reproduced with caveat" and "weak rank correlation" in c.caveat, (rho, p)
    assert "Spearman ρ = " in c.rows[0]["this book"]
    assert c.rows[0]["holds"] is True
    strong, rho, p = _find(lambda rho, p: r <= rho < 1.1 * r and p < a / 10, range(40, 80, 5))
    assert C.check_prop41_ordering(_ranked(strong)).status == "reproduced", (rho, p)


def test_ordering_inconclusive_on_cells_that_do_not_vary_or_contradict_the_bound():
    same = _p41(np.full(8, 0.3), 1e-4 * (1.0 + np.arange(8)))
    c = _formed(C.check_prop41_ordering(same), "")
    assert c.status == "inconclusive" and "do not vary" in c.caveat
    flat_lmin = _p41(ANG, np.full(len(ANG), 1e-4))  # the angles vary, lambda_min does not
    c = C.check_prop41_ordering(flat_lmin)
    assert c.status == "inconclusive" and "do not vary" in c.caveat
    bad = _ranked(np.arange(10)).frame.copy()
    bad.loc[0, "lambda_min"] = 1.0  # above (1 - cos phi) max K_ii: a measurement error
    c = _formed(C.check_prop41_ordering(C.ConditioningSweep(pd.DataFrame(), ("s",), (0, 1), 512, frame=bad)),
                "")
    assert c.status == "inconclusive" and "measurement error" in c.caveat


# --------------------------------------------------------------------------- [LH] Thm 4.2

R, T = C.FIRST_LAYER_RTOL, C.FIRST_LAYER_LMIN_TOL


def _t42(kappa=(30.0, 20.0, 10.0), kappa0=1e4, below=True, lmin_gap=0.01, fw=(40.0, 25.0, 12.0), fw_below=True,
         protocol="full data", se=1.0):
    depths = tuple(range(1, len(kappa) + 1))
    fw_se = None if fw is None else (tuple(se) if isinstance(se, tuple) else (se,) * len(fw))
    row = dict(dataset="s", protocol=protocol, kappa0=kappa0, depths=depths, kappa=tuple(kappa), below=below,
               lmin_gap=lmin_gap, fw_kappa=None if fw is None else tuple(fw), fw_se=fw_se, fw_below=fw_below)
    table = pd.DataFrame([row]).set_index(["dataset", "protocol"])
    return C.FirstLayerTable(table, names=("s", "t"), depths=(0, *depths), width=32)


INF = "infinite width"


def test_thm42_reproduced_when_every_clause_holds():
    c = _formed(C.check_first_layer(_t42()), INF)
    assert c.status == "reproduced" and c.caveat == "" and "Not testable on t" in c.measured
    assert "width-32" not in c.measured and "lambda_max = 0.01" in c.measured    # finite width is judged apart
    assert c.rows[0]["rule"] == "below at every depth" and c.rows[1]["this book"].startswith("smallest")
    assert "rises" not in c.rows[2]["this book"] and "flat" not in c.rows[2]["this book"]
    tested_all = C.FirstLayerTable(_t42().table, names=("s",), depths=(0, 1, 2, 3), width=32)
    assert "Not testable" not in C.check_first_layer(tested_all).measured
    assert [r["holds"] for r in c.rows] == [True, True, True]
    assert c.measured.startswith("Where kappa_0 is finite (1 data set/protocol pair): ")
    two = C.FirstLayerTable(pd.concat([_t42().table, _t42(protocol="small batches").table]), names=("s", "t"),
                            depths=(0, 1, 2, 3), width=32)
    assert C.check_first_layer(two).measured.startswith("Where kappa_0 is finite (2 data set/protocol pairs): ")
    c = C.check_first_layer(_t42(fw=None, fw_below=None, protocol="small batches"))
    assert c.status == "reproduced" and len(c.rows) == 3 and "(every batch)" in c.rows[0]["rule"]


def test_thm42_a_flat_kappa_below_kappa0_is_not_a_decrease():
    """The issue's example: kappa = 40 at every depth, kappa_0 = 50."""
    c = C.check_first_layer(_t42(kappa=(40.0,) * 10, kappa0=50.0, fw=None, fw_below=None))
    assert c.status == "not reproduced" and "does not fall from L=1 to L=10" in c.measured
    assert "kappa_0 = 50, infinite-width kappa(K_L) 40 (L=1) -> 40 (L=10)" in c.measured  # the numbers stay
    _formed(c, INF)
    assert [r["holds"] for r in c.rows] == [True, True, False]


def test_thm42_each_clause_fails_alone():
    assert C.check_first_layer(_t42(below=False)).status == "not reproduced"
    c = C.check_first_layer(_t42(kappa=(30.0, 35.0, 10.0)))
    assert c.status == "not reproduced" and "rises at L=[2]" in c.measured and "rises at L=[2]" in c.rows[2]["this book"]


@pytest.mark.parametrize("factor, status", [(0.5, "reproduced"), (1.0, "reproduced"), (2.0, "not reproduced")])
def test_thm42_lambda_min_tolerance(factor, status):
    c = C.check_first_layer(_t42(lmin_gap=-factor * T))
    assert c.status == status and c.rows[1]["holds"] is (status == "reproduced")


@pytest.mark.parametrize("step, status", [
    (-2.0, "reproduced"),  # a fall beyond rounding: strict
    (-0.5, "reproduced with caveat"),  # a step within rounding: strictness not resolved
    (0.5, "reproduced with caveat"),  # a rise within rounding: the same
    (2.0, "not reproduced"),  # a rise beyond rounding
    (-1.0, "reproduced with caveat"),  # exactly the tolerance: not resolved
])
def test_thm42_step_tolerance(step, status):
    c = C.check_first_layer(_t42(kappa=(40.0, 40.0 * (1 + step * R), 20.0)))
    assert c.status == status, c.measured
    _formed(c, INF)
    if status == "reproduced with caveat":
        assert "strict decrease not resolved" in c.caveat and c.rows[2]["holds"] is True
        assert "flat within rounding at L=[2]" in c.rows[2]["this book"]
    last = C.check_first_layer(_t42(kappa=(40.0, 20.0, 20.0 * (1 + step * R))))  # the same step, last
    assert last.status == status, last.measured


@pytest.mark.parametrize("step, status", [(-2.0, "reproduced"), (-1.0, "not reproduced"), (-0.5, "not reproduced"),
                                          (0.5, "not reproduced")])
def test_thm42_fall_from_the_first_to_the_last_depth_tolerance(step, status):
    c = C.check_first_layer(_t42(kappa=(40.0, 40.0 * (1 + step * R)), fw=None, fw_below=None))
    assert c.status == status, c.measured


def test_thm42_steps_within_rounding_that_add_up_to_a_fall_are_a_caveat():
    kappa = 40.0 * (1 - 0.5 * R) ** np.arange(11)  # each step within rounding, 5 R in all
    c = C.check_first_layer(_t42(kappa=tuple(kappa), fw=None, fw_below=None))
    assert c.status == "reproduced with caveat" and "strict decrease not resolved" in c.caveat


def test_thm42_finite_width_never_lowers_the_theorem():
    """The issue's example: width-512 kernels rising at a few depths. The theorem's part stays reproduced; the
    finite-width part says whether the rise is noise or a finite-width effect."""
    for fw in ((40.0, 60.0, 12.0), (40.0, 2e4, 12.0)):
        assert C.check_first_layer(_t42(fw=fw)).status == "reproduced"


def test_thm42_width_m_within_or_beyond_its_seed_noise():
    W = "width m"
    ok = _formed(C.check_first_layer_width(_t42()), W)
    assert ok.status == "reproduced" and "below kappa_0 and non-increasing" in ok.measured and ok.rows[0]["holds"]
    # a rise of the seed means between two depths against 2 combined standard errors, just inside / outside
    lim = C.FIRST_LAYER_SIGMAS * math.hypot(1.0, 1.0)
    noise = _formed(C.check_first_layer_width(_t42(fw=(40.0, 40.0 + 0.99 * lim, 12.0))), W)
    assert noise.status == "reproduced" and "Finite-width noise: s (full data): rises at L=2" in noise.measured
    assert noise.rows[0]["holds"] is True
    effect = _formed(C.check_first_layer_width(_t42(fw=(40.0, 40.0 + 1.01 * lim, 12.0))), W)
    assert effect.status == "reproduced with caveat" and "a finite-width effect" in effect.caveat
    assert effect.rows[0]["holds"] is False and "beyond its noise" in effect.rows[0]["this book"]
    # above kappa_0 against 2 standard errors of that depth's mean
    k0 = 50.0
    assert C.check_first_layer_width(_t42(kappa0=k0, fw=(40.0, k0 + 0.99 * 2, 12.0), se=(1.0, 1.0, 1.0))).status \
        == "reproduced with caveat"     # the rise from 40 is beyond its noise
    above = C.check_first_layer_width(_t42(kappa0=k0, fw=(k0 + 0.99 * 2, 40.0, 12.0)))
    assert above.status == "reproduced" and ">= kappa_0 at L=1, within" in above.measured
    above = C.check_first_layer_width(_t42(kappa0=k0, fw=(k0 + 1.01 * 2, 40.0, 12.0)))
    assert above.status == "reproduced with caveat" and ">= kappa_0 at L=1" in above.caveat
    # one seed: no spread, a departure cannot be told from noise
    one = _formed(C.check_first_layer_width(_t42(fw=(40.0, 41.0, 12.0), se=math.nan)), W)
    assert one.status == "inconclusive" and "noise not measured" in one.rows[0]["this book"] and one.rows[0]["holds"] is None
    assert C.check_first_layer_width(_t42(se=math.nan)).status == "reproduced"   # nothing departs: nothing to tell
    batches = C.check_first_layer_width(_t42(fw_below=False, protocol="small batches"))
    assert batches.status == "inconclusive" and "not below kappa_0 in every batch" in batches.caveat
    none = _formed(C.check_first_layer_width(_t42(fw=None, fw_below=None)), W)
    assert none.status == "not checked"
    assert C.check_first_layer_width(C.FirstLayerTable(pd.DataFrame(), ("s",), (0, 1, 2), 32)).status == "not checked"


def test_thm42_caveat_level_unmeasured_lambda_min():
    c = C.check_first_layer(_t42(lmin_gap=math.nan))
    assert c.status == "reproduced with caveat" and "lambda_min not measured" in c.caveat
    assert c.rows[1]["holds"] is None and c.rows[1]["this book"] == "not measured" and "min (lambda_min" not in c.measured


def test_thm42_one_depth_is_inconclusive_and_empty_is_not_checked():
    c = _formed(C.check_first_layer(_t42(kappa=(30.0,), fw=None, fw_below=None)), INF)
    assert c.status == "inconclusive" and "fewer than two depths" in c.caveat and c.rows[2]["holds"] is None
    assert C.check_first_layer(_t42(kappa=(30.0,), below=False, fw=None, fw_below=None)).status == "not reproduced"
    c = _formed(C.check_first_layer(C.FirstLayerTable(pd.DataFrame(), ("s",), (0, 1, 2), 32)), INF)
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
    c = _formed(C.check_authors_agreement(_agree(**{col: factor * tol})), "agreement with the authors' code")
    assert c.status == status and c.rows[row]["holds"] is (status == "reproduced")
    assert "kappa is -1e+16 to -1e+16: a number, not inf" in c.measured  # reported, not compared
    assert c.rows[1]["this book"] == f"{(factor * tol if col == 'kappa_rel_err' else 1e-15):.1e}"


def test_authors_agreement_without_a_finite_kappa_compares_kernels_and_angles():
    ag = _agree()
    only_singular = C.AuthorsAgreement(ag.frame[~np.isfinite(ag.frame.kappa_ours)], (1,), 16, 8)
    c = _formed(C.check_authors_agreement(only_singular), "agreement with the authors' code")
    assert c.status == "reproduced" and c.rows[1]["holds"] is None and c.rows[1]["this book"] == "no finite κ"
    assert "On the 1 singular kernels" in c.measured
    assert "On the" not in C.check_authors_agreement(C.AuthorsAgreement(ag.frame.iloc[:1], (1,), 16, 8)).measured


# --------------------------------------------------------------------------- Figure 3

def _fig3_rows(relu_angle, lin_angle, relu_kappa, lin_kappa, high=None, ds="s"):
    rows = []
    for act, a, k in (("relu", relu_angle, relu_kappa), ("linear", lin_angle, lin_kappa)):
        for L, (ai, ki) in enumerate(zip(a, k)):
            hi = high[L] if (high is not None and act == "relu") else ki
            rows.append({"dataset": ds, "activation": act, "depth": L, "angle_mean": ai, "kappa_mean": ki,
                         "kappa_high_mean": hi, "kappa_batch_mean": ki, "interval": False})
    return rows


def _fig3(relu_angle, lin_angle, relu_kappa, lin_kappa, high=None, sizes=None, batch_size=512):
    return C.ConditioningSweep(pd.DataFrame(_fig3_rows(relu_angle, lin_angle, relu_kappa, lin_kappa, high)), ("s",),
                               tuple(range(len(relu_angle))), batch_size, sizes=sizes or {"s": (batch_size, 3)})


def _fig3_two(first, second, sizes=None):
    """Two data sets, "a" then "b", each given as the arguments of :func:`_fig3_rows`."""
    rows = _fig3_rows(*first, ds="a") + _fig3_rows(*second, ds="b")
    return C.ConditioningSweep(pd.DataFrame(rows), ("a", "b"), tuple(range(len(first[0]))), 512,
                               sizes=sizes or {"a": (512, 3), "b": (512, 3)})


def test_fig3_angle_is_strict():
    just_below = [10, 20 * (1 - 1e-12), 30 * (1 - 1e-12)]
    assert C.check_figure3_angle(_fig3([10, 20, 30], just_below, [1] * 3, [1] * 3)).status == "reproduced"
    c = _formed(C.check_figure3_angle(_fig3([10, 20, 30], [10, 10, 30], [1] * 3, [1] * 3)), "angle")  # equal at L=2
    assert c.status == "not reproduced" and "not at s L=2" in c.measured
    assert "30 deg (linear) vs 30 deg (ReLU) at L=2" in c.measured  # the largest depth
    assert _formed(C.check_figure3_angle(_fig3([10], [10], [1], [1])), "angle").status == "not checked"
    for gap in ([10, math.nan, 30], [10, 20, math.nan]):  # a depth without its full data, either network: left out
        c = C.check_figure3_angle(_fig3([10, 5, 30, 40], gap + [10], [1] * 4, [1] * 4))
        assert c.status == "not reproduced" and "ReLU larger in 1/2" in c.measured
    c = C.check_figure3_angle(_fig3([10, 21, 30, 40], [10, 20, 20, 20], [1] * 4, [1] * 4))
    assert "20 deg (linear) vs 40 deg (ReLU) at L=3" in c.measured  # the largest depth
    assert c.rows[0]["this book"] == "ReLU vs linear: 21 vs 20 at L=1, 40 vs 20 at L=3"  # the two ends
    unmeasured = _fig3_two(([10, 21, 30], [10, 20, 20], [1] * 3, [1] * 3),
                           ([10, math.nan, math.nan], [10, math.nan, math.nan], [1] * 3, [1] * 3))
    c = C.check_figure3_angle(unmeasured)
    assert c.status == "reproduced" and c.rows[1]["this book"] == "not measured" and c.rows[1]["holds"] is None
    c = C.check_figure3_angle(_fig3([10, math.nan, 30, 40], [10, 20, 20, 20], [1] * 4, [1] * 4))
    assert c.status == "reproduced" and "2/2" in c.measured
    assert c.rows[0]["this book"] == "ReLU vs linear: 30 vs 20 at L=2, 40 vs 20 at L=3"


def test_fig3_kappa_is_strict_and_a_single_batch_counts_once():
    ok = C.check_figure3_kappa(_fig3([1] * 3, [1] * 3, [1e4, 50, 20], [1e4, 1e4, 1e4]))
    assert ok.status == "reproduced" and "NOT smaller" not in ok.measured and "Not testable" not in ok.measured
    c = C.check_figure3_kappa(_fig3([1] * 3, [1] * 3, [1e4, 50, 1e4], [1e4, 1e4, 1e4]))  # equal at L=2
    assert c.status == "not reproduced" and "(ReLU NOT smaller)" in c.measured
    one = C.check_figure3_kappa(_fig3([1] * 3, [1] * 3, [1e4, 50, 20], [1e4] * 3, sizes={"s": (512, 3)}))
    two = C.check_figure3_kappa(_fig3([1] * 3, [1] * 3, [1e4, 50, 20], [1e4] * 3, sizes={"s": (513, 3)}))
    assert len(one.rows) == 1 and len(two.rows) == 2 and "s (authors' batches)" in two.measured
    assert "(full data)" in one.rows[0]["statement"]  # the one batch is the full data, judged under that name
    _formed(one, "ReLU vs linear kappa")


def test_fig3_kappa_reads_every_data_set_and_skips_unmeasured_depths():
    inf, nan = math.inf, math.nan
    unmeasured = ([1] * 3, [1] * 3, [nan, nan, nan], [nan, nan, nan])
    one_batch_then_fail = _fig3_two(([1] * 3, [1] * 3, [1e4, 50, 20], [1e4] * 3),
                                    ([1] * 3, [1] * 3, [1e4, 1e5, 20], [1e4] * 3))
    assert C.check_figure3_kappa(one_batch_then_fail).status == "not reproduced"  # "b" is read after "a"
    c = C.check_figure3_kappa(_fig3_two(unmeasured, ([1] * 3, [1] * 3, [1e4, 1e5, 20], [1e4] * 3)))
    assert c.status == "not reproduced" and len(c.rows) == 1
    batches_only = _fig3([1] * 3, [1] * 3, [1e4, 50, 20], [1e4] * 3, sizes={"s": (5000, 3)})
    batches_only.summary["kappa_mean"] = nan  # full data not measured; the authors' batches are
    c = C.check_figure3_kappa(batches_only)
    assert c.status == "reproduced" and "s (authors' batches)" in c.measured and len(c.rows) == 1
    partly = _fig3([1] * 3, [1] * 3, [1e4, nan, 20], [1e4, 10.0, 1e4])  # ReLU not measured at L=1: left out
    assert C.check_figure3_kappa(partly).status == "reproduced"
    vacuous = _formed(C.check_figure3_kappa(_fig3([1] * 3, [1] * 3, [inf] * 3, [inf] * 3)), "ReLU vs linear kappa")
    assert vacuous.status == "not checked" and "Not testable: s (full data)" in vacuous.measured


def test_fig3_depth_fall_is_strict_and_any_rise_is_a_caveat():
    inf, nan = math.inf, math.nan
    flat = _fig3([1] * 3, [1] * 3, [inf, 50.0, 50.0], [inf] * 3)
    assert C.check_figure3(flat, "batch").status == "not reproduced"
    tick = _fig3([1] * 4, [1] * 4, [inf, 50.0, 20.0, 20.0 * (1 + 1e-12)], [inf] * 4)
    c = _formed(C.check_figure3(tick, "batch"), "kappa decreases with depth (the authors' batches)")
    assert c.status == "reproduced with caveat" and "rises at L=[3]" in c.measured
    assert "rises at L=[3]" in c.rows[0]["this book"] and "Not monotone: s rises at L=[3]." in c.measured
    fall = _fig3([1] * 3, [1] * 3, [inf, 50.0, 50.0 * (1 - 1e-12)], [inf] * 3)
    assert _formed(C.check_figure3(fall, "batch"), "kappa decreases with depth (the authors' batches)").status == \
        "reproduced"
    back_up = _fig3([1] * 4, [1] * 4, [inf, 50.0, 20.0, 60.0], [inf] * 4)  # falls at first, ends above the start
    c = _formed(C.check_figure3(back_up, "batch"), "kappa decreases with depth (the authors' batches)")
    assert c.status == "not reproduced" and c.rows[0]["paper"] == "decreases"
    c = _formed(C.check_figure3(back_up, "full"), "kappa decreases with depth (full data)")
    assert c.status == "inconclusive" and c.rows[0]["paper"] == "decreases (measured in batches only)"
    both = _fig3_two(([1] * 3, [1] * 3, [inf, 50.0, 20.0], [inf] * 3), ([1] * 3, [1] * 3, [inf, 50.0, 60.0], [inf] * 3))
    assert C.check_figure3(both, "batch").status == "not reproduced"  # the second data set is read too
    skip_first = _fig3_two(([1] * 3, [1] * 3, [inf, 50.0, nan], [inf] * 3),
                           ([1] * 3, [1] * 3, [inf, 50.0, 60.0], [inf] * 3))
    assert C.check_figure3(skip_first, "batch").status == "not reproduced"


def test_fig3_depth_needs_two_depths_measured():
    inf = math.inf
    c = _formed(C.check_figure3(_fig3([1] * 2, [1] * 2, [inf, 50.0], [inf] * 2), "batch"),
                "kappa decreases with depth (the authors' batches)")
    assert c.status == "not checked" and "fewer than two depths" in c.caveat and "depths [0, 1]" in c.measured
    c = C.check_figure3(_fig3([1] * 3, [1] * 3, [inf, 50.0, math.nan], [inf] * 3), "full")
    assert c.status == "not checked" and c.rows == ()
    c = C.check_figure3(_fig3([1] * 3, [1] * 3, [inf, 50.0, 20.0], [inf] * 3), "full")
    assert c.status == "reproduced" and "Non-increasing on every data set." in c.measured and "rises" not in c.rows[0]["this book"]


def test_fig3_full_data_fall_must_be_certified():
    inf = math.inf
    k = [inf, 50.0, 20.0]
    c = C.check_figure3(_fig3([1] * 3, [1] * 3, k, [inf] * 3, high=[inf, 50.0, 50.0]), "full")  # high end = start
    assert c.status == "inconclusive" and "intervals" in c.caveat and c.rows[0]["holds"] is None
    _formed(c, "kappa decreases with depth (full data)")
    c = C.check_figure3(_fig3([1] * 3, [1] * 3, k, [inf] * 3, high=[inf, 50.0, 50.0 * (1 - 1e-12)]), "full")
    assert c.status == "reproduced"
    # the high end of the last depth is what certifies the fall, not that of another depth
    c = C.check_figure3(_fig3([1] * 4, [1] * 4, [inf, 50.0, 30.0, 20.0], [inf] * 4, high=[inf, 50.0, 40.0, 60.0]),
                        "full")
    assert c.status == "inconclusive" and "intervals" in c.caveat


def _cmp(dev, width=400):
    table = pd.DataFrame(dict(dataset="s", depth=[1, 2, 3], angle_relu=[10.0, 20.0, 30.0],
                              angle_relu_theory=[10.0, 20.0, 30.0], kappa_relu=[10.0, 4.0, math.inf],
                              kappa_relu_theory=[5.0, 4.0, 3.0], angle_rel_dev=[0.0, dev, 0.0]))
    return C.TheoryComparison(table, width)


@pytest.mark.parametrize("units, status", [
    (C.THEORY_TOL_SQRT_M * 0.99, "reproduced"), (C.THEORY_TOL_SQRT_M, "reproduced with caveat"),
    (C.THEORY_TOL_SQRT_M * 1.01, "reproduced with caveat"), (C.THEORY_LOOSE_SQRT_M * 0.99, "reproduced with caveat"),
    (C.THEORY_LOOSE_SQRT_M, "not reproduced"), (C.THEORY_LOOSE_SQRT_M * 1.01, "not reproduced")])
def test_fig3_infinite_width_prediction_tolerances(units, status):
    c = _formed(C.check_theory_prediction(_cmp(units / math.sqrt(400))), "infinite-width prediction")
    assert c.status == status and "(max, s L=2)" in c.measured
    assert (c.caveat != "") is (status == "reproduced with caveat")
    assert "kappa is 1 to 2 times the infinite-width kappa" in c.measured  # finite kappas only


# --------------------------------------------------------------------------- [LH] Thm F.1 (App. F)

def _two_sample(step):
    depths = [0, 1, 2, 3]
    kappa = [100.0, 50.0, 40.0, 40.0 * (1 + step * C.TWO_SAMPLE_RTOL)]
    frame = pd.DataFrame(dict(theta_in=0.1, depth=depths, phi=0.1, kappa_theory=kappa, kappa0=100.0,
                              kappa_median=kappa, kappa_mean=kappa))
    return C.TwoSample(frame, (0.1,), tuple(depths), 64, 2)


@pytest.mark.parametrize("step, status", [(0.5, "reproduced"), (2.0, "not reproduced")])
def test_two_sample_rounding_tolerance(step, status):
    c = _formed(C.check_two_sample(_two_sample(step)), "")
    assert c.status == status and "within 0 (median" in c.measured  # the finite-width medians equal the theory


def test_two_sample_depth_one_counts_for_below_kappa0():
    t2 = _two_sample(-1.0)
    at1 = t2.frame.assign(kappa_theory=np.where(t2.frame.depth == 1, 100.0, t2.frame.kappa_theory))  # = kappa_0
    c = C.check_two_sample(C.TwoSample(at1, t2.angles, t2.depths, 64, 2))
    assert c.status == "not reproduced" and "NOT everywhere" in c.measured


# --------------------------------------------------------------------------- the thresholds themselves

def test_the_thresholds_are_the_documented_values():
    """The boundary tests above are built from the module constants, so they pin the comparisons, not the values;
    this pins the values, each justified beside its constant (a value x10 or x0.1 fails here)."""
    assert (C.PROP41_RTOL, C.PROP41_MIN_CELLS, C.PROP41_RHO, C.PROP41_ALPHA) == (1e-9, 6, 0.5, 0.05)
    assert (C.FIRST_LAYER_RTOL, C.FIRST_LAYER_LMIN_TOL, C.FIRST_LAYER_SIGMAS) == (1e-9, 1e-10, 2.0)
    assert (C.KERNEL_RTOL, C.ANGLE_ATOL) == (1e-10, 1e-6)
    assert (C.THEORY_TOL_SQRT_M, C.THEORY_LOOSE_SQRT_M) == (5.0, 15.0)
    assert C.TWO_SAMPLE_RTOL == 1e-12


def test_thm42_width_m_equal_seed_means_are_no_departure():
    """A seed mean equal to the previous depth's does not rise, one equal to kappa_0 is not below it."""
    flat = C.check_first_layer_width(_t42(fw=(40.0, 40.0, 12.0), se=math.nan))
    assert flat.status == "reproduced" and flat.rows[0]["holds"] is True
    at = C.check_first_layer_width(_t42(kappa0=50.0, fw=(50.0, 40.0, 12.0), se=math.nan))
    assert at.status == "inconclusive" and ">= kappa_0 at L=1" in at.caveat


def test_thm42_width_m_reads_each_depth_its_own_noise_and_old_cells():
    # a rise at the last step is read; its noise is that of the two depths around it (not the first one's)
    last = C.check_first_layer_width(_t42(fw=(40.0, 30.0, 35.0), se=(10.0, 0.1, 0.1)))
    assert last.status == "reproduced with caveat" and "rises at L=3" in last.caveat
    # an excess over kappa_0 against 2 standard errors of that depth: 0.5 here, so 1.0
    over = C.check_first_layer_width(_t42(kappa0=50.0, fw=(52.0, 40.0, 12.0), se=0.5))
    assert over.status == "reproduced with caveat"
    # a rise exactly at its noise is noise: 2 * hypot(0.5, 0) = 1.0
    edge = C.check_first_layer_width(_t42(fw=(40.0, 41.0, 12.0), se=(0.5, 0.0, 0.0)))
    assert edge.status == "reproduced" and edge.rows[0]["holds"] is True
    # a row cached before the spread was recorded (no fw_se): departures cannot be told from noise
    t = _t42(fw=(40.0, 41.0, 12.0))
    table = t.table.drop(columns="fw_se")
    old = C.check_first_layer_width(C.FirstLayerTable(table, t.names, t.depths, t.width))
    assert old.status == "inconclusive" and "noise not measured" in old.rows[0]["this book"]
