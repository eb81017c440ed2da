"""Matrix-free NTK extremes (lib.finite.extremes) against the dense kernel."""
import math

import numpy as np
import pytest
import torch

from lib.finite.extremes import min_angle_scan, ntk_extremes, ntk_operator
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.spectra import extreme_eigenvalues, min_pairwise_angle


@pytest.fixture(scope="module")
def case():
    rng = np.random.default_rng(7)
    X = rng.standard_normal((300, 12))
    model = MLP(12, 48, 2, seed=3)
    return model, X, empirical_ntk(model, X)


def test_matrix_free_product_matches_dense(case):
    model, X, K = case
    op = ntk_operator(model, X, chunk_size=70)  # several chunks
    rng = np.random.default_rng(0)
    v = rng.standard_normal(300)
    V = rng.standard_normal((300, 4))
    assert np.linalg.norm(op.matmat(v) - K @ v) <= 1e-12 * np.linalg.norm(K @ v)
    assert np.linalg.norm(op.matmat(V) - K @ V) <= 1e-12 * np.linalg.norm(K @ V)
    np.testing.assert_allclose(op.dense(block_size=64), K, rtol=0, atol=1e-12 * np.abs(K).max())
    np.testing.assert_allclose(op.diag.numpy(), np.diag(K), rtol=1e-13)


def test_depth_zero_is_the_gram_matrix():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((40, 5))
    op = ntk_operator(MLP(5, 8, 0), X)
    np.testing.assert_allclose(op.dense(), X @ X.T, atol=1e-12)


@pytest.mark.parametrize("method", ["dense", "matrix_free"])
def test_agrees_with_dense_path(case, method):
    model, X, K = case
    ref = extreme_eigenvalues(K)
    C = K / np.sqrt(np.outer(np.diag(K), np.diag(K)))
    np.fill_diagonal(C, -np.inf)
    i, j = np.unravel_index(np.argmax(C), C.shape)
    r = ntk_extremes(model, X, method=method, block_size=64, progress=False)
    assert r.method == method
    assert r.kappa == pytest.approx(ref.kappa, rel=1e-6)
    assert r.lambda_max == pytest.approx(ref.lambda_max, rel=1e-8)
    assert r.lambda_min == pytest.approx(ref.lambda_min, rel=1e-6)
    assert abs(r.min_angle - min_pairwise_angle(K)) < 1e-9
    assert r.min_pair == (min(i, j), max(i, j))
    assert r.lambda_max_bounds[0] <= ref.lambda_max <= r.lambda_max_bounds[1]
    assert isinstance(r.accuracy, str) and r.accuracy


def test_forced_matrix_free_interval_contains_true_kappa(case, tmp_path):
    model, X, K = case
    ref = extreme_eigenvalues(K)
    r = ntk_extremes(model, X, method="matrix_free", lambda_min="bounds", sub_size=40, block_size=64,
                     cache_dir=tmp_path, progress=False)
    low, high = r.kappa
    assert low <= ref.kappa <= high
    assert r.lambda_min_bounds[0] <= ref.lambda_min <= r.lambda_min_bounds[1]
    lo, hi = r.lambda_max_bounds
    assert lo <= ref.lambda_max <= hi and hi - lo < 1e-6 * ref.lambda_max
    assert "bound" in r.accuracy
    # the cached scan resumes to the same result
    r2 = ntk_extremes(model, X, method="matrix_free", lambda_min="bounds", sub_size=40, block_size=64,
                      cache_dir=tmp_path, progress=False)
    assert r2.min_angle == r.min_angle and r2.min_pair == r.min_pair


def test_resume_from_partial_cache(case, tmp_path):
    model, X, _ = case
    op = ntk_operator(model, X)
    full = min_angle_scan(op, block_size=50, progress=False)
    # a cache stopped after two block rows
    class Stop(Exception):
        pass
    calls = {"n": 0}
    orig = op.block

    def flaky(I, J):
        calls["n"] += 1
        if calls["n"] > 6 + 5 + 1:  # rows 0 and 1 done (6 + 5 blocks), fail in row 2
            raise Stop
        return orig(I, J)
    op.block = flaky
    with pytest.raises(Stop):
        min_angle_scan(op, block_size=50, cache_dir=tmp_path, cache_key="k", progress=False)
    op.block = orig
    res = min_angle_scan(op, block_size=50, cache_dir=tmp_path, cache_key="k", progress=False)
    assert res.min_angle == full.min_angle and res.pair == full.pair
    assert res.fro2 == pytest.approx(full.fro2, rel=1e-12)


def test_singular_kernel_gives_infinite_kappa():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((30, 4))
    X[7] = X[3]  # duplicate input: K singular
    model = MLP(4, 16, 1, seed=0)
    for method, lm in [("dense", "auto"), ("matrix_free", "exact"), ("matrix_free", "bounds")]:
        r = ntk_extremes(model, X, method=method, lambda_min=lm, block_size=8, progress=False)
        assert r.kappa == math.inf and r.singular
        assert r.min_angle < 1e-7 and r.min_pair == (3, 7)


