"""Chapter 04's verdict rules, pinned at every threshold.

Each rule is fed constructed inputs through the real ``check_*``: one where the paper's statement holds,
one where it fails, one in between where the rule has such a level, and every threshold just inside and just
outside its value (built from the documented value, :data:`DOCUMENTED`, which the module constants must equal),
so that a threshold x10 or x0.1, a flipped comparison, a swapped and/or or a dropped guard fails a test.
"""
import math

import numpy as np
import pandas as pd
import pytest

from lib.chapters import infinite_depth as D
from lib.chapters.infinite_depth import aak_depth as AD
from lib.chapters.infinite_depth import app_e as AE
from lib.chapters.infinite_depth import collapse as CO
from lib.chapters.infinite_depth import dual_activation as DA
from lib.chapters.infinite_depth import gradient_angle as GA
from lib.chapters.infinite_depth import lengths as LE
from lib.chapters.infinite_depth import relu_kappa as RK

#: the thresholds as the docstrings state them; the boundary tests below are built from these values
DOCUMENTED = dict(AAK_MIN_RATIO={"nngp": 0.9, "ntk": 0.9}, AAK_SHARP_MIN_RATIO=0.75, AAK_NO_DECAY_RATIO=0.1,
                  AAK_NEAR_ONE=1.1, RELU_KAPPA_FLOOR=1.5, PHI90_TOL_DEG=1.0, PHI90_SHRINK=0.5, THM43_RTOL=0.1,
                  THM35_TOL_DEG=1.0, THM35_MIN_DECAY=0.5, G_MC_SIGMAS=5.0, COLLAPSE_TOL=1e-3, DUAL_ATOL=1e-10,
                  NORMRELU_SIGMAS=5.0, LENGTH_TOL=1e-6, LENGTH_SHRINK=0.5, E6_MIN_SLOPE=0.5, E6_FAIL_SLOPE=0.2)
IN, OUT = 0.99, 1.01   # just inside, just outside


def test_the_thresholds_are_the_documented_ones():
    for name, value in DOCUMENTED.items():
        assert getattr(D, name) == value, name


# ---------------------------------------------------------------- [AAK] Thm 3.2 / 3.4
MU, CHI = 0.1, 1.2
PAPER = float(np.log1p(-MU))       # the paper's per-layer rate, log(1 - mu), as the check computes it
SHARP = math.log((1 - MU) / CHI)    # this book's sharper NTK prediction


def aak_rates(kind, *acts):
    """``acts``: (fitted slope, kappa at the deepest layer[, centred]) per activation."""
    rows = [dict(activation=f"a{i}", kernel=kind, mu=MU, chi=CHI, centred=(a[2] if len(a) > 2 else True),
                 fitted_slope=a[0], predicted_slope=PAPER if kind == "nngp" else SHARP, fit_range="200-400",
                 kappa_at_max=a[1]) for i, a in enumerate(acts)]
    return AD.AakDepth(pd.DataFrame(), pd.DataFrame(), {}, {}, pd.DataFrame(rows), [r["activation"] for r in rows],
                       20, 400, 64, [1], 1)


def aak(kind, *acts):
    return AD.check_aak_rate(aak_rates(kind, *acts), kind)


def test_aak_holds_fails_and_between():
    assert aak("nngp", (PAPER, 1.01)).status == "reproduced"
    assert aak("ntk", (SHARP, 1.01)).status == "reproduced"
    # slower than the paper's rate once correlations are small: fails
    assert aak("nngp", (0.5 * PAPER, 1.01)).status == "not reproduced"
    assert aak("ntk", (0.5 * PAPER, 1.01)).status == "not reproduced"
    # the NTK at the paper's rate but slower than the sharper prediction: a caveat, never a failure
    mid = aak("ntk", (1.5 * PAPER, 1.01))
    assert mid.status == "reproduced with caveat" and "sharper prediction" in mid.caveat
    assert "log((1 - mu)/chi)" in mid.measured and "fitted / sharper prediction" in mid.measured
    # kappa - 1 flat: not reproduced whatever the depth; kappa still far from 1 but decaying: inconclusive
    assert aak("ntk", (0.0, 5.0)).status == "not reproduced"
    far = aak("ntk", (SHARP, 5.0))
    assert far.status == "inconclusive" and "deeper needed" in far.caveat


def test_aak_every_activation_is_judged():
    assert aak("ntk", (SHARP, 1.01), (0.5 * PAPER, 1.01)).status == "not reproduced"
    assert aak("ntk", (SHARP, 1.01), (1.5 * PAPER, 1.01)).status == "reproduced with caveat"
    assert aak("ntk", (SHARP, 1.01), (SHARP, 1.5)).status == "inconclusive"
    assert aak("ntk", (SHARP, 1.01), (0.0, 1.01)).status == "not reproduced"


def test_aak_premise_and_missing_fit():
    none = aak("ntk", (SHARP, 1.01, False))
    assert none.status == "not checked" and "centred" in none.caveat
    nofit = aak("ntk", (math.nan, 1.01))
    assert nofit.status == "inconclusive" and "no slope fitted" in nofit.caveat


@pytest.mark.parametrize("kind,where,status", [("nngp", IN, "not reproduced"), ("nngp", OUT, "reproduced"),
                                               ("ntk", IN, "not reproduced"), ("ntk", OUT, "reproduced with caveat")])
def test_aak_paper_rate_boundary(kind, where, status):
    # fitted / log(1 - mu) just below / above the smallest ratio that meets the paper's rate
    assert aak(kind, (PAPER * DOCUMENTED["AAK_MIN_RATIO"][kind] * where, 1.01)).status == status


@pytest.mark.parametrize("where,status", [(IN, "reproduced with caveat"), (OUT, "reproduced")])
def test_aak_sharper_prediction_boundary(where, status):
    assert aak("ntk", (SHARP * DOCUMENTED["AAK_SHARP_MIN_RATIO"] * where, 1.01)).status == status


@pytest.mark.parametrize("where,status", [(IN, "not reproduced"), (OUT, "inconclusive")])
def test_aak_no_decay_boundary(where, status):
    # kappa still far from 1: a decay just above the no-decay ratio waits for depth, one below it fails
    assert aak("ntk", (PAPER * DOCUMENTED["AAK_NO_DECAY_RATIO"] * where, 5.0)).status == status


@pytest.mark.parametrize("kappa,status", [(1 + (DOCUMENTED["AAK_NEAR_ONE"] - 1) * IN, "reproduced"),
                                          (DOCUMENTED["AAK_NEAR_ONE"], "inconclusive"),
                                          (1 + (DOCUMENTED["AAK_NEAR_ONE"] - 1) * OUT, "inconclusive")])
def test_aak_near_one_boundary(kappa, status):
    assert aak("nngp", (PAPER, kappa)).status == status


