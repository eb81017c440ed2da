"""Chapter 05 rules (lib.chapters.non_constancy.rules): one rule per claim, the rows each check judged, and the
paper-vs-book table that renders them without judging again."""
from lib.chapters import non_constancy
from chapter_fakes import non_constancy as F


def test_slope_rules():
    assert [non_constancy.slope_status(s) for s in (-0.5, -0.9, -0.1)] == [
        "reproduced", "reproduced with caveat", "not reproduced"]
    assert non_constancy.hessian_slope_status(-0.5, converged=False) == "not reproduced"
    assert non_constancy.hessian_slope_status(-0.72, True) == "reproduced with caveat"  # outside (-0.7, -0.35)
    assert [non_constancy.flat_status(s) for s in (0.05, -0.5, -0.2)] == [
        "reproduced", "not reproduced", "reproduced with caveat"]
    assert [non_constancy.holds(s) for s in ("reproduced with caveat", "not reproduced", "not checked")] == [
        True, False, None]


def test_table_renders_the_rows_the_checks_judged():
    runs, h = F.make_runs(), F.make_hessian()
    checks = [non_constancy.check_linear_kernel(runs), non_constancy.check_nonlinear_kernel(runs),
              non_constancy.check_bottleneck(runs), non_constancy.check_hessian(h),
              non_constancy.check_bottleneck_hessian(h), non_constancy.check_linear_model(runs)]  # the last judges none
    t = non_constancy.table_paper_vs_book(*checks)
    assert len(t) == 5 and set(t["paper"]) == {"-0.5", "0"} and set(t["holds"]) == {"yes"}
    s = non_constancy.width_slopes(non_constancy.kernel_change_by_width(runs), ["linear"])["linear"]
    row = t.loc[("[LZB] Remark 3.5", "kernel change, linear output, against m")]
    assert row["this book"].startswith(f"{s:.2f}") and "-0.3 or steeper" in row["rule"]
    # counterfactual: a linear-output kernel change that does not fall is judged "no" by the check itself
    flat = non_constancy.check_linear_kernel(F.make_runs(lin_slope=0.0))
    (r,) = flat.rows
    assert flat.status == "not reproduced" and r["holds"] is False and r["this book"].startswith(("0.00", "-0.00"))
    assert non_constancy.table_paper_vs_book(flat)["holds"].tolist() == ["no"]
