"""The benchmark of chapter 07: the NTK-vector-product reference and the runner (lib.finite.benchmark)."""
import numpy as np
import pytest
import torch

from lib.finite import benchmark as bench
from lib.finite import benchmark_tables as tables
from lib.finite import cost_model as cost
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.finite.reference import jacobian_ntk, ntk_vp


def rel(a, b):
    return np.abs(a - b).max() / np.abs(b).max()


@pytest.mark.parametrize("activation", ["relu", "gelu", "norm_tanh", "linear"])
@pytest.mark.parametrize("depth", [0, 2])
def test_ntk_vp_equals_empirical_ntk(activation, depth, rng):
    # both are exact in float64; only rounding separates them (observed ~1e-15)
    X = rng.standard_normal((11, 4))
    net = MLP(4, 20, depth, activation, seed=depth + 1)
    for layers, chunks in ((None, (None, 1, 4)), ("first", (4,)), ("last", (4,))):
        K = empirical_ntk(net, X, layers=layers)
        for chunk in chunks:
            assert rel(ntk_vp(net, X, layers=layers, chunk_size=chunk), K) < 1e-10


def test_ntk_vp_multi_output_and_generic_module(rng):
    X = rng.standard_normal((7, 3))
    net = MLP(3, 12, 2, "gelu", out_dim=2)
    assert rel(ntk_vp(net, X, chunk_size=3), empirical_ntk(net, X)) < 1e-10
    # a plain nn.Module (biases, no NTK scaling): checked against the Jacobian contraction instead
    torch.manual_seed(0)
    seq = torch.nn.Sequential(torch.nn.Linear(3, 9), torch.nn.Tanh(), torch.nn.Linear(9, 1)).double()
    assert rel(ntk_vp(seq, X, chunk_size=2), jacobian_ntk(seq, X)) < 1e-10


def test_ntk_vp_bad_chunk():
    net = MLP(3, 8, 1)
    for bad in (0, -2, 1.5, True):
        with pytest.raises(ValueError, match="chunk_size must be a positive integer"):
            ntk_vp(net, np.ones((2, 3)), chunk_size=bad)


def test_param_count_matches_the_network():
    for d, m, L in ((5, 7, 0), (5, 7, 1), (3, 16, 4)):
        assert cost.param_count(d, m, L) == sum(p.numel() for p in MLP(d, m, L).parameters())


def test_flop_and_memory_models_scale_as_stated():
    # depth 0: forward 2 n d, no backward, one Gram 2 n^2 d
    assert cost.flop_count("ours", 10, 3, 8, 0) == 2 * 10 * 3 + 2 * 100 * 3
    # Jacobian contraction 2 n^2 P against ours ~ 4 (L+1) n^2 m + 4 n P (grams + forward/backward)
    n, d, m, L = 512, 64, 512, 10
    P = cost.param_count(d, m, L)
    r = cost.flop_count("jacobian", n, d, m, L) / cost.flop_count("ours", n, d, m, L)
    assert r == pytest.approx(P / (2 * (L + 1) * m + 2 * P / n), rel=0.1)
    # the full Jacobian needs 2 n P doubles; the per-layer variant only the largest layer's share
    full = cost.memory_estimate("jacobian", 512, 64, 512, 10, "full")
    assert full >= 16 * 512 * cost.param_count(64, 512, 10)
    assert cost.memory_estimate("jacobian", 512, 64, 512, 10, "per-layer") < full / 5
    # the NTK-vp chunk shrinks with the budget
    big = cost.ntk_vp_chunk(512, 64, 512, 10, 8 * 2 ** 30)
    small = cost.ntk_vp_chunk(512, 64, 512, 10, 400 * 2 ** 20)
    assert big > small >= 1


