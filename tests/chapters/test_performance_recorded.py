"""Chapter 07: recorded full-data cases (lib.chapters.performance.recorded): written from the sweep cache,
read back, replaced by the build's own numbers, and refused when damaged."""
import json

import pytest

from lib.chapters import performance
from lib.validation import InputError

KW = dict(width=16, in_dim=6, tile=64)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    base = tmp_path_factory.mktemp("rec")
    cache, records = base / "cache", base / "records"
    rows = [performance.record_scale_case(80, L, shift=s, record_dir=records, cache_dir=cache, **KW)
            for L, s in [(1, 5e-4), (2, None)]]
    return rows, records, cache


def test_records_round_trip_with_their_provenance(recorded):
    rows, records, _ = recorded
    assert sorted(p.name for p in records.iterdir()) == ["07_scale_n80_depth1.json", "07_scale_n80_depth2.json"]
    rec = performance.recorded_scale(records)
    assert list(rec.depth) == [1, 2] and rec.min_angle.tolist() == [r["min_angle"] for r in rows]
    assert rec.command[0].endswith("--shift 0.0005") and "--shift" not in rec.command[1]
    assert rec["shift"][0] == 5e-4 and 4.9e-4 < rec.lambda_min_low[0] <= 5e-4 and rec.lambda_min_mode[0] == "certified"
    text = performance.recorded_text(rec)
    assert "not re-run by this build" in text and "given shift s = 0.0005" in text and rows[0]["commit"] in text
    assert performance.recorded_table(rec).data.shape[0] == 2


def test_a_case_the_build_computed_replaces_its_record(recorded):
    _, records, cache = recorded
    live = performance.measure_scale_cases([80], [1], lambda_min="certified", shifts=[5e-4], cache_dir=cache, **KW)
    rec = performance.recorded_scale(records, exclude=live)
    assert list(rec.depth) == [2]
    run = performance.ScaleRun(live, (80,), (1,), 16, 6, "certified", (5e-4,))
    assert list(performance.recorded_scale(records, exclude=run).depth) == [2]


def test_no_records_and_damaged_records(tmp_path):
    empty = performance.recorded_scale(tmp_path)
    assert empty.empty and "No recorded case" in performance.recorded_text(empty)
    (tmp_path / "07_scale_n5_depth1.json").write_text("{not json")
    with pytest.raises(InputError, match="not valid JSON"):
        performance.recorded_scale(tmp_path)
    (tmp_path / "07_scale_n5_depth1.json").write_text(json.dumps({"n": 5, "depth": 1}))
    with pytest.raises(InputError, match="lacks"):
        performance.recorded_scale(tmp_path)


def test_depth_sentence_decides_only_when_the_intervals_separate():
    import pandas as pd

    def rec(lo10, hi10):
        return pd.DataFrame(dict(n=[100, 100], depth=[1, 10], kappa_low=[10.0, lo10], kappa_high=[20.0, hi10]))
    assert "rises with depth" in performance.depth_sentence(rec(30.0, 40.0))
    assert "falls with depth" in performance.depth_sentence(rec(2.0, 5.0))
    assert "not decided" in performance.depth_sentence(rec(15.0, 40.0))
    assert performance.depth_sentence(rec(15.0, float("inf"))) == ""
    assert "[10, 20] at depth 1 and in [30, 40] at depth 10" in performance.depth_sentence(rec(30.0, 40.0))


def test_command_line_help_names_the_options():
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-m", "lib.chapters.performance", "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "--shift" in out.stdout and "--depth" in out.stdout and not out.stderr


