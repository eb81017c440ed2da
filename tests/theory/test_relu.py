"""ReLU closed forms of lib.theory ([LH] Sec. 3-4): map g, embedding and gradient angles, NTKs.

References are independent of the code under test: the paper's formulas evaluated naively in
50-digit arithmetic (mpmath), the paper's expansions, or linear algebra facts.
"""
import math
import time

import mpmath as mp
import numpy as np
import pytest
from scipy.optimize import brentq

import lib.theory as T
from lib.theory import relu as R
from lib.spectra import cosine_matrix

PI = math.pi


def _g_mp(z):
    return mp.acos(((mp.pi - z) * mp.cos(z) + mp.sin(z)) / mp.pi)


def _phi_mp(theta, L, dps=50):
    """[LH] Eq. 7 term by term in high precision (naive g, naive sum of products)."""
    with mp.workdps(dps):
        th = [mp.mpf(theta)]
        for _ in range(L):
            th.append(_g_mp(th[-1]))
        total = mp.mpf(0)
        for l in range(L + 1):
            prod = mp.mpf(1)
            for lp in range(l, L):
                prod *= 1 - th[lp] / mp.pi
            total += mp.cos(th[l]) * prod
        c = total / (L + 1)
        return 2 * mp.asin(mp.sqrt((1 - c) / 2))


# ---------------------------------------------------------------- the map g


@pytest.mark.parametrize("z", [1e-300, 1e-12, 1e-6, 1e-3, 0.3, 0.5, 1.0, 2.5, PI])
def test_g_stable_matches_high_precision(z):
    with mp.workdps(40 + int(2 * max(0.0, -math.log10(z)))):  # arccos(1 - z^2/2) needs ~2 log10(1/z) digits
        ref = _g_mp(mp.mpf(z))
    got = float(T.relu_g_stable(z))
    assert abs(got - float(ref)) <= 4e-16 * float(ref) + 1e-320


def test_naive_g_agrees_at_moderate_angles_and_loses_digits_at_small():
    z = np.linspace(0.2, PI, 200)
    assert np.allclose(T.relu_g(z), T.relu_g_stable(z), rtol=1e-13, atol=0)
    tiny = 1e-9  # arccos of 1 - O(z^2) keeps only ~half the digits
    with mp.workdps(40):
        ref = float(_g_mp(mp.mpf(tiny)))
    assert abs(float(T.relu_g_stable(tiny)) - ref) < 1e-15 * ref
    assert abs(float(T.relu_g(tiny)) - ref) > 1e-9 * ref


def test_arccos_kernel_special_values_and_its_callers():
    """J_n at angles where the Gaussian expectations are known by hand; g, the ReLU layer map of the recursion
    and chapter 04's one-layer lemmas all evaluate the arc-cosine kernels through ``arccos_kernel``."""
    t = np.array([0.0, PI / 2, PI])
    # E[relu(u)^2] = 1/2, E[relu(u) relu(v)] = 1/(2 pi) for independent u, v, and 0 for v = -u
    np.testing.assert_allclose(R.arccos_kernel(1, t) / (2 * PI), [0.5, 1 / (2 * PI), 0.0], atol=1e-16)
    np.testing.assert_allclose(R.arccos_kernel(0, t) / (2 * PI), [0.5, 0.25, 0.0], atol=1e-16)
    z = np.linspace(0.0, PI, 9)
    assert np.array_equal(T.relu_g(z), np.arccos(np.clip(R.arccos_kernel(1, z) / PI, -1, 1)))
    ess, edd = T.dual_expectations("relu", z)
    assert np.array_equal(ess, R.arccos_kernel(1, z) / (2 * PI)) and np.array_equal(edd, R.arccos_kernel(0, z) / (2 * PI))
    with pytest.raises(ValueError, match="order 0, 1, 2"):
        R.arccos_kernel(3, z)


