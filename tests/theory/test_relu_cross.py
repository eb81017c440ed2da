"""lib.theory.relu_ntk_between: the ReLU NTK between two sets, from a spline of Eq. (7), against relu_ntk."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from lib.data.datasets import load_digits_subset
from lib.theory import relu_ntk, relu_ntk_between
from lib.validation import InputError


@pytest.mark.parametrize("depth", [0, 1, 10, 1000, 200_000])
def test_equals_relu_ntk_on_digits(depth):
    X = load_digits_subset(40, seed=1, unit_norm=False)
    X = X[np.linalg.norm(X, axis=1) > 0]
    exact = relu_ntk(X, depth)
    assert np.max(np.abs(relu_ntk_between(X, X, depth) - exact) / np.abs(exact)) < 1e-10


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), depth=st.integers(1, 60), n=st.integers(2, 6), k=st.integers(1, 5))
def test_cross_block_of_the_stacked_kernel(seed, depth, n, k):
    """The (X, Z) block of relu_ntk on [X; Z], inputs of any norm, in any dimension."""
    rng = np.random.default_rng(seed)
    X, Z = rng.standard_normal((n, 4)) * rng.uniform(0.5, 2, (n, 1)), rng.standard_normal((k, 4))
    full = relu_ntk(np.vstack([X, Z]), depth)[:n, n:]
    assert np.allclose(relu_ntk_between(X, Z, depth), full, rtol=1e-9, atol=0)


def test_parallel_pairs_and_bad_input():
    X = np.array([[1.0, 0.0], [2.0, 0.0]])
    K = relu_ntk_between(X, X, 5)
    assert np.allclose(K, 6.0 * np.array([[1, 2], [2, 4]]))  # cos phi = 1, (L+1)|x||z|
    with pytest.raises(InputError, match="same dimension"):
        relu_ntk_between(X, np.ones((1, 3)), 1)
    with pytest.raises(InputError, match="zero rows"):
        relu_ntk_between(X, np.zeros((1, 2)), 1)
    with pytest.raises(InputError, match="grid"):
        relu_ntk_between(X, X, 1, grid=3)
