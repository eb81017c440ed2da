"""lib.finite.authors: the port of the authors' network agrees with lib's NTK after the exact scaling."""
import math

import numpy as np
import pytest
import torch

from lib.finite.authors import AuthorsNet, authors_kappa, authors_min_angle, authors_ntk, from_mlp, ntk_scale
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.spectra import condition_number, min_pairwise_angle
from lib.validation import InputError


@pytest.mark.parametrize("activation", ["relu", "linear"])
@pytest.mark.parametrize("depth", [0, 1, 3])
def test_scaled_ntk_kappa_angle_agree(activation, depth):
    X = np.random.default_rng(0).standard_normal((6, 8))  # n < d: every kernel non-singular
    ours = MLP(8, 48, depth, activation=activation, seed=3)
    theirs = from_mlp(ours)
    K, Ka = empirical_ntk(ours, X), authors_ntk(theirs, X)
    s = ntk_scale(8, depth, activation)
    assert np.max(np.abs(Ka / s - K)) <= 1e-12 * np.abs(K).max()
    assert abs(authors_kappa(Ka) / condition_number(K) - 1) < 1e-10
    assert abs(authors_min_angle(Ka) - min_pairwise_angle(K)) < 1e-7
    # the output itself: theirs is sqrt(2/d) ours (ReLU), sqrt(2^(L+1)/d) ours (linear)
    f, fa = ours(X).detach().numpy(), theirs(torch.as_tensor(X)).detach().numpy()[:, 0]
    np.testing.assert_allclose(fa, math.sqrt(s) * f, rtol=1e-12)


def test_scale_is_not_one_and_wrong_scale_fails():
    """Counterfactual: without the factor (or with the ReLU factor for a linear net) the kernels differ."""
    X = np.random.default_rng(1).standard_normal((7, 4))
    ours = MLP(4, 32, 2, activation="linear", seed=0)
    K, Ka = empirical_ntk(ours, X), authors_ntk(from_mlp(ours), X)
    assert np.max(np.abs(Ka / ntk_scale(4, 2, "relu") - K)) > 0.5 * np.abs(K).max()
    assert ntk_scale(4, 2, "linear") == 2.0


def test_authors_kappa_of_a_singular_kernel_is_not_inf():
    X = np.random.default_rng(2).standard_normal((12, 3))  # n > d: rank 3
    K = X @ X.T
    assert condition_number(K) == math.inf
    k = authors_kappa(K)
    assert not math.isinf(k) and (k < 0 or abs(k) > 1e10)


def test_bad_input():
    with pytest.raises(InputError, match="activation"):
        AuthorsNet([3, 4, 1], activation="tanh")
    with pytest.raises(InputError, match="layer_sizes"):
        AuthorsNet([3])
    with pytest.raises(InputError, match="activation"):
        ntk_scale(3, 1, "gelu")
    with pytest.raises(InputError):
        from_mlp(MLP(3, 8, 1, activation="tanh"))