def test_g_properties():
    """[LH] App. A: g increasing, g(z) <= z with equality only at 0, g(pi) = pi/2, g^l -> 0."""
    z = np.linspace(0.0, PI, 20001)
    g = T.relu_g_stable(z)
    assert g[0] == 0.0
    assert np.all(np.diff(g) > 0)                      # strictly increasing
    assert np.all(g[1:] < z[1:])                        # below the identity: only fixed point is 0
    assert abs(g[-1] - PI / 2) < 1e-15                  # g(pi) = arccos(0)
    small = np.array([1e-8, 1e-6, 1e-4])                # z - g(z) = z^2/(3 pi) + O(z^3) ([LH] Cor. 4.3, l = 1)
    ratio = (small - T.relu_g_stable(small)) / (small ** 2 / (3 * PI))
    assert np.all(np.abs(ratio - 1) < 0.2 * small + 1e-7)
    ang = T.relu_embedding_angles(np.array([0.5, 2.0, PI]), 3000)  # embedding collapse, theta^(l) ~ 3 pi / l
    assert np.all(np.diff(ang, axis=-1) < 0)
    assert np.all(np.abs(ang[:, -1] * 3000 / (3 * PI) - 1) < 0.05)


def test_embedding_angles_shape_and_depth_zero():
    th = np.array([[0.1, 0.2, 0.3], [1.0, 2.0, 3.0]])
    out = T.relu_embedding_angles(th, 4)
    assert out.shape == (2, 3, 5)
    assert np.array_equal(out[..., 0], th)
    assert np.allclose(out[..., 2], T.relu_g_stable(T.relu_g_stable(th)), rtol=1e-15)
    assert T.relu_embedding_angles(0.7, 0).shape == (1,)


def test_embedding_angles_small_angle_expansion():
    """[LH] Cor. 4.3: theta^(l) = theta - l theta^2 / (3 pi) + o(theta^2) for theta = o(1/L)."""
    th, L = 1e-5, 10
    ang = T.relu_embedding_angles(th, L)
    l = np.arange(1, L + 1)
    ratio = (th - ang[1:]) / (l * th ** 2 / (3 * PI))
    assert np.all(np.abs(ratio - 1) < 0.2 * l * th + 1e-8)  # next order is O(l theta)


# ---------------------------------------------------------------- gradient angle phi


@pytest.mark.parametrize("theta", [1e-12, 1e-6, 0.3, 1.5, 3.0, PI])
@pytest.mark.parametrize("L", [0, 1, 10, 200])
def test_gradient_angle_matches_eq7_in_high_precision(theta, L):
    ref = float(_phi_mp(theta, L, dps=40 if L > 50 else 50))
    got = float(T.relu_gradient_angle(theta, L))
    assert abs(got - ref) <= 1e-13 * ref + 1e-300


def test_gradient_angle_small_angle_laws():
    """[LH] Thm 3.2 / Cor. 3.3: phi^2 = theta^2 + (L/pi) theta + o(theta),
    cos phi = (1 - L theta/(2 pi)) cos theta + o(theta)."""
    for L in (1, 3, 10):
        for th in (1e-4, 1e-6, 1e-8, 1e-10):
            phi = float(T.relu_gradient_angle(th, L))
            r = (phi ** 2 - th ** 2) / (L / PI * th)
            assert abs(r - 1) < 2 * L * L * th          # the correction is O(L^2 theta)
            one_minus_cos = 2 * math.sin(phi / 2) ** 2
            pred = 2 * math.sin(th / 2) ** 2 + (L * th / (2 * PI)) * math.cos(th)
            assert abs(one_minus_cos / pred - 1) < 2 * L * L * th
            assert phi > th                              # better separation, strictly


def test_profile_matches_single_depths_and_scalar_path():
    th = np.array([1e-7, 0.01, 0.4, 1.2, 2.9])
    prof = T.relu_gradient_angle_profile(th, 300)
    for L in (0, 1, 7, 300):
        assert np.allclose(prof[..., L], T.relu_gradient_angle(th, L), rtol=1e-14, atol=0)
    assert np.array_equal(prof[..., 0], th) or np.allclose(prof[..., 0], th, rtol=1e-15)
    # the Python-float path (few angles, large depth) and the numpy path agree
    d_np = R._deficits_numpy(th, 30_000, profile=False)[..., 0]
    d_sc = np.array([R._deficits_scalar(float(t), 30_000, False)[0] for t in th])
    assert np.allclose(d_np, d_sc, rtol=1e-12, atol=0)


