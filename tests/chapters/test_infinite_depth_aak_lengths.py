"""Chapter 04, :mod:`lib.chapters.infinite_depth.aak_length_map` and :mod:`~lib.chapters.infinite_depth.aak_lengths`:
[AAK] Thm D.1, App. D.4, Lemma D.6, Thm I.1.

Constructed results fed to the real checks (holds, fails, caveat, inconclusive, vacuous premises, every threshold
just inside and just outside), and small real measurements, with their counterfactuals.
"""
import math

import numpy as np
import pandas as pd
import pytest

from lib.chapters import infinite_depth as D
from lib.chapters.infinite_depth import aak_length_map as M
from lib.chapters.infinite_depth import aak_lengths as A

DOCUMENTED = dict(RATIO_FLOOR=1e-6, GAMMA_TOL=1e-6, D1_TOL=1e-6, D4_AWAY=2.0, D6_ATOL=1e-10, I1_MIN_RATIO=0.8)
IN, OUT = 0.99, 1.01
Q0 = (0.5, 2.0)


def test_the_thresholds_are_the_documented_ones():
    for name, value in DOCUMENTED.items():
        assert getattr(D, name) == value, name


def premises(*names, outside=()):
    """A premise table: every name meets Thm D.1's premises except those in ``outside`` (not twice differentiable)."""
    return pd.DataFrame([dict(activation=a, s0=0.0, min_slope=0.0, concavity=0.0, convexity=0.0,
                              jump1=0.9 if a in outside else 0.0, jump2=0.0, zero_at_0=True, nondecreasing=True,
                              convex_concave=True, twice_differentiable=a not in outside, premise=a not in outside)
                         for a in names])


def maps(*acts, depth=10, outside=()):
    """acts: (name, role, per-layer factor g on q - 1, or a callable (q0, l) -> q)."""
    rows = []
    for name, role, g in acts:
        for q0 in Q0:
            for l in range(depth + 1):
                q = g(q0, l) if callable(g) else 1 + (q0 - 1) * g ** l
                rows.append(dict(activation=name, role=role, q0=q0, depth=l, q=q))
    listed = [a for a, role, _ in acts if role == M.D4_ROLE_LIST]
    return M.LengthMaps(pd.DataFrame(rows), premises(*listed, outside=outside), Q0, depth)


L, S = M.D4_ROLE_LIST, M.D4_ROLE_SHIFT


def test_d1_premises_are_measured():
    p = M.d1_premises(("relu", "leaky_relu", "selu", "tanh", "arctan", "sigmoid_centred", "shifted_relu", "relu2",
                       "gelu")).set_index("activation")
    assert list(p.index[p.premise]) == ["tanh", "arctan", "sigmoid_centred"]
    assert not p.loc[["relu", "leaky_relu", "selu"]].twice_differentiable.any()          # a kink of s' at 0
    assert p.loc[["relu", "leaky_relu", "selu"]].convex_concave.all()                   # but convex-concave, 0 at 0
    assert p.loc["leaky_relu"].jump1 == pytest.approx(1 - 0.1) and p.loc["selu"].jump1 > 0.7
    assert not p.loc["shifted_relu"].convex_concave             # s' steps up at 0.1 > 0: not concave on [0, inf)
    assert not p.loc["relu2"].twice_differentiable and p.loc["relu2"].jump2 == pytest.approx(2, rel=1e-3)
    assert not p.loc["gelu"].nondecreasing and not p.loc["gelu"].convex_concave
    assert (p.loc[["tanh", "arctan", "sigmoid_centred"], ["jump1", "jump2"]] < IN * M.PREMISE_TOL).all().all()


