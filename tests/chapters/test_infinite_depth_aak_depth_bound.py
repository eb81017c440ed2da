"""Chapter 04, :mod:`lib.chapters.infinite_depth.aak_depth_bound` and :func:`lib.theory.aak_depth_bound`: [AAK] Cor 3.3
and Cor 3.5, the depth after which kappa <= 1 + eps."""
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from lib import theory
from lib.chapters import infinite_depth as D
from lib.chapters.infinite_depth import aak_depth_bound as B
from lib.chapters.infinite_depth.aak_depth import AakDepth
from lib.chapters.infinite_depth.aak_kernels import activation_rates
from lib.data.datasets import load_digits_subset
from lib.validation import InputError

MU, DELTA, N = 0.3, 0.1, 10
IN, OUT = 0.99, 1.01


def test_the_targets_are_the_documented_ones():
    assert D.DEPTH_BOUND_EPS == (0.5, 0.1, 0.01)


# ---------------------------------------------------------------- the bound
def test_bound_closed_form_and_validation():
    t = 0.1 / (2.1 * 9)
    L0 = math.ceil(math.log(1 / 0.2) / math.log(1.15))
    assert theory.aak_first_phase(MU, DELTA) == L0 and theory.aak_first_phase(MU, 0.5) == 0
    assert theory.aak_depth_bound(MU, DELTA, N, 0.1) == L0 + math.ceil(2 / MU * math.log(1 / (2 * t)))
    assert theory.aak_depth_bound(MU, DELTA, N, 0.1, "ntk") == 2 * (L0 + math.ceil(2 / MU * math.log(1 / t)))
    for bad in (dict(mu=0.0), dict(mu=1.5), dict(delta=0.0), dict(n=1), dict(eps=-1.0), dict(kernel="x")):
        kw = dict(mu=MU, delta=DELTA, n=N, eps=0.1, kernel="nngp") | bad
        with pytest.raises(InputError):
            theory.aak_depth_bound(**kw)


def _envelope(mu, delta, L):
    """[AAK] Lemma C.5's envelope iterated from 1 - delta: an upper bound on every |rho_L|."""
    d = 1.0 - delta
    for _ in range(L):
        d = (1 - mu) * d + mu * d * d
    return d


@settings(max_examples=60, deadline=None)
@given(mu=st.floats(0.01, 1.0), delta=st.floats(1e-4, 1.0), n=st.integers(2, 10_000), eps=st.floats(1e-4, 10.0))
def test_the_bound_guarantees_kappa_via_gershgorin(mu, delta, n, eps):
    """At the bound, the tighter envelope of Lemma C.5 gives a Gershgorin kappa <= 1 + eps; the bound grows as eps
    shrinks and as n grows, and the NTK's is at least the top-layer kernel's."""
    L = theory.aak_depth_bound(mu, delta, n, eps)
    r = _envelope(mu, delta, L)
    assert theory.gershgorin_kappa_bound(n, r) <= 1 + eps + 1e-12
    assert theory.aak_depth_bound(mu, delta, n, eps / 2) >= L <= theory.aak_depth_bound(mu, delta, n + 1, eps)
    assert theory.aak_depth_bound(mu, delta, n, eps, "ntk") >= L


def test_the_ntk_bound_holds_on_a_real_kernel():
    X = load_digits_subset(5, seed=1, unit_norm=True)
    mu = activation_rates("norm_gelu").mu
    delta = 1 - np.abs(X @ X.T - np.eye(5)).max()
    L = theory.aak_depth_bound(mu, delta, 5, 0.1, "ntk")
    K = theory.ntk(X, L, "norm_gelu")
    d = np.sqrt(np.diag(K))
    assert np.linalg.cond(K / np.outer(d, d)) <= 1.1


# ---------------------------------------------------------------- the check
def study(kappa, depths=None, centred=True, mu=MU, n=N):
    """An AakDepth whose one activation has ``kappa`` (an array over ``depths``) for both kernels."""
    depths = np.arange(len(kappa)) if depths is None else np.asarray(depths)
    kk = pd.DataFrame(dict(activation="a", depth=depths, max_abs_corr_nngp=1 - DELTA, max_abs_corr_ntk=1 - DELTA,
                           kappa_nngp_cos=kappa, kappa_ntk_cos=kappa))
    facts = {"a": activation_rates("norm_gelu")._replace(mu=mu, centred=centred)}
    return AakDepth(kk, pd.DataFrame(), facts, {}, pd.DataFrame(), ["a"], n, int(depths.max()), 32, [1], 1)


def bound(eps, kind="nngp"):
    return theory.aak_depth_bound(MU, DELTA, N, eps, kind)


def profile(start, level, deepest):
    """kappa = 3 below depth ``start``, ``level`` from there to ``deepest``."""
    return np.where(np.arange(deepest + 1) < start, 3.0, level)


@pytest.mark.parametrize("kind", ["nngp", "ntk"])
def test_holds_fails_untested_and_vacuous(kind):
    deep = bound(0.01, kind) + 5
    assert B.check_depth_bound(study(profile(1, 1.0001, deep)), kind).status == "reproduced"
    # kappa stuck above 1 + 0.5 up to beyond every bound: fails
    assert B.check_depth_bound(study(np.full(deep + 1, 1.6)), kind).status == "not reproduced"
    # every bound beyond the depths computed, kappa not there yet: nothing tested
    short = B.check_depth_bound(study(np.full(bound(0.5, kind) - 1, 1.6)), kind)
    assert short.status == "inconclusive" and "deeper needed" in short.caveat
    # reached before the bound though the bound lies beyond the depths: judged, holds
    assert B.check_depth_bound(study(profile(3, 1.0001, bound(0.5, kind) - 1)), kind).status == "reproduced"
    none = B.check_depth_bound(study(profile(1, 1.0001, deep), centred=False), kind)
    assert none.status == "not checked" and "centred" in none.caveat


