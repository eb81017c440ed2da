"""Chapter 01 [LH] Lemma D.1 (lib.chapters.linear_baseline.lemma_d1): reproduced for centred Gaussian entries,
not reproduced for shifted ones (the counterfactual); Figure 1.4."""
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from lib.chapters.linear_baseline import lemma_d1 as LD


def test_lemma_d1_reproduced_for_centred_gaussians_not_for_shifted_ones():
    assert LD.check_lemma_d1(LD.measure_lemma_d1(8, [64, 256, 1024], 2)).status == "reproduced"
    assert LD.check_lemma_d1(LD.measure_lemma_d1(8, [64, 256, 1024], 2, mean=0.5)).status == "not reproduced"
    assert LD.check_lemma_d1(LD.measure_lemma_d1(8, [256], 3)).status == "inconclusive"


def test_plot_lemma_d1_returns_one_axis():
    fig = LD.plot_lemma_d1(LD.measure_lemma_d1(4, [8, 32], 2))
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    plt.close(fig)