def test_aak_thresholds_at_equality():
    """fitted / rate exactly at a threshold (exact in floating point for mu = 0.1): the threshold itself passes."""
    assert (PAPER * 0.1) / PAPER == 0.1 and (PAPER * 0.9) / PAPER == 0.9
    assert aak("ntk", (PAPER * DOCUMENTED["AAK_NO_DECAY_RATIO"], 5.0)).status == "inconclusive"
    assert aak("nngp", (PAPER * DOCUMENTED["AAK_MIN_RATIO"]["nngp"], 1.01)).status == "reproduced"
    sharp = aak_rates("ntk", (-DOCUMENTED["AAK_SHARP_MIN_RATIO"], 1.01))
    sharp = AD.AakDepth(**{**sharp.__dict__, "rates": sharp.rates.assign(predicted_slope=-1.0)})
    assert AD.check_aak_rate(sharp, "ntk").status == "reproduced"


# ---------------------------------------------------------------- [AAK] Thm 3.10
def relu_kk(corrs, kappa_ntk, activation="relu"):
    return pd.DataFrame(dict(activation=activation, depth=range(len(corrs)), max_abs_corr_nngp=corrs,
                             kappa_nngp=[10.0] * len(corrs), kappa_ntk=[kappa_ntk] * len(corrs)))


def relu(kk):
    return AD.check_relu_uncentred(AD.AakDepth(kk, pd.DataFrame(), {}, {}, pd.DataFrame(), [], 20, 3, 64, [1], 1))


def test_relu_uncentred_holds_fails_and_premise():
    assert relu(relu_kk([1.0, 0.9, 0.95, 0.99], 7.0)).status == "reproduced"
    # correlations falling (a decorrelating activation): fails, whatever kappa does
    assert relu(relu_kk([1.0, 0.9, 0.5, 0.2], 7.0)).status == "not reproduced"
    # correlations rising but the NTK kappa near 1: fails
    assert relu(relu_kk([1.0, 0.9, 0.95, 0.99], 1.0)).status == "not reproduced"
    # no ReLU in the study: nothing to test (the docstring says so too)
    none = relu(relu_kk([1.0, 0.9, 0.95, 0.99], 7.0, activation="tanh"))
    assert none.status == "not checked" and "no uncentred activation" in none.caveat
    assert '"not checked" when ReLU is not in the study' in AD.check_relu_uncentred.__doc__


def test_relu_uncentred_kappa_floor_at_equality():
    assert relu(relu_kk([1.0, 0.9, 0.95, 0.99], DOCUMENTED["RELU_KAPPA_FLOOR"])).status == "not reproduced"


def test_relu_uncentred_compares_with_layer_one():
    # depth 0 (the inputs) is not layer 1: a correlation above layer 1's but below the inputs' still grows
    assert relu(relu_kk([0.999, 0.9, 0.95, 0.99], 7.0)).status == "reproduced"
    assert relu(relu_kk([0.5, 0.9, 0.95, 0.9 * OUT], 7.0)).status == "reproduced"
    assert relu(relu_kk([0.5, 0.9, 0.95, 0.9], 7.0)).status == "not reproduced"   # equal: did not grow


@pytest.mark.parametrize("where,status", [(IN, "not reproduced"), (OUT, "reproduced")])
def test_relu_uncentred_kappa_floor(where, status):
    assert relu(relu_kk([1.0, 0.9, 0.95, 0.99], DOCUMENTED["RELU_KAPPA_FLOOR"] * where)).status == status


# ---------------------------------------------------------------- [LH] Fig 2 (phi -> 90 deg)
def phi90_kk(**devs):
    """``devs``: activation -> (deviation at the middle depth, at the deepest depth), degrees; depths 0..10. A
    deviation above 90 is a largest |cos phi| of (deviation - 89) (beyond 1: rounding)."""
    rows = []
    for a, (mid, end) in devs.items():
        for L in range(11):
            d = 30.0 if L < 5 else mid if L < 10 else end
            corr = math.sin(math.radians(d)) if d <= 90 else d - 89
            rows.append(dict(activation=a, depth=L, max_abs_corr_ntk=corr, kappa_ntk_cos=1.0, kappa_nngp_cos=1.0))
    return pd.DataFrame(rows)


def phi90(**devs):
    kk = phi90_kk(**devs)
    return AD.check_phi_90(AD.AakDepth(kk, pd.DataFrame(), {}, {}, pd.DataFrame(), list(devs), 20, 10, 64, [1], 1))


def test_phi90_holds_fails_between_and_premise():
    assert phi90(gelu=(5.0, 0.1), tanh=(1.0, 0.01)).status == "reproduced"
    assert phi90(gelu=(5.0, 0.1), tanh=(20.0, 19.0)).status == "not reproduced"   # settles elsewhere
    mid = phi90(gelu=(5.0, 0.1), tanh=(20.0, 3.0))                                  # still falling fast
    assert mid.status == "inconclusive" and "still shrinks" in mid.caveat
    assert phi90(relu=(20.0, 19.0)).status == "not checked"


@pytest.mark.parametrize("where,status", [(IN, "reproduced"), (OUT, "not reproduced")])
def test_phi90_tolerance(where, status):
    # the middle deviation equal to the deepest: not shrinking, so only the tolerance decides
    tol = DOCUMENTED["PHI90_TOL_DEG"]
    assert phi90(gelu=(tol * where, tol * where)).status == status


@pytest.mark.parametrize("where,status", [(IN, "inconclusive"), (OUT, "not reproduced")])
def test_phi90_shrink_factor(where, status):
    end = 2.0
    assert phi90(gelu=(end / (DOCUMENTED["PHI90_SHRINK"] * where), end)).status == status


def test_phi90_thresholds_at_equality_and_rounding():
    tol = DOCUMENTED["PHI90_TOL_DEG"]
    assert math.degrees(math.asin(math.sin(math.radians(tol)))) == tol
    assert phi90(gelu=(tol, tol)).status == "not reproduced"          # 1 deg itself is not within 1 deg
    assert phi90(gelu=(4.0, 4.0 * DOCUMENTED["PHI90_SHRINK"])).status == "inconclusive"   # exactly halved
    # a largest |cos phi| a rounding above 1 is cos phi = 1 (90 deg from 90 deg), not an error
    c = phi90(gelu=(90.0, 90.0 + 1e-12))
    assert c.status == "not reproduced" and "gelu 90 deg" in c.measured


# ---------------------------------------------------------------- [LH] Thm 4.3
def kappa_study(end_ratio, dec_ratio, n=5, finite=None):
    """One data set, n inputs: kappa / ((n+3)/3) = ``dec_ratio`` at depth 1,000 and ``end_ratio`` at 10,000."""
    lim = (n + 3) / 3
    ratios = {1: 2.0, 2: 1.8, 1000: dec_ratio, 10000: end_ratio}
    kap = pd.DataFrame([dict(depth=L, n=n, kappa=r * lim, limit=lim, ratio=r, min_phi=75.0, max_cos=0.25,
                             data="Gaussian") for L, r in ratios.items()])
    fk = finite if finite is not None else {1: 2.0 * lim}
    fkap = pd.DataFrame([dict(activation="relu", width=64, depth=L, seed=0, n=n, kappa=v, data="Gaussian")
                         for L, v in fk.items()])
    return RK.KappaStudy(kap, fkap, [n], 10000, 5, 64, sorted(fk), 1, ("Gaussian",))


