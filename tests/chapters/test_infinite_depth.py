"""Chapter 04 support: depth sweeps, rates, kappa limits ([LH] App. A, Thm 3.5, Thm 4.3; [AAK])."""
import math

import numpy as np
import pytest

from lib.data.datasets import gaussian_data, load_digits_subset
from lib.chapters import infinite_depth as D
from lib.spectra import condition_number


def test_log_depths():
    d = D.log_depths(1000, 4)
    assert d[0] == 0 and d[-1] == 1000 and np.all(np.diff(d) > 0)
    with pytest.raises(ValueError, match="max_depth"):
        D.log_depths(0)


def test_fit_rate_recovers_a_power_law():
    x = np.geomspace(10, 1e6, 30)
    s, b = D.fit_rate(x, 3.0 * x ** -0.8)
    assert s == pytest.approx(-0.8, abs=1e-12) and b == pytest.approx(math.log(3.0), abs=1e-10)
    with pytest.raises(ValueError, match="3 positive"):
        D.fit_rate([1, 2], [1, 1])


def test_decay_slope_recovers_an_exponential_and_ignores_the_floor():
    L = np.arange(40)
    v = 5.0 * 0.7 ** L
    v[v < 1e-10] = 1e-16  # rounding floor: must not enter the fit
    s, a, b = D.decay_slope(L, v, floor=1e-12)
    assert s == pytest.approx(math.log(0.7), rel=1e-10)
    assert v[b] > 1e-12
    with pytest.raises(ValueError, match="fewer than 3"):
        D.decay_slope([0, 1], [1.0, 0.5])


def test_collapse_rate_is_three_pi_over_l():
    # g(z) = z - z^2/(3 pi) + O(z^3) gives theta_l ~ 3 pi / l (a derivation independent of the code)
    c = D.collapse_profile([0.5, 2.0], 20000)
    for t0, g in c.groupby("theta_in"):
        assert np.all(np.diff(g.theta_l.to_numpy()) < 0)
        assert g.l_theta_l.iloc[-1] / (3 * math.pi) == pytest.approx(1.0, abs=0.01)


def test_g_iterates_first_level_is_g():
    z = np.linspace(0, math.pi, 7)
    gi = D.g_iterates(z, [1])
    naive = np.arccos(((math.pi - z) * np.cos(z) + np.sin(z)) / math.pi)
    np.testing.assert_allclose(gi.g_l, naive, atol=1e-7)  # arccos near 1 limits the naive form to ~1e-8


def test_phi_profile_approaches_arccos_quarter():
    p = D.phi_depth_profile([0.2, 2.0], 30000)
    last = p[p.depth == p.depth.max()]
    assert np.all(np.abs(last.gap) < math.radians(0.2))
    first = p[p.depth == 1]
    assert np.all(np.abs(last.gap.to_numpy()) < np.abs(first.gap.to_numpy()))


def test_relu_kappa_tends_to_n_plus_3_over_3():
    n = 8
    X = gaussian_data(n, 5, seed=2, unit_norm=True)
    k = D.relu_kappa_vs_depth(X, [1, 10, 3000])
    # the limit matrix 3/4 I + 1/4 11^T has exactly this condition number
    assert condition_number(0.75 * np.eye(n) + 0.25) == pytest.approx((n + 3) / 3, rel=1e-12)
    assert np.all(k.limit == (n + 3) / 3)
    err = np.abs(k.ratio.to_numpy() - 1)
    assert err[-1] < 0.05 and err[-1] < err[0]


def test_finite_kappa_matches_theory_at_small_depth():
    X = load_digits_subset(6, seed=0, unit_norm=True)
    f = D.finite_kappa(X, [2048], [1], 2)
    k = D.relu_kappa_vs_depth(X, [1]).kappa.iloc[0]
    # kappa of a 6x6 kernel with O(1/sqrt(m)) entry noise: a 25% band is ~10 standard errors here
    assert abs(f.kappa.median() / k - 1) < 0.25