def test_depth_one_million_is_fast_and_follows_the_limit_law():
    """[LH] Thm 3.5: phi -> arccos(1/4). The rate cos phi_L - 1/4 = (3/8) ln L / L + C(theta)/L + o(1/L)
    (limits.py) is checked through the difference of (cos phi_L - 1/4) L at L = 1e5 and 1e6, where C cancels."""
    L2, L1 = 10 ** 6, 10 ** 5
    th = np.array([0.5, 1.5])
    t0 = time.perf_counter()
    prof = T.relu_gradient_angle_profile(th, L2)
    elapsed = time.perf_counter() - t0
    assert elapsed < 30, f"depth 1e6 took {elapsed:.1f} s"
    c = np.cos(prof)
    slope = ((c[:, L2] - 0.25) * L2 - (c[:, L1] - 0.25) * L1) / math.log(L2 / L1)
    assert np.all(np.abs(slope - 3 / 8) < 2e-3)
    lim = T.relu_gradient_angle_limit()
    assert abs(lim - math.acos(0.25)) < 1e-16 and abs(math.degrees(lim) - 75.52) < 0.01
    err = lim - prof[:, L2]
    bound = 2 * (3 / 8) * math.log(L2) / L2 / math.sin(lim)
    assert np.all((err > 0) & (err < bound))  # approached from below, within twice the leading term


def test_small_angles_need_depth_of_order_3pi_over_theta():
    """For small theta the O(1/L) term is ~ 3 pi / (4 theta L) (limits.py): at L = 1e3 a pair at 1e-3 rad
    is still far from arccos(1/4) ([LH] Thm 3.5)."""
    th = 1e-3
    L = 10 ** 6
    c = float(np.cos(T.relu_gradient_angle(th, L)))
    C = (c - 0.25 - 0.375 * math.log(L) / L) * L
    assert abs(C * th / (3 * PI / 4) - 1) < 0.01
    far = math.degrees(T.relu_gradient_angle_limit() - float(T.relu_gradient_angle(th, 1000)))
    assert far > 40  # degrees still missing at depth 1e3


def test_better_separation_and_crossover():
    """[LH] Sec. 3: phi > theta for theta below ~60 deg, increasing in L; phi >= 60 deg for theta >= 60 deg.
    The actual crossover phi(theta*) = theta* is 66.8 deg at L = 1 and rises to arccos(1/4) = 75.5 deg."""
    th = np.radians(np.linspace(0.01, 60, 600))
    prof = T.relu_gradient_angle_profile(th, 10)
    assert np.all(prof[:, 1:] > th[:, None])
    assert np.all(np.diff(prof, axis=-1) > 0)
    big = np.radians(np.linspace(60, 180, 600))
    assert np.all(T.relu_gradient_angle_profile(big, 10)[:, 1:] > np.radians(60))
    cross = [brentq(lambda t: float(T.relu_gradient_angle(t, L)) - t, np.radians(50), np.radians(80))
             for L in (1, 2, 5, 10, 100)]
    assert np.all(np.diff(cross) > 0)
    assert np.radians(60) < cross[0] and cross[-1] < T.relu_gradient_angle_limit()


# ---------------------------------------------------------------- NTK matrices


def _eq7_kernel(X, L):
    """Theta = |x||z| sum_l cos theta_l prod_{l'>=l}(1 - theta_l'/pi) with the naive g and arccos angles."""
    n = X.shape[0]
    K = np.empty((n, n))
    nx = np.linalg.norm(X, axis=1)
    for i in range(n):
        for j in range(n):
            c = np.clip(X[i] @ X[j] / (nx[i] * nx[j]), -1, 1)
            th = [0.0 if i == j else math.acos(c)]  # (no near-parallel pairs in these data)
            for _ in range(L):
                th.append(float(T.relu_g(th[-1])))
            tot = sum(math.cos(th[l]) * np.prod([1 - t / PI for t in th[l:L]]) for l in range(L + 1))
            K[i, j] = nx[i] * nx[j] * tot
    return K


