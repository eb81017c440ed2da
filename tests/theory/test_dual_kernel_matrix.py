"""lib.theory.dual_kernel_matrix, the one-layer dual kernel of unit inputs ([AAK] Sec 3.3, Thm H.1, H.5): the
routine of the chapter it came from, closed forms, a Monte Carlo, and refused input."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lib import theory
from lib.activations import aak_activation
from lib.validation import InputError


def _unit(n: int, d: int, seed: int = 0) -> np.ndarray:
    X = np.random.default_rng(seed).standard_normal((n, d))
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def _gram(X: np.ndarray) -> np.ndarray:
    G = X @ X.T
    G[np.diag_indices_from(G)] = 1.0
    return G


def _chapter_kernel(act, G):
    """lib/chapters/infinite_depth/aak_one_layer.py's _kernel as it was."""
    n = G.shape[0]
    iu = np.triu_indices(n, 1)
    K = np.empty((n, n))
    K[iu] = theory.dual_expectations(act, np.arccos(np.clip(G[iu], -1.0, 1.0)))[0]
    K[(iu[1], iu[0])] = K[iu]
    K[np.diag_indices(n)] = theory.dual_expectations(act, np.zeros(1))[0][0]
    return K


@pytest.mark.parametrize("name", ["relu", "exp", "normrelu", "hermite2"])
def test_equals_the_chapter_routine_bit_for_bit(name):
    act = aak_activation(name)
    G = _gram(_unit(12, 3, seed=1))  # more points than dimensions: a singular Gram matrix, as in the chapter
    np.testing.assert_array_equal(theory.dual_kernel_matrix(act, G), _chapter_kernel(act, G))


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 8), d=st.integers(1, 6), seed=st.integers(0, 10**6))
def test_relu_is_the_arccos_kernel(n, d, seed):
    """ReLU: E[relu(u) relu(v)] = J_1(theta) / (2 pi) (Cho and Saul; [AAK] Thm H.1's kernel, no factor c)."""
    G = _gram(_unit(n, d, seed))
    K = theory.dual_kernel_matrix("relu", G)
    theta = np.arccos(np.clip(G, -1.0, 1.0))
    theta[np.diag_indices(n)] = 0.0
    np.testing.assert_allclose(K, theory.arccos_kernel(1, theta) / (2 * math.pi), rtol=1e-13, atol=1e-15)
    assert np.array_equal(K, K.T)


def test_hermite2_kernel_is_rho_squared_and_exp_is_e_to_the_rho():
    G = _gram(_unit(7, 4, seed=2))
    np.testing.assert_allclose(theory.dual_kernel_matrix(aak_activation("hermite2"), G), G ** 2, atol=1e-12)
    np.testing.assert_allclose(theory.dual_kernel_matrix(aak_activation("exp"), G), np.exp(1.0 + G), rtol=1e-11)


def test_a_monte_carlo_of_the_features_agrees():
    X = _unit(5, 3, seed=3)
    W = np.random.default_rng(0).standard_normal((400_000, 3))
    F = np.tanh(W @ X.T)
    K = theory.dual_kernel_matrix("tanh", _gram(X))
    assert np.abs(F.T @ F / W.shape[0] - K).max() < 5e-3


@pytest.mark.parametrize("G, match", [
    (np.array([[1.0, 0.5], [0.4, 1.0]]), "symmetric"),
    (np.array([[2.0, 0.5], [0.5, 1.0]]), "unit diagonal"),
    (np.array([[1.0, 1.5], [1.5, 1.0]]), r"entries in \[-1, 1\]"),
    (np.array([[1.0, np.nan], [np.nan, 1.0]]), "NaN"),
    (np.ones((2, 3)), "square"),
    (np.array([[1.0, 0.5j], [-0.5j, 1.0]]), "complex"),
    ("G", "G"),
])
def test_bad_g_is_refused_naming_it(G, match):
    with pytest.raises(InputError, match=match) as e:
        theory.dual_kernel_matrix("relu", G)
    assert "G" in str(e.value)


def test_rounding_is_accepted_and_a_bad_activation_or_method_refused():
    G = _gram(_unit(4, 2))
    G[0, 1] = G[1, 0] = 1.0 + 1e-15
    G[2, 2] = 1.0 - 1e-15
    assert np.isfinite(theory.dual_kernel_matrix("relu", G)).all()
    with pytest.raises(InputError, match="activation"):
        theory.dual_kernel_matrix("no_such_activation", G)
    with pytest.raises(InputError, match="method"):
        theory.dual_kernel_matrix("relu", G, method="magic")
