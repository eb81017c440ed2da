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
import numpy as np

from lib.book import params as P
from lib.data.datasets import load_digits_subset, gaussian_data
from lib.chapters.linear_baseline import linear_sweep, gradient_norm_factors
from lib.spectra import fit_slope
from lib.book.plotting import figure, slope_guide, mark_infinite, palette, value_ticks
from lib.book.results import verdict

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
df = linear_sweep(X, cfg.widths, cfg.depths, cfg.seeds, device=cfg.device)
summary = df.groupby(["width", "depth"]).mean(numeric_only=True).drop(columns="seed")
summary.round(5)

# %% [markdown]
# ## Claim 1 and 2: norms, angles and $\bar K = (L+1)G$ converge at rate $1/\sqrt{m}$
# Each curve is one deviation, averaged over depths and seeds, against the width. If the
# infinite-width statements are right, every deviation falls like $m^{-1/2}$ (dotted line).

# %%
by_width = df.groupby("width").mean(numeric_only=True)
fig, axs = figure(ncols=2)
ax = axs[0, 0]
labels = {"norm_dev": r"max$_l$ $|\,\|a^{(l)}\|/\|x\| - 1|$", "angle_dev": r"max$_l$ $|\theta^{(l)}-\theta_{in}|$ (rad)",
          "phi_dev": r"max $|\phi-\theta_{in}|$ (rad)", "ntk_rel_err": r"$\|K/(L{+}1) - G\|_F/\|G\|_F$"}
for key, lab in labels.items():
    ax.loglog(by_width.index, by_width[key], "o-", label=lab)
slope_guide(ax, by_width.index, -0.5, by_width["ntk_rel_err"].iloc[0] * 1.6, label=r"$\propto m^{-1/2}$")
ax.set(xlabel="width m", ylabel="deviation from infinite-width value", title="Linear network: finite-width error")
value_ticks(ax, by_width.index)
ax.legend()
ax = axs[0, 1]
wmax = max(cfg.widths)
sub = df[df.width == wmax].groupby("depth").agg(mean=("ntk_rel_err", "mean"), sd=("ntk_rel_err", "std"))
ax.errorbar(sub.index, sub["mean"], yerr=sub["sd"].fillna(0), fmt="o-", capsize=3)
ax.set(xlabel="depth L", ylabel=r"$\|K/(L{+}1) - G\|_F/\|G\|_F$", title=f"NTK vs (L+1) G at width {wmax}")
display(fig)
import matplotlib.pyplot as plt; plt.close(fig)

# %% [markdown]
# *Figure 1.1. Left: deviations from the infinite-width linear-network values against width
# (mean over depths and seeds). Right: relative error of $K/(L+1)$ against $G$ by depth at the
# largest width (mean and standard deviation over seeds). Drawn by the cell above from
# `lib.chapters.linear_baseline.linear_sweep`.*

# %%
slope = fit_slope(by_width.index, by_width["ntk_rel_err"])
dev_cols = ["norm_dev", "angle_dev", "phi_dev"]
worst = df[df.width == wmax][dev_cols + ["ntk_rel_err"]].max()
shrinks = bool((by_width[dev_cols].diff().dropna() < 0).all().all()) if len(by_width) > 1 else False
dev_slopes = {c: fit_slope(by_width.index, by_width[c]) for c in dev_cols} if len(by_width) > 1 else {}
display(Markdown(verdict(
    CHAPTER, "[LH] Thm 2.3", "Linear networks keep norms and angles of inputs in every layer, and phi_bar = theta_in.",
    "reproduced" if shrinks else "reproduced with caveat",
    f"At width {wmax}, over depths {min(cfg.depths)}..{max(cfg.depths)} and {cfg.seeds} seeds, the largest norm "
    f"deviation is {worst.norm_dev:.3g}, the largest embedding-angle deviation {worst.angle_dev:.3g} rad and the "
    f"largest gradient-angle deviation {worst.phi_dev:.3g} rad; "
    + (f"every deviation shrinks as the width grows (log-log slopes "
       + ", ".join(f"{v:.2f}" for v in dev_slopes.values()) + ")." if shrinks else
       "not every deviation shrinks monotonically over the widths run."),
    section="Claim 1 and 2", profile=cfg.profile)))
display(Markdown(verdict(
    CHAPTER, "[LH] Cor 2.4 (kernel)", "The linear-network NTK is K_bar = (L+1) G.",
    "reproduced" if -0.75 < slope < -0.3 else "reproduced with caveat",
    f"||K/(L+1) - G||_F/||G||_F falls from {by_width['ntk_rel_err'].iloc[0]:.3g} at m={by_width.index[0]} to "
    f"{by_width['ntk_rel_err'].iloc[-1]:.3g} at m={by_width.index[-1]}, fitted slope {slope:.2f} in log-log "
    f"(O(1/sqrt(m)) predicts -0.5).",
    section="Claim 1 and 2", profile=cfg.profile)))

# %% [markdown]
# ## Claim 3: $\bar\kappa = \kappa_0$ at every depth, infinite when $n > d$
# Left: $\kappa(K)$ of the linear network against depth, with $\kappa_0 = \kappa(G)$ as a line.
# Right: the same for Gaussian data with $n > d$: $G$ has rank $d$, so $\kappa_0 = \infty$, and
# the finite-width NTK is singular too. Infinite values are drawn as triangles at the top edge,
# never as a large finite number.

