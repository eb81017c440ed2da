"""Infinite-width theory engine for the companion to [LH] (Sec. 2-4) and [AAK].

Submodules:

* :mod:`~lib.theory.relu` -- ReLU closed forms: the map g ([LH] Eq. 8), embedding and gradient angles
  ([LH] Lemma 3.1, Thm 3.2, Cor. 3.3), the NTK and the first-layer NTK G o P_L ([LH] Thm 4.2);
  numerically stable for tiny angles and depth 10^6.
* :mod:`~lib.theory.recursion` -- NNGP / NTK recursion for any activation ([LH] Fig. 2; book/formulas.md).
* :mod:`~lib.theory.dual_kernel`, :mod:`~lib.theory.quadrature` -- E[s(u)s(v)], E[s'(u)s'(v)] by closed
  forms, angle tables or kink-aware quadrature; the one-layer kernel matrix of unit inputs ([AAK] Thm H.1, H.5).
* :mod:`~lib.theory.dual` -- c_s, normalization, Hermite coefficients, dual activation, mu ([AAK]).
* :mod:`~lib.theory.limits` -- infinite-depth limits and rates ([LH] Thm 3.5, 4.3, Fig. 2; [AAK]).
* :mod:`~lib.theory.nonlinearity` -- [AAK] App. C.4, D, H: closed forms of mu, the length map, a bound on one
  layer's kernel.
* :mod:`~lib.theory.aak_bounds` -- [AAK] Cor 3.3, 3.5: the depth after which kappa <= 1 + eps.
* :mod:`~lib.theory.relu_cross` -- the ReLU NTK between two sets at any depth, from a spline of Eq. (7).

All angles are in radians, all arrays float64.
"""
from __future__ import annotations

from ._common import input_angles
from .aak_bounds import aak_depth_bound, aak_first_phase
from .dual import (
    GaussianMoments,
    coefficient_of_nonlinearity,
    dual_activation,
    dual_activation_bound,
    gaussian_moments,
    hermite_coefficients,
    hermite_dual_activation,
    normalization_constants,
    scale_constant,
)
from .dual_kernel import (
    METHODS,
    ThetaTable,
    diagonal_expectations,
    dual_expectations,
    dual_kernel_matrix,
    layer_map,
    theta_table,
)
from .limits import (
    FixedPoint,
    aak_correlation_bound,
    correlation_fixed_point,
    gershgorin_kappa_bound,
    ntk_offdiagonal_rate,
    relu_condition_number_limit,
    relu_cos_phi_asymptotic,
    relu_gradient_angle_limit,
    relu_normalized_ntk_limit,
)
from .nonlinearity import (
    LENGTH_RANGE,
    MU_CLOSED_FORMS,
    correlation_map,
    hadamard_power_bound,
    length_map,
    mu_closed_form,
    normrelu_mu,
)
from .recursion import LayerKernels, first_layer_ntk, gradient_angle, layer_kernels, nngp, ntk
from .relu import (
    arccos_kernel,
    relu_embedding_angles,
    relu_first_layer_ntk,
    relu_g,
    relu_g_stable,
    relu_gradient_angle,
    relu_gradient_angle_profile,
    relu_gradient_angle_weighted,
    relu_ntk,
)
from .relu_cross import relu_ntk_between

__all__ = [
    # ReLU closed forms
    "relu_g", "relu_g_stable", "relu_embedding_angles", "relu_gradient_angle", "relu_gradient_angle_profile",
    "relu_gradient_angle_weighted", "relu_ntk", "relu_first_layer_ntk", "arccos_kernel", "input_angles",
    # general recursion
    "ntk", "nngp", "first_layer_ntk", "gradient_angle", "layer_kernels", "LayerKernels",
    "dual_expectations", "diagonal_expectations", "dual_kernel_matrix", "layer_map", "ThetaTable", "theta_table",
    "METHODS",
    # activation facts ([AAK])
    "GaussianMoments", "gaussian_moments", "scale_constant", "normalization_constants",
    "coefficient_of_nonlinearity", "hermite_coefficients", "dual_activation", "hermite_dual_activation",
    "dual_activation_bound",
    # limits
    "relu_gradient_angle_limit", "relu_cos_phi_asymptotic", "relu_normalized_ntk_limit",
    "relu_condition_number_limit", "FixedPoint", "correlation_fixed_point", "ntk_offdiagonal_rate",
    "aak_correlation_bound", "gershgorin_kappa_bound",
    # [AAK] appendices: closed forms of mu, length map, one layer's kernel
    "MU_CLOSED_FORMS", "mu_closed_form", "LENGTH_RANGE", "normrelu_mu", "length_map", "correlation_map",
    "hadamard_power_bound",
    # [AAK] Cor 3.3, 3.5: depth bounds
    "aak_first_phase", "aak_depth_bound",
    # the ReLU NTK between two sets (kernel regression, [LH] Sec. 5(c))
    "relu_ntk_between",
]
