"""Chapter 04, :mod:`lib.chapters.infinite_depth.normrelu_family`: [AAK] Sec 7, NormReLU for every b and the paper's
lambda_b = 1.0507 from SELU's normalization."""
import math

import numpy as np
import pandas as pd
from hypothesis import given, settings, strategies as st
from matplotlib.figure import Figure

from lib.activations import gaussian_expectation, normrelu, normrelu_constants, selu_constants
from lib.chapters import infinite_depth as D
from lib.chapters.infinite_depth import normrelu_family as N

DOCUMENTED = dict(NORMRELU_QUAD_TOL=1e-9, PAPER_LAMBDA_DIGITS=4)
IN, OUT = 0.99, 1.01
TOL = DOCUMENTED["NORMRELU_QUAD_TOL"]
SELU_LAMBDA = 1.0507009873554805  # Klambauer et al.'s constant, for the test only (the chapter derives it)


def test_the_thresholds_are_the_documented_ones():
    for name, value in DOCUMENTED.items():
        assert getattr(D, name) == value, name
    assert D.NORMRELU_B_GRID[0] == -4.0 and D.NORMRELU_B_GRID[-1] == 3.0 and len(D.NORMRELU_B_GRID) == 36


def family(mean=0.0, second=1.0, lam=SELU_LAMBDA, lam_star=None):
    frame = pd.DataFrame(dict(b=[-1.0, 0.0, 1.0], c_b=0.1, lambda_b=1.2, mean=[0.0, mean, 0.0],
                              second=[1.0, second, 1.0]))
    return N.NormReluFamily(frame, 1.6733, lam, -1.59, 0.024, lam if lam_star is None else lam_star, [-1.0, 0.0, 1.0])


def status(**kw):
    return N.check_normrelu_family(family(**kw)).status


def test_holds_fails_and_every_threshold():
    assert status() == "reproduced"
    assert status(mean=0.4, second=0.5) == "not reproduced"  # plain ReLU's moments
    for sign in (1, -1):
        assert status(mean=sign * TOL * IN) == "reproduced"
        assert status(mean=sign * TOL * OUT) == "not reproduced"
        assert status(second=1 + sign * TOL * IN) == "reproduced"
        assert status(second=1 + sign * TOL * OUT) == "not reproduced"
        assert status(lam_star=SELU_LAMBDA + sign * TOL * IN) == "reproduced"
        assert status(lam_star=SELU_LAMBDA + sign * TOL * OUT) == "not reproduced"
        # the paper's four decimals: 1.0507 +- 5e-5
        half = 0.5 * 10.0 ** -DOCUMENTED["PAPER_LAMBDA_DIGITS"]
        assert status(lam=1.0507 + sign * half * IN) == "reproduced"
        assert status(lam=1.0507 + sign * half * OUT) == "not reproduced"
    c = N.check_normrelu_family(family())
    assert c.part == "every b, lambda_b = 1.0507" and len(c.rows) == 2


def test_selu_constants_and_the_paper_value():
    alpha, lam = selu_constants()
    assert abs(alpha - 1.6732632423543772) < 1e-12 and abs(lam - SELU_LAMBDA) < 1e-12
    nf = N.measure_normrelu_family(bs=(-2.0, 0.0, 2.0))
    assert N.check_normrelu_family(nf).status == "reproduced"
    assert abs(nf.b_star - normrelu().kinks[0]) < 1e-4  # the registry's NormReLU uses the same b
    assert abs(nf.lambda_star - lam) < 1e-12 and round(nf.lambda_star, 4) == 1.0507
    fig = N.figure_normrelu_family(nf)
    assert isinstance(fig["fig"], Figure) and list(fig["data"].b) == [-2.0, 0.0, 2.0]


@settings(max_examples=25, deadline=None)
@given(b=st.floats(-4.0, 3.0))
def test_every_b_is_normalized_by_quadrature(b):
    c, lam = normrelu_constants(b)
    f = lambda z: lam * (max(z, b) - c)  # noqa: E731
    assert abs(gaussian_expectation(f, (b,))) < 1e-10
    assert abs(gaussian_expectation(lambda z: f(z) ** 2, (b,)) - 1) < 1e-10


def test_lambda_b_increases_with_b():
    lam = np.array([normrelu_constants(b)[1] for b in np.linspace(-6, 3, 50)])
    assert (np.diff(lam) > 0).all() and 1 < lam[0] < 1.0001 and math.isclose(normrelu_constants(0.0)[1],
                                                                                1 / math.sqrt(0.5 - 1 / (2 * math.pi)))


def test_every_limit_at_equality_and_the_rows_judged(monkeypatch):
    c = N.check_normrelu_family(family())
    assert [r["holds"] for r in c.rows] == [True, True]
    assert [r["holds"] for r in N.check_normrelu_family(family(mean=TOL * OUT)).rows] == [False, True]
    assert [r["holds"] for r in N.check_normrelu_family(family(second=1 + TOL * OUT)).rows] == [False, True]
    assert [r["holds"] for r in N.check_normrelu_family(family(lam_star=SELU_LAMBDA + TOL * OUT)).rows] == [True, False]
    assert [r["holds"] for r in N.check_normrelu_family(family(lam=1.0507 + 1e-4)).rows] == [True, False]
    # each deviation equal to the tolerance (set to the measured deviation) still holds
    for kw, dev in ((dict(mean=1e-9), 1e-9), (dict(second=1 + 1e-9), (1 + 1e-9) - 1),
                    (dict(lam_star=SELU_LAMBDA + 1e-9), abs((SELU_LAMBDA + 1e-9) - SELU_LAMBDA))):
        monkeypatch.setattr(N, "NORMRELU_QUAD_TOL", dev)
        c = N.check_normrelu_family(family(**kw))
        assert c.status == "reproduced" and all(r["holds"] for r in c.rows), kw
    monkeypatch.undo()
    # SELU's lambda exactly half a unit of the last digit from the paper's (digits 0: 0.5 from 1.0)
    monkeypatch.setattr(N, "PAPER_LAMBDA_DIGITS", 0)
    monkeypatch.setattr(N, "AAK_NORMRELU_LAMBDA", 1.0)
    assert N.check_normrelu_family(family(lam=1.5)).status == "reproduced"
