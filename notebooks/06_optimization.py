# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 6. Conditioning and optimization speed
#
# **Claims checked here** ([LH] Sec. 5 {cite}`liu2023better`, THEORY.md Sec. 8).
#
# 1. **Worst-case rates.** For the square loss on a wide network, gradient descent with step
#    $\eta$ satisfies $\mathcal L(w_t) \le (1 - \eta\lambda_{\min}(K)/2)^t\,\mathcal L(w_0)$, and with
#    $\eta \approx 1/\lambda_{\max}$, $\mathcal L(w_t) \le (1 - 1/\kappa)^t\,\mathcal L(w_0)$: a
#    smaller condition number $\kappa$ of the NTK (more ReLU layers) means a faster worst case.
# 2. **[LH] Figure 4.** With mini-batch SGD and cross-entropy, deeper ReLU nets reduce the training
#    loss faster.
# 3. **[LH] Table 1.** Test accuracy on MNIST rises with depth up to about 6 layers and then
#    decreases slightly (95.98, 97.43, 97.57, 97.52, 97.39, 97.19 % at depths 1, 3, 6, 8, 10, 12):
#    faster optimization is not better generalization at every depth.
#
# All parameters are in the next cell; re-run with other values through papermill
# (see the [introduction](../book/intro.md)).

# %% tags=["parameters"]
profile = "default"         # parameter profile this run belongs to (recorded with the verdicts)
gd_depths = [1, 2, 4, 8]    # depths L of the full-batch GD study
gd_width = 512              # hidden width of the GD study
gd_steps = 500              # GD steps
gd_samples = 30             # training points of the GD study (unit-norm Gaussian)
gd_dim = 5                  # their dimension (the synthetic set of [LH] Sec. 4.1 has d 5)
fig_depths = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]  # depths of the training-loss curves ([LH] Figure 4)
table_depths = [1, 3, 6, 8, 10, 12]           # depths of the accuracy table ([LH] Table 1)
sgd_width = 128             # hidden width of the SGD nets
batch_size = 500            # SGD batch (the data set size if smaller)
lrs = [0.5, 1.0, 2.0, 4.0, 8.0, 16.0]  # learning-rate grid, searched per depth
search_epochs = 10          # epochs of each grid-search run
epochs = 50                 # training epochs
seeds = 3                   # seeds per depth for the accuracy table
n_test = 500                # held-out digits
sgd_dtype = "float32"       # float32 or float64 for the SGD experiment
idx_dir = None              # folder with the MNIST IDX files, or None to skip MNIST
fashion_dir = None          # folder with the Fashion-MNIST IDX files, or None to skip it
n_idx = 10000               # training images drawn from MNIST / Fashion-MNIST
idx_epochs = 20             # epochs on MNIST / Fashion-MNIST

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import torch
from IPython.display import Markdown, display
from scipy.stats import spearmanr

from lib.book import params as P
from lib.data.datasets import DataMissingError, load_digits_subset, load_idx_dataset
from lib.chapters import optimization as OPT
from lib.chapters.non_constancy import synthetic_regression
from lib.book.plotting import figure, palette
from lib.book.results import verdict

cfg = P.validate(
    profile=(profile, P.text), gd_depths=(gd_depths, P.int_list(min_value=1, min_len=2)),
    gd_width=(gd_width, P.positive_int), gd_steps=(gd_steps, P.positive_int),
    gd_samples=(gd_samples, P.positive_int), gd_dim=(gd_dim, P.positive_int),
    fig_depths=(fig_depths, P.int_list(min_value=1, min_len=2)),
    table_depths=(table_depths, P.int_list(min_value=1, min_len=2)),
    sgd_width=(sgd_width, P.positive_int), batch_size=(batch_size, P.positive_int),
    lrs=(lrs, P.float_list(positive=True)), search_epochs=(search_epochs, P.positive_int),
    epochs=(epochs, P.positive_int), seeds=(seeds, P.positive_int), n_test=(n_test, P.positive_int),
    sgd_dtype=(sgd_dtype, P.choice(["float32", "float64"])), idx_dir=(idx_dir, P.path_or_none),
    fashion_dir=(fashion_dir, P.path_or_none), n_idx=(n_idx, P.positive_int),
    idx_epochs=(idx_epochs, P.positive_int),
)
if cfg.seeds < 2:
    raise P.ParameterError("parameter 'seeds' must be at least 2 (the table reports a spread over seeds)")
