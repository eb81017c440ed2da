"""Values chapter 06's prose and captions show, and the "paper vs this book" table of [LH] Table 1.

Everything here is computed from the notebook's validated parameters (and, for the table, from the
measured accuracies): the prose never names a parameter where its value belongs.
"""
from __future__ import annotations

import math

import pandas as pd

from lib.book.provenance import profile_text
from lib.chapters.optimization.figure4 import PAPER_TABLE1, table1_statements
from lib.chapters.optimization.sgd import (MNIST_SETS, PAPER_DATA, PAPER_PROTOCOL, TEST_CAP, SGDStudy,
                                           deviation_levels, protocol_deviations, updates_per_epoch)
from lib.validation import InputError

__all__ = ["DATA_SIZES", "FACES_DIM", "resolved_sgd_data", "sgd_setting", "glue_values", "table_table1_vs_paper"]

#: Size of each data set of the SGD study, as training images n (all of them for digits and faces, which
#: are split here), official test images (MNIST and Fashion-MNIST), pixels d and classes.
DATA_SIZES = {
    "MNIST-5k": dict(n=5000, n_test=None, d=784, classes=10),
    "digits": dict(n=1797, n_test=None, d=64, classes=10),
    "faces": dict(n=200, n_test=None, d=625, classes=2),
    "MNIST": dict(n=60000, n_test=10000, d=784, classes=10),
    "Fashion-MNIST": dict(n=60000, n_test=10000, d=784, classes=10),
}

#: Pixels of a faces image (25 x 25), the input dimension of the ReLU-against-linear GD study.
FACES_DIM = DATA_SIZES["faces"]["d"]

_FOLDER_PARAM = {"MNIST": "idx_dir", "Fashion-MNIST": "fashion_dir"}


def _ints(values) -> str:
    return ", ".join(str(int(v)) for v in values)


def _floats(values) -> str:
    return ", ".join(f"{float(v):g}" for v in values)


def resolved_sgd_data(cfg) -> list[tuple[str, str]]:
    """The data sets the SGD study of [LH] Figure 4 runs on, resolved as ``compute_sgd_studies`` does.

    The rule of :func:`lib.chapters.optimization.sgd.compute_sgd_studies`: MNIST or Fashion-MNIST
    without its IDX folder is replaced by digits (once); the note says which papermill parameter
    would have run it, with the value in force.

    Args:
        cfg: the validated parameters of notebook 06 (``sgd_data``, ``idx_dir``, ``fashion_dir``).

    Returns:
        ``[(data set run, note)]`` in order, each data set once (note empty when run as asked).
    """
    folders = {"MNIST": cfg.idx_dir, "Fashion-MNIST": cfg.fashion_dir}
    out: dict[str, str] = {}
    for name in cfg.sgd_data:
        data, note = name, ""
        if name in PAPER_DATA and folders[name] is None:
            data = "digits"
            note = f"{name} was asked for, but its folder is not set: {_FOLDER_PARAM[name]} = None"
        if data not in out:
            out[data] = note
    return list(out.items())


def sgd_setting(cfg, data: str) -> dict:
    """Training and test sizes, batch and SGD updates of the study on ``data`` ([LH] Figure 4 protocol).

    Mirrors the split of :func:`lib.chapters.optimization.sgd.compute_sgd_study`: digits and faces
    hold out at most :data:`lib.chapters.optimization.sgd.TEST_CAP` images; MNIST and Fashion-MNIST
    keep ``n_idx`` of their 60,000 training images and draw ``n_test`` of their 10,000 test images.

    Args:
        cfg: the validated parameters of notebook 06 (``n_test``, ``n_idx``, ``batch_size``, ``epochs``).
        data: one of :data:`lib.chapters.optimization.book_text.DATA_SIZES`.

    Returns:
        ``dict(n_train, n_test, d, classes, batch, updates)``.

    Raises:
        lib.validation.InputError: unknown ``data``.
    """
    if data not in DATA_SIZES:
        raise InputError(f"sgd_data: {data!r} is not one of {tuple(DATA_SIZES)}")
    size = DATA_SIZES[data]
    if size["n_test"] is None:
        n_test = min(int(cfg.n_test), TEST_CAP[data])
        n_train = size["n"] - n_test
    else:
        n_test = min(int(cfg.n_test), size["n_test"])
        n_train = min(int(cfg.n_idx), size["n"])
    batch = min(int(cfg.batch_size), n_train)
    return dict(n_train=n_train, n_test=n_test, d=size["d"], classes=size["classes"], batch=batch,
                updates=int(cfg.epochs) * updates_per_epoch(n_train, batch))


