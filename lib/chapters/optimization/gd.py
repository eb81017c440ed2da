"""Chapter 06, full-batch GD against the worst-case rates of [LH] Sec. 5 (Eq. 9; the formulas page, book/formulas.md).

- :func:`measure_gd`: full-batch GD on the sum square loss of wide ReLU (or linear) nets of several
  depths, with the worst-case bounds (1 - eta lambda_min / 2)^t and (1 - 1/kappa)^t computed from
  the measured NTK at initialization, and the linearized prediction 1/2 ||(I - eta K)^t r_0||^2; the
  result, a :class:`GDStudy`, carries the data and settings it ran with.
- :func:`measure_gd_seeds`: the same study repeated over weight seeds (:class:`GDSeeds`), so that the
  order of depths ([LH] Sec. 5(b)) is judged against the seed spread (:func:`table_gd_seeds`).
- :func:`check_worst_case`: [LH] Eq. 9 (the bound, and that the NTK at initialization sets the
  late rate) or the implication [LH] Sec. 5(b) (deeper nets converge faster);
  :func:`check_relu_vs_linear`: [LH] Sec. 5(a).
- :func:`gd_setting` and :func:`glue_gd`: the setting line under the figure and the values the prose shows.

Every GD run is cached with :func:`lib.book.cache.cached_call` (one JSON record per depth).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch
from matplotlib.figure import Figure

from lib.book.spec import reads_config
from lib.book.cache import cached_call
from lib.book.plotting import figure
from lib.book.results import Check
from lib.book.wording import count, ints, noun_for
from lib.chapters.optimization.figure4 import SE_MULTIPLE, depth_pairs
from lib.data import synthetic_regression
from lib.data.datasets import load_faces
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.finite.training import gd_train, linearized_losses
from lib.progress import tqdm
from lib.spectra import extreme_eigenvalues

__all__ = ["GD_DATA", "GDStudy", "GDSeeds", "gd_data", "measure_gd", "measure_gd_seeds", "late_rate", "table_gd_rates",
           "table_gd_seeds", "table_gd_curves", "plot_gd_bounds", "check_worst_case", "RATE_TOLERANCE", "BOUND_RTOL",
           "WORST_CASE_CLAIMS", "check_relu_vs_linear", "faces_regression", "gd_setting", "figure_gd_bounds",
           "glue_gd"]

#: Largest relative gap ``abs(log r_measured / log r_linearized - 1)`` between the measured late
#: per-step factor and the late factor of GD on the model linearized at w_0 for the rate to count
#: as "set by the NTK at initialization" (see :func:`check_worst_case`): 25 % is several times the
#: drift of a width >= 512 net at depth <= 4 over the run, and far below the gap of a kernel that
#: moved by a factor 2 (log 2 of the rate).
RATE_TOLERANCE = 0.25

#: Relative excess of the measured loss over a bound of [LH] Eq. 9 that is still read as "at most the
#: bound": the ratio loss / bound is a quotient of float64 numbers (the bound a product of t factors),
#: whose rounding is about t x 1e-16 (1e-13 at 1,000 steps); 1e-9 absorbs it with room, and no
#: excess that small is optimization.
BOUND_RTOL = 1e-9

#: The claims :func:`check_worst_case` can settle.
WORST_CASE_CLAIMS = ("[LH] Eq 9", "[LH] Sec 5(b)")


#: The data sets of the GD studies, with how the setting line describes them; (inputs, targets).
GD_DATA = {
    "Gaussian": ("unit-norm Gaussian inputs", "with the smooth target of chapter 5"),
    "faces": ("faces images", "of unit norm, with target +1 for a face and -1 otherwise"),
}


@dataclass(frozen=True, eq=False)
class GDStudy:
    """Full-batch GD on nets of several depths ([LH] Sec. 5), with the data and settings it ran with.

    Attributes:
        data: the data set (a key of :data:`~lib.chapters.optimization.gd.GD_DATA`).
        runs: ``{depth: dict}`` with the measured ``loss`` (t = 0..steps), ``bound_lmin`` =
            L0 (1 - eta lambda_min / 2)^t, ``bound_kappa`` = L0 (1 - 1/kappa)^t, ``linear`` (the
            linearized-model loss), and ``lambda_min``, ``lambda_max``, ``kappa``, ``eta``.
        depths: the depths L, in the order run.
        width: hidden width m.
        steps: GD steps.
        n, d: training points and input dimension.
        seed: weight seed (one seed).
        data_seed: seed of the data draw.
        activation: hidden activation (``"relu"`` or ``"linear"``).
    """

    data: str
    runs: dict
    depths: tuple
    width: int
    steps: int
    n: int
    d: int
    seed: int = 0
    data_seed: int = 0
    activation: str = "relu"

    def __getitem__(self, depth: int) -> dict:
        """The run of one depth (``study[L]`` is ``study.runs[L]``)."""
        return self.runs[depth]


#: What the studies of one :class:`GDSeeds` share (all but the weight seed).
_SHARED = ("data", "depths", "width", "steps", "n", "d", "data_seed", "activation")


@dataclass(frozen=True, eq=False)
class GDSeeds:
    """One full-batch GD study ([LH] Sec. 5) repeated over weight seeds: the same data, depths, width and
    steps, one :class:`GDStudy` per seed, in order (iterating gives them; ``seeds[i]`` is the i-th).

    Attributes:
        studies: the studies, one per weight seed (at least one).

    Raises:
        ValueError: no study, a repeated seed, or studies that differ in anything but the seed.
    """

    studies: tuple

    def __post_init__(self):
        st = tuple(self.studies)
        if not st:
            raise ValueError("GDSeeds needs at least one study")
        if any(tuple(getattr(x, k) for k in _SHARED) != tuple(getattr(st[0], k) for k in _SHARED) for x in st):
            raise ValueError(f"the studies of one GDSeeds must share {_SHARED}")
        seeds = [x.seed for x in st]
        if len(set(seeds)) != len(seeds):
            raise ValueError(f"the studies of one GDSeeds must have distinct weight seeds, got {seeds}")
        object.__setattr__(self, "studies", st)

    def __iter__(self):
        return iter(self.studies)

    def __len__(self) -> int:
        return len(self.studies)

    def __getitem__(self, i: int) -> GDStudy:
        """The study of the i-th seed."""
        return self.studies[i]

    @property
    def seeds(self) -> tuple:
        """The weight seeds, in order."""
        return tuple(x.seed for x in self.studies)

    # what every study shares (checked in __post_init__), read from the first
    data = property(lambda self: self.studies[0].data, doc="The data set (shared).")
    depths = property(lambda self: self.studies[0].depths, doc="The depths L (shared).")
    width = property(lambda self: self.studies[0].width, doc="Hidden width m (shared).")
    steps = property(lambda self: self.studies[0].steps, doc="GD steps (shared).")
    n = property(lambda self: self.studies[0].n, doc="Training points (shared).")
    d = property(lambda self: self.studies[0].d, doc="Input dimension (shared).")
    data_seed = property(lambda self: self.studies[0].data_seed, doc="Seed of the data draw (shared).")
    activation = property(lambda self: self.studies[0].activation, doc="Hidden activation (shared).")


def gd_data(data: str, n: int, dim: int = 5, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The inputs and targets of a GD study: ``"Gaussian"`` (:func:`lib.data.synthetic_regression`, d = ``dim``)
    or ``"faces"`` (:func:`faces_regression`, d = 625, ``dim`` unused).

    Args:
        data: a key of :data:`~lib.chapters.optimization.gd.GD_DATA`.
        n: training points.
        dim: input dimension of the Gaussian set.
        seed: seed of the draw.

    Returns:
        (X, y), float64.

    Raises:
        ValueError: unknown ``data``.
    """
    if data == "Gaussian":
        reg = synthetic_regression(n, dim, seed=seed)
        return reg["X"], reg["y"]
    if data == "faces":
        return faces_regression(n, seed=seed)
    raise ValueError(f"data must be one of {tuple(GD_DATA)}, got {data!r}")


