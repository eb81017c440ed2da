"""Chapter 02, better separation ([LH] Sec. 3, Figures 1-2, App. B): measurements, figures and verdicts.

Infinite-width values come from :mod:`lib.theory`; finite-width values from
:class:`lib.finite.mlp.MLP` / :class:`lib.finite.variants.VariantMLP` with the exact NTK on pairs of unit
inputs at prescribed angles (:mod:`lib.data.pairs`) and on pairs of real images (digits, faces). The
modules, one job each:

* :mod:`~lib.chapters.better_separation.separation_theory` -- infinite-width curves, crossovers, small-angle table;
* :mod:`~lib.chapters.better_separation.measure` -- finite-width angles and norms, App. B variants, onset;
* :mod:`~lib.chapters.better_separation.figure1` -- [LH] Figure 1 and Lemma 3.1 (Eq. 7);
* :mod:`~lib.chapters.better_separation.small_angles` -- [LH] Thm 3.2 and Cor 3.3;
* :mod:`~lib.chapters.better_separation.norms` -- [LH] Lemma 3.1, gradient norm;
* :mod:`~lib.chapters.better_separation.crossover` -- the 60 deg statements of Sec. 3;
* :mod:`~lib.chapters.better_separation.other_activations` -- [LH] Figure 2 (other activations);
* :mod:`~lib.chapters.better_separation.app_b` -- [LH] App. B;
* :mod:`~lib.chapters.better_separation.real_data` -- separation of real image pairs (digits, faces).
* :mod:`~lib.chapters.better_separation.book_text` -- glued prose values, captions, the paper-vs-book table.

``compute_*`` gather the chapter's data, ``plot_*`` draw its figures, ``check_*`` compute its
verdicts (:class:`lib.book.results.Check`), ``table_*`` build its tables; everything is re-exported
here (``from lib.chapters import better_separation as S``) and documented in its module.
"""
from __future__ import annotations

from lib.chapters.better_separation.separation_theory import *  # noqa: F401,F403
from lib.chapters.better_separation.measure import *  # noqa: F401,F403
from lib.chapters.better_separation.figure1 import *  # noqa: F401,F403
from lib.chapters.better_separation.small_angles import *  # noqa: F401,F403
from lib.chapters.better_separation.norms import *  # noqa: F401,F403
from lib.chapters.better_separation.crossover import *  # noqa: F401,F403
from lib.chapters.better_separation.other_activations import *  # noqa: F401,F403
from lib.chapters.better_separation.app_b import *  # noqa: F401,F403
from lib.chapters.better_separation.real_data import *  # noqa: F401,F403
from lib.chapters.better_separation.book_text import *  # noqa: F401,F403