def test_length_map_judges_the_activations_that_meet_the_premises():
    fast = ("tanh", L, 0.1)
    assert M.check_length_map(maps(fast)).status == "reproduced"
    # a length moved away from 1, or kept (gamma = 1: no convergence, which Remark D.2's gamma < 1 excludes)
    assert M.check_length_map(maps(fast, ("arctan", L, 1 + OUT * M.GAMMA_TOL))).status == "not reproduced"
    assert M.check_length_map(maps(fast, ("arctan", L, 1 + IN * M.GAMMA_TOL))).status == "not reproduced"
    assert M.check_length_map(maps(fast, ("arctan", L, 1 - IN * M.GAMMA_TOL))).status == "not reproduced"
    # contracting just beyond GAMMA_TOL below 1, not at the fixed point yet: deeper needed
    near = M.check_length_map(maps(fast, ("arctan", L, 1 - OUT * M.GAMMA_TOL)))
    assert near.status == "inconclusive" and "deeper needed" in near.caveat
    slow = M.check_length_map(maps(fast, ("arctan", L, 0.5), depth=10))
    assert slow.status == "inconclusive" and "arctan still converge" in slow.caveat
    # the final deviation just inside / outside D1_TOL
    at = lambda dev: (lambda q0, l: 1 + (q0 - 1) * (0.5 ** l if l < 10 else dev / 1.0))  # noqa: E731
    assert M.check_length_map(maps(fast, ("s", L, at(IN * M.D1_TOL)))).status == "reproduced"
    assert M.check_length_map(maps(fast, ("s", L, at(OUT * M.D1_TOL)))).status == "inconclusive"
    # deviations at or below RATIO_FLOOR enter no ratio: a rounding-level wiggle is not a failure
    def tail(dev):
        return lambda q0, l: 1 + (q0 - 1) * 0.1 ** l if l < 7 else 1 + dev(l)
    wiggle = tail(lambda l: IN * M.RATIO_FLOOR * (1.0 if l % 2 else 0.5))   # ratio 2 from a denominator at the floor
    assert M.check_length_map(maps(fast, ("w", L, wiggle))).status == "reproduced"
    grow = tail(lambda l: OUT * M.RATIO_FLOOR * 1.01 ** (l - 7))            # ratio 1.01 above the floor
    assert M.check_length_map(maps(fast, ("w", L, grow))).status == "not reproduced"
    # every start already at the fixed point: no ratio, nothing moved
    assert M.check_length_map(maps(fast, ("flat", L, lambda q0, l: 1.0))).status == "reproduced"


def test_length_map_outside_the_premises_is_reported_never_judged():
    # leaky ReLU keeps every length, but it is not twice differentiable: outside the theorem, not a failure
    c = M.check_length_map(maps(("tanh", L, 0.1), ("leaky_relu", L, 1.0), outside=("leaky_relu",)))
    assert c.status == "reproduced" and "Outside the theorem: leaky_relu: not twice differentiable" in c.measured
    assert "leaky_relu" not in c.measured.split("Outside")[0]
    none = M.check_length_map(maps(("leaky_relu", L, 1.0), ("relu", L, 1.0), outside=("leaky_relu", "relu")))
    assert none.status == "not checked" and none.caveat.startswith("outside the theorem")
    assert M.check_length_map(maps(("shifted_relu", S, 2.0))).status == "not checked"


def test_d4_list_rule():
    listed = [("tanh", L, 0.1), ("selu", L, 0.2)]
    assert M.check_d4_list(maps(*listed)).status == "reproduced"
    kept = M.check_d4_list(maps(*listed, ("leaky_relu", L, 1.0), outside=("leaky_relu",)))
    assert kept.status == "not reproduced" and "Note on the paper: leaky_relu is on the list" in kept.measured
    assert [r["holds"] for r in kept.rows] == [True, True, False]
    # the list is judged whatever the premises of Thm D.1: an identity map fails it just inside GAMMA_TOL of 1
    assert M.check_d4_list(maps(*listed, ("relu", L, 1 + IN * M.GAMMA_TOL))).status == "not reproduced"
    away = M.check_d4_list(maps(*listed, ("x", L, 1 + OUT * M.GAMMA_TOL)))
    assert away.status == "not reproduced" and "Note on the paper" not in away.measured
    slow = M.check_d4_list(maps(*listed, ("x", L, 1 - OUT * M.GAMMA_TOL)))
    assert slow.status == "inconclusive" and "deeper needed" in slow.caveat
    assert M.check_d4_list(maps(("shifted_relu", S, 2.0))).status == "not checked"


def test_shifted_relu_counterexample_rule():
    assert M.check_shifted_relu(maps(("shifted_relu", S, 1.2))).status == "reproduced"
    # a start whose deviation grew by just under / over D4_AWAY at the deepest layer
    g_in, g_out = (IN * M.D4_AWAY) ** 0.1, (OUT * M.D4_AWAY) ** 0.1
    assert M.check_shifted_relu(maps(("s", S, g_in))).status == "inconclusive"
    assert M.check_shifted_relu(maps(("s", S, g_out))).status == "reproduced"
    # a collapse out of the range counts as moved away
    gone = lambda q0, l: math.nan if l > 3 else q0 * 0.1 ** l  # noqa: E731
    c = M.check_shifted_relu(maps(("s", S, gone)))
    assert c.status == "reproduced" and "left [1e-08, 10000]" in c.measured
    # the map converges after all: no counterexample
    assert M.check_shifted_relu(maps(("s", S, 0.1))).status == "not reproduced"
    assert M.check_shifted_relu(maps(("tanh", L, 0.1))).status == "not checked"