@reads_config(n="gd_samples", depths="gd_depths", width="gd_width", steps="gd_steps")
def measure_gd(data: str, n: int, depths, width: int, steps: int, *, dim: int = 5, seed: int = 0,
               data_seed: int = 0, activation: str = "relu") -> GDStudy:
    """GD with eta = 1 / lambda_max(K(w_0)) on nets of each depth ([LH] Sec. 5).

    Per depth: the exact NTK K(w_0) at initialization, its extreme eigenvalues, full-batch GD on the
    sum square loss, the worst-case bounds of [LH] Eq. 9 from K(w_0), and the loss of GD on the model
    linearized at w_0.

    Args:
        data: ``"Gaussian"`` or ``"faces"`` (:func:`gd_data`).
        n: training points.
        depths: depths L.
        width: hidden width m.
        steps: GD steps.
        dim: input dimension of the Gaussian set.
        seed: weight seed.
        data_seed: seed of the data draw.
        activation: hidden activation.

    Returns:
        :class:`GDStudy` (each depth cached with :func:`lib.book.cache.cached_call`).
    """
    X, y = gd_data(data, n, dim, seed=data_seed)
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    out = {}
    for L in tqdm(list(depths), desc="GD by depth", leave=False):
        def run(L=L):
            net = MLP(X.shape[1], width, L, activation=activation, seed=seed)
            K = empirical_ntk(net, X)
            sp = extreme_eigenvalues(K)
            eta = 1.0 / sp.lambda_max
            with torch.no_grad():
                r0 = (net(X) - torch.as_tensor(y)).numpy()
            res = gd_train(net, X, y, eta, steps, "square", progress=False, desc=f"depth {L}")
            t = np.arange(len(res["loss"]))
            L0 = res["loss"][0]
            return dict(depth=L, loss=res["loss"], lambda_min=sp.lambda_min, lambda_max=sp.lambda_max,
                        kappa=sp.kappa, eta=eta, bound_lmin=L0 * (1 - eta * sp.lambda_min / 2) ** t,
                        bound_kappa=L0 * (1 - 1 / sp.kappa) ** t, linear=linearized_losses(K, r0, eta, steps))
        key = dict(L=L, m=width, steps=steps, seed=seed, act=activation, X=X, y=y)
        out[L] = cached_call("06_optimization_gd", key, run, version="1")
    return GDStudy(data, out, tuple(int(L) for L in depths), int(width), int(steps), len(X), X.shape[1], seed=seed,
                   data_seed=data_seed, activation=activation)


