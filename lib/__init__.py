"""Measurement and theory library of the companion to Liu & Hui, "Better NTK Conditioning" ([LH]),
with Liu, Zhu & Belkin 2020 ([LZB]) and Agarwal, Awasthi & Kale 2021 ([AAK]).

The public core::

    from lib import MLP, empirical_ntk, condition_number, spectrum, min_pairwise_angle, theory, ntk_extremes

Which function checks which claim is not typed here: each ``check_*`` returns a :class:`lib.book.results.Check`
naming its claim (``Check("[LH] Thm 2.3", ...)``), and :mod:`lib.book.claim_links` reads those ids from the chapters'
sources. The table of every link is generated on the reproducibility report (:func:`lib.book.claims.check_table`),
and :attr:`lib.book.claims.Claim.checked_by` gives one claim's checks. The formulas behind them are on the book's
formulas page, ``book/formulas.md``.

Where the measurements come from:

* :mod:`lib.finite` -- finite width: the MLP of [LH] Eq. (1), its exact empirical NTK
  (:func:`lib.finite.ntk.empirical_ntk`), matrix-free spectra at large n
  (:mod:`lib.finite.extremes`), Hessians, training, the torch.func reference NTKs.
* :mod:`lib.theory` -- infinite width: ReLU closed forms, the general recursion, [AAK] dual activations,
  infinite-depth limits.
* :mod:`lib.spectra` -- eigenvalues, condition numbers (infinite when singular), angles.
* :mod:`lib.data` -- data sets (nothing downloaded) and input pairs at exact angles.
* :mod:`lib.chapters` -- one package per chapter: its parameters declared once (``SPEC``), ``measure_*``
  (results that carry their settings), ``plot_*``, ``check_*`` (verdicts with the rows they judged);
  :mod:`lib.book` -- the book machinery (parameter specs, the ``Recorder``, figures registered when drawn).
"""
from __future__ import annotations

from lib import theory
from lib.finite.extremes import ntk_extremes
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.spectra import Spectrum, condition_number, min_pairwise_angle, spectrum

__all__ = ["MLP", "empirical_ntk", "condition_number", "spectrum", "Spectrum", "min_pairwise_angle", "theory",
           "ntk_extremes"]