@pytest.mark.parametrize("kind", ["nngp", "ntk"])
def test_each_eps_at_its_boundary(kind):
    deep = bound(0.01, kind) + 5
    for eps in D.DEPTH_BOUND_EPS:
        b = bound(eps, kind)
        inside = B.check_depth_bound(study(profile(b, 1 + eps * IN, deep)), kind)
        # reached exactly at the bound for this eps (the smaller eps are never reached: they fail unless eps is
        # the smallest, whose own boundary this is)
        row = [r for r in inside.rows if f"<= 1 + {eps:g} " in r["statement"]][0]
        assert row["holds"] is True
        late = B.check_depth_bound(study(profile(b + 1, 1 + eps * IN, deep)), kind)
        assert late.status == "not reproduced"
        assert [r for r in late.rows if f"<= 1 + {eps:g} " in r["statement"]][0]["holds"] is False
        above = B.check_depth_bound(study(profile(b, 1 + eps * OUT, deep)), kind)
        assert [r for r in above.rows if f"<= 1 + {eps:g} " in r["statement"]][0]["holds"] is False
    # a staircase that reaches each 1 + eps exactly at its bound: every statement holds; one layer late: fails
    def stairs(late=0.0):
        k = np.full(deep + 1, 3.0)
        for eps in D.DEPTH_BOUND_EPS:
            k[bound(eps, kind) + int(late == eps):] = 1 + eps * IN
        return k
    assert B.check_depth_bound(study(stairs()), kind).status == "reproduced"
    for eps in D.DEPTH_BOUND_EPS:
        assert B.check_depth_bound(study(stairs(late=eps)), kind).status == "not reproduced"


def test_measured_depth():
    assert B.measured_depth([0, 1, 2, 3], [3, 1.05, 1.2, 1.05], 0.1) == 3  # must stay below
    assert B.measured_depth([0, 1, 2], [1.0, 1.0, 1.0], 0.1) == 0
    assert B.measured_depth([0, 1, 2], [3, 2, np.nan], 0.1) == math.inf


def test_on_the_real_depth_study():
    st = D.measure_aak_depth(D.SPEC.config(aak_activations=["norm_gelu", "relu"], aak_n=6, aak_max_depth=80,
                                           fw_width=16, aak_fw_depths=[1], seeds=1))
    tab = B.table_depth_bound(st)
    assert set(tab.activation) == {"norm_gelu"} and len(tab) == 6  # relu is uncentred: not in the premise
    assert (tab.measured <= tab.bound).all()
    for kind in ("nngp", "ntk"):
        assert B.check_depth_bound(st, kind).status == "reproduced"


def test_the_table_lists_each_statement_with_the_values_read():
    """The table is shown in the chapter: every column carries what the check read (the margin at depth 0, the
    deepest depth, whether the bound lies within the depths computed), for every centred activation in order."""
    deep = bound(0.01) + 5
    kk = study(profile(1, 1.0001, deep)).kk
    kk.loc[kk.depth == 1, "max_abs_corr_nngp"] = 0.5          # only depth 0 sets the inputs' margin
    rel = kk.assign(activation="r")                             # an uncentred activation first: skipped, not the end
    st = study(profile(1, 1.0001, deep))
    facts = {"r": activation_rates("relu"), "a": st.facts["a"]}
    st2 = AakDepth(pd.concat([rel, kk], ignore_index=True), pd.DataFrame(), facts, {}, pd.DataFrame(), ["r", "a"], N,
                   deep, 32, [1], 1)
    tab = B.table_depth_bound(st2, ("nngp",))
    assert list(tab.columns) == ["kernel", "activation", "mu", "delta", "eps", "bound", "measured", "deepest", "tested",
                                 "holds"]
    assert list(tab.kernel) == ["nngp"] * 3 and list(tab.activation) == ["a"] * 3
    assert tab["delta"].iloc[0] == pytest.approx(DELTA) and tab.mu.iloc[0] == MU and tab.deepest.iloc[0] == deep
    assert tab.tested.all() and list(tab.eps) == list(D.DEPTH_BOUND_EPS)
    # a bound exactly at the deepest depth lies within the depths computed
    b = bound(0.5)
    at = B.table_depth_bound(study(np.full(b + 1, 1.6)), ("nngp",))
    assert bool(at[at.eps == 0.5].tested.iloc[0]) and at[at.eps == 0.5].holds.iloc[0] is False
    # a margin of 0 (a repeated input) makes no bound: infinite, untested
    zero = study(profile(1, 1.0001, deep))
    zero.kk["max_abs_corr_nngp"] = 1.0
    t0 = B.table_depth_bound(zero, ("nngp",))
    assert (t0.bound == math.inf).all() and not t0.tested.any()


def test_measured_depth_at_equality():
    assert B.measured_depth([0, 1, 2], [3.0, 1.5, 1.5], 0.5) == 1     # kappa = 1 + eps exactly counts as reached