@reads_config(n="gd_samples", depths="gd_depths", width="gd_width", steps="gd_steps", dim="gd_dim",
              seeds="gd_seeds")
def measure_gd_seeds(data: str, n: int, depths, width: int, steps: int, *, seeds: int = 3, dim: int = 5,
                     data_seed: int = 0, activation: str = "relu") -> GDSeeds:
    """:func:`measure_gd` with weight seeds 0..seeds-1 on the same data ([LH] Sec. 5(b) judged against the seed spread).

    Args:
        data, n, depths, width, steps, dim, data_seed, activation: as in :func:`measure_gd`.
        seeds: number of weight seeds (>= 1; the order of depths is judged only with >= 2).

    Returns:
        :class:`GDSeeds` (each seed and depth cached by :func:`measure_gd`).

    Raises:
        ValueError: ``seeds`` < 1.
    """
    if isinstance(seeds, bool) or not isinstance(seeds, (int, np.integer)) or seeds < 1:
        raise ValueError(f"seeds must be a positive integer, got {seeds!r}")
    return GDSeeds(tuple(measure_gd(data, n, depths, width, steps, dim=dim, seed=s, data_seed=data_seed,
                                    activation=activation) for s in range(int(seeds))))


def late_rate(loss, frac: float = 0.5, floor: float = 1e-10) -> float:
    """Per-step contraction factor (L_T / L_s)^(1/(T-s)) over the last ``frac`` of the run.

    The run is first cut at T, its last step with L_t / L_0 above ``floor`` (below it is rounding
    noise, not optimization); s = int(T (1 - frac)).

    Args:
        loss: the loss per step (L_0 > 0).
        frac: the fraction of the run (its end) over which the factor is taken.
        floor: relative loss at or below which the run is cut.

    Returns:
        The per-step factor.

    Raises:
        ValueError: L_0 is not positive, the cut run has fewer than 2 steps in its window, or L_s is not positive.
    """
    loss = np.asarray(loss)
    if not loss[0] > 0:
        raise ValueError(f"need a positive initial loss, got {loss[0]}")
    T = int(np.flatnonzero(loss > floor * loss[0])[-1])
    s = int(T * (1 - frac))
    if T - s < 1 or loss[s] <= 0:
        raise ValueError("need a run of at least 2 steps with positive losses")
    return float((loss[T] / loss[s]) ** (1.0 / (T - s)))


# ---------------------------------------------------------------- the chapter: tables, figures, verdicts
def table_gd_rates(gd: GDStudy) -> pd.DataFrame:
    """Per depth: kappa, the measured late factor, the linearized and bound factors, and measured/bound ratios.

    Args:
        gd: :func:`measure_gd` output (one row per depth, in its order).

    Returns:
        A frame indexed by ``depth`` with columns ``kappa``, ``measured late factor``, ``linearized late
        factor`` (GD on the model linearized at w_0), ``(1-eta lmin)^2``, ``1-eta lmin/2``, ``1-1/kappa``,
        ``max_t loss/paper bound`` (the largest ratio of the measured loss to the paper's bound
        L0 (1 - eta lambda_min / 2)^t over the run), ``max_t loss/kappa bound`` (the same against
        L0 (1 - 1/kappa)^t) and ``loss/kappa bound at the end``.
    """
    depths = gd.depths
    tab = pd.DataFrame({
        "kappa": {L: gd[L]["kappa"] for L in depths},
        "measured late factor": {L: late_rate(gd[L]["loss"]) for L in depths},
        "linearized late factor": {L: late_rate(gd[L]["linear"]) for L in depths},
        "(1-eta lmin)^2": {L: (1 - gd[L]["eta"] * gd[L]["lambda_min"]) ** 2 for L in depths},
        "1-eta lmin/2": {L: 1 - gd[L]["eta"] * gd[L]["lambda_min"] / 2 for L in depths},
        "1-1/kappa": {L: 1 - 1 / gd[L]["kappa"] for L in depths},
        "max_t loss/paper bound": {L: float(np.max(np.asarray(gd[L]["loss"]) / gd[L]["bound_lmin"])) for L in depths},
        "max_t loss/kappa bound": {L: float(np.max(np.asarray(gd[L]["loss"]) / gd[L]["bound_kappa"])) for L in depths},
        "loss/kappa bound at the end": {L: gd[L]["loss"][-1] / gd[L]["bound_kappa"][-1] for L in depths},
    })
    tab.index.name = "depth"
    return tab


