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
# # 3. Better NTK conditioning
#
# **Claims checked here** ([LH] Sec. 4 and App. F of {cite}`liu2023better`), for the
# bias-free MLP of [LH] Eq. (1) in NTK parameterization, at initialization:
#
# 1. **Figure 3** ([LH] Sec. 4.1). At every depth $L \ge 1$, a ReLU network has a larger
#    smallest pairwise gradient angle $\phi_{\min} = \min_{i \ne j} \phi(x_i, x_j)$ and a
#    smaller NTK condition number $\kappa = \lambda_{\max}/\lambda_{\min}$ than the linear
#    network of the same shape, and its $\kappa$ decreases monotonically with depth.
# 2. **Prop 4.1.** A small gradient angle forces a small eigenvalue:
#    $\lambda_{\min}(K) = O(\phi_{\min}^2)$ and $\kappa = \Omega(1/\phi_{\min}^2)$.
# 3. **Thm 4.2.** If only the first layer is trained, the infinite-width NTK is
#    $K_L = G \circ P_L$ with $(P_L)_{ij} = \prod_{l=0}^{L-1}(1 - \theta^{(l)}_{ij}/\pi)$, and
#    $\lambda_{\min}(K_L) \ge \lambda_{\min}(G)$, $\kappa(K_L) < \kappa_0 = \kappa(G)$,
#    $\kappa(K_{L+1}) \le \kappa(K_L)$.
# 4. **App. F.** With all layers trained and two inputs at a small angle, $\kappa < \kappa_0$
#    and $\kappa$ decreases with depth.
#
# We also compare every finite-width measurement with the infinite-width prediction of
# `lib.theory` on the same data, and time the whole paper-size sweep on this machine.
#
# All parameters are in the next cell; re-run with other values through papermill
# (see the [introduction](../book/intro.md)). The `paper` profile has the paper's sizes.

# %% tags=["parameters"]
profile = "default"        # parameter profile this run belongs to (recorded with the verdicts)
datasets = ["synthetic", "digits", "mnist", "fashion_mnist"]  # data sets, in legend order ("file" adds data_file)
n_synthetic = 500          # samples of the synthetic set N(0, I_d), the paper has 2000
d_synthetic = 5            # dimension of the synthetic set
n_digits = 500             # scikit-learn digits used (None means all 1797)
n_idx = 2000               # images drawn from MNIST or Fashion-MNIST
idx_dir = None             # folder holding mnist/ and fashion_mnist/ IDX files (None skips them)
data_file = None           # your own .npy or .npz array, used when "file" is in datasets
data_key = None            # name of the array inside an .npz file
unit_norm = False          # rescale every input to unit norm
data_seed = 0              # seed of the synthetic draw and of the subsamples
depths = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]  # depths L (number of hidden layers)
width = 512                # hidden width m, as in the paper
seeds = 3                  # weight draws per cell (the paper uses 5)
batch_size = 512           # also the authors' batch-averaged kappa and angle (None skips it)
first_layer = True         # also the NTK with only the first layer trainable ([LH] Thm 4.2)
threads = 1                # torch threads per cell, 1 keeps shared CPUs from oversubscription
dask_scheduler = None      # None runs cells here, "local" starts a local Dask cluster, or a scheduler address
two_sample_angles = [0.01, 0.03, 0.1, 0.3, 1.0]  # input angles in radians for the two-sample case
two_sample_depths = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]  # depths for the two-sample case
two_sample_width = 512     # width of the finite networks in the two-sample case
two_sample_seeds = 10      # weight draws in the two-sample case
device = "cpu"             # "cpu" or "cuda"

# %% tags=["remove-stderr"]
import math

from IPython.display import Markdown, display

from lib.book import params as P
from lib.book.plotting import show
from lib.book.results import record
from lib.chapters import conditioning as C
from lib.data.datasets import DATASETS

cfg = P.validate(
    profile=(profile, P.text), datasets=(datasets, P.choices_list(DATASETS)),
    n_synthetic=(n_synthetic, P.positive_int), d_synthetic=(d_synthetic, P.positive_int),
    n_digits=(n_digits, P.optional(P.positive_int)), n_idx=(n_idx, P.positive_int),
    idx_dir=(idx_dir, P.path_or_none), data_file=(data_file, P.path_or_none),
    data_key=(data_key, P.optional(P.text)), unit_norm=(unit_norm, P.boolean),
    data_seed=(data_seed, P.nonneg_int), depths=(depths, P.int_list(min_value=0, min_len=2)),
    width=(width, P.positive_int), seeds=(seeds, P.positive_int),
    batch_size=(batch_size, P.optional(P.positive_int)), first_layer=(first_layer, P.boolean),
    threads=(threads, P.positive_int), dask_scheduler=(dask_scheduler, P.optional(P.text)),
    two_sample_angles=(two_sample_angles, P.float_list(positive=True, max_value=math.pi)),
    two_sample_depths=(two_sample_depths, P.int_list(min_value=0, min_len=2)),
    two_sample_width=(two_sample_width, P.positive_int), two_sample_seeds=(two_sample_seeds, P.positive_int),
    device=(device, P.device_name),
)
CHAPTER = "03_conditioning"
DEPTHS = sorted(set(cfg.depths))