def _sgd_deviations(cfg, data: str, note: str, table: bool) -> list[str]:
    """How the SGD study on ``data`` departs from the paper's protocol, known before it runs."""
    p, s = PAPER_PROTOCOL, sgd_setting(cfg, data)
    out = []
    if data not in (MNIST_SETS if table else MNIST_SETS + ("Fashion-MNIST",)):
        out.append(f"{data} ({s['n_train']:,} training images) instead of MNIST ({p['n_train']:,})"
                   + (f", as {note}" if note else ""))
    elif s["n_train"] < p["n_train"]:
        out.append(f"{s['n_train']:,} of the {p['n_train']:,} training images")
    if int(cfg.epochs) < p["epochs"]:
        out.append(f"{cfg.epochs} epochs ({s['updates']:,} SGD updates) instead of the paper's {p['epochs']} "
                   f"(too few to contradict the paper)")
    elif s["updates"] < p["updates"]:
        out.append(f"{s['updates']:,} SGD updates instead of about {p['updates']:,}")
    if s["batch"] != p["batch"]:
        forced = " (the whole training set)" if s["batch"] == s["n_train"] < p["batch"] else ""
        out.append(f"batch {s['batch']}{forced} instead of {p['batch']}")
    if int(cfg.sgd_width) != p["width"]:
        out.append(f"width {cfg.sgd_width} instead of {p['width']}")
    if int(cfg.seeds) < p["seeds"]:
        out.append(f"{cfg.seeds} seeds instead of {p['seeds']}")
    if table and sorted(cfg.sgd_depths) != sorted(PAPER_TABLE1):
        out.append(f"depths {_ints(cfg.sgd_depths)} instead of {_ints(sorted(PAPER_TABLE1))}")
    return out


def _sgd_sizes(cfg, studies, notes: bool = False) -> str:
    parts = []
    for data, note in studies:
        s = sgd_setting(cfg, data)
        named = f"{data} ({note})" if notes and note else data
        parts.append(f"{named}: n = {s['n_train']:,} training and {s['n_test']:,} test images, d = {s['d']}, "
                     f"{s['classes']} classes, batch {s['batch']}, {cfg.epochs} epochs = {s['updates']:,} SGD updates")
    return "; ".join(parts)


def _paper_setting(table: bool) -> str:
    p = PAPER_PROTOCOL
    what = "[LH] Table 1: MNIST" if table else "[LH] Figure 4: MNIST and Fashion-MNIST"
    return (f"{what}, cross-entropy, batch {p['batch']}, {p['epochs']} epochs = about {p['updates']:,} SGD updates "
            f"on MNIST, width {p['width']}, learning rate searched per task")


def _deviation_text(cfg, studies, table: bool) -> str:
    per = []
    for data, note in studies:
        devs = _sgd_deviations(cfg, data, note, table)
        per.append(f"Deviation on {data}: " + ("; ".join(devs) if devs else "none (the paper's protocol)") + ".")
    return (f"Paper: {_paper_setting(table)}. " + " ".join(per) + " A chosen rate at the grid's edge "
            "or a diverged run is named in the verdicts.")


