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
# # 1. The linear baseline
#
# **Claims checked here** ([LH] Thm 2.3 and Cor 2.4, restated in {cite}`liu2023better`).
# A linear network $\bar f$ (the MLP of [LH] Eq. (1) with $\sigma(z) = z$ and $c_\sigma = 1$),
# at infinite width and at initialization:
#
# 1. keeps every norm and every angle: $\|\bar a^{(l)}(x)\| = \|x\|$ and
#    $\bar\theta^{(l)} = \theta_{in}$ for every layer $l$;
# 2. has model-gradient angle $\bar\phi = \theta_{in}$ and NTK $\bar K = (L+1)\,G$ with
#    $G = XX^\top$ the Gram matrix of the data;
# 3. hence has condition number $\bar\kappa = \kappa_0 = \kappa(G)$ at every depth $L$, and an
#    infinite one when $n > d$ (then $G$ is singular).
#
# We measure all three at finite width $m$, where the deviations should shrink like
# $O(1/\sqrt{m})$. The paper also states $\|\nabla \bar f(x)\| = (L+1)\|x\|$, i.e.
# $\bar K = (L+1)^2 G$; the last section measures which factor is right.
#
# All parameters are in the next cell; re-run with other values through papermill
# (see the [introduction](../book/intro.md)).

# %% tags=["parameters"]
profile = "default"       # parameter profile this run belongs to (recorded with the verdicts)
widths = [128, 512, 2048]  # hidden widths m for the convergence study
depths = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]  # depths L (number of hidden layers)
seeds = 3                 # weight draws per (width, depth)
n_samples = 40            # data points (real digits with d 64 > n, so G is invertible)
n_over = 40               # points for the n > d case (synthetic, d_over dimensions)
d_over = 5                # input dimension of the n > d case
device = "cpu"            # "cpu" or "cuda"

# %%
from IPython.display import Markdown, display

from lib.book import params as P
from lib.book.plotting import show
from lib.book.results import record
from lib.chapters import linear_baseline as B
from lib.data.datasets import load_digits_subset, gaussian_data

cfg = P.validate(
    profile=(profile, P.text), widths=(widths, P.int_list(min_value=1)),
    depths=(depths, P.int_list(min_value=0)), seeds=(seeds, P.positive_int),
    n_samples=(n_samples, P.positive_int), n_over=(n_over, P.positive_int),
    d_over=(d_over, P.positive_int), device=(device, P.device_name),
)
CHAPTER = "01_linear_baseline"

# %% [markdown]
# ## Data
# The real data are $n$ images of scikit-learn's handwritten digits ({cite}`sklearn`,
# $d = 64$, shipped with the package), each flattened and scaled to unit norm. With
# $n < d$ their Gram matrix is invertible, so $\kappa_0$ is finite. The $n > d$ case uses
# standard Gaussian points in $d$ = `d_over` dimensions.

# %%
X = load_digits_subset(cfg.n_samples, seed=0, unit_norm=True)
X_over = gaussian_data(cfg.n_over, cfg.d_over, seed=0)
print(f"digits: X has shape {X.shape}; n > d case: X_over has shape {X_over.shape}")

# %% [markdown]
# ## Measurement
# For every width, depth and seed we build a linear network, compute its exact NTK with
# `lib.finite.ntk.empirical_ntk`, and record: the largest deviation of embedding norms from
# $\|x\|$ and of embedding angles from $\theta_{in}$ over all layers, the relative error
# $\|K/(L+1) - G\|_F / \|G\|_F$, the largest deviation of gradient angles from input angles,
# and $\kappa(K)$ next to $\kappa_0$.

# %%
df = B.linear_sweep(X, cfg.widths, cfg.depths, cfg.seeds, device=cfg.device)
B.table_sweep_summary(df)

# %% [markdown]
# ## Claim 1 and 2: norms, angles and $\bar K = (L+1)G$ converge at rate $1/\sqrt{m}$
# Each curve is one deviation, averaged over depths and seeds, against the width. If the
# infinite-width statements are right, every deviation falls like $m^{-1/2}$ (dotted line).

# %%
fig = B.plot_width_trend(df)
show(fig)

# %% [markdown]
# *Figure 1.1. Left: deviations from the infinite-width linear-network values against width
# (mean over depths and seeds). Right: relative error of $K/(L+1)$ against $G$ by depth at the
# largest width (mean and standard deviation over seeds). Drawn by
# `lib.chapters.linear_baseline.plot_width_trend` from `lib.chapters.linear_baseline.linear_sweep`.*

# %%
display(Markdown(record(CHAPTER, B.check_norms_angles(df), section="Claim 1 and 2", profile=cfg.profile)))
display(Markdown(record(CHAPTER, B.check_kernel(df), section="Claim 1 and 2", profile=cfg.profile)))

# %% [markdown]
# ## Claim 3: $\bar\kappa = \kappa_0$ at every depth, infinite when $n > d$
# Left: $\kappa(K)$ of the linear network against depth, with $\kappa_0 = \kappa(G)$ as a line.
# Right: the same for Gaussian data with $n > d$: $G$ has rank $d$, so $\kappa_0 = \infty$, and
# the finite-width NTK is singular too. Infinite values are drawn as triangles at the top edge,
# never as a large finite number.

# %%
df_over = B.linear_sweep(X_over, [max(cfg.widths)], cfg.depths, cfg.seeds, device=cfg.device)
fig = B.plot_condition_numbers(df, df_over, X.shape, X_over.shape, n_widths=len(cfg.widths))
show(fig)

# %% [markdown]
# *Figure 1.2. Condition number of the linear-network NTK against depth (band: min to max over
# seeds). Drawn by `lib.chapters.linear_baseline.plot_condition_numbers` from
# `lib.chapters.linear_baseline.linear_sweep` and `lib.spectra.extreme_eigenvalues`.*

# %%
display(Markdown(record(CHAPTER, B.check_conditioning(df, df_over), section="Claim 3", profile=cfg.profile)))

# %% [markdown]
# ## Erratum: the gradient norm is $\sqrt{L+1}\,\|x\|$, not $(L+1)\|x\|$
# [LH] state $\|\nabla\bar f(x)\| = (L+1)\|x\|$, which would give $\bar K = (L+1)^2 G$. Each
# of the $L+1$ weight matrices contributes $\|x\|^2$ to the squared gradient norm (the
# backward vector and the embedding of every layer both keep the norm), so the calculation
# gives $\|\nabla\bar f(x)\|^2 = (L+1)\|x\|^2$. We measure $\|\nabla\bar f(x)\|^2/\|x\|^2 =
# K_{xx}/\|x\|^2$ and compare it with both candidates.

# %%
fac = B.gradient_norm_factors(df)
fig = B.plot_gradient_norm(fac, width=max(cfg.widths))
show(fig)

# %% [markdown]
# *Figure 1.3. Measured squared gradient norm over squared input norm (mean and standard
# deviation over inputs and seeds at the largest width). Drawn by
# `lib.chapters.linear_baseline.plot_gradient_norm` from `lib.chapters.linear_baseline.gradient_norm_factors`.*

# %%
display(Markdown(record(CHAPTER, B.check_gradient_norm(fac), section="Erratum", profile=cfg.profile)))
