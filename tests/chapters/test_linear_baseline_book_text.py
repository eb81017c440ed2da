"""Chapter 01 text (lib.chapters.linear_baseline.book_text): the paper-vs-book table shows the measured
exponent beside the paper's (and would show 2 for a factor (L+1)^2); glued values show values, not names."""
from types import SimpleNamespace

from lib.chapters.linear_baseline import book_text as BT, factors as FA, measure as M
from chapter_fakes import linear_baseline as F


def test_table_paper_vs_book_shows_the_papers_values_beside_the_measured_ones():
    linear = F.real_sweep("linear")
    fac = M.gradient_norm_factors(linear)
    t = BT.table_paper_vs_book(linear, fac)
    assert list(t.columns) == ["paper ([LH] Sec. 2)", "this book", "verdict rule"]
    ntk = t.loc["exponent p of the NTK factor, K = (L+1)^p G"]
    assert ntk["paper ([LH] Sec. 2)"] == "2"
    sub = linear[(linear.width == linear.width.max()) & (linear.depth >= 1)].groupby("depth")["ntk_factor"].median()
    p = FA._exponent(sub.index.to_numpy(), sub.to_numpy())
    assert ntk["this book"].startswith(f"{p:.2f}") and abs(p - 1) < 0.25  # the erratum: exponent 1, not 2
    # counterfactual: a factor (L+1)^2 would show exponent 2 beside the paper's 2
    sq = linear.assign(ntk_factor=(linear.depth + 1.0) ** 2)
    row = "exponent p of the NTK factor, K = (L+1)^p G"
    assert BT.table_paper_vs_book(sq, fac).loc[row, "this book"].startswith("2.00")


def test_glue_values_show_values_not_parameter_names():
    cfg = SimpleNamespace(profile="smoke", widths=[64, 256], depths=[0, 1, 2, 3, 4, 5, 6], seeds=2, n_samples=16,
                          n_over=12, d_over=4, distance_angles=[1.0, 5.0], distance_seeds=5)
    g = BT.glue_values(cfg)
    assert {f"fig1_{k}" for k in range(1, 6)} <= set(g)
    assert "depths L = 0 to 6" in g["fig1_1"] and "widths m = 64, 256" in g["fig1_1"] and "profile smoke" in g["fig1_1"]
    assert g["d_over"] == "4" and not any("d_over" in v for v in g.values())
    assert "depths L = 0, 2, 5" in BT.glue_values(SimpleNamespace(**{**vars(cfg), "depths": [0, 2, 5]}))["fig1_1"]