def test_thm43_holds_fails_and_between():
    assert RK.check_thm43(kappa_study(1.003, 1.05)).status == "reproduced"
    assert RK.check_thm43(kappa_study(3.0, 3.0)).status == "not reproduced"
    mid = RK.check_thm43(kappa_study(1.5, 1.8))
    assert mid.status == "inconclusive" and "still approaches" in mid.caveat


@pytest.mark.parametrize("side", [1, -1])
@pytest.mark.parametrize("where,status", [(IN, "reproduced"), (OUT, "not reproduced")])
def test_thm43_tolerance(side, where, status):
    r = 1 + side * DOCUMENTED["THM43_RTOL"] * where
    c = RK.check_thm43(kappa_study(r, r))   # not approaching: only the tolerance decides
    assert c.status == status and c.rows[0]["holds"] == (status == "reproduced")


def test_thm43_the_last_decade_starts_at_a_tenth_of_the_deepest_depth():
    k = kappa_study(1.5, 1.8)
    lim = k.kap.limit.iloc[0]
    extra = k.kap.iloc[[0]].assign(depth=900, kappa=1.5 * lim, ratio=1.5)   # nearest to 10000/11, not to 1000
    k = RK.KappaStudy(pd.concat([k.kap, extra], ignore_index=True), k.fkap, k.ns, k.max_depth, k.gauss_dim,
                      k.fw_width, k.fw_depths, k.seeds, k.data)
    assert RK.check_thm43(k).status == "inconclusive"


def test_thm43_approach_is_strict():
    r = 1 + DOCUMENTED["THM43_RTOL"] * 2
    assert RK.check_thm43(kappa_study(r, r * IN)).status == "not reproduced"
    assert RK.check_thm43(kappa_study(r, r * OUT)).status == "inconclusive"


def test_thm43_compares_every_finite_depth_with_the_curve_at_that_depth():
    """The figure's markers at L = 1000 (on the grid) and L = 3 (off it) are both reported, the latter as
    missing, never dropped silently (the old check compared only depths 1 and 2 of 1, 2, 5, 10, 20, 50)."""
    lim = 8 / 3
    c = RK.check_thm43(kappa_study(1.003, 1.05, finite={1: 2.0 * lim * 1.1, 1000: 1.05 * lim * 1.7, 3: 5.0}))
    assert "at L = 1, 1000" in c.measured and "largest 0.70 (Gaussian, n=5, L=1000" in c.measured
    assert "No infinite-width value at depths [3]" in c.measured
    assert c.status == "reproduced"   # reported, not judged: the theorem is about infinite width


def test_measure_kappa_computes_the_curve_at_every_finite_depth():
    k = RK.measure_kappa(D.SPEC.config(kappa_ns=[5], kappa_max_depth=100, gauss_dim=5, fw_width=32,
                                       fw_depths=[5, 7], seeds=1))
    assert {5, 7} <= set(k.kap.depth) and 7 not in set(D.log_depths(100, 6))
    c = RK.check_thm43(k)
    assert "at L = 5, 7:" in c.measured and "No infinite-width value" not in c.measured


# ---------------------------------------------------------------- [LH] Thm 3.5
DEPTHS = D.log_depths(10 ** 5, 12)
LMAX = int(DEPTHS[-1])


def phi_profile(**gaps):
    """``gaps``: input angle in degrees -> (gap at the deepest depth in degrees, log-log slope), or an array of
    gaps in radians, one per depth of ``DEPTHS``."""
    rows = []
    for key, spec in gaps.items():
        t0 = float(key[1:].replace("_", "."))
        L = np.maximum(DEPTHS, 1)
        gap = spec if isinstance(spec, np.ndarray) else np.radians(spec[0]) * (L / LMAX) ** spec[1]
        rows.append(pd.DataFrame(dict(theta_in=math.radians(t0), depth=DEPTHS, phi=GA.PHI_INF + gap, gap=gap)))
    return GA.PhiProfile(pd.concat(rows, ignore_index=True), [float(k[1:].replace("_", ".")) for k in gaps], LMAX)


def thm35(**gaps):
    return GA.check_thm35(phi_profile(**gaps))


def test_thm35_holds_fails_between_and_inconclusive():
    assert thm35(a1=(0.01, -1.0), a90=(0.001, -0.9)).status == "reproduced"
    mid = thm35(a0_001=(7.8, -0.69), a1=(0.01, -1.0), a90=(0.001, -0.9))
    assert mid.status == "reproduced with caveat" and "0.001 deg not yet within 1 deg" in mid.caveat
    assert "for input angles 1, 90 of the input angles" in mid.measured
    assert "input angle 0.001 deg comes within 1 deg at L = " in mid.measured
    assert [r["holds"] for r in mid.rows] == [True, True, True]
    assert set(mid.rows[0]) == {"statement", "paper", "this book", "rule", "holds"}
    slow = thm35(a0_001=(7.8, -0.2), a1=(0.01, -1.0))
    assert slow.status == "inconclusive" and "too slowly" in slow.caveat
    assert [r["holds"] for r in slow.rows] == [False, True]
    bad = thm35(a0_001=(7.8, 0.1), a1=(0.01, -1.0))   # the gap grows: phi settles elsewhere
    assert bad.status == "not reproduced" and "not shrinking" in bad.measured


def test_thm35_every_angle_is_judged():
    assert thm35(a1=(0.01, -1.0), a10=(7.8, -0.2), a20=(7.8, -0.9)).status == "inconclusive"
    assert thm35(a1=(0.01, -1.0), a10=(7.8, 0.1), a20=(7.8, -0.9)).status == "not reproduced"
    assert thm35(a1=(0.01, -1.0), a10=(7.8, 0.1), a20=(7.8, -0.2)).status == "not reproduced"


@pytest.mark.parametrize("where,status", [(IN, "reproduced"), (OUT, "not reproduced")])
def test_thm35_tolerance(where, status):
    # a flat gap (not shrinking): only the tolerance decides
    assert thm35(a1=(DOCUMENTED["THM35_TOL_DEG"] * where, 0.0)).status == status


@pytest.mark.parametrize("where,status", [(IN, "inconclusive"), (OUT, "reproduced with caveat")])
def test_thm35_decay_boundary(where, status):
    assert thm35(a1=(5.0, -DOCUMENTED["THM35_MIN_DECAY"] * where)).status == status


@pytest.mark.parametrize("where,status", [(IN, "reproduced"), (OUT, "inconclusive")])
def test_thm35_tolerance_on_a_slowly_shrinking_gap(where, status):
    # the gap one sampled depth earlier is above the tolerance: only the deepest depth counts
    assert thm35(a1=(DOCUMENTED["THM35_TOL_DEG"] * where, -0.2)).status == status


def test_thm35_tolerance_at_equality():
    gap = np.full(DEPTHS.size, DOCUMENTED["THM35_TOL_DEG"] / D.DEG)
    assert D.DEG * gap[0] == DOCUMENTED["THM35_TOL_DEG"]
    assert thm35(a1=gap).status == "not reproduced"   # 1 deg is not within 1 deg, and a flat gap does not shrink