# %% [markdown]
# ## Data
# The data sets of [LH] Sec. 4.1 that can be had offline:
#
# - **synthetic**: $n$ samples from $\mathcal N(0, I_5)$, as in the paper (2000 in the `paper` profile);
# - **digits**: scikit-learn's 1797 handwritten $8\times8$ digits {cite}`sklearn` (real data shipped
#   with the package; pixels divided by 16), all of them in the `paper` profile, a seeded subsample otherwise;
# - **MNIST** {cite}`lecun1998mnist` and **Fashion-MNIST** {cite}`xiao2017fashion`: read from the
#   standard IDX files (gzipped or not) in `idx_dir/mnist/` and `idx_dir/fashion_mnist/` (or
#   torchvision's `MNIST/raw/` layout), pixels divided by 255, a seeded subsample of `n_idx`
#   training images. Nothing is ever downloaded: without the files these rows are skipped with
#   a message saying what is missing and where to put it;
# - **file**: your own `.npy`/`.npz` array (`data_file`), flattened.
#
# Every image is flattened; inputs are rescaled to unit norm only if `unit_norm` is set (not by
# default: the paper does not say it normalizes). SVHN and Librispeech are not used here.

# %% tags=["remove-stderr"]
data, skipped_note = C.compute_data(
    cfg.datasets, n_synthetic=cfg.n_synthetic, d_synthetic=cfg.d_synthetic, n_digits=cfg.n_digits,
    n_idx=cfg.n_idx, idx_dir=cfg.idx_dir, data_file=cfg.data_file, data_key=cfg.data_key,
    unit_norm=cfg.unit_norm, seed=cfg.data_seed)
display(Markdown(skipped_note))
NAMES = list(data)
theory = C.run_theory(data, DEPTHS).frame
C.table_datasets(data, theory)

# %% [markdown]
# Whenever $n > \operatorname{rank} G$ the Gram matrix $G = XX^\top$ is singular, so
# $\kappa_0 = \infty$: the linear network's NTK, which is $(L+1)G$ at infinite width
# (chapter 1), is then singular at every depth. With the paper's 2000 five-dimensional
# Gaussian points this is the case, and for the digits too ($n = 1797 > d = 64$).
#
# ## The sweep
# Each cell is one data set, depth, activation (ReLU or linear, same shape) and weight seed:
# a fresh network of width $m$ at initialization and its **full $n\times n$ NTK**, computed exactly
# by `lib.finite.ntk.empirical_ntk` (no Jacobian is formed), then $\lambda_{\min}$, $\lambda_{\max}$
# (`eigvalsh` in float64; $\kappa = \infty$ when the kernel is singular to working precision)
# and $\phi_{\min}$. The authors instead computed NTKs on batches of 512 samples and averaged
# ([LH] Sec. 4.1); each cell also records that batch-512 average (principal $512\times512$
# sub-matrices of the same kernel on a seeded partition), reported separately in the closing note.
# Every finished cell is written to disk at once (`lib.book.sweep`), so an interrupted run resumes and a
# finished one is only read back; with `dask_scheduler` the cells run on a Dask cluster.

# %% tags=["remove-stderr"]
cells = C.conditioning_cells(NAMES, DEPTHS, cfg.width, cfg.seeds, device=cfg.device,
                             first_layer=cfg.first_layer, batch_size=cfg.batch_size)
sweep = C.run_conditioning(data, cells, scheduler=cfg.dask_scheduler, threads=cfg.threads)
df = sweep.frame
S = C.summarize(df)
print(C.sweep_note(sweep))

# %% [markdown]
# ## Figure 3: ReLU separates gradients and conditions the NTK, linear networks do not
# Solid lines: ReLU networks; dashed: linear networks of the same shape; one colour per data set;
# line = mean over seeds, band = min to max over seeds. An infinite condition number (a singular
# NTK) is drawn as a triangle on the top edge of the right panel, never as a large number:
# filled for ReLU, hollow for linear networks.

