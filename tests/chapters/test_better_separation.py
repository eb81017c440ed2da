"""Chapter 02 support: pairs at prescribed angles, App. B variants, separation measurements."""
import dataclasses
import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
import torch
from matplotlib.figure import Figure

from lib.chapters import better_separation as S
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.validation import InputError
from lib.data.pairs import angle_pairs, pair_angles, pair_cosines
from lib.finite.tangent import model_ntk, pair_gradient_angles
from lib.finite.variants import VariantMLP, layer_weights, relu_weighted_gradient_angle
from lib import theory


def _kahan_angle(x, z):
    nx, nz = np.linalg.norm(x), np.linalg.norm(z)
    return 2 * math.atan2(np.linalg.norm(x * nz - z * nx), np.linalg.norm(x * nz + z * nx))


def _jacobian_ntk(model, X):
    """Independent reference: per-sample autograd gradients over every parameter (weights and biases)."""
    rows = []
    for x in torch.as_tensor(X, dtype=torch.float64):
        grads = torch.autograd.grad(model(x[None])[0], list(model.parameters()))
        rows.append(torch.cat([g.reshape(-1) for g in grads]))
    F = torch.stack(rows)
    return (F @ F.T).numpy()


# ---------------------------------------------------------------- pairs

def test_angle_pairs_have_the_requested_angles_and_norms():
    t = np.array([1e-6, 1e-3, 0.3, 1.0, math.pi / 2, 3.0, math.pi])
    X = angle_pairs(t, 7, seed=3, norms=(2.0, 0.5))
    assert X.shape == (14, 7)
    np.testing.assert_allclose(np.linalg.norm(X[0::2], axis=1), 2.0, rtol=1e-14)
    np.testing.assert_allclose(np.linalg.norm(X[1::2], axis=1), 0.5, rtol=1e-14)
    got = np.array([_kahan_angle(X[2 * i], X[2 * i + 1]) for i in range(t.size)])
    np.testing.assert_allclose(got, t, rtol=1e-9, atol=1e-15)  # relative accuracy even at 1e-6 rad
    # different seeds give different planes, the same angles
    assert not np.allclose(X, angle_pairs(t, 7, seed=4, norms=(2.0, 0.5)))


def test_pair_angles_reads_the_within_pair_angle_of_a_gram_matrix():
    t = np.array([0.2, 1.1, 2.5])
    X = angle_pairs(t, 4, seed=0)
    np.testing.assert_allclose(pair_angles(X @ X.T), t, atol=1e-7)
    np.testing.assert_allclose(pair_cosines(X @ X.T), np.cos(t), atol=1e-14)


@pytest.mark.parametrize("bad, exc", [
    (dict(angles=[200.0], d=4), ValueError),          # degrees
    (dict(angles=[-0.1], d=4), ValueError),
    (dict(angles=[np.nan], d=4), ValueError),
    (dict(angles=[], d=4), ValueError),
    (dict(angles=[0.1], d=1), ValueError),
    (dict(angles=[0.1], d=4, norms=(1.0, 0.0)), ValueError),
])
def test_angle_pairs_rejects_bad_input(bad, exc):
    with pytest.raises(exc):
        angle_pairs(**bad)


def test_pair_angles_rejects_odd_kernels():
    with pytest.raises(ValueError, match="even number"):
        pair_angles(np.eye(3))


# ---------------------------------------------------------------- App. B variants

@pytest.mark.parametrize("kw", [
    dict(), dict(bias_std=0.7), dict(parameterization="standard"),
    dict(parameterization="standard", bias_std=0.3), dict(layer_std=[1.0, 2.0, 0.5, 3.0], layer_mult=[1.0, 3.0, 0.2]),
    dict(activation="tanh", bias_std=0.4, layer_std=0.5),
])
def test_variant_ntk_matches_a_jacobian_over_all_parameters(kw):
    X = angle_pairs([0.1, 1.0, 2.0], 5, seed=1)
    net = VariantMLP(5, 12, 3, seed=2, **kw)
    J = _jacobian_ntk(net, X)
    np.testing.assert_allclose(model_ntk(net, X), J, rtol=1e-12, atol=1e-12 * np.abs(J).max())


