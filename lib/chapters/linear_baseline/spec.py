"""Chapter 01's parameters, declared once ([LH] Sec. 2): defaults, checkers and meaning.

The notebook's ``parameters`` cell is written from :data:`~lib.chapters.linear_baseline.spec.SPEC` (``python -m lib.site.specs --write``) and
validated with ``SPEC.validate(locals())``; the profiles of ``notebooks/profiles/01_linear_baseline.yaml``
are checked against it by the test suite.
"""
from __future__ import annotations

from lib.book import params as P
from lib.book.spec import ChapterSpec, Config, Param

__all__ = ["SPEC", "rule_n_over_d"]


def rule_n_over_d(cfg: Config) -> None:
    """The n > d section needs more points than dimensions: ``d_over`` below ``n_over``.

    Raises:
        lib.book.params.ParameterError: naming both parameters.
    """
    P.at_most(cfg, "d_over", "n_over", "the n > d section needs more points than dimensions (its Gram matrix is "
              "then singular)", strict=True)

#: the parameters of notebook 01, in the order of its parameters cell
SPEC = ChapterSpec("01_linear_baseline", dict(
    profile=Param("default", P.text, "parameter profile this run belongs to (recorded with the verdicts)"),
    widths=Param([128, 512, 2048], P.int_list(min_value=1), "hidden widths m for the convergence study"),
    depths=Param(list(range(11)), P.int_list(min_value=0), "depths L (number of hidden layers)"),
    seeds=Param(3, P.positive_int, "weight draws per (width, depth)"),
    n_samples=Param(40, P.positive_int, "digits, d 64 pixels; their Gram matrix must be invertible (checked)"),
    n_over=Param(40, P.positive_int, "points for the n > d case (synthetic, d_over dimensions; n_over > d_over)"),
    d_over=Param(5, P.positive_int, "input dimension of the n > d case (below n_over)"),
    distance_angles=Param([1.0, 5.0, 20.0], P.float_list(positive=True, below=180),
                          "input angles in degrees of the similar pairs of Remark 3.4"),
    distance_seeds=Param(5, P.int_at_least(2), "weight draws of Remark 3.4 (a significance test needs several)"),
    device=Param("cpu", P.device_name, "'cpu' or 'cuda'"),
), joint=(rule_n_over_d,))