# %%
fig = C.plot_figure3(S, NAMES, DEPTHS)
show(fig)

# %% [markdown]
# *Figure 3.1. [LH] Figure 3 on the data sets above (width and seeds as in the parameters
# cell): smallest pairwise gradient angle (left) and NTK condition number (right) at
# initialization against depth. Drawn by `lib.chapters.conditioning.plot_figure3` from
# `lib.chapters.conditioning.run_conditioning` (exact full NTKs, `lib.finite.ntk.empirical_ntk`).*

# %%
display(Markdown(record(CHAPTER, C.check_figure3(S, theory, data, DEPTHS, cfg.width, cfg.seeds),
                        section="Figure 3", profile=cfg.profile)))

# %% [markdown]
# A linear network's gradient features are a fixed linear map of the inputs (its backward vectors
# do not depend on $x$), so its NTK has rank at most $d$ at *every* width, not only in the limit:
# with $n > d$ it is singular and no amount of depth changes that. Its smallest gradient angle
# stays at the smallest input angle (chapter 1: $\bar\phi = \theta_{in}$). The ReLU network
# turns the same singular problem into a finite $\kappa$ from depth 1 on, and widens the smallest
# angle with depth. "Monotonically decreasing" is a statement about averages: at width 512 the
# seed-to-seed spread of $\kappa$ (the bands) is comparable with the change from one depth to the
# next at large $L$, so a 3- or 5-seed mean can tick up by a few percent.
#
# ## Prop 4.1: $\lambda_{\min}$ is bounded by the smallest gradient angle squared
# For the pair $(i, j)$ at the smallest angle, the Rayleigh quotient of
# $v \propto e_i/\|F_i\| - e_j/\|F_j\|$ gives the explicit form of [LH] Prop 4.1:
# $$\lambda_{\min}(K) \le (1 - \cos\phi_{\min}) \max_i K_{ii} \le \tfrac12 \phi_{\min}^2 \max_i K_{ii},
# \qquad \kappa \ge \frac{1}{1 - \cos\phi_{\min}} \ge \frac{2}{\phi_{\min}^2},$$
# the second because $\lambda_{\max} \ge \max_i K_{ii}$. Every cell of the sweep is one point
# below. Cells whose NTK is singular (all linear networks here when $n > d$) have
# $\lambda_{\min} = 0$ to working precision and are left out of the left panel.

# %%
p41 = C.prop41_bound(df)
fig = C.plot_prop41(p41, NAMES)
show(fig)

# %% [markdown]
# *Figure 3.2. Left: smallest NTK eigenvalue (relative to the largest squared gradient norm)
# against the squared smallest gradient angle, one point per non-singular cell of the sweep.
# Right: condition number against $1/\phi_{\min}^2$. Dashed: the bounds above. Drawn by
# `lib.chapters.conditioning.plot_prop41` from `lib.chapters.conditioning.prop41_bound`.*

# %%
display(Markdown(record(CHAPTER, C.check_prop41(p41), section="Prop 4.1", profile=cfg.profile)))

# %% [markdown]
# ## Thm 4.2: first layer trained only, $\kappa(K_L) < \kappa_0$ and non-increasing in depth
# At infinite width the kernel is $K_L = G \circ P_L$ (`lib.theory.relu_first_layer_ntk`). By the
# Schur product theorem, $\lambda_{\min}(K_L) \ge \lambda_{\min}(G)$ and each extra layer multiplies
# entrywise by a correlation matrix, so $\kappa$ cannot increase. When $G$ is singular
# ($n > d$), $\kappa_0 = \infty$ and the question is whether $K_L$ becomes invertible. Solid: the
# infinite-width $K_L$; dots with bars: the finite-width kernel of the same networks as in
# Figure 3.1 with only $W^{(1)}$ trainable (mean, min to max over seeds).

# %%
fig = C.plot_first_layer(theory, df, NAMES, cfg.width, first_layer=cfg.first_layer)
show(fig)

# %% [markdown]
# *Figure 3.3. Left: condition number of the NTK with only the first layer trainable, at
# infinite width (lines) and width $m$ (points), with $\kappa_0$ dashed where it is finite.
# Right: the smallest eigenvalue of the infinite-width $K_L$. Drawn by `lib.chapters.conditioning.plot_first_layer` from
# `lib.theory.relu_first_layer_ntk` (via `lib.chapters.conditioning.run_theory`) and
# `lib.finite.ntk.empirical_ntk(..., layers="first")`.*

# %%
t42 = C.table_first_layer(theory, df, NAMES, first_layer=cfg.first_layer)
display(Markdown(record(CHAPTER, C.check_first_layer(t42, DEPTHS, cfg.width, first_layer=cfg.first_layer),
                        section="Thm 4.2", profile=cfg.profile)))