def test_plain_variant_equals_the_mlp():
    X = angle_pairs([0.3, 1.3], 6, seed=0)
    np.testing.assert_allclose(model_ntk(VariantMLP(6, 32, 4, seed=5), X), empirical_ntk(MLP(6, 32, 4, seed=5), X),
                               rtol=1e-13)


def test_scale_invariance_for_bias_free_relu_and_its_failure_otherwise():
    X = angle_pairs(np.deg2rad([2, 20, 70, 150]), 8, seed=0)
    base = pair_gradient_angles(MLP(8, 64, 4, seed=1), X)
    for kw in (dict(layer_std=0.01), dict(layer_std=30.0), dict(layer_mult=[0.2, 5.0, 1.5, 0.7])):
        np.testing.assert_allclose(pair_gradient_angles(VariantMLP(8, 64, 4, seed=1, **kw), X), base, atol=1e-10)
    # per-layer init scales, the standard parameterization and biases do move the angles
    for kw in (dict(layer_std=[1, 2, 3, 4, 5]), dict(parameterization="standard"), dict(bias_std=1.0)):
        assert np.abs(pair_gradient_angles(VariantMLP(8, 64, 4, seed=1, **kw), X) - base).max() > 1e-3
    # a non-homogeneous activation is not scale invariant
    t0 = pair_gradient_angles(MLP(8, 64, 4, activation="tanh", seed=1), X)
    t1 = pair_gradient_angles(VariantMLP(8, 64, 4, activation="tanh", seed=1, layer_std=3.0), X)
    assert np.abs(t1 - t0).max() > 1e-3


def test_layer_weights():
    np.testing.assert_allclose(layer_weights(3), 0.25)
    np.testing.assert_allclose(layer_weights(2, [1.0, 2.0, 1.0]), np.array([1, 0.25, 1]) / 2.25)
    w = layer_weights(2, parameterization="standard", width=100)
    np.testing.assert_allclose(w, np.array([1, 50, 50]) / 101)
    np.testing.assert_allclose(layer_weights(2, parameterization="standard"), [0, 0.5, 0.5])
    with pytest.raises(ValueError, match="parameterization"):
        layer_weights(2, parameterization="mup")
    with pytest.raises(ValueError, match="3 values"):
        layer_weights(2, [1.0, 2.0])


def test_weighted_angle_reduces_to_the_theory():
    t = np.deg2rad([0.5, 10, 60, 120, 179])
    L = 4
    np.testing.assert_allclose(relu_weighted_gradient_angle(t, L, np.ones(L + 1)), theory.relu_gradient_angle(t, L),
                               atol=1e-7)
    # the first-layer kernel alone is G o P_L of [LH] Thm 4.2
    X = angle_pairs(t, 3, seed=0)
    K1 = theory.relu_first_layer_ntk(X, L)
    e1 = np.eye(L + 1)[0]
    np.testing.assert_allclose(relu_weighted_gradient_angle(t, L, e1), pair_angles(K1), atol=1e-7)
    # the last-layer kernel alone is the top embedding angle
    np.testing.assert_allclose(np.cos(relu_weighted_gradient_angle(t, L, np.eye(L + 1)[L])),
                               np.cos(theory.relu_embedding_angles(t, L)[:, L]), atol=1e-12)
    with pytest.raises(ValueError, match="weights"):
        relu_weighted_gradient_angle(t, L, np.ones(L))


def test_weighted_angle_predicts_finite_width_variants():
    # finite-width error is O(1/sqrt(m)); at m = 2048 the plain net's angle error is ~0.02 rad (chapter 2)
    t = np.deg2rad([5, 30, 90, 150])
    L, m = 3, 2048
    X = angle_pairs(t, 10, seed=0)
    for kw in (dict(layer_std=[1.0, 3.0, 1.0, 0.5]), dict(parameterization="standard")):
        phi = np.mean([pair_gradient_angles(VariantMLP(10, m, L, seed=s, **kw), X) for s in range(2)], axis=0)
        w = layer_weights(L, kw.get("layer_std"), kw.get("parameterization", "ntk"), width=m)
        assert np.abs(phi - relu_weighted_gradient_angle(t, L, w)).max() < 0.08


