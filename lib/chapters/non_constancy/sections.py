"""The checks each section of chapter 5's page records, in page order ([LZB] Sec. 3-4): a notebook records a section
with one call, ``rec(non_constancy.checks_kernel_width(runs))``; the checks themselves live beside their measurements."""
from __future__ import annotations

from lib.book.results import Check
from lib.chapters.non_constancy.backward import BackwardNorms, check_backward, check_lemma31_bounded
from lib.chapters.non_constancy.bottleneck import check_bottleneck_hessian, check_bottleneck_hessian_width
from lib.chapters.non_constancy.hessian_norms import HessianNorms
from lib.chapters.non_constancy.hessian_width import check_hessian, check_kernel_scale, check_nonlinear_hessian
from lib.chapters.non_constancy.kernel_runs import KernelRuns
from lib.chapters.non_constancy.kernel_width import (check_linear_kernel, check_linear_model, check_nonlinear_kernel,
                                                     check_weight_change, check_weight_max_move)
from lib.chapters.non_constancy.lzb_checks import (check_architectures, check_one_hidden_layer, check_parameter_change,
                                                   check_parameterization, check_segment_bound, check_two_layer_bound)
from lib.chapters.non_constancy.lzb_measure import LzbMore
from lib.chapters.non_constancy.quadratic_bottleneck import check_quadratic_bottleneck

__all__ = ["checks_kernel_width", "checks_hessian_width", "checks_lemma31", "checks_bottleneck_hessian",
           "checks_lzb_architectures", "checks_lzb_parameterization"]


def checks_kernel_width(runs: KernelRuns) -> list[Check]:
    """[LZB] Fig 1, Remark 3.5 and the weight-change statements: the linear-output kernel, the non-linear ones, the
    weights' change (total and largest entry) and the linear model, judged on the width sweep."""
    return [check_linear_kernel(runs), check_nonlinear_kernel(runs), check_weight_change(runs),
            check_weight_max_move(runs), check_linear_model(runs)]


def checks_hessian_width(hess: HessianNorms) -> list[Check]:
    """[LZB] Thm 3.2 against width: the Hessian norm, the kernel's scale, the non-linear-output Hessian."""
    return [check_hessian(hess), check_kernel_scale(hess), check_nonlinear_hessian(hess)]


def checks_lemma31(backward: BackwardNorms) -> list[Check]:
    """[LZB] Lemma 3.1: the backward norms, and the two bounded quantities Q_L and Q_221."""
    return [check_backward(backward), check_lemma31_bounded(backward, "Q_L"), check_lemma31_bounded(backward, "Q_221")]


def checks_bottleneck_hessian(hess: HessianNorms) -> list[Check]:
    """[LZB] Thm 3.3: the Hessian norm against the bottleneck, against width, and the quadratic bottleneck net."""
    return [check_bottleneck_hessian(hess), check_bottleneck_hessian_width(hess), check_quadratic_bottleneck(hess)]


def checks_lzb_architectures(more: LzbMore) -> list[Check]:
    """More of [LZB]: the one-hidden-layer statement, the two-layer bound, the other architectures."""
    return [check_one_hidden_layer(more), check_two_layer_bound(more), check_architectures(more)]


def checks_lzb_parameterization(more: LzbMore) -> list[Check]:
    """More of [LZB]: the parameterization, the parameters' change, the bound along the segment."""
    return [check_parameterization(more), check_parameter_change(more), check_segment_bound(more)]
