"""Chapter 06, [LH] Figure 4 and Table 1: loss curves, accuracy table, figures and verdicts.

A verdict that contradicts the paper is "not reproduced" only under the paper's protocol
(:func:`lib.chapters.optimization.sgd.protocol_deviations` empty). Below the paper's budget
(fewer than 10^4 updates, fewer seeds, a rate at the grid's edge, ...) every verdict is
"inconclusive", naming the deviations; on another data set at the paper's budget an agreeing
measurement is "reproduced with caveat".
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.figure import Figure
from scipy.stats import spearmanr

from lib.book.plotting import figure
from lib.book.results import Check
from lib.chapters.optimization.sgd import SGDStudy, deviation_levels
from lib.validation import InputError

__all__ = ["PAPER_TABLE1", "late_loss_table", "depth_pairs", "table1_statements", "check_depth_speed", "accuracy_table", "check_accuracy",
           "plot_loss_curves", "plot_accuracy", "SPEED_RHO", "LOSS_FLOOR"]

#: Test accuracy (%) on MNIST by depth, [LH] Table 1.
PAPER_TABLE1 = {1: 95.98, 3: 97.43, 6: 97.57, 8: 97.52, 10: 97.39, 12: 97.19}

#: Late losses below this are rounding level (float32 cross-entropy reaches exactly 0): floored here.
LOSS_FLOOR = 1e-30

#: Spearman correlation of depth with the late loss below which the order counts as "deeper is faster".
SPEED_RHO = -0.5


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


def late_loss_table(runs: pd.DataFrame, depths) -> pd.DataFrame:
    """Per depth: mean and sd over seeds of log10 of the late-epoch training loss, and the seed count.

    Args:
        runs: the ``runs`` of :func:`lib.chapters.optimization.sgd.sgd_depth_study`.
        depths: the depths, in order.

    Returns:
        A frame indexed by ``depth`` with ``log10 late loss``, ``sd``, ``seeds`` (finite runs),
        ``diverged`` (runs of the chosen rate whose loss became NaN or inf: left out of the mean,
        and named as a deviation by :func:`lib.chapters.optimization.sgd.protocol_deviations`), ``lr``.
    """
    rows = {}
    for L in depths:
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


def depth_pairs(tab: pd.DataFrame) -> pd.DataFrame:
    """Every pair of depths (shallower, deeper) of :func:`late_loss_table`, with the deeper net's excess loss.

    Args:
        tab: :func:`late_loss_table` output.

    Returns:
        One row per pair i < j: ``shallow``, ``deep``, ``excess`` (log10 loss of the deeper minus
        the shallower; > 0 means the deeper net is slower), ``se2`` (twice the standard error of
        that difference over seeds), ``inverted`` (excess > 0) and ``significant`` (excess > se2).
    """
    rows = []
    idx = list(tab.index)
    for a in range(len(idx)):
        for b in range(a + 1, len(idx)):
            i, j = idx[a], idx[b]
            excess = float(tab.loc[j, "log10 late loss"] - tab.loc[i, "log10 late loss"])
            se2 = 2 * float(np.sqrt(tab.loc[i, "sd"] ** 2 / max(tab.loc[i, "seeds"], 1)
                                    + tab.loc[j, "sd"] ** 2 / max(tab.loc[j, "seeds"], 1)))
            rows.append(dict(shallow=int(i), deep=int(j), excess=excess, se2=se2, inverted=excess > 0,
                             significant=excess > se2))
    return pd.DataFrame(rows, columns=["shallow", "deep", "excess", "se2", "inverted", "significant"])


def check_depth_speed(study: SGDStudy, part: str | None = None) -> Check:
    """[LH] Figure 4: "a deeper ReLU network always converges faster" (SGD, cross-entropy, rate tuned per depth).

    Read at the fixed training budget on the late-epoch loss (:func:`lib.chapters.optimization.sgd.late_loss`,
    the last 10 % of the epochs), log10, mean and sd over seeds per depth. "Always" is read over
    every pair of depths (:func:`depth_pairs`): a pair is *inverted* when the deeper net ends with
    the higher loss, *significantly* so when by more than twice the standard error of the
    difference over seeds (about a 95 % level). Rule: it agrees if the Spearman correlation of
    depth with the loss is below :data:`SPEED_RHO` (-0.5), the deepest net's loss is below the
    shallowest's by more than twice its standard error, and no pair is significantly inverted
    (inversions within the seed noise are allowed); it contradicts if the correlation is >= 0 or the
    deepest net's loss is above the shallowest's by more than that error; in between (ordered on
    balance, but some deeper net significantly slower) the level is "with caveat". The level then
    follows the protocol (:func:`lib.chapters.optimization.sgd.deviation_levels`): decisive on MNIST (or MNIST-5k) at the paper's 500
    epochs, "inconclusive" below the paper's budget, at most "with caveat" on other data.

    Args:
        study: :func:`lib.chapters.optimization.sgd.compute_sgd_study` output.
        part: the part of the claim this check settles (default: the data set's name).

    Returns:
        The check, claim id ``"[LH] Fig 4"``.
    """
    tab = late_loss_table(study.runs, study.depths)
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
    rec = f" A record: {study.recorded}." if study.recorded else ""
    measured = (
        f"On {study.data} ({study.n_train:,} training images, batch {study.batch}, {study.epochs} epochs = "
        f"{study.updates:,} SGD updates, {study.seeds} seeds, width {study.width}, rate chosen per depth), log10 of "
        f"the late-epoch training loss is {', '.join(f'{v:.2f}' for v in m)} at depths {list(tab.index)} (sd over "
        f"seeds up to {sd.max():.2f}); Spearman correlation with depth {rho:.2f} (-1: faster with every added "
        f"layer); depth {first} minus depth {last}: {diff:.2f} (twice the standard error {se:.2f}); deeper net "
        f"slower in {n_inv} of {len(pairs)} depth pairs, {n_sig} beyond twice the standard error."
        f"{(' ' + study.note) if study.note else ''}{rec}")
    return Check("[LH] Fig 4", status=status, measured=measured, caveat=caveat, part=part or study.data)


def accuracy_table(runs: pd.DataFrame, depths, paper: dict | None = None) -> pd.DataFrame:
    """Test accuracy (%) by depth: mean, sd and count over seeds, next to the paper's numbers if given.

    Args:
        runs: the ``runs`` of :func:`lib.chapters.optimization.sgd.sgd_depth_study`.
        depths: the depths to keep.
        paper: ``{depth: accuracy %}`` of [LH] Table 1, or None.

    Returns:
        A frame indexed by depth.
    """
    sub = runs[runs.depth.isin(list(depths))]
    g = sub.groupby("depth")["test_acc"]
    tab = pd.DataFrame({"mean (%)": 100 * g.mean(), "sd (%)": 100 * g.std(ddof=1), "seeds": g.count()})
    if paper is not None:
        tab["[LH] MNIST (%)"] = [paper.get(int(L), np.nan) for L in tab.index]
    return tab


def table1_statements(acc: pd.DataFrame) -> pd.DataFrame:
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
        Columns ``statement``, ``paper``, ``ours``, ``rule``, ``holds`` (bool), ``value``, ``error``;
        ``attrs`` carries ``best``, ``first``, ``last`` and ``contradicts`` (the peak at the shallowest
        depth, or a rise from 6 to the deepest beyond the error).

    Raises:
        lib.validation.InputError: no depth 6, none shallower or none deeper.
    """
    if 6 not in acc.index or acc.index.max() <= 6 or acc.index.min() >= 6:
        raise InputError(f"sgd_depths must contain 6, a shallower and a deeper depth (the paper's 1 -> 6 -> 12), "
                         f"got {list(acc.index)}")
    m, sd, ns = acc["mean (%)"], acc["sd (%)"].fillna(0.0), acc["seeds"]
    paper = pd.Series(PAPER_TABLE1, dtype=float)

    def gap(a, b):
        return float(m[a] - m[b]), 2 * float(np.sqrt(sd[a] ** 2 / ns[a] + sd[b] ** 2 / ns[b]))

    first, last, best = int(acc.index[0]), int(acc.index[-1]), int(m.idxmax())
    p_best, p_first = int(paper.idxmax()), int(paper.index[0])
    excess, excess_se = gap(best, 6)
    rise, rise_se = gap(6, first)
    change, change_se = gap(last, 6)
    rows = [
        dict(statement="the peak is at depth 6", paper=f"depth {p_best} ({paper[p_best]:.2f} %)",
             ours=f"best depth {best} ({m[best]:.2f} %), {excess:.2f} points above depth 6",
             rule=f"the best depth at most twice its standard error ({excess_se:.2f} points) above depth 6",
             holds=excess <= excess_se, value=excess, error=excess_se),
        dict(statement="rise from the shallowest depth to depth 6",
             paper=f"{paper[6] - paper[p_first]:+.2f} points ({p_first} -> 6)", ours=f"{rise:+.2f} points ({first} -> 6)",
             rule=f"a rise larger than twice its standard error ({rise_se:.2f} points)", holds=rise > rise_se,
             value=rise, error=rise_se),
        dict(statement="change from depth 6 to the deepest depth",
             paper=f"{paper[12] - paper[6]:+.2f} points (6 -> 12)", ours=f"{change:+.2f} points (6 -> {last})",
             rule=f"a fall larger than twice its standard error ({change_se:.2f} points); a rise that large "
                  "contradicts the paper", holds=change < -change_se, value=change, error=change_se),
    ]
    out = pd.DataFrame(rows)
    out.attrs.update(best=best, first=first, last=last, contradicts=bool(best == first or change > change_se))
    return out


def check_accuracy(acc: pd.DataFrame, study: SGDStudy, part: str | None = None) -> Check:
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
        acc: :func:`accuracy_table` output (must contain depth 6, a shallower and a deeper depth).
        study: :func:`lib.chapters.optimization.sgd.compute_sgd_study` output (protocol quoted).
        part: the part of the claim this check settles (default: the data set's name).

    Returns:
        The check, claim id ``"[LH] Table 1"``.

    Raises:
        lib.validation.InputError: the table lacks depth 6, a shallower or a deeper depth.
    """
    st = table1_statements(acc)
    m, sd = acc["mean (%)"], acc["sd (%)"].fillna(0.0)
    agrees = bool(st.holds.all())
    contradicts = st.attrs["contradicts"]
    failed = "; ".join(st.statement[~st.holds])
    status, caveat = _verdict(agrees, contradicts, study, f"not beyond the seed spread: {failed}", table=True)
    rec = f" A record: {study.recorded}." if study.recorded else ""
    measured = (
        f"On {study.data} ({study.n_train:,} training / {study.n_test:,} test images, {study.updates:,} SGD updates, "
        f"{study.seeds} seeds), the mean test accuracy is {', '.join(f'{v:.2f}' for v in m)} % at depths "
        f"{list(acc.index)} (sd over seeds up to {sd.max():.2f}): "
        + "; ".join(f"{r.statement}: {r.ours} ({'holds' if r.holds else 'does not hold'}; twice the standard error "
                    f"{r.error:.2f})" for r in st.itertuples())
        + f"; the paper's change from 6 to 12 is {PAPER_TABLE1[12] - PAPER_TABLE1[6]:+.2f} points on MNIST."
        f"{(' ' + study.note) if study.note else ''}{rec}")
    return Check("[LH] Table 1", status=status, measured=measured, caveat=caveat, part=part or study.data)


def plot_loss_curves(study: SGDStudy, depths=None, title: str | None = None) -> Figure:
    """Figure 6.2: training loss against epoch (geometric mean over seeds, band: min to max), one colour per depth.

    Args:
        study: :func:`lib.chapters.optimization.sgd.compute_sgd_study` output.
        depths: the depths to draw (default: all of the study).
        title: the axes title (default: data set, width, updates).

    Returns:
        The figure (one axes).
    """
    depths = list(study.depths if depths is None else depths)
    fig, axs = figure()
    ax = axs[0, 0]
    cmap = colormaps["viridis"]
    E = study.epochs + 1
    for k, L in enumerate(depths):
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
        colour = cmap(0.9 * k / max(len(depths) - 1, 1))
        ax.semilogy(mid, color=colour, label=f"L={L} (lr {sub.lr.iloc[0]:g})")
        ax.fill_between(np.arange(E), lo, hi, color=colour, alpha=0.2, linewidth=0)
    kind = "mean batch loss of the epoch" if study.loss_record == "epoch_mean" else "training loss"
    ax.set(xlabel="epoch", ylabel=f"cross-entropy ({kind})",
           title=title or f"ReLU nets on {study.data}, width {study.width}, {study.updates:,} updates"
                          + (" (record)" if study.recorded else ""))
    ax.legend(ncol=2, fontsize="small", framealpha=0.9)
    return fig


def plot_accuracy(acc: pd.DataFrame, study: SGDStudy) -> Figure:
    """Figure 6.3: test accuracy against depth (mean +- sd over seeds) beside [LH] Table 1.

    Args:
        acc: :func:`accuracy_table` output with the paper's column.
        study: the study (data set and seeds in the legend).

    Returns:
        The figure (one axes).
    """
    fig, axs = figure()
    ax = axs[0, 0]
    m, sd = acc["mean (%)"], acc["sd (%)"].fillna(0.0)
    ax.errorbar(acc.index, m, yerr=[np.minimum(sd, m), np.minimum(sd, 100 - m)], fmt="o-", capsize=3,
                label=f"{study.data} (ours), mean $\\pm$ sd over {study.seeds} seeds")
    if "[LH] MNIST (%)" in acc:
        ax.plot(acc.index, acc["[LH] MNIST (%)"], "s--", label="[LH] Table 1, MNIST")
    ax.set(xlabel="depth L", ylabel="test accuracy (%)", title="Test accuracy against depth")
    ax.legend()
    return fig
