"""Chapter 04, :mod:`lib.chapters.infinite_depth.aak_training`: [AAK] Thm 4.1, Thm 4.2, Thm E.3 (O(log(1/eps)) steps
past the depth where kappa is a constant, at a width where the finite kernel inherits it)."""
import math

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from lib.chapters import infinite_depth as D
from lib.chapters.infinite_depth import aak_training as T

DOCUMENTED = dict(TRAIN_EPS=1e-3, GD_RATIO_MAX=1.0, SGD_RATIO_MAX=2.0, KAPPA_CONSTANT=2.0, WIDTH_RTOL=0.5,
                  STEP_GROWTH=2.0, LAZY_TOL=0.1)
IN, OUT = 0.99, 1.01
CLAIM = {"top GD": "[AAK] Thm 4.1", "top SGD": "[AAK] Thm E.3", "all GD": "[AAK] Thm 4.2"}
MODES = list(CLAIM)


def test_the_thresholds_are_the_documented_ones():
    for name, value in DOCUMENTED.items():
        assert getattr(D, name) == value, name


def run(depth, steps, kappa_inf=1.5, kappa=None, change=0.01, converged=True):
    """One depth of a training: the finite kappa equals the infinite one unless given."""
    return dict(depth=depth, steps=steps, kappa_inf=kappa_inf, kappa=kappa_inf if kappa is None else kappa,
                change=change, converged=converged)


def training(mode, *runs, widths=None):
    rows = [dict(mode=mode, depth=r["depth"], kappa=r["kappa"], kappa_inf=r["kappa_inf"], lr=0.1, steps=r["steps"],
                 cap=100, converged=r["converged"], bound=r["kappa"] * math.log(1e3),
                 kernel_change=r["change"] if mode == "all GD" else math.nan) for r in runs]
    w = pd.DataFrame(widths if widths is not None else [], columns=["kernel", "depth", "width", "kappa", "kappa_inf",
                                                                     "gap"])
    return T.AakTraining(pd.DataFrame(rows), w, "norm_gelu", 20, 512, [128, 512], [r["depth"] for r in runs], 1e-3, 0)


def check(mode, *runs, **kw):
    c = T.check_aak_training(training(mode, *runs, **kw), mode)
    assert c.claim_id == CLAIM[mode]
    return c


SHALLOW = run(1, 500, kappa_inf=400.0)     # below the depth threshold: reported, never judged


@pytest.mark.parametrize("mode", MODES)
def test_bounded_past_the_threshold_holds_or_fails(mode):
    ok = check(mode, SHALLOW, run(16, 10), run(32, 12))
    assert ok.status == "reproduced" and [r["holds"] for r in ok.rows] == [None, True, True]
    # the count at a deeper judged depth just inside / outside STEP_GROWTH times the shallowest judged one
    assert check(mode, SHALLOW, run(16, 100), run(32, int(IN * T.STEP_GROWTH * 100))).status == "reproduced"
    assert check(mode, SHALLOW, run(16, 100), run(32, int(OUT * T.STEP_GROWTH * 100) + 1)).status == "not reproduced"
    # a judged run that did not reach eps within its limit
    assert check(mode, SHALLOW, run(16, 10), run(32, 100, converged=False)).status == "not reproduced"
    # one judged depth: converged, but the growth with depth is not seen
    one = check(mode, SHALLOW, run(16, 10))
    assert one.status == "reproduced with caveat" and "one depth only (L = 16)" in one.caveat
    assert check(mode, SHALLOW, run(16, 10, converged=False)).status == "not reproduced"
    # a run that grows below the threshold (kappa_inf > 2) is not judged
    assert check(mode, run(1, 10, kappa_inf=400.0), run(16, 30), run(32, 40)).status == "reproduced"