# small matrices: one thread avoids the spin-waiting of idle threads on a shared machine
torch.set_num_threads(1)
CHAPTER = "06_optimization"
PAPER_TABLE1 = {1: 95.98, 3: 97.43, 6: 97.57, 8: 97.52, 10: 97.39, 12: 97.19}  # [LH] Table 1, MNIST
T0 = time.perf_counter()

# %% [markdown]
# ## Worst-case bounds against measured GD
# Full-batch GD on $\mathcal L(w) = \frac12\|f(X) - y\|^2$ for ReLU nets of width `gd_width` and
# several depths, on `gd_samples` unit-norm Gaussian points in `gd_dim` dimensions with the
# smooth target of chapter 5. The step is $\eta = 1/\lambda_{\max}(K(w_0))$, with $K(w_0)$ the
# exact NTK at initialization, so that $\eta\lambda_{\min} = 1/\kappa$. Each panel shows the
# measured loss, the two worst-case bounds, and the loss of GD on the *linearized* model,
# $\frac12\|(I - \eta K)^t r_0\|^2$ with $r_0 = f_{w_0}(X) - y$.

# %%
gd_data = synthetic_regression(cfg.gd_samples, cfg.gd_dim, seed=0)
gd = OPT.gd_depth_study(gd_data["X"], gd_data["y"], cfg.gd_depths, cfg.gd_width, cfg.gd_steps)
nd = len(cfg.gd_depths)
fig, axs = figure(ncols=min(nd, 4), nrows=(nd + 3) // 4, width=3.6, height=3.3, sharey=True)
for i, L in enumerate(cfg.gd_depths):
    ax = axs.flat[i]
    r = gd[L]
    L0 = r["loss"][0]
    ax.semilogy(r["loss"] / L0, lw=2.5, label="measured")
    ax.semilogy(r["linear"] / L0, "--", label=r"linearized $\frac{1}{2}\|(I-\eta K)^t r_0\|^2$")
    ax.semilogy(r["bound_lmin"] / L0, ":", label=r"$(1-\eta\lambda_{\min}/2)^t$")
    ax.semilogy(r["bound_kappa"] / L0, "-.", label=r"$(1-1/\kappa)^t$")
    ax.set(title=f"depth L={L}, $\\kappa$={r['kappa']:.0f}", xlabel="GD step t", ylim=(1e-16, 2))
    if i % 4 == 0:
        ax.set_ylabel(r"$\mathcal{L}(w_t)/\mathcal{L}(w_0)$")
for ax in list(axs.flat)[nd:]:
    ax.set_visible(False)
axs.flat[0].legend(loc="lower left", fontsize="x-small")
display(fig); plt.close(fig)

# %% [markdown]
# *Figure 6.1. Relative training loss of full-batch GD (square loss) against the step, for ReLU
# nets of several depths, with the worst-case bounds from the measured NTK at initialization and
# the prediction of the linearized model. Drawn by the cell above from
# `lib.chapters.optimization.gd_depth_study`.*

# %%
tab = pd.DataFrame({
    "kappa": {L: gd[L]["kappa"] for L in cfg.gd_depths},
    "measured late factor": {L: OPT.late_rate(gd[L]["loss"]) for L in cfg.gd_depths},
    "(1-eta lmin)^2": {L: (1 - gd[L]["eta"] * gd[L]["lambda_min"]) ** 2 for L in cfg.gd_depths},
    "1-eta lmin/2": {L: 1 - gd[L]["eta"] * gd[L]["lambda_min"] / 2 for L in cfg.gd_depths},
    "1-1/kappa": {L: 1 - 1 / gd[L]["kappa"] for L in cfg.gd_depths},
    "max_t measured/bound": {L: float(np.max(gd[L]["loss"] / gd[L]["bound_kappa"])) for L in cfg.gd_depths},
    "loss/bound at the end": {L: gd[L]["loss"][-1] / gd[L]["bound_kappa"][-1] for L in cfg.gd_depths},
})
tab.index.name = "depth"
tab.round(5)

# %% [markdown]
# The table gives, per depth, $\kappa(K(w_0))$, the measured per-step contraction of the loss over
# the second half of the run (cut where the loss reaches rounding level), the per-step factor
# $(1-\eta\lambda_{\min})^2$ of the slowest mode of the linearized model, the two bound factors,
# the largest ratio of measured loss to the $(1-1/\kappa)^t$ bound over the run (at most 1 when the
# bound holds), and that ratio at the last step.

# %%
kappas = np.array([gd[L]["kappa"] for L in cfg.gd_depths])
holds = bool((tab["max_t measured/bound"] <= 1 + 1e-9).all())
kappa_falls = bool(np.all(np.diff(kappas) < 0))
gap = float(np.median(tab["loss/bound at the end"]))
display(Markdown(verdict(
    CHAPTER, "[LH] Sec. 5 (worst-case rates)", "GD on the square loss converges at least as fast as (1 - 1/kappa)^t, "
    "and deeper ReLU nets, with smaller kappa, have a faster worst case.",
    "reproduced" if holds and kappa_falls else "reproduced with caveat" if holds else "not reproduced",
    f"kappa(K(w_0)) = {', '.join(f'{k:.0f}' for k in kappas)} at depths {cfg.gd_depths} (width {cfg.gd_width}, "
    f"n={cfg.gd_samples}); the measured loss stays below both bounds at every step: {holds}. The bounds are loose: "
    f"at the last step the loss is {gap:.2g} times the (1-1/kappa)^t bound (median over depths), and the measured "
    f"late per-step factors ({', '.join(f'{v:.4f}' for v in tab['measured late factor'])}) sit near the slowest-mode "
    f"factor (1-eta lambda_min)^2 of the linearized model ({', '.join(f'{v:.4f}' for v in tab['(1-eta lmin)^2'])}), "
    f"i.e. the bound has the right mode but squares it away.",
    section="Worst-case bounds against measured GD", profile=cfg.profile)))

# %% [markdown]
# **Where the bound is tight and where it is loose.** Early on, the loss is dominated by the
# components of $r_0$ along large eigenvalues of $K$, which decay at rate $(1-\eta\lambda_i)^2$ per
# step, far faster than the worst case: the bounds are loose by orders of magnitude after a few
# steps. Late in the run only the slowest mode remains, and the measured loss decays at the
# linearized model's slowest rate $(1-\eta\lambda_{\min})^2 = (1-1/\kappa)^2$: the bound has the right
# *mode*, but $(1-1/\kappa)$ per step is the square root of what happens (the loss is quadratic in the
# residual), so it is loose by a factor that grows exponentially in $t$. The linearized prediction
# tracks the measured curve until the loss reaches rounding level, as the constant-kernel picture of
# chapter 5 says for linear-output nets.

# %% [markdown]
# ## Training loss against epoch (SGD, cross-entropy)
# Our version of [LH] Figure 4 on scikit-learn's digits {cite}`sklearn` ($1797$ real $8\times8$
# images, $d = 64$, 10 classes, each scaled to unit norm), split at random into a training set and
# `n_test` held-out images. ReLU nets of width `sgd_width`, ten outputs, cross-entropy, mini-batch
# SGD with batch `batch_size` (the paper's 500; the whole training set if smaller), for `epochs`
# epochs (the paper: 500 on MNIST). The learning rate of each depth is the value of the grid
# `lrs` with the smallest training loss after `search_epochs` epochs (seed 0). The SGD experiments
# run in `sgd_dtype` (float32 by default, for speed; its relative rounding of $10^{-7}$ is far below
# the SGD noise); everything else in this chapter is float64.

# %%
X, y = load_digits_subset(return_labels=True)
Xtr, ytr, Xte, yte = OPT.train_test_split(X, y, cfg.n_test, seed=0)
sgd_args = dict(width=cfg.sgd_width, lrs=cfg.lrs, search_epochs=cfg.search_epochs, epochs=cfg.epochs,
                batch_size=cfg.batch_size, dtype=cfg.sgd_dtype, tag="digits")
t_sgd = time.perf_counter()
grid_f, runs_f = OPT.sgd_depth_study(Xtr, ytr, Xte, yte, cfg.fig_depths, seeds=1, **sgd_args)
grid_t, runs_t = OPT.sgd_depth_study(Xtr, ytr, Xte, yte, cfg.table_depths, seeds=cfg.seeds, **sgd_args)
t_sgd = time.perf_counter() - t_sgd
grid = pd.concat([grid_f, grid_t]).drop_duplicates(["depth", "lr"])
print(f"digits: {len(Xtr)} training and {len(Xte)} test images; batch {min(cfg.batch_size, len(Xtr))}; "
      f"SGD part took {t_sgd:.1f} s")
grid.pivot(index="depth", columns="lr", values="search_loss").round(4).assign(
    chosen=grid[grid.chosen].set_index("depth")["lr"])


# %% [markdown]
# The table above is the grid search: training loss after `search_epochs` epochs for each depth
# (row) and learning rate (column; `inf` = diverged), and the rate chosen.

# %%
def plot_curves(runs, depths, title):
    fig, axs = figure()
    ax = axs[0, 0]
    cmap = plt.get_cmap("viridis")
    for i, L in enumerate(depths):
        r = runs[(runs.depth == L) & (runs.seed == 0)].iloc[0]
        ax.semilogy(r.train_loss, color=cmap(i / max(len(depths) - 1, 1)), label=f"L={L} (lr {r.lr:g})")
    ax.set(xlabel="epoch", ylabel="training loss (cross-entropy)", title=title)
    ax.legend(ncol=2, fontsize="x-small")
    return fig


display(plot_curves(runs_f, cfg.fig_depths, f"ReLU nets on digits, width {cfg.sgd_width}, SGD"))
plt.close("all")

# %% [markdown]
# *Figure 6.2. Training loss against epoch for ReLU nets of depth 1 to 10 on digits (seed 0;
# learning rate per depth from the grid search). Drawn by the cell above from
# `lib.chapters.optimization.sgd_depth_study`.*

# %%
def depth_speed(runs, depths):
    """Spearman correlation of depth with the mean log training loss over all epochs (negative: deeper is faster)."""
    curves = [runs[(runs.depth == L) & (runs.seed == 0)].iloc[0].train_loss for L in depths]
    score = [float(np.mean(np.log(c[1:]))) for c in curves]
    return float(spearmanr(depths, score).statistic), curves


rho, curves = depth_speed(runs_f, cfg.fig_depths)
mid = max(1, cfg.epochs // 5)
rho_mid = float(spearmanr(cfg.fig_depths, [c[mid] for c in curves]).statistic)
rho_end = float(spearmanr(cfg.fig_depths, [c[-1] for c in curves]).statistic)
display(Markdown(verdict(
    CHAPTER, "[LH] Figure 4", "Deeper ReLU nets reduce the training loss faster under SGD with cross-entropy.",
    "reproduced" if rho < -0.5 else "reproduced with caveat" if rho < 0 else "not reproduced",
    f"On digits, Spearman correlation of depth ({cfg.fig_depths[0]}..{cfg.fig_depths[-1]}) with the mean log training "
    f"loss over the {cfg.epochs} epochs: {rho:.2f} (-1 = uniformly faster with every added layer); with the loss after "
    f"{mid} epochs: {rho_mid:.2f}; after the last epoch: {rho_end:.2f} (final losses {curves[0][-1]:.3g} at depth "
    f"{cfg.fig_depths[0]} and {curves[-1][-1]:.3g} at depth {cfg.fig_depths[-1]}). Learning rates were tuned per depth, "
    f"as in the paper.",
    section="Training loss against epoch (SGD, cross-entropy)", profile=cfg.profile)))

# %% [markdown]
# **How this setting differs from the argument of Sec. 5.** The worst-case rates of the first
# section are statements about full-batch GD on the square loss in the kernel regime (very wide
# nets, step $\approx 1/\lambda_{\max}$). Figure 4 of [LH], and this section, use cross-entropy,
# mini-batch SGD, learning rates tuned for speed per depth and (here) width `sgd_width`; none of
# these is covered by the bound, so the verdict above tests the paper's empirical claim, not the
# theorem. The `paper` profile uses width 512 and 500 epochs.

# %% [markdown]
# ## MNIST and Fashion-MNIST
# When the IDX files of MNIST {cite}`lecun1998mnist` or Fashion-MNIST {cite}`xiao2017fashion`
# are given (`idx_dir`, `fashion_dir`; nothing is ever downloaded), the same curves are drawn on
# `n_idx` training images for `idx_epochs` epochs, with the test split as held-out set.

# %%
for name, folder in (("MNIST", cfg.idx_dir), ("Fashion-MNIST", cfg.fashion_dir)):
    if folder is None:
        print(f"{name}: skipped (set the parameter {'idx_dir' if name == 'MNIST' else 'fashion_dir'} "
              f"to a folder with the IDX files to run it)")
        continue
    try:
        Xm, ym = load_idx_dataset(folder, "train", return_labels=True, name=name)
        if len(Xm) > cfg.n_idx:  # seeded subsample of the training images
            keep = np.sort(np.random.default_rng(0).choice(len(Xm), cfg.n_idx, replace=False))
            Xm, ym = Xm[keep], ym[keep]
        Xmt, ymt = load_idx_dataset(folder, "test", return_labels=True, name=name)
    except DataMissingError as exc:
        print(f"{name}: skipped -- {exc}")
        continue
    args = dict(sgd_args, epochs=cfg.idx_epochs, tag=name)
    _, runs_m = OPT.sgd_depth_study(Xm, ym, Xmt, ymt, cfg.fig_depths, seeds=1, **args)
    display(plot_curves(runs_m, cfg.fig_depths, f"ReLU nets on {name} ({len(Xm)} images), SGD"))
    plt.close("all")
    rho_m, _ = depth_speed(runs_m, cfg.fig_depths)
    print(f"{name}: Spearman correlation of depth with the mean log training loss: {rho_m:.2f}; "
          f"test accuracy by depth: "
          + ", ".join(f"L={r.depth}: {100 * r.test_acc:.2f}%" for r in runs_m.itertuples()))

# %% [markdown]
# *When run, the figures above (Figure 6.3) are drawn by the cell above from
# `lib.chapters.optimization.sgd_depth_study` on MNIST / Fashion-MNIST.*

# %% [markdown]
# ## Test accuracy against depth
# Our version of [LH] Table 1: held-out accuracy of the SGD nets by depth, mean and standard
# deviation over `seeds` seeds (weight draw and batch order), next to the paper's MNIST numbers.
# **How our data differ.** Digits has 1797 images of $8\times8$ pixels (MNIST: 70000 of
# $28\times28$), so our training set is about 50 times smaller, our test set (`n_test` images)
# gives accuracies with a binomial standard error of about
# $\sqrt{p(1-p)/n_{test}}$ (0.9 points at $p = 0.95$, $n_{test} = 500$), and we train for `epochs`
# epochs at width `sgd_width` rather than the paper's 500 epochs. The absolute numbers are
# therefore not comparable; only the trend with depth is.

# %%
acc = OPT.accuracy_table(runs_t, cfg.table_depths, PAPER_TABLE1)
acc.round(2)

# %%
fig, axs = figure()
ax = axs[0, 0]
ax.errorbar(acc.index, acc["mean (%)"], yerr=acc["sd (%)"], fmt="o-", capsize=3,
            label=f"digits (ours), mean $\\pm$ sd over {cfg.seeds} seeds")
ax.plot(acc.index, acc["[LH] MNIST (%)"], "s--", label="[LH] Table 1, MNIST")
ax.set(xlabel="depth L", ylabel="test accuracy (%)", title="Test accuracy against depth")
ax.legend()
display(fig); plt.close(fig)

# %% [markdown]
# *Figure 6.4. Held-out test accuracy against depth (ours on digits: mean and standard deviation
# over seeds) next to [LH] Table 1 (MNIST). Drawn by the cell above from
# `lib.chapters.optimization.accuracy_table`.*

# %%
m, sd, ns = acc["mean (%)"], acc["sd (%)"], acc["seeds"]
best_L = int(m.idxmax())


def gap(a, b):
    """Difference of mean accuracies at depths a and b, and twice its standard error."""
    return m[a] - m[b], 2 * float(np.sqrt(sd[a] ** 2 / ns[a] + sd[b] ** 2 / ns[b]))


first, last = acc.index[0], acc.index[-1]
(rise, rise_se), (fall, fall_se) = gap(best_L, first), gap(best_L, last)
rises, falls = rise > rise_se, fall > fall_se
paper_fall = PAPER_TABLE1[6] - PAPER_TABLE1[12]
display(Markdown(verdict(
    CHAPTER, "[LH] Table 1", "Test accuracy rises with depth up to about 6 layers, then decreases slightly "
    "(MNIST: 95.98 at depth 1, 97.57 at depth 6, 97.19 at depth 12).",
    "reproduced" if rises and falls and first < best_L < last else "reproduced with caveat" if rises else "not reproduced",
    f"On digits ({len(Xtr)} training / {len(Xte)} test images, {cfg.epochs} epochs, {cfg.seeds} seeds), the mean test "
    f"accuracy is {', '.join(f'{v:.2f}' for v in m)} % at depths {list(acc.index)} (sd over seeds up to "
    f"{sd.max():.2f}): best at depth {best_L}, {rise:.2f} points above depth {first} (twice the standard error: "
    f"{rise_se:.2f}) and {fall:.2f} points above depth {last} ({fall_se:.2f}); the paper's fall from depth 6 to 12 is "
    f"{paper_fall:.2f} points. A different, much smaller data set than the paper's MNIST; the largest spread over "
    f"seeds is at depth {int(sd.idxmax())}.",
    section="Test accuracy against depth", profile=cfg.profile)))
print(f"chapter run time: {time.perf_counter() - T0:.1f} s")
