"""The certified lambda_min bracket of lib.finite.extremes (tiled, shifted Cholesky) against dense eigenvalues."""
import math

import numpy as np
import pytest
import torch

from lib.finite.extremes import (TiledCholesky, lambda_min_lower_bound, ntk_extremes, ntk_operator,
                                 rounding_constants, tiled_bytes)
from lib.finite.extremes import cholesky as CH
from lib.finite.mlp import MLP
from lib.validation import InputError


class DenseOp:
    """A stand-in for MatrixFreeNTK holding a dense symmetric matrix (any spectrum, also indefinite)."""

    def __init__(self, M):
        self.M = torch.as_tensor(M, dtype=torch.float64)
        self.n = self.M.shape[0]
        self.device = self.M.device
        self.diag = self.M.diagonal().clone()
        self.terms = [(None, torch.zeros((self.n, 4), dtype=torch.float64))]

    def block(self, I, J):
        return self.M[I, J].clone()

    def matmat(self, v):
        return (self.M @ torch.as_tensor(v, dtype=torch.float64)).numpy()


def with_spectrum(lams, seed=0):
    n = len(lams)
    Q, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((n, n)))
    return (Q * np.asarray(lams)) @ Q.T


@pytest.fixture(scope="module")
def ntk_case():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((700, 16))
    model = MLP(16, 48, 3, seed=2)
    op = ntk_operator(model, X)
    K = op.dense()
    return model, X, op, np.linalg.eigvalsh(K)


@pytest.mark.parametrize("n,tile", [(300, 64), (257, 100), (40, 64)])
def test_tiled_cholesky_equals_torch(n, tile):
    rng = np.random.default_rng(n)
    A = rng.standard_normal((n, n))
    M = A @ A.T / n + 0.1 * np.eye(n)
    T = TiledCholesky.from_dense(M, tile)
    assert T.nbytes == tiled_bytes(n, tile)
    assert T.factor(progress=False) == 0
    L = torch.linalg.cholesky(torch.as_tensor(M)).numpy()
    assert np.abs(T.lower_dense() - L).max() <= 1e-10 * np.abs(L).max()
    v = rng.standard_normal((n, 3))
    ref = np.linalg.solve(M, v)
    assert np.linalg.norm(T.solve(v) - ref) <= 1e-10 * np.linalg.norm(ref)


def test_tiled_cholesky_reports_the_failing_pivot():
    M = with_spectrum([-1.0] + [1.0] * 49)
    T = TiledCholesky.from_dense(M, 16)
    assert T.factor(progress=False) > 0
    with pytest.raises(InputError, match="factor"):
        T.solve(np.ones(50))


def test_certified_bracket_contains_and_is_close_to_dense(ntk_case):
    _, _, op, ev = ntk_case
    delta = 1e-3
    c = lambda_min_lower_bound(op, tile=128, delta=delta, progress=False)
    assert 0 < c.lower <= ev[0] <= c.upper
    # the stated accuracy: a bracket of relative width about delta (one retry would make it 10 delta)
    assert c.lower >= ev[0] * (1 - 3 * delta) and c.upper <= ev[0] * (1 + 1e-6)
    assert c.attempts[0] == (0.0, 0) and c.attempts[-1][1] == 0
    # the rounding term is far below the bracket and below what it has to cover
    rc = rounding_constants(op)
    assert 0 < c.rounding < 1e-6 * ev[0] and rc["trace"] >= np.sum(np.diag(op.dense()))


def test_counterfactual_negative_eigenvalue_certifies_nothing():
    M = with_spectrum(np.r_[-1e-3, np.linspace(1.0, 10.0, 199)])
    c = lambda_min_lower_bound(DenseOp(M), tile=64, progress=False)
    assert c.lower == 0.0 and c.attempts[0][1] > 0


def test_counterfactual_singular_matrix_certifies_nothing():
    A = np.random.default_rng(3).standard_normal((150, 40))
    M = A @ A.T  # rank 40: lambda_min = 0
    c = lambda_min_lower_bound(DenseOp(M), tile=64, progress=False)
    assert c.lower == 0.0


def test_counterfactual_a_shift_above_lambda_min_fails():
    M = with_spectrum(np.linspace(0.5, 20.0, 120))
    bad = lambda_min_lower_bound(DenseOp(M), tile=32, shift=0.6, progress=False)
    assert bad.lower == 0.0 and bad.attempts == [(0.6, bad.attempts[0][1])] and bad.attempts[0][1] > 0
    good = lambda_min_lower_bound(DenseOp(M), tile=32, shift=0.45, progress=False)
    assert 0.44 < good.lower <= 0.45 and good.upper == math.inf


def test_tiny_positive_eigenvalue_is_bracketed():
    lams = np.r_[1e-7, np.linspace(1.0, 5.0, 99)]
    c = lambda_min_lower_bound(DenseOp(with_spectrum(lams, seed=4)), tile=32, progress=False)
    assert c.lower <= 1e-7 <= c.upper * (1 + 1e-9)
    assert c.lower == 0.0 or c.lower >= 0.9e-7


def test_ntk_extremes_certified_interval(ntk_case):
    model, X, _, ev = ntk_case
    kappa = ev[-1] / ev[0]
    r = ntk_extremes(model, X, method="matrix_free", lambda_min="certified", sub_size=100, tile=128,
                     block_size=128, progress=False)
    low, high = r.kappa
    assert r.lambda_min_mode == "certified"
    assert low <= kappa <= high and math.isfinite(high) and high / low < 1.01
    assert r.lambda_min_bounds[0] <= ev[0] <= r.lambda_min_bounds[1]
    assert "Rump" in r.accuracy
    b = ntk_extremes(model, X, method="matrix_free", lambda_min="bounds", sub_size=100, block_size=128,
                     progress=False)
    assert b.kappa[1] == math.inf and b.lambda_min_bounds[0] == 0.0


def test_refuses_tiles_that_do_not_fit(ntk_case, monkeypatch):
    _, _, op, _ = ntk_case
    monkeypatch.setattr(CH, "available_memory", lambda: 1000)
    with pytest.raises(InputError, match="lambda_min='bounds'"):
        lambda_min_lower_bound(op, progress=False)


def test_bad_parameters(ntk_case):
    _, _, op, _ = ntk_case
    for kw, name in [(dict(tile=0), "tile"), (dict(delta=1.5), "delta"), (dict(shift=-1.0), "shift")]:
        with pytest.raises(InputError, match=name):
            lambda_min_lower_bound(op, progress=False, **kw)


def test_ntk_extremes_with_a_given_shift_uses_one_factorization(ntk_case):
    model, X, _, ev = ntk_case
    kw = dict(method="matrix_free", lambda_min="certified", sub_size=100, tile=128, block_size=128, progress=False)
    ok = ntk_extremes(model, X, shift=0.8 * ev[0], **kw)
    assert ok.timings["certified_factorizations"] == 1
    assert 0.79 * ev[0] < ok.lambda_min_bounds[0] <= 0.8 * ev[0] <= ev[0] <= ok.lambda_min_bounds[1]
    low, high = ok.kappa
    assert low <= ev[-1] / ev[0] <= high and math.isfinite(high)
    # counterfactual: a shift above lambda_min cannot be certified, and only 0 is claimed
    bad = ntk_extremes(model, X, shift=1.2 * ev[0], **kw)
    assert bad.lambda_min_bounds[0] == 0.0 and bad.kappa[1] == math.inf and "failed at pivot" in bad.accuracy
