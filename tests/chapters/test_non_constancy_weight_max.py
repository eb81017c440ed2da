"""Chapter 05, [LZB] Eq 2's per-weight clause (lib.chapters.non_constancy.kernel_width.check_weight_max_move): the
largest move of one weight, recorded by GD on a tiny real net, and the decay rule at its boundaries."""
from dataclasses import replace

import numpy as np

from lib.chapters import non_constancy as NC
from lib.data import synthetic_regression
from chapter_fakes import non_constancy as F


def test_train_tracked_records_the_largest_move_of_one_weight():
    data = synthetic_regression(6, 3, 2, seed=0)
    r = NC.train_tracked("linear", data, 16, 0, max_steps=50, rel_tol=1e-2, track_every=10, lr_scale=1.0)
    layers = np.asarray(r["weight_max_layers"])
    assert len(layers) == 2 and r["weight_max"] == layers.max() > 0
    n_weights = 16 * 3 + 16
    # the largest entry of a vector lies between its Euclidean norm over sqrt(length) and that norm
    assert r["weight_move"] / np.sqrt(n_weights) <= r["weight_max"] <= r["weight_move"]


def test_check_weight_max_move():
    c = NC.check_weight_max_move(F.make_runs())
    assert c.status == "reproduced" and c.claim_id == "[LZB] Eq 2" and c.part == "per weight"
    assert "per weight matrix, input layer first: -0.50, -0.50" in c.measured
    assert NC.check_weight_max_move(F.make_runs(max_move_slope=0.0)).status == "not reproduced"  # an O(1) move
    assert NC.check_weight_max_move(F.make_runs(max_move_slope=-1.0)).status == "reproduced"  # a bound
    assert NC.check_weight_change(F.make_runs()).part == "total distance"
    runs = F.make_runs()
    assert NC.check_weight_max_move(replace(runs, df=runs.df.drop(columns="weight_max"))).status == "not checked"


def test_check_weight_max_move_boundaries():
    def status(s):
        return NC.check_weight_max_move(F.make_runs(max_move_slope=s)).status
    assert status(NC.VANISHING * 1.01) == "reproduced"
    assert status(NC.VANISHING * 0.99) == "reproduced with caveat"
    assert status(-NC.FLAT * 1.01) == "reproduced with caveat"
    assert status(-NC.FLAT * 0.99) == "not reproduced"


def test_check_weight_max_move_reads_the_linear_output_nets_only():
    runs = F.make_runs()
    lin = runs.df.arch == "linear"
    flat_nl = runs.df.assign(weight_max=np.where(lin, runs.df.weight_max, 0.5))
    assert NC.check_weight_max_move(replace(runs, df=flat_nl)).status == "reproduced"
    flat_lin = runs.df.assign(weight_max=np.where(lin, 0.5, runs.df.weight_max))
    assert NC.check_weight_max_move(replace(runs, df=flat_lin)).status == "not reproduced"
