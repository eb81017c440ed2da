"""[AAK] Def 3.1, Lemma C.2 and App. C.4: the coefficient of non-linearity mu, measured three ways.

``measure_mu`` computes mu of every activation of [AAK] App. C.4's table (identity, 2nd Hermite polynomial, ReLU,
step, exponential, NormReLU) and of the chapter's [AAK] study by the quadrature the chapter uses everywhere
(:func:`lib.theory.coefficient_of_nonlinearity`), by a Monte Carlo of Def 3.1 on the torch function the networks
evaluate, and by App. C.4's second formula through the dual activation of the un-normalized s; the closed forms are
those of :mod:`lib.theory.nonlinearity`. ``table_mu`` shows them; the ``check_*`` functions judge them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from lib import theory
from lib.activations import ACTIVATIONS, Activation, aak_activation, normalized
from lib.book.results import Check
from lib.chapters.infinite_depth.numerics import deviation_text, not_checked
from lib.validation import check_seed

__all__ = ["MU_TABLE", "MC_BATCHES", "DUAL_STEP", "MuStudy", "measure_mu", "table_mu", "MU_ATOL", "MU_DUAL_ATOL", "MU_SIGMAS", "MU_FLOOR",
           "check_def31", "check_lemma_c2", "check_mu_table"]

#: [AAK] App. C.4's rows -- the name of the activation and where it comes from (the networks' registry or the
#: appendix activations of :func:`lib.activations.aak_activation`).
MU_TABLE = ("linear", "hermite2", "relu", "step", "exp", "normrelu")

#: Step of the central difference of the dual activation at 0 (App. C.4's formula) -- its truncation error is about
#: h^2 s_hat'''(0) / 6, below 1e-8 for the activations here, and its rounding error about 1e-16 / h = 1e-12.
DUAL_STEP = 1e-4

#: Monte Carlo batches of Def 3.1 (the standard error of mu is the spread of the batch estimates).
MC_BATCHES = 20



@lru_cache(maxsize=None)
def _normalized(name: str) -> Activation:
    act = aak_activation(name)
    return act if name == "normrelu" or name.startswith("norm_") else normalized(act)


@dataclass(frozen=True, eq=False)
class MuStudy:
    """mu of every activation of [AAK] App. C.4's table and of the chapter's [AAK] study, with its settings.

    Attributes:
        frame: one row per activation: ``activation``, ``in_table`` (a row of App. C.4), ``linear`` (an affine
            activation, mu = 0 by definition), ``closed_form`` (App. C.4; NaN off the table), ``quadrature`` (the
            mu the chapter uses, :func:`lib.theory.coefficient_of_nonlinearity`), ``dual_formula`` (App. C.4's
            1 - s_hat'(0) / (s_hat(1) - s_hat(0)) from the dual activation of the un-normalized s, a central
            difference of :func:`lib.theory.dual_expectations`), ``mc`` and ``mc_se`` (Def 3.1 by Monte Carlo of the
            normalized torch function, and its standard error).
        samples: Gaussian draws of the Monte Carlo.
        seed: its seed.
    """

    frame: pd.DataFrame
    samples: int
    seed: int


def _dual_formula(act: Activation) -> float:
    """1 - s_hat'(0) / (s_hat(1) - s_hat(0)) for the un-normalized dual s_hat(rho) = E[s(u) s(v)] ([AAK] App. C.4)."""
    h = DUAL_STEP
    ess, _ = theory.dual_expectations(act, np.arccos([-h, h]), 1.0, 1.0, "direct")
    m = theory.gaussian_moments(act)
    return 1.0 - (ess[1] - ess[0]) / (2 * h) / (m.second - m.mean ** 2)


