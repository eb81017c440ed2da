"""Chapter 07: tables, figures and the three target checks on synthetic benchmark rows."""
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from lib.chapters import performance as PERF


def rows(jac_s=20.0, jac_mb=500.0, ours_gflops=5.0, n=512, width=512, depth=10, jac_status="ok",
         ntk_vp=True):
    """Benchmark rows at one size: ours 0.1 s and 10 MB, matmul at 8 GFLOP/s."""
    base = dict(n=n, width=width, depth=depth, in_dim=64, variant="", reason="", matmul_gflops=8.0,
                load_start=0.5, load_end=0.7)
    out = [dict(base, method="ours", seconds=0.1, peak_mb=10.0, status="ok", gflops=ours_gflops, max_rel_diff=0.0),
           dict(base, method="jacobian", seconds=jac_s if jac_status == "ok" else np.nan,
                peak_mb=jac_mb if jac_status == "ok" else np.nan, status=jac_status, gflops=1.0,
                max_rel_diff=1e-14 if jac_status == "ok" else np.nan, variant="full",
                reason="" if jac_status == "ok" else "estimated 9e+03 MB > budget 4096 MB")]
    if ntk_vp:
        out.append(dict(base, method="ntk_vp", seconds=2.0, peak_mb=40.0, status="ok", gflops=1.0,
                        max_rel_diff=2e-14))
    return pd.DataFrame(out)


ARGS = dict(target_n=512, target_depth=10, width=512)


def test_check_speedup_reproduced_and_counterfactual():
    c = PERF.check_speedup(rows(), in_dim=64, **ARGS)
    assert c.status == "reproduced" and c.claim_id == "Performance: speed-up vs Jacobian"
    assert "a speed-up of 200x (target 100x" in c.measured
    assert PERF.check_speedup(rows(jac_s=5.0), in_dim=64, **ARGS).status == "not reproduced"


def test_check_memory_reproduced_and_counterfactual():
    c = PERF.check_memory(rows(), **ARGS)
    assert c.status == "reproduced" and "a ratio of 50x (target 10x)" in c.measured
    assert PERF.check_memory(rows(jac_mb=50.0), **ARGS).status == "not reproduced"


def test_check_throughput_reproduced_and_counterfactual():
    c = PERF.check_throughput(rows(), **ARGS)
    assert c.status == "reproduced" and "62% (target 50%)" in c.measured
    assert PERF.check_throughput(rows(ours_gflops=2.0), **ARGS).status == "not reproduced"


def test_checks_not_checked_off_target_or_when_the_peer_did_not_run():
    small = rows(n=64, width=64, depth=2)
    for c in (PERF.check_speedup(small, 64, 2, 64, 64), PERF.check_memory(small, 64, 2, 64),
              PERF.check_throughput(small, 64, 2, 64)):
        assert c.status == "not checked" and "not the size the target names" in c.measured
    skipped = rows(jac_status="skipped")
    c = PERF.check_speedup(skipped, in_dim=64, **ARGS)
    assert c.status == "not checked" and "Jacobian contraction was skipped" in c.measured
    assert PERF.check_memory(rows(), 256, 10, 512).measured.endswith("that size was not benchmarked.")


def test_tables_and_notes():
    t = PERF.table_time(rows())
    assert list(t.columns[:4]) == ["n", "width", "depth", "ours (s)"] and "speed-up vs Jacobian" in t
    assert t["speed-up vs Jacobian"].iloc[0] == "200"
    m = PERF.table_memory(rows(jac_status="skipped"))
    assert m["Jacobian (MB)"].iloc[0] == "-" and "NTK-vp / ours" in m
    assert PERF.notes_markdown(rows()) == "Every method ran at every size."
    assert PERF.notes_markdown(rows(jac_status="skipped")).startswith("- [1] jacobian at n=512, depth=10: skipped")
    assert "measurements" in PERF.describe_run(rows(), 1)
    assert "took **0.1 s**" in PERF.paper_cost_text(rows(), in_dim=64, **ARGS)
    assert PERF.format_cell(0.123456) == "0.123" and PERF.format_cell("x") == "x"


def test_plots_return_figures():
    df = pd.concat([rows(), rows(n=256)], ignore_index=True)
    fig = PERF.plot_time_memory(df, ["ours", "jacobian", "ntk_vp"], [10], [256, 512], 512)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    fig = PERF.plot_throughput(df, 512)
    assert isinstance(fig, Figure) and len(fig.axes) == 1


def test_time_memory_figure_against_depth_for_one_n_with_labelled_log_ticks():
    df = pd.concat([rows(depth=L, jac_mb=20.0) for L in (0, 5, 10)], ignore_index=True)  # memory within 10..40 MB
    fig = PERF.plot_time_memory(df, ["ours", "jacobian", "ntk_vp"], [0, 5, 10], [512], 512)
    assert len(fig.axes) == 2 and fig.axes[0].get_xlabel() == "depth L"
    fig.canvas.draw()
    for ax in fig.axes:
        lo, hi = ax.get_ylim()
        shown = [t.get_text() for t in ax.get_yticklabels() if t.get_text() and lo <= t.get_position()[1] <= hi]
        assert len(shown) >= 2, shown
    # several n: one column per depth, n on a log axis; skipped peers get the open-marker legend entry
    many = pd.concat([rows(n=n, jac_status="skipped" if n == 256 else "ok") for n in (256, 512)], ignore_index=True)
    fig = PERF.plot_time_memory(many, ["ours", "jacobian", "ntk_vp"], [10], [256, 512], 512)
    assert fig.axes[0].get_xscale() == "log" and any("not run" in t.get_text() for t in fig.legends[0].get_texts())


def test_package_reexports_every_public_name_of_the_old_module():
    old = ["TARGET_SIZE", "LABELS", "compute_benchmark", "describe_run", "format_cell", "table_time", "table_memory",
           "notes_markdown", "plot_time_memory", "plot_throughput", "check_speedup", "check_memory",
           "check_throughput", "paper_cost_text", "summary_table", "table_with_notes", "format_table", "target_row",
           "SCALE_VERSION", "compute_scale", "table_scale", "scale_text"]
    assert [n for n in old if n not in PERF.__all__ or not hasattr(PERF, n)] == []
    assert PERF.check_speedup.__module__ == "lib.chapters.performance.targets"
    assert PERF.compute_scale.__module__ == "lib.chapters.performance.scale"
