"""[LH] Lemma E.4 (lib.chapters.conditioning.lemma_e4) and Figure 3's angle against depth
(lib.chapters.conditioning.figure3_depth): the rules at every threshold on constructed inputs fed to the real
checks, and the measurements on tiny real cases."""
import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from lib.chapters import conditioning as C
from lib.chapters.conditioning import figure3_depth as F3D
from lib.chapters.conditioning import lemma_e4 as E4

IN, OUT = 0.99, 1.01


def test_the_thresholds_are_the_documented_ones():
    assert E4.E4_TOL == 1e-10 and E4.E4_MAX_N == 800 and F3D.ANGLE_SE_MULTIPLE == 2.0


# ---------------------------------------------------------------- Lemma E.4
def e4(min_gap=1e-3, max_gap=0.2, angle=5.0, sets=("a",)) -> E4.LemmaE4:
    """Eigenvalues with lambda_max(G) = 1, so the gaps are the given numbers."""
    rows = [dict(dataset=ds, n=10, d=3, lambda_min_G=0.01, lambda_min_M=0.01 + min_gap, lambda_max_G=1.0,
                 lambda_max_M=1.0 - max_gap, min_angle_deg=angle) for ds in sets]
    return E4.LemmaE4(pd.DataFrame(rows))


def e4_status(**kw):
    return C.check_lemma_e4(e4(**kw)).status


def test_lemma_e4_holds_fails_caveat_and_vacuous():
    assert e4_status() == "reproduced"
    assert e4_status(min_gap=-1e-3) == "not reproduced"        # lambda_min(M) < lambda_min(G)
    assert e4_status(max_gap=-1e-3) == "not reproduced"        # lambda_max(M) > lambda_max(G)
    assert e4_status(max_gap=0.0) == "reproduced with caveat"  # not strict on non-degenerate data
    c = C.check_lemma_e4(e4(min_gap=0.0, angle=0.0))            # degenerate: strictness not asked ...
    assert c.status == "reproduced with caveat" and "parallel pair" in c.caveat  # ... nor tested
    empty = E4.LemmaE4(pd.DataFrame(columns=e4().frame.columns))
    assert C.check_lemma_e4(empty).status == "not checked"


@pytest.mark.parametrize("key", ["min_gap", "max_gap"])
def test_lemma_e4_tolerance_boundaries(key):
    tol = E4.E4_TOL
    assert e4_status(**{key: tol * OUT}) == "reproduced"
    assert e4_status(**{key: tol * IN}) == "reproduced with caveat"
    assert e4_status(**{key: -tol * IN}) == "reproduced with caveat"
    assert e4_status(**{key: -tol * OUT}) == "not reproduced"


def test_lemma_e4_measured_on_real_data():
    rng = np.random.default_rng(0)
    data = SimpleNamespace(arrays={"gauss": rng.standard_normal((30, 3)), "wide": rng.standard_normal((12, 40))})
    m = C.measure_lemma_e4(data, max_n=20)
    t = C.table_lemma_e4(m)
    assert list(t.n) == [20, 12] and (t["min gap"] > 1e-6).all() and (t["max gap"] > 1e-3).all()
    assert C.check_lemma_e4(m).status == "reproduced"


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 12), d=st.integers(1, 6))
def test_the_gate_contraction_never_widens_the_spectrum(seed, n, d):
    """Schur: G o P with P a correlation matrix has its eigenvalues within [lambda_min(G), lambda_max(G)]."""
    X = np.random.default_rng(seed).standard_normal((n, d))
    m = C.measure_lemma_e4(SimpleNamespace(arrays={"x": X})).frame.iloc[0]
    scale = m.lambda_max_G
    assert m.lambda_min_M >= m.lambda_min_G - 1e-12 * scale
    assert m.lambda_max_M <= m.lambda_max_G + 1e-12 * scale


# ---------------------------------------------------------------- Figure 3: the angle against depth
def sweep(means, sd=0.1, seeds=4, names=("a",)) -> C.ConditioningSweep:
    """A sweep whose per-seed ReLU min angle (degrees) at depth L = 1, 2, ... has seed mean ``means[L-1]`` and
    sample sd ``sd``."""
    off = np.arange(seeds) - (seeds - 1) / 2
    off = off / np.std(off, ddof=1) if seeds > 1 else off
    rows = [dict(dataset=ds, activation=act, depth=L, seed=s, min_angle=math.radians(m + sd * off[s]))
            for ds in names for act in ("relu", "linear") for L, m in enumerate(means, start=1) for s in range(seeds)]
    return C.ConditioningSweep(summary=pd.DataFrame(), names=tuple(names), depths=tuple(range(1, len(means) + 1)),
                               batch_size=512, width=512, seeds=seeds, frame=pd.DataFrame(rows))


def angle_status(*a, **kw):
    return C.check_figure3_angle_depth(sweep(*a, **kw)).status


def test_angle_growth_holds_fails_caveat_and_vacuous():
    assert angle_status([10, 11, 12]) == "reproduced"
    assert angle_status([12, 11, 10]) == "not reproduced"
    assert angle_status([10, 10, 10]) == "inconclusive"
    c = C.check_figure3_angle_depth(sweep([10, 13, 12, 14]))    # dips from L=2 to L=3
    assert c.status == "reproduced with caveat" and "L=[3]" in c.caveat
    c = C.check_figure3_angle_depth(sweep([10, 12], seeds=1))    # no seed spread
    assert c.status == "reproduced with caveat" and "one seed" in c.caveat
    assert "10 deg (L=1) -> 12 deg (L=2), change +2 deg, one seed" in c.measured
    assert angle_status([10]) == "not checked"
    no_frame = C.ConditioningSweep(summary=pd.DataFrame(), names=("a",), depths=(1, 2), batch_size=512)
    assert C.check_figure3_angle_depth(no_frame).status == "not checked"


def test_angle_growth_against_the_seed_spread():
    sd, seeds = 0.1, 4
    d = F3D.ANGLE_SE_MULTIPLE * math.sqrt(2 * sd ** 2 / seeds)
    assert angle_status([10, 10 + d * OUT], sd=sd) == "reproduced"
    assert angle_status([10, 10 + d * IN], sd=sd) == "inconclusive"
    assert angle_status([10, 10 - d * IN], sd=sd) == "inconclusive"
    assert angle_status([10, 10 - d * OUT], sd=sd) == "not reproduced"
    assert angle_status([10, 12, 12 - d * IN, 13], sd=sd) == "reproduced"
    assert angle_status([10, 12, 12 - d * OUT, 13], sd=sd) == "reproduced with caveat"


def test_angle_table_and_checks_figure3_on_real_rows():
    S = sweep([10, 11], names=("a", "b"))
    t = C.angle_depth_table(S)
    assert list(t.columns) == ["dataset", "depth", "mean", "sd", "seeds"] and len(t) == 4
    assert np.allclose(t["mean"], [10, 11, 10, 11]) and np.allclose(t.sd, 0.1) and (t.seeds == 4).all()
    assert len(C.check_figure3_angle_depth(S).rows) == 2