def test_thm35_the_last_decade_starts_at_a_tenth_of_the_deepest_depth():
    """A gap of 5 deg everywhere except 6 deg at the sampled depth nearest L_max / 10: shrunk over the decade."""
    L_dec = D.nearest_depth(DEPTHS, LMAX / 10)
    assert D.nearest_depth(DEPTHS, LMAX / 11) != L_dec
    gap = np.where(DEPTHS == L_dec, np.radians(6.0), np.radians(5.0))
    c = thm35(a1=gap)
    assert "slope" in c.measured and "not shrinking" not in c.measured
    assert c.status in ("inconclusive", "reproduced with caveat")


def test_thm35_a_flat_gap_does_not_shrink():
    c = thm35(a1=(5.0, 0.0))
    assert c.status == "not reproduced" and not c.rows[0]["holds"]


# ---------------------------------------------------------------- [LH] Fig 5, Prop A.1, Thm A.2
ZGRID = np.linspace(0, math.pi, 181)


def collapse(g_shift=0.0, mc_sigmas=0.0, last_theta=1e-4, decreasing=True, mc=True, se=1e-3):
    """g on the grid (``g_shift`` radians added), a Monte Carlo at 30, 90, 150 deg ``mc_sigmas`` standard errors
    from the plotted g, and embedding angles theta^(l) = 3 pi / l scaled to ``last_theta`` at l = 1e5."""
    gi = CO.g_iterates(ZGRID, [1, 5])
    gi.loc[gi.l == 1, "g_l"] += g_shift
    z = np.radians([30.0, 90.0, 150.0])
    g1 = gi[gi.l == 1]
    se = np.full(z.size, se)
    cos_mc = np.cos(np.interp(z, g1.z, g1.g_l)) + mc_sigmas * se
    g_mc = pd.DataFrame(dict(z=z, cos_mc=cos_mc, se=se, g_mc=np.arccos(cos_mc), g_se=se)) if mc else None
    ls = np.array([1, 10, 100, 1000, 10 ** 5])
    theta = last_theta * 1e5 / ls
    theta[-1] = last_theta
    if not decreasing:
        theta[2] = theta[1]
    coll = pd.DataFrame(dict(theta_in=0.5, l=ls, theta_l=theta, l_theta_l=ls * theta))
    fcoll = pd.DataFrame(dict(theta_in=0.5, l=[1], seed=0, theta_l=[theta[0]]))
    return CO.Collapse(ZGRID, gi, coll, fcoll, [1, 5], [28.6], 10 ** 5, 1, 64, 1, 16, g_mc)


def test_g_plot_rests_on_the_measurement():
    assert CO.check_g_plot(collapse()).status == "reproduced"
    # a plotted curve the Monte Carlo contradicts: fails
    assert CO.check_g_plot(collapse(mc_sigmas=20.0)).status == "not reproduced"
    # the formula drawn with nothing measured beside it is shown, not reproduced
    shown = CO.check_g_plot(collapse(mc=False))
    assert shown.status == "not checked" and "only the closed form is drawn" in shown.caveat
    # g above the identity (the measurement agreeing with the curve drawn): fails
    assert CO.check_g_plot(collapse(g_shift=0.5)).status == "not reproduced"


@pytest.mark.parametrize("where,status", [(IN, "reproduced"), (OUT, "not reproduced")])
def test_g_plot_monte_carlo_band(where, status):
    assert CO.check_g_plot(collapse(mc_sigmas=DOCUMENTED["G_MC_SIGMAS"] * where)).status == status
    assert CO.check_g_plot(collapse(mc_sigmas=-DOCUMENTED["G_MC_SIGMAS"] * where)).status == status


@pytest.mark.parametrize("check", [CO.check_prop_a1, CO.check_thm_a2])
@pytest.mark.parametrize("where,status", [(IN, "reproduced"), (OUT, "not reproduced")])
def test_collapse_tolerance(check, where, status):
    assert check(collapse(last_theta=DOCUMENTED["COLLAPSE_TOL"] * where)).status == status


def test_collapse_thresholds_at_equality():
    assert CO.check_prop_a1(collapse(last_theta=DOCUMENTED["COLLAPSE_TOL"])).status == "not reproduced"
    assert CO.check_thm_a2(collapse(last_theta=DOCUMENTED["COLLAPSE_TOL"])).status == "not reproduced"
    # a cosine exactly 5 standard errors off (a power-of-two error keeps the arithmetic exact): inside the band
    se = 2.0 ** -10
    c = collapse(mc_sigmas=DOCUMENTED["G_MC_SIGMAS"], se=se)
    g1 = c.gi[c.gi.l == 1]
    assert np.all((c.g_mc.cos_mc - np.cos(np.interp(c.g_mc.z, g1.z, g1.g_l))) / se == DOCUMENTED["G_MC_SIGMAS"])
    assert CO.check_g_plot(c).status == "reproduced"


def test_collapse_premises():
    assert CO.check_prop_a1(collapse(g_shift=0.5)).status == "not reproduced"    # g above the identity
    assert CO.check_thm_a2(collapse(decreasing=False)).status == "not reproduced"  # theta^(l) stalls


def test_g_must_increase_strictly_and_stay_below_the_identity_everywhere():
    flat = collapse()
    g1 = flat.gi.index[flat.gi.l == 1]
    flat.gi.loc[g1[100], "g_l"] = flat.gi.loc[g1[99], "g_l"]          # a plateau
    assert CO.check_g_plot(flat).status == "not reproduced" and CO.check_prop_a1(flat).status == "not reproduced"
    touch = collapse()
    touch.gi.loc[g1[1], "g_l"] = touch.gi.loc[g1[1], "z"]              # g(z) = z at z = 1 deg, still increasing
    assert np.all(np.diff(touch.gi.g_l[g1]) > 0)
    assert CO.check_prop_a1(touch).status == "not reproduced"
    small = collapse()
    small.gi.loc[g1[1], "g_l"] = small.gi.loc[g1[1], "z"] * 1.5        # above the identity at z = 1 deg only
    assert CO.check_prop_a1(small).status == "not reproduced"


def test_g_monte_carlo_measures_the_plotted_g():
    mc = CO.g_monte_carlo([60.0, 120.0], samples=200_000)
    exact = np.cos(CO.g_iterates(np.radians([60.0, 120.0]), [1]).g_l.to_numpy())
    assert np.all(np.abs(mc.cos_mc - exact) < 5 * mc.se) and np.all(mc.se < 5e-3)


# ---------------------------------------------------------------- [AAK] Lemma C.7 and Sec 7
def dual(*excess):
    ex = {f"a{i}": v for i, v in enumerate(excess)}
    return DA.check_dual_bound(DA.DualStudy(np.linspace(-0.999, 0.999, 3), list(ex), {}, {}, {}, ex, list(ex)))


@pytest.mark.parametrize("where,status", [(IN, "reproduced"), (1.0, "reproduced"), (OUT, "not reproduced")])
def test_dual_bound_tolerance(where, status):
    assert dual(0.0, DOCUMENTED["DUAL_ATOL"] * where).status == status


def test_dual_bound_premise():
    assert dual(-1e-3).status == "reproduced" and dual(0.1).status == "not reproduced"
    assert dual().status == "not checked"


SE = 1e-3