def test_relu_ntk_matches_eq7_and_erratum_diagonal():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(6, 4)) * rng.uniform(0.3, 3.0, size=(6, 1))
    for L in (0, 1, 4):
        K = T.relu_ntk(X, L)
        assert np.allclose(K, _eq7_kernel(X, L), rtol=1e-11, atol=1e-12 * np.abs(K).max())
        assert np.allclose(np.diag(K), (L + 1) * np.sum(X ** 2, axis=1), rtol=1e-14)  # not (L+1)^2 |x|^2
        assert np.array_equal(K, K.T)
        ev = np.linalg.eigvalsh(K)  # G has rank 4 < n = 6; the ReLU NTK of non-parallel inputs is definite
        assert ev[0] > (1e-6 * ev[-1] if L else -1e-12 * ev[-1])
    assert np.allclose(T.relu_ntk(X, 0), X @ X.T, rtol=1e-13, atol=1e-13)
    assert np.allclose(T.relu_ntk(2.5 * X, 3), 6.25 * T.relu_ntk(X, 3), rtol=1e-13)  # 2-homogeneous


def test_relu_ntk_parallel_and_antiparallel_inputs():
    x = np.array([0.3, -1.2, 0.7])
    X = np.stack([x, 2.0 * x, -x, np.array([1.0, 0.0, 0.0])])
    K = T.relu_ntk(X, 3)
    nx = np.linalg.norm(X, axis=1)
    assert K[0, 1] == pytest.approx(4 * nx[0] * nx[1], rel=1e-14)  # theta = 0: cos phi = 1
    C = cosine_matrix(K)
    assert C[0, 2] == pytest.approx(math.cos(float(T.relu_gradient_angle(PI, 3))), abs=1e-14)
    lam = np.linalg.eigvalsh(K)
    assert lam[0] < 1e-12 * lam[-1]  # parallel pair: singular NTK


