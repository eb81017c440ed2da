"""Chapter 07: tables, figures and the three target checks on synthetic benchmark rows."""
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from lib.chapters import performance


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


def run(df, methods=("ours", "jacobian", "ntk_vp"), target_n=512, target_depth=10, in_dim=64):
    """A :class:`BenchmarkRun` of the rows ``df`` (its sizes read from the rows)."""
    return performance.BenchmarkRun(df, tuple(sorted(set(df.n))), int(df.width.iloc[0]), tuple(sorted(set(df.depth))),
                                    tuple(methods), in_dim, target_n, target_depth)


def test_check_speedup_reproduced_and_counterfactual():
    c = performance.check_speedup(run(rows()))
    assert c.status == "reproduced" and c.claim_id == "Performance: speed-up vs Jacobian"
    assert "a speed-up of 200x (target 100x" in c.measured
    assert performance.check_speedup(run(rows(jac_s=5.0))).status == "not reproduced"


def test_check_memory_reproduced_and_counterfactual():
    c = performance.check_memory(run(rows()))
    assert c.status == "reproduced" and "a ratio of 50x (target 10x)" in c.measured
    assert performance.check_memory(run(rows(jac_mb=50.0))).status == "not reproduced"


def test_check_throughput_reproduced_and_counterfactual():
    c = performance.check_throughput(run(rows()))
    assert c.status == "reproduced" and "62% (target 50%)" in c.measured
    assert performance.check_throughput(run(rows(ours_gflops=2.0))).status == "not reproduced"


def test_checks_not_checked_off_target_or_when_the_peer_did_not_run():
    small = run(rows(n=64, width=64, depth=2), target_n=64, target_depth=2)
    for c in (performance.check_speedup(small), performance.check_memory(small), performance.check_throughput(small)):
        assert c.status == "not checked" and "not the size the target names" in c.measured
    c = performance.check_speedup(run(rows(jac_status="skipped")))
    assert c.status == "not checked" and "Jacobian contraction was skipped" in c.measured
    assert performance.check_memory(run(rows(), target_n=256)).measured.endswith("that size was not benchmarked.")


def test_tables_and_notes():
    t = performance.table_time(run(rows()))
    assert list(t.columns[:4]) == ["n", "width", "depth", "ours (s)"] and "speed-up vs Jacobian" in t
    assert t["speed-up vs Jacobian"].iloc[0] == "200"
    m = performance.table_memory(run(rows(jac_status="skipped")))
    assert m["Jacobian (MB)"].iloc[0] == "-" and "NTK-vp / ours" in m
    assert performance.notes_markdown(run(rows())) == "Every method ran at every size."
    assert performance.notes_markdown(run(rows(jac_status="skipped"))).startswith(
        "- [1] jacobian at n=512, depth=10: skipped")
    assert "measurements" in performance.describe_run(run(rows()))
    assert "took **0.1 s**" in performance.paper_cost_text(run(rows()))
    assert performance.format_cell(0.123456) == "0.123" and performance.format_cell("x") == "x"
    shown = performance.table_benchmark(run(rows()))
    assert len(shown) == 5 and shown[1].data.equals(performance.table_time(run(rows())))


def test_plots_return_figures():
    df = pd.concat([rows(), rows(n=256)], ignore_index=True)
    fig = performance.plot_time_memory(run(df))
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    fig = performance.plot_throughput(run(df))
    assert isinstance(fig, Figure) and len(fig.axes) == 1


def test_time_memory_figure_against_depth_for_one_n_with_labelled_log_ticks():
    df = pd.concat([rows(depth=L, jac_mb=20.0) for L in (0, 5, 10)], ignore_index=True)  # memory within 10..40 MB
    fig = performance.plot_time_memory(run(df))
    assert len(fig.axes) == 2 and fig.axes[0].get_xlabel() == "depth L"
    fig.canvas.draw()
    for ax in fig.axes:
        lo, hi = ax.get_ylim()
        shown = [t.get_text() for t in ax.get_yticklabels() if t.get_text() and lo <= t.get_position()[1] <= hi]
        assert len(shown) >= 2, shown
    # several n: one column per depth, n on a log axis; skipped peers get the open-marker legend entry
    many = pd.concat([rows(n=n, jac_status="skipped" if n == 256 else "ok") for n in (256, 512)], ignore_index=True)
    fig = performance.plot_time_memory(run(many))
    assert fig.axes[0].get_xscale() == "log" and any("not run" in t.get_text() for t in fig.legends[0].get_texts())


#: public names renamed to the one verb "measure" (old -> new); the old ones must be gone
RENAMED = {"compute_benchmark": "measure_benchmark", "compute_scale": "measure_scale_cases",
           "compute_sgd_benchmark": "measure_sgd_benchmark"}


def test_package_reexports_every_public_name():
    kept = ["TARGET_SIZE", "LABELS", "describe_run", "format_cell", "table_time", "table_memory", "notes_markdown",
            "plot_time_memory", "plot_throughput", "check_speedup", "check_memory", "check_throughput",
            "paper_cost_text", "summary_table", "table_with_notes", "format_table", "target_row", "SCALE_VERSION",
            "table_scale", "scale_text", "recorded_scale", "RECORD_DIR", "glue_values", "SPEC", "measure_scale"]
    names = set(performance.__all__)
    assert [n for n in kept + list(RENAMED.values()) if n not in names or not hasattr(performance, n)] == []
    assert not set(RENAMED) & names and len(names) == len(performance.__all__)
    assert performance.check_speedup.__module__ == "lib.chapters.performance.targets"
    assert performance.measure_scale_cases.__module__ == "lib.chapters.performance.scale"
    import ast
    from pathlib import Path
    for f in Path(performance.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("lib"):
                bad = [a.name for a in node.names
                       if (a.name == "*" and f.name != "__init__.py") or a.name.startswith("_")]
                assert not bad, (f.name, bad)
    assert not (Path(performance.__file__).parent / "book_text.py").exists()


def test_figures_carry_their_caption_code_and_setting():
    f = performance.figure_time_memory(run(pd.concat([rows(), rows(n=256)], ignore_index=True)))
    assert f["label"] == "fig-perf-time-memory" and f["drawn_by"] is performance.plot_time_memory
    assert "against the number of inputs (log axis)" in f["caption"] and "Drawn by" not in f["caption"]
    assert "n = 256, 512 unit-norm Gaussian inputs in d = 64" in f["setting"] and "A100" in f["setting"]
    g = performance.figure_throughput(run(rows()))
    assert g["drawn_by"] is performance.plot_throughput and "against depth" not in g["caption"]
    assert "the runs of the time and memory figure above" in g["setting"]
