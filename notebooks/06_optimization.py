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
# **Claims checked here** ([LH] Sec. 5 {cite}`liu2023better`, restated on the formulas page, book/formulas.md).
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

import torch
from IPython.display import Markdown, display

from lib.book import params as P
from lib.book.plotting import show
from lib.book.results import record
from lib.chapters import optimization as OPT
from lib.chapters.non_constancy import synthetic_regression

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
fig = OPT.plot_gd_bounds(gd, cfg.gd_depths)
show(fig)

# %% [markdown]
# *Figure 6.1. Relative training loss of full-batch GD (square loss) against the step, for ReLU
# nets of several depths, with the worst-case bounds from the measured NTK at initialization and
# the prediction of the linearized model. Drawn by `lib.chapters.optimization.plot_gd_bounds` from
# `lib.chapters.optimization.gd_depth_study`.*

# %%
OPT.table_gd_rates(gd, cfg.gd_depths).round(5)

# %% [markdown]
# The table gives, per depth, $\kappa(K(w_0))$, the measured per-step contraction of the loss over
# the second half of the run (cut where the loss reaches rounding level), the per-step factor
# $(1-\eta\lambda_{\min})^2$ of the slowest mode of the linearized model, the two bound factors,
# the largest ratio of measured loss to the $(1-1/\kappa)^t$ bound over the run (at most 1 when the
# bound holds), and that ratio at the last step.

# %%
display(Markdown(record(CHAPTER, OPT.check_worst_case(gd, cfg.gd_depths, cfg.gd_width, cfg.gd_samples),
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
sgd = OPT.compute_sgd_digits(cfg.n_test, cfg.fig_depths, cfg.table_depths, cfg.seeds, width=cfg.sgd_width,
                             lrs=cfg.lrs, search_epochs=cfg.search_epochs, epochs=cfg.epochs,
                             batch_size=cfg.batch_size, dtype=cfg.sgd_dtype)
print(OPT.sgd_summary(sgd))
OPT.table_lr_grid(sgd)

# %% [markdown]
# The table above is the grid search: training loss after `search_epochs` epochs for each depth
# (row) and learning rate (column; `inf` = diverged), and the rate chosen.

# %%
fig = OPT.plot_loss_curves(sgd.runs_fig, cfg.fig_depths, f"ReLU nets on digits, width {cfg.sgd_width}, SGD")
show(fig)

# %% [markdown]
# *Figure 6.2. Training loss against epoch for ReLU nets of depth 1 to 10 on digits (seed 0;
# learning rate per depth from the grid search). Drawn by `lib.chapters.optimization.plot_loss_curves`
# from `lib.chapters.optimization.sgd_depth_study`.*

# %%
display(Markdown(record(CHAPTER, OPT.check_depth_speed(sgd), section="Training loss against epoch (SGD, cross-entropy)",
                        profile=cfg.profile)))

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
idx = OPT.compute_idx_studies({"MNIST": (cfg.idx_dir, "idx_dir"), "Fashion-MNIST": (cfg.fashion_dir, "fashion_dir")},
                              cfg.fig_depths, cfg.n_idx, cfg.idx_epochs, sgd.sgd_args)
print(OPT.idx_summary(idx))
if idx.ran:
    show(OPT.plot_idx_curves(idx, cfg.fig_depths))

# %% [markdown]
# *When run, the figure above (Figure 6.3) is drawn by `lib.chapters.optimization.plot_idx_curves` from
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
acc = OPT.accuracy_table(sgd.runs_table, cfg.table_depths, OPT.PAPER_TABLE1)
acc.round(2)

# %%
fig = OPT.plot_accuracy(acc, cfg.seeds)
show(fig)

# %% [markdown]
# *Figure 6.4. Held-out test accuracy against depth (ours on digits: mean and standard deviation
# over seeds) next to [LH] Table 1 (MNIST). Drawn by `lib.chapters.optimization.plot_accuracy` from
# `lib.chapters.optimization.accuracy_table`.*

# %%
display(Markdown(record(CHAPTER, OPT.check_accuracy(acc, sgd), section="Test accuracy against depth",
                        profile=cfg.profile)))
print(f"chapter run time: {time.perf_counter() - T0:.1f} s")
