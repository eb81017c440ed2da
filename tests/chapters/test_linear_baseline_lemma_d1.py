"""Chapter 01 [LH] Lemma D.1 (lib.chapters.linear_baseline.lemma_d1): reproduced for centred Gaussian entries,
not reproduced for shifted ones (the counterfactual), a caveat when the deviation vanishes off the Bai-Yin
curve, and the Bai-Yin tolerance at its boundary on both sides; Figure 1.4."""
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from lib.chapters.linear_baseline import lemma_d1 as LD
from lib.finite import width_trend as T


def _bai_yin_frame(factor, d=16, widths=(64, 256, 1024), noise=1e-4):
    """Per-draw deviations factor x (2 sqrt(d/m) + d/m) +- noise (two draws): a zero limit, off Bai-Yin by factor."""
    by = T.bai_yin(d).shape
    return pd.DataFrame([dict(width=m, seed=s, d=d, dev=factor * float(by(np.array([float(m)]))[0]) + sign * noise)
                         for m in widths for s, sign in enumerate((1, -1))])


def test_lemma_d1_reproduced_for_centred_gaussians_not_for_shifted_ones():
    c = LD.check_lemma_d1(LD.measure_lemma_d1(8, [64, 256, 1024], 2))
    assert c.status == "reproduced" and "the Bai-Yin law predicts" in c.measured
    assert "fit a + c (2 sqrt(d/m) + d/m), d = 8" in c.measured
    (row,) = c.rows
    assert row["holds"] is True and row["paper"] == "0 as m -> infinity" and "Bai-Yin:" in row["this book"]
    shifted = LD.check_lemma_d1(LD.measure_lemma_d1(8, [64, 256, 1024], 2, mean=0.5))
    assert shifted.status == "not reproduced" and shifted.rows[0]["holds"] is False
    one = LD.check_lemma_d1(LD.measure_lemma_d1(8, [256], 3))
    assert one.status == "inconclusive" and "one width" in one.caveat


def test_the_default_size_extrapolates_to_zero_on_the_bai_yin_curve():
    """The issue's reading: on d = 64, m = 128..2048 the 1/sqrt(m) fit gave a limit of -0.115 +- 0.047; the
    Bai-Yin curve gives a limit within noise of zero and a deviation within a few % of the prediction."""
    dev = LD.measure_lemma_d1(64, [128, 512, 2048], 3)
    c = LD.check_lemma_d1(dev)
    t = T.width_trend(dev, "dev", T.bai_yin(64))
    assert c.status == "reproduced" and abs(t.limit) < T.LIMIT_SIGMA * t.limit_se


def test_a_deviation_that_vanishes_off_the_bai_yin_curve_is_a_caveat():
    c = LD.check_lemma_d1(_bai_yin_frame(1.5))
    assert c.status == "reproduced with caveat" and "1.50 times the Bai-Yin prediction" in c.caveat
    assert c.rows[0]["holds"] is False


@pytest.mark.parametrize("side", [1, -1])
def test_bai_yin_tolerance_boundary(side):
    assert LD.check_lemma_d1(_bai_yin_frame(1 + side * LD.BAI_YIN_RTOL * 0.99)).status == "reproduced"
    assert LD.check_lemma_d1(_bai_yin_frame(1 + side * LD.BAI_YIN_RTOL * 1.01)).status == "reproduced with caveat"


def test_the_tolerance_is_read_at_the_largest_width():
    df = _bai_yin_frame(1.0)
    off = df.assign(dev=np.where(df.width == df.width.max(), df.dev, 3 * df.dev))  # off only below m_max
    by = T.bai_yin(16).shape
    assert LD.check_lemma_d1(off).rows[0]["this book"].startswith(f"{float(by(np.array([1024.0]))[0]):.3g}")


def test_plot_lemma_d1_returns_one_axis_with_the_bai_yin_curve():
    fig = LD.plot_lemma_d1(LD.measure_lemma_d1(4, [8, 32], 2))
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    assert any("Bai-Yin" in t.get_text() for t in fig.axes[0].get_legend().get_texts())
    plt.close(fig)
