import math

import numpy as np
import pytest

from lib.spectra import (condition_number, extreme_eigenvalues, fast_extremes, min_pairwise_angle, spectrum,
                         cosine_matrix)
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk


def test_known_condition_number(rng):
    Q, _ = np.linalg.qr(rng.standard_normal((6, 6)))
    ev = np.array([0.5, 1, 2, 3, 4, 50.0])
    K = Q @ np.diag(ev) @ Q.T
    assert condition_number(K) == pytest.approx(100.0, rel=1e-10)
    s = spectrum(K)
    assert s.trustworthy and not s.singular
    np.testing.assert_allclose(s.eigenvalues, ev, rtol=1e-10)


@pytest.mark.parametrize("K", [
    np.ones((4, 4)),                                  # rank one
    np.diag([1.0, 1.0, 0.0]),                         # exactly singular
    np.diag([1.0, 1e-300]),                           # singular to working precision
    np.array([[1.0, 1.0], [1.0, 1.0 + 1e-17]]),       # rounding makes it look PD or indefinite
])
def test_singular_is_infinite(K):
    assert condition_number(K) == math.inf
    assert spectrum(K).singular


def test_gram_with_more_points_than_dimensions_is_infinite(rng):
    X = rng.standard_normal((30, 5))
    assert condition_number(X @ X.T) == math.inf


def test_duplicate_inputs_give_singular_ntk_and_zero_angle(rng):
    X = rng.standard_normal((5, 3))
    X[3] = X[1]
    K = empirical_ntk(MLP(3, 64, 2), X)
    assert condition_number(K) == math.inf
    # from K alone an angle is resolved to ~sqrt(8 eps) = 4e-8 (arccos near 1): below it, a warning
    from lib.validation import ResolutionWarning
    with pytest.warns(ResolutionWarning):
        assert min_pairwise_angle(K) < 1e-7


def test_nearly_singular_flagged_untrustworthy():
    K = np.diag([1.0, 1e-13])  # n eps lmax = 4.4e-16 < lmin, but only ~0.4% accurate
    s = spectrum(K)
    assert math.isfinite(s.kappa) and not s.trustworthy


@pytest.mark.parametrize("n", [60, 300])
def test_lanczos_agrees_with_eigh(n, rng):
    A = rng.standard_normal((n, n + 5))
    K = A @ A.T / n + 1e-3 * np.eye(n)
    a, b = extreme_eigenvalues(K, "lanczos"), extreme_eigenvalues(K, "eigh")
    assert a.lambda_max == pytest.approx(b.lambda_max, rel=1e-8)
    assert a.lambda_min == pytest.approx(b.lambda_min, rel=1e-6)
    assert extreme_eigenvalues(np.ones((n, n)), "lanczos").kappa == math.inf


def test_min_pairwise_angle_matches_direct_computation(rng):
    F = rng.standard_normal((6, 10))
    K = F @ F.T
    direct = min(math.acos(np.clip(F[i] @ F[j] / np.linalg.norm(F[i]) / np.linalg.norm(F[j]), -1, 1))
                 for i in range(6) for j in range(6) if i != j)
    assert min_pairwise_angle(K) == pytest.approx(direct, abs=1e-12)


def test_bad_matrices():
    with pytest.raises(ValueError, match="square"):
        condition_number(np.ones((2, 3)))
    with pytest.raises(ValueError, match="NaN or inf"):
        condition_number(np.array([[1.0, np.nan], [np.nan, 1.0]]))
    with pytest.raises(ValueError, match="not symmetric"):
        condition_number(np.array([[1.0, 2.0], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="non-positive diagonal"):
        cosine_matrix(np.diag([1.0, 0.0]))
    with pytest.raises(ValueError, match="at least two"):
        min_pairwise_angle(np.ones((1, 1)))


@pytest.mark.parametrize("K", [
    np.array([[1.0, 2.0], [2.0, 1.0]]),               # eigenvalues -1 and 3
    np.diag([1.0, -1e-3]),
])
def test_indefinite_matrix_is_rejected(K):
    with pytest.raises(ValueError, match="not positive semi-definite"):
        condition_number(K)
    with pytest.raises(ValueError, match="not positive semi-definite"):
        spectrum(K)


def test_indefinite_matrix_is_rejected_by_lanczos_path(rng):
    n = 60
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    ev = np.linspace(1.0, 10.0, n)
    ev[0] = -0.5
    with pytest.raises(ValueError, match="not positive semi-definite"):
        extreme_eigenvalues(Q @ np.diag(ev) @ Q.T, "lanczos")


def test_a_kernel_of_normal_floats_is_exact_however_small_and_a_subnormal_one_is_refused():
    from lib.validation import InputError
    ok = spectrum(np.diag([1.0, 2.0]))
    assert ok.trustworthy and ok.note == ""
    small = spectrum(np.diag([1e-300, 2e-300]))  # normal floats: LAPACK scales them, kappa is exact
    assert small.trustworthy and small.kappa == pytest.approx(2.0, rel=1e-15)
    edge = np.finfo(np.float64).tiny
    assert spectrum(np.diag([edge, 2 * edge])).kappa == pytest.approx(2.0, rel=1e-15)
    with pytest.raises(InputError, match="subnormal"):  # counterfactual: just below the normal range
        spectrum(np.diag([edge / 4, edge / 2]))


def test_condition_number_refuses_complex_strings_and_ragged_lists():
    from lib.validation import InputError
    for K in ([[2, 1j], [-1j, 2]], "abc", [[1, 2], [3]]):
        with pytest.raises(InputError):
            condition_number(K)


def test_an_angle_below_the_resolution_warns_and_reports_it():
    import warnings

    from lib.spectra import ANGLE_RESOLUTION
    from lib.validation import ResolutionWarning
    t = 1e-8
    X = np.array([[1.0, 0, 0, 0, 0], [np.cos(t), np.sin(t), 0, 0, 0], [0, 0, 1.0, 0, 0]])
    K = empirical_ntk(MLP(5, 64, 2), X)
    with pytest.warns(ResolutionWarning, match="below the resolution"):
        angle, res = min_pairwise_angle(K, return_resolution=True)
    assert angle < res == ANGLE_RESOLUTION
    Y = X.copy()
    Y[1] = [np.cos(0.1), np.sin(0.1), 0, 0, 0]  # counterfactual: a resolved angle, no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert min_pairwise_angle(empirical_ntk(MLP(5, 64, 2), Y)) > 1e-3


def test_fast_extremes_agree_with_lib_spectra():
    rng = np.random.default_rng(5)
    B = rng.standard_normal((900, 1000))
    K = B @ B.T / 1000 + 1e-3 * np.eye(900)
    lmin, lmax, kappa, singular = fast_extremes(K)
    sp = extreme_eigenvalues(K, method="eigh")
    assert not singular and kappa == pytest.approx(sp.kappa, rel=1e-8) and lmax == pytest.approx(sp.lambda_max, rel=1e-10)
    R = rng.standard_normal((900, 40))
    lmin, lmax, kappa, singular = fast_extremes(R @ R.T)  # rank 40: singular
    assert singular and math.isinf(kappa)