@pytest.mark.parametrize("field,value,match", [
    ("kappa_low", "above kappa_high", r"the interval \[kappa_low, kappa_high\] = .* is reversed"),
    ("min_angle", 7.5, r"field 'min_angle' must be a finite number in \[0, 3.14159\]"),
    ("lambda_max", float("nan"), "field 'lambda_max' must be a finite number"),
    ("seconds", None, "field 'seconds' must be a finite number"),
    ("commit", None, "field 'commit' must be a non-empty string"),
    ("depth", 1.5, "field 'depth' must be an integer >= 0"),
    ("lambda_min_mode", "guessed", "field 'lambda_min_mode' must be"),
    ("lambda_max", 1.0, "field 'lambda_max' = 1.0 lies outside"),
])
def test_a_record_is_checked_as_data(recorded, tmp_path, field, value, match):
    _, records, _ = recorded
    src = sorted(records.glob("*.json"))[0]
    row = json.loads(src.read_text())
    assert len(performance.recorded_scale(records)) == 2  # counterfactual: the intact records are read
    if value == "above kappa_high":  # a finite interval, turned around
        src = next(p for p in sorted(records.glob("*.json")) if json.loads(p.read_text())["kappa_high"] is not None)
        row = json.loads(src.read_text())
        value = 2 * row["kappa_high"]
    row[field] = value
    (tmp_path / src.name).write_text(json.dumps(row))
    with pytest.raises(InputError, match=f"the record {tmp_path / src.name}: {match}"):
        performance.recorded_scale(tmp_path)
    del row[field]
    (tmp_path / src.name).write_text(json.dumps(row))
    with pytest.raises(InputError, match=f"lacks the field '{field}'"):
        performance.recorded_scale(tmp_path)


@pytest.mark.parametrize("args,match", [(["--n", "0"], "--n must be an integer >= 2"),
                                        (["--depth", "-1"], "--depth must be an integer >= 0"),
                                        (["--tile", "0"], "--tile must be an integer >= 1")])
def test_command_line_refuses_bad_numbers_with_one_line(args, match, capsys):
    argv = ["--depth", "1", *args] if "--depth" not in args else args
    with pytest.raises(SystemExit) as exc:
        performance.recorded.main(argv)
    err = capsys.readouterr().err.strip()
    assert exc.value.code == 2 and err.count("\n") == 0 and match in err


def test_command_line_refuses_an_unavailable_device(capsys):
    import torch
    if torch.cuda.is_available():
        pytest.skip("CUDA is available here")
    with pytest.raises(SystemExit) as exc:
        performance.recorded.main(["--depth", "1", "--n", "10", "--device", "cuda"])
    assert exc.value.code == 2 and "CUDA is not available" in capsys.readouterr().err


# ---------------------------------------------------------------- the data of a case, and conflicts
def test_two_records_of_one_case_are_a_conflict_naming_both_files(recorded, tmp_path):
    _, records, _ = recorded
    src = records / "07_scale_n80_depth1.json"
    for p in records.glob("*.json"):
        (tmp_path / p.name).write_text(p.read_text())
    assert len(performance.recorded_scale(tmp_path)) == 2  # counterfactual: one record per case
    (tmp_path / "07_scale_n80_depth1_copy.json").write_text(src.read_text())
    with pytest.raises(InputError, match=f"the records {tmp_path / '07_scale_n80_depth1.json'} and "
                                         f"{tmp_path / '07_scale_n80_depth1_copy.json'} are two records of one case "
                                         r"\(Gaussian inputs, n = 80, depth 1\): a conflict"):
        performance.recorded_scale(tmp_path)
    # a second record of the case with other numbers (kappa [1, 2]) is no less a conflict
    row = json.loads(src.read_text())
    row.update(lambda_max=2.0, lambda_max_low=2.0, lambda_max_high=2.0, lambda_min=1.0, lambda_min_low=1.0,
               lambda_min_high=1.0, kappa_low=2.0, kappa_high=2.0, lambda_min_mode="exact")
    (tmp_path / "07_scale_n80_depth1_copy.json").write_text(json.dumps(row))
    with pytest.raises(InputError, match="two records of one case"):
        performance.recorded_scale(tmp_path)
    # the same n and depth on other data is another case: both are listed, each with its data
    row["data"], row["in_dim"] = "mnist", 784
    (tmp_path / "07_scale_n80_depth1_copy.json").write_text(json.dumps(row))
    rec = performance.recorded_scale(tmp_path)
    assert list(zip(rec.data, rec.depth)) == [("gaussian", 1), ("gaussian", 2), ("mnist", 1)]
    assert list(performance.table_scale(rec)["data"]) == ["Gaussian", "Gaussian", "MNIST"]