@pytest.mark.parametrize("kw, msg", [
    (dict(parameterization="mf"), "parameterization"),
    (dict(bias_std=-1.0), "bias_std"),
    (dict(layer_std=[1.0, 2.0]), "layer_std"),
    (dict(layer_std=[1.0, 0.0, 1.0, 1.0]), "positive"),
    (dict(layer_mult=[1.0, 1.0, 1.0], parameterization="standard"), "NTK parameterization"),
])
def test_variant_rejects_bad_input(kw, msg):
    with pytest.raises(ValueError, match=msg):
        VariantMLP(4, 8, 3, **kw)


# ---------------------------------------------------------------- chapter measurements

def test_crossover_angles_are_roots():
    tab = S.crossover_angles([1, 7])
    for r in tab.itertuples():
        c = math.radians(r.cross)
        assert abs(theory.relu_gradient_angle(c, r.depth) - c) < 1e-9
        assert theory.relu_gradient_angle(c - 0.05, r.depth) > c - 0.05
        assert theory.relu_gradient_angle(c + 0.05, r.depth) < c + 0.05
        t60 = math.radians(r.theta_at_phi60)
        assert abs(math.degrees(theory.relu_gradient_angle(t60, r.depth)) - 60) < 1e-7


def test_small_angle_law_error_vanishes():
    tab = S.small_angle_errors(np.geomspace(1e-9, 1e-3, 4), [3])
    err = np.abs(tab.rel_err_law.to_numpy())
    assert err[-1] > err[0] and err[0] < 1e-6  # o(theta) corrections fade
    np.testing.assert_allclose(tab.leading, np.sqrt(3 * tab.theta / math.pi))


def test_finite_width_angles_close_to_theory():
    t = np.deg2rad([10, 45, 90, 135])
    df = S.measure_finite_width_angles(t, [1024], [2], 2, d=8)
    th = S.relu_theory_curves(t, [2])
    e = S.width_errors(df, th)
    assert e.rms.iloc[0] < 5 / math.sqrt(1024)  # O(1/sqrt(m)) fluctuations, generous constant
    assert set(df.columns) >= {"width", "depth", "seed", "theta", "phi"}


def test_gradient_norm_ratio_near_one():
    r = S.measure_gradient_norm_ratios([2048], [1, 3], 1, n=6, d=5)
    assert np.all(np.abs(r.ratio_mean - 1) < 0.15)  # (L+1)|x|^2, not (L+1)^2 |x|^2 (= 2 or 4)


# ---------------------------------------------------------------- chapter checks: prediction and counterfactual

GRIDS = S.angle_grids(10.0, 30.0, 8)


def _errs(power):
    return pd.DataFrame([dict(depth=L, width=m, rms=0.1 * L * m ** power, bias=0.0)
                         for L in (1, 5) for m in (64, 256, 1024)])


def _angles(errs):
    """A Figure 1 result holding only the width errors the verdict reads."""
    empty = pd.DataFrame()
    return S.GradientAngles(grids=GRIDS, theory_depths=[1, 5], widths=sorted(set(errs.width)), fw_depths=[1, 5],
                            seeds=1, depths=[1, 5], theory=empty, fw=empty, errs=errs)


def test_width_convergence_reproduced_at_rate_one_over_sqrt_m():
    c = S.check_width_convergence(_angles(_errs(-0.5)))
    assert c.claim_id == "[LH] Lemma 3.1" and c.part == "Eq. 7" and c.status == "reproduced"
    assert "L=1: -0.50, L=5: -0.50" in c.measured


@pytest.mark.parametrize("power", [0.0, 0.5])
def test_width_convergence_not_reproduced_when_the_error_does_not_shrink(power):
    """A wrong limit formula leaves an error that levels off (slope ~ 0) or grows."""
    assert S.check_width_convergence(_angles(_errs(power))).status == "not reproduced"