def test_length_maps_real():
    lm = M.measure_length_maps(D.SPEC.config(aak_length_depth=60))
    assert set(lm.frame.activation) == {*M.D4_LIST, M.D4_ACTIVATION}
    c = M.check_length_map(lm)
    assert c.status == "reproduced", c.measured
    assert "Activations meeting the premises: sigmoid_centred, tanh, arctan" in c.measured
    for a in ("relu", "leaky_relu", "selu"):
        assert f"{a}: not twice differentiable" in c.measured
    lst = M.check_d4_list(lm)
    assert lst.status == "not reproduced" and "Note on the paper: relu, leaky_relu are on the list" in lst.measured
    assert M.check_shifted_relu(lm).status == "reproduced"


def odd(excess_odd=0.0, excess_ctrl=0.3, odd_names=("tanh",)):
    rho = np.array([-0.5, 0.0, 0.5])
    rows = [dict(activation=a, odd=True, q1=0.25, q2=4.0, rho=r, rho_next=r * 0.5 + (excess_odd if r == 0.5 else 0))
            for a in odd_names for r in rho]
    rows += [dict(activation="norm_relu", odd=False, q1=0.25, q2=4.0, rho=r, rho_next=abs(r) + excess_ctrl)
             for r in rho]
    return A.OddCorrelations(pd.DataFrame(rows))


def test_odd_correlations_rule():
    assert A.check_odd_correlations(odd()).status == "reproduced"
    # |rho'| = 0.25 + excess against |rho| = 0.5: an excess of 0.25 + D6_ATOL * (1 +- 1%)
    assert A.check_odd_correlations(odd(0.25 + IN * A.D6_ATOL)).status == "reproduced"
    bad = A.check_odd_correlations(odd(0.25 + OUT * A.D6_ATOL))
    assert bad.status == "not reproduced"
    assert "the control norm_relu, not odd: 0.3" in A.check_odd_correlations(odd()).measured
    assert A.check_odd_correlations(odd(odd_names=())).status == "not checked"


def test_odd_correlations_real():
    oc = A.measure_odd_correlations()
    assert A.check_odd_correlations(oc).status == "reproduced"
    ctrl = oc.frame[~oc.frame.odd]
    assert (ctrl.rho_next.abs() - ctrl.rho.abs()).max() > 0.1   # the non-odd control breaks the bound


def lengths(slope=-0.015, unit=-0.015, start=0.6, depth=20):
    d = np.arange(depth + 1)
    return A.NormReluLengths(pd.DataFrame(dict(depth=d, max_corr=start * np.exp(slope * d),
                                               max_corr_unit=start * np.exp(unit * d), length_dev=0.5 ** d)),
                             "normrelu", (0.5, 1.0, 2.0), depth, 0.0159)


def test_normrelu_lengths_rule():
    assert A.check_normrelu_lengths(lengths()).status == "reproduced"
    assert A.check_normrelu_lengths(lengths(slope=-0.015 * IN * A.I1_MIN_RATIO)).status == "inconclusive"
    assert A.check_normrelu_lengths(lengths(slope=-0.015 * OUT * A.I1_MIN_RATIO)).status == "reproduced"
    assert A.check_normrelu_lengths(lengths(slope=0.01)).status == "not reproduced"   # correlations grow
    assert A.check_normrelu_lengths(lengths(start=1.0)).status == "not checked"        # parallel inputs
    assert A.check_normrelu_lengths(lengths(unit=0.0)).status == "not checked"         # no unit-length decay
    assert A.check_normrelu_lengths(lengths(depth=1)).status == "not checked"          # too few layers