def test_an_mnist_case_is_recorded_with_its_data_and_the_missing_ones_are_named(tmp_path):
    kw = dict(width=16, in_dim=784, tile=64, record_dir=tmp_path / "records", cache_dir=tmp_path / "cache")
    row = performance.record_scale_case(60, 1, data="mnist", **kw)
    assert row["data"] == "mnist" and "--data mnist" in row["command"]
    assert (tmp_path / "records" / "07_scale_mnist_n60_depth1.json").is_file()
    rec = performance.recorded_scale(tmp_path / "records")
    assert list(rec.data) == ["mnist"] and list(rec.file) == ["07_scale_mnist_n60_depth1.json"]
    text = performance.recorded_text(rec)
    assert "- MNIST, n = 60, depth 1" in text and "Not yet recorded: the real MNIST images at n = 60,000, depths 1 " \
        "and 10" in text
    for L in (1, 10):
        assert f"`python -m lib.chapters.performance --data mnist --n 60000 --depth {L}`" in text
    # the same inputs as load_dataset gives (a seeded draw of n of the 60,000): its smallest angle is theirs
    from lib.finite.extremes.bench import scale_inputs
    from lib.data.datasets import load_dataset
    import numpy as np
    np.testing.assert_array_equal(scale_inputs("mnist", 60, 784, 0), load_dataset("mnist", n=60, seed=0))
    with pytest.raises(InputError, match="in_dim must be 784 for MNIST"):
        scale_inputs("mnist", 60, 10, 0)


def test_a_recorded_mnist_case_at_60000_is_not_missing_and_the_intro_states_it():
    import pandas as pd
    rows = pd.DataFrame([dict(data="mnist", n=60000, depth=L, kappa_low=k, kappa_high=1.01 * k, min_angle=0.5,
                              seconds=2400.0, peak_gib=15.6, cpus=2, recorded="2026-11-28 10:00 UTC")
                         for L, k in ((1, 3.0e5), (10, 2.0e4))])
    assert performance.missing_mnist(rows) == []
    assert performance.missing_mnist(rows[rows.depth == 1]) == [10]
    text = performance.intro_text(rows, 713)
    assert "at depth 1 its κ lies in [300,000, 303,000], certified" in text
    assert "rank X = 713 ≤ 784 < 60,000" in text and "infinite (singular)" in text and "Not yet" not in text
    assert "depth 10." in performance.intro_text(rows[rows.depth == 1], None)
    assert "$" not in text and "`" not in text  # plain text: the introduction pastes it as it is
    large = performance.intro_text(rows.assign(kappa_low=5.0589e9, kappa_high=7.3303e9), 713)
    assert "its κ lies in [5.059 × 10⁹, 7.330 × 10⁹], certified" in large  # not ten digits
    assert "[999,990, 1.000 × 10⁶]" in performance.intro_text(rows.assign(kappa_low=999990.0, kappa_high=1e6), 713)


def test_the_linear_networks_kappa_is_infinite_with_its_rank():
    import numpy as np
    X = np.random.default_rng(0).standard_normal((50, 8))
    assert performance.linear_rank(X) == 8
    assert performance.linear_rank(np.hstack([X, X[:, :1]])) == 8  # a repeated pixel adds no rank
    assert "**infinite**" in performance.linear_text(50, 9, 8) and "rank at most rank $X$ = 8" in \
        performance.linear_text(50, 9, 8)
    assert "infinite" not in performance.linear_text(8, 9, 8)  # n <= rank: not implied


def test_command_line_refuses_mnist_at_another_shape(capsys):
    with pytest.raises(SystemExit) as exc:
        performance.recorded.main(["--data", "mnist", "--depth", "1", "--in-dim", "10"])
    assert exc.value.code == 2 and "--data mnist needs --in-dim 784" in capsys.readouterr().err