def test_width_convergence_against_a_wrong_formula_is_not_reproduced():
    """Counterfactual on real nets: the errors of finite ReLU nets against the linear net's phi = theta_in."""
    t = np.deg2rad([20, 45, 90, 135])
    df = S.measure_finite_width_angles(t, [64, 1024], [3], 2, d=8)
    wrong = S.relu_theory_curves(t, [3]).assign(phi=lambda d: d.theta)
    assert S.check_width_convergence(_angles(S.width_errors(df, wrong))).status == "not reproduced"
    right = S.check_width_convergence(_angles(S.width_errors(df, S.relu_theory_curves(t, [3]))))
    assert right.status in ("reproduced", "reproduced with caveat")


def test_width_convergence_slow_rate_is_a_caveat_and_one_width_inconclusive():
    assert S.check_width_convergence(_angles(_errs(-0.2))).status == "reproduced with caveat"
    one = S.check_width_convergence(_angles(_errs(-0.5).query("width == 256")))
    assert one.status == "inconclusive" and "one width" in one.caveat


def _small(small=None, depths=(1, 20), fw_small=None):
    """A small-angle study from given exact angles and/or finite-width rows (the onset derived as the sweep does)."""
    thetas = np.geomspace(1e-7, 1.0, 36)
    small = S.small_angle_errors(thetas, list(depths)) if small is None else small
    fw_small = pd.DataFrame(columns=["width", "depth", "seed", "theta", "phi"]) if fw_small is None else fw_small
    return S.SmallAngles(grids=GRIDS, seeds=2, depths=list(depths), thetas=thetas, small=small,
                         fw_depths=sorted(set(fw_small.depth)), fw_small=fw_small,
                         onset=S.separation_onset(fw_small) if len(fw_small) else pd.DataFrame())


def test_small_angle_law_reproduced_by_the_relu_angles():
    c = S.check_small_angle_law(_small())
    assert c.status == "reproduced" and "Over depths 1, 20 and" in c.measured


def test_small_angle_law_not_reproduced_by_a_linear_network():
    small = S.small_angle_errors(np.geomspace(1e-7, 1.0, 36), [1, 20])
    lin = small.assign(phi=small.theta, rel_err_law=small.theta / small.law - 1)  # phi_bar = theta_in
    assert S.check_small_angle_law(_small(small=lin)).status == "not reproduced"


def _fw_small(onsets, linear=False):
    """Finite-width small-angle rows: phi = phi_inf above the width's onset angle, phi = theta below."""
    t = np.geomspace(1e-6, 0.3, 12)
    rows = []
    for m, onset in onsets.items():
        for L in (1, 5):
            for s in range(2):
                phi = theory.relu_gradient_angle(t, L)
                phi = np.where((t >= onset) & (not linear), phi, t * 0.99)
                rows.append(pd.DataFrame(dict(width=m, depth=L, seed=s, theta=t, phi=phi)))
    return pd.concat(rows, ignore_index=True)


def test_separation_onset_caveat_when_the_onset_shrinks_with_width():
    c = S.check_separation_onset(_small(fw_small=_fw_small({64: 1e-2, 256: 1e-3})))
    assert c.claim_id == "[LH] Thm 3.2" and c.status == "reproduced with caveat"
    assert "The onset shrinks" in c.measured and "for 8 of 8 nets" in c.measured
    assert c.caveat == S.ONSET_CAVEAT  # the best verdict a finite measurement can give (permanent caveat)


@pytest.mark.parametrize("onsets, linear", [({64: 1e-3, 256: 1e-2}, False), ({64: 1e-3, 256: 1e-3}, True)])
def test_separation_onset_not_reproduced_when_it_grows_or_never_sets_in(onsets, linear):
    c = S.check_separation_onset(_small(fw_small=_fw_small(onsets, linear=linear)))
    assert c.status == "not reproduced" and "does not shrink" in c.measured


def _norms(ratio_of_L, depths=(1, 5)):
    rows = [dict(width=m, depth=L, seed=s, ratio=ratio_of_L(L) * (1 + 0.01 * s)) for m in (64, 256)
            for L in (1, 5) for s in range(3)]
    return S.GradientNorms(grids=GRIDS, widths=[64, 256], depths=list(depths), seeds=3, ratios=pd.DataFrame(rows))


