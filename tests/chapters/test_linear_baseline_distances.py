"""Chapter 01 [LH] Remark 3.4 (lib.chapters.linear_baseline.distances): a ReLU network separates similar
pairs better in distance, a linear network (the counterfactual) does not; Figure 1.5."""
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from lib.chapters.linear_baseline import distances as DI


def test_distances_reproduced_for_relu_not_for_a_linear_network(one_thread):
    relu = DI.measure_distances([1.0, 5.0, 20.0], 256, [0, 1, 3], 5)
    c = DI.check_distances(relu)
    assert (c.claim_id, c.status) == ("[LH] Remark 3.4", "reproduced"), c.measured
    lin = DI.measure_distances([1.0, 5.0, 20.0], 256, [1, 3], 5, activation="linear")
    np.testing.assert_allclose(lin.predicted, 1.0)
    assert DI.check_distances(lin).status == "not reproduced"  # the linear network keeps distances
    assert DI.check_distances(relu[relu.seed == 0]).status == "inconclusive"  # one draw: no standard error
    c0 = DI.check_distances(relu[relu.depth == 0])
    assert (c0.part, c0.status) == ("", "not checked") and "the model is linear" in c0.caveat
    fig = DI.plot_distances(relu)
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    plt.close(fig)


# ---- the rule on constructed ratios: each threshold just inside and just outside


def _dist(mu=0.5, delta=0.1, seeds=2, cells=None):
    """Ratios r with log r = mu +- delta over the seeds (so mean log r = mu and its standard error = delta at two
    seeds), at depths 1 and 3 and angles 1 and 5 deg; ``cells`` overrides (mu, delta) of some (depth, angle)."""
    cells = cells or {}
    rows = []
    for L in (1, 3):
        for a in (1.0, 5.0):
            m, dl = cells.get((L, a), (mu, delta))
            rows += [dict(depth=L, seed=s, theta_deg=a, ratio=float(np.exp(m + dl * (1 if s % 2 == 0 else -1))),
                          predicted=1.5, width=256, d=16) for s in range(seeds)]
    return pd.DataFrame(rows)


def test_distances_gain_sigma_boundary():
    c = DI.check_distances(_dist(DI.GAIN_SIGMA * 0.1 * 1.01, 0.1))
    assert c.status == "reproduced" and "pairs at 1, 5 deg and depths 1, 3 (mean over 2 seeds)" in c.measured
    # exactly 2 standard errors is not beyond them: log r = 0.156 and 0.052 give mean 0.104 = 2 x 0.052 in floats
    exact = pd.DataFrame([dict(depth=1, seed=s, theta_deg=1.0, ratio=float(np.exp(v)), predicted=1.5)
                          for s, v in enumerate((0.156, 0.052))])
    logs = np.log(exact.ratio)
    assert logs.mean() == DI.GAIN_SIGMA * logs.std() / np.sqrt(2)  # the premise of this case
    assert DI.check_distances(exact).status == "inconclusive"
    c = DI.check_distances(_dist(DI.GAIN_SIGMA * 0.1 * 0.99, 0.1))
    assert c.status == "inconclusive" and "2 standard errors" in c.caveat
    # one cell short of the gain: every cell must show it
    one = _dist(0.5, 0.1, cells={(3, 5.0): (DI.GAIN_SIGMA * 0.1 * 0.99, 0.1)})
    assert DI.check_distances(one).status == "inconclusive"


def test_distances_no_gain_is_not_reproduced_in_any_cell():
    assert DI.check_distances(_dist(0.0, 0.0)).status == "not reproduced"  # r = 1 exactly: "at most 0"
    assert DI.check_distances(_dist(-0.01, 0.1)).status == "not reproduced"
    assert DI.check_distances(_dist(0.5, 0.1, cells={(1, 1.0): (0.0, 0.0)})).status == "not reproduced"
    assert DI.check_distances(_dist(0.01, 0.1)).status == "inconclusive"  # a gain, not significant


def test_distances_one_seed_is_inconclusive_and_depth_0_is_not_judged():
    assert DI.check_distances(_dist(0.5, 0.0, seeds=1)).status == "inconclusive"  # no standard error
    assert DI.check_distances(_dist(0.5, 0.1, seeds=3)).status == "reproduced"
    # depth 0 (the linear model, r = 1) beside a gain at every depth L >= 1: not judged
    d0 = _dist(0.5, 0.1)
    d0 = pd.concat([d0, d0[d0.depth == 1].assign(depth=0, ratio=1.0)], ignore_index=True)
    assert DI.check_distances(d0).status == "reproduced"
    # depth 1 is judged: no gain there fails the check
    assert DI.check_distances(_dist(0.5, 0.1, cells={(1, 5.0): (0.0, 0.0)})).status == "not reproduced"
