"""Chapter 01 width-trend rule (lib.chapters.linear_baseline.trend): a vanishing deviation is reproduced, a
lasting offset is not, too few widths or seeds are inconclusive; the shared depth-0 verdict."""

from lib.chapters.linear_baseline import trend as T
from chapter_fakes import linear_baseline as F


def test_width_trend_zero_limit_reproduced_offset_not_reproduced_one_width_inconclusive():
    def deep(df):
        return df[df.depth == 1]
    assert T.width_trend(deep(F.sweep()), "norm_dev").status == "reproduced"
    t = T.width_trend(deep(F.sweep(offset=0.3)), "norm_dev")
    assert t.status == "not reproduced" and t.limit > 3 * t.limit_se
    assert T.width_trend(deep(F.sweep(widths=[256])), "norm_dev").status == "inconclusive"
    assert T.width_trend(deep(F.sweep(widths=[64, 256], seeds=1)), "norm_dev").status == "inconclusive"  # no scatter


def test_width_trend_describes_its_fit():
    t = T.width_trend(F.sweep()[lambda d: d.depth == 1], "norm_dev")
    assert "fit a + b/sqrt(m)" in t.describe() and f"{t.slope:.2f}" in t.describe()
    one = T.width_trend(F.sweep(widths=[256])[lambda d: d.depth == 1], "norm_dev")
    assert one.describe().endswith("at the only width run")


def test_depth_zero_check_is_not_checked_and_says_why():
    c = T.depth_zero_check("[LH] Cor 2.4", "conditioning", "at depth 0 the NTK is G exactly", " More.")
    assert (c.claim_id, c.part, c.status) == ("[LH] Cor 2.4", "conditioning", "not checked")
    assert c.measured == "Only depth 0 was run. More."
    assert c.caveat == "not testable on this data: at depth 0 the NTK is G exactly"