def test_runner_returns_sane_rows():
    # two workers (each a fresh interpreter); ntk_vp goes through the same path and is tested above
    df = bench.run_benchmark([48], 48, [2], ["ours", "jacobian"], in_dim=5, repeats=2, time_budget=60,
                             memory_budget_mb=512, threads=1, progress=False)
    assert list(df.method) == ["ours", "jacobian"]
    assert (df.status == "ok").all(), df.reason.tolist()
    assert (df.seconds > 0).all() and np.isfinite(df.seconds).all()
    assert (df.peak_mb >= 0).all() and (df.matmul_gflops > 0).all()
    assert df.max_rel_diff.iloc[1:].max() < 1e-10 and df.max_rel_diff.iloc[0] == 0
    # the measured peak of the full Jacobian (2 n P doubles) is of the estimated order
    jac = df[df.method == "jacobian"].iloc[0]
    assert jac.variant == "full" and 0.25 < jac.peak_mb / jac.est_mb < 4
    tab = tables.summary_table(df).iloc[0]
    assert tab.speedup_jacobian == pytest.approx(jac.seconds / df.seconds.iloc[0])
    assert tab.ours_frac_matmul == pytest.approx(tab.ours_gflops / tab.matmul_gflops)
    assert "skipped" not in tables.format_table(df)


def test_skipped_peer_is_reported_not_crashed():
    # a memory budget that fits ours (~29 KB estimated) but neither peer (~39 KB)
    df = bench.run_benchmark([16], 16, [1], in_dim=4, repeats=1, memory_budget_mb=0.035, progress=False)
    assert df.set_index("method").status.to_dict() == {"ours": "ok", "jacobian": "skipped", "ntk_vp": "skipped"}
    assert df[df.method != "ours"].reason.str.contains("> budget 0.035 MB").all()
    text = tables.format_table(df)
    assert "skipped[1]" in text and "skipped[2]" in text and "jacobian at n=16, depth=1: skipped" in text
    assert np.isnan(tables.summary_table(df).speedup_jacobian.iloc[0])


def test_peers_timed_only_at_the_asked_size():
    df = bench.run_benchmark([16, 24], 16, [1], ["ours", "jacobian"], in_dim=4, repeats=1, time_budget=60,
                             memory_budget_mb=512, threads=1, progress=False, peer_sizes=[(24, 1)])
    st = {(r.method, r.n): r.status for r in df.itertuples()}
    assert st == {("ours", 16): "ok", ("jacobian", 16): "skipped", ("ours", 24): "ok", ("jacobian", 24): "ok"}
    assert "timed only at n=24, depth 1 (parameter peers_at)" in df[df.status == "skipped"].reason.iloc[0]
    with pytest.raises(cost.BenchmarkError, match="peer_sizes"):
        bench.run_benchmark([16], 16, [1], peer_sizes=[16], progress=False)


def test_time_budget_skip_and_kill(monkeypatch):
    row = bench.run_method("jacobian", 64, 32, 3, rate_gflops=1e-6, time_budget=5)
    assert row["status"] == "skipped" and "s at 1e-06 GFLOP/s > budget 5 s" in row["reason"]
    monkeypatch.setattr(bench, "STARTUP_ALLOWANCE", 0.0)
    row = bench.run_method("ours", 16, 8, 1, time_budget=0.05)  # killed while importing torch
    assert row["status"] == "timed out" and row["reason"].startswith("killed after")


@pytest.mark.parametrize("kwargs, match", [
    (dict(ns=[0]), "ns must be a non-empty list of integers >= 1"),
    (dict(ns=[]), "ns must be"),
    (dict(depths=[-1]), "depths must be a non-empty list of integers >= 0"),
    (dict(width=True), "width must be"),
    (dict(methods=["ours", "jax"]), "methods must be drawn from"),
    (dict(methods=["jacobian"]), "include 'ours'"),
    (dict(time_budget=0), "time_budget must be a positive number"),
    (dict(memory_budget_mb=float("inf")), "memory_budget_mb must be a positive number"),
    (dict(repeats=0), "repeats must be"),
    (dict(threads=-1), "threads must be a non-negative integer"),
])
def test_bad_arguments(kwargs, match):
    with pytest.raises(cost.BenchmarkError, match=match):
        bench.run_benchmark(**{"ns": [8], "width": 8, "depths": [1], "progress": False, **kwargs})


def test_bad_method_and_cli(capsys):
    with pytest.raises(cost.BenchmarkError, match="unknown method 'fast'"):
        bench.run_method("fast", 8, 8, 1)
    assert bench.main(["--ns", "0"]) == 2
    assert "ns must be a non-empty list of integers >= 1" in capsys.readouterr().err
