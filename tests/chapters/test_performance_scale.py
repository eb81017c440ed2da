"""Chapter 07, full-data section: cached scale cases, their table and text, against a direct dense computation."""
import math

import numpy as np
import pytest

from lib.chapters import performance
from lib.data.datasets import gaussian_data
from lib.finite.extremes import bench
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.spectra import extreme_eigenvalues, min_pairwise_angle

CASE = dict(width=32, in_dim=10, lambda_min="certified", tile=64)


def test_scale_case_agrees_with_the_dense_kernel():
    r = bench.scale_case(250, 2, seed=1, **CASE)
    K = empirical_ntk(MLP(10, 32, 2, seed=1), gaussian_data(250, 10, seed=1))
    ref = extreme_eigenvalues(K)
    assert r["lambda_min_mode"] == "certified" and r["note"] == ""
    assert r["kappa_low"] <= ref.kappa <= r["kappa_high"] and r["kappa_high"] / r["kappa_low"] < 1.01
    assert abs(r["min_angle"] - min_pairwise_angle(K)) < 1e-9
    assert r["lambda_max_low"] <= ref.lambda_max <= r["lambda_max_high"]
    assert r["peak_gib"] > 0 and r["seconds"] > 0


def test_certified_falls_back_to_bounds_when_the_tiles_do_not_fit(monkeypatch):
    monkeypatch.setattr(bench, "available_memory", lambda: 10_000)
    r = bench.scale_case(120, 1, **CASE)
    assert r["lambda_min_mode"] == "bounds" and "bounds only" in r["note"] and r["kappa_high"] is None


def test_measure_scale_cases_runs_fresh_processes_and_resumes_from_the_cache(tmp_path, monkeypatch):
    kw = dict(width=16, in_dim=6, lambda_min="auto", tile=64, cache_dir=tmp_path)
    df = performance.measure_scale_cases([80], [1, 2], **kw)
    assert list(df.depth) == [1, 2] and (df.lambda_min_mode == "exact").all() and (df.cpus >= 1).all()

    def boom(**k):
        raise AssertionError("a cached case must not be recomputed")
    monkeypatch.setattr(performance.scale, "run_scale_case", boom)
    again = performance.measure_scale_cases([80], [1, 2], **kw)
    assert np.array_equal(again.min_angle, df.min_angle) and np.array_equal(again.seconds, df.seconds)
    with pytest.raises(AssertionError, match="cached"):
        performance.measure_scale_cases([81], [1], **kw)


def test_measure_scale_cases_shifts_are_one_per_depth_and_part_of_the_key(tmp_path):
    from lib.validation import InputError
    kw = dict(width=16, in_dim=6, lambda_min="certified", tile=64, cache_dir=tmp_path)
    with pytest.raises(InputError, match="one shift per depth"):
        performance.measure_scale_cases([80], [1, 2], shifts=[1.0], **kw)
    plain = performance.measure_scale_cases([80], [1], **kw)
    shifted = performance.measure_scale_cases([80], [1], shifts=[0.5 * plain.lambda_min_low[0]], **kw)
    assert shifted["shift"][0] == pytest.approx(0.5 * plain.lambda_min_low[0])
    assert shifted.lambda_min_low[0] < plain.lambda_min_low[0] and len(list(tmp_path.rglob("*.json"))) == 2
    assert "given shift" in performance.scale_text(shifted) and "given shift" not in performance.scale_text(plain)