def test_bad_input():
    model = MLP(3, 8, 1)
    X = np.random.default_rng(0).standard_normal((10, 3))
    with pytest.raises(ValueError, match="method"):
        ntk_extremes(model, X, method="magic")
    with pytest.raises(ValueError, match="lambda_min"):
        ntk_extremes(model, X, lambda_min="guess")
    X[2, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        ntk_extremes(model, X)
    with pytest.raises(ValueError, match="two samples"):
        ntk_extremes(model, np.ones((1, 3)))


def test_torch_input_and_cpu_device(case):
    model, X, K = case
    r = ntk_extremes(model, torch.as_tensor(X), device="cpu", progress=False)
    assert r.method == "dense" and r.lambda_max == pytest.approx(extreme_eigenvalues(K).lambda_max, rel=1e-10)


@pytest.mark.slow
def test_agrees_with_dense_path_at_n_8000():
    # 8,000 samples over four 2,048-tiles; 20,352 parameters, so the kernel has full rank (a width-64 net has
    # 6,080 parameters: its NTK on 8,000 samples is singular and kappa is infinite on both paths).
    rng = np.random.default_rng(11)
    X = rng.standard_normal((8000, 30))
    model = MLP(30, 128, 2, seed=5)
    assert sum(p.numel() for p in model.parameters()) > 2 * X.shape[0]
    d = ntk_extremes(model, X, method="dense", progress=False)
    f = ntk_extremes(model, X, method="matrix_free", lambda_min="exact", progress=False)
    assert f.kappa == pytest.approx(d.kappa, rel=1e-6)
    assert abs(f.min_angle - d.min_angle) < 1e-9 and f.min_pair == d.min_pair
    b = ntk_extremes(model, X, method="matrix_free", lambda_min="bounds", progress=False)
    assert b.kappa[0] <= d.kappa <= b.kappa[1]
    c = ntk_extremes(model, X, method="matrix_free", lambda_min="certified", progress=False)
    assert c.kappa[0] <= d.kappa <= c.kappa[1] and c.kappa[1] / c.kappa[0] < 1 + 1e-2
    assert abs(c.min_angle - d.min_angle) < 1e-9 and c.lambda_max == pytest.approx(d.lambda_max, rel=1e-8)


def test_lobpcg_refinement_keeps_a_valid_lower_upper_bound(case):
    model, X, K = case
    ref = extreme_eigenvalues(K)
    a = ntk_extremes(model, X, method="matrix_free", lambda_min="bounds", sub_size=40, block_size=64, progress=False)
    b = ntk_extremes(model, X, method="matrix_free", lambda_min="bounds", sub_size=40, block_size=64,
                     refine_iters=30, progress=False)
    assert ref.lambda_min <= b.lambda_min_bounds[1] <= a.lambda_min_bounds[1]
    assert b.kappa[0] <= ref.kappa <= b.kappa[1] and b.kappa[0] >= a.kappa[0]
    assert "LOBPCG" in b.accuracy


def test_top_level_export():
    import lib
    assert lib.ntk_extremes is ntk_extremes and "ntk_extremes" in lib.__all__


# ---- bad input: sizes, underflow, angles below the resolution ---------------------------------

@pytest.mark.parametrize("kw,match", [(dict(block_size=0), "block_size must be a positive integer"),
                                      (dict(tile=None), "tile must be a positive integer"),
                                      (dict(refine_iters=-1), "refine_iters"), (dict(delta=2.0), "delta")])
def test_bad_sizes_get_one_message(kw, match):
    from lib.validation import InputError
    X = np.random.default_rng(0).standard_normal((6, 5))
    with pytest.raises(InputError, match=match):
        ntk_extremes(MLP(5, 8, 2), X, progress=False, **kw)


def test_a_kernel_in_the_underflow_range_is_refused():
    from lib.validation import InputError
    X = np.random.default_rng(0).standard_normal((6, 5))
    with pytest.raises(InputError, match="lost to underflow"):
        ntk_extremes(MLP(5, 8, 2), X * 1e-160, progress=False)


@pytest.mark.parametrize("method", ["dense", "matrix_free"])
def test_an_angle_below_the_resolution_is_never_called_exact(method):
    from lib.spectra import ANGLE_RESOLUTION
    from lib.validation import ResolutionWarning
    t = 1e-8
    X = np.array([[1.0, 0, 0, 0, 0], [np.cos(t), np.sin(t), 0, 0, 0], [0, 0, 1.0, 0, 0]])
    with pytest.warns(ResolutionWarning):
        r = ntk_extremes(MLP(5, 64, 2), X, method=method, progress=False)
    assert r.min_angle < r.angle_resolution == ANGLE_RESOLUTION
    assert "below the resolution" in r.accuracy and "min angle is exact" not in r.accuracy
    X[1] = [np.cos(0.1), np.sin(0.1), 0, 0, 0]  # counterfactual: a resolved angle
    r = ntk_extremes(MLP(5, 64, 2), X, method=method, progress=False)
    assert "exact to the resolution" in r.accuracy and "below the resolution" not in r.accuracy
