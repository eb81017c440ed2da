"""Chapter 04, :mod:`lib.chapters.infinite_depth.aak_more`: the figure of the section "More of [AAK]" and its data."""
import numpy as np
import pandas as pd

from lib.chapters import infinite_depth as D
from lib.chapters.infinite_depth import aak_lengths as A
from lib.chapters.infinite_depth import aak_more as AM


def test_figure_draws_six_panels_and_offers_one_long_table():
    cfg = D.SPEC.config(aak_activations=["norm_tanh"], aak_one_layer_n=64, aak_n=8, gauss_dim=3, aak_length_depth=8)
    rho = np.array([-0.5, 0.0, 0.5])
    odd = A.OddCorrelations(pd.DataFrame([dict(activation=a, odd=a != A.D6_CONTROL, q1=0.25, q2=4.0, rho=r,
                                               rho_next=r / 2) for a in ("tanh", A.D6_CONTROL) for r in rho]))
    d = np.arange(9)
    nl = A.NormReluLengths(pd.DataFrame(dict(depth=d, max_corr=0.6 * 0.98 ** d, max_corr_unit=0.6 * 0.97 ** d,
                                             length_dev=0.5 ** d)), "normrelu", (0.5, 1.0, 2.0), 8, 0.0159)
    ol = D.measure_one_layer_kernels(cfg)
    more = AM.AakMore(D.measure_mu(cfg, samples=20_000), ol, D.measure_length_maps(cfg), odd, nl, ol.digits_n,
                      ol.gauss_n, ol.gauss_dim, 8)
    kw = D.figure_aak_more(more)
    assert kw["label"] == "fig-aak-more" and len(kw["fig"].axes) == 6
    assert "64 unit-norm scikit-learn digits and 8 unit-norm Gaussian points in d = 3" in kw["setting"]
    assert "depth 8" in kw["setting"] and "$\\lambda_{\\min}/\\lambda_{\\max}$" in kw["caption"]
    data = kw["data"]
    assert data.columns[0] == "panel" and set(data.panel) == set("abcdef")
    assert (data[data.panel == "f"].activation == "normrelu").all()
