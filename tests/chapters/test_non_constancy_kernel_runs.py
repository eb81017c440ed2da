"""Chapter 05 training sweeps (lib.chapters.non_constancy.kernel_runs): caching, the linear model, the settings the
runs carry, summaries and glued values."""

import numpy as np

from lib.chapters import non_constancy
from lib.data import synthetic_regression
from chapter_fakes import non_constancy as F

TINY = dict(widths=[8, 16], bottleneck_width=8, bottlenecks=[2, 4], seeds=1, n_samples=6, d=3, k=2, n_hessian=2,
            ball_widths=[8, 16])


def test_runs_are_cached_and_resumed(tmp_path, monkeypatch):
    monkeypatch.setenv("NTK_CACHE_DIR", str(tmp_path))
    cfg = non_constancy.SPEC.config(**TINY, max_steps=5, rel_tol=0.5, track_every=5, lr_scale=1.0)
    a = non_constancy.measure_kernel_runs(cfg)
    files = sorted((tmp_path / "sweeps" / "05_non_constancy").glob("*.json"))
    assert len(files) == 6 + 2 + 1  # width sweep, bottleneck sweep, linear model
    files[0].unlink()  # as if the run had been interrupted before that net
    b = non_constancy.measure_kernel_runs(cfg)
    for col in ("delta_K", "steps", "lr", "weight_move"):
        np.testing.assert_array_equal(a.df[col], b.df[col])
    np.testing.assert_array_equal(a.df.loss.iloc[3], b.df.loss.iloc[3])
    assert (a.widths, a.bottlenecks, a.seeds, a.n, a.d, a.k) == ((8, 16), (2, 4), 1, 6, 3, 2)
    assert (a.max_steps, a.rel_tol, a.track_every, a.lr_scale, a.activation) == (5, 0.5, 5, 1.0, "tanh")


def test_linear_model_kernel_is_exactly_constant(tmp_path, monkeypatch):
    monkeypatch.setenv("NTK_CACHE_DIR", str(tmp_path))
    data = synthetic_regression(6, 3, 2, seed=0)
    lm = non_constancy.measure_linear_model(data, 1, activation="tanh", max_steps=20, rel_tol=1e-3, track_every=5,
                                            lr_scale=1.0)
    assert lm.delta_K.max() <= 1e-12


def test_tables_summaries_and_glued_values_come_from_the_results():
    runs = F.make_runs()
    t = non_constancy.table_width_means(runs)
    assert list(t.columns) == ["delta_K", "steps", "weight_move", "weight_max"] and len(t) == 9
    assert non_constancy.run_summary(runs) == "24 nets trained, 24 reached the tolerance within 1,500 steps"
    g = non_constancy.glue_values(runs, F.make_hessian())
    assert g == {"lr_scale": "1.8", "rel_tol": "0.01", "track_every": "10", "n_hessian": "2",
                 "bottleneck_width": "256", "max_steps": "1,500"}