def table_gd_seeds(gds: GDSeeds) -> pd.DataFrame:
    """Per depth, over the weight seeds of ``gds``: mean and sd of log10 kappa(K(w_0)) and of the measured
    late per-step loss factor (:func:`late_rate`), the values [LH] Sec. 5(b) orders by depth.

    Args:
        gds: :func:`measure_gd_seeds` output (a single :class:`GDStudy` counts as one seed).

    Returns:
        A frame indexed by ``depth`` with ``log10 kappa``, ``log10 kappa sd``, ``late factor``,
        ``late factor sd`` (sd with ddof 1; 0 for one seed) and ``seeds``.
    """
    studies = tuple(gds) if isinstance(gds, GDSeeds) else (gds,)
    rows = {}
    for L in studies[0].depths:
        k = np.log10([st[L]["kappa"] for st in studies])
        r = np.array([late_rate(st[L]["loss"]) for st in studies])
        sd = (lambda v: float(np.std(v, ddof=1)) if v.size > 1 else 0.0)
        rows[int(L)] = {"log10 kappa": float(np.mean(k)), "log10 kappa sd": sd(k), "late factor": float(np.mean(r)),
                        "late factor sd": sd(r), "seeds": len(studies)}
    return pd.DataFrame(list(rows.values()), index=pd.Index(list(rows), name="depth"))


def table_gd_curves(gd: GDStudy) -> pd.DataFrame:
    """The curves :func:`plot_gd_bounds` draws: per depth and GD step, the measured loss, the linearized
    model's loss and the two worst-case bounds of [LH] Eq. 9, each relative to the loss at step 0.

    Args:
        gd: :func:`measure_gd` output.

    Returns:
        A long frame with columns ``depth``, ``step``, ``measured``, ``linearized``, ``1-eta lmin/2`` and
        ``1-1/kappa`` (the bounds L0 (1 - eta lambda_min / 2)^t and L0 (1 - 1/kappa)^t over L0).
    """
    parts = []
    for L in gd.depths:
        r = gd[L]
        L0 = r["loss"][0]
        parts.append(pd.DataFrame({"depth": L, "step": np.arange(len(r["loss"])), "measured": r["loss"] / L0,
                                   "linearized": np.asarray(r["linear"]) / L0, "1-eta lmin/2": r["bound_lmin"] / L0,
                                   "1-1/kappa": r["bound_kappa"] / L0}))
    return pd.concat(parts, ignore_index=True)


