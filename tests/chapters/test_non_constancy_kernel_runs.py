"""Chapter 05 training sweeps (lib.chapters.non_constancy.kernel_runs): caching, the linear model, summaries."""

import numpy as np

from lib.chapters import non_constancy as NC
from chapter_fakes import non_constancy as F


def test_runs_are_cached_and_resumed(tmp_path, monkeypatch):
    monkeypatch.setenv("NTK_CACHE_DIR", str(tmp_path))
    data = NC.synthetic_regression(6, 3, 2, seed=0)
    kw = dict(activation="tanh", max_steps=5, rel_tol=0.5, track_every=5, lr_scale=1.0)
    a = NC.compute_kernel_runs(data, [8, 16], 8, [2, 4], 1, 2, **kw)
    files = sorted((tmp_path / "sweeps" / "05_non_constancy").glob("*.json"))
    assert len(files) == 6 + 2 + 1  # width sweep, bottleneck sweep, linear model
    files[0].unlink()  # as if the run had been interrupted before that net
    b = NC.compute_kernel_runs(data, [8, 16], 8, [2, 4], 1, 2, **kw)
    for col in ("delta_K", "steps", "lr", "weight_move"):
        np.testing.assert_array_equal(a.df[col], b.df[col])
    np.testing.assert_array_equal(a.df.loss.iloc[3], b.df.loss.iloc[3])


def test_linear_model_kernel_is_exactly_constant(tmp_path, monkeypatch):
    monkeypatch.setenv("NTK_CACHE_DIR", str(tmp_path))
    data = NC.synthetic_regression(6, 3, 2, seed=0)
    lm = NC.linear_model_sweep(data, 1, activation="tanh", max_steps=20, rel_tol=1e-3, track_every=5, lr_scale=1.0)
    assert lm.delta_K.max() <= 1e-12


def test_tables_and_summaries():
    runs = F.make_runs()
    t = NC.table_width_means(runs)
    assert list(t.columns) == ["delta_K", "steps", "weight_move"] and len(t) == 9
    assert "24 nets trained" in NC.run_summary({"X": np.zeros((12, 10))}, runs)
