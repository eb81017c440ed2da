"""Chapter 04, :mod:`lib.chapters.infinite_depth.aak_training`: [AAK] Thm 4.1, Thm 4.2, Thm E.3 (steps to eps against
kappa log(1/eps))."""
import math

import pandas as pd
import pytest
from matplotlib.figure import Figure

from lib.chapters import infinite_depth as D
from lib.chapters.infinite_depth import aak_training as T

DOCUMENTED = dict(TRAIN_EPS=1e-3, GD_RATIO_MAX=1.0, SGD_RATIO_MAX=2.0, LAZY_TOL=0.1)
IN, OUT = 0.99, 1.01
CLAIM = {"top GD": "[AAK] Thm 4.1", "top SGD": "[AAK] Thm E.3", "all GD": "[AAK] Thm 4.2"}
LIMIT = {"top GD": DOCUMENTED["GD_RATIO_MAX"], "top SGD": DOCUMENTED["SGD_RATIO_MAX"],
         "all GD": DOCUMENTED["GD_RATIO_MAX"]}


def test_the_thresholds_are_the_documented_ones():
    for name, value in DOCUMENTED.items():
        assert getattr(D, name) == value, name


def training(mode, *runs):
    """``runs``: (ratio, kernel change[, kappa]) per depth."""
    rows = []
    for L, r in enumerate(runs, start=1):
        kappa = r[2] if len(r) > 2 else 100.0
        bound = kappa * math.log(1e3)
        rows.append(dict(mode=mode, depth=L, kappa=kappa, kappa_inf=kappa, lr=0.1, steps=10, cap=1,
                         converged=True, bound=bound, ratio=r[0], kernel_change=r[1]))
    return T.AakTraining(pd.DataFrame(rows), pd.DataFrame(), "norm_gelu", 20, 512, list(range(1, len(runs) + 1)),
                         1e-3, 0)


def status(mode, *runs):
    c = T.check_aak_training(training(mode, *runs), mode)
    assert c.claim_id == CLAIM[mode]
    return c.status


@pytest.mark.parametrize("mode", ["top GD", "top SGD", "all GD"])
def test_holds_fails_vacuous_and_the_limit(mode):
    C = LIMIT[mode]
    assert status(mode, (0.2, 0.01), (0.25, 0.02)) == "reproduced"
    assert status(mode, (0.2, 0.01), (C * IN, 0.02)) == "reproduced"
    assert status(mode, (0.2, 0.01), (C * OUT, 0.02)) == "not reproduced"
    assert status(mode, (0.2, 0.01), (10 * C, 0.02)) == "not reproduced"
    none = T.check_aak_training(training(mode, (0.2, 0.01, math.inf)), mode)
    assert none.status == "not checked" and "singular" in none.caveat


def test_all_layers_outside_the_lazy_regime_is_inconclusive():
    lazy = DOCUMENTED["LAZY_TOL"]
    assert status("all GD", (0.2, 0.01), (1.5, lazy * IN)) == "not reproduced"
    wide = T.check_aak_training(training("all GD", (0.2, 0.01), (1.5, lazy * OUT)), "all GD")
    assert wide.status == "inconclusive" and "width" in wide.caveat
    assert status("all GD", (0.2, 0.01), (1.5, math.inf)) == "inconclusive"  # diverged: its kernel is not a number
    # the top layer is an exact quadratic at any width: a slow run fails whatever the kernel change
    assert status("top GD", (0.2, 0.01), (1.5, lazy * OUT)) == "not reproduced"


def test_on_a_real_case():
    tr = T.measure_aak_training(D.SPEC.config(aak_n=8, aak_train_width=64, aak_train_depths=[1, 6]))
    f = tr.frame
    assert set(f["mode"]) == {"top GD", "top SGD", "all GD"} and f.converged.all()
    # GD on the top layer is a quadratic: at most kappa log(1/eps)/2 + 1 steps with the step 1/lambda_max
    top = f[f["mode"] == "top GD"]
    assert (top.steps <= top.kappa * math.log(1 / tr.eps) / 2 + 1).all()
    # deeper is better conditioned at infinite width (at width 64 the finite kernels are too noisy to say)
    for mode in ("top GD", "all GD"):
        s = f[f["mode"] == mode].set_index("depth")
        assert s.kappa_inf[6] < s.kappa_inf[1]
    for mode in CLAIM:
        assert T.check_aak_training(tr, mode).status == "reproduced"
    fig = T.figure_aak_training(tr, "smoke")
    assert isinstance(fig["fig"], Figure) and len(fig["data"]) == 6 and "width 64 at depths 1, 6" in fig["setting"]
