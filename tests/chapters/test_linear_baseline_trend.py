"""The width-trend rule (lib.finite.width_trend) on chapter 01's sweeps: a vanishing deviation is reproduced, a
lasting offset is not, too few widths or seeds are inconclusive; every threshold of the rule at its boundary;
the shared depth-0 verdict."""
import numpy as np
import pandas as pd
import pytest

from lib.chapters.linear_baseline.depth_zero import depth_zero_check
from lib.finite import width_trend as T
from lib.validation import InputError
from chapter_fakes import linear_baseline as F


def test_width_trend_zero_limit_reproduced_offset_not_reproduced_one_width_inconclusive():
    def deep(df):
        return df[df.depth == 1]
    assert T.width_trend(deep(F.sweep()), "norm_dev").status == "reproduced"
    t = T.width_trend(deep(F.sweep(offset=0.3)), "norm_dev")
    assert t.status == "not reproduced" and t.limit > 3 * t.limit_se
    one = T.width_trend(deep(F.sweep(widths=[256])), "norm_dev")
    assert one.status == "inconclusive" and "one width" in one.caveat
    few = T.width_trend(deep(F.sweep(widths=[64, 256], seeds=1)), "norm_dev")  # no scatter
    assert few.status == "inconclusive" and few.limit_se is None and few.caveat


def test_width_trend_describes_its_fit():
    t = T.width_trend(F.sweep()[lambda d: d.depth == 1], "norm_dev")
    assert "fit a + b/sqrt(m)" in t.describe() and f"{t.slope:.2f} (1/sqrt(m) predicts -0.5)" in t.describe()
    one = T.width_trend(F.sweep(widths=[256])[lambda d: d.depth == 1], "norm_dev")
    assert one.describe().endswith("at the only width run")
    b = T.width_trend(F.sweep()[lambda d: d.depth == 1], "norm_dev", T.BIAS)
    assert "fit a + c/m" in b.describe() and "1/m predicts -1" in b.describe()


def _frame(limit, b, noise, curve=T.FLUCTUATION, widths=(64, 256, 1024)):
    """Per-seed values limit + b shape(m) +- noise (two seeds): the fitted limit is ``limit`` exactly."""
    return pd.DataFrame([dict(width=m, seed=s, dev=limit + b * float(curve.shape(np.array([float(m)]))[0]) + sign * noise)
                         for m in widths for s, sign in enumerate((1, -1))])


def test_width_trend_fits_the_curve_it_is_given():
    t = T.width_trend(_frame(0.0, 2.0, 1e-3, T.BIAS), "dev", T.BIAS)
    assert abs(t.limit) < 1e-12 and t.status == "reproduced" and abs(t.slope + 0.97) < 0.05
    # the same 1/m deviation read with the 1/sqrt(m) curve extrapolates below zero: not its curve
    wrong = T.width_trend(_frame(0.0, 2.0, 1e-3, T.BIAS), "dev")
    assert wrong.limit < -3 * wrong.limit_se and wrong.status == "reproduced with caveat"
    assert "does not describe the measurements" in wrong.caveat
    by = T.bai_yin(8)
    assert by.shape(np.array([32.0]))[0] == pytest.approx(2 * 0.5 + 0.25)
    assert T.width_trend(_frame(0.0, 1.0, 1e-3, by), "dev", by).limit == pytest.approx(0, abs=1e-12)


def test_a_deviation_that_is_zero_everywhere_is_reproduced():
    t = T.width_trend(_frame(0.0, 0.0, 0.0), "dev", T.BIAS)
    assert (t.status, t.limit, t.slope, t.at_max, t.curve) == ("reproduced", 0.0, None, 0.0, T.BIAS.name)


def test_too_few_values_are_inconclusive_and_three_suffice():
    one = T.width_trend(_frame(0.0, 1.0, 0.0, T.BIAS, widths=(256,)), "dev", T.BIAS)
    assert (one.status, one.limit, one.curve) == ("inconclusive", None, T.BIAS.name)
    two = T.width_trend(_frame(0.5, 8.0, 0.0, T.BIAS, widths=(64, 256))[lambda d: d.seed == 0], "dev", T.BIAS)
    assert two.status == "inconclusive" and two.limit_se is None and two.curve == T.BIAS.name
    assert two.limit == pytest.approx(0.5) and two.at_max == pytest.approx(0.5 + 8 / 256)
    assert two.slope == pytest.approx(np.log((0.5 + 8 / 256) / (0.5 + 8 / 64)) / np.log(4))
    three = T.width_trend(_frame(0.0, 1.0, 1e-3)[lambda d: d.seed == 0], "dev")  # one degree of freedom
    assert three.status != "inconclusive" and three.limit_se is not None


def test_signed_deviations_fail_on_either_side():
    neg = _frame(-1.0, 0.5, 1e-3)
    assert T.width_trend(neg, "dev", signed=True).status == "not reproduced"
    t = T.width_trend(neg, "dev")  # a deviation that cannot be negative: the curve is wrong, not the statement
    assert t.status == "reproduced with caveat" and "significantly below zero" in t.caveat


# ---- the thresholds of limit_status, each just inside and just outside


def test_limit_sigma_boundary():
    se, at_max, steep = 1.0, 1.0, -0.5  # a limit as large as the deviation at m_max: substantial
    assert T.limit_status(T.LIMIT_SIGMA * 1.01, se, at_max, steep)[0] == "not reproduced"
    inside = T.limit_status(T.LIMIT_SIGMA * 0.99, se, at_max, steep)
    assert inside[0] == "reproduced"  # not significant, and the deviation falls