# %%
df_over = linear_sweep(X_over, [wmax], cfg.depths, cfg.seeds, device=cfg.device)
fig, axs = figure(ncols=2)
for ax, d, title in ((axs[0, 0], df, f"digits, n={X.shape[0]} < d={X.shape[1]}"),
                     (axs[0, 1], df_over, f"Gaussian, n={X_over.shape[0]} > d={X_over.shape[1]}")):
    cols = palette(len(cfg.widths))
    for c, (w, g) in zip(cols, d.groupby("width")):
        k = g.groupby("depth")["kappa"].agg(["min", "max", "median"])
        finite = k[np.isfinite(k["max"])]
        if len(finite):
            ax.fill_between(finite.index, finite["min"], finite["max"], color=c, alpha=0.25)
            ax.plot(finite.index, finite["median"], "o-", color=c, label=f"linear net, m={w}")
        inf_depths = k.index[~np.isfinite(k["median"])]
        k0 = g["kappa0"].iloc[0]
    if np.isfinite(k0):
        ax.axhline(k0, color="k", ls="--", label=r"$\kappa_0=\kappa(G)$")
        ax.set_yscale("log")
    else:
        ax.set_ylim(0, 1)
        ax.set_yticks([])
        mark_infinite(ax, list(inf_depths), y_top=1.0, color=cols[-1],
                      label=r"linear net: $\kappa=\infty$ (and $\kappa_0=\infty$)")
    ax.set(xlabel="depth L", ylabel=r"$\kappa(K)$", title=title)
    ax.legend(loc="upper left")
display(fig); plt.close(fig)

# %% [markdown]
# *Figure 1.2. Condition number of the linear-network NTK against depth (band: min to max over
# seeds). Drawn by the cell above from `lib.chapters.linear_baseline.linear_sweep` and
# `lib.spectra.extreme_eigenvalues`.*

# %%
k_rel = (df[df.width == wmax]["kappa"] / df[df.width == wmax]["kappa0"] - 1).abs()
deep = df[df.depth == max(cfg.depths)].groupby("width")["kappa"].median() / df["kappa0"].iloc[0]
n_inf_over = int(np.isinf(df_over["kappa"]).sum())
display(Markdown(verdict(
    CHAPTER, "[LH] Cor 2.4 (conditioning)", "Linear networks have kappa_bar = kappa_0 at every depth; infinite when n > d.",
    ("reproduced" if k_rel.max() < 0.25 else "reproduced with caveat") if n_inf_over == len(df_over) else "not reproduced",
    f"On digits (kappa_0 = {df['kappa0'].iloc[0]:.4g}) the width-{wmax} linear NTK has |kappa/kappa_0 - 1| at most "
    f"{k_rel.max():.3g} over all depths and seeds. At finite width kappa drifts up with depth: at L={max(cfg.depths)} "
    f"the median kappa/kappa_0 is " + ", ".join(f"{v:.3g} (m={w})" for w, v in deep.items())
    + (", approaching 1 as m grows" if deep.is_monotonic_decreasing and len(deep) > 1 else "")
    + f". With n > d, {n_inf_over} of {len(df_over)} networks have an NTK singular to "
    f"working precision (kappa = inf).",
    section="Claim 3", profile=cfg.profile)))

# %% [markdown]
# ## Erratum: the gradient norm is $\sqrt{L+1}\,\|x\|$, not $(L+1)\|x\|$
# [LH] state $\|\nabla\bar f(x)\| = (L+1)\|x\|$, which would give $\bar K = (L+1)^2 G$. Each
# of the $L+1$ weight matrices contributes $\|x\|^2$ to the squared gradient norm (the
# backward vector and the embedding of every layer both keep the norm), so the calculation
# gives $\|\nabla\bar f(x)\|^2 = (L+1)\|x\|^2$. We measure $\|\nabla\bar f(x)\|^2/\|x\|^2 =
# K_{xx}/\|x\|^2$ and compare it with both candidates.

# %%
fac = gradient_norm_factors(df)
fig, axs = figure()
ax = axs[0, 0]
Ls = np.array(sorted(fac.index))
ax.errorbar(Ls, fac["mean"], yerr=fac["sd"], fmt="o", label=f"measured, m={wmax}", zorder=3)
ax.plot(Ls, Ls + 1, "-", label=r"$L+1$ (our derivation)")
ax.plot(Ls, (Ls + 1) ** 2, "--", label=r"$(L+1)^2$ (paper's statement)")
ax.set(xlabel="depth L", ylabel=r"$\|\nabla \bar f(x)\|^2 / \|x\|^2$", yscale="log",
       title="Squared gradient norm of the linear network")
ax.legend()
display(fig); plt.close(fig)

# %% [markdown]
# *Figure 1.3. Measured squared gradient norm over squared input norm (mean and standard
# deviation over inputs and seeds at the largest width). Drawn by the cell above from
# `lib.chapters.linear_baseline.gradient_norm_factors`.*

# %%
dev_lin = float((fac["mean"] / (Ls + 1) - 1).abs().max())
dev_sq = float((fac["mean"] / (Ls + 1) ** 2 - 1).abs().max())
display(Markdown(verdict(
    CHAPTER, "[LH] Thm 2.3 (gradient norm)", "||grad f_bar(x)|| = (L+1)||x||, so K_bar = (L+1)^2 G.",
    "not reproduced" if dev_lin < dev_sq else "reproduced",
    f"Measured ||grad f||^2/||x||^2 differs from L+1 by at most {dev_lin:.3g} (relative) over depths "
    f"{min(cfg.depths)}..{max(cfg.depths)}, and from (L+1)^2 by up to {dev_sq:.3g}: the norm is "
    f"sqrt(L+1)||x|| and K_bar = (L+1) G, as the paper's own Eq. (7)/(10) normalization implies.",
    section="Erratum", profile=cfg.profile)))
