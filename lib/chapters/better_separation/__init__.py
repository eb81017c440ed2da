"""Chapter 02, better separation ([LH] Sec. 3, Figures 1-2, App. B): measurements, figures and verdicts.

Infinite-width values come from :mod:`lib.theory`; finite-width values from
:class:`lib.finite.mlp.MLP` / :class:`lib.finite.variants.VariantMLP` with the exact NTK on pairs of unit
inputs at prescribed angles (:mod:`lib.data.pairs`) and on pairs of real images (digits, faces, MNIST-5k).
The modules, one job each:

* :mod:`~lib.chapters.better_separation.spec` -- the notebook's parameters (:data:`~lib.chapters.better_separation.spec.SPEC`);
* :mod:`~lib.chapters.better_separation.separation_theory` -- infinite-width curves, crossovers, small-angle law;
* :mod:`~lib.chapters.better_separation.measure` -- the angle grids, finite-width angles and norms, the onset;
* :mod:`~lib.chapters.better_separation.relu_sweep` -- the one ReLU sweep behind the four sections below;
* :mod:`~lib.chapters.better_separation.figure1` -- [LH] Figure 1 and Lemma 3.1 (Eq. 7);
* :mod:`~lib.chapters.better_separation.small_angles` -- [LH] Thm 3.2 and Cor 3.3;
* :mod:`~lib.chapters.better_separation.norms` -- [LH] Lemma 3.1, gradient norm;
* :mod:`~lib.chapters.better_separation.crossover` -- the 60 deg statements of Sec. 3 (paper vs this book);
* :mod:`~lib.chapters.better_separation.real_data` -- separation of real image pairs (digits, faces, MNIST-5k);
* :mod:`~lib.chapters.better_separation.other_activations` -- [LH] Figure 2 (other activations);
* :mod:`~lib.chapters.better_separation.app_b` -- [LH] App. B;
* :mod:`~lib.chapters.better_separation.phi_depth` -- [LH] Thm 3.2, phi against depth at small angles.

``measure_*`` run the chapter's networks and return results that carry their settings, ``plot_*`` draw
its figures, ``figure_*`` add each figure's label, caption, sources and setting (the arguments of
:meth:`lib.book.results.Recorder.figure`), ``check_*`` compute its verdicts
(:class:`lib.book.results.Check`), ``table_*`` format its tables; each module's ``__all__`` is re-exported
here (``from lib.chapters import better_separation``), and its names are documented in their modules.
"""
from __future__ import annotations

from lib.chapters.better_separation.app_b import *  # noqa: F401,F403
from lib.chapters.better_separation.crossover import *  # noqa: F401,F403
from lib.chapters.better_separation.figure1 import *  # noqa: F401,F403
from lib.chapters.better_separation.measure import *  # noqa: F401,F403
from lib.chapters.better_separation.norms import *  # noqa: F401,F403
from lib.chapters.better_separation.other_activations import *  # noqa: F401,F403
from lib.chapters.better_separation.real_data import *  # noqa: F401,F403
from lib.chapters.better_separation.relu_sweep import *  # noqa: F401,F403
from lib.chapters.better_separation.phi_depth import *  # noqa: F401,F403
from lib.chapters.better_separation.separation_theory import *  # noqa: F401,F403
from lib.chapters.better_separation.small_angles import *  # noqa: F401,F403
from lib.chapters.better_separation.spec import *  # noqa: F401,F403
from lib.chapters.better_separation import (app_b, crossover, figure1, measure, norms, other_activations, phi_depth,
                                            real_data, relu_sweep, separation_theory, small_angles, spec)

__all__ = [*app_b.__all__, *crossover.__all__, *figure1.__all__, *measure.__all__, *norms.__all__,
           *other_activations.__all__, *real_data.__all__, *relu_sweep.__all__, *phi_depth.__all__,
           *separation_theory.__all__, *small_angles.__all__, *spec.__all__]
