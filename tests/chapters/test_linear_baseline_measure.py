"""Chapter 01 sweep and its summaries (lib.chapters.linear_baseline.measure) on a tiny sweep."""
import numpy as np
import pytest

from lib.chapters.linear_baseline import measure as M


@pytest.fixture(scope="module")
def tiny():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((4, 6))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return M.measure_linear(X, [8, 32], [0, 2], 2)


def test_tiny_sweep_tables(tiny):
    df = tiny
    assert len(df) == 8
    assert list(M.table_sweep_summary(df).index.names) == ["width", "depth"]
    assert list(M.width_means(df).index) == [8, 32]
    fac = M.gradient_norm_factors(df)
    np.testing.assert_allclose(fac.loc[0, "mean"], 1.0, rtol=1e-12)  # L = 0: K_xx = ||x||^2 exactly
    np.testing.assert_allclose(df[df.depth == 0]["ntk_factor"], 1.0, rtol=1e-12)


def test_depth_zero_keeps_everything_exactly(tiny):
    d0 = tiny[tiny.depth == 0]
    np.testing.assert_allclose(d0[["norm_dev", "angle_dev", "phi_dev", "ntk_rel_err"]], 0.0, atol=1e-6)