@pytest.mark.parametrize("mode", MODES)
def test_the_premises_at_their_thresholds(mode):
    K = T.KAPPA_CONSTANT
    # the depth premise: kappa_inf just inside / outside KAPPA_CONSTANT
    assert check(mode, run(16, 10, kappa_inf=IN * K), run(32, 100)).status == "not reproduced"
    assert check(mode, run(16, 10, kappa_inf=OUT * K), run(32, 100)).status == "reproduced with caveat"
    # the width premise: the finite kappa just inside / outside WIDTH_RTOL of the infinite one
    near = 1.5 * (1 + IN * T.WIDTH_RTOL)
    far = 1.5 * (1 + OUT * T.WIDTH_RTOL)
    assert check(mode, run(16, 10, kappa=near), run(32, 100)).status == "not reproduced"
    assert check(mode, run(16, 10, kappa=far), run(32, 100)).status == "reproduced with caveat"
    low = 1.5 * (1 - OUT * T.WIDTH_RTOL)
    assert check(mode, run(16, 10, kappa=low), run(32, 100)).status == "reproduced with caveat"


def test_the_ntk_move_is_the_width_premise_of_all_layer_training():
    lazy = T.LAZY_TOL
    assert check("all GD", run(16, 10, change=IN * lazy), run(32, 100)).status == "not reproduced"
    moved = check("all GD", run(16, 10, change=OUT * lazy), run(32, 100))
    assert moved.status == "reproduced with caveat" and f"NTK moved {OUT * lazy:.2g} > 0.1" in moved.rows[0]["this book"]
    assert check("all GD", run(16, 10, change=math.inf), run(32, 12)).status == "reproduced with caveat"  # diverged
    # the top layer is trained on frozen features: its kernel does not move, whatever is recorded
    assert check("top GD", run(16, 10, change=OUT * lazy), run(32, 12)).status == "reproduced"


@pytest.mark.parametrize("mode", MODES)
def test_no_judged_depth_is_inconclusive_naming_the_premise(mode):
    shallow = check(mode, SHALLOW, run(8, 40, kappa_inf=13.0))
    assert shallow.status == "inconclusive" and "deeper needed" in shallow.caveat
    assert all(r["holds"] is None for r in shallow.rows)
    narrow = check(mode, SHALLOW, run(16, 30, kappa=5.7), widths=[
        dict(kernel="ntk" if mode == "all GD" else "top", depth=16, width=m, kappa=k, kappa_inf=1.6, gap=abs(k / 1.6 - 1))
        for m, k in ((128, 400.0), (512, 5.7), (2048, 2.0))])
    assert narrow.status == "inconclusive" and "wider needed" in narrow.caveat
    assert "L=16: from m = 2,048" in narrow.measured
    none = check(mode, run(16, 10, kappa_inf=math.inf, kappa=math.inf))
    assert none.status == "not checked" and "singular" in none.caveat


def test_on_a_real_case():
    tr = T.measure_aak_training(D.SPEC.config(aak_n=8, aak_train_width=64, aak_train_depths=[1, 16],
                                              aak_train_widths=[32, 64]))
    f = tr.frame
    assert set(f["mode"]) == {"top GD", "top SGD", "all GD"} and f.converged.all()
    # GD on the top layer is a quadratic: at most kappa log(1/eps)/2 + 1 steps with the step 1/lambda_max
    top = f[f["mode"] == "top GD"]
    assert (top.steps <= top.kappa * math.log(1 / tr.eps) / 2 + 1).all()
    for mode in ("top GD", "all GD"):
        s = f[f["mode"] == mode].set_index("depth")
        assert s.kappa_inf[16] < T.KAPPA_CONSTANT < s.kappa_inf[1]     # depth 16 is past the threshold
    assert set(tr.widths.depth) == {16} and set(tr.widths.width) == {32, 64} and set(tr.widths.kernel) == {"top", "ntk"}
    for mode in CLAIM:       # width 64 is far below what the finite kernel needs at depth 16
        c = T.check_aak_training(tr, mode)
        assert c.status == "inconclusive" and "wider needed" in c.caveat, c.measured
    fig = T.figure_aak_training(tr)
    assert isinstance(fig["fig"], Figure) and len(fig["data"]) == 6 and "width 64 at depths 1, 16" in fig["setting"]


