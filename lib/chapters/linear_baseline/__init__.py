"""Chapter 01, the linear baseline ([LH] Sec. 2: Thm 2.3, Cor 2.4; Lemma D.1; Remark 3.4).

Measurements, figures and verdicts of the chapter. The modules, one job each:

* :mod:`~lib.chapters.linear_baseline.spec` -- the notebook's parameters, declared once (:data:`~lib.chapters.linear_baseline.spec.SPEC`);
* :mod:`~lib.chapters.linear_baseline.data` -- the two data sets, validated (digits with n < d, Gaussian n > d);
* :mod:`~lib.chapters.linear_baseline.measure` -- the linear-network sweep, its summaries and its setting line;
* :mod:`~lib.chapters.linear_baseline.depth_zero` -- the "not checked" verdict of a sweep of depth 0 alone;
* :mod:`~lib.chapters.linear_baseline.finite_width` -- Figure 1.1, [LH] Thm 2.3 (norms, angles), Cor 2.4 (K ~ G);
* :mod:`~lib.chapters.linear_baseline.factors` -- the depth factors (L+1)^p: NTK factor, gradient norm, Figure 1.3;
* :mod:`~lib.chapters.linear_baseline.condition_numbers` -- [LH] Cor 2.4 (kappa_bar = kappa_0), Figure 1.2;
* :mod:`~lib.chapters.linear_baseline.lemma_d1` -- [LH] Lemma D.1, Figure 1.4;
* :mod:`~lib.chapters.linear_baseline.distances` -- [LH] Remark 3.4 (separation in distance), Figure 1.5.

The finite-width checks judge whether a deviation vanishes at infinite width with the width-trend rule of
:mod:`lib.finite.width_trend`, which chapter 04 shares. Every check can fail: ``check_*`` return a :class:`lib.book.results.Check` against the ids of
:data:`lib.book.claims.CLAIMS`, with the rows it judged (the paper-vs-book table renders them,
:func:`lib.book.wording.paper_vs_book`). The public names are re-exported here
(``from lib.chapters import linear_baseline``) and documented in their module.
"""
from __future__ import annotations

from lib.chapters.linear_baseline.condition_numbers import *  # noqa: F401,F403
from lib.chapters.linear_baseline.data import *  # noqa: F401,F403
from lib.chapters.linear_baseline.depth_zero import *  # noqa: F401,F403
from lib.chapters.linear_baseline.distances import *  # noqa: F401,F403
from lib.chapters.linear_baseline.factors import *  # noqa: F401,F403
from lib.chapters.linear_baseline.finite_width import *  # noqa: F401,F403
from lib.chapters.linear_baseline.lemma_d1 import *  # noqa: F401,F403
from lib.chapters.linear_baseline.measure import *  # noqa: F401,F403
from lib.chapters.linear_baseline.spec import *  # noqa: F401,F403
from lib.chapters.linear_baseline import (condition_numbers, data, depth_zero, distances, factors, finite_width,
                                          lemma_d1, measure, spec)

__all__ = [*condition_numbers.__all__, *data.__all__, *depth_zero.__all__, *distances.__all__, *factors.__all__,
           *finite_width.__all__, *lemma_d1.__all__, *measure.__all__, *spec.__all__]
