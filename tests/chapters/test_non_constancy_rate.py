"""Chapter 05, [LZB] Thm 5.1's "exponentially" (lib.chapters.non_constancy.convergence.check_convergence_rate): the
late-phase rates of the log loss, an exponential against a power law, on the nets that meet the premise (the output's
derivative separated from zero), at every boundary."""
from dataclasses import replace

import numpy as np
import pytest

from lib.chapters import non_constancy as NC
from chapter_fakes import non_constancy as F


def _with_wide_losses(runs, loss):
    """The runs with the loss curve of every widest non-linear net replaced by ``loss`` (an array)."""
    df = runs.df.copy()
    wide = (df.width == max(runs.widths)) & df.arch.isin(NC.NONLINEAR)
    df.loc[wide, "loss"] = df[wide].apply(lambda r: np.asarray(loss, dtype=float), axis=1)
    return replace(runs, df=df)


def _two_rates(ratio, T=400, r3=0.02):
    """A loss whose log falls at 0.05 per step over the first half, r3 over the third quarter and ratio * r3 over
    the last."""
    t = np.arange(T + 1)
    a, b = T // 2, 3 * T // 4
    y = np.where(t <= a, -0.05 * t, -0.05 * a - r3 * (t - a))
    y = np.where(t <= b, y, -0.05 * a - r3 * (b - a) - ratio * r3 * (t - b))
    return np.exp(y)


def test_late_rates():
    r3, r4 = NC.late_rates(0.9 ** np.arange(101))
    assert r3 == pytest.approx(-np.log(0.9)) and r4 == pytest.approx(-np.log(0.9))
    r3, r4 = NC.late_rates(1.0 / (1.0 + np.arange(10001)))  # a power law: the rate falls like 1/t
    assert r4 / r3 == pytest.approx(np.log(4 / 3) / np.log(3 / 2), abs=1e-3)
    r3, r4 = NC.late_rates(_two_rates(0.5))
    assert r3 == pytest.approx(0.02) and r4 == pytest.approx(0.01)


def test_an_exponential_loss_is_reproduced():
    c = NC.check_convergence_rate(F.make_runs())
    assert c.status == "reproduced" and c.claim_id == "[LZB] Thm 5.1" and c.part == "exponential rate"
    assert "1.00 (swish, seed 0" in c.measured and "smallest slope 0.45 of its sup" in c.measured
    assert "the linear-output nets' ratios (the control) are 1.00, 1.00" in c.measured and "0 of 4 below 0.85" in c.measured
    assert NC.check_convergence(F.make_runs()).part == "PL guarantee"


def test_a_power_law_where_the_premise_holds_is_not_reproduced_and_outside_it_is_not_judged():
    power = 1.0 / (1.0 + np.arange(1501))
    assert NC.check_convergence_rate(_with_wide_losses(F.make_runs(), power)).status == "not reproduced"
    # the kernel's smallest eigenvalue collapsing along the path is no excuse: the premise is the output's slope
    assert NC.check_convergence_rate(_with_wide_losses(F.make_runs(nl_lam_end=1e-9), power)).status == "not reproduced"
    # outside the premise (softmax), a power law is reported, not judged
    runs = F.make_runs(nl_out_slope={"softmax": 0.0})
    df = runs.df.copy()
    soft = (df.width == max(runs.widths)) & (df.arch == "softmax")
    df.loc[soft, "loss"] = df[soft].apply(lambda r: power, axis=1)
    out = NC.check_convergence_rate(replace(runs, df=df))
    assert out.status == "reproduced" and "Outside the theorem" in out.measured and "softmax, seed" not in out.measured
    stalled = NC.check_convergence_rate(_with_wide_losses(F.make_runs(), np.ones(200)))
    assert stalled.status == "not reproduced"  # a loss that stopped falling has ratio 0


def test_exp_ratio_boundary():
    def status(ratio):
        return NC.check_convergence_rate(_with_wide_losses(F.make_runs(), _two_rates(ratio))).status
    assert status(NC.EXP_RATIO_MIN * 1.01) == "reproduced"
    assert status(NC.EXP_RATIO_MIN * 0.99) == "not reproduced"
    assert status(1.5) == "reproduced"  # a rate that grows: faster than exponential
    assert NC.EXP_RATIO_MIN > np.log(4 / 3) / np.log(3 / 2)  # a power law is below it


def test_too_short_runs_are_inconclusive():
    short = NC.check_convergence_rate(F.make_runs(nl_steps=NC.RATE_MIN_STEPS - 1))
    assert short.status == "inconclusive" and f"fewer than {NC.RATE_MIN_STEPS} GD steps" in short.caveat
    assert NC.check_convergence_rate(F.make_runs(nl_steps=NC.RATE_MIN_STEPS)).status == "reproduced"


def test_a_failing_control_is_inconclusive():
    """The widest linear-output nets (a constant kernel: a sum of exponentials) must pass the rule themselves."""
    def status(control_ratio, nl_loss=None):
        runs = F.make_runs() if nl_loss is None else _with_wide_losses(F.make_runs(), nl_loss)
        df = runs.df.copy()
        lin = (df.width == max(runs.widths)) & (df.arch == "linear")
        df.loc[lin, "loss"] = df[lin].apply(lambda r: _two_rates(control_ratio), axis=1)
        return NC.check_convergence_rate(replace(runs, df=df))
    low = status(NC.EXP_RATIO_MIN * 0.99)
    assert low.status == "inconclusive" and "the control fails" in low.caveat
    assert status(NC.EXP_RATIO_MIN * 1.01).status == "reproduced"
    power = 1.0 / (1.0 + np.arange(1501))
    assert status(NC.EXP_RATIO_MIN * 0.99, power).status == "inconclusive"  # even a power law is not judged
    assert status(NC.EXP_RATIO_MIN * 1.01, power).status == "not reproduced"


def test_the_control_counts_from_rate_min_steps_on():
    """A widest linear-output run of exactly RATE_MIN_STEPS steps is a control; one step fewer is not."""
    def status(steps):
        runs = F.make_runs()
        df = runs.df.copy()
        lin = (df.width == max(runs.widths)) & (df.arch == "linear")
        slow = 1.0 / (1.0 + np.arange(steps + 1)) ** 3     # a power law: ratio below EXP_RATIO_MIN
        df.loc[lin, "loss"] = df[lin].apply(lambda r: slow, axis=1)
        return NC.check_convergence_rate(replace(runs, df=df))
    assert status(NC.RATE_MIN_STEPS).status == "inconclusive"
    assert status(NC.RATE_MIN_STEPS - 1).status == "reproduced"
