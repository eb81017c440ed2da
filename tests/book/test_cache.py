"""lib.book.cache: exact JSON round trip of results, cached_call (computed once, resumable), clear errors."""
import json

import numpy as np
import pandas as pd
import pytest

from lib.book.cache import (SweepError, cache_root, cached_call, cell_key, from_json, record_checksum, sweep_dir,
                            to_json, verify_record)


def test_to_json_round_trip_is_exact():
    value = {"loss": np.array([1.0, 1 / 3, np.nan, np.inf]), "steps": np.arange(3), "f32": np.float32(0.1),
             "grid": (2.0, {0.5: 1e-300, 2.0: float("inf")}), "flag": np.bool_(True), "n": 3, "s": "x",
             "frame": pd.DataFrame({"a": [1, 2], "b": [0.1, 0.2]}), "nested": [np.float64(2.5), None]}
    back = from_json(json.loads(json.dumps(to_json(value))))
    np.testing.assert_array_equal(back["loss"], value["loss"])
    assert back["loss"].dtype == np.float64 and back["steps"].dtype == value["steps"].dtype
    assert back["f32"] == value["f32"] and type(back["f32"]) is np.float32
    assert back["grid"] == value["grid"] and isinstance(back["grid"], tuple)
    assert back["flag"] is np.True_ and back["n"] == 3 and back["s"] == "x"
    pd.testing.assert_frame_equal(back["frame"], value["frame"])
    assert back["nested"] == [2.5, None]
    with pytest.raises(TypeError):
        to_json(object())


def test_cached_call_computes_once_and_resumes(tmp_path, capsys):
    calls = []

    def run(i):
        calls.append(i)
        return {"curve": np.linspace(0, 1, 5) * i, "best": (0.5, {0.5: 1.0})}

    X = np.arange(4.0)
    first = [cached_call("c", {"i": i, "X": X}, lambda i=i: run(i), cache_dir=tmp_path) for i in range(2)]
    assert calls == [0, 1]
    # an interrupted loop: the third configuration fails, the first two stay cached
    with pytest.raises(KeyboardInterrupt):
        for i in range(3):
            cached_call("c", {"i": i, "X": X}, (lambda i=i: run(i)) if i < 2 else
                        (lambda: (_ for _ in ()).throw(KeyboardInterrupt)), cache_dir=tmp_path)
    assert calls == [0, 1]
    again = [cached_call("c", {"i": i, "X": X}, lambda i=i: run(i), cache_dir=tmp_path) for i in range(3)]
    assert calls == [0, 1, 2]
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a["curve"], b["curve"])
        assert a["best"] == b["best"]
    # changed data is a new computation; a corrupted record is recomputed with a warning naming it
    cached_call("c", {"i": 0, "X": X + 1}, lambda: run(9), cache_dir=tmp_path)
    assert calls[-1] == 9
    files = sorted((tmp_path / "c").glob("*.json"))
    for f in files:
        f.write_text("[]")
    capsys.readouterr()
    n = len(calls)
    for i in range(3):
        cached_call("c", {"i": i, "X": X}, lambda i=i: run(i), cache_dir=tmp_path)
    err = capsys.readouterr().err
    assert len(calls) == n + 3 and sum(str(f) in err for f in files) == 3


def test_unwritable_cache_directory_is_one_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(SweepError, match=f"cache directory {blocker / 'c'}"):
        cached_call("c", {"a": 1}, lambda: 1.0, cache_dir=blocker)


def test_cache_root_and_sweep_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("NTK_CACHE_DIR", str(tmp_path / "env"))
    assert cache_root() == tmp_path / "env" and sweep_dir("c") == tmp_path / "env" / "sweeps" / "c"
    monkeypatch.delenv("NTK_CACHE_DIR")
    assert cache_root().name == ".cache"
    for bad in ["", "a/b", "..", ".hidden", 3]:
        with pytest.raises(ValueError, match="sweep name"):
            sweep_dir(bad)


