"""Chapter 05 rules (lib.chapters.non_constancy.rules): one rule for "decays at least as fast as m^(-1/2)" with
its thresholds at their boundaries, the flat rule, the rows each check judged, and the paper-vs-book table that
renders them without judging again."""
import pytest

from lib.chapters import non_constancy
from lib.chapters import non_constancy as NC
from chapter_fakes import non_constancy as F


def test_decay_rule_reads_the_bound_as_a_bound():
    assert [NC.decay_status(s) for s in (-0.5, -0.9, -2.0, -0.2, -0.1, 0.3)] == [
        "reproduced", "reproduced", "reproduced", "reproduced with caveat", "not reproduced", "not reproduced"]
    assert NC.VANISHING == NC.BOUND_EXPONENT + NC.SLOPE_NOISE


@pytest.mark.parametrize("eps", [0.01, 0.001])
def test_decay_rule_boundaries(eps):
    assert NC.decay_status(NC.VANISHING - eps) == "reproduced"
    assert NC.decay_status(NC.VANISHING) == "reproduced"
    assert NC.decay_status(NC.VANISHING + eps) == "reproduced with caveat"
    assert NC.decay_status(-NC.FLAT - eps) == "reproduced with caveat"
    assert NC.decay_status(-NC.FLAT + eps) == "not reproduced"
    assert NC.decay_status(-NC.FLAT) == "reproduced with caveat"  # "not reproduced" only above -FLAT


def test_steeper_note_is_wording_only():
    assert NC.steeper_note(NC.BOUND_EXPONENT - NC.SLOPE_NOISE - 0.01, "b").startswith(" Steeper than b^(-1/2)")
    assert NC.steeper_note(NC.BOUND_EXPONENT - NC.SLOPE_NOISE + 0.01) == ""
    assert NC.steeper_note(NC.BOUND_EXPONENT - NC.SLOPE_NOISE) == ""  # steeper *beyond* the slope noise


def test_hessian_rule_and_flat_rule():
    assert NC.hessian_slope_status(-0.5, converged=False) == "inconclusive"  # an underestimate, not a measurement
    assert NC.hessian_slope_status(-0.9, True) == "reproduced"
    assert NC.hessian_slope_status(NC.VANISHING + 0.01, True) == "reproduced with caveat"
    assert [NC.flat_status(s) for s in (0.05, -0.5, -0.2)] == ["reproduced", "not reproduced", "reproduced with caveat"]
    assert NC.flat_status(NC.FLAT - 0.01) == NC.flat_status(-NC.FLAT + 0.01) == "reproduced"
    assert NC.flat_status(NC.FLAT + 0.01) == NC.flat_status(-NC.FLAT - 0.01) == "reproduced with caveat"
    assert NC.flat_status(NC.VANISHING) == "not reproduced" and NC.flat_status(NC.VANISHING + 0.01) != "not reproduced"
    # "within FLAT of zero" is strict, on both sides
    assert NC.is_flat(NC.FLAT * 0.99) and NC.is_flat(-NC.FLAT * 0.99)
    assert not NC.is_flat(NC.FLAT) and not NC.is_flat(-NC.FLAT)
    assert NC.flat_status(NC.FLAT) == NC.flat_status(-NC.FLAT) == "reproduced with caveat"
    assert [NC.holds(s) for s in ("reproduced with caveat", "not reproduced", "not checked", "inconclusive")] == [
        True, False, None, None]


# ---- every check that reads an O(m^(-1/2)) reads it with the same rule, at the same boundaries

CHECKS = {
    "Remark 3.5": (lambda s: NC.check_linear_kernel(F.make_runs(lin_slope=s))),
    "Fig 2": (lambda s: NC.check_bottleneck(F.make_runs(b_slope=s))),
    "Thm 3.2": (lambda s: NC.check_hessian(F.make_hessian(lin_slope=s))),
    "Thm 3.3": (lambda s: NC.check_bottleneck_hessian(F.make_hessian(b_slope=s))),
}


@pytest.mark.parametrize("claim", CHECKS)
def test_one_decay_rule_for_every_check(claim):
    check = CHECKS[claim]
    assert check(-0.8).status == "reproduced"  # steeper than -1/2: Fig 2's -0.80 of the default build
    assert check(NC.VANISHING - 0.01).status == "reproduced"
    assert check(NC.VANISHING + 0.01).status == "reproduced with caveat"
    assert check(-NC.FLAT - 0.01).status == "reproduced with caveat"
    assert check(-NC.FLAT + 0.01).status == "not reproduced"
    c = check(NC.VANISHING + 0.01)
    assert c.caveat and c.rows[0]["rule"].startswith(NC.DECAY_RULE) and c.rows[0]["holds"] is True


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