def _monte_carlo(act: Activation, samples: int, seed: int) -> tuple[float, float]:
    """Def 3.1 on the torch function, 1 - (E[z s(z)])^2, per batch of draws; (mean, standard error).

    Each batch estimates (E[z s])^2 by the product of the means of its two halves, which is unbiased (the square of
    one mean is biased upwards by its variance, 5e-5 for the 2nd Hermite polynomial at 1e5 draws: 3 standard errors).
    """
    import torch
    g = torch.Generator().manual_seed(seed)
    z = torch.randn(MC_BATCHES, 2, samples // (2 * MC_BATCHES), generator=g, dtype=torch.float64)
    m = (z * act(z)).mean(dim=2)
    mus = (1.0 - m[:, 0] * m[:, 1]).numpy()
    return float(mus.mean()), float(mus.std(ddof=1) / math.sqrt(MC_BATCHES))


def measure_mu(cfg, samples: int = 1_000_000, seed: int = 0) -> MuStudy:
    """mu of App. C.4's activations and of the chapter's [AAK] study, three ways ([AAK] Def 3.1, App. C.4).

    Args:
        cfg: the chapter's parameters (:data:`lib.chapters.infinite_depth.spec.SPEC`); read: ``aak_activations``.
        samples: Gaussian draws of the Monte Carlo (in :data:`~lib.chapters.infinite_depth.aak_mu.MC_BATCHES` batches).
        seed: their seed.

    Returns:
        A :class:`lib.chapters.infinite_depth.aak_mu.MuStudy`.
    """
    seed = check_seed(seed)
    b = ACTIVATIONS["normrelu"].kinks[0]
    names = list(MU_TABLE) + [a for a in cfg.aak_activations if a not in MU_TABLE]
    rows = []
    for i, name in enumerate(names):
        act = aak_activation(name)
        closed = (theory.normrelu_mu(b) if name == "normrelu" else theory.MU_CLOSED_FORMS.get(name, math.nan))
        mc, se = _monte_carlo(_normalized(name), samples, seed + i)
        rows.append(dict(activation=name, in_table=name in MU_TABLE, linear=name == "linear", closed_form=closed,
                         quadrature=theory.coefficient_of_nonlinearity(act), dual_formula=_dual_formula(act),
                         mc=mc, mc_se=se))
    return MuStudy(pd.DataFrame(rows), int(samples), int(seed))


def table_mu(st: MuStudy) -> pd.DataFrame:
    """[AAK] App. C.4's table beside this book's three measurements of mu (rounded for reading).

    Args:
        st: the data of :func:`lib.chapters.infinite_depth.aak_mu.measure_mu`.

    Returns:
        Columns activation, App. C.4 (closed form), quadrature, dual formula, Monte Carlo (mean +- standard error).
    """
    f = st.frame
    return pd.DataFrame({
        "activation": f.activation,
        "App. C.4": f.closed_form.map(lambda v: "—" if math.isnan(v) else f"{v:.6f}"),
        "quadrature": f.quadrature.map(lambda v: f"{v:.6f}"),
        "dual formula": f.dual_formula.map(lambda v: f"{v:.6f}"),
        "Monte Carlo": [f"{m:.4f} ± {s:.1e}" for m, s in zip(f.mc, f.mc_se)]})


#: The largest ``|quadrature - closed form|`` of mu that counts as agreement ([AAK] App. C.4, Lemma C.2's bounds): the
#: kink-aware quadrature is exact to about 1e-13 (measured differences below 1e-14), so 1e-9 only absorbs rounding,
#: while a wrong closed form (a misprinted constant) is off by 1e-3 or more.
MU_ATOL = 1e-9

#: The largest ``|dual formula - quadrature|`` ([AAK] App. C.4's second formula): the central difference of step
#: :data:`~lib.chapters.infinite_depth.aak_mu.DUAL_STEP` is accurate to about 1e-8 (measured below 1e-9); a slope off by a factor is off by 1e-2 or more.
MU_DUAL_ATOL = 1e-6

#: The band, in standard errors, within which the Monte Carlo of Def 3.1 must meet the quadrature: a 5-sigma band has a
#: false alarm below 1e-6 per activation; with 1e6 draws the standard error is at most 3e-3, and a 1% error of the
#: torch function's scale moves mu by 2% of 1 - mu (0.015 for ReLU), 5 standard errors.
MU_SIGMAS = 5.0

#: mu at or below this counts as 0 ([AAK] Lemma C.2 -- mu > 0 for every non-linear activation), rounding is about 1e-15.
MU_FLOOR = 1e-9


def _holds_row(statement: str, paper: str, book: str, rule: str, holds: bool | None) -> dict:
    return {"statement": statement, "paper": paper, "this book": book, "rule": rule, "holds": holds}


def check_mu_table(st: MuStudy) -> Check:
    """[AAK] App. C.4: the table of mu (identity 0, 2nd Hermite 1, ReLU 1 - pi/(2(pi - 1)), step 1 - 2/pi, exponential
    (e - 2)/(e - 1), NormReLU 1 - lambda_b^2 (1 - Phi(b))^2) and its formula through the dual activation.

    Measurement: per row of the table, the quadrature mu the chapter uses and App. C.4's second formula
    1 - s_hat'(0) / (s_hat(1) - s_hat(0)) (central difference of the dual activation). Rule: "reproduced" if every
    closed form meets the quadrature within :data:`~lib.chapters.infinite_depth.aak_mu.MU_ATOL` (1e-9; the quadrature
    is exact to 1e-13) and the dual formula meets it within
    :data:`~lib.chapters.infinite_depth.aak_mu.MU_DUAL_ATOL` (1e-6, the central difference's accuracy); "not
    reproduced" otherwise; "not checked" without a row of the table.

    Args:
        st: the data of :func:`lib.chapters.infinite_depth.aak_mu.measure_mu`.

    Returns:
        The verdict, with one judged row per activation of the table.
    """
    t = st.frame[st.frame.in_table]
    if t.empty:
        return not_checked("[AAK] App C.4", "No activation of App. C.4's table in this run.", "no row of the table")
    closed_ok = (t.quadrature - t.closed_form).abs() <= MU_ATOL
    dual_ok = (t.dual_formula - t.quadrature).abs() <= MU_DUAL_ATOL
    rule = f"|quadrature - closed form| <= {MU_ATOL:g} and |dual formula - quadrature| <= {MU_DUAL_ATOL:g}"
    rows = tuple(_holds_row(f"mu of the normalized {r.activation}", f"{r.closed_form:.6f}",
                            f"{r.quadrature:.6f} (dual formula {r.dual_formula:.6f})", rule, bool(a and b))
                 for r, a, b in zip(t.itertuples(), closed_ok, dual_ok))
    return Check(
        "[AAK] App C.4", status="reproduced" if bool(closed_ok.all() and dual_ok.all()) else "not reproduced",
        rows=rows,
        measured="mu, App. C.4's closed form against the quadrature (and the dual formula): " + "; ".join(
            f"{r.activation} {r.closed_form:.6f} vs {r.quadrature:.6f} (difference "
            f"{deviation_text(r.quadrature - r.closed_form, 1e-12)}; dual formula {r.dual_formula:.6f})"
            for r in t.itertuples()) + ".")


def check_def31(st: MuStudy) -> Check:
    """[AAK] Def 3.1: mu = 1 - (E[z s(z)])^2 of the normalized s, the constant every [AAK] rate of the chapter uses.

    Measurement: Def 3.1 by Monte Carlo of the normalized torch function the networks evaluate (``samples`` draws in
    20 batches, each with an unbiased estimate of (E[z s])^2; standard error from the batches), against the quadrature mu the chapter's checks use. Rule:
    "reproduced" if every activation's Monte Carlo meets the quadrature within
    :data:`~lib.chapters.infinite_depth.aak_mu.MU_SIGMAS` (5) standard errors; "not reproduced" otherwise; "not
    checked" without an activation.

    Args:
        st: the data of :func:`lib.chapters.infinite_depth.aak_mu.measure_mu`.

    Returns:
        The verdict.
    """
    f = st.frame
    if f.empty:
        return not_checked("[AAK] Def 3.1", "No activation in this run.", "no activation")
    z = (f.mc - f.quadrature).abs() / f.mc_se.where(f.mc_se > 0, np.finfo(float).tiny)
    ok = z <= MU_SIGMAS
    return Check(
        "[AAK] Def 3.1", status="reproduced" if bool(ok.all()) else "not reproduced",
        measured=f"Def 3.1 by Monte Carlo ({st.samples:,} draws of the normalized torch function) against the "
        "quadrature mu of the chapter: " + "; ".join(
            f"{r.activation} {r.mc:.5f} +- {r.mc_se:.1e} vs {r.quadrature:.5f} ({zz:.1f} se)"
            for r, zz in zip(f.itertuples(), z)) + ".")


def check_lemma_c2(st: MuStudy) -> Check:
    """[AAK] Lemma C.2: mu lies in (0, 1] for every non-linear normalized activation (and is 0 for a linear one).

    Measurement: the quadrature mu of every activation of the run (App. C.4's table and the chapter's study); the
    tests add random normalized polynomials (a property test). Rule: "reproduced" if every non-linear activation
    has :data:`~lib.chapters.infinite_depth.aak_mu.MU_FLOOR` (1e-9, rounding) < mu <= 1 +
    :data:`~lib.chapters.infinite_depth.aak_mu.MU_ATOL`; "not reproduced" otherwise; "not checked" without a
    non-linear activation. The linear activation's mu (0) is reported, not judged: the lemma excludes it.

    Args:
        st: the data of :func:`lib.chapters.infinite_depth.aak_mu.measure_mu`.

    Returns:
        The verdict.
    """
    f = st.frame
    nl = f[~f.linear]
    if nl.empty:
        return not_checked("[AAK] Lemma C.2", "No non-linear activation in this run.", "no non-linear activation")
    ok = (nl.quadrature > MU_FLOOR) & (nl.quadrature <= 1.0 + MU_ATOL)
    lin = f[f.linear]
    return Check(
        "[AAK] Lemma C.2", status="reproduced" if bool(ok.all()) else "not reproduced",
        measured=f"mu of {len(nl)} non-linear normalized activations lies in [{nl.quadrature.min():.4g}, "
        f"{nl.quadrature.max():.4g}]: " + ", ".join(f"{r.activation} {r.quadrature:.4g}" for r in nl.itertuples())
        + ("" if bool(ok.all()) else "; outside (0, 1]: " + ", ".join(nl.activation[~ok]))
        + "".join(f"; the identity has mu = {deviation_text(r.quadrature, 1e-12)}"
                  for r in lin.itertuples()) + ".")
