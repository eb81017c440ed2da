"""Chapter 04, :mod:`lib.chapters.infinite_depth.numerics`: depth grids, rate fits and shared helpers."""
import math
from types import SimpleNamespace

import numpy as np
import pytest

from lib.chapters.infinite_depth.numerics import (ChapterFigure, decay_slope, deviation_text, fit_rate, log_depths,
                                                  max_offdiagonal, nearest_depth, not_checked, glue_values,
                                                  unit_diagonal)


def test_log_depths():
    d = log_depths(1000, 4)
    assert d[0] == 0 and d[-1] == 1000 and np.all(np.diff(d) > 0)
    with pytest.raises(ValueError, match="max_depth"):
        log_depths(0)


def test_fit_rate_recovers_a_power_law():
    x = np.geomspace(10, 1e6, 30)
    s, b = fit_rate(x, 3.0 * x ** -0.8)
    assert s == pytest.approx(-0.8, abs=1e-12) and b == pytest.approx(math.log(3.0), abs=1e-10)
    with pytest.raises(ValueError, match="3 positive"):
        fit_rate([1, 2], [1, 1])


def test_decay_slope_recovers_an_exponential_and_ignores_the_floor():
    L = np.arange(40)
    v = 5.0 * 0.7 ** L
    v[v < 1e-10] = 1e-16  # rounding floor: must not enter the fit
    s, a, b = decay_slope(L, v, floor=1e-12)
    assert s == pytest.approx(math.log(0.7), rel=1e-10)
    assert v[b] > 1e-12
    with pytest.raises(ValueError, match="fewer than 3"):
        decay_slope([0, 1], [1.0, 0.5])


def test_unit_diagonal_nearest_and_not_checked():
    K = np.array([[4.0, 2.0], [2.0, 9.0]])
    C = unit_diagonal(K)
    np.testing.assert_allclose(np.diag(C), 1.0)
    assert C[0, 1] == pytest.approx(2.0 / 6.0) and max_offdiagonal(C) == pytest.approx(1 / 3)
    assert nearest_depth([0, 10, 100, 1000], 120) == 100 and nearest_depth(np.array([1, 5]), 3.1) == 5
    c = not_checked("[LH] Thm 3.5", "No pair in this run.", "no input pair")
    assert c.status == "not checked" and c.caveat == "not testable on this data: no input pair"


def test_deviation_text_and_prose_values():
    assert deviation_text(0.01234) == "0.012" and deviation_text(1e-13) == "below 1e-09 (rounding)"
    coll = SimpleNamespace(fw_width=1024, seeds=3)
    prof = SimpleNamespace(max_depth=1000000, angles_deg=[0.001, 90.0])
    kap = SimpleNamespace(gauss_dim=5, fw_width=512)
    aak, one = SimpleNamespace(n=20), SimpleNamespace(widths=[256, 1024], angles_deg=[1.0, 179.0])
    assert glue_values(coll, prof, kap, aak, one) == {
        "collapse_width": "1,024", "collapse_seeds": "3", "max_depth": "1,000,000", "phi_angles": "0.001, 90",
        "gauss_dim": "5", "kappa_width": "512", "aak_n": "20", "lemma_widths": "256, 1024", "lemma_angles": "1, 179"}


def test_a_chapter_figure_fills_its_templates_from_the_result():
    from dataclasses import dataclass

    import pandas as pd

    @dataclass(frozen=True)
    class Result:
        frame: pd.DataFrame
        widths: list
        angles_deg: list
        activations: list
        width: int

    r = Result(pd.DataFrame(dict(x=[1.0])), [256, 1024], [0.5, 90.0], ["relu", "tanh"], 4096)
    def draw(res):
        return ("drawn", res.width)
    fig = ChapterFigure("fig-demo", drawn_by=draw, data_from=Result, caption="Width {width:,}.",
                        setting="Widths {widths}; angles {angles_deg} deg; {activations}; {profile}.")
    args = fig(r)
    assert args["fig"] == ("drawn", 4096) and args["caption"] == "Width 4,096." and args["data"] is r.frame
    assert args["setting"] == "Widths 256, 1024; angles 0.5, 90 deg; relu, tanh; {profile}."
    assert args["label"] == "fig-demo" and args["drawn_by"] is draw and args["data_from"] is Result