def glue_values(cfg) -> dict[str, str]:
    """The values chapter 06's prose and figure captions show, as plain text to glue ([LH] Sec. 5, Figure 4, Table 1).

    Each ``fig6_k`` entry is the line under Figure 6.k: data set(s), n, d, width, depths, seeds,
    steps or epochs and SGD updates, batch, learning-rate grid, profile, and how the setting departs
    from the paper's ([LH] Figure 4 / Table 1: MNIST, cross-entropy, batch 500, about 60,000 SGD
    updates, learning rate per task).

    Args:
        cfg: the validated parameters of notebook 06 (``profile``, ``gd_depths``, ``gd_width``, ``gd_steps``,
            ``gd_samples``, ``gd_dim``, ``sgd_data``, ``sgd_depths``, ``sgd_width``, ``batch_size``, ``lrs``,
            ``epochs``, ``seeds``, ``n_test``, ``idx_dir``, ``fashion_dir``, ``n_idx``).

    Returns:
        ``{name: text}``: ``fig6_1`` ... ``fig6_3`` and the prose values ``gd_m``, ``gd_n``,
        ``gd_d``, ``gd_t``, ``gd_L``, ``faces_dim``, ``sgd_budget``, ``sgd_sets``, ``idx_folders``,
        ``batch``, ``n_epochs``, ``lr_grid``, ``n_seeds``, ``sgd_m``, ``sgd_L``, ``sgd_sizes``, ``sgd_runs``,
        ``train_ratio``, ``binomial_se``, ``paper_table1``, ``paper_updates``.
    """
    prof = profile_text(cfg.profile)
    studies = resolved_sgd_data(cfg)
    p = PAPER_PROTOCOL
    gd_setting = (f"{cfg.gd_samples} unit-norm Gaussian inputs (n = {cfg.gd_samples}, d = {cfg.gd_dim}, data seed 0) "
                  f"with the smooth target of chapter 5; ReLU nets of width m = {cfg.gd_width}, depths L = "
                  f"{_ints(cfg.gd_depths)}, weight seed 0 (one seed); {cfg.gd_steps} full-batch GD steps on the "
                  f"square loss with step 1/lambda_max(K(w_0)); {prof}")
    sgd_common = (f"ReLU nets without biases of width m = {cfg.sgd_width}, depths L = {_ints(cfg.sgd_depths)}, "
                  f"{cfg.seeds} seeds per depth; cross-entropy, mini-batch SGD; learning-rate grid {_floats(cfg.lrs)} "
                  f"searched per depth on seed 0; {prof}")
    sizes = _sgd_sizes(cfg, studies)
    ratios, ses = [], []
    for data, _ in studies:
        s = sgd_setting(cfg, data)
        if data not in MNIST_SETS + ("Fashion-MNIST",):
            ratios.append(f"{data} has {s['n_train']:,} training images, about {p['n_train'] / s['n_train']:.0f} "
                          f"times fewer than MNIST's {p['n_train']:,}")
        ses.append(f"{100 * math.sqrt(0.95 * 0.05 / s['n_test']):.1f} points for the {s['n_test']:,} test images "
                   f"of {data}")
    folders = "; ".join(
        f"the {name} IDX files are read from {folder} (papermill parameter {_FOLDER_PARAM[name]})" if folder is not None
        else f"no {name} folder is given (papermill parameter {_FOLDER_PARAM[name]} = None)"
        for name, folder in (("MNIST", cfg.idx_dir), ("Fashion-MNIST", cfg.fashion_dir)))
    budget = "; ".join(f"{data}, {sgd_setting(cfg, data)['updates']:,} SGD updates" for data, _ in studies)
    data_text = ", ".join(data + (f" ({note})" if note else "") for data, note in studies)
    runs = _sgd_sizes(cfg, studies, notes=True)
    return {
        "fig6_1": f"Setting: {gd_setting}. Deviation: the paper states the rates of Eq. 9 without a GD experiment; "
                  f"this run is ours (its Figure 4 uses SGD with cross-entropy on MNIST).",
        "fig6_2": f"Setting: {sizes}; {sgd_common}. {_deviation_text(cfg, studies, table=False)}",
        "fig6_3": f"Setting: held-out accuracy of the runs of Figure 6.2 ({sizes}); {sgd_common}. "
                  f"{_deviation_text(cfg, studies, table=True)}",
        "gd_m": str(cfg.gd_width), "gd_n": str(cfg.gd_samples), "gd_d": str(cfg.gd_dim),
        "gd_t": str(cfg.gd_steps), "gd_L": _ints(cfg.gd_depths), "faces_dim": str(FACES_DIM),
        "sgd_budget": f"{budget}; {prof}", "sgd_sets": data_text, "idx_folders": folders,
        "batch": str(cfg.batch_size), "n_epochs": str(cfg.epochs), "lr_grid": _floats(cfg.lrs),
        "n_seeds": str(cfg.seeds),
        "sgd_m": str(cfg.sgd_width), "sgd_L": _ints(cfg.sgd_depths), "sgd_sizes": sizes, "sgd_runs": runs,
        "train_ratio": "; ".join(ratios) if ratios else "every data set of this run is one of the paper's",
        "binomial_se": "; ".join(ses),
        "paper_table1": ", ".join(f"{v:.2f}" for v in PAPER_TABLE1.values()) + " % at depths "
                        + _ints(PAPER_TABLE1),
        "paper_updates": f"about {p['updates']:,}",
    }