def test_cell_key_depends_on_every_input():
    k = cell_key("c", {"a": 1, "b": [2.0, None]})
    assert len(k) == 24 and k == cell_key("c", {"b": [2.0, None], "a": 1})
    p = {"a": 1, "b": [2.0, None]}
    others = [cell_key("d", p), cell_key("c", p, version="2"), cell_key("c", p, data_fingerprint="f"),
              cell_key("c", {**p, "a": 2})]
    assert k not in others and len(set(others)) == len(others)
    with pytest.raises(TypeError, match="dict of parameters"):
        cell_key("c", [("a", 1)])


# ---- records that cannot lie, faults that name the path --------------------------------------

def _two_records(tmp_path):
    cached_call("demo", {"n": 1}, lambda: {"kappa": 3.0}, cache_dir=tmp_path)
    cached_call("demo", {"n": 2}, lambda: {"kappa": 7.0}, cache_dir=tmp_path)
    files = {json.loads(p.read_text())["params"]["n"]: p for p in (tmp_path / "demo").glob("*.json")}
    return files[1], files[2]


def test_another_cells_record_with_its_key_edited_is_refused(tmp_path, capsys):
    f1, f2 = _two_records(tmp_path)
    rec = json.loads(f2.read_text())
    rec["key"] = f1.stem  # moved into cell 1's file, its key made to match
    f1.write_text(json.dumps(rec))
    capsys.readouterr()
    assert cached_call("demo", {"n": 1}, lambda: {"kappa": 3.0}, cache_dir=tmp_path) == {"kappa": 3.0}
    err = capsys.readouterr().err
    assert str(f1) in err and "another cell's record" in err
    # counterfactual: the intact record of cell 2 is read, silently
    assert cached_call("demo", {"n": 2}, lambda: {"kappa": -1.0}, cache_dir=tmp_path) == {"kappa": 7.0}
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("field,value", [("seconds", 1e9), ("host", "elsewhere"), ("data_fingerprint", "0" * 20)])
def test_the_checksum_covers_the_whole_record(tmp_path, capsys, field, value):
    f1, _ = _two_records(tmp_path)
    rec = json.loads(f1.read_text())
    assert verify_record(rec, f1.stem, "demo") is None and rec["record_checksum"] == record_checksum(rec)
    rec[field] = value
    assert verify_record(rec, f1.stem, "demo") is not None


def test_a_record_of_the_older_format_is_still_read(tmp_path, capsys):
    """Backward compatible: a record without ``record_checksum`` whose key follows from its content is read."""
    f1, _ = _two_records(tmp_path)
    rec = json.loads(f1.read_text())
    del rec["record_checksum"]
    f1.write_text(json.dumps(rec))
    capsys.readouterr()
    assert cached_call("demo", {"n": 1}, lambda: {"kappa": -1.0}, cache_dir=tmp_path) == {"kappa": 3.0}
    assert capsys.readouterr().err == ""
    rec["params"] = {"n": 2}  # an old record claiming other params no longer matches its key
    assert "does not follow" in verify_record(rec, f1.stem, "demo")


def test_a_record_of_another_sweep_is_refused(tmp_path):
    f1, _ = _two_records(tmp_path)
    assert "not of 'other'" in verify_record(json.loads(f1.read_text()), f1.stem, "other")


def test_a_directory_where_a_record_should_be_is_named(tmp_path, capsys):
    f1, _ = _two_records(tmp_path)
    f1.unlink()
    f1.mkdir()
    with pytest.raises(SweepError, match=f"a directory stands where the cache record {f1} should be"):
        cached_call("demo", {"n": 1}, lambda: {"kappa": 3.0}, cache_dir=tmp_path)
    assert f"{f1}: it is a directory" in capsys.readouterr().err


def test_a_full_disk_names_the_directory_and_leaves_no_partial_record(tmp_path, monkeypatch):
    import errno
    import os

    def full(*_):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(SweepError, match=f"cache directory {tmp_path / 'demo'} cannot be written.*disk is full"):
        cached_call("demo", {"n": 1}, lambda: {"kappa": 3.0}, cache_dir=tmp_path)
    assert not list((tmp_path / "demo").iterdir())
    monkeypatch.undo()  # counterfactual: with space, the record is written
    assert cached_call("demo", {"n": 1}, lambda: {"kappa": 3.0}, cache_dir=tmp_path) == {"kappa": 3.0}
    assert len(list((tmp_path / "demo").glob("*.json"))) == 1
