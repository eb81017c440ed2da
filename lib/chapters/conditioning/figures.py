"""The figures of chapter 03, each declared once: what draws it, from what, its caption and its setting line.

Each ``figure_*`` function returns the keyword arguments of :meth:`lib.book.results.Recorder.figure`, so the
notebook draws a figure with ``rec.figure(**conditioning.figure_figure3(sweep))`` ([LH] Sec. 4).
"""
from __future__ import annotations

from lib.chapters.conditioning.bounds import (CAPTION_FIRST_LAYER, CAPTION_PROP41, plot_first_layer, plot_prop41,
                                              setting_first_layer, setting_prop41)
from lib.chapters.conditioning.cells import measure_conditioning
from lib.chapters.conditioning.figure3 import CAPTION_FIGURE3, plot_figure3, setting_figure3
from lib.chapters.conditioning.mnist_figure3 import (CAPTION_FIGURE3_MNIST, MnistFigure3Run, measure_mnist_section,
                                                     plot_mnist_figure3, setting_figure3_mnist)
from lib.chapters.conditioning.summary import ConditioningSweep
from lib.chapters.conditioning.theory_cells import TheoryResult, measure_theory
from lib.chapters.conditioning.theory_cmp import CAPTION_THEORY, plot_theory_comparison, setting_theory
from lib.chapters.conditioning.two_sample import (CAPTION_TWO_SAMPLE, TwoSample, measure_two_sample, plot_two_sample,
                                                  setting_two_sample)

__all__ = ["figure_figure3", "figure_figure3_mnist", "figure_prop41", "figure_first_layer", "figure_two_sample",
           "figure_theory"]


def figure_figure3(sweep: ConditioningSweep) -> dict:
    """``fig-figure3``: [LH] Figure 3 on this run's data sets (:func:`~lib.chapters.conditioning.figure3.plot_figure3`), both protocols.

    Args:
        sweep: :func:`~lib.chapters.conditioning.cells.measure_conditioning` output.
    """
    return dict(fig=plot_figure3(sweep), label="fig-figure3", caption=CAPTION_FIGURE3, drawn_by=plot_figure3,
                data_from=measure_conditioning, setting=setting_figure3(sweep))


def figure_figure3_mnist(run: MnistFigure3Run) -> dict:
    """``fig-figure3-mnist``: [LH] Figure 3's kappa on all of MNIST under the authors' protocol
    (:func:`~lib.chapters.conditioning.mnist_figure3.plot_mnist_figure3`; this build's batches and the record)."""
    return dict(fig=plot_mnist_figure3(run), label="fig-figure3-mnist", caption=CAPTION_FIGURE3_MNIST,
                drawn_by=plot_mnist_figure3, data_from=measure_mnist_section,
                setting=setting_figure3_mnist(run))


def figure_prop41(sweep: ConditioningSweep) -> dict:
    """``fig-prop41``: [LH] Prop 4.1's bound on lambda_min against the data (:func:`~lib.chapters.conditioning.bounds.plot_prop41`)."""
    return dict(fig=plot_prop41(sweep), label="fig-prop41", caption=CAPTION_PROP41, drawn_by=plot_prop41,
                data_from=measure_conditioning, setting=setting_prop41(sweep))


def figure_first_layer(theory: TheoryResult, sweep: ConditioningSweep) -> dict:
    """``fig-first-layer``: [LH] Thm 4.2, the first-layer NTK's kappa at infinite and finite width
    (:func:`~lib.chapters.conditioning.bounds.plot_first_layer`)."""
    return dict(fig=plot_first_layer(theory, sweep), label="fig-first-layer", caption=CAPTION_FIRST_LAYER,
                drawn_by=plot_first_layer, data_from=(measure_theory, measure_conditioning),
                setting=setting_first_layer(sweep))


def figure_two_sample(t2: TwoSample) -> dict:
    """``fig-two-sample``: [LH] App. F, the two-sample NTK's kappa against depth (:func:`~lib.chapters.conditioning.two_sample.plot_two_sample`)."""
    return dict(fig=plot_two_sample(t2), label="fig-two-sample", caption=CAPTION_TWO_SAMPLE,
                drawn_by=plot_two_sample, data_from=measure_two_sample, setting=setting_two_sample(t2))


def figure_theory(theory: TheoryResult, sweep: ConditioningSweep) -> dict:
    """``fig-fig3-theory``: the finite-width measurements against the infinite-width predictions
    (:func:`~lib.chapters.conditioning.theory_cmp.plot_theory_comparison`)."""
    return dict(fig=plot_theory_comparison(theory, sweep), label="fig-fig3-theory", caption=CAPTION_THEORY,
                drawn_by=plot_theory_comparison, data_from=(measure_theory, measure_conditioning),
                setting=setting_theory(theory, sweep))