def test_normrelu_lengths_real_and_relu_counterfactual():
    cfg = D.SPEC.config(aak_length_depth=40)
    nl = A.measure_normrelu_lengths(cfg)
    assert nl.frame.length_dev.iloc[-1] < nl.frame.length_dev.iloc[1]
    assert A.check_normrelu_lengths(nl).status in ("reproduced", "inconclusive")
    assert nl.frame.max_corr.iloc[-1] < nl.frame.max_corr.iloc[0]
    relu = A.check_normrelu_lengths(A.measure_normrelu_lengths(cfg, "relu"))   # uncentred: correlations go to 1
    assert relu.status == "not checked" and "do not decay" in relu.measured
    assert nl.mu == pytest.approx(0.01586, abs=1e-5)


def _kinked(name, jump1=0.0, jump2=0.0, s0=0.0, slope=1.0):
    """An activation 0 at 0 (plus s0), with s' stepping by jump1 and s'' by jump2 at 0 (both upward on the left)."""
    from lib.activations import Activation

    def f(z):
        z = np.asarray(z, dtype=float)
        return s0 + np.where(z > 0, slope * z, (slope - jump1) * z - 0.5 * jump2 * z ** 2)

    def d(z):
        z = np.asarray(z, dtype=float)
        return np.where(z > 0, slope, slope - jump1 - jump2 * z)
    return Activation(name, lambda t: t, f, d, c=1.0, kinks=(0.0,))


def test_d1_premise_thresholds():
    tol = M.PREMISE_TOL
    p = M.d1_premises([_kinked("in1", jump1=IN * tol), _kinked("out1", jump1=OUT * tol),
                       _kinked("in2", jump2=IN * tol), _kinked("out2", jump2=OUT * tol),
                       _kinked("s0in", s0=IN * tol), _kinked("s0out", s0=OUT * tol)]).set_index("activation")
    assert p.twice_differentiable.to_dict() == dict(in1=True, out1=False, in2=True, out2=False, s0in=True, s0out=True)
    assert p.zero_at_0.to_dict() == dict(in1=True, out1=True, in2=True, out2=True, s0in=True, s0out=False)
    assert list(p.index[p.premise]) == ["in1", "in2", "s0in"]


# ---- every comparison at its value exactly (the constant set to the measured value), and the values the rules read

def test_normrelu_lengths_at_equality_and_the_rows_read(monkeypatch):
    base = lengths()
    slope, _, _ = D.decay_slope(base.frame.depth, base.frame.max_corr, floor=1e-300)
    unit, _, _ = D.decay_slope(base.frame.depth, base.frame.max_corr_unit, floor=1e-300)
    monkeypatch.setattr(A, "I1_MIN_RATIO", slope / unit)
    assert A.check_normrelu_lengths(base).status == "reproduced"          # r >= I1_MIN_RATIO at equality
    monkeypatch.undo()
    # a correlation at 1 - 1e-12 exactly counts as parallel
    at = lengths(start=1 - 1e-12)
    assert A.check_normrelu_lengths(at).status == "not checked"
    # the last layer is read (not the second or the one before the last): a rise at the very end
    f = lengths().frame.copy()
    f.loc[f.index[-1], "max_corr"] = f.max_corr.iloc[0]
    bad = A.check_normrelu_lengths(A.NormReluLengths(f, "normrelu", (0.5, 1.0, 2.0), 20, 0.0159))
    assert bad.status == "not reproduced"
    # values below 1e-12 still enter the slope (the floor is 1e-300): a fast decay to 1e-40
    fast = lengths(slope=-5.0, unit=-5.0)
    c = A.check_normrelu_lengths(fast)
    assert c.status == "reproduced" and "-5 against -5" in c.measured
    # unit-length correlations that fall by exactly 1e-9 relative are not a decay; a slope of exactly 0 neither
    g = lengths().frame.copy()
    g["max_corr_unit"] = g.max_corr_unit.iloc[0]
    g.loc[g.index[-1], "max_corr_unit"] = g.max_corr_unit.iloc[0] * (1 - 1e-9)
    assert A.check_normrelu_lengths(A.NormReluLengths(g, "normrelu", (0.5, 1.0, 2.0), 20, 0.0159)).status \
        == "not checked"
    g["max_corr_unit"] = np.r_[0.6, np.linspace(0.1, 0.3, len(g) - 1)]  # lower at the end, but rising: slope > 0
    assert D.decay_slope(g.depth, g.max_corr_unit)[0] > 0
    assert A.check_normrelu_lengths(A.NormReluLengths(g, "normrelu", (0.5, 1.0, 2.0), 20, 0.0159)).status \
        == "not checked"


