"""Chapter 01 depth factors (lib.chapters.linear_baseline.factors): [LH] Cor 2.4 (K = (L+1)^2 G) and Thm 2.3
(gradient norm), reproduced if the factor were (L+1)^2 and not reproduced for a real linear network; Figure 1.3."""

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.figure import Figure

from lib.chapters.linear_baseline import factors as FA, measure as M
from chapter_fakes import linear_baseline as F


def test_kernel_factor_reproduced_if_the_factor_were_L_plus_1_squared():
    c = FA.check_kernel_factor(F.sweep(factor=lambda L: (L + 1.0) ** 2))
    assert (c.part, c.status) == ("K = (L+1)^2 G", "reproduced") and "p = 2.00" in c.measured
    assert c.measured.endswith("(the paper's statement: 2).")  # no erratum note when the paper's exponent holds
    (row,) = c.rows
    assert row["holds"] is True and row["paper"] == "2" and row["this book"] == "2.00 (m = 1024)"


def test_exponent_rule_at_its_bounds_exactly():
    """|p - 2| < EXPONENT_TOL reproduced, >= 2 EXPONENT_TOL not reproduced (2 +- 0.25, 2 +- 0.5 are exact floats)."""
    tol = FA.EXPONENT_TOL
    assert [FA.exponent_status(p) for p in (2 + tol, 2 - tol, 2 + 2 * tol, 2 - 2 * tol)] == [
        "reproduced with caveat", "reproduced with caveat", "not reproduced", "not reproduced"]
    assert FA.exponent_status(2.0) == "reproduced" and FA.exponent_status(1.0) == "not reproduced"


def test_the_exponent_is_fitted_on_depth_1_too():
    """With depths 0 and 1 only, the exponent is fitted on L = 1 (L = 0 says nothing: every factor is 1 there)."""
    c = FA.check_kernel_factor(F.sweep(factor=lambda L: (L + 1.0) ** 2)[lambda d: d.depth <= 1])
    assert c.status == "reproduced" and "(L=1)" in c.measured
    g = FA.check_gradient_norm(F.factors(lambda L: (L + 1.0) ** 2)[lambda d: d.index <= 1])
    assert g.status == "reproduced" and "At width 256" in g.measured


def test_kernel_factor_not_reproduced_for_a_real_linear_network():
    c = FA.check_kernel_factor(F.real_sweep("linear"))
    assert c.status == "not reproduced" and "matches L+1" in c.measured
    assert FA.check_kernel_factor(F.sweep(factor=lambda L: (L + 1.0) ** 1.6)).status == "reproduced with caveat"
    assert FA.check_kernel_factor(F.sweep()[lambda d: d.depth == 0]).status == "not checked"


def test_gradient_norm_reproduced_if_the_square_is_L_plus_1_squared():
    assert FA.check_gradient_norm(F.factors(lambda L: (L + 1.0) ** 2)).status == "reproduced"


def test_gradient_norm_not_reproduced_for_a_real_linear_network():
    c = FA.check_gradient_norm(M.gradient_norm_factors(F.real_sweep("linear")))
    assert (c.claim_id, c.part, c.status) == ("[LH] Thm 2.3", "gradient norm", "not reproduced")
    assert "matches L+1" in c.measured
    c0 = FA.check_gradient_norm(F.factors(lambda L: L + 1.0)[lambda d: d.index == 0])
    assert (c0.part, c0.status) == ("gradient norm", "not checked")


def test_plot_gradient_norm_returns_one_axis():
    fig = FA.plot_gradient_norm(M.gradient_norm_factors(F.real_sweep("linear")))
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    plt.close(fig)


def test_kernel_factor_is_read_at_the_largest_width():
    """The factor (L+1)^2 at the largest width and L+1 below it: the check judges the largest width only."""
    df = F.sweep(factor=lambda L: (L + 1.0) ** 2)
    narrow = df.width < df.width.max()
    df.loc[narrow, "ntk_factor"] = df.loc[narrow, "depth"] + 1.0
    c = FA.check_kernel_factor(df)
    assert c.status == "reproduced" and f"At width {df.width.max()}" in c.measured
    flipped = df.assign(ntk_factor=np.where(narrow, (df.depth + 1.0) ** 2, df.depth + 1.0))
    assert FA.check_kernel_factor(flipped).status == "not reproduced"


@pytest.mark.parametrize("sign", [1, -1])
def test_exponent_tolerance_boundaries(sign):
    """|p - 2| < EXPONENT_TOL reproduced, >= 2 EXPONENT_TOL not reproduced, caveat between; on both sides of 2."""
    def status(off):
        return FA.check_kernel_factor(F.sweep(factor=lambda L: (L + 1.0) ** (2 + sign * off))).status
    assert status(FA.EXPONENT_TOL * 0.99) == "reproduced"
    assert status(FA.EXPONENT_TOL * 1.01) == "reproduced with caveat"
    assert status(2 * FA.EXPONENT_TOL * 0.99) == "reproduced with caveat"
    assert status(2 * FA.EXPONENT_TOL * 1.01) == "not reproduced"
    g = FA.check_gradient_norm(F.factors(lambda L: (L + 1.0) ** (2 + sign * FA.EXPONENT_TOL * 1.01)))
    assert g.status == "reproduced with caveat" and g.rows[0]["holds"] is False
    assert FA.check_gradient_norm(F.factors(lambda L: (L + 1.0) ** 2)).rows[0]["holds"] is True


def test_an_exponent_of_one_confirms_the_gradient_norm_erratum_and_no_other_does():
    import pandas as pd
    from lib.book.claims import GRADIENT_NORM_ERRATUM
    from lib.chapters.linear_baseline.factors import EXPONENT_TOL, exponent_check
    L = pd.Index([1, 2, 4, 8], name="depth")

    def check(p):
        return exponent_check("[LH] Thm 2.3", "gradient norm", pd.Series((L + 1.0) ** p, index=L), "f", 512, "s")

    for p, status, erratum in ((1.0, "not reproduced", GRADIENT_NORM_ERRATUM),
                               (1 + 0.99 * EXPONENT_TOL, "not reproduced", GRADIENT_NORM_ERRATUM),
                               (1 - 0.99 * EXPONENT_TOL, "not reproduced", GRADIENT_NORM_ERRATUM),
                               (1 + 1.01 * EXPONENT_TOL, "not reproduced", ""),
                               (3.0, "not reproduced", ""), (2.0, "reproduced", "")):
        c = check(p)
        assert (c.status, c.erratum) == (status, erratum), p
