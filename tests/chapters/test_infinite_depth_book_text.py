"""Chapter 04, :mod:`lib.chapters.infinite_depth.book_text`: glued values, the paper-vs-book table, rounded rates."""
import math

import pandas as pd

from lib.chapters.infinite_depth.book_text import glue_values, table_paper_vs_book, table_rates_rounded
from lib.chapters.infinite_depth.gradient_angle import compute_phi_profile
from lib.chapters.infinite_depth.relu_kappa import compute_kappa_study


def test_table_paper_vs_book_puts_the_papers_limits_beside_ours():
    angles = [0.1, 90.0]
    prof = compute_phi_profile(angles, 100000)
    kap, _ = compute_kappa_study([5], 3000, 5, 64, [1], 1)
    t = table_paper_vs_book(prof, kap)
    assert len(t) == len(angles) + 2  # two data sets, one n
    thm35 = t.loc["[LH] Thm 3.5: gradient angle phi"]
    assert (thm35["paper"] == "75.52 deg").all()  # arccos(1/4)
    deep = prof[prof.depth == prof.depth.max()]
    for (case, row), phi in zip(thm35.iterrows(), deep.sort_values("theta_in").phi):
        assert row["this book"].startswith(f"{math.degrees(phi):.2f} deg")
    thm43 = t.loc["[LH] Thm 4.3: NTK condition number kappa"]
    assert (thm43["paper"] == "(n+3)/3 = 2.67").all()
    last = kap[kap.depth == kap.depth.max()].set_index("data")
    assert thm43.loc["digits, n = 5", "this book"].startswith(f"{last.loc['digits', 'kappa']:.2f}")
    # counterfactual: a kappa stuck at three times the limit shows as such beside the paper's value
    bad = table_paper_vs_book(prof, kap.assign(kappa=3 * kap.limit))
    assert bad.loc[("[LH] Thm 4.3: NTK condition number kappa", "digits, n = 5"), "this book"].startswith("8.00")


def test_glue_values_show_values_not_parameter_names():
    from types import SimpleNamespace
    cfg = SimpleNamespace(profile="smoke", g_levels=[1, 5], collapse_angles=[1.0, 45.0], collapse_depth=10000,
                          fw_collapse_depth=10, phi_angles=[0.1, 90.0], max_depth=100000, kappa_ns=[5, 20],
                          kappa_max_depth=1000, fw_depths=[1, 5], fw_width=256, seeds=2, gauss_dim=5,
                          aak_activations=["normrelu", "relu"], aak_n=10, aak_max_depth=150, aak_fw_depths=[1, 3],
                          lemma_widths=[256, 1024])
    g = glue_values(cfg)
    assert {f"fig4_{k}" for k in range(1, 7)} <= set(g)
    assert "m = 256" in g["fig4_3"] and "n = 5, 20" in g["fig4_3"] and "profile smoke" in g["fig4_3"]
    assert g["max_depth"] == "100,000" and not any("fw_width" in v for v in g.values())


def test_rates_rounded_keeps_three_digits():
    rates = pd.DataFrame(dict(activation=["a"], kernel=["nngp"], mu=[0.0158634], chi=[1.04123], centred=[True],
                              fitted_slope=[-0.0164987], predicted_slope=[-0.0159876], fit_range=["1-2"],
                              kappa_at_max=[1.0492934]))
    r = table_rates_rounded(rates).iloc[0]
    assert r.mu == 0.0159 and r.fitted_slope == -0.0165 and r.kappa_at_max == 1.049