def table_table1_vs_paper(acc: pd.DataFrame, study: SGDStudy) -> pd.DataFrame:
    """[LH] Table 1, paper vs this book: the paper's MNIST accuracies and statements against ours, with the rule.

    The rows are the accuracy at every depth of either table (shown, not judged: the absolute value
    depends on the data set and the budget), then the three statements
    :func:`lib.chapters.optimization.figure4.check_accuracy` judges, with its rule in words
    (differences count beyond twice their standard error over seeds), then the protocol, which
    decides the verdict level.

    Args:
        acc: :func:`lib.chapters.optimization.figure4.accuracy_table` output (must contain depth 6 and a deeper one).
        study: the study it came from (:func:`lib.chapters.optimization.sgd.compute_sgd_study`).

    Returns:
        Columns statement, paper (MNIST), ours (the study's data set), rule, holds (``"yes"``, ``"no"``
        or ``"not judged"``).

    Raises:
        lib.validation.InputError: the table has no depth 6 or none deeper.
    """
    st = table1_statements(acc)  # the rows check_accuracy judges, with its rule: no second rule here
    m, sd, ns = acc["mean (%)"], acc["sd (%)"].fillna(0.0), acc["seeds"]
    yes = {True: "yes", False: "no"}
    rows = []
    for L in sorted(set(int(v) for v in acc.index) | set(PAPER_TABLE1)):
        ours = f"{m[L]:.2f} +- {sd[L]:.2f} % ({int(ns[L])} seeds)" if L in acc.index else "not run"
        rows.append(dict(statement=f"test accuracy at depth {L}",
                         paper=f"{PAPER_TABLE1[L]:.2f} %" if L in PAPER_TABLE1 else "not run", ours=ours,
                         rule="shown, not judged (the absolute value depends on the data set and the budget)",
                         holds="not judged"))
    rows += [dict(statement=r.statement, paper=r.paper, ours=r.ours, rule=r.rule, holds=yes[bool(r.holds)])
             for r in st.itertuples()]
    devs = protocol_deviations(study, table=True)
    lv = deviation_levels(study, table=True)
    p = PAPER_PROTOCOL
    rows.append(dict(
        statement="protocol (sets the verdict level)",
        paper=f"{p['data']}, {p['n_train']:,} training images, batch {p['batch']}, about {p['updates']:,} SGD updates, "
              f"{p['seeds']} seeds",
        ours=f"{study.data}, {study.n_train:,} training images, batch {study.batch}, {study.updates:,} SGD updates, "
             f"{study.seeds} seeds",
        rule="on MNIST (or MNIST-5k) at the paper's 500 epochs: the three statements hold -> reproduced; peak at the "
             "shallowest depth or a rise after depth 6 beyond the error -> not reproduced; otherwise reproduced with "
             "caveat. On other data at the paper's budget: agreement -> reproduced with caveat, otherwise "
             "inconclusive. Fewer epochs or seeds, another batch, a rate at the grid's edge or a diverged run -> "
             "inconclusive. "
             "Deviations here: " + ("; ".join(devs) if devs else "none") + ".",
        holds=yes[not (lv["budget"] or lv["data"])]))
    return pd.DataFrame(rows, columns=["statement", "paper", "ours", "rule", "holds"])