@pytest.mark.parametrize("side", [1, -1])
@pytest.mark.parametrize("where,status", [(IN, "reproduced"), (OUT, "not reproduced")])
def test_normrelu_bands(side, where, status):
    k = DOCUMENTED["NORMRELU_SIGMAS"] * where * side
    on_mean = DA.Moments("normrelu", k * SE, SE, 1.0, SE, 10 ** 6)
    on_second = DA.Moments("normrelu", 0.0, SE, 1.0 + k * SE, SE, 10 ** 6)
    assert DA.check_normrelu(on_mean).status == status and DA.check_normrelu(on_second).status == status


def test_normrelu_fails_on_plain_relu():
    assert DA.check_normrelu(DA.Moments("relu", 0.40, SE, 0.5, SE, 10 ** 6)).status == "not reproduced"


# ---------------------------------------------------------------- [AAK] Thm 3.11
def lengths(first_dev, last_dev, first_corr=0.9, last_corr=0.01):
    frame = pd.DataFrame(dict(activation="tanh", depth=[1, 50, 100], norm_dev=[first_dev, first_dev, last_dev],
                              max_corr=[first_corr, first_corr, last_corr]))
    return LE.check_lengths(LE.Lengths(frame, "tanh", 20, 100, (0.5, 2.0)))


def test_lengths_tolerance_at_equality():
    assert lengths(0.6, DOCUMENTED["LENGTH_TOL"]).status == "inconclusive"


def test_lengths_compare_with_layer_one():
    frame = pd.DataFrame(dict(activation="tanh", depth=[1, 2, 100], norm_dev=[0.6, 0.001, 0.2],
                              max_corr=[0.9, 0.01, 0.5]))
    assert LE.check_lengths(LE.Lengths(frame, "tanh", 20, 100, (0.5, 2.0))).status == "inconclusive"


def test_lengths_holds_fails_between():
    assert lengths(0.6, 1e-12).status == "reproduced"
    assert lengths(0.6, 0.6).status == "not reproduced"           # ReLU keeps every length
    mid = lengths(0.6, 0.01)
    assert mid.status == "inconclusive" and "still converge" in mid.caveat
    assert lengths(0.6, 1e-12, last_corr=0.9).status == "inconclusive"   # the correlations did not shrink


@pytest.mark.parametrize("where,status", [(IN, "reproduced"), (OUT, "inconclusive")])
def test_lengths_tolerance(where, status):
    assert lengths(0.6, DOCUMENTED["LENGTH_TOL"] * where).status == status


@pytest.mark.parametrize("where,status", [(IN, "inconclusive"), (1.0, "inconclusive"), (OUT, "not reproduced")])
def test_lengths_shrink_factor(where, status):
    assert lengths(0.5, 0.5 * DOCUMENTED["LENGTH_SHRINK"] * where).status == status


# ---------------------------------------------------------------- [LH] Lemma E.6
def e6(*slopes):
    t = np.geomspace(1e-1, 1e-3, 5)
    frame = pd.concat([pd.DataFrame(dict(depth=l, theta_in=t, rel_remainder=t ** s)) for l, s in
                       zip((1, 3, 10), slopes)], ignore_index=True)
    return AE.check_lemma_e6(AE.SmallAngle(frame, tuple(t), (1, 3, 10)[:len(slopes)], 1 / 3))


def test_lemma_e6_holds_fails_between():
    assert e6(1.0, 1.0, 0.98).status == "reproduced"
    assert e6(1.0, 0.0).status == "not reproduced"
    mid = e6(1.0, 0.3)
    assert mid.status == "reproduced with caveat" and "more slowly" in mid.caveat


@pytest.mark.parametrize("where,status", [(IN, "reproduced with caveat"), (OUT, "reproduced")])
def test_lemma_e6_min_slope(where, status):
    assert e6(1.0, DOCUMENTED["E6_MIN_SLOPE"] * where).status == status


@pytest.mark.parametrize("where,status", [(IN, "not reproduced"), (OUT, "reproduced with caveat")])
def test_lemma_e6_fail_slope(where, status):
    assert e6(1.0, DOCUMENTED["E6_FAIL_SLOPE"] * where).status == status


# ---------------------------------------------------------------- the rate fit every slope rule uses
def test_fit_rate_uses_positive_finite_points_and_its_tail():
    x = np.array([0.0, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0])
    y = np.array([5.0, 0.0, np.nan, np.inf, 8.0, 16.0, 32.0])   # only x = 8, 16, 32 are usable: slope 1
    assert D.fit_rate(x, y, tail=1.0) == pytest.approx((1.0, 0.0), abs=1e-12)
    assert D.fit_rate([1, 2, 4], [1, 4, 16])[0] == pytest.approx(2.0)   # three points are enough
    with pytest.raises(ValueError, match="at least 3"):
        D.fit_rate([1, 2], [1, 4])
    x = np.array([1.0, 2.0, 4.0, 8.0])
    y = np.array([100.0, 2.0, 4.0, 8.0])                          # the last three on a line of slope 1
    assert D.fit_rate(x, y, tail=0.5)[0] == pytest.approx(1.0)    # at least three points, not round(0.5 * 4)
    assert D.fit_rate(x, y)[0] == pytest.approx(1.0)              # the default tail is the last half
    assert D.fit_rate(x, y, tail=1.0)[0] < 0                      # the whole range


def test_lemma_e6_fits_every_angle():
    t = np.geomspace(1e-1, 1e-3, 5)
    rel = t.copy()
    rel[:2] = 1e-3                                  # flat at the two largest angles: slope 1 at the small ones only
    frame = pd.DataFrame(dict(depth=1, theta_in=t, rel_remainder=rel))
    assert AE.check_lemma_e6(AE.SmallAngle(frame, tuple(t), (1,), 1 / 3)).status != "reproduced"


# ---------------------------------------------------------------- the verdict sentences, pinned
def one_layer(widths=(256, 1024, 4096), seeds=3):
    rows = [dict(lemma="E.1", width=m, seed=s, dev=0.002 + 0.5 / math.sqrt(m) * (1 + 0.05 * (s - 1)))
            for m in widths for s in range(seeds)]
    return AE.OneLayer(pd.DataFrame(rows), [10.0, 90.0], list(widths), seeds, 8, 4, 0.0)


def _slow_one_layer():
    one = one_layer()
    return AE.OneLayer(one.frame.assign(dev=one.frame.width ** -0.4 * (1 + 0.01 * one.frame.seed)), one.angles_deg,
                       one.widths, one.seeds, one.d, one.s, one.mean)


def _uptick():
    """A gap falling like 1/L over the last decade, back at its value of a decade earlier at the deepest depth."""
    L_dec = D.nearest_depth(DEPTHS, LMAX / 10)
    gap = np.radians(10.0) * (L_dec / np.maximum(DEPTHS, 1))
    gap[-1] = gap[DEPTHS == L_dec][0]
    return gap


def _dip():
    """A gap that dips at the start of the last decade, then climbs back to just below its first value."""
    L_dec = D.nearest_depth(DEPTHS, LMAX / 10)
    gap = np.full(DEPTHS.size, np.radians(5.0))
    after = DEPTHS > L_dec
    gap[after] = np.radians(2.0) * (DEPTHS[after] / LMAX) ** 0.3 * 2.4
    return gap