def _row(**kw):
    """A consistent record (interval mode, kappa = the quotients of the eigenvalue bounds), changed by ``kw``."""
    row = dict(n=100, depth=1, width=16, in_dim=6, min_angle=0.5, lambda_max=10.0, lambda_max_low=9.0,
               lambda_max_high=12.0, lambda_min_mode="certified", lambda_min_low=2.0, lambda_min=2.5,
               lambda_min_high=3.0, kappa_low=3.0, kappa_high=6.0, singular=False, seconds=1.0, peak_gib=0.1,
               load_start=0.5, load_end=0.5, cpus=2, command="python -m x", commit="abc", recorded="now",
               date="2026-11-27")
    return row | kw


def _refusal(row, path="r.json"):
    try:
        performance.check_record(row, path)
    except InputError as exc:
        return str(exc)
    return None


def test_a_records_numbers_are_named_with_their_exact_range():
    """Each field's message gives its kind and range; a value on the range's edge is accepted."""
    assert _refusal(_row()) is None and _refusal(_row(min_angle=3.141592653589793)) is None
    assert "'min_angle' must be a finite number in [0, 3.14159], got 3.2" in _refusal(_row(min_angle=3.2))
    assert "'kappa_low' must be a number (not NaN) >= 1 or null, got nan" in _refusal(_row(kappa_low=float("nan")))
    assert "'seconds' must be a finite number >= 0, got -1" in _refusal(_row(seconds=-1))
    assert "'seconds' must be a finite number >= 0, got None" in _refusal(_row(seconds=None))
    assert "'lambda_min' must be a finite number or null, got inf" in _refusal(_row(lambda_min=float("inf")))
    assert "'shift' must be a finite number >= 0 or null" in _refusal(_row(shift=-1.0))
    assert _refusal(_row(shift=None)) is None and _refusal(_row(shift=0.0)) is None
    assert "'cpus' must be an integer >= 1, got 0" in _refusal(_row(cpus=0)) and _refusal(_row(cpus=1)) is None
    assert "'n' must be an integer >= 2, got True" in _refusal(_row(n=True))


def test_kappa_follows_from_the_eigenvalues_in_each_mode():
    """Interval mode: kappa_low = lambda_max_low / lambda_min_high, kappa_high = lambda_max_high / lambda_min_low,
    null when the divisor is 0; exact mode: both lambda_max / lambda_min. A singular kernel has both null."""
    assert "'kappa_low' = 4.0 does not follow" in _refusal(_row(kappa_low=4.0))
    assert "'kappa_high' = 5.0 does not follow" in _refusal(_row(kappa_high=5.0))
    exact = _row(lambda_min_mode="exact", kappa_low=4.0, kappa_high=4.0)  # 10 / 2.5, not the interval's 3 and 6
    assert _refusal(exact) is None
    assert "'kappa_low' = 3.0 does not follow" in _refusal(exact | dict(kappa_low=3.0))
    assert "'kappa_high' = 5.0 does not follow" in _refusal(exact | dict(kappa_high=5.0))
    zero = dict(lambda_min_low=0.0, lambda_min=0.0, lambda_min_high=0.0, kappa_low=None, kappa_high=None)
    assert _refusal(_row(**zero)) is None and _refusal(_row(lambda_min_mode="exact", **zero)) is None
    single = _row(singular=True, lambda_min_low=-1.0, lambda_min=0.0, lambda_min_high=0.0, kappa_high=None)
    assert "a singular kernel has kappa = infinity" in _refusal(single)
    assert _refusal(single | dict(kappa_low=None)) is None


def test_the_cross_check_tolerance_is_relative_and_inclusive(monkeypatch):
    """|kappa - quotient| <= RECORD_RTOL * quotient passes, beyond it is refused (a tolerance of 0.5 makes the
    edge exact in binary)."""
    monkeypatch.setattr(performance.recorded, "RECORD_RTOL", 0.5)
    assert _refusal(_row(kappa_low=4.5)) is None                 # |4.5 - 3| = 1.5 = 0.5 * 3
    assert "does not follow" in _refusal(_row(kappa_low=4.5 + 1e-9))
    assert _refusal(_row(kappa_high=9.0)) is None                # 3 = 0.5 * 6
    assert "does not follow" in _refusal(_row(kappa_high=9.0 + 1e-9))