# %% [markdown]
# ## App. F: two samples, all layers trained
# Two unit inputs at angle $\theta_{in}$. At infinite width the NTK is
# $(L+1)\begin{pmatrix}1 & \cos\phi\\ \cos\phi & 1\end{pmatrix}$, so
# $\kappa = \frac{1+\cos\phi}{1-\cos\phi} = \cot^2(\phi/2)$ with $\phi$ from
# `lib.theory.relu_gradient_angle`, against $\kappa_0 = \cot^2(\theta_{in}/2)$ for the linear
# network. Lines: infinite width; points: exact NTKs of ReLU networks of width
# `two_sample_width` (median over seeds, bars from the 10% to the 90% quantile).

# %%
t2 = C.two_sample_table(cfg.two_sample_angles, sorted(set(cfg.two_sample_depths)), cfg.two_sample_width,
                        cfg.two_sample_seeds, device=cfg.device)
fig = C.plot_two_sample(t2, cfg.two_sample_angles)
show(fig)

# %% [markdown]
# *Figure 3.4. Condition number of the two-sample NTK relative to the linear network's
# $\kappa_0$, infinite width (lines) and finite width (points). Drawn by `lib.chapters.conditioning.plot_two_sample` from
# `lib.chapters.conditioning.two_sample_table`.*

# %%
display(Markdown(record(CHAPTER, C.check_two_sample(t2, cfg.two_sample_angles, cfg.two_sample_width,
                                                    cfg.two_sample_seeds),
                        section="App. F", profile=cfg.profile)))

# %% [markdown]
# ## Finite width against the infinite-width prediction
# `lib.theory.relu_ntk` gives the infinite-width NTK of the ReLU network on the same data, and
# $(L+1)G$ that of the linear network. Left: $\phi_{\min}$ measured (points, mean and min to max over
# seeds) and predicted (lines). Right: $\kappa$ measured and predicted (ReLU only; the linear
# networks' $\kappa$ is infinite in both when $n > \operatorname{rank} G$).

# %%
fig = C.plot_theory_comparison(theory, S, NAMES, cfg.width)
show(fig)

# %% [markdown]
# *Figure 3.5. Finite-width measurements (points) against the infinite-width predictions (lines)
# on the same data. Drawn by `lib.chapters.conditioning.plot_theory_comparison` from `lib.chapters.conditioning.run_theory`
# (`lib.theory.relu_ntk`) and `run_conditioning`.*
#
# The measured $\phi_{\min}$ is a minimum over $n(n-1)/2$ pairs of finite-width angles, each the
# infinite-width angle plus $O(1/\sqrt{m})$ noise; the minimum of noisy values is biased downward,
# so the points tend to sit below the lines. Likewise the finite-width
# $\lambda_{\min}$ tends to be pulled down by noise, and $\kappa$ up. The gap is largest at
# $L = 1$ for low-dimensional data: there the finite-width NTK is
# $A_1A_1^\top + (D_1D_1^\top)\circ G$, of rank at most $m + m\,\operatorname{rank}G$, and with
# $d = 5$, $m = 512$ and $n = 2000$ that bound ($3072$) barely exceeds $n$, so $\lambda_{\min}$ is
# far below its infinite-width value.

# %%
cmp = C.table_theory_comparison(theory, S, NAMES, DEPTHS)
display(Markdown(record(CHAPTER, C.check_theory_prediction(cmp, cfg.width), section="Finite width against",
                        profile=cfg.profile)))
cmp.round(3)

# %% [markdown]
# ## Cost on this machine
# The paper reports that each NTK took hours on an A100 GPU ([LH] Sec. 4.1). Here every kernel is
# exact and full ($n\times n$, float64) on a CPU; the time of a cell includes the network, the
# kernel(s), their eigenvalues and the batch averages.

# %%
display(Markdown(C.cost_note(sweep, data, DEPTHS, cfg.width, cfg.profile)))
C.table_cell_times(df).round(2)

# %% [markdown]
# ## Closing note: the measured tables
# Mean over seeds of $\phi_{\min}$ (degrees) and $\kappa$ of the full NTK by depth, ReLU vs linear,
# for this run's profile (`inf`: singular NTK in at least one seed). The last columns give the
# authors' batch protocol (mean over disjoint batches of `batch_size` of the batch's $\kappa$ and
# $\phi_{\min}$), which is what [LH] Figure 3 plots.

# %%
C.table_measured(S, data, cfg.batch_size).style.format("{:.4g}")