def test_measure_scale_carries_its_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("NTK_CACHE_DIR", str(tmp_path))
    cfg = performance.SPEC.config(scale_ns=[80], scale_depths=[1, 2], scale_width=16, scale_in_dim=6,
                                  scale_lambda_min="auto", profile="smoke", scale_data="gaussian")
    scale = performance.measure_scale(cfg)
    assert list(scale.frame.depth) == [1, 2] and (scale.ns, scale.depths, scale.width) == ((80,), (1, 2), 16)
    assert scale.data == "gaussian" and set(scale.frame.data) == {"gaussian"}
    from lib.book.params import ParameterError
    with pytest.raises(ParameterError, match="scale_in_dim' must be 784 with scale_data"):
        performance.SPEC.config(scale_in_dim=6, scale_data="mnist")
    g = performance.glue_scale(scale)
    assert g["scale_sizes"] == "n = 80, depths 1, 2, width 16, lambda_min mode auto" and "{profile}" in \
        g["scale_caption"]


def test_table_and_text():
    rows = [bench.scale_case(150, 1, **CASE), dict(bench.scale_case(150, 1, **dict(CASE, lambda_min="bounds")))]
    import pandas as pd
    df = pd.DataFrame(rows)
    t = performance.table_scale(df)
    assert list(t.columns[:5]) == ["data", "n", "depth", "lambda_min", "min angle (rad)"]
    assert set(t["data"]) == {"Gaussian"}
    assert t["kappa interval"].iloc[1].endswith("inf]") and t["kappa rel. width"].iloc[1] == "unbounded"
    assert float(t["kappa rel. width"].iloc[0]) < 0.01
    text = performance.scale_text(df)
    assert text.count("- Gaussian, n = 150") == 2 and 'device="cuda"' in text and "certified" in text


def test_run_scale_case_reports_a_failed_worker():
    from lib.validation import InputError
    with pytest.raises(InputError, match="n=1"):
        bench.run_scale_case(1, 1, width=8, in_dim=3, progress=False)
    assert math.isfinite(bench.run_scale_case(40, 1, width=8, in_dim=3, progress=False)["min_angle"])


def test_a_certified_case_that_fell_back_to_bounds_is_never_cached_as_certified(tmp_path, monkeypatch):
    """Found writing the n = 60,000 MNIST depth-10 record: run while other jobs held memory, the certified case fell
    back to bounds, was cached under the certified key, and the rerun on an idle machine read the bounds back."""
    kw = dict(width=16, in_dim=6, lambda_min="certified", tile=64, cache_dir=tmp_path)
    real = performance.scale.run_scale_case
    calls = []

    def short_of_memory(**k):
        calls.append(k)
        return dict(real(**{**k, "lambda_min": "bounds"}), lambda_min_mode="bounds", note="bounds only")
    monkeypatch.setattr(performance.scale, "run_scale_case", short_of_memory)
    first = performance.measure_scale_cases([80], [1], **kw)
    assert first.lambda_min_mode[0] == "bounds" and list(tmp_path.rglob("*.json")) == []  # returned, not cached
    monkeypatch.setattr(performance.scale, "run_scale_case", real)
    second = performance.measure_scale_cases([80], [1], **kw)  # the memory is there now: certified, and cached
    assert second.lambda_min_mode[0] == "certified" and len(list(tmp_path.rglob("*.json"))) == 1
    assert performance.scale.asked_for("auto")({"lambda_min_mode": "bounds"})  # "auto" chooses: any mode is its own


def test_cached_call_keep_refuses_a_result_both_ways(tmp_path):
    from lib.book.cache import cached_call
    got = []
    fn = lambda: got.append(1) or {"ok": len(got) > 1}  # noqa: E731 - the first call fails the test, later ones pass
    keep = lambda r: r["ok"]  # noqa: E731
    assert cached_call("t", {"a": 1}, fn, cache_dir=tmp_path, keep=keep) == {"ok": False}
    assert cached_call("t", {"a": 1}, fn, cache_dir=tmp_path, keep=keep) == {"ok": True}  # computed again, cached
    assert cached_call("t", {"a": 1}, fn, cache_dir=tmp_path, keep=keep) == {"ok": True} and len(got) == 2
    assert cached_call("t", {"a": 1}, fn, cache_dir=tmp_path, keep=lambda r: False) == {"ok": True} and len(got) == 3
