"""Chapter 04, infinite depth ([LH] App. A, Thm 3.5, Thm 4.3, App. E; [AAK] Sec. 3, 7): measurements, figures and verdicts.

All infinite-width values come from :mod:`lib.theory`; the chapter samples them on the grids it plots, fits
rates, and runs the finite-width comparisons. The modules, one job each:

* :mod:`~lib.chapters.infinite_depth.spec` -- the notebook's parameters, declared once
  (:data:`lib.chapters.infinite_depth.spec.SPEC`);
* :mod:`~lib.chapters.infinite_depth.numerics` -- depth grids, rate fits, unit-diagonal kernels and the verdict
  helpers every module shares;
* :mod:`~lib.chapters.infinite_depth.collapse` -- [LH] App. A: the map g and the collapse of embeddings (Fig 5,
  Prop A.1, Thm A.2);
* :mod:`~lib.chapters.infinite_depth.gradient_angle` -- [LH] Thm 3.5: phi -> arccos(1/4);
* :mod:`~lib.chapters.infinite_depth.relu_kappa` -- [LH] Thm 4.3: kappa -> (n+3)/3;
* :mod:`~lib.chapters.infinite_depth.aak_kernels` -- kernel condition numbers of any activation against depth,
  and the [AAK] rate constants mu and chi;
* :mod:`~lib.chapters.infinite_depth.dual_activation` -- [AAK] Lemma C.7 (dual bound) and Sec. 7 (NormReLU);
* :mod:`~lib.chapters.infinite_depth.aak_depth` -- [AAK] Thm 3.2, 3.4, 3.10 and [LH] Fig 2 (phi -> 90 deg);
* :mod:`~lib.chapters.infinite_depth.lengths` -- [AAK] Thm 3.11: inputs of any length;
* :mod:`~lib.chapters.infinite_depth.app_e` -- [LH] App. E: one random layer (Lemmas E.1-E.3) and Lemma E.6;
* :mod:`~lib.chapters.infinite_depth.aak_mu` -- [AAK] Def 3.1, Lemma C.2, App. C.4: mu measured three ways;
* :mod:`~lib.chapters.infinite_depth.aak_one_layer` -- [AAK] Sec 3.3, Thm H.1, H.5: one layer's kernel;
* :mod:`~lib.chapters.infinite_depth.aak_length_map` -- [AAK] Thm D.1 (its premises measured), App. D.4's list and
  its counterexample: the length map;
* :mod:`~lib.chapters.infinite_depth.aak_lengths` -- [AAK] Lemma D.6, Thm I.1: correlations at other lengths;
* :mod:`~lib.chapters.infinite_depth.aak_more` -- the study and figure of the section "More of [AAK]";
* :mod:`~lib.chapters.infinite_depth.aak_depth_bound` -- [AAK] Cor 3.3, 3.5: the depth for kappa <= 1 + eps;
* :mod:`~lib.chapters.infinite_depth.uncentred` -- [AAK] Thm 3.10 with rho* < 1: the exponential rate;
* :mod:`~lib.chapters.infinite_depth.normrelu_family` -- [AAK] Sec 7: NormReLU for every b, lambda_b from SELU;
* :mod:`~lib.chapters.infinite_depth.aak_training_runs`, :mod:`~lib.chapters.infinite_depth.aak_training` -- [AAK]
  Thm 4.1, 4.2, E.3: steps to eps past the depth where kappa is a constant, at a width where the finite kernel
  inherits it (the trainings, then their premises, figure and verdicts).

``measure_*`` measure and return a frozen result that carries the settings it was measured with, ``plot_*``
draw a result and each ``figure_*`` (a :class:`~lib.chapters.infinite_depth.numerics.ChapterFigure`) declares
its figure (label, caption, setting line, data) for the chapter's recorder, ``check_*``
compute its verdicts (:class:`lib.book.results.Check`, with the rows a "paper vs this book" table renders),
``table_*`` format results; every public name is re-exported here
(``from lib.chapters import infinite_depth``) and documented in its module.
"""
from __future__ import annotations

from lib.chapters.infinite_depth.aak_depth import *  # noqa: F401,F403
from lib.chapters.infinite_depth.aak_kernels import *  # noqa: F401,F403
from lib.chapters.infinite_depth.app_e import *  # noqa: F401,F403
from lib.chapters.infinite_depth.collapse import *  # noqa: F401,F403
from lib.chapters.infinite_depth.dual_activation import *  # noqa: F401,F403
from lib.chapters.infinite_depth.gradient_angle import *  # noqa: F401,F403
from lib.chapters.infinite_depth.lengths import *  # noqa: F401,F403
from lib.chapters.infinite_depth.numerics import *  # noqa: F401,F403
from lib.chapters.infinite_depth.relu_kappa import *  # noqa: F401,F403
from lib.chapters.infinite_depth.spec import *  # noqa: F401,F403
from lib.chapters.infinite_depth.aak_mu import *  # noqa: F401,F403
from lib.chapters.infinite_depth.aak_one_layer import *  # noqa: F401,F403
from lib.chapters.infinite_depth.aak_length_map import *  # noqa: F401,F403
from lib.chapters.infinite_depth.aak_lengths import *  # noqa: F401,F403
from lib.chapters.infinite_depth.aak_more import *  # noqa: F401,F403
from lib.chapters.infinite_depth.aak_assumption_b import *  # noqa: F401,F403
from lib.chapters.infinite_depth.aak_depth_bound import *  # noqa: F401,F403
from lib.chapters.infinite_depth.aak_training import *  # noqa: F401,F403
from lib.chapters.infinite_depth.aak_training_runs import *  # noqa: F401,F403
from lib.chapters.infinite_depth.normrelu_family import *  # noqa: F401,F403
from lib.chapters.infinite_depth.uncentred import *  # noqa: F401,F403
from lib.chapters.infinite_depth import (aak_assumption_b, aak_depth, aak_depth_bound, aak_kernels, aak_length_map,
                                         aak_lengths, aak_more, aak_mu, aak_one_layer, aak_training, aak_training_runs,
                                         app_e, collapse, dual_activation, gradient_angle, lengths, normrelu_family,
                                         numerics, relu_kappa, spec, uncentred)

__all__ = [*aak_depth.__all__, *aak_kernels.__all__, *app_e.__all__, *collapse.__all__, *dual_activation.__all__,
           *gradient_angle.__all__, *lengths.__all__, *numerics.__all__, *relu_kappa.__all__, *spec.__all__,
           *aak_mu.__all__, *aak_one_layer.__all__, *aak_length_map.__all__, *aak_lengths.__all__, *aak_more.__all__,
           *aak_assumption_b.__all__, *aak_depth_bound.__all__, *aak_training.__all__, *aak_training_runs.__all__,
           *normrelu_family.__all__, *uncentred.__all__]