def test_gradient_norm_not_reproduced_when_the_ratio_is_one():
    # the measured ReLU net: ||grad f||^2 = (L+1)||x||^2, so the paper's (L+1)||x|| is the erratum
    c = S.check_gradient_norm(_norms(lambda L: 1.0))
    assert (c.claim_id, c.part) == ("[LH] Lemma 3.1", "gradient norm")
    assert c.status == "not reproduced" and "over depths 1, 5 (" in c.measured and "up to 6." in c.measured


def test_gradient_norm_reproduced_with_the_papers_factor():
    # a net with the paper's ||grad f|| = (L+1)||x|| would make the ratio L+1
    assert S.check_gradient_norm(_norms(lambda L: L + 1.0)).status == "reproduced"


def test_gradient_norm_caveat_between_and_not_checked_at_depth_0():
    assert S.check_gradient_norm(_norms(lambda L: (L + 1.0) ** 0.6)).status == "reproduced with caveat"
    gn = _norms(lambda L: 1.0, depths=(0,))
    depth0 = dataclasses.replace(gn, ratios=gn.ratios.query("depth == 1").assign(depth=0))
    assert S.check_gradient_norm(depth0).status == "not checked"


@pytest.fixture(scope="module")
def crossovers():
    return S.crossovers(S.angle_grids(5.0, 30.0), [1, 5, 20])


def test_crossover_reproduced_by_relu(crossovers):
    assert S.check_crossover(crossovers).status == "reproduced"
    assert S.check_large_angles(crossovers).status == "reproduced"


def test_crossover_not_reproduced_below_60_or_without_depth_growth(crossovers):
    cr = crossovers
    assert S.check_crossover(dataclasses.replace(cr, cross=cr.cross.assign(cross=45.0))).status == "not reproduced"
    no_growth = dataclasses.replace(cr, mono=cr.mono.assign(increasing_below=30.0))
    assert S.check_crossover(no_growth).status == "not reproduced"


def test_large_angles_a_linear_network_is_about_60_and_a_collapse_fails(crossovers):
    # phi_bar = theta_in: the smallest phi over [60, 180] deg is exactly 60 deg, "about 60" but not above it
    linear = dataclasses.replace(crossovers, cross=crossovers.cross.assign(min_phi_above60=60.0))
    assert S.check_large_angles(linear).status == "reproduced with caveat"
    # a net that makes non-similar inputs similar (phi down to 30 deg) fails
    collapse = dataclasses.replace(crossovers, cross=crossovers.cross.assign(min_phi_above60=30.0))
    assert S.check_large_angles(collapse).status == "not reproduced"


def _acts(linear=False, overflow=False):
    grid = np.deg2rad(np.arange(0.0, 180.0 + 1e-9, 10.0))
    acts, depths = ["relu2", "tanh"], [1, 5]
    th = pd.concat([pd.DataFrame(dict(activation=a, depth=L, theta=grid[1:],
                                      phi=grid[1:] if linear else S.theory_phi(a, grid[1:], L)))
                    for a in acts for L in depths], ignore_index=True)
    fw = th[th.theta.isin(grid[3::3])].assign(seed=0, overflow=False)
    fw = fw.assign(phi=fw.phi + 0.01)
    if overflow:
        fw.loc[(fw.activation == "relu2") & (fw.depth == 5), ["phi", "overflow"]] = [np.nan, True]
    return S.Activations(grids=GRIDS, activations=acts, depths=depths, width=64, seeds=1, theory=th, fw=fw)


def test_other_activations_reproduced_by_the_recursion():
    c = S.check_other_activations(_acts(overflow=True))
    assert c.status == "reproduced"
    assert "differs from the recursion by 0.57 deg" in c.measured
    assert "1 of 4 finite nets overflow float64 (relu2 L=5)" in c.measured


def test_other_activations_not_reproduced_by_a_linear_network():
    c = S.check_other_activations(_acts(linear=True))
    assert c.status == "not reproduced" and "relu2 no, tanh no" in c.measured