def test_all_layer_training_outside_the_activation_premise_is_not_judged(monkeypatch):
    assert T.smooth_premise("norm_gelu")[0] and T.smooth_premise("norm_tanh")[0]
    assert not T.smooth_premise("norm_relu")[0]                   # a kink: s' not Lipschitz
    assert not T.smooth_premise("relu2")[0]
    tr = training("all GD", SHALLOW, run(16, 10), run(32, 12))
    out = T.check_aak_training(T.AakTraining(tr.frame, tr.widths, "norm_relu", 20, 512, [128], [1, 16, 32], 1e-3, 0),
                               "all GD")
    assert out.status == "not checked" and out.caveat.startswith("outside the theorem") and "kinks at 0" in out.measured
    # the top layer's theorems ask nothing of the kind: the same data are judged there
    top = training("top GD", SHALLOW, run(16, 10), run(32, 12))
    assert T.check_aak_training(T.AakTraining(top.frame, top.widths, "norm_relu", 20, 512, [128], [1, 16, 32], 1e-3, 0),
                                "top GD").status == "reproduced"
    # SMOOTH_MAX just inside / outside: s = a z^2 / 2 has s'' = a on the grid (and s' = 10 a at z = 10)
    from lib.activations import Activation
    for a, ok in ((IN * T.SMOOTH_MAX / 10, True), (OUT * T.SMOOTH_MAX / 10, False)):
        act = Activation("q", lambda t: t, lambda z, a=a: a * z ** 2 / 2, lambda z, a=a: a * z, c=1.0)
        monkeypatch.setattr(T, "get_activation", lambda name, act=act: act)
        assert T.smooth_premise("q")[0] is ok


@pytest.mark.parametrize("mode", MODES)
def test_every_limit_at_equality(mode):
    """Each premise and the growth rule hold at their value exactly (<=, not <)."""
    assert check(mode, SHALLOW, run(16, 100), run(32, int(T.STEP_GROWTH * 100))).status == "reproduced"
    assert check(mode, run(16, 10, kappa_inf=T.KAPPA_CONSTANT), run(32, 12)).status == "reproduced"
    assert check(mode, run(16, 10, kappa=1.5 * (1 + T.WIDTH_RTOL)), run(32, 12)).status == "reproduced"
    assert check(mode, run(16, 10, change=T.LAZY_TOL), run(32, 12)).status == "reproduced"


@pytest.mark.parametrize("mode", MODES)
def test_the_rows_judge_convergence_and_growth(mode):
    late = check(mode, SHALLOW, run(16, 10), run(32, 12, converged=False))
    assert [r["holds"] for r in late.rows] == [None, True, False]
    grown = check(mode, SHALLOW, run(16, 100), run(32, int(T.STEP_GROWTH * 100) + 1))
    assert [r["holds"] for r in grown.rows] == [None, True, False]
    at = check(mode, SHALLOW, run(16, 100), run(32, int(T.STEP_GROWTH * 100)))
    assert [r["holds"] for r in at.rows] == [None, True, True]
    assert "not judged: kappa_inf 400 > 2" in late.rows[0]["this book"]


def test_smooth_premise_reads_the_second_derivative(monkeypatch):
    """s = sin(k z) / k: s' stays within 1, s'' reaches k; k just above / below SMOOTH_MAX, and s' = 10 exactly."""
    from lib.activations import Activation
    for k, ok in ((T.SMOOTH_MAX * 1.1, False), (T.SMOOTH_MAX * 0.9, True)):
        act = Activation("w", lambda t: t, lambda z, k=k: np.sin(k * np.asarray(z)) / k,
                         lambda z, k=k: np.cos(k * np.asarray(z)), c=1.0)
        monkeypatch.setattr(T, "get_activation", lambda name, act=act: act)
        assert T.smooth_premise("w")[0] is ok, k
    act = Activation("w", lambda t: t, lambda z: T.SMOOTH_MAX * np.asarray(z),
                     lambda z: np.full_like(np.asarray(z, dtype=float), T.SMOOTH_MAX), c=1.0)
    monkeypatch.setattr(T, "get_activation", lambda name: act)
    assert T.smooth_premise("w")[0] is True                     # |s'| = SMOOTH_MAX exactly is bounded by it
