"""Chapter 05 along training (lib.chapters.non_constancy.convergence): [LZB] Thm 5.1 on the nets that meet its
premise (the output's derivative separated from zero; softmax is outside), the proof's guarantee tested as a bound
(binding, and kept), a vacuous guarantee inconclusive, every threshold at its boundary; Figures 5.3 and 5.6."""
from dataclasses import replace

import numpy as np
import pytest
from matplotlib.figure import Figure

from lib.chapters import non_constancy as NC
from chapter_fakes import non_constancy as F

LR, LR_SCALE = 0.5, 1.8  # the fakes' step and step factor


def _mu_for_budget(g, max_steps=1500):
    """The PL constant whose guarantee over the step budget is g: q^max_steps = g, q = 1 - lr mu (2 - lr_scale)."""
    return (1 - g ** (1 / max_steps)) / (LR * (2 - LR_SCALE))


def _with_wide_losses(runs, loss):
    """The runs with the loss curve of every widest non-linear net replaced by ``loss(row)``."""
    df = runs.df.copy()
    wide = (df.width == max(runs.widths)) & df.arch.isin(NC.NONLINEAR)
    df.loc[wide, "loss"] = df[wide].apply(loss, axis=1)
    return replace(runs, df=df)


def test_a_binding_premise_and_a_loss_under_its_guarantee_is_reproduced():
    c = NC.check_convergence(F.make_runs())
    assert c.status == "reproduced" and "in 4 of 4 runs" in c.measured and c.caveat == ""
    assert "it binds on 4 of 4 nets, and 0 of them broke it" in c.measured and "Outside" not in c.measured
    # slowness against the linear output is reported, not judged: the theorem bounds the loss, not the step count
    slow = NC.check_convergence(F.make_runs(nl_steps=1500))
    assert slow.status == "reproduced" and "mean 1500 steps, against 100 for the linear output" in slow.measured


def test_a_loss_above_a_binding_guarantee_is_not_reproduced():
    c = NC.check_convergence(F.make_runs(nl_loss_rate=1.0))  # a stall, while the premise promises 0.95^t
    assert c.status == "not reproduced" and "4 of them broke it" in c.measured and c.caveat == ""
    # the loss is read relative to L(0): scaling it changes nothing
    assert NC.check_convergence(_with_wide_losses(F.make_runs(), lambda r: 4 * np.asarray(r.loss))).status == "reproduced"


def test_a_vacuous_guarantee_is_inconclusive_however_fast_the_loss_fell():
    """The smallest eigenvalue collapses along the path: the guarantee is 1."""
    c = NC.check_convergence(F.make_runs(nl_lam_end=1e-9))
    assert c.status == "inconclusive" and "guarantee is vacuous" in c.caveat and "binds on 0 of 4" in c.measured
    stalled = NC.check_convergence(F.make_runs(nl_lam_end=1e-9, nl_loss_rate=1.0))
    assert stalled.status == "inconclusive"  # nothing the theorem promised was broken


def test_a_guarantee_that_binds_on_some_nets_only_is_a_caveat():
    c = NC.check_convergence(F.make_runs(nl_lam_end={"softmax": 1e-9}))
    assert c.status == "reproduced with caveat" and c.caveat == "the guarantee binds on 2 of 4 nets only"
    # a vacuous net's stall does not count, a binding net's does
    assert NC.check_convergence(F.make_runs(nl_lam_end={"softmax": 1e-9}, nl_loss_rate=1.0)).status == "not reproduced"


def test_pl_binding_boundary():
    def status(g):
        return NC.check_convergence(F.make_runs(nl_lam_end=_mu_for_budget(g))).status
    assert status(NC.PL_BINDING * 0.99) == "reproduced"
    assert status(NC.PL_BINDING * 1.01) == "inconclusive"
    # a guarantee of exactly PL_BINDING binds: mu = 1 along the path, eta = 1/2, eta beta = 1, one step: q = 1/2
    exact = replace(F.make_runs(lr_scale=1.0, nl_lam_end=1.0, nl_loss_rate=0.5), max_steps=1)
    assert NC.pl_rate(exact.df.iloc[1], 1.0) ** exact.max_steps == NC.PL_BINDING
    assert NC.check_convergence(exact).status == "reproduced"


