"""The SGD speed benchmark (lib.finite.sgd_benchmark, python -m lib.finite.benchmark --sgd): flop model, CLI, one case.

No assertion here depends on a timing: a benchmark is never a timed test.
"""
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
import torch.nn.functional as F
from torch.utils.flop_counter import FlopCounterMode

from lib.finite import benchmark as bench
from lib.finite import sgd_benchmark as sgdb
from lib.finite.cost_model import BenchmarkError
from lib.finite.mlp import MLP

ROOT = Path(__file__).resolve().parents[2]
QUICK_LINE = re.compile(r"^sgd depth 10: batched grid at \d+% of the same-run matmul rate, \d+\.\dx one run at a time$")
TINY = dict(width=8, batch=10, runs=2, n_train=40, in_dim=6, timed_updates=4, repeats=1, matmuls=2, threads=1)


@pytest.mark.parametrize("depth", [1, 3])
def test_flop_model_equals_the_products_one_sgd_update_performs(depth):
    # count the matrix products of one update as sgd_train_runs does it: weights require grad, inputs do not
    B, d, m, k = 7, 5, 12, 10
    net = MLP(d, m, depth, seed=0, dtype=torch.float32, out_dim=k)
    X = torch.randn(B, d)
    y = torch.randint(0, k, (B,))
    params = [p for p in net.parameters() if p.requires_grad]
    with FlopCounterMode(display=False) as counter:
        loss = F.cross_entropy(net(X), y)
        torch.autograd.grad(loss, params)
    assert counter.get_total_flops() == sgdb.sgd_update_flops(B, d, m, depth, k)
    # by hand: P = d m + (L - 1) m^2 + m k; 6 B P less the input gradient 2 B d m
    P = d * m + (depth - 1) * m * m + m * k
    assert sgdb.sgd_update_flops(B, d, m, depth, k) == 6 * B * P - 2 * B * d * m


def fake_rows(depths=(10,), frac=0.6317, speedup=2.04):
    rows = []
    for L in depths:
        rows.append(dict(depth=L, width=512, batch=500, runs=9, n_train=5000, in_dim=784, out_dim=10,
                         one_updates_per_s=13.1, one_frac_matmul=0.552, grid_updates_per_s=13.1 * speedup,
                         grid_frac_matmul=frac, speedup=speedup, matmul_gflops=181.0, one_peak_mb=40.0,
                         grid_peak_mb=310.0, load_start=0.2, load_end=0.4, seconds=50.0))
    return pd.DataFrame(rows)


def test_quick_ends_with_the_summary_line(monkeypatch, capsys):
    seen = {}

    def fake(depths, **kw):
        seen.update(kw, depths=depths)
        return fake_rows()
    monkeypatch.setattr(sgdb, "run_sgd_benchmark", fake)
    assert bench.main(["--sgd", "--quick"]) == 0  # dispatched from the NTK benchmark's command line
    out = capsys.readouterr().out.strip().splitlines()
    assert seen["depths"] == [10] and seen["repeats"] == 1 and seen["width"] == 512 and seen["batch"] == 500
    assert seen["precisions"] == ("fp32", "bf16")   # the command line times both precisions
    assert QUICK_LINE.match(out[-1]), out[-1]
    assert out[-1] == "sgd depth 10: batched grid at 63% of the same-run matmul rate, 2.0x one run at a time"
    assert "grid / matmul" in out[0] and "63%" in out[1]
    # counterfactual: the pattern rejects a fraction with decimals and a speed-up without one
    assert not QUICK_LINE.match("sgd depth 10: batched grid at 63.2% of the same-run matmul rate, 2x one run at a time")


