"""Chapter 06, [LH] Figure 4 and Table 1: loss curves, accuracy table, figures, verdicts and the chapter's text.

A verdict that contradicts the paper is "not reproduced" only under the paper's protocol
(:func:`lib.chapters.optimization.sgd.protocol_deviations` empty). Below the paper's budget
(fewer than 10^4 updates, fewer seeds, a rate at the grid's edge, ...) every verdict is
"inconclusive", naming the deviations; on another data set at the paper's budget an agreeing
measurement is "reproduced with caveat".

Each check returns the statements it judged (:attr:`lib.book.results.Check.rows`): the "paper vs
this book" table of [LH] Table 1 (:func:`table_table1_vs_paper`) renders them and judges nothing.
:func:`sgd_setting` and :func:`sgd_glue` write the setting line under a figure and the values the
prose shows, from the studies as they ran.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from scipy.stats import spearmanr

from lib.book.plotting import figure, palette
from lib.book.results import Check
from lib.book.wording import floats, ints, paper_vs_book
from lib.chapters.optimization.sgd import (FOLDER_PARAMS, MNIST_SETS, PAPER_PROTOCOL, SGDStudies, SGDStudy,
                                           deviation_levels, protocol_deviations)
from lib.validation import InputError

__all__ = ["PAPER_TABLE1", "SPEED_RHO", "SE_MULTIPLE", "LOSS_FLOOR", "late_loss_table", "depth_pairs",
           "check_depth_speed", "accuracy_table", "table1_statements", "check_accuracy", "table_table1_vs_paper",
           "table_loss_curves", "plot_loss_curves", "plot_accuracy", "sgd_setting", "sgd_glue"]

#: Test accuracy (%) on MNIST by depth, [LH] Table 1.
PAPER_TABLE1 = {1: 95.98, 3: 97.43, 6: 97.57, 8: 97.52, 10: 97.39, 12: 97.19}

#: Late losses below this are rounding level (float32 cross-entropy reaches exactly 0); floored here.
LOSS_FLOOR = 1e-30

#: Spearman correlation of depth with the late loss below which the order counts as "deeper is faster"
#: ([LH] Figure 4): -0.5, a clearly falling order on balance; it is not a noise test (the seed noise is
#: judged pair by pair in :func:`check_depth_speed`), only the guard that the order goes with depth.
SPEED_RHO = -0.5

#: A difference of two seed means counts ("beyond the seed noise") when it exceeds this multiple of its
#: standard error sqrt(sd_a^2/n_a + sd_b^2/n_b): 2 is about a 95 % two-sided level.
SE_MULTIPLE = 2.0


def _verdict(agrees: bool, contradicts: bool, study: SGDStudy, partial: str, table: bool = False) -> tuple[str, str]:
    """(status, caveat) from the measurement's direction and the study's deviations from the paper's protocol.

    By :func:`lib.chapters.optimization.sgd.deviation_levels`: a budget deviation (fewer epochs or
    seeds, another batch, a rate at the grid's edge, a diverged run) means the run cannot resolve
    the claim: "inconclusive" whatever the direction. Another data set at the paper's budget:
    agreement is "reproduced with caveat", anything else "inconclusive". Otherwise (MNIST, or a
    subset of its images, at the paper's 500 epochs) the verdict is decisive: agree -> "reproduced",
    contradict -> "not reproduced", between -> "reproduced with caveat"; the named deviations
    (fewer training images, a shorter rate search) are quoted in the caveat.
    """
    lv = deviation_levels(study, table=table)
    named = "; ".join(lv["budget"] + lv["data"] + lv["named"])
    if lv["budget"]:
        return "inconclusive", (f"{partial}; " if not (agrees or contradicts) else "") + named
    if lv["data"]:
        return ("reproduced with caveat", named) if agrees else ("inconclusive", named)
    quoted = f"deviations named: {named}" if named else ""
    if contradicts:
        return "not reproduced", quoted
    if agrees:
        return "reproduced", quoted
    return "reproduced with caveat", partial + (f"; {quoted}" if quoted else "")


def _protocol_row(study: SGDStudy, table: bool) -> dict:
    """The judged row "protocol (sets the verdict level)": the paper's protocol against the study's, with the
    rule the verdict follows; it holds when no deviation limits the verdict level."""
    lv = deviation_levels(study, table=table)
    devs = lv["budget"] + lv["data"] + lv["named"]
    p = PAPER_PROTOCOL
    where = "on MNIST (or MNIST-5k)" if table else "on MNIST (MNIST-5k) or Fashion-MNIST"
    against = ("peak at the shallowest depth or a rise after depth 6 beyond the error" if table
               else "a Spearman correlation >= 0 or the deepest net slower than the shallowest beyond the error")
    return dict(
        statement="protocol (sets the verdict level)",
        paper=f"{p['data']}, {p['n_train']:,} training images, batch {p['batch']}, about {p['updates']:,} SGD updates, "
              f"{p['seeds']} seeds",
        **{"this book": f"{study.data}, {study.n_train:,} training images, batch {study.batch}, {study.updates:,} SGD "
                        f"updates, {study.seeds} seeds"},
        rule=f"{where} at the paper's 500 epochs: the three statements hold -> reproduced; {against} -> not "
             "reproduced; otherwise reproduced with caveat. On other data at the paper's budget: agreement -> reproduced with caveat, "
             "otherwise inconclusive. Fewer epochs or seeds, another batch, a rate at the grid's edge or a diverged "
             "run -> inconclusive. Deviations here: " + ("; ".join(devs) if devs else "none") + ".",
        holds=not (lv["budget"] or lv["data"]))


def late_loss_table(study: SGDStudy) -> pd.DataFrame:
    """Per depth: mean and sd over seeds of log10 of the late-epoch training loss, and the seed count.

    Args:
        study: :func:`lib.chapters.optimization.sgd.measure_sgd_study` output (its runs, at its depths).

    Returns:
        A frame indexed by ``depth`` with ``log10 late loss``, ``sd``, ``seeds`` (finite runs),
        ``diverged`` (runs of the chosen rate whose loss became NaN or inf: left out of the mean,
        and named as a deviation by :func:`lib.chapters.optimization.sgd.protocol_deviations`), ``lr``.
    """
    rows = {}
    runs = study.runs
    for L in study.depths:
        sub = runs[runs.depth == L]
        if sub.empty:
            raise InputError(f"depths: no run at depth {L}")
        # a loss at rounding level (exactly 0 in float32 after long training) is floored at LOSS_FLOOR
        v = np.log10(np.maximum(sub.late_loss.to_numpy(dtype=float), LOSS_FLOOR))
        ok = v[np.isfinite(v)]
        rows[int(L)] = {"log10 late loss": float(np.mean(ok)) if ok.size else np.inf,
                        "sd": float(np.std(ok, ddof=1)) if ok.size > 1 else 0.0,
                        "seeds": int(ok.size), "diverged": int(v.size - ok.size), "lr": float(sub.lr.iloc[0])}
    tab = pd.DataFrame.from_dict(rows, orient="index")
    tab.index.name = "depth"
    return tab


def depth_pairs(tab: pd.DataFrame, value: str = "log10 late loss", sd: str = "sd") -> pd.DataFrame:
    """Every pair of depths (shallower, deeper) of a per-depth table of seed means, with the deeper net's excess.

    Args:
        tab: indexed by depth, with the seed mean in column ``value``, the sd over seeds in ``sd`` and the
            seed count in ``seeds`` (default: :func:`late_loss_table`, whose value is log10 of the late loss).
        value: the column of seed means (lower = the claim's direction, e.g. a lower loss).
        sd: the column of their sd over seeds.

    Returns:
        One row per pair i < j: ``shallow``, ``deep``, ``excess`` (value of the deeper minus the
        shallower; > 0 means the deeper net is worse, e.g. slower), ``se2`` (:data:`~lib.chapters.optimization.figure4.SE_MULTIPLE` times
        the standard error of that difference over seeds), ``inverted`` (excess > 0) and
        ``significant`` (excess > se2).
    """
    rows = []
    idx = list(tab.index)
    for a in range(len(idx)):
        for b in range(a + 1, len(idx)):
            i, j = idx[a], idx[b]
            excess = float(tab.loc[j, value] - tab.loc[i, value])
            se2 = SE_MULTIPLE * float(np.sqrt(tab.loc[i, sd] ** 2 / max(tab.loc[i, "seeds"], 1)
                                              + tab.loc[j, sd] ** 2 / max(tab.loc[j, "seeds"], 1)))
            rows.append(dict(shallow=int(i), deep=int(j), excess=excess, se2=se2, inverted=excess > 0,
                             significant=excess > se2))
    return pd.DataFrame(rows, columns=["shallow", "deep", "excess", "se2", "inverted", "significant"])


def check_depth_speed(study: SGDStudy) -> Check:
    """[LH] Figure 4: "a deeper ReLU network always converges faster" (SGD, cross-entropy, rate tuned per depth).

    The paper's statement: with SGD on cross-entropy and the rate tuned per depth, the deeper net's
    training loss is lower, for every pair of depths ("always"). Measured at the fixed training
    budget on the late-epoch loss (:func:`lib.chapters.optimization.sgd.late_loss`, the last 10 % of
    the epochs), log10, mean and sd over seeds per depth (:func:`late_loss_table`). Every pair of
    depths is compared (:func:`depth_pairs`): a pair is *inverted* when the deeper net ends with the
    higher loss, *significantly* so when by more than
    :data:`~lib.chapters.optimization.figure4.SE_MULTIPLE` (2) standard errors of the difference over
    seeds (about a 95 % level). Three statements are judged:

    - order: the Spearman correlation rho of depth with the mean loss is below
      :data:`~lib.chapters.optimization.figure4.SPEED_RHO` (-0.5) (with two depths, rho is the sign of
      the deeper minus the shallower, Spearman being +-1 or undefined on two points);
    - ends: the deepest net's loss is below the shallowest's by more than 2 standard errors (``diff > se``);
    - always: no pair is significantly inverted (inversions within the seed noise are allowed).

    Rule: it *agrees* if the three hold; it *contradicts* if rho >= 0 (no falling order at all) or
    the deepest net's loss is above the shallowest's by more than 2 standard errors (``diff < -se``);
    otherwise (ordered on balance, but some deeper net significantly slower, or the order or the
    end gap within the noise) it is *between*. The level then follows the protocol
    (:func:`lib.chapters.optimization.sgd.deviation_levels`): agree ->
    "reproduced", contradict -> "not reproduced", between -> "reproduced with caveat" on MNIST (or
    MNIST-5k) at the paper's 500 epochs; "inconclusive" below the paper's budget (fewer epochs or
    seeds, another batch, a rate at the grid's edge, a diverged run); on other data at the paper's
    budget, agreement is "reproduced with caveat" and anything else "inconclusive".

    Args:
        study: :func:`lib.chapters.optimization.sgd.measure_sgd_study` output; the part of the claim it settles
            is its ``part`` (default: the data set's name).

    Returns:
        The check, claim id ``"[LH] Fig 4"``, with the three statements it judged and the protocol as
        :attr:`~lib.book.results.Check.rows`.
    """
    tab = late_loss_table(study)
    m, sd = tab["log10 late loss"], tab["sd"]
    first, last = tab.index[0], tab.index[-1]
    rho = float(spearmanr(tab.index, m).statistic) if len(tab) > 2 else float(np.sign(m[last] - m[first]))
    if not np.isfinite(rho):
        rho = 0.0
    pairs = depth_pairs(tab)
    end = pairs[(pairs.shallow == first) & (pairs.deep == last)].iloc[0]
    diff, se = -float(end.excess), float(end.se2)
    n_inv, n_sig = int(pairs.inverted.sum()), int(pairs.significant.sum())
    agrees = rho < SPEED_RHO and diff > se and n_sig == 0
    contradicts = rho >= 0 or diff < -se
    sig = pairs[pairs.significant]
    status, caveat = _verdict(agrees, contradicts, study,
                              "deeper is faster only on balance: " + (
                                  f"{n_sig} of {len(pairs)} depth pairs are significantly inverted ("
                                  + ", ".join(f"{r.deep} slower than {r.shallow}" for r in sig.head(6).itertuples())
                                  + ("; ..." if n_sig > 6 else "") + ")" if n_sig else "the order is weak"))
    measured = (
        f"On {study.data} ({study.n_train:,} training images, batch {study.batch}, {study.epochs} epochs = "
        f"{study.updates:,} SGD updates, {study.seeds} seeds, width {study.width}, rate chosen per depth), log10 of "
        f"the late-epoch training loss is {', '.join(f'{v:.2f}' for v in m)} at depths {list(tab.index)} (sd over "
        f"seeds up to {sd.max():.2f}); Spearman correlation with depth {rho:.2f} (-1: faster with every added "
        f"layer); depth {first} minus depth {last}: {diff:.2f} (twice the standard error {se:.2f}); deeper net "
        f"slower in {n_inv} of {len(pairs)} depth pairs, {n_sig} beyond twice the standard error."
        f"{(' ' + study.note) if study.note else ''}{f' A record: {study.recorded}.' if study.recorded else ''}")
    rows = (
        dict(statement="deeper nets end lower (Spearman correlation of depth with the late loss)",
             paper="always faster with depth", **{"this book": f"{rho:.2f}"},
             rule=f"a correlation below {SPEED_RHO}; one >= 0 contradicts the paper", holds=rho < SPEED_RHO),
        dict(statement="the deepest net ends below the shallowest",
             paper="yes", **{"this book": f"log10 loss of depth {first} minus depth {last}: {diff:.2f}"},
             rule=f"a difference above twice its standard error ({se:.2f}); one below minus that error contradicts",
             holds=diff > se),
        dict(statement="no deeper net significantly slower (every pair of depths)",
             paper="always", **{"this book": f"{n_sig} of {len(pairs)} pairs inverted beyond the error ({n_inv} inverted)"},
             rule="no pair whose deeper net's log10 loss is higher by more than twice its standard error",
             holds=n_sig == 0),
        _protocol_row(study, table=False))
    return Check("[LH] Fig 4", status=status, measured=measured, caveat=caveat, part=study.name,
                 rows=rows)


def accuracy_table(study: SGDStudy) -> pd.DataFrame:
    """Test accuracy (%) by depth: mean, sd and count over seeds, next to the paper's MNIST numbers ([LH] Table 1).

    Args:
        study: :func:`lib.chapters.optimization.sgd.measure_sgd_study` output (its runs, at its depths).

    Returns:
        A frame indexed by depth: ``mean (%)``, ``sd (%)`` (sd over seeds, ddof 1; 0 with one seed), ``seeds``,
        ``[LH] MNIST (%)`` (NaN at a depth the paper did not run).
    """
    runs = study.runs
    sub = runs[runs.depth.isin(list(study.depths))]
    g = sub.groupby("depth")["test_acc"]
    tab = pd.DataFrame({"mean (%)": 100 * g.mean(), "sd (%)": 100 * g.std(ddof=1).fillna(0.0), "seeds": g.count()})
    tab["[LH] MNIST (%)"] = tab.index.map(PAPER_TABLE1)
    return tab


def table1_statements(acc: pd.DataFrame) -> tuple[tuple[dict, ...], bool]:
    """The three statements of [LH] Table 1 that :func:`check_accuracy` judges, paper beside ours, with the rule.

    Differences count if they exceed twice their standard error 2 sqrt(sd_a^2/n_a + sd_b^2/n_b) over
    seeds (about a 95 % two-sided level; the binomial noise of the test set is inside the seed spread):

    1. the peak is at depth 6: the best depth's mean exceeds depth 6's by no more than that error
       (depth 6 is the best, or tied with it within the seed spread);
    2. the accuracy rises from the shallowest depth to depth 6 by more than the error;
    3. it falls from depth 6 to the deepest depth (12 in the paper) by more than the error.

    Args:
        acc: :func:`accuracy_table` output (depth 6, a shallower and a deeper depth).

    Returns:
        (rows, contradicts): the three judged rows (``statement``, ``paper``, ``this book``, ``rule``,
        ``holds``, a bool), and whether the measurement contradicts the paper (the peak at the shallowest
        depth, or a rise from 6 to the deepest beyond the error).

    Raises:
        lib.validation.InputError: no depth 6, none shallower or none deeper.
    """
    if 6 not in acc.index or acc.index.max() <= 6 or acc.index.min() >= 6:
        raise InputError(f"sgd_depths must contain 6, a shallower and a deeper depth (the paper's 1 -> 6 -> 12), "
                         f"got {list(acc.index)}")
    m, sd, ns = acc["mean (%)"], acc["sd (%)"], acc["seeds"]
    paper = pd.Series(PAPER_TABLE1, dtype=float)

    def gap(a, b):
        return float(m[a] - m[b]), SE_MULTIPLE * float(np.sqrt(sd[a] ** 2 / ns[a] + sd[b] ** 2 / ns[b]))

    first, last, best = int(acc.index[0]), int(acc.index[-1]), int(m.idxmax())
    p_best = int(paper.idxmax())
    excess, excess_se = gap(best, 6)
    rise, rise_se = gap(6, first)
    change, change_se = gap(last, 6)
    rows = [
        dict(statement="the peak is at depth 6", paper=f"depth {p_best} ({paper[p_best]:.2f} %)",
             **{"this book": f"best depth {best} ({m[best]:.2f} %), {excess:.2f} points above depth 6 (twice the "
                             f"standard error {excess_se:.2f})"},
             rule=f"the best depth at most twice its standard error ({excess_se:.2f} points) above depth 6",
             holds=excess <= excess_se),
        dict(statement="rise from the shallowest depth to depth 6",
             paper=f"{paper[6] - paper[1]:+.2f} points (1 -> 6)",
             **{"this book": f"{rise:+.2f} points ({first} -> 6; twice the standard error {rise_se:.2f})"},
             rule=f"a rise larger than twice its standard error ({rise_se:.2f} points)", holds=rise > rise_se),
        dict(statement="change from depth 6 to the deepest depth",
             paper=f"{paper[12] - paper[6]:+.2f} points (6 -> 12)",
             **{"this book": f"{change:+.2f} points (6 -> {last}; twice the standard error {change_se:.2f})"},
             rule=f"a fall larger than twice its standard error ({change_se:.2f} points); a rise that large "
                  "contradicts the paper", holds=change < -change_se),
    ]
    return tuple(rows), best == first or change > change_se


def check_accuracy(study: SGDStudy) -> Check:
    """[LH] Table 1: test accuracy rises with depth to a peak at depth 6, then falls (6 -> 12).

    The paper's MNIST numbers (95.98, 97.43, 97.57, 97.52, 97.39, 97.19 % at depths 1, 3, 6, 8, 10,
    12) peak at depth 6 and fall by 0.38 points to depth 12. Rule (:func:`table1_statements`,
    differences against twice their standard error over seeds): it agrees if the peak is at depth 6
    (depth 6 the best, or within the seed spread of the best), the accuracy rises from the
    shallowest depth to 6 and falls from 6 to the deepest depth; it contradicts if the best depth is
    the shallowest, or the accuracy rises from 6 to the deepest depth beyond the error; otherwise
    (e.g. a peak at depth 10 beyond the spread, or a fall after 6 within the noise) it is between.
    The verdict level then follows the protocol as in :func:`check_depth_speed`.

    Args:
        study: :func:`lib.chapters.optimization.sgd.measure_sgd_study` output (depth 6, a shallower and a deeper
            depth; its protocol is quoted, and the part of the claim it settles is its ``part``, default the
            data set's name).

    Returns:
        The check, claim id ``"[LH] Table 1"``. Its :attr:`~lib.book.results.Check.rows` are the accuracy at
        every depth of either table (shown, not judged: the absolute value depends on the data set and the
        budget), the three statements of :func:`table1_statements` and the protocol, which sets the level.

    Raises:
        lib.validation.InputError: the study lacks depth 6, a shallower or a deeper depth.
    """
    acc = accuracy_table(study)
    judged, contradicts = table1_statements(acc)
    m, sd = acc["mean (%)"], acc["sd (%)"]
    agrees = all(r["holds"] for r in judged)
    failed = "; ".join(r["statement"] for r in judged if not r["holds"])
    status, caveat = _verdict(agrees, contradicts, study, f"not beyond the seed spread: {failed}", table=True)
    measured = (
        f"On {study.data} ({study.n_train:,} training / {study.n_test:,} test images, {study.updates:,} SGD updates, "
        f"{study.seeds} seeds), the mean test accuracy is {', '.join(f'{v:.2f}' for v in m)} % at depths "
        f"{list(acc.index)} (sd over seeds up to {sd.max():.2f}): "
        + "; ".join(f"{r['statement']}: {r['this book']} ({'holds' if r['holds'] else 'does not hold'})"
                    for r in judged)
        + f"; the paper's change from 6 to 12 is {PAPER_TABLE1[12] - PAPER_TABLE1[6]:+.2f} points on MNIST."
        f"{(' ' + study.note) if study.note else ''}{f' A record: {study.recorded}.' if study.recorded else ''}")
    ns = acc["seeds"]
    shown = tuple(
        dict(statement=f"test accuracy at depth {L}", paper=f"{PAPER_TABLE1[L]:.2f} %" if L in PAPER_TABLE1 else "not run",
             **{"this book": f"{m[L]:.2f} +- {sd[L]:.2f} % ({int(ns[L])} seeds)" if L in acc.index else "not run"},
             rule="shown, not judged (the absolute value depends on the data set and the budget)", holds=None)
        for L in sorted(set(int(v) for v in acc.index) | set(PAPER_TABLE1)))
    return Check("[LH] Table 1", status=status, measured=measured, caveat=caveat, part=study.name,
                 rows=shown + judged + (_protocol_row(study, table=True),))


def table_table1_vs_paper(check: Check) -> pd.DataFrame:
    """[LH] Table 1, paper vs this book: the rows :func:`check_accuracy` judged, rendered, never judged again.

    Args:
        check: :func:`check_accuracy` output.

    Returns:
        :func:`lib.book.wording.paper_vs_book` of the check: the paper's MNIST accuracies and statements against
        ours, with the rule and whether it holds (``"—"`` for a row shown, not judged).
    """
    return paper_vs_book([check])


def table_loss_curves(study: SGDStudy) -> pd.DataFrame:
    """The curves :func:`plot_loss_curves` draws: per depth and epoch, the geometric mean of the training
    loss over seeds and its range ([LH] Figure 4).

    A run stopped as diverged leaves its later epochs out; an epoch no run of a depth reached is NaN.

    Args:
        study: :func:`lib.chapters.optimization.sgd.measure_sgd_study` output.

    Returns:
        A long frame with columns ``depth``, ``lr`` (the chosen rate), ``epoch`` (0 = initialization),
        ``geometric mean``, ``min`` and ``max``.
    """
    E = study.epochs + 1
    parts = []
    for L in study.depths:
        sub = study.runs[study.runs.depth == L]
        curves = np.full((len(sub), E), np.nan)  # a diverged run stops early: the rest stays NaN
        for r, c in enumerate(sub.train_loss):
            c = np.asarray(c, dtype=float)
            curves[r, :len(c)] = c
        logs = np.log(np.where(np.isfinite(curves) & (curves > 0), curves, np.nan))
        alive = np.isfinite(logs).any(axis=0)
        mid, lo, hi = (np.full(E, np.nan) for _ in range(3))
        mid[alive] = np.exp(np.nanmean(logs[:, alive], axis=0))
        lo[alive], hi[alive] = np.exp(np.nanmin(logs[:, alive], axis=0)), np.exp(np.nanmax(logs[:, alive], axis=0))
        parts.append(pd.DataFrame({"depth": int(L), "lr": float(sub.lr.iloc[0]), "epoch": np.arange(E),
                                   "geometric mean": mid, "min": lo, "max": hi}))
    return pd.concat(parts, ignore_index=True)


def plot_loss_curves(study: SGDStudy) -> Figure:
    """[LH] Figure 4: training loss against epoch (geometric mean over seeds, band: min to max), one colour per depth.

    Args:
        study: :func:`lib.chapters.optimization.sgd.measure_sgd_study` output; the curves are
            :func:`table_loss_curves`.

    Returns:
        The figure (one axes).
    """
    curves = table_loss_curves(study)
    fig, axs = figure()
    ax = axs[0, 0]
    for L, colour in zip(study.depths, palette(len(study.depths))):  # one distinct colour per depth
        c = curves[curves.depth == L]
        ax.semilogy(c.epoch, c["geometric mean"], color=colour, label=f"L={L} (lr {c.lr.iloc[0]:g})")
        ax.fill_between(c.epoch, c["min"], c["max"], color=colour, alpha=0.2, linewidth=0)
    kind = "mean batch loss of the epoch" if study.loss_record == "epoch_mean" else "training loss"
    ax.set(xlabel="epoch", ylabel=f"cross-entropy ({kind})",
           title=f"ReLU nets on {study.data}, width {study.width}, {study.updates:,} updates"
                 + (" (record)" if study.recorded else ""))
    ax.legend(ncol=2, fontsize=9, framealpha=0.9)
    return fig


def plot_accuracy(study: SGDStudy) -> Figure:
    """Test accuracy against depth (mean +- sd over seeds, :func:`accuracy_table`) beside [LH] Table 1.

    Args:
        study: :func:`lib.chapters.optimization.sgd.measure_sgd_study` output.

    Returns:
        The figure (one axes).
    """
    acc = accuracy_table(study)
    fig, axs = figure()
    ax = axs[0, 0]
    m, sd = acc["mean (%)"], acc["sd (%)"].fillna(0.0)
    ax.errorbar(acc.index, m, yerr=[np.minimum(sd, m), np.minimum(sd, 100 - m)], fmt="o-", capsize=3,
                label=f"{study.data} (ours), mean $\\pm$ sd over {study.seeds} seeds")
    ax.plot(acc.index, acc["[LH] MNIST (%)"], "s--", label="[LH] Table 1, MNIST")
    ax.set(xlabel="depth L", ylabel="test accuracy (%)", title="Test accuracy against depth")
    ax.legend()
    return fig


def _paper_setting(table: bool) -> str:
    p = PAPER_PROTOCOL
    what = "[LH] Table 1: MNIST" if table else "[LH] Figure 4: MNIST and Fashion-MNIST"
    return (f"{what}, cross-entropy, batch {p['batch']}, {p['epochs']} epochs = about {p['updates']:,} SGD updates "
            f"on MNIST, width {p['width']}, learning rate searched per task")


def _sizes(study: SGDStudy) -> str:
    """``n = ... training and ... test images, d = ..., k classes, batch ..., E epochs = U SGD updates``."""
    shape = (f", d = {study.d}" if study.d is not None else "") + (
        f", {study.classes} classes" if study.classes is not None else "")
    return (f"n = {study.n_train:,} training and {study.n_test:,} test images{shape}, batch {study.batch}, "
            f"{study.epochs} epochs = {study.updates:,} SGD updates")


def sgd_setting(study: SGDStudy, table: bool = False) -> str:
    """The setting line under a figure of ``study``: its data, sizes, nets, budget, rate search and source,
    the paper's setting, and every deviation from the paper's protocol ([LH] Figure 4, or Table 1 if ``table``).

    Everything is read from the study as it ran (sizes of the loaded data, the batch used, the
    deviations of :func:`lib.chapters.optimization.sgd.protocol_deviations`), nothing from the parameters;
    the profile and overrides of the run are in the re-run command under the figure
    (:func:`lib.book.figures.rerun_command`), a study read from a record names the command that wrote it.

    Args:
        study: :func:`lib.chapters.optimization.sgd.measure_sgd_study` output, or a study of the record
            (:func:`lib.chapters.optimization.paper_record.record_studies`).
        table: the setting of the accuracy figure ([LH] Table 1) instead of the loss figure ([LH] Figure 4).

    Returns:
        One paragraph of plain text (Markdown code spans for a record's command).
    """
    data = study.data + (f" ({study.note.rstrip('.')})" if study.note else "")
    search = f"learning-rate grid {floats(study.lrs)} searched per depth on seed 0"
    if study.search_epochs is not None and study.search_epochs < study.epochs:
        search += f" over the first {study.search_epochs} of the {study.epochs} epochs"
    if not table and study.loss_record == "epoch_mean":
        search += "; the loss of an epoch is the mean of its batch losses (as the authors' script logs it)"
    source = f"; read from a record, {study.recorded}" if study.recorded else ""
    devs = protocol_deviations(study, table=table)
    if table and sorted(study.depths) != sorted(PAPER_TABLE1):  # named here; the verdict judges 6 against its neighbours
        devs = devs + [f"depths {ints(study.depths, ranges=False)} instead of {ints(PAPER_TABLE1, ranges=False)}"]
    return (f"Setting: {'held-out accuracy after the last epoch on ' if table else ''}{data}, {_sizes(study)}; ReLU "
            f"nets without biases of width m = {study.width}, depths L = {ints(study.depths)}, {study.seeds} seeds per "
            f"depth; cross-entropy, mini-batch SGD; {search}{source}. Paper: {_paper_setting(table)}. Deviations: "
            + ("; ".join(devs) if devs else "none (the paper's protocol)") + ".")


def _across(studies: SGDStudies, text) -> str:
    """``text(study)`` once when every study gives the same, else per data set."""
    vals = [text(st) for st in studies]
    if len(set(vals)) == 1:
        return vals[0]
    return "; ".join(f"{v} on {st.data}" for v, st in zip(vals, studies))


def sgd_glue(studies: SGDStudies) -> dict[str, str]:
    """The values the prose of the SGD sections shows, read from the studies that ran ([LH] Figure 4, Table 1).

    Args:
        studies: :func:`lib.chapters.optimization.sgd.measure_sgd_studies` output.

    Returns:
        ``sgd_m`` (width), ``sgd_L`` (depths), ``batch``, ``n_epochs``, ``lr_grid``, ``n_seeds``,
        ``sgd_runs`` (each data set with its sizes and budget), ``sgd_budget`` (SGD updates per data
        set), ``idx_folders`` (the IDX folders given), ``train_ratio`` (how much smaller
        a data set is than MNIST), ``binomial_se`` (the binomial error of each test set), and the
        paper's ``paper_table1`` and ``paper_updates``.

    Raises:
        ValueError: no study.
    """
    if not len(studies):
        raise ValueError("sgd_glue needs at least one study")
    p = PAPER_PROTOCOL
    ratios = [f"{st.data} has {st.n_train:,} training images, about {p['n_train'] / st.n_train:.0f} times fewer than "
              f"MNIST's {p['n_train']:,}" for st in studies if st.data not in MNIST_SETS + ("Fashion-MNIST",)]
    folders = "; ".join(
        f"the {name} IDX files are read from {folder} (papermill parameter {FOLDER_PARAMS[name]})" if folder is not None
        else f"no {name} folder is given (papermill parameter {FOLDER_PARAMS[name]} not set)"
        for name, folder in studies.folders.items())
    return dict(
        sgd_m=_across(studies, lambda st: str(st.width)), sgd_L=_across(studies, lambda st: ints(st.depths, ranges=False)),
        batch=_across(studies, lambda st: str(st.batch)), n_epochs=_across(studies, lambda st: str(st.epochs)),
        lr_grid=_across(studies, lambda st: floats(st.lrs)), n_seeds=_across(studies, lambda st: str(st.seeds)),
        sgd_runs="; ".join(st.data + (f" ({st.note.rstrip('.')})" if st.note else "") + f": {_sizes(st)}"
                           for st in studies),
        sgd_budget="; ".join(f"{st.data}, {st.updates:,} SGD updates" for st in studies),
        idx_folders=folders,
        train_ratio="; ".join(ratios) if ratios else "every data set of this run is one of the paper's",
        binomial_se="; ".join(f"{100 * math.sqrt(0.95 * 0.05 / st.n_test):.1f} points for the {st.n_test:,} test "
                              f"images of {st.data}" for st in studies),
        paper_table1=", ".join(f"{v:.2f}" for v in PAPER_TABLE1.values()) + " % at depths "
                     + ints(PAPER_TABLE1, ranges=False),
        paper_updates=f"about {p['updates']:,}",
    )