def test_the_thresholds_values():
    """A guarantee of 0.3 over the budget binds and one of 0.7 does not; a loss 5% above a binding guarantee at one
    step keeps it (within the sampling of mu), one 20% above breaks it."""
    assert NC.check_convergence(F.make_runs(nl_lam_end=_mu_for_budget(0.3))).status == "reproduced"
    assert NC.check_convergence(F.make_runs(nl_lam_end=_mu_for_budget(0.7))).status == "inconclusive"

    def above(frac):
        def loss(r):
            g = NC.pl_guarantee(r, LR_SCALE)
            out = 0.5 * g
            out[0], out[5] = 1.0, g[5] * (1 + frac)
            return out
        return NC.check_convergence(_with_wide_losses(F.make_runs(), loss)).status
    assert above(0.05) == "reproduced" and above(0.2) == "not reproduced"


def test_pl_rtol_boundary():
    def status(k):
        def loss(r):
            g = NC.pl_guarantee(r, LR_SCALE)
            out = 0.5 * g
            out[0], out[5] = 1.0, g[5] * (1 + NC.PL_RTOL * k)  # one step close to the guarantee
            return out
        return NC.check_convergence(_with_wide_losses(F.make_runs(), loss)).status
    assert status(0.99) == "reproduced"
    assert status(1) == "reproduced"  # broken only when above by more than PL_RTOL
    assert status(1.01) == "not reproduced"


def test_the_guarantee_uses_the_step_factor():
    r = F.make_runs().df.iloc[1]  # a swish net: mu = 0.5, lr = 0.5
    assert NC.pl_rate(r, 1.0) == pytest.approx(1 - 0.5 * 0.5)  # [LZB] Thm 5.1 at eta = 1/beta: 1 - eta mu
    assert NC.pl_rate(r, 1.8) == pytest.approx(1 - 0.25 * 0.2)
    assert NC.pl_rate(r, 2.0) == 1.0 and NC.pl_rate(r, 0.0) == 0.5
    assert NC.pl_rate(r, 2.5) == 1.0  # clipped: beyond eta beta = 2 the descent lemma promises nothing
    np.testing.assert_allclose(NC.pl_guarantee(r, 1.0), 0.75 ** np.arange(len(r.loss)))
    # a step of 2/beta or more: PL* promises nothing, the guarantee is vacuous
    assert NC.check_convergence(F.make_runs(lr_scale=2.0)).status == "inconclusive"


def test_the_sentence_reports_each_output_and_the_widest_linear_nets():
    runs = F.make_runs(nl_lam_end={"swish": 0.5, "softmax": 0.25})
    df = runs.df.copy()
    df["lambda_min"] = df.lambda_min.apply(lambda v: 2 * np.asarray(v))  # lambda_min(K_0) = 2: the ratio is unchanged
    narrow_lin = (df.arch == "linear") & (df.width < max(runs.widths))
    df.loc[narrow_lin, "steps"] = 700  # only the widest linear nets are compared
    c = NC.check_convergence(replace(runs, df=df))
    assert "fell to 0.5 (swish), 0.25 (softmax) of its initial value" in c.measured
    assert "against 100 for the linear output" in c.measured
    q = {a: NC.pl_rate(replace(runs, df=df).df.query("arch == @a and width == 2000").iloc[0], runs.lr_scale)
         ** runs.max_steps for a in ("swish", "softmax")}
    assert f"is at least {q['swish']:.3g} (swish), {q['softmax']:.3g} (softmax)" in c.measured


def test_only_the_widest_nets_are_judged():
    runs = F.make_runs()
    df = runs.df.copy()
    narrow = (df.width < max(runs.widths)) & df.arch.isin(NC.NONLINEAR)
    df.loc[narrow, "loss"] = df[narrow].apply(lambda r: np.ones(len(r.loss)), axis=1)  # stalls, below the widest
    assert NC.check_convergence(replace(runs, df=df)).status == "reproduced"


