"""The parameters of chapter 05 (notebook ``05_non_constancy``), declared once ([LZB] Sec. 3-6).

The notebook's parameters cell is written from :data:`~lib.chapters.non_constancy.spec.SPEC` (``python -m lib.site.specs --write``) and
validated with ``cfg = non_constancy.SPEC.validate(locals())``; the profiles of
``notebooks/profiles/05_non_constancy.yaml`` are checked against it.
"""
from __future__ import annotations

from lib.book import params as P
from lib.book.spec import ChapterSpec, Param
from lib.chapters.non_constancy.nets import check_parameters

__all__ = ["SPEC", "rule_ball_and_bottlenecks"]


def _joint(cfg) -> None:
    """The checks across parameters (:func:`~lib.chapters.non_constancy.nets.check_parameters`)."""
    check_parameters(cfg.k, cfg.lr_scale, cfg.n_hessian, cfg.n_samples)


def rule_ball_and_bottlenecks(cfg) -> None:
    """The ball is searched around nets of the sweep (``ball_widths`` among ``widths``, ``ball_seeds`` at most
    ``seeds``), and a bottleneck is narrower than the wide layers (every entry of ``bottlenecks`` below
    ``bottleneck_width``).

    Raises:
        lib.book.params.ParameterError: naming both parameters.
    """
    P.among(cfg, "ball_widths", "widths", "Lemma 3.1's backward vectors in the ball are read on the nets of the "
            "width sweep")
    P.at_most(cfg, "ball_seeds", "seeds", "the ball is searched around the nets of the sweep's seeds")
    P.at_most(cfg, "bottlenecks", "bottleneck_width", "a bottleneck layer b is narrower than the wide layers m of "
              "[m, b, m]", strict=True)


#: The parameters of chapter 05, with their defaults (the default profile), checkers and meaning.
SPEC = ChapterSpec("05_non_constancy", dict(
    profile=Param("default", P.text, "parameter profile this run belongs to (recorded with the verdicts)"),
    widths=Param([32, 128, 512, 2048, 8192], P.int_list(min_value=1, min_len=2),
                 "hidden widths m (over two orders of magnitude)"),
    bottleneck_width=Param(1024, P.positive_int, "the wide layers m of the bottleneck net [m, b, m]"),
    bottlenecks=Param([4, 16, 64, 256], P.int_list(min_value=1, min_len=2),
                      "bottleneck widths b (below bottleneck_width)"),
    seeds=Param(2, P.positive_int, "weight draws per configuration"),
    n_samples=Param(20, P.positive_int, "training points (unit-norm Gaussian inputs)"),
    d=Param(10, P.positive_int, "input dimension"),
    k=Param(3, P.positive_int, "softmax outputs"),
    activation=Param("tanh", P.text, "hidden activation (smooth, as [LZB] assume)"),
    max_steps=Param(4000, P.positive_int, "cap on GD steps"),
    rel_tol=Param(1e-3, P.unit_float, "stop once the loss is below rel_tol times its initial value"),
    lr_scale=Param(1.8, P.positive_float,
                   "GD step is lr_scale over (sup phi' squared times lambda_max of K at init)"),
    track_every=Param(10, P.positive_int, "GD steps between two kernel evaluations"),
    n_hessian=Param(4, P.positive_int, "inputs over which the Hessian norm is maximized"),
    hessian_tol=Param(1e-6, P.positive_float, "power iteration tolerance (relative change)"),
    hessian_max_iter=Param(3000, P.positive_int, "power iteration cap"),
    arch_widths=Param([16, 64, 256], P.int_list(min_value=1, min_len=2),
                      "widths of the two-layer, CNN, residual and trained-path nets of the more-of-[LZB] section"),
    ball_radius=Param(10.0, P.positive_float, "radius R of the ball around w_0 searched (fixed in m; holds GD's end)"),
    ball_points=Param(2, P.positive_int, "random points at distance R searched per net (with w_0 and the GD end)"),
    ball_widths=Param([32, 128, 512], P.int_list(min_value=1, min_len=2),
                      "widths m at which the ball is searched (some of widths)"),
    ball_seeds=Param(1, P.positive_int, "weight draws per width searched in the ball (at most seeds)"),
    lemma31_max_width=Param(512, P.positive_int, "largest width at which [LZB] Lemma 3.1's first-derivative and "
                            "(2,2,1)-norms are computed (Lanczos on m x m operators per layer and input)"),
), joint=(_joint, rule_ball_and_bottlenecks))
