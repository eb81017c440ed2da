"""Chapter 07, SGD section (lib.chapters.performance.sgd): table, sentence, and the default build's sizes."""
import pandas as pd
import pytest

from lib.book.profile_files import load_profiles
from lib.chapters import performance
from lib.finite import sgd_benchmark as sgdb


def run(frame):
    """An :class:`SgdRun` of these rows."""
    return performance.SgdRun(frame, tuple(frame.depth), 512, 500, 9, 5000)


def rows(depths=(1, 10)):
    return pd.DataFrame([dict(depth=L, width=512, batch=500, runs=9, n_train=5000, in_dim=784, out_dim=10,
                              one_updates_per_s=13.0, one_frac_matmul=0.55, grid_updates_per_s=26.0,
                              grid_frac_matmul=0.661, speedup=2.0, matmul_gflops=180.0, one_peak_mb=41.0,
                              grid_peak_mb=312.0, load_start=0.25, load_end=0.5) for L in depths])


def test_table_and_sentence_come_from_the_rows():
    tab = performance.table_sgd(run(rows()))
    assert list(tab["depth"]) == ["1", "10"] and list(tab["grid / matmul"]) == ["66%", "66%"]
    assert list(tab["grid / one run"]) == ["2.0x", "2.0x"] and tab["grid peak MB"].iloc[0] == "312"
    text = performance.sgd_text(run(rows()))
    assert text.count("- Depth") == 2 and "66% of the float32 matmul rate" in text and "**2.0x** one run" in text
    assert "load average 0.25 at the start, 0.50 at the end" in text
    other = rows()
    other["grid_frac_matmul"] = 0.42
    assert "42% of the float32" in performance.sgd_text(run(other))  # counterfactual: the sentence follows the numbers


def test_measure_passes_the_notebook_sizes(monkeypatch):
    seen = {}

    def fake(depths, **kw):
        seen.update(kw, depths=depths)
        return rows(depths)
    monkeypatch.setattr("lib.chapters.performance.sgd.run_sgd_benchmark", fake)
    cfg = performance.SPEC.config(sgd_depths=[1], sgd_width=64, sgd_batch=50, sgd_runs=3, sgd_n_train=200, threads=1,
                                  profile="smoke")
    sgd = performance.measure_sgd_benchmark(cfg)
    assert seen == dict(depths=[1], width=64, batch=50, runs=3, n_train=200, device="cpu", threads=1, repeats=2,
                        timed_updates=10, progress=False)
    assert len(sgd.frame) == 1 and (sgd.depths, sgd.width, sgd.batch, sgd.runs, sgd.n_train) == ((1,), 64, 50, 3, 200)
    assert "{profile}" in performance.glue_sgd(sgd)["sgd_caption"]  # the recorder writes the profile there


def test_default_build_sizes_keep_the_verdicts_at_the_targets_size():
    p = performance.SPEC.defaults()
    # the three verdicts are read at n = 512, width 512, depth 10 against Jacobian contraction
    assert (p["target_n"], p["width"], p["target_depth"]) == performance.TARGET_SIZE
    assert p["target_n"] in p["ns"] and p["target_depth"] in p["depths"] and "jacobian" in p["methods"]
    # what moved to the paper profile: NTK-vector products, depths 2..9, the SGD benchmark's depths 5 and 10
    paper = load_profiles()["paper"]["07_performance"]
    assert "ntk_vp" not in p["methods"] and "ntk_vp" in paper["methods"]
    assert paper["sgd_depths"] == list(sgdb.SGD_DEPTHS) and paper["sgd_n_train"] == sgdb.N_TRAIN
    assert p["sgd_width"] == 512 and p["sgd_batch"] == 500 and p["sgd_runs"] == sgdb.GRID_RUNS


@pytest.mark.parametrize("profile", ["smoke", "default", "paper"])
def test_profiles_name_only_parameters_of_the_notebook(profile):
    prof = (load_profiles().get(profile) or {}).get("07_performance") or {}
    assert set(prof) <= set(performance.SPEC.names)