def test_full_run_prints_one_line_per_depth(monkeypatch, capsys):
    monkeypatch.setattr(sgdb, "run_sgd_benchmark", lambda depths, **kw: fake_rows(depths))
    assert sgdb.main(["--depths", "1", "5", "10"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert [s.split(":")[0] for s in lines[-3:]] == ["sgd depth 1", "sgd depth 5", "sgd depth 10"]


def cli(argv) -> int:
    try:
        return bench.main(argv)
    except SystemExit as exc:  # argparse's own errors
        return exc.code


@pytest.mark.parametrize("argv, match", [
    (["--sgd", "--depths", "0"], "depths must be an integer >= 1"),
    (["--sgd", "--runs", "1"], "runs must be an integer >= 2"),
    (["--sgd", "--width", "wide"], "argument -w/--width: invalid int value"),
    (["--sgd", "--unknown"], "unrecognized arguments: --unknown"),
    (["--sgd", "--device", "tpu"], "unknown device 'tpu'"),
])
def test_bad_arguments_give_one_line_and_exit_2(argv, match, capsys):
    code = cli(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("error: ") and match in err[0], err


@pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA is available here")
def test_cuda_on_a_cpu_machine_is_one_clear_message_from_the_command_line():
    r = subprocess.run([sys.executable, "-m", "lib.finite.benchmark", "--sgd", "--quick", "--device", "cuda"],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    err = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(err) == 1 and "CUDA is not available" in err[0], r.stderr
    assert "sgd depth" not in r.stdout


def test_bad_arguments_of_the_functions():
    for kw, match in ((dict(depths=[]), "depths must be a non-empty list"), (dict(batch=0), "batch must be"),
                      (dict(lr=-1.0), "lr must be a positive number"), (dict(timed_updates=0), "timed_updates")):
        with pytest.raises(BenchmarkError, match=match):
            sgdb.run_sgd_benchmark(**{"depths": [1], **TINY, **kw}, progress=False)


def test_a_tiny_case_in_a_fresh_process():
    row = sgdb.run_sgd_case(1, **TINY)
    assert row["runs"] == 2 and row["epochs_long"] == row["epochs_short"] + 1 and row["updates"] == 4
    assert row["flops_per_update"] == sgdb.sgd_update_flops(10, 6, 8, 1, 10)
    assert row["matmul_gflops"] > 0 and row["one_peak_mb"] >= 0 and row["grid_peak_mb"] >= 0
    for mode in ("one", "grid"):  # the derived columns follow from the measured ones (NaN if the load hid the time)
        ups = row[f"{mode}_updates_per_s"]
        assert np.isnan(ups) or ups > 0
        np.testing.assert_allclose(row[f"{mode}_frac_matmul"],
                                   ups * row["flops_per_update"] / 1e9 / row["matmul_gflops"])
    np.testing.assert_allclose(row["speedup"], row["grid_updates_per_s"] / row["one_updates_per_s"])
    table = sgdb.format_sgd_table(pd.DataFrame([row]))
    assert list(table.columns) == list(sgdb.SGD_COLUMNS.values()) and table["grid runs"].iloc[0] == "2"


def test_a_failing_worker_is_one_message():
    # a rate so large that a run diverges: the worker refuses to time a shrinking batch
    with pytest.raises(BenchmarkError, match=r"the SGD case at depth 1 failed: worker failed: .*a run diverged"):
        sgdb.run_sgd_case(1, **{**TINY, "timed_updates": 1}, lr=1e6)


BF16_LINE = re.compile(r"^sgd depth 10, bf16 against float32: one run \d+\.\dx \(bf16 at \d+% of the same-run bf16 matmul "
                       r"rate, float32 at \d+% of the float32 one\), batched grid \d+\.\dx \(\d+% and \d+%\); "
                       r"matmul \d+ and \d+ GFLOP/s$")


def fake_bf16_rows(depths=(10,)):
    df = fake_rows(depths)
    return df.assign(bf16_matmul_gflops=900.0, bf16_one_updates_per_s=39.3, bf16_one_frac_matmul=0.368,
                     bf16_grid_updates_per_s=80.0, bf16_grid_frac_matmul=0.3, bf16_one_peak_mb=30.0,
                     bf16_grid_peak_mb=200.0, bf16_speedup=80.0 / (13.1 * 2.04), bf16_one_speedup=3.0)


def test_quick_prints_the_bf16_rate_beside_float32_and_their_ratio(monkeypatch, capsys):
    monkeypatch.setattr(sgdb, "run_sgd_benchmark", lambda depths, **kw: fake_bf16_rows(depths))
    assert bench.main(["--sgd", "--quick"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert QUICK_LINE.match(out[-2]) and BF16_LINE.match(out[-1]), out[-2:]
    assert out[-1] == ("sgd depth 10, bf16 against float32: one run 3.0x (bf16 at 37% of the same-run bf16 matmul rate, "
                       "float32 at 55% of the float32 one), batched grid 3.0x (30% and 63%); matmul 900 and 181 GFLOP/s")
    assert "bf16 / float32, grid" in out[0]
    # without bf16 columns (chapter 07's rows) the table has none of them
    assert "bf16" not in " ".join(sgdb.format_sgd_table(fake_rows()).columns)


@pytest.mark.parametrize("precisions", [("bf16",), (), "fp32", ("fp32", "fp16")])
def test_bad_precisions_are_named(precisions):
    with pytest.raises(BenchmarkError, match="precisions must list 'fp32'"):
        sgdb.run_sgd_case(1, **TINY, precisions=precisions)


def test_a_tiny_case_in_both_precisions():
    row = sgdb.run_sgd_case(1, **TINY, precisions=("fp32", "bf16"))
    for pre in ("", "bf16_"):
        assert row[f"{pre}matmul_gflops"] > 0
        for mode in ("one", "grid"):
            ups = row[f"{pre}{mode}_updates_per_s"]
            assert np.isnan(ups) or ups > 0
            np.testing.assert_allclose(row[f"{pre}{mode}_frac_matmul"],
                                       ups * row["flops_per_update"] / 1e9 / row[f"{pre}matmul_gflops"])
    np.testing.assert_allclose(row["bf16_speedup"], row["bf16_grid_updates_per_s"] / row["grid_updates_per_s"])
    np.testing.assert_allclose(row["bf16_one_speedup"], row["bf16_one_updates_per_s"] / row["one_updates_per_s"])
    assert "precisions" not in row and BF16_LINE.pattern
    table = sgdb.format_sgd_table(pd.DataFrame([row]))
    assert list(table.columns) == list(sgdb.SGD_COLUMNS.values()) + list(sgdb.BF16_COLUMNS.values())