def test_other_activations_not_reproduced_when_finite_nets_do_not_separate():
    acts = _acts()
    fw = acts.fw.assign(phi=acts.fw.theta - 0.01)  # finite nets as a linear net: phi <= theta_in
    c = S.check_other_activations(dataclasses.replace(acts, fw=fw))
    assert c.status == "not reproduced" and "relu2 -0.6 deg" in c.measured


def test_other_activations_not_checked_without_the_papers_activations():
    acts = _acts()
    th, fw = (acts.theory.assign(activation="normrelu"), acts.fw.assign(activation="normrelu"))
    c = S.check_other_activations(dataclasses.replace(acts, theory=th.drop_duplicates(["activation", "depth", "theta"]),
                                                      fw=fw, activations=["normrelu"]))
    assert c.status == "not checked" and "none of" in c.caveat


def _vb(linear=False, angles_deg=(10, 30, 90)):
    t = np.deg2rad(angles_deg)
    base = t if linear else theory.relu_gradient_angle(t, 3)
    rows = []
    for name in S.VARIANTS:
        shift = 0.05 if ("init std" in name or "standard" in name or "biases" in name) else 0.0
        rows.append(pd.DataFrame(dict(variant=name, depth=3, seed=0, theta=t, phi=base + shift, phi_inf=np.nan,
                                      phi_inf_m=np.nan, phi_base=base)))
    return S.VariantAngles(grids=GRIDS, depths=[3], width=64, seeds=1, variants=S.VARIANTS,
                           frame=pd.concat(rows, ignore_index=True))


def test_app_b_caveat_when_scales_keep_the_separation():
    va = _vb()
    summary = va.summary
    assert list(summary.index) == list(S.VARIANTS) and "inf_ratio_0.01rad_L3" in summary
    assert S.table_variant_summary(va).equals(summary.round(4))
    c = S.check_app_b(va)
    assert c.claim_id == "[LH] App B" and c.status == "reproduced with caveat"
    assert c.caveat == S.APP_B_CAVEAT  # the best verdict without the paper's own variable (permanent caveat)


def test_app_b_not_reproduced_by_a_linear_network_and_not_checked_without_similar_inputs():
    assert S.check_app_b(_vb(linear=True)).status == "not reproduced"
    assert S.check_app_b(_vb(angles_deg=(60, 90))).status == "not checked"


def test_app_b_not_reproduced_when_an_invariant_variation_moves_phi():
    va = _vb()
    frame = va.frame.copy()
    frame.loc[frame.variant == "global scale 10", "phi"] += 1e-6
    assert S.check_app_b(dataclasses.replace(va, frame=frame)).status == "not reproduced"


# ---------------------------------------------------------------- chapter figures on tiny data

TINY = S.SPEC.config(profile="smoke", grid_step=10.0, fw_step=60.0, theory_depths=[1, 3], widths=[8, 16],
                     fw_depths=[1, 2], seeds=1, in_dim=4, small_depths=[1, 5],
                     activations=["relu2", "tanh", "gelu", "normrelu"], act_depths=[1], act_width=8,
                     appb_depths=[2], appb_width=8)


@pytest.fixture(scope="module")
def tiny_sweep():
    return S.measure_relu_sweep(TINY)


def _n_axes(fig):
    assert isinstance(fig, Figure)
    n = len(fig.axes)
    plt.close(fig)
    return n


def test_grids_and_pair_table():
    g = S.angle_grids(30.0, 60.0, 4)
    assert g.grid.size == 7 and g.fw_angles.size == 3 and g.fw_small_angles.size == 12
    tab = S.table_pair_angles(g)
    np.testing.assert_allclose(tab.measured_deg, tab.requested_deg, atol=1e-6)
    assert g.pairs_text().startswith("3 unit input pairs in d = 4 at input angles 60 to 180 deg (step 60 deg)")
    assert g.small_text() == "12 log-spaced input angles from 1e-6 to 0.3 rad"


