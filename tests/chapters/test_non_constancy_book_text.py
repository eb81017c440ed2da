"""Chapter 05 book text (lib.chapters.non_constancy.book_text): glued values, the paper-vs-book table, the
verdict paragraphs."""
import json
from types import SimpleNamespace

from lib.chapters import non_constancy as NC
from chapter_fakes import non_constancy as F


def test_glue_values_show_values_not_parameter_names():
    cfg = SimpleNamespace(profile="default", widths=[32, 128], bottleneck_width=1024, bottlenecks=[4, 16], seeds=2,
                          n_samples=20, d=10, k=3, activation="tanh", max_steps=4000, rel_tol=1e-3, lr_scale=1.8,
                          track_every=10, n_hessian=4)
    g = NC.glue_values(cfg)
    assert {f"fig5_{k}" for k in range(1, 7)} <= set(g)
    assert "m = 1,024, b = 4, 16" in g["fig5_2"] and "n = 20" in g["fig5_1"] and "profile default" in g["fig5_1"]
    assert g["lr_scale"] == "1.8" and not any("lr_scale" in v for v in g.values())


def test_table_paper_vs_book_puts_the_fitted_slopes_beside_the_papers():
    row = "[LZB] Remark 3.5: kernel change, linear output, against m"
    t = NC.table_paper_vs_book(F.make_runs(), F.make_hessian())
    assert (t["paper"].isin(["-0.5", "0"])).all() and len(t) == 5
    s = NC.width_slopes(NC.kernel_change_by_width(F.make_runs()), ["linear"])["linear"]
    assert t.loc[row, "this book"].startswith(f"{s:.2f}")
    # counterfactual: a linear-output kernel change that does not fall shows a flat slope beside the paper's -0.5
    flat = NC.table_paper_vs_book(F.make_runs(lin_slope=0.0), F.make_hessian())
    assert flat.loc[row, "this book"].startswith(("0.00", "-0.00"))


def test_record_verdicts_records_every_check_under_its_section(tmp_path, monkeypatch):
    monkeypatch.setenv("NTK_RESULTS_DIR", str(tmp_path))
    runs = F.make_runs()
    text = NC.record_verdicts("05_non_constancy", "Kernel change against width", "smoke",
                              NC.check_linear_kernel(runs), NC.check_nonlinear_kernel(runs))
    paragraphs = text.split("\n\n")
    assert len(paragraphs) == 2 and "[LZB] Remark 3.5" in paragraphs[0] and "[LZB] Fig 1" in paragraphs[1]
    rows = json.loads((tmp_path / "05_non_constancy.json").read_text())
    assert {r["claim_id"] for r in rows.values()} == {"[LZB] Remark 3.5", "[LZB] Fig 1"}
    assert {r["section"] for r in rows.values()} == {"Kernel change against width"}
    assert NC.record_verdicts("05_non_constancy", "Bottleneck", "smoke") == ""  # no check, no paragraph