def _finite_only_missing():
    return kappa_study(1.003, 1.05, finite={3: 5.0})


def _no_finite():
    k = kappa_study(1.003, 1.05)
    return RK.KappaStudy(k.kap, k.fkap.iloc[:0], k.ns, k.max_depth, k.gauss_dim, k.fw_width, [], 1, k.data)


def _thm_a2_with_finite_width():
    c = collapse()
    fcoll = pd.DataFrame(dict(theta_in=0.5, l=[1, 10], seed=0, theta_l=[c.coll.theta_l[0] + 0.01,
                                                                          c.coll.theta_l[1] - 0.02]))
    return CO.Collapse(c.zgrid, c.gi, c.coll, fcoll, c.g_levels, c.angles_deg, c.depth, 10, 64, 1, 16, c.g_mc)


#: Constructed inputs for every branch of every check's wording; their sentences are pinned in WORDING.
CASES = {
    "aak nngp": lambda: aak("nngp", (PAPER, 1.01), (1.2 * PAPER, 1.02)),
    "aak ntk caveat": lambda: aak("ntk", (1.5 * PAPER, 1.01)),
    "aak ntk no fit": lambda: aak("ntk", (math.nan, 1.01)),
    "aak ntk far": lambda: aak("ntk", (SHARP, 5.0)),
    "aak none": lambda: aak("nngp", (PAPER, 1.01, False)),
    "relu": lambda: relu(relu_kk([1.0, 0.9, 0.95, 0.99], 7.0)),
    "relu none": lambda: relu(relu_kk([1.0, 0.9, 0.95, 0.99], 7.0, activation="tanh")),
    "phi90": lambda: phi90(relu2=(0.016, 1.1e-05), gelu=(4e-05, 1e-12)),
    "phi90 inconclusive": lambda: phi90(tanh=(20.0, 3.0)),
    "phi90 none": lambda: phi90(relu=(20.0, 19.0)),
    "thm43": lambda: RK.check_thm43(kappa_study(1.003, 1.05, finite={1: 6.0, 1000: 4.5, 3: 5.0})),
    "thm43 inconclusive": lambda: RK.check_thm43(kappa_study(1.5, 1.8)),
    "thm43 only missing": lambda: RK.check_thm43(_finite_only_missing()),
    "thm43 no finite": lambda: RK.check_thm43(_no_finite()),
    "thm35 caveat": lambda: thm35(a0_001=(7.8, -0.69), a0_01=(3.0, -0.8), a1=(0.01, -1.0)),
    "thm35 uptick": lambda: thm35(a1=_uptick()),
    "thm35 dip": lambda: thm35(a1=_dip()),
    "thm35 far": lambda: thm35(a0_001=(5.0, -0.006), a1=(0.01, -1.0)),
    "thm35 far 1e100": lambda: thm35(a0_001=(5.0, -0.0073), a1=(0.01, -1.0)),   # 1 deg at L ~ 10^100.7
    "thm35 bad": lambda: thm35(a1=np.where(DEPTHS == LMAX, np.radians(5.0), np.radians(4.0))),
    "thm35 reached": lambda: thm35(a1=(0.01, -1.0), a90=(0.001, -0.9)),
    "g plot": lambda: CO.check_g_plot(collapse(mc_sigmas=2.0)),
    "g plot shown": lambda: CO.check_g_plot(collapse(mc=False)),
    "prop a1": lambda: CO.check_prop_a1(collapse()),
    "thm a2": lambda: CO.check_thm_a2(_thm_a2_with_finite_width()),
    "dual": lambda: dual(1e-12, 3e-11),
    "dual none": lambda: dual(),
    "normrelu": lambda: DA.check_normrelu(DA.Moments("normrelu(b=-1.59078)", 3.95e-4, 7.1e-4, 0.99972, 9.1e-4,
                                                     2_000_000)),
    "relu moments": lambda: DA.check_normrelu(DA.Moments("relu", 0.40, SE, 0.5, SE, 10 ** 6)),
    "lengths": lambda: lengths(0.6, 1e-13),
    "lengths inconclusive": lambda: lengths(0.6, 0.01),
    "lemma e6": lambda: e6(1.0, 0.3),
    "lemma e6 ok": lambda: e6(1.0, 0.9),
    "lemma e slow": lambda: AE.check_lemma_e(_slow_one_layer(), "E.1"),
    "lemma e": lambda: AE.check_lemma_e(one_layer(), "E.1"),
    "lemma e one width": lambda: AE.check_lemma_e(one_layer(widths=(256,)), "E.1"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_verdict_sentences(name):
    """The sentence a reader sees (status, part, caveat, measured), pinned for every branch; after a deliberate
    change of wording, print the new table with ``python tests/chapters/test_infinite_depth_rules.py``."""
    c = CASES[name]()
    assert (c.status, c.part, c.caveat, c.measured) == WORDING[name]


#: The sentences of CASES, as a reader sees them (status, part, caveat, measured).
WORDING = {  # noqa: E501 (sentences)
    'aak nngp': ('reproduced', '', '', "Fitted per-layer slopes of log(kappa - 1) against the paper's rate log(1 - mu): a0: -0.105 vs -0.105 (mu = 0.1, layers 200-400, kappa = 1.01 at the deepest layer); a1: -0.126 vs -0.105 (mu = 0.1, layers 200-400, kappa = 1.02 at the deepest layer); fitted / paper's rate between 1.000 and 1.200."),
    'aak ntk caveat': ('reproduced with caveat', '', "the decay meets the paper's rate log(1 - mu) but is slower than this book's sharper prediction log((1 - mu)/chi)", "Fitted per-layer slopes of log(kappa - 1) against the paper's rate log(1 - mu) and this book's sharper log((1 - mu)/chi): a0: -0.158 vs -0.105 and -0.288 (mu = 0.1, layers 200-400, kappa = 1.01 at the deepest layer); fitted / paper's rate between 1.500 and 1.500, fitted / sharper prediction between 0.549 and 0.549."),
    'aak ntk no fit': ('inconclusive', '', 'fewer than 3 depths above rounding for some activation: no slope fitted', "Fitted per-layer slopes of log(kappa - 1) against the paper's rate log(1 - mu) and this book's sharper log((1 - mu)/chi): a0: nan vs -0.105 and -0.288 (mu = 0.1, layers 200-400, kappa = 1.01 at the deepest layer); fitted / paper's rate between nan and nan, fitted / sharper prediction between nan and nan."),
    'aak ntk far': ('inconclusive', '', 'kappa is not yet near 1 at the deepest depth computed (correlations not small): deeper needed', "Fitted per-layer slopes of log(kappa - 1) against the paper's rate log(1 - mu) and this book's sharper log((1 - mu)/chi): a0: -0.288 vs -0.105 and -0.288 (mu = 0.1, layers 200-400, kappa = 5 at the deepest layer); fitted / paper's rate between 2.730 and 2.730, fitted / sharper prediction between 1.000 and 1.000."),
    'aak none': ('not checked', '', 'not testable on this data: the theorem is about normalized (centred) activations', 'No centred activation in this run.'),
    'relu': ('reproduced', 'ReLU: rho* = 1', '', 'For plain ReLU the largest top-layer correlation grows from 0.9000 (L=1) to 0.990000 (L=3), the top-layer kappa from 10 to 10, and the NTK kappa is 7.000 (limit (n+3)/3 = 7.667, [LH] Thm 4.3).'),
    'relu none': ('not checked', 'ReLU: rho* = 1', 'not testable on this data: no uncentred activation in the run', 'ReLU is not among the activations of this run.'),
    'phi90': ('reproduced', 'phi -> 90 deg', '', "Largest |phi - 90 deg| over all pairs of the NTK at the deepest computed layer: relu2 1.1e-05 deg (L=10; 0.016 deg at L=5; kappa of the normalized NTK 1, of the normalized top-layer kernel 1), gelu below 1e-09 (rounding) deg (L=10; 4e-05 deg at L=5; kappa of the normalized NTK 1, of the normalized top-layer kernel 1). relu2's variance map q -> q^2 has an unstable fixed point, so rounding errors in the diagonal grow like 2^L: its recursion overflows beyond the depth shown, and its raw NTK has unequal diagonal entries. Uncentred activations keep a correlated top layer (their correlation map has a fixed point rho* > 0), but their NTK still decorrelates; plain ReLU's stays at cos phi -> 1/4."),
    'phi90 inconclusive': ('inconclusive', 'phi -> 90 deg', 'the deviation from 90 deg still shrinks fast at the deepest depth computed', "Largest |phi - 90 deg| over all pairs of the NTK at the deepest computed layer: tanh 3 deg (L=10; 20 deg at L=5; kappa of the normalized NTK 1, of the normalized top-layer kernel 1). Uncentred activations keep a correlated top layer (their correlation map has a fixed point rho* > 0), but their NTK still decorrelates; plain ReLU's stays at cos phi -> 1/4."),
    'phi90 none': ('not checked', 'phi -> 90 deg', 'not testable on this data: no activation of Figure 2 in the run', 'None of ReLU^2, GeLU, tanh is among the activations of this run.'),
    'thm43': ('reproduced', '', '', 'At L = 10000 kappa / ((n+3)/3) = 1.003 (Gaussian, n=5) (at L = 1000: 0.050 at most from 1); the smallest gradient angle there is 75.00 deg (limit 75.52). Finite width 64 vs infinite width at L = 1, 1000: largest relative kappa difference per depth 0.12, 0.61; largest 0.61 (Gaussian, n=5, L=1000: 4.5 against 2.8). Finite-width corrections grow with depth over width (L/m), so the difference grows with L; the theorem is about infinite width, and this comparison is reported, not judged. No infinite-width value at depths [3]: not compared.'),
    'thm43 inconclusive': ('inconclusive', '', 'depth 10000 is not enough: kappa still approaches (n+3)/3', 'At L = 10000 kappa / ((n+3)/3) = 1.500 (Gaussian, n=5) (at L = 1000: 0.800 at most from 1); the smallest gradient angle there is 75.00 deg (limit 75.52). Finite width 64 vs infinite width at L = 1: largest relative kappa difference per depth 0.00; largest 0.00 (Gaussian, n=5, L=1: 5.33 against 5.33). Finite-width corrections grow with depth over width (L/m), so the difference grows with L; the theorem is about infinite width, and this comparison is reported, not judged.'),
    'thm43 only missing': ('reproduced', '', '', 'At L = 10000 kappa / ((n+3)/3) = 1.003 (Gaussian, n=5) (at L = 1000: 0.050 at most from 1); the smallest gradient angle there is 75.00 deg (limit 75.52). Finite width 64 vs infinite width: no infinite-width value at depths [3], nothing compared.'),
    'thm43 no finite': ('reproduced', '', '', 'At L = 10000 kappa / ((n+3)/3) = 1.003 (Gaussian, n=5) (at L = 1000: 0.050 at most from 1); the smallest gradient angle there is 75.00 deg (limit 75.52).'),
    'thm35 caveat': ('reproduced with caveat', '', 'input angle(s) 0.001, 0.01 deg not yet within 1 deg of the limit at L = 100,000, though their gaps still shrink at least like L^(-1/2)', 'At L = 100,000, phi lies within 1 deg of 75.52 deg for input angles 1 of the input angles [0.001, 0.01, 1.0] deg. Gap at L = 100,000 and its log-log slope over the last decade: 0.001 deg: 7.8 deg (slope -0.69); 0.01 deg: 3 deg (slope -0.80); 1 deg: 0.01 deg (slope -1.00) (log L / L has local slope just above -1); input angle 0.001 deg comes within 1 deg at L = 2.0e+06 at its fitted rate; input angle 0.01 deg comes within 1 deg at L = 3.9e+05 at its fitted rate. The slow pairs are the small input angles: the approach starts only once L theta_in is of order 1.'),
    'thm35 uptick': ('not reproduced', '', '', 'At L = 100,000, phi lies within 1 deg of 75.52 deg for none of the input angles [1.0] deg. Gap at L = 100,000 and its log-log slope over the last decade: 1 deg: 10 deg (slope -0.60, not shrinking) (log L / L has local slope just above -1); input angle 1 deg comes within 1 deg at no depth (its gap does not shrink). The slow pairs are the small input angles: the approach starts only once L theta_in is of order 1.'),
    'thm35 dip': ('not reproduced', '', '', 'At L = 100,000, phi lies within 1 deg of 75.52 deg for none of the input angles [1.0] deg. Gap at L = 100,000 and its log-log slope over the last decade: 1 deg: 4.8 deg (slope 0.17, not shrinking) (log L / L has local slope just above -1); input angle 1 deg comes within 1 deg at no depth (its gap does not shrink). The slow pairs are the small input angles: the approach starts only once L theta_in is of order 1.'),
    'thm35 far': ('inconclusive', '', 'depth 100,000 is not enough: some gaps still shrink, but too slowly to tell the limit from a nearby value', 'At L = 100,000, phi lies within 1 deg of 75.52 deg for input angles 1 of the input angles [0.001, 1.0] deg. Gap at L = 100,000 and its log-log slope over the last decade: 0.001 deg: 5 deg (slope -0.01); 1 deg: 0.01 deg (slope -1.00) (log L / L has local slope just above -1); input angle 0.001 deg comes within 1 deg at a depth beyond 1e100. The slow pairs are the small input angles: the approach starts only once L theta_in is of order 1.'),
    'thm35 far 1e100': ('inconclusive', '', 'depth 100,000 is not enough: some gaps still shrink, but too slowly to tell the limit from a nearby value', 'At L = 100,000, phi lies within 1 deg of 75.52 deg for input angles 1 of the input angles [0.001, 1.0] deg. Gap at L = 100,000 and its log-log slope over the last decade: 0.001 deg: 5 deg (slope -0.01); 1 deg: 0.01 deg (slope -1.00) (log L / L has local slope just above -1); input angle 0.001 deg comes within 1 deg at a depth beyond 1e100. The slow pairs are the small input angles: the approach starts only once L theta_in is of order 1.'),
    'thm35 bad': ('not reproduced', '', '', 'At L = 100,000, phi lies within 1 deg of 75.52 deg for none of the input angles [1.0] deg. Gap at L = 100,000 and its log-log slope over the last decade: 1 deg: 5 deg (slope 0.04, not shrinking) (log L / L has local slope just above -1); input angle 1 deg comes within 1 deg at no depth (its gap does not shrink). The slow pairs are the small input angles: the approach starts only once L theta_in is of order 1.'),
    'thm35 reached': ('reproduced', '', '', 'At L = 100,000, phi lies within 1 deg of 75.52 deg for input angles 1, 90 of the input angles [1.0, 90.0] deg. Gap at L = 100,000 and its log-log slope over the last decade: 1 deg: 0.01 deg (slope -1.00); 90 deg: 0.001 deg (slope -0.90) (log L / L has local slope just above -1). The slow pairs are the small input angles: the approach starts only once L theta_in is of order 1.'),
    'g plot': ('reproduced', '', '', 'Figure 4.1 (left) draws g from lib.theory on 181 angles: increasing and below the identity for z > 0: yes; g(180 deg) = 90.0000 deg (antipodal inputs become orthogonal after one ReLU layer). One random layer measured by Monte Carlo: g(30 deg) = 28.01 +- 0.057 deg (plotted 28.26), g(90 deg) = 71.32 +- 0.057 deg (plotted 71.44), g(150 deg) = 89.04 +- 0.057 deg (plotted 89.15); the largest difference of the cosines is 2.0 standard errors (allowed 5).'),
    'g plot shown': ('not checked', '', 'not testable on this data: only the closed form is drawn, with no measurement beside it', 'Figure 4.1 (left) draws g from lib.theory on 181 angles; nothing measured beside it.'),
    'prop a1': ('reproduced', '', '', 'On the grid g is increasing and below the identity for z > 0: yes; the largest g^l over the grid at l = 5 is 47.082 deg; at l = 100000 every embedding angle is at most 1.00e-04 rad.'),
    'thm a2': ('reproduced', '', '', 'theta^(l) strictly decreasing on the sampled layers: yes. At l = 100000 it is at most 1.00e-04 rad over input angles [28.6] deg, and l theta^(l) / (3 pi) lies in [1.0610, 1.0610] (-> 1: collapse like 3 pi / l). Finite width 64 follows within 0.91 deg rms on layers 0..10.'),
    'dual': ('reproduced', '', '', 'Largest excess |s_hat| - bound over 3 correlations in [-0.999, 0.999]: a0 1e-12, a1 3e-11 (the bound holds up to quadrature rounding, with equality at rho = 0 and 1).'),
    'dual none': ('not checked', '', 'not testable on this data: no centred activation in the run', 'No centred activation in this run.'),
    'normrelu': ('reproduced', "the networks' NormReLU", '', 'Monte Carlo of normrelu(b=-1.59078) on N(0, 1): E[s] = 3.95e-04 +- 7.1e-04, E[s^2] = 0.99972 +- 9.1e-04. Its coefficient of non-linearity is mu = 0.01586: NormReLU is nearly linear, so its decorrelation is slow.'),
    'relu moments': ('not reproduced', "the networks' NormReLU", '', 'Monte Carlo of relu on N(0, 1): E[s] = 4.00e-01 +- 1.0e-03, E[s^2] = 0.50000 +- 1.0e-03.'),
    'lengths': ('reproduced', '', '', 'For tanh, inputs of norms 0.5 to 2: max |Sigma_ii - 1| is 0.6 at L=1 and below 1e-12 (rounding) at L=100; the largest correlation goes from 0.9 to 0.01.'),
    'lengths inconclusive': ('inconclusive', '', 'the lengths still converge at the deepest layer computed', 'For tanh, inputs of norms 0.5 to 2: max |Sigma_ii - 1| is 0.6 at L=1 and 0.01 at L=100; the largest correlation goes from 0.9 to 0.01.'),
    'lemma e6': ('reproduced with caveat', '', 'the remainder vanishes more slowly than theta_in^3', '|theta^(l) - (theta_in - l theta_in^2/(3 pi))| / theta_in^2 against theta_in from 0.1 to 0.001 rad: log-log slopes 1.00 (l=1), 0.30 (l=3) (o(theta_in^2) needs a positive slope; the next term gives 1); at the smallest angle the ratio is 0.001 (l=1), 0.13 (l=3).'),
    'lemma e6 ok': ('reproduced', '', '', '|theta^(l) - (theta_in - l theta_in^2/(3 pi))| / theta_in^2 against theta_in from 0.1 to 0.001 rad: log-log slopes 1.00 (l=1), 0.90 (l=3) (o(theta_in^2) needs a positive slope; the next term gives 1); at the smallest angle the ratio is 0.001 (l=1), 0.002 (l=3).'),
    'lemma e slow': ('reproduced with caveat', '', 'the deviation shrinks more slowly than 1/sqrt(m), or towards a small offset', 'Fraction of rows w with w.x >= 0 and w.z >= 0, against 1/2 - theta/(2 pi): largest deviation (mean over 3 draws) 0.11 (m=256), 0.0631 (m=1024), 0.0363 (m=4096); extrapolated infinite-width deviation 0.0129 +- 0.00099 (fit a + b/sqrt(m)), log-log slope -0.40 (1/sqrt(m) predicts -0.5).'),
    'lemma e': ('reproduced', '', '', 'Fraction of rows w with w.x >= 0 and w.z >= 0, against 1/2 - theta/(2 pi): largest deviation (mean over 3 draws) 0.0333 (m=256), 0.0176 (m=1024), 0.00981 (m=4096); extrapolated infinite-width deviation 0.002 +- 0.00068 (fit a + b/sqrt(m)), log-log slope -0.44 (1/sqrt(m) predicts -0.5).'),
    'lemma e one width': ('inconclusive', '', 'one width, or too few draws to estimate the scatter: no width trend to fit', 'Fraction of rows w with w.x >= 0 and w.z >= 0, against 1/2 - theta/(2 pi): largest deviation (mean over 3 draws) 0.0333 (m=256); deviation 0.0333 at the only width run.'),
}

if __name__ == "__main__":   # print the table of sentences (after a deliberate change of wording)
    print("WORDING = {")
    for name in CASES:
        c = CASES[name]()
        print(f"    {name!r}: {(c.status, c.part, c.caveat, c.measured)!r},")
    print("}")


def test_the_limits_of_thm43_and_thm35_at_equality(monkeypatch):
    """Each rule's constant set to the value its data give: the comparison must include it."""
    k = kappa_study(1.05, 1.05)
    worst = float(np.abs(RK.table_kappa_deepest(k).ratio - 1).max())
    monkeypatch.setattr(RK, "THM43_RTOL", worst)
    c = RK.check_thm43(k)
    assert c.status == "not reproduced" and c.rows[0]["holds"] is False        # within means strictly within
    monkeypatch.undo()
    # Thm 3.5: a gap with a log-log slope of exactly 0 over the last decade does not fall
    flat = phi_profile(a1=(5.0, 0.0))
    assert GA.check_thm35(flat).status == "not reproduced"