def test_the_sweep_carries_its_settings(tiny_sweep):
    sweep = tiny_sweep
    assert sweep.angles.depths == [1, 2, 3] and sweep.angles.widths == [8, 16] and sweep.angles.seeds == 1
    assert sweep.small.fw_depths == [1, 2] and set(sweep.small.fw_small.theta) == set(sweep.grids.fw_small_angles)
    assert sweep.small.depths == [1, 5] and set(sweep.small.onset.columns) >= {"width", "depth", "onset"}
    assert sweep.norms.widths == [8, 16] and sweep.norms.depths == [1, 2]
    assert sweep.crossovers.depths == [1, 2, 3] and list(sweep.crossovers.cross.depth) == [1, 2, 3]
    tab = S.table_crossovers(sweep.crossovers)
    assert list(tab.next_depth.astype(object)) == [2, 3, pd.NA]


def test_plots_return_figures(tiny_sweep):
    sweep = tiny_sweep
    assert _n_axes(S.plot_gradient_angle(sweep.angles)) == 2
    assert _n_axes(S.plot_small_angles(sweep.small)) == 2
    assert _n_axes(S.plot_gradient_norm(sweep.norms)) == 1
    assert _n_axes(S.plot_crossover(sweep.crossovers)) == 1
    acts = S.measure_other_activations(TINY)
    assert acts.width == 8 and acts.activations == ["relu2", "tanh", "gelu", "normrelu"]
    assert _n_axes(S.plot_other_activations(acts)) == 6  # 2 rows of 3, two switched off
    va = S.measure_variant_angles(TINY)
    assert va.width == 8 and va.depths == [2] and list(va.summary.index) == list(S.VARIANTS)
    assert _n_axes(S.plot_variants(va)) == 1


# ---------------------------------------------------------------- real image pairs (digits, faces)

@pytest.fixture
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NTK_CACHE_DIR", str(tmp_path))


def _real(data, depths, width, n, seeds=1):
    return S.SPEC.config(real_data=data, real_depths=depths, real_width=width, real_n=n, seeds=seeds)


def test_real_pairs_reproduced_by_relu_nets_on_digits(_cache):
    rp = S.measure_real_pairs(_real(["digits"], [1, 3], 512, 80))   # 16 pairs at theta_in <= 18.2 deg
    c = S.check_real_pairs(rp, "digits")
    assert c.claim_id == "[LH] Thm 3.2" and c.part == "real pairs, digits" and c.status == "reproduced"
    tab = S.table_real_pairs(rp)
    assert tab.loc[("digits", 3), "share phi > theta_in"] > 0.95


def test_real_pairs_not_reproduced_by_a_linear_network(_cache):
    """Counterfactual: a linear net keeps phi = theta_in on the same pairs (gain 0 up to finite-width noise)."""
    rp = S.measure_real_pairs(_real(["digits", "faces"], [1, 3], 512, 80), activation="linear")
    for name in ("digits", "faces"):
        assert S.check_real_pairs(rp, name).status in ("not reproduced", "not checked")
    assert S.check_real_pairs(rp, "digits").status == "not reproduced"


def test_real_pairs_bad_name_and_figure(_cache):
    with pytest.raises(InputError, match="real_data"):
        S.load_real("cifar", 10)
    rp = S.measure_real_pairs(_real(["faces"], [1], 64, 12))
    assert len(S.plot_real_pairs(rp).axes) == 1


def test_real_pairs_on_mnist5k_reproduced_by_relu_not_by_a_linear_network(_cache):
    """MNIST-5k (the paper's data set): ReLU nets separate similar pairs; the linear counterfactual does not."""
    X = S.load_real("mnist_5k", 20, seed=1)
    assert X.shape == (20, 784) and np.allclose(np.linalg.norm(X, axis=1), 1.0)
    relu = S.measure_real_pairs(_real(["mnist_5k"], [1, 3], 256, 200))   # 13 pairs at theta_in <= 18.2 deg
    assert S.check_real_pairs(relu, "mnist_5k").status == "reproduced"
    lin = S.measure_real_pairs(_real(["mnist_5k"], [1, 3], 256, 200), activation="linear")
    assert S.check_real_pairs(lin, "mnist_5k").status == "not reproduced"
    with pytest.raises(InputError, match="n=5001 .* only 5000"):
        S.load_real("mnist_5k", 5001)