def test_normrelu_lengths_equal_ends_do_not_decay():
    f = lengths().frame.copy()
    f.loc[f.index[-1], "max_corr"] = f.max_corr.iloc[0]                   # last == first: no decay
    assert A.check_normrelu_lengths(A.NormReluLengths(f, "normrelu", (0.5, 1.0, 2.0), 20, 0.0159)).status \
        == "not reproduced"


def test_odd_correlations_at_equality_and_in_order(monkeypatch):
    oc = odd(0.25 + 1e-3)
    ex = float(oc.frame.assign(e=lambda d: d.rho_next.abs() - d.rho.abs()).query("odd").e.max())
    monkeypatch.setattr(A, "D6_ATOL", ex)
    assert A.check_odd_correlations(oc).status == "reproduced"
    monkeypatch.undo()
    c = A.check_odd_correlations(odd(odd_names=("tanh", "arctan")))
    assert c.measured.index("tanh") < c.measured.index("arctan")          # the activations in their given order


def test_length_outcomes_at_each_limit(monkeypatch):
    """GAMMA_TOL = 0.5 and D1_TOL = 0.5 (set here) with deviations whose ratios are exact in floating point."""
    monkeypatch.setattr(M, "GAMMA_TOL", 0.5)
    monkeypatch.setattr(M, "D1_TOL", 0.5)

    def one(*qs):
        return M.length_outcomes(pd.DataFrame([dict(activation="a", role=L, q0=qs[0], depth=l, q=q)
                                               for l, q in enumerate(qs)]))["a"][0]
    assert one(3.0, 4.0) == "kept"          # ratio 1.5 = 1 + GAMMA_TOL: not away
    assert one(3.0, 4.5) == "away"          # 1.75
    assert one(3.0, 2.0) == "kept"          # ratio 0.5 = 1 - GAMMA_TOL: kept
    assert one(3.0, 1.75) == "slow"         # ratio 0.375, |q - 1| = 0.75 > D1_TOL
    assert one(3.0, 1.5) == "converged"     # ratio 0.25, last |q - 1| = 0.5 = D1_TOL exactly


def test_length_map_ratios_are_silent_and_read_the_last_layer():
    import warnings
    flat = maps(("tanh", L, lambda q0, l: 1.0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")                 # no division warnings from deviations at 0
        assert M.check_length_map(flat).status == "reproduced"
        gone = maps(("tanh", L, lambda q0, l: math.nan if l == 10 else 1 + (q0 - 1) * 0.1 ** l))
        c = M.check_length_map(gone)                   # the deepest layer left the range: not at the fixed point
        assert c.status == "inconclusive" and "inf" in c.measured



def test_a_deviation_at_the_ratio_floor_enters_no_ratio(monkeypatch):
    floor = (1.0 + 1e-3) - 1.0
    monkeypatch.setattr(M, "RATIO_FLOOR", floor)
    at = maps(("tanh", L, lambda q0, l: 1 + (q0 - 1) * 0.1 ** l if l < 9 else (1.0 + 1e-3 if l == 9 else 1.0 + 0.1)))
    assert M.check_length_map(at).status == "inconclusive"     # 1e-3 -> 0.1 is no ratio: still away from 1 at the end


def test_shifted_relu_reads_each_start_and_its_limits(monkeypatch):
    # only the start q0 = 0.5 (deviation 0.5) grows, by a factor just above D4_AWAY: growth is |q - 1| / |q0 - 1|
    g = M.D4_AWAY * OUT
    grow = maps(("s", S, lambda q0, l: 1 + (q0 - 1) * (g ** (l / 10) if q0 < 1 else 0.5 ** l)))
    c = M.check_shifted_relu(grow)
    assert c.status == "reproduced" and "from q0 = 0.5." in c.measured and "at layer 10" in c.measured
    # a growth of exactly D4_AWAY: q0 = 2 -> 3
    exact = maps(("s", S, lambda q0, l: q0 if l < 10 else (3.0 if q0 == 2.0 else 1.0)))
    assert M.check_shifted_relu(exact).status == "reproduced"
    # every start within D1_TOL of 1 exactly (the constant set to the measured deviation): the map converges
    dev = (1.0 + 2e-6) - 1.0
    monkeypatch.setattr(M, "D1_TOL", dev)
    settle = maps(("s", S, lambda q0, l: q0 if l < 10 else 1.0 + 2e-6))
    assert M.check_shifted_relu(settle).status == "not reproduced"