def plot_gd_bounds(gd: GDStudy) -> Figure:
    """Relative GD loss per depth with the two worst-case bounds and the linearized prediction ([LH] Eq. 9).

    Args:
        gd: :func:`measure_gd` output: one panel per depth (4 panels per row); the curves are
            :func:`table_gd_curves`.

    Returns:
        The figure, two panels per row (more would be shrunk below a readable size in the text column;
        ``lib.book.plotting.COLUMN_INCHES``), one per depth; an unused one hidden.
    """
    depths = gd.depths
    curves = table_gd_curves(gd)
    nd = len(depths)
    fig, axs = figure(ncols=min(nd, 2), nrows=(nd + 1) // 2, width=3.6, height=3.0, sharey=True)
    for i, L in enumerate(depths):
        ax = axs.flat[i]
        c = curves[curves.depth == L]
        ax.semilogy(c.step, c.measured, lw=2.5, label="measured")
        ax.semilogy(c.step, c.linearized, "--", label=r"linearized $\frac{1}{2}\|(I-\eta K)^t r_0\|^2$")
        ax.semilogy(c.step, c["1-eta lmin/2"], ":", label=r"$(1-\eta\lambda_{\min}/2)^t$")
        ax.semilogy(c.step, c["1-1/kappa"], "-.", label=r"$(1-1/\kappa)^t$")
        ax.set(title=f"depth L={L}, $\\kappa$={gd[L]['kappa']:.0f}", xlabel="GD step t", ylim=(1e-16, 2))
        if i % 2 == 0:
            ax.set_ylabel(r"$\mathcal{L}(w_t)/\mathcal{L}(w_0)$")
    for ax in list(axs.flat)[nd:]:
        ax.set_visible(False)
    axs.flat[0].legend(loc="lower left", fontsize=9, framealpha=0.9)
    return fig


def _where(studies: tuple) -> str:
    """``at depths 1, 2, 3 (width m, n=...)``: the setting the verdict sentences of a GD study quote."""
    return f"at depths {ints(studies[0].depths, ranges=False)} (width {studies[0].width}, n={studies[0].n})"


def _eq9(studies: tuple) -> Check:
    """[LH] Eq. 9 on every seed and depth of ``studies`` (see :func:`check_worst_case`)."""
    tabs = [(st.seed, table_gd_rates(st)) for st in studies]
    depths = list(studies[0].depths)
    paper = max(float(t["max_t loss/paper bound"].max()) for _, t in tabs)
    kap = max(float(t["max_t loss/kappa bound"].max()) for _, t in tabs)
    def over(col):
        """The depths (any seed) where the loss exceeds a bound beyond float64 rounding."""
        return sorted({int(L) for _, t in tabs for L in t.index[t[col] > 1 + BOUND_RTOL]})

    paper_over, kappa_over = over("max_t loss/paper bound"), over("max_t loss/kappa bound")
    paper_ok, kappa_ok = not paper_over, not kappa_over
    gaps = [(abs(float(np.log(t.loc[L, "measured late factor"]) / np.log(t.loc[L, "linearized late factor"])) - 1),
             s_, L) for s_, t in tabs for L in depths]
    worst, w_seed, w_depth = max(gaps)
    follows = worst <= RATE_TOLERANCE
    caveats = []
    if paper_ok and not kappa_ok:
        caveats.append(f"the loss exceeds the (1-1/kappa)^t form at "
                       f"{noun_for(len(kappa_over), 'depth')} {ints(kappa_over, ranges=False)} (by up to "
                       f"a factor {kap:.3g}) while it stays below the paper's (1 - eta lambda_min/2)^t bound; at "
                       "eta = 1/lambda_max the paper's bound is (1 - 1/(2 kappa))^t, and (1-1/kappa)^t is only its "
                       "'about' form")
    if paper_ok and not follows:
        caveats.append(f"the late rate differs from the one the NTK at initialization predicts by up to {worst:.0%} "
                       f"(in log) at depth {w_depth} (seed {w_seed}): the kernel moved during training")
    status = "not reproduced" if not paper_ok else "reproduced" if not caveats else "reproduced with caveat"
    # what the sentence quotes (means over seeds per depth; the slowest mode of the first seed)
    text = dict(
        kappas=", ".join(f"{np.mean([t.loc[L, 'kappa'] for _, t in tabs]):.0f}" for L in depths),
        lin=", ".join(f"{np.mean([t.loc[L, 'linearized late factor'] for _, t in tabs]):.4f}" for L in depths),
        meas=", ".join(f"{np.mean([t.loc[L, 'measured late factor'] for _, t in tabs]):.4f}" for L in depths),
        end=float(np.median([t["loss/kappa bound at the end"].median() for _, t in tabs])),
        mean=f" (mean over {len(studies)} weight seeds)" if len(studies) > 1 else "",
        slowest=", ".join(f"{v:.4f}" for v in tabs[0][1]["(1-eta lmin)^2"]))
    measured = (
        f"kappa(K(w_0)) = {text['kappas']}{text['mean']} {_where(studies)}. Largest ratio of the measured loss to the paper's "
        f"bound L0 (1 - eta lambda_min/2)^t over every step, depth and seed: {paper:.6g} (it holds: {'yes' if paper_ok else 'no'}); to "
        f"the (1-1/kappa)^t form: {kap:.6g} (it holds: {'yes' if kappa_ok else 'no'}; at the last step {text['end']:.2g} times it, "
        f"median). Measured late per-step factors {text['meas']}{text['mean']} against those of GD on the model "
        f"linearized with the NTK at initialization {text['lin']}: largest relative gap in log {worst:.2f} (tolerance "
        f"{RATE_TOLERANCE}); the slowest mode (1-eta lambda_min)^2 = {text['slowest']} (seed {tabs[0][0]}). The bound "
        f"has the right mode but (1-1/kappa) per step is the square root of what happens (the loss is quadratic in "
        f"the residual).")
    rows = (
        dict(statement="the loss stays below L0 (1 - eta lambda_min/2)^t at every step (the paper's bound)",
             paper="a theorem for wide networks (prior work)",
             **{"this book": f"largest ratio loss/bound {paper:.6g} (every step, depth and seed)"},
             rule=f"a ratio at most 1 + {BOUND_RTOL:g} (float64 rounding); above it: not reproduced", holds=paper_ok),
        dict(statement="the loss stays below L0 (1 - 1/kappa)^t at every step (the paper's 'about' form at "
                       "eta = 1/lambda_max)",
             paper="about (1 - 1/kappa)^t", **{"this book": f"largest ratio loss/bound {kap:.6g}"},
             rule=f"a ratio at most 1 + {BOUND_RTOL:g}; above it while the paper's bound holds: with caveat (at "
                  "eta = 1/lambda_max the paper's bound is (1 - 1/(2 kappa))^t, looser)", holds=kappa_ok),
        dict(statement="the late rate is the one the NTK at initialization predicts",
             paper="the bound is computed from K(w_0)",
             **{"this book": f"largest relative gap in log {worst:.2f} (depth {w_depth}, seed {w_seed})"},
             rule=f"a gap at most {RATE_TOLERANCE} against GD on the linearized model; above it: with caveat (the "
                  "kernel moved)", holds=follows),
    )
    return Check("[LH] Eq 9", status=status, measured=measured, caveat="; ".join(caveats), rows=rows)


def _sec5b(studies: tuple) -> Check:
    """[LH] Sec. 5(b) against the seed spread of ``studies`` (see :func:`check_worst_case`)."""
    tab = table_gd_seeds(GDSeeds(studies))
    depths = list(tab.index)
    first, last = depths[0], depths[-1]
    nseeds = len(studies)
    seeds = f"{nseeds} weight seed{'s' if nseeds > 1 else ''} ({ints([st.seed for st in studies], ranges=False)})"
    measured = (f"Mean over {seeds}: kappa(K(w_0)) = "
                f"{', '.join(f'{10 ** v:.0f}' for v in tab['log10 kappa'])} (geometric mean; sd of log10 up to "
                f"{tab['log10 kappa sd'].max():.2f}) and measured late per-step loss factor "
                f"{', '.join(f'{v:.4f}' for v in tab['late factor'])} (sd up to {tab['late factor sd'].max():.4f}) "
                f"{_where(studies)} (full-batch GD, eta = 1/lambda_max).")
    if nseeds < 2:
        return Check("[LH] Sec 5(b)", status="inconclusive", measured=measured,
                     caveat="one weight seed: the seed spread against which the order of depths is judged is unknown "
                            "(set gd_seeds to 2 or more)")
    parts, rows = {}, []
    within = "its fall from the shallowest to the deepest depth is within the seed spread"
    for key, col, sdcol, what in (("kappa", "log10 kappa", "log10 kappa sd", "condition number kappa(K(w_0))"),
                                  ("rate", "late factor", "late factor sd", "measured late per-step factor")):
        pairs = depth_pairs(tab, value=col, sd=sdcol)
        end = pairs[(pairs.shallow == first) & (pairs.deep == last)].iloc[0]
        fall, se = -float(end.excess), float(end.se2)
        sig = pairs[pairs.significant]
        parts[key] = dict(falls=fall > se, rises=fall < -se, n_sig=len(sig),
                          text=f"{what} ({col}), depth {first} minus depth {last}: {fall:.3g} ({SE_MULTIPLE:g} "
                               f"standard errors {se:.2g}); deeper larger in {int(pairs.inverted.sum())} of {len(pairs)} "
                               f"depth pairs, {len(sig)} beyond {SE_MULTIPLE:g} standard errors"
                               + (" (" + ", ".join(f"{r.deep} above {r.shallow}" for r in sig.itertuples()) + ")"
                                  if len(sig) else ""),
                          caveat=f"the {what}: " + ", ".join(
                              ([within] if not fall > se else [])
                              + ([f"{count(len(sig), 'depth pair')} inverted beyond the seed spread"] if len(sig) else [])))
        rows += [dict(statement=f"the {what} falls from the shallowest to the deepest depth",
                      paper="deeper: smaller kappa, faster worst-case rate",
                      **{"this book": f"{col}, depth {first} minus depth {last}: {fall:.4g}"},
                      rule=f"a fall larger than {SE_MULTIPLE:g} standard errors over seeds ({se:.2g}); a rise that "
                           "large contradicts", holds=fall > se),
                 dict(statement=f"no deeper net has a significantly larger {what} (every pair of depths)",
                      paper="every added layer helps",
                      **{"this book": f"{len(sig)} of {len(pairs)} pairs inverted beyond the error"},
                      rule=f"no pair whose deeper net's {col} is higher by more than {SE_MULTIPLE:g} standard "
                           "errors", holds=len(sig) == 0)]
    k, r = parts["kappa"], parts["rate"]
    caveat = ""
    if k["falls"] and r["falls"] and k["n_sig"] == 0 and r["n_sig"] == 0:
        status = "reproduced"
    elif k["rises"] or r["rises"]:
        status = "not reproduced"
    else:
        status = "reproduced with caveat"
        caveat = "; ".join(p["caveat"] for p in (k, r) if not p["falls"] or p["n_sig"])
    measured += " " + "; ".join(p["text"] for p in (k, r)) + "."
    return Check("[LH] Sec 5(b)", status=status, measured=measured, caveat=caveat, rows=tuple(rows))


def check_worst_case(gd, claim: str = "[LH] Eq 9") -> Check:
    """[LH] Eq. 9 (worst-case GD rate from the NTK at initialization) or its implication [LH] Sec. 5(b).

    ``claim="[LH] Eq 9"``. The paper's statement: for the square loss on a wide network, GD with step
    eta satisfies L(w_t) <= (1 - eta lambda_min(K)/2)^t L(w_0), "i.e. about (1 - 1/kappa)^t" at
    eta ~ 1/lambda_max. The two forms do not agree at the book's eta = 1/lambda_max: there
    eta lambda_min = 1/kappa, so the paper's bound is (1 - 1/(2 kappa))^t, looser than (1 - 1/kappa)^t.
    Judged on every step, depth and weight seed (the bound uses lambda_min(K(w_0)), so it describes
    training while the kernel stays near K(w_0)). Rule:

    - "not reproduced" if the measured loss exceeds the paper's bound L0 (1 - eta lambda_min/2)^t at
      any step (ratio above 1 + :data:`~lib.chapters.optimization.gd.BOUND_RTOL`, float64 rounding);
    - "reproduced with caveat" if the paper's bound holds but the loss exceeds the (1-1/kappa)^t form
      somewhere (the "about" form, named), or the measured late per-step factor r is off the late
      factor of GD on the model linearized at w_0 by more than
      :data:`~lib.chapters.optimization.gd.RATE_TOLERANCE` (25 %, in log: the kernel moved, so the
      bound is not what sets the speed);
    - "reproduced" if both forms hold at every step and every late rate is within the tolerance.

    ``claim="[LH] Sec 5(b)"``. The paper's statement: deeper wide ReLU nets have a faster worst-case
    rate (a smaller kappa). Judged against the spread over weight seeds (``gd`` a :class:`GDSeeds`;
    :func:`table_gd_seeds`): for each of log10 kappa(K(w_0)) and the measured late per-step factor,
    every pair of depths is compared (:func:`lib.chapters.optimization.figure4.depth_pairs`), a
    difference counting when beyond :data:`~lib.chapters.optimization.figure4.SE_MULTIPLE` (2)
    standard errors over seeds. Rule:

    - "reproduced" if both fall from the shallowest to the deepest depth beyond 2 standard errors and
      no pair of depths is inverted beyond them (both quantities: kappa, and the rate it predicts);
    - "not reproduced" if either rises from the shallowest to the deepest depth beyond 2 standard
      errors (deeper nets worse conditioned, or slower);
    - "reproduced with caveat" otherwise (a fall within the seed noise, or some pair inverted beyond it);
    - "inconclusive" with one weight seed (the spread is unknown).

    Args:
        gd: :func:`measure_gd_seeds` output, or one :func:`measure_gd` study (one seed); its depths, width
            and number of points are quoted.
        claim: ``"[LH] Eq 9"`` or ``"[LH] Sec 5(b)"`` (:data:`~lib.chapters.optimization.gd.WORST_CASE_CLAIMS`).

    Returns:
        The check against ``claim``, with the statements it judged as :attr:`~lib.book.results.Check.rows`.

    Raises:
        ValueError: ``claim`` is not one of :data:`~lib.chapters.optimization.gd.WORST_CASE_CLAIMS`.
    """
    if claim not in WORST_CASE_CLAIMS:
        raise ValueError(f"claim must be one of {WORST_CASE_CLAIMS}, got {claim!r}")
    studies = tuple(gd) if isinstance(gd, GDSeeds) else (gd,)
    return _eq9(studies) if claim == "[LH] Eq 9" else _sec5b(studies)


def faces_regression(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``n`` faces images (unit norm, d = 625) with targets +1 (face) and -1 (not a face), for GD with n <= d.

    With n <= d the linear net's NTK has a finite kappa, so [LH] Sec. 5(a) (ReLU against linear)
    can be tested (:func:`check_relu_vs_linear`).

    Args:
        n: images (2..200; a seeded subsample).
        seed: seed of the subsample.

    Returns:
        (X, y).
    """

    X, lab = load_faces(n, seed=seed, unit_norm=True, return_labels=True)
    return X, 2.0 * lab - 1.0


def check_relu_vs_linear(relu: GDStudy, linear: GDStudy) -> Check:
    """[LH] Sec. 5(a): the ReLU activation improves the worst-case GD rate over the linear network's.

    ``relu`` and ``linear`` are :func:`measure_gd` runs on the same data, with
    ``activation="relu"`` and ``"linear"``. The linear net's NTK is (L+1) X X^T up to finite-width
    noise ([LH] Cor 2.4), of rank at most d: with n > d its kappa is infinite and the comparison
    is vacuous ("not checked"). Rule otherwise, per depth: the ReLU net wins if its kappa(K(w_0))
    is smaller and its measured late per-step loss factor is smaller (faster). "reproduced" if it
    wins at every depth; "not reproduced" if at no depth (neither smaller kappa nor faster);
    "reproduced with caveat" otherwise (wins at some depths, named).

    Args:
        relu: :func:`measure_gd` output of ReLU nets (its n, d and depths are the ones judged).
        linear: the same for linear nets (same data, depths, width, steps, seed).

    Returns:
        The check, claim ``"[LH] Sec 5(a)"``.

    Raises:
        ValueError: the two studies differ in data, points, depths, width or steps.
    """
    same = ("data", "n", "d", "depths", "width", "steps", "data_seed")
    if any(getattr(relu, k) != getattr(linear, k) for k in same):
        raise ValueError(f"the ReLU and linear GD studies must share {same}: got "
                         f"{[getattr(relu, k) for k in same]} and {[getattr(linear, k) for k in same]}")
    depths, n_samples, dim = list(relu.depths), relu.n, relu.d
    if n_samples > dim:
        return Check("[LH] Sec 5(a)", status="not checked", measured=f"n = {n_samples} > d = {dim}",
                     caveat=f"not testable on this data: the linear net's kappa is infinite (n = {n_samples} > d = {dim})")
    kr = np.array([relu[L]["kappa"] for L in depths])
    kl = np.array([linear[L]["kappa"] for L in depths])
    rr = np.array([late_rate(relu[L]["loss"]) for L in depths])
    rl = np.array([late_rate(linear[L]["loss"]) for L in depths])
    wins = (kr < kl) & (rr < rl)
    caveat = ""
    if wins.all():
        status = "reproduced"
    elif not wins.any():
        status = "not reproduced"
    else:
        status = "reproduced with caveat"
        worse = [L for L, w in zip(depths, wins) if not w]
        caveat = f"the ReLU net is not better at {noun_for(len(worse), 'depth')} {ints(worse, ranges=False)}"
    measured = (f"On n = {n_samples} points in d = {dim} dimensions, kappa(K(w_0)) of ReLU / linear nets: "
                + ", ".join(f"{a:.0f} / {b:.0f} (L={L})" for L, a, b in zip(depths, kr, kl))
                + "; measured late per-step loss factors: "
                + ", ".join(f"{a:.4f} / {b:.4f} (L={L})" for L, a, b in zip(depths, rr, rl)) + ".")
    return Check("[LH] Sec 5(a)", status=status, measured=measured, caveat=caveat)


def gd_setting(gd) -> str:
    """The setting line under the figure of a GD study ([LH] Eq. 9): data, n, d, width, depths, seeds,
    steps and step size, and how it relates to the paper (which states the rates without a GD run).

    The profile and overrides of the run are in the re-run command under the figure
    (:func:`lib.book.figures.rerun_command`).

    Args:
        gd: :func:`measure_gd` output (one weight seed), or :func:`measure_gd_seeds` output (the figure
            draws its first seed; the verdicts judge every seed).

    Returns:
        One paragraph of plain text.
    """
    nets = "ReLU nets" if gd.activation == "relu" else f"{gd.activation} nets"
    inputs, targets = GD_DATA[gd.data]
    if isinstance(gd, GDSeeds) and len(gd) > 1:
        seeds = (f"weight seeds {ints(gd.seeds, ranges=False)} (the figure draws seed {gd.seeds[0]}; the verdicts "
                 f"judge every seed)")
    else:
        seeds = f"weight seed {(gd[0] if isinstance(gd, GDSeeds) else gd).seed} (one seed)"
    return (f"Setting: {gd.n} {inputs} (n = {gd.n}, d = {gd.d}, data seed {gd.data_seed}) {targets}; {nets} of "
            f"width m = {gd.width}, depths L = {ints(gd.depths, ranges=False)}, {seeds}; "
            f"{gd.steps} full-batch GD steps on the square loss with step 1/lambda_max(K(w_0)). Deviation: the paper "
            f"states the rates of Eq. 9 without a GD experiment; this run is ours (its Figure 4 uses SGD with "
            f"cross-entropy on MNIST).")


def figure_gd_bounds(gds: GDSeeds) -> dict:
    """The keyword arguments of :meth:`lib.book.results.Recorder.figure` for ``fig-opt-gd-bounds`` ([LH] Eq. 9,
    :func:`plot_gd_bounds`): the figure and its data draw the first weight seed, the setting names every seed.

    Args:
        gds: :func:`measure_gd_seeds` output.
    """
    gd = gds[0]
    return dict(fig=plot_gd_bounds(gd), label="fig-opt-gd-bounds", data=table_gd_curves(gd), drawn_by=plot_gd_bounds,
                data_from=measure_gd, setting=gd_setting(gds),
                caption="Relative GD loss against the step by depth, with the worst-case bounds and the linearized "
                        "model.")


def glue_gd(gd, faces: GDStudy) -> dict[str, str]:
    """The values the prose of the GD sections shows, from the studies that ran ([LH] Eq. 9, Sec. 5(a)).

    Args:
        gd: the study on the Gaussian set (:func:`measure_gd` or :func:`measure_gd_seeds` output).
        faces: a study on the faces set (its input dimension is quoted).

    Returns:
        ``gd_m`` (width), ``gd_n`` (points), ``gd_d`` (dimension), ``gd_t`` (steps), ``gd_L`` (depths),
        ``gd_S`` (the weight seeds, e.g. ``"3 weight seeds (0, 1, 2)"``) and ``faces_dim`` (pixels of a
        faces image).
    """
    seeds = gd.seeds if isinstance(gd, GDSeeds) else (gd.seed,)
    return dict(gd_m=str(gd.width), gd_n=str(gd.n), gd_d=str(gd.d), gd_t=str(gd.steps),
                gd_L=ints(gd.depths, ranges=False),
                gd_S=f"{len(seeds)} weight seed{'s' if len(seeds) > 1 else ''} ({ints(seeds, ranges=False)})",
                faces_dim=str(faces.d))