def test_limit_fraction_boundary():
    se, a, steep = 1e-6, 1.0, -0.5  # significant at any size
    assert T.limit_status(a, se, a / (T.LIMIT_FRACTION * 1.01), steep)[0] == "not reproduced"
    status, caveat = T.limit_status(a, se, a / (T.LIMIT_FRACTION * 0.99), steep)
    assert status == "reproduced with caveat" and "small non-zero offset" in caveat
    # a limit is not reproduced only when it is both significant and substantial
    assert T.limit_status(a, 1.0, a / (T.LIMIT_FRACTION * 1.01), steep)[0] == "reproduced"


def test_negligible_fraction_boundary():
    se, a, steep = 1e-6, 1.0, -0.5
    assert T.limit_status(a, se, a / (T.NEGLIGIBLE_FRACTION * 0.99), steep)[0] == "reproduced"
    assert T.limit_status(a, se, a / (T.NEGLIGIBLE_FRACTION * 1.01), steep)[0] == "reproduced with caveat"
    assert T.limit_status(-a, se, a / (T.NEGLIGIBLE_FRACTION * 0.99), steep)[0] == "reproduced"  # |a| both sides


def test_slope_vanishing_boundary():
    assert T.limit_status(0.0, 1.0, 1.0, T.SLOPE_VANISHING - 0.01)[0] == "reproduced"
    status, caveat = T.limit_status(0.0, 1.0, 1.0, T.SLOPE_VANISHING + 0.01)
    assert status == "reproduced with caveat" and "more slowly" in caveat
    assert T.limit_status(0.0, 1.0, 1.0, None)[0] == "reproduced with caveat"  # no slope: nothing shown to fall
    assert T.limit_status(0.0, 1.0, 1.0, T.SLOPE_VANISHING)[0] == "reproduced"  # "at least this fast" includes it


def test_sign_of_the_limit():
    se, at_max, steep = 1e-6, 1.0, -0.5
    assert T.limit_status(-1.0, se, at_max, steep)[0] == "reproduced with caveat"  # unsigned unless said
    assert T.limit_status(-1.0, se, at_max, steep, signed=True)[0] == "not reproduced"
    assert T.limit_status(-1.0, se, at_max, steep, signed=False)[0] == "reproduced with caveat"
    assert T.limit_status(1.0, se, -at_max, steep, signed=True)[0] == "not reproduced"  # |dev(m_max)| counts


def test_the_caveat_names_only_what_applies():
    assert T.limit_status(1.0, 1e-6, 1.0, -0.5) == ("not reproduced", "")
    assert T.limit_status(0.0, 1.0, 1.0, -0.5) == ("reproduced", "")
    slow = "the deviation falls more slowly than the log-log slope -0.3 at the widths run"
    assert T.limit_status(1.0, 1.0, 1.0, -0.1) == ("reproduced with caveat", slow)  # a limit within noise: no offset
    # a significant limit of exactly a quarter of the deviation is negligible: no offset named either
    assert T.limit_status(1.0, 1e-6, 1.0 / T.NEGLIGIBLE_FRACTION, -0.1) == ("reproduced with caveat", slow)


def test_each_threshold_at_its_value_exactly():
    """Significant and substantial are strict (``>``), negligible includes its bound (``<=``); the products below
    are exact in floating point."""
    steep = -0.5
    assert T.limit_status(T.LIMIT_SIGMA * 1.0, 1.0, 1.0, steep)[0] == "reproduced"  # |a| = 3 se: not significant
    assert T.limit_status(1.0, 1e-6, 1.0 / T.LIMIT_FRACTION, steep)[0] == "reproduced with caveat"  # |a| = 1/2 dev
    assert T.limit_status(1.0, 1e-6, 1.0 / T.NEGLIGIBLE_FRACTION, steep)[0] == "reproduced"  # |a| = dev / 4


def test_the_rule_reads_through_width_trend_at_the_sigma_boundary():
    se = T.width_trend(_frame(0.0, 0.0, 0.01), "dev").limit_se
    assert T.width_trend(_frame(T.LIMIT_SIGMA * se * 1.01, 0.0, 0.01), "dev").status == "not reproduced"
    assert T.width_trend(_frame(T.LIMIT_SIGMA * se * 0.99, 0.0, 0.01), "dev").status == "reproduced with caveat"


def test_depth_zero_check_is_not_checked_and_says_why():
    assert depth_zero_check("[LH] Cor 2.4", "", "why").measured == "Only depth 0 was run."
    c = depth_zero_check("[LH] Cor 2.4", "conditioning", "at depth 0 the NTK is G exactly", " More.")
    assert (c.claim_id, c.part, c.status) == ("[LH] Cor 2.4", "conditioning", "not checked")
    assert c.measured == "Only depth 0 was run. More."
    assert c.caveat == "not testable on this data: at depth 0 the NTK is G exactly"


def test_the_rule_refuses_bad_input_naming_it():
    with pytest.raises(InputError, match="per_seed"):
        T.width_trend(F.sweep(), "no_such_column")
    with pytest.raises(InputError, match="se"):
        T.limit_status(0.1, -1.0, 0.5, -0.5)
    with pytest.raises(InputError, match="d must be"):
        T.bai_yin(0)
