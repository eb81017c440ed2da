"""Chapter 04, :mod:`lib.chapters.infinite_depth.aak_mu`: [AAK] Def 3.1, Lemma C.2, App. C.4 (mu three ways).

Constructed studies fed to the real checks (holds, fails, vacuous premise, every threshold just inside and just
outside), and one real measurement on a small run.
"""
import math

import pandas as pd
import pytest

from lib.chapters import infinite_depth as D
from lib.chapters.infinite_depth import aak_mu as M

DOCUMENTED = dict(MU_ATOL=1e-9, MU_DUAL_ATOL=1e-6, MU_SIGMAS=5.0, MU_FLOOR=1e-9)
IN, OUT = 0.99, 1.01
RELU = 1 - math.pi / (2 * (math.pi - 1))


def test_the_thresholds_are_the_documented_ones():
    for name, value in DOCUMENTED.items():
        assert getattr(D, name) == value, name


def study(*rows, samples=1000):
    """rows: (activation, in_table, linear, closed form, quadrature, dual formula, mc, mc_se)."""
    cols = ["activation", "in_table", "linear", "closed_form", "quadrature", "dual_formula", "mc", "mc_se"]
    return M.MuStudy(pd.DataFrame([dict(zip(cols, r)) for r in rows], columns=cols), samples, 0)


def row(name="relu", closed=RELU, quad=RELU, dual=RELU, mc=RELU, se=1e-3, in_table=True, linear=False):
    return (name, in_table, linear, closed, quad, dual, mc, se)


def test_mu_table_holds_fails_thresholds_and_vacuous():
    assert M.check_mu_table(study(row())).status == "reproduced"
    c = M.check_mu_table(study(row(), row("step", 1 - 2 / math.pi, 1 - 2 / math.pi, 1 - 2 / math.pi)))
    assert c.status == "reproduced" and len(c.rows) == 2 and all(r["holds"] for r in c.rows)
    # a misprinted closed form, or a dual formula that disagrees, fails
    assert M.check_mu_table(study(row(closed=RELU + 1e-3))).status == "not reproduced"
    assert M.check_mu_table(study(row(dual=RELU * 1.1))).status == "not reproduced"
    # thresholds
    assert M.check_mu_table(study(row(quad=RELU + IN * M.MU_ATOL))).status == "reproduced"
    assert M.check_mu_table(study(row(quad=RELU + OUT * M.MU_ATOL, dual=RELU + OUT * M.MU_ATOL))).status == \
        "not reproduced"
    assert M.check_mu_table(study(row(dual=RELU + IN * M.MU_DUAL_ATOL))).status == "reproduced"
    assert M.check_mu_table(study(row(dual=RELU + OUT * M.MU_DUAL_ATOL))).status == "not reproduced"
    # only the table's rows are judged; without any: not checked
    assert M.check_mu_table(study(row(closed=0.5, in_table=False), row())).status == "reproduced"
    nc = M.check_mu_table(study(row(closed=math.nan, in_table=False)))
    assert nc.status == "not checked" and "no row of the table" in nc.caveat


def test_def31_monte_carlo_band():
    se = 2e-3
    assert M.check_def31(study(row(mc=RELU + IN * M.MU_SIGMAS * se, se=se))).status == "reproduced"
    bad = M.check_def31(study(row(mc=RELU + OUT * M.MU_SIGMAS * se, se=se)))
    assert bad.status == "not reproduced" and "se)" in bad.measured
    # every activation is judged
    assert M.check_def31(study(row(), row("tanh", mc=0.2, quad=0.07, in_table=False))).status == "not reproduced"
    assert M.check_def31(study()).status == "not checked"


def test_lemma_c2_range_floor_and_linear():
    assert M.check_lemma_c2(study(row(), row("hermite2", 1.0, 1.0, 1.0, 1.0))).status == "reproduced"
    # a non-linear activation with mu at the floor (numerically linear) or above 1 fails
    assert M.check_lemma_c2(study(row(quad=OUT * M.MU_FLOOR))).status == "reproduced"
    assert M.check_lemma_c2(study(row(quad=IN * M.MU_FLOOR))).status == "not reproduced"
    assert M.check_lemma_c2(study(row(quad=1 + IN * M.MU_ATOL))).status == "reproduced"
    over = M.check_lemma_c2(study(row(quad=1 + OUT * M.MU_ATOL)))
    assert over.status == "not reproduced" and "outside (0, 1]: relu" in over.measured
    # the linear activation is reported, not judged; alone it leaves nothing to check
    lin = row("linear", 0.0, 0.0, 0.0, 0.0, linear=True)
    assert "the identity has mu = below 1e-12" in M.check_lemma_c2(study(row(), lin)).measured
    assert M.check_lemma_c2(study(lin)).status == "not checked"


def test_measure_mu_on_a_small_run():
    st = M.measure_mu(D.SPEC.config(aak_activations=["norm_tanh", "relu"]), samples=200_000)
    f = st.frame.set_index("activation")
    assert list(f.index) == [*M.MU_TABLE, "norm_tanh"]
    assert f.loc["relu", "quadrature"] == pytest.approx(RELU, abs=1e-12)
    assert f.loc["norm_tanh", "quadrature"] == pytest.approx(f.loc["norm_tanh", "dual_formula"], abs=1e-6)
    for check in (M.check_mu_table, M.check_def31, M.check_lemma_c2):
        assert check(st).status == "reproduced", check.__name__
    assert list(M.table_mu(st).columns) == ["activation", "App. C.4", "quadrature", "dual formula", "Monte Carlo"]
