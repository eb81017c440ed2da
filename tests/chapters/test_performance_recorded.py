"""Chapter 07: recorded full-data cases (lib.chapters.performance.recorded): written from the sweep cache,
read back, replaced by the build's own numbers, and refused when damaged."""
import json

import pytest

from lib.chapters import performance as PERF
from lib.validation import InputError

KW = dict(width=16, in_dim=6, tile=64)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    base = tmp_path_factory.mktemp("rec")
    cache, records = base / "cache", base / "records"
    rows = [PERF.record_scale_case(80, L, shift=s, record_dir=records, cache_dir=cache, **KW)
            for L, s in [(1, 5e-4), (2, None)]]
    return rows, records, cache


def test_records_round_trip_with_their_provenance(recorded):
    rows, records, _ = recorded
    assert sorted(p.name for p in records.iterdir()) == ["07_scale_n80_depth1.json", "07_scale_n80_depth2.json"]
    rec = PERF.recorded_scale(records)
    assert list(rec.depth) == [1, 2] and rec.min_angle.tolist() == [r["min_angle"] for r in rows]
    assert rec.command[0].endswith("--shift 0.0005") and "--shift" not in rec.command[1]
    assert rec["shift"][0] == 5e-4 and 4.9e-4 < rec.lambda_min_low[0] <= 5e-4 and rec.lambda_min_mode[0] == "certified"
    text = PERF.recorded_text(rec)
    assert "not re-run by this build" in text and "given shift s = 0.0005" in text and rows[0]["commit"] in text
    assert PERF.recorded_table(rec).data.shape[0] == 2


def test_a_case_the_build_computed_replaces_its_record(recorded):
    _, records, cache = recorded
    live = PERF.compute_scale([80], [1], lambda_min="certified", shifts=[5e-4], cache_dir=cache, **KW)
    rec = PERF.recorded_scale(records, exclude=live)
    assert list(rec.depth) == [2]


def test_no_records_and_damaged_records(tmp_path):
    empty = PERF.recorded_scale(tmp_path)
    assert empty.empty and "No recorded case" in PERF.recorded_text(empty)
    (tmp_path / "07_scale_n5_depth1.json").write_text("{not json")
    with pytest.raises(InputError, match="not valid JSON"):
        PERF.recorded_scale(tmp_path)
    (tmp_path / "07_scale_n5_depth1.json").write_text(json.dumps({"n": 5, "depth": 1}))
    with pytest.raises(InputError, match="lacks"):
        PERF.recorded_scale(tmp_path)


def test_depth_sentence_decides_only_when_the_intervals_separate():
    import pandas as pd

    def rec(lo10, hi10):
        return pd.DataFrame(dict(n=[100, 100], depth=[1, 10], kappa_low=[10.0, lo10], kappa_high=[20.0, hi10]))
    assert "rises with depth" in PERF.depth_sentence(rec(30.0, 40.0))
    assert "falls with depth" in PERF.depth_sentence(rec(2.0, 5.0))
    assert "not decided" in PERF.depth_sentence(rec(15.0, 40.0))
    assert PERF.depth_sentence(rec(15.0, float("inf"))) == ""
    assert "[10, 20] at depth 1 and in [30, 40] at depth 10" in PERF.depth_sentence(rec(30.0, 40.0))


def test_command_line_help_names_the_options():
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-m", "lib.chapters.performance", "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "--shift" in out.stdout and "--depth" in out.stdout and not out.stderr