def test_normalized_tanh_decorrelates_at_rate_one_minus_mu():
    from scipy import integrate
    from lib.activations import get_activation
    act = get_activation("norm_tanh")
    pdf = lambda z: math.exp(-z * z / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    a1 = integrate.quad(lambda z: z * float(act.np_fn(np.float64(z))) * pdf(z), -12, 12, epsabs=1e-13)[0]
    mu = 1 - a1 ** 2  # independent of lib.theory
    X = load_digits_subset(6, seed=3, unit_norm=True)
    rates = D.activation_rates("norm_tanh")
    assert rates["mu"] == pytest.approx(mu, abs=1e-9) and rates["centred"]
    k = D.kernel_kappa_vs_depth(X, "norm_tanh", 300)
    s, _, _ = D.decay_slope(k.depth, k.kappa_nngp - 1)
    assert s == pytest.approx(math.log(1 - mu), rel=0.02)  # asymptotic regime: correlations ~ (1 - mu)^L
    assert k.kappa_ntk.iloc[-1] < 1 + 1e-9 and k.kappa_nngp.iloc[-1] < 1 + 1e-6


def test_activation_rates_of_relu():
    r = D.activation_rates("relu")
    # relu: E s = 1/sqrt(2 pi); normalized relu has a_1 = E[z relu] / sd = (1/2) / sqrt(1/2 - 1/(2 pi))
    assert r["mean"] == pytest.approx(1 / math.sqrt(2 * math.pi), rel=1e-10) and not r["centred"]
    assert r["mu"] == pytest.approx(1 - 0.25 / (0.5 - 1 / (2 * math.pi)), abs=1e-10)
    assert r["chi"] == pytest.approx(1.0, abs=1e-10) and r["slope_ntk"] == 0.0  # c E[s'^2] = 2 * 1/2: no decay


def test_nested_subsets_equal_separate_kernels():
    X = gaussian_data(9, 4, seed=5, unit_norm=True)
    a = D.relu_kappa_vs_depth(X, [3], ns=[4, 9])
    b = D.relu_kappa_vs_depth(X[:4], [3])
    assert a[a.n == 4].kappa.iloc[0] == pytest.approx(b.kappa.iloc[0], rel=1e-12)
    with pytest.raises(ValueError, match="subset sizes"):
        D.relu_kappa_vs_depth(X, [1], ns=[20])


# --- chapter 04 checks: the paper's prediction and a counterfactual; figures ---------------------------------

from matplotlib.figure import Figure  # noqa: E402

import pandas as pd  # noqa: E402


@pytest.fixture(scope="module")
def collapse():
    return D.compute_collapse([1, 5], [10.0, 90.0], 20000, 3, 64, 1)


def test_check_g_plot_prediction_and_counterfactual(collapse):
    assert D.check_g_plot(collapse).status == "reproduced"
    ident = D.Collapse(collapse.zgrid, collapse.gi.assign(g_l=collapse.gi.z), collapse.coll, collapse.fcoll)
    assert D.check_g_plot(ident).status == "not reproduced"  # a linear network: g(z) = z


def test_check_prop_a1_and_thm_a2_prediction_and_counterfactual(collapse):
    assert D.check_prop_a1(collapse, [1, 5]).status == "reproduced"
    assert D.check_thm_a2(collapse, [10.0, 90.0], 64, 3).status == "reproduced"
    shallow = D.compute_collapse([1, 5], [10.0, 90.0], 100, 3, 64, 1)  # theta ~ 3 pi / 100: not yet collapsed
    assert D.check_prop_a1(shallow, [1, 5]).status == "not reproduced"
    assert D.check_thm_a2(shallow, [10.0, 90.0], 64, 3).status == "not reproduced"
    flat = D.Collapse(collapse.zgrid, collapse.gi, collapse.coll.assign(theta_l=0.5), collapse.fcoll)
    assert D.check_thm_a2(flat, [10.0, 90.0], 64, 3).status == "not reproduced"  # no collapse at all


def test_check_thm35_prediction_and_counterfactuals():
    angles = [0.1, 10.0, 90.0]
    assert D.check_thm35(D.compute_phi_profile(angles, 100000), angles).status == "reproduced"
    short = D.compute_phi_profile(angles, 300)  # converging but not yet within 1 deg at 0.1 deg
    c = D.check_thm35(short, angles)
    assert c.status == "inconclusive" and "depth 300 is not enough" in c.caveat
    p = D.compute_phi_profile(angles, 100000)
    # phi moving towards 90 deg (the limit of tanh or GeLU, [LH] Fig 2), away from arccos(1/4): the gap grows
    phi = math.pi / 2 - 0.1 / (1 + p.depth)
    away = p.assign(phi=phi, gap=phi - D.PHI_INF)
    assert D.check_thm35(away, angles).status == "not reproduced"


def test_check_thm43_prediction_and_counterfactual():
    kap, fkap = D.compute_kappa_study([5], 3000, 5, 64, [1], 1)
    assert D.check_thm43(kap, fkap, 64, [1]).status == "reproduced"
    # kappa stuck at 3 (n+3)/3 (e.g. a linear network's growing condition number): not reproduced
    bad = kap.assign(kappa=3 * kap.limit, ratio=3.0)
    assert D.check_thm43(bad, fkap, 64, [1]).status == "not reproduced"
    # kappa still approaching the limit at the deepest depth (too shallow to decide): inconclusive
    ratio = 1 + 3 / np.log(kap.depth + 3)
    mid = kap.assign(kappa=ratio * kap.limit, ratio=ratio)
    assert D.check_thm43(mid, fkap, 64, [1]).status == "inconclusive"


def test_check_dual_bound_prediction_and_counterfactual():
    ds = D.compute_dual(["norm_tanh", "relu"])
    assert ds.centred == ["norm_tanh"]
    assert D.check_dual_bound(ds).status == "reproduced"
    over = D.DualStudy(ds.rho, ds.centred, ds.dual, ds.bound, ds.mu, {"norm_tanh": 0.1})
    assert D.check_dual_bound(over).status == "not reproduced"
    assert D.check_dual_bound(D.compute_dual(["relu"])).status == "not checked"


def test_check_normrelu_prediction_and_counterfactual():
    # Monte Carlo of the torch functions, independent of the quadrature constants the code divides by
    assert D.check_normrelu(D.normrelu_moments("normrelu", 200_000)).status == "reproduced"
    assert D.check_normrelu(D.normrelu_moments("norm_tanh", 200_000)).status == "reproduced"
    c = D.check_normrelu(D.normrelu_moments("relu", 200_000))  # plain ReLU: E[s] = 0.40, E[s^2] = 1 (c_s = 2)
    assert c.status == "not reproduced"


def _rates(fitted, kappa_at_max=1.0001, centred=True):
    return pd.DataFrame([dict(activation="norm_tanh", kernel=k, mu=0.3, chi=1.0, centred=centred,
                              fitted_slope=fitted, predicted_slope=math.log(0.7), fit_range="10-20",
                              kappa_at_max=kappa_at_max) for k in ("nngp", "ntk")])


def test_check_aak_rate_prediction_and_counterfactuals(aak):
    for kind in ("nngp", "ntk"):
        assert D.check_aak_rate(_rates(math.log(0.7)), kind).status == "reproduced"
        assert D.check_aak_rate(_rates(0.0, kappa_at_max=5.0), kind).status == "not reproduced"  # no decay
        assert D.check_aak_rate(_rates(math.log(0.95)), kind).status == "not reproduced"  # slower than mu's rate
        assert D.check_aak_rate(_rates(math.log(0.5)), kind).status == "reproduced"  # faster: within the bound
        assert D.check_aak_rate(_rates(math.log(0.7), kappa_at_max=2.0), kind).status == "inconclusive"
        assert D.check_aak_rate(_rates(math.log(0.95), kappa_at_max=2.0), kind).status == "inconclusive"
        assert D.check_aak_rate(_rates(math.log(0.7), centred=False), kind).status == "not checked"
    # the real computation: normalized tanh decays at its rate; plain ReLU's numbers, fed in as a centred
    # activation, do not decay (kappa -> (n+3)/3): not reproduced
    rates = D.table_rates(aak)
    assert D.check_aak_rate(rates, "nngp").status in ("reproduced", "inconclusive")
    relu_as_centred = rates[rates.activation == "relu"].assign(centred=True)
    assert D.check_aak_rate(relu_as_centred, "ntk").status == "not reproduced"


@pytest.fixture(scope="module")
def aak():
    return D.compute_aak_depth(["norm_tanh", "relu", "tanh"], 6, 60, 32, [1], 1)


def test_check_relu_uncentred_prediction_and_counterfactual(aak):
    assert D.check_relu_uncentred(aak).status == "reproduced"
    # a normalized activation's numbers fed in as ReLU's: correlations vanish, kappa -> 1
    kk = aak.kk[aak.kk.activation == "norm_tanh"].assign(activation="relu")
    fake = D.AakDepth(kk, aak.fk, aak.facts, aak.fits, ["relu"], aak.n)
    assert D.check_relu_uncentred(fake).status == "not reproduced"


def test_check_phi_90_prediction_and_counterfactuals(aak):
    assert D.check_phi_90(aak).status in ("reproduced", "inconclusive")  # real tanh, 60 layers
    kk = pd.DataFrame(dict(activation="tanh", depth=[1, 25, 50], max_abs_corr_ntk=[0.5, 0.05, 1e-4],
                           kappa_ntk_cos=[3.0, 1.1, 1.0], kappa_nngp_cos=[3.0, 1.1, 1.0]))
    st = D.AakDepth(kk, aak.fk, aak.facts, aak.fits, ["tanh"], 6)
    assert D.check_phi_90(st).status == "reproduced"
    stuck = D.AakDepth(kk.assign(max_abs_corr_ntk=0.25), aak.fk, aak.facts, aak.fits, ["tanh"], 6)
    assert D.check_phi_90(stuck).status == "not reproduced"  # ReLU-like cos phi = 1/4 at every depth
    # plain ReLU's real numbers fed in as tanh's: phi settles at arccos(1/4), not 90 deg
    relu = aak.kk[aak.kk.activation == "relu"].assign(activation="tanh")
    assert D.check_phi_90(D.AakDepth(relu, aak.fk, aak.facts, aak.fits, ["tanh"], 6)).status == "not reproduced"
    slow = D.AakDepth(kk.assign(max_abs_corr_ntk=[0.5, 0.3, 0.1]), aak.fk, aak.facts, aak.fits, ["tanh"], 6)
    assert D.check_phi_90(slow).status == "inconclusive"
    assert D.check_phi_90(D.AakDepth(kk, aak.fk, aak.facts, aak.fits, ["relu"], 6)).status == "not checked"


def test_plots_return_figures(collapse, aak):
    figs = ((D.plot_collapse(collapse, [1, 5], [10.0, 90.0], 20000), 2),
            (D.plot_phi_depth(D.compute_phi_profile([1.0, 90.0], 1000), [1.0, 90.0], 1000), 2),
            (D.plot_kappa(*D.compute_kappa_study([5], 100, 5, 32, [1], 1), [5], 32), 2),
            (D.plot_dual(D.compute_dual(["norm_tanh"])), 1), (D.plot_aak_depth(aak), 2))
    for fig, n_axes in figs:
        assert isinstance(fig, Figure) and len(fig.axes) == n_axes
    assert len(D.table_rates(aak)) == 2 * 3


def test_check_lemma_e_prediction_and_counterfactual():
    df = D.one_layer_sweep([1.0, 45.0, 179.0], [256, 1024, 4096], 3)
    for lemma in D.LEMMAS_E:
        c = D.check_lemma_e(df, lemma)
        assert c.claim_id == f"[LH] Lemma {lemma}" and c.status == "reproduced", c.measured
    shifted = D.one_layer_sweep([1.0, 45.0, 179.0], [256, 1024, 4096], 3, mean=0.3)  # weights not centred
    for lemma in D.LEMMAS_E:
        assert D.check_lemma_e(shifted, lemma).status == "not reproduced"
    assert D.check_lemma_e(df[df.width == 256], "E.1").status == "inconclusive"
    with pytest.raises(ValueError, match="lemma"):
        D.check_lemma_e(df, "E.9")
    fig = D.plot_one_layer(df)
    assert isinstance(fig, Figure) and len(fig.axes) == 1


def test_check_lengths_prediction_and_counterfactual():
    c = D.check_lengths(D.compute_lengths("tanh", 5, depth=60))
    assert c.claim_id == "[AAK] Thm 3.11" and c.status == "reproduced", c.measured
    # ReLU is positively homogeneous: every input keeps its length, no common fixed point
    assert D.check_lengths(D.compute_lengths("relu", 5, depth=60)).status == "not reproduced"
    assert D.check_lengths(D.compute_lengths("tanh", 5, depth=8)).status == "inconclusive"  # too shallow


def test_check_lemma_e6_prediction_and_counterfactual():
    c = D.check_lemma_e6(D.small_angle_embedding())
    assert c.claim_id == "[LH] Lemma E.6" and c.status == "reproduced", c.measured
    # a wrong coefficient (1 instead of 1/3): the remainder is of order theta_in^2, its ratio does not vanish
    assert D.check_lemma_e6(D.small_angle_embedding(coefficient=1.0)).status == "not reproduced"


def test_table_paper_vs_book_puts_the_papers_limits_beside_ours():
    angles = [0.1, 90.0]
    prof = D.compute_phi_profile(angles, 100000)
    kap, _ = D.compute_kappa_study([5], 3000, 5, 64, [1], 1)
    t = D.table_paper_vs_book(prof, kap)
    assert len(t) == len(angles) + 2  # two data sets, one n
    thm35 = t.loc["[LH] Thm 3.5: gradient angle phi"]
    assert (thm35["paper"] == "75.52 deg").all()  # arccos(1/4)
    deep = prof[prof.depth == prof.depth.max()]
    for (case, row), phi in zip(thm35.iterrows(), deep.sort_values("theta_in").phi):
        assert row["this book"].startswith(f"{math.degrees(phi):.2f} deg")
    thm43 = t.loc["[LH] Thm 4.3: NTK condition number kappa"]
    assert (thm43["paper"] == "(n+3)/3 = 2.67").all()
    last = kap[kap.depth == kap.depth.max()].set_index("data")
    assert thm43.loc["digits, n = 5", "this book"].startswith(f"{last.loc['digits', 'kappa']:.2f}")
    # counterfactual: a kappa stuck at three times the limit shows as such beside the paper's value
    bad = D.table_paper_vs_book(prof, kap.assign(kappa=3 * kap.limit))
    assert bad.loc[("[LH] Thm 4.3: NTK condition number kappa", "digits, n = 5"), "this book"].startswith("8.00")


def test_glue_values_show_values_not_parameter_names():
    from types import SimpleNamespace
    cfg = SimpleNamespace(profile="smoke", g_levels=[1, 5], collapse_angles=[1.0, 45.0], collapse_depth=10000,
                          fw_collapse_depth=10, phi_angles=[0.1, 90.0], max_depth=100000, kappa_ns=[5, 20],
                          kappa_max_depth=1000, fw_depths=[1, 5], fw_width=256, seeds=2, gauss_dim=5,
                          aak_activations=["normrelu", "relu"], aak_n=10, aak_max_depth=150, aak_fw_depths=[1, 3],
                          lemma_widths=[256, 1024])
    g = D.glue_values(cfg)
    assert {f"fig4_{k}" for k in range(1, 7)} <= set(g)
    assert "m = 256" in g["fig4_3"] and "n = 5, 20" in g["fig4_3"] and "profile smoke" in g["fig4_3"]
    assert g["max_depth"] == "100,000" and not any("fw_width" in v for v in g.values())


def test_rates_rounded_keeps_three_digits():
    import pandas as pd
    rates = pd.DataFrame(dict(activation=["a"], kernel=["nngp"], mu=[0.0158634], chi=[1.04123], centred=[True],
                              fitted_slope=[-0.0164987], predicted_slope=[-0.0159876], fit_range=["1-2"],
                              kappa_at_max=[1.0492934]))
    r = D.table_rates_rounded(rates).iloc[0]
    assert r.mu == 0.0159 and r.fitted_slope == -0.0165 and r.kappa_at_max == 1.049