@pytest.mark.parametrize("plot,n_axes", [("plot_kernel_paths", 1), ("plot_convergence", 2)])
def test_plots_return_figures(plot, n_axes):
    fig = getattr(NC, plot)(F.make_runs())
    assert isinstance(fig, Figure) and len(fig.axes) == n_axes


def test_figures_name_their_code_and_setting():
    paths = NC.figure_kernel_paths(F.make_runs())
    assert paths["drawn_by"] is NC.plot_kernel_paths and NC.train_tracked in paths["data_from"]
    assert "(b = 4, m = 256), seed 0" in paths["setting"] and "kernel every 10 steps" in paths["setting"]
    conv = NC.figure_convergence(F.make_runs())
    assert conv["label"] == "fig-moving-kernel-convergence" and r"$q = 1-\eta\mu(2-\eta\beta)$" in conv["caption"]
    assert "the widest nets (m = 2,000), seed 0" in conv["setting"] and "Thm 5.1" in conv["setting"]


def test_nets_outside_the_premise_are_reported_never_judged():
    """Softmax's Jacobian diag(p) - p p^T is singular: its derivative is not separated from zero."""
    out = NC.check_convergence(F.make_runs(nl_out_slope={"softmax": 0.0}))
    assert out.status == "reproduced" and "in 2 of 2 runs" in out.measured
    assert "Outside the theorem (the output's derivative is not separated from zero): softmax" in out.measured
    # a softmax net that breaks the guarantee outside the theorem changes nothing; a swish net inside does
    runs = F.make_runs(nl_out_slope={"softmax": 0.0})
    stall = _with_wide_losses(runs, lambda r: np.ones(len(r.loss)) if r.arch == "softmax" else np.asarray(r.loss))
    assert NC.check_convergence(stall).status == "reproduced"
    none = NC.check_convergence(F.make_runs(nl_out_slope=0.0))
    assert none.status == "not checked" and none.caveat.startswith("outside the theorem")
    assert NC.check_convergence_rate(F.make_runs(nl_out_slope=0.0)).status == "not checked"


def test_slope_min_boundary():
    def judged(frac):
        return NC.output_premise(F.make_runs(nl_out_slope=frac)).premise.all()
    assert judged(NC.SLOPE_MIN * 1.01) and judged(NC.SLOPE_MIN) and not judged(NC.SLOPE_MIN * 0.99)
    assert NC.check_convergence(F.make_runs(nl_out_slope=NC.SLOPE_MIN * 0.99)).status == "not checked"
    assert NC.check_convergence(F.make_runs(nl_out_slope=NC.SLOPE_MIN * 1.01)).status == "reproduced"


def test_the_premise_is_read_on_the_path():
    """OutputSlopeTracker: |swish'| of the base outputs at every step, 0 for softmax, 1 for a linear output."""
    import torch
    from lib.data import synthetic_regression
    from lib.finite.wrapped import swish_deriv
    data = synthetic_regression(8, 4, 3, seed=0)
    sw = NC.train_tracked("swish", data, 64, 0, max_steps=30, rel_tol=1e-9, track_every=10)
    assert len(sw["output_slope"]) == len(sw["loss"])
    assert sw["output_slope"][0] == pytest.approx(0.5)        # centred: every output starts at swish'(0) = 1/2
    sm = NC.train_tracked("softmax", data, 64, 0, max_steps=5, rel_tol=1e-9, track_every=10)
    assert np.max(sm["output_slope"]) < 1e-12
    lin = NC.train_tracked("linear", data, 64, 0, max_steps=5, rel_tol=1e-9, track_every=10)
    assert np.all(lin["output_slope"] == 1.0)
    model, _ = NC.build("swish", 4, 64, 0)
    tr = NC.OutputSlopeTracker(data["X"])
    tr(model, 0)
    tr(model, 0, last=True)          # the final call at a step already recorded adds nothing
    assert len(tr.values) == 1
    with torch.no_grad():
        model.net.weights[-1].add_(1.0)
    tr(model, 1)
    with torch.no_grad():
        z = model.base_output(model.prepare(data["X"]))
    assert tr.values[1] == pytest.approx(float(swish_deriv(z).abs().min())) and tr.values[1] != pytest.approx(0.5)