def test_first_layer_ntk_is_gram_times_product():
    """[LH] Thm 4.2: K_L = G o P_L, (P_L)_ij = prod_{l<L} (1 - theta^(l)_ij/pi)."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(5, 3))
    L = 4
    G = X @ X.T
    nx = np.sqrt(np.diag(G))
    th = np.arccos(np.clip(G / np.outer(nx, nx), -1, 1))
    np.fill_diagonal(th, 0.0)
    ang = T.relu_embedding_angles(th, L)
    P = np.prod(1 - ang[..., :L] / PI, axis=-1)
    assert np.allclose(T.relu_first_layer_ntk(X, L), G * P, rtol=1e-12, atol=1e-14)
    assert np.allclose(T.relu_first_layer_ntk(X, 0), G, rtol=1e-13, atol=1e-14)


def _kappa(K):
    ev = np.linalg.eigvalsh(K)
    return ev[-1] / ev[0], ev[0]


def test_schur_product_inequalities_and_strictness():
    """[LH] Thm 4.2: lambda_min(K_L) >= lambda_min(G), kappa(K_L) <= kappa_0, kappa(K_{L+1}) <= kappa(K_L).
    Follows from the Schur product theorem since P_L is PSD with unit diagonal. Strict on random data."""
    rng = np.random.default_rng(5)
    for trial in range(12):
        n = int(rng.integers(3, 9))
        X = rng.normal(size=(n, n + 2))
        if trial % 2:
            X /= np.linalg.norm(X, axis=1, keepdims=True)
        k0, l0 = _kappa(X @ X.T)
        prev = k0
        for L in range(1, 7):
            kL, lL = _kappa(T.relu_first_layer_ntk(X, L))
            assert lL > l0 * (1 + 1e-9)
            assert kL < prev * (1 - 1e-9)
            prev = kL


def test_schur_strictness_fails_for_orthogonal_inputs():
    """The strict inequalities claimed in [LH] Thm 4.2 need more than 'no parallel pair': if an input
    is orthogonal to all others and has the smallest norm, lambda_min(K_L) = lambda_min(G) exactly;
    for orthonormal inputs K_L = G and kappa = kappa_0 = 1."""
    X = np.eye(4)
    for L in (1, 3, 6):
        assert np.allclose(T.relu_first_layer_ntk(X, L), np.eye(4), atol=1e-15)
    rng = np.random.default_rng(6)
    Y = np.zeros((4, 5))
    Y[0, 0] = 0.5                                   # short and orthogonal to the rest
    Y[1:, 1:] = rng.normal(size=(3, 4))
    l0 = np.linalg.eigvalsh(Y @ Y.T)[0]
    assert l0 == pytest.approx(0.25, rel=1e-12)
    for L in (1, 4):
        assert np.linalg.eigvalsh(T.relu_first_layer_ntk(Y, L))[0] == pytest.approx(l0, rel=1e-12)


def test_two_inputs_all_layers_conditioning():
    """[LH] App. F (n = 2, all layers trained): kappa < kappa_0 and decreasing in L for small theta.
    For theta above the crossover (e.g. 80 deg) the ReLU NTK is worse conditioned than the Gram matrix."""
    def pair(theta):
        return np.array([[1.0, 0.0], [math.cos(theta), math.sin(theta)]])

    X = pair(0.05)
    k0 = _kappa(X @ X.T)[0]
    ks = [_kappa(T.relu_ntk(X, L))[0] for L in range(1, 8)]
    assert ks[0] < k0 and np.all(np.diff(ks) < 0)
    Y = pair(math.radians(80))
    assert _kappa(T.relu_ntk(Y, 3))[0] > _kappa(Y @ Y.T)[0]


# ---------------------------------------------------------------- input validation


def test_bad_inputs_raise_clear_errors():
    with pytest.raises(ValueError, match="NaN"):
        T.relu_gradient_angle(np.array([0.1, np.nan]), 3)
    with pytest.raises(ValueError, match="non-negative"):
        T.relu_gradient_angle(0.1, -1)
    with pytest.raises(TypeError, match="integer"):
        T.relu_gradient_angle(0.1, 2.5)
    with pytest.raises(TypeError, match="integer"):
        T.relu_embedding_angles(0.1, True)
    with pytest.raises(ValueError, match="degrees"):
        T.relu_gradient_angle(30.0, 2)
    with pytest.raises(ValueError, match="zero"):
        T.relu_ntk(np.array([[1.0, 0.0], [0.0, 0.0]]), 2)
    with pytest.raises(ValueError, match="NaN"):
        T.relu_ntk(np.array([[1.0, np.nan], [0.0, 1.0]]), 2)
    with pytest.raises(ValueError, match="shape"):
        T.relu_first_layer_ntk(np.ones(3), 1)
    with pytest.raises(TypeError):
        T.relu_ntk("abc", 1)


def test_weighted_gradient_angle():
    """relu_gradient_angle_weighted (log1p/expm1 products) reproduces the deficit recursion for w = 1, and the
    block weights act as a weighted mean of the per-layer cosines."""
    th = np.array([1e-9, 1e-4, 0.3, 1.5, 3.0, PI])
    for L in (0, 1, 5, 50):
        assert np.allclose(T.relu_gradient_angle_weighted(th, L, np.ones(L + 1)), T.relu_gradient_angle(th, L),
                           rtol=1e-13, atol=0)
        assert np.allclose(T.relu_gradient_angle_weighted(th, L, 7.0 * np.ones(L + 1)), T.relu_gradient_angle(th, L),
                           rtol=1e-13, atol=0)
    # only the output layer: phi = theta^(L); only W^(1): cos phi = cos theta prod (1 - theta^(l)/pi)
    L = 4
    ang = T.relu_embedding_angles(th, L)
    e_out = np.eye(L + 1)[L]
    assert np.allclose(T.relu_gradient_angle_weighted(th, L, e_out), ang[..., L], rtol=1e-12)
    e_in = np.eye(L + 1)[0]
    ref = np.cos(th) * np.prod(1 - ang[..., :L] / PI, axis=-1)
    assert np.allclose(np.cos(T.relu_gradient_angle_weighted(th, L, e_in)), ref, rtol=1e-12, atol=1e-15)
    with pytest.raises(ValueError, match="layer_weights"):
        T.relu_gradient_angle_weighted(th, L, np.ones(L))


def _layer_by_layer(monkeypatch, fn, *args):
    monkeypatch.setattr(R, "_TAIL_DEPTH", 10 ** 12)
    out = fn(*args)
    monkeypatch.setattr(R, "_TAIL_DEPTH", 100_000)
    return out


@pytest.mark.parametrize("name", ["relu_gradient_angle", "relu_embedding_angles"])
def test_closed_form_deep_layers_match_the_layer_by_layer_recursion(monkeypatch, name):
    """Past depth 1e5 the deep layers follow the Fatou coordinate of g and Euler-Maclaurin sums: same numbers."""
    th = np.array([0.0, 1e-9, 1e-4, 0.3, 1.5, math.pi])
    fn = getattr(R, name)
    fast = fn(th, 200_000)
    slow = _layer_by_layer(monkeypatch, fn, th, 200_000)
    np.testing.assert_allclose(fast, slow, rtol=1e-11, atol=0)


@pytest.mark.parametrize("name", ["relu_ntk", "relu_first_layer_ntk"])
def test_closed_form_deep_kernels_match_the_layer_by_layer_recursion(monkeypatch, name):
    X = np.random.default_rng(3).standard_normal((6, 4))
    X[1] = -X[0]  # antiparallel pair: P = 0 exactly
    X[2] = 2 * X[3]  # parallel pair: theta = 0
    fn = getattr(R, name)
    np.testing.assert_allclose(fn(X, 200_000), _layer_by_layer(monkeypatch, fn, X, 200_000), rtol=1e-11, atol=0)


def test_depth_ten_million_for_fifty_angles_takes_seconds():
    """Depth 1e7: the closed-form deep layers make it a fraction of a second (minutes layer by layer)."""
    th = np.linspace(0.0, math.pi, 50)
    X = np.random.default_rng(0).standard_normal((10, 5))
    t0 = time.perf_counter()
    phi = T.relu_gradient_angle(th, 10 ** 7)
    K = T.relu_ntk(X, 10 ** 7)
    P = T.relu_first_layer_ntk(X, 10 ** 7)
    ang = T.relu_embedding_angles(th[:2], 10 ** 7)
    elapsed = time.perf_counter() - t0
    assert elapsed < 10, f"depth 1e7 took {elapsed:.1f} s"
    lim = T.relu_gradient_angle_limit()
    mid = th >= 0.5
    assert np.all(phi[1:] < lim) and np.all(lim - phi[mid] < 2 * (3 / 8) * math.log(1e7) / 1e7 / math.sin(lim))
    assert np.allclose(np.diag(K), (10 ** 7 + 1) * np.sum(X ** 2, axis=1))
    assert np.all(np.isfinite(P)) and ang.shape == (2, 10 ** 7 + 1)
    assert abs(ang[1, -1] * 10 ** 7 / (3 * math.pi) - 1) < 1e-4  # theta^(l) ~ 3 pi / l


@pytest.mark.parametrize("call, exc_type, message", [
    (lambda: T.relu_gradient_angle(0.5, -1), ValueError, r"depth must be a non-negative integer .* got -1"),
    (lambda: T.relu_gradient_angle(0.5, 2.5), TypeError, r"depth must be a non-negative integer .* got 2\.5"),
    (lambda: T.relu_gradient_angle(90.0, 3), ValueError, r"theta_in must lie in \[0, pi\] radians, .*degrees"),
    (lambda: T.relu_ntk(np.zeros((0, 3)), 2), ValueError, r"X is empty \(shape \(0, 3\)\)"),
])
def test_theory_input_errors_are_project_input_errors(call, exc_type, message):
    from lib.validation import InputError

    with pytest.raises(InputError, match=message) as exc:
        call()
    assert isinstance(exc.value, exc_type)
