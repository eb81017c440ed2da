"""[LH] Sec. 5(c): kernel regression with the infinite-width ReLU NTK at growing depth predicts close to chance.

[LH] Sec. 5 (trade-off between optimization and generalization): "in the extreme case of infinite depth, any
non-parallel input pairs become equally separated in gradient features regardless of their original
similarity ... this could also result in a trivial generalization: close to random guess for unseen data".
At infinite width a network trained to convergence by gradient descent on the square loss (from a zero
initial output) predicts by kernel regression with its NTK, f(x) = K(x, X) K(X, X)^{-1} Y. Here K is the
book's analytic ReLU NTK (:func:`lib.theory.relu_ntk_between`, the recursion of [LH] Lemma 3.1), ridgeless
up to a numerical floor, on scikit-learn's digits (10 classes, unit norm), Y the one-hot labels; the class
predicted is the largest output. Each split is a seeded random partition of the same images into training
and held-out points, so the spread over splits is the spread the verdict is judged against.

Besides the accuracy, two measurements say *why* it falls: the share of the prediction that depends on the
input (``input_part``: the Frobenius norm of the held-out predictions minus their mean over the held-out
points, over the norm of the predictions), which the normalized kernel's approach to its limit
(every off-diagonal entry 1/4, [LH] Thm 3.5) shrinks like 1/L; and the accuracy with centred targets
(one-hot minus the training class shares), which removes the input-independent part and shows whether the
information in the shrinking part is still there.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.linalg
from matplotlib.figure import Figure
from threadpoolctl import threadpool_limits  # a dependency of scikit-learn

from lib.book.cache import cached_call
from lib.book.plotting import figure, palette
from lib.book.results import Check
from lib.book.wording import count, ints
from lib.data.datasets import load_digits_subset
from lib.progress import tqdm
from lib.theory import relu_ntk_between

__all__ = ["DeepKernel", "measure_deep_kernel", "deep_kernel_table", "plot_deep_kernel", "figure_deep_kernel",
           "check_sec5c", "KR_RIDGE", "CHANCE_MARGIN", "KR_SE_MULTIPLE", "KR_DEEP"]

#: Ridge added to K(X, X), relative to its mean diagonal -- a floor against duplicate images (a singular kernel),
#: far below the smallest eigenvalue of every kernel here (lambda_min / mean diagonal is 0.022 at L = 1 on 300
#: digits and grows with depth to 3/4, [LH] Thm 4.3), so the solution is the ridgeless one to about 1e-10.
KR_RIDGE = 1e-12
#: "Close to a random guess": the held-out accuracy at the deepest depth is at most 1/classes plus this. At 10
#: classes a random guess scores 10 %; with 300 held-out points its binomial standard error is 1.7 points, so
#: 5 points is about 3 standard errors above chance, and far below the 90 %+ of shallow kernels.
CHANCE_MARGIN = 0.05
#: A change of the split-mean accuracy between two depths counts when it exceeds this multiple of its standard
#: error sqrt(se_a^2 + se_b^2) over splits (2, as chapter 06's SE_MULTIPLE: about a 95 % two-sided level with many
#: splits, looser with few; with the default 5 splits, by Welch's t, 8 to 12 % of equal depths pass it).
KR_SE_MULTIPLE = 2.0
#: Depth from which a flat accuracy contradicts the statement: at L = 1e4 the normalized NTK's off-diagonal
#: entries on digits lie within 1.5e-3 of their infinite-depth limit 1/4 (spread about 1e-3), so the kernel is
#: already close to the equal separation the statement is about; below it a flat curve is "inconclusive".
KR_DEEP = 10_000


@dataclass(frozen=True)
class DeepKernel:
    """Held-out accuracy of kernel regression with the infinite-width ReLU NTK by depth ([LH] Sec. 5(c)).

    Attributes:
        frame: one row per (depth, split): ``accuracy`` (one-hot targets), ``accuracy_centred`` (targets minus
            the training class shares), ``majority_share`` (held-out share of the most frequent training class:
            what a constant prediction scores), ``input_part`` (share of the predictions that depends on the
            input), ``offdiag_spread`` (max - min of the normalized kernel's off-diagonal entries).
        depths: the depths L.
        n_train: training points per split.
        n_test: held-out points per split.
        splits: random partitions (seeds 0, 1, ...).
        classes: number of classes (10 digits).
        data_seed: seed of the subsample of digits.
    """

    frame: pd.DataFrame
    depths: list
    n_train: int
    n_test: int
    splits: int
    classes: int = 10
    data_seed: int = 0


def _split_rows(K: np.ndarray, y: np.ndarray, n_train: int, splits: int, classes: int) -> list[dict]:
    rows = []
    for s in range(splits):
        perm = np.random.default_rng(s).permutation(len(y))
        tr, te = perm[:n_train], perm[n_train:]
        Ktr = K[np.ix_(tr, tr)]
        Ktr = Ktr + KR_RIDGE * float(np.mean(np.diag(Ktr))) * np.eye(len(tr))
        Y = np.eye(classes)[y[tr]]
        share = Y.mean(axis=0)
        with threadpool_limits(limits=1):  # a 300 x 300 Cholesky: one BLAS thread is far faster on a busy machine
            alpha = scipy.linalg.cho_solve(scipy.linalg.cho_factor(Ktr), np.column_stack([Y, Y - share]))
        P = K[np.ix_(te, tr)] @ alpha
        pred, pred_c = P[:, :classes], P[:, classes:]
        rows.append(dict(split=s, accuracy=float(np.mean(pred.argmax(1) == y[te])),
                         accuracy_centred=float(np.mean(pred_c.argmax(1) == y[te])),
                         majority_share=float(np.mean(y[te] == int(np.argmax(share)))),
                         input_part=float(np.linalg.norm(pred - pred.mean(0)) / np.linalg.norm(pred))))
    return rows


def measure_deep_kernel(cfg) -> DeepKernel:
    """Kernel regression with the infinite-width ReLU NTK at each depth, on random splits of digits ([LH] Sec. 5(c)).

    One kernel per depth on ``kr_n_train + kr_n_test`` digits (:func:`lib.theory.relu_ntk_between`, a few seconds
    at any depth), each depth's rows cached (:func:`lib.book.cache.cached_call`); each split partitions the same
    images at random (seed = split) into training and held-out points.

    Args:
        cfg: the chapter's parameters (:data:`lib.chapters.optimization.spec.SPEC`); reads ``kr_depths``,
            ``kr_n_train``, ``kr_n_test`` and ``kr_splits``.

    Returns:
        The :class:`DeepKernel`.
    """
    depths, n_train, n_test, splits = list(cfg.kr_depths), int(cfg.kr_n_train), int(cfg.kr_n_test), int(cfg.kr_splits)
    X, y = load_digits_subset(n_train + n_test, seed=0, unit_norm=True, return_labels=True)
    y = np.asarray(y, dtype=int)
    classes, iu = 10, np.triu_indices(len(y), 1)
    rows = []
    for L in tqdm(depths, desc="kernel regression by depth", leave=False):
        def run(L=L):
            K = relu_ntk_between(X, X, int(L))
            c = K / np.sqrt(np.outer(np.diag(K), np.diag(K)))
            spread = float(np.ptp(c[iu]))
            return [dict(r, offdiag_spread=spread) for r in _split_rows(K, y, n_train, splits, classes)]
        out = cached_call("06_deep_kernel", dict(X=X, y=y, L=int(L), n_train=n_train, splits=splits,
                                                 ridge=KR_RIDGE), run, version="1")
        rows += [dict(r, depth=int(L)) for r in out]
    frame = pd.DataFrame(rows)[["depth", "split", "accuracy", "accuracy_centred", "majority_share", "input_part",
                                "offdiag_spread"]]
    return DeepKernel(frame=frame, depths=[int(L) for L in depths], n_train=n_train, n_test=n_test, splits=splits,
                      classes=classes)


def deep_kernel_table(dk: DeepKernel) -> pd.DataFrame:
    """Per depth: the split mean and sd of both accuracies, the mean input-dependent share and majority share.

    Args:
        dk: :func:`measure_deep_kernel` output.

    Returns:
        Indexed by depth: ``accuracy``, ``sd``, ``accuracy_centred``, ``sd_centred``, ``input_part``,
        ``majority_share``, ``offdiag_spread``.
    """
    g = dk.frame.groupby("depth")
    return pd.DataFrame({"accuracy": g.accuracy.mean(), "sd": g.accuracy.std(ddof=1),
                         "accuracy_centred": g.accuracy_centred.mean(), "sd_centred": g.accuracy_centred.std(ddof=1),
                         "input_part": g.input_part.mean(), "majority_share": g.majority_share.mean(),
                         "offdiag_spread": g.offdiag_spread.first()})


def plot_deep_kernel(dk: DeepKernel) -> Figure:
    """Held-out accuracy against depth (left; split mean and sd; one-hot and centred targets; chance) and the share
    of the prediction that depends on the input (right, log-log) ([LH] Sec. 5(c)).

    Args:
        dk: :func:`measure_deep_kernel` output.

    Returns:
        The figure (two axes).
    """
    t = deep_kernel_table(dk)
    c1, c2, c3 = palette(3)
    fig, axs = figure(ncols=2, width=5.0, height=3.8)
    ax = axs[0, 0]
    ax.errorbar(t.index, t.accuracy, yerr=t.sd, fmt="o-", color=c1, capsize=3, label="one-hot targets")
    ax.errorbar(t.index, t.accuracy_centred, yerr=t.sd_centred, fmt="s--", color=c2, capsize=3,
                label="centred targets")
    ax.axhline(1 / dk.classes, color="k", ls=":", label=f"chance (1/{dk.classes})")
    ax.axhline(1 / dk.classes + CHANCE_MARGIN, color="0.5", ls=":", lw=1, label="chance + margin")
    ax.set(xscale="log", ylim=(0, 1.02), xlabel="depth L", ylabel="held-out accuracy",
           title="Kernel regression, infinite-width ReLU NTK")
    ax.legend(fontsize=9)
    ax = axs[0, 1]
    ax.loglog(t.index, t.input_part, "o-", color=c3, label="input-dependent share of the prediction")
    ax.loglog(t.index, t.offdiag_spread, "^--", color="0.4", label="spread of the normalized kernel")
    ax.set(xlabel="depth L", ylabel="share / spread", title="What depth removes")
    ax.legend(fontsize=9)
    return fig


def figure_deep_kernel(dk: DeepKernel) -> dict:
    """The keyword arguments of :meth:`lib.book.results.Recorder.figure` for ``fig-opt-deep-kernel``
    ([LH] Sec. 5(c), :func:`plot_deep_kernel`): figure, label, caption, sources, data and a setting line."""
    return dict(
        fig=plot_deep_kernel(dk), label="fig-opt-deep-kernel", drawn_by=plot_deep_kernel, data_from=measure_deep_kernel,
        data=dk.frame,
        caption="Kernel regression with the infinite-width ReLU NTK: held-out accuracy by depth (left; split mean "
                "and sd) and the share of the prediction that still depends on the input (right).",
        setting=f"Setting: scikit-learn digits (10 classes, unit norm), {dk.n_train} training and {dk.n_test} held-out "
                f"images per split, {dk.splits} random splits; the analytic infinite-width ReLU NTK at depths "
                f"L = {ints(dk.depths)}; ridgeless (ridge {KR_RIDGE:g} of the mean diagonal); {{profile}}. "
                "Deviation: [LH] states Sec. 5(c) without an experiment; data, sizes and depths are ours.")


def check_sec5c(dk: DeepKernel) -> Check:
    """[LH] Sec. 5(c): "in the infinite-depth limit all non-parallel inputs are equally separated, which could make
    predictions on unseen data close to a random guess".

    Measured (:func:`measure_deep_kernel`): the split-mean held-out accuracy A(L) of kernel regression with the
    infinite-width ReLU NTK (the predictor of an infinitely wide net trained to convergence on the square loss), its
    standard error se(L) over splits, at every depth; chance = 1/classes. Rule:

    * "not checked" with fewer than two depths or splits (no change against a spread can be read);
    * "not reproduced" if A does not fall from the smallest to the largest depth by more than
      :data:`~lib.chapters.optimization.deep_kernel.KR_SE_MULTIPLE` standard errors although the largest depth is at least :data:`~lib.chapters.optimization.deep_kernel.KR_DEEP` (the kernel
      is then within about 1e-3 of equal separation);
    * "inconclusive" if it does not fall and the largest depth is below :data:`~lib.chapters.optimization.deep_kernel.KR_DEEP`, or it falls but
      A(L_max) > chance + :data:`~lib.chapters.optimization.deep_kernel.CHANCE_MARGIN` (not deep enough to reach the limit; the deviation is named);
    * "reproduced" if it falls, A(L_max) <= chance + CHANCE_MARGIN, it never rises between consecutive depths
      beyond KR_SE_MULTIPLE standard errors, and the centred-target accuracy at L_max is within the margin of
      chance too;
    * "reproduced with caveat" if it falls to chance but rises between some consecutive depths, or the
      centred-target accuracy at L_max stays above chance + CHANCE_MARGIN: then the accuracy is lost because the
      input-independent part of the prediction swamps an input-dependent part that shrinks like 1/L, not
      because the information is gone at that depth (the caveat names both numbers).

    Args:
        dk: the kernel-regression study.

    Returns:
        The check, claim ``"[LH] Sec 5(c)"``.
    """
    t = deep_kernel_table(dk)
    if len(t) < 2 or dk.splits < 2:
        return Check("[LH] Sec 5(c)", status="not checked", measured=f"{count(len(t), 'depth')}, {count(dk.splits, 'split')}.",
                     caveat="needs at least two depths and two splits to judge a fall against the split spread")
    chance = 1.0 / dk.classes
    se = t.sd / math.sqrt(dk.splits)
    se_c = t.sd_centred / math.sqrt(dk.splits)
    L0, L1 = int(t.index[0]), int(t.index[-1])
    a0, a1 = float(t.accuracy.iloc[0]), float(t.accuracy.iloc[-1])
    fell = a0 - a1 > KR_SE_MULTIPLE * math.hypot(se.iloc[0], se.iloc[-1])
    near = a1 <= chance + CHANCE_MARGIN
    diff = t.accuracy.diff().iloc[1:]
    se_diff = np.hypot(se.iloc[1:].to_numpy(), se.iloc[:-1].to_numpy())
    rises = [int(L) for L, d, s in zip(diff.index, diff.to_numpy(), se_diff) if d > KR_SE_MULTIPLE * s]
    ac1 = float(t.accuracy_centred.iloc[-1])
    centred_near = ac1 <= chance + CHANCE_MARGIN
    measured = (f"Held-out accuracy (mean ± sd over {dk.splits} splits of {dk.n_train} training / {dk.n_test} held-out "
                f"digits): " + ", ".join(f"{a:.1%} ± {s:.1%} (L={L:,})" for L, a, s in zip(t.index, t.accuracy, t.sd))
                + f"; chance {chance:.0%}, a constant prediction (majority class) {t.majority_share.iloc[-1]:.1%}. "
                f"The input-dependent share of the prediction falls from {t.input_part.iloc[0]:.2g} (L={L0:,}) to "
                f"{t.input_part.iloc[-1]:.2g} (L={L1:,}); with centred targets the accuracy is "
                f"{t.accuracy_centred.iloc[0]:.1%} ± {t.sd_centred.iloc[0]:.1%} at L={L0:,} and {ac1:.1%} ± "
                f"{t.sd_centred.iloc[-1]:.1%} at L={L1:,}" + (f"; rises beyond {KR_SE_MULTIPLE:g} se at L={rises}"
                                                               if rises else "") + ".")
    rows = ({"statement": "held-out accuracy at the deepest depth", "paper": "close to a random guess",
             "this book": f"{a1:.1%} at L={L1:,} (chance {chance:.0%})",
             "rule": f"at most chance + {CHANCE_MARGIN:.0%}", "holds": near},
            {"statement": "held-out accuracy against depth", "paper": "falls toward chance (the limit)",
             "this book": f"{a0:.1%} (L={L0:,}) -> {a1:.1%} (L={L1:,})",
             "rule": f"falls by more than {KR_SE_MULTIPLE:g} se over splits", "holds": fell},
             {"statement": "centred targets at the deepest depth", "paper": "(not stated)",
              "this book": f"{ac1:.1%} ± {t.sd_centred.iloc[-1]:.1%} (se {se_c.iloc[-1]:.1%})",
              "rule": f"within chance + {CHANCE_MARGIN:.0%} for a plain 'reproduced'", "holds": None})
    if not fell:
        if L1 >= KR_DEEP:
            return Check("[LH] Sec 5(c)", status="not reproduced", measured=measured, rows=rows)
        return Check("[LH] Sec 5(c)", status="inconclusive", measured=measured, rows=rows,
                     caveat=f"the deepest depth run, L = {L1:,}, is below {KR_DEEP:,}: the kernel is not yet close to "
                     "equal separation, and the accuracy has not fallen")
    if not near:
        return Check("[LH] Sec 5(c)", status="inconclusive", measured=measured, rows=rows,
                     caveat=f"the accuracy falls with depth but is still {a1:.1%} at the deepest depth L = {L1:,}, above "
                     f"chance + {CHANCE_MARGIN:.0%}: the limit is not reached at this depth")
    caveats = []
    if rises:
        caveats.append(f"the accuracy rises between consecutive depths beyond {KR_SE_MULTIPLE:g} se (at L={rises})")
    if not centred_near:
        caveats.append(f"at finite depth the information is shrunk, not lost: the input-dependent part of the "
                       f"prediction falls like 1/L (share {t.input_part.iloc[-1]:.2g} at L = {L1:,}) and the "
                       f"input-independent part decides the class, but with centred targets (one-hot minus the class "
                       f"shares) exact float64 regression still scores {ac1:.1%} at L = {L1:,}")
    return Check("[LH] Sec 5(c)", status="reproduced with caveat" if caveats else "reproduced", measured=measured,
                 rows=rows, caveat="; ".join(caveats))
