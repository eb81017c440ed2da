"""Chapter 03's parameters (lib.chapters.conditioning.spec), the values glued into its prose, the settings under
its figures, and the "paper vs this book" table of [LH] Figure 3 (the rows its checks judged)."""
import dataclasses
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lib.book.params import ParameterError
from lib.book.profile_files import load_profiles
from lib.book.wording import paper_vs_book
from lib.chapters import conditioning as C

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "03_conditioning.py"


def test_every_profile_passes_the_spec():
    profiles = load_profiles(ROOT, stems=["03_conditioning"])
    assert {"smoke", "paper"} <= set(profiles)
    for name, by_stem in profiles.items():
        C.SPEC.check_profile(name, by_stem.get("03_conditioning", {}))
    with pytest.raises(ParameterError, match="profile 'smoke' of 03_conditioning"):
        C.SPEC.check_profile("smoke", {"widht": 64})


def test_paper_profile_is_the_papers_setting_of_figure3():
    """The `paper` profile of chapter 03 sets what [LH] Sec. 4.1 states, read from the one declaration
    (figure3.PAPER_FIGURE3), which the MNIST record's protocol and the deviation text read too."""
    paper = load_profiles(ROOT, stems=["03_conditioning"])["paper"]["03_conditioning"]
    assert {k: paper[k] for k in C.figure3.paper_parameters()} == C.figure3.paper_parameters()
    p = C.PAPER_FIGURE3
    assert (p["n_synthetic"], p["width"], p["seeds"], p["batch_size"], p["depths"]) == (2000, 512, 5, 512, tuple(range(11)))
    assert C.AUTHORS_FIG3[:4] == (p["depths"], p["width"], p["seeds"], p["batch_size"])


def test_the_notebook_parameters_cell_is_the_spec():
    import jupytext

    nb = jupytext.read(NOTEBOOK)
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(cells) == 1 and cells[0].source == C.SPEC.parameters_cell()
    ns: dict = {}
    exec(cells[0].source, ns)
    assert C.SPEC.validate(ns).values() == C.SPEC.config().values()


def test_the_spec_refuses_bad_values_by_name():
    with pytest.raises(ParameterError) as e:
        C.SPEC.config(datasets=["svhn"], depths=[0], pixel_range=[0, 255], full_method="gpu")
    for name in ("'datasets'", "'depths'", "'pixel_range'", "'full_method'"):
        assert name in str(e.value)


def _info():
    return pd.DataFrame([dict(dataset="synthetic", n=60, d=5, rank_G=5, kappa0=np.inf, small_batch=None),
                         dict(dataset="digits", n=100, d=64, rank_G=61, kappa0=np.inf, small_batch=30),
                         dict(dataset="faces", n=40, d=625, rank_G=40, kappa0=12.0, small_batch=None)]
                        ).set_index("dataset")


def _run(**over):
    """A smoke-sized configuration with a sweep whose data were 'loaded' at the sizes of :func:`_info`."""
    cfg = C.SPEC.config(**{**dict(profile="smoke", datasets=["synthetic", "digits", "faces"], n_synthetic=60,
                                  n_digits=100, n_faces=40, depths=[0, 1, 2, 4], large_full_depths=[0, 1, 4],
                                  width=64, seeds=2, batch_size=20,
                                  small_batch=30, two_sample_angles=[0.05, 0.3], two_sample_width=256,
                                  two_sample_seeds=2, agreement_n=10, agreement_width=32, agreement_depths=[0, 1, 2]),
                           **over})
    info = _info().loc[[k for k in _info().index if k in cfg.datasets]]
    small = {k: cfg.small_batch for k in info.index if k == "digits" and cfg.small_batch}
    data = C.ChapterData(arrays={}, info=info, requested=tuple(cfg.datasets), small=small,
                         first_layer=tuple(k for k in ("digits", "faces") if k in info.index), unit_norm=cfg.unit_norm)
    sizes = {k: (int(r.n), int(r.d)) for k, r in info.iterrows()}
    sweep = C.ConditioningSweep(pd.DataFrame(), tuple(sizes), tuple(sorted(set(cfg.depths))), cfg.batch_size,
                                width=cfg.width, seeds=cfg.seeds, sizes=sizes, data=data)
    agree = C.AuthorsAgreement(pd.DataFrame(), depths=tuple(cfg.agreement_depths), width=cfg.agreement_width,
                               n=cfg.agreement_n)
    t2 = C.TwoSample(pd.DataFrame(), angles=tuple(cfg.two_sample_angles), depths=(0, 1, 2, 4),
                     width=cfg.two_sample_width, seeds=cfg.two_sample_seeds)
    return cfg, sweep, agree, t2


def test_glue_values_come_from_the_results():
    cfg, sweep, agree, t2 = _run()
    g = C.glue_values(cfg, sweep, agree, t2)
    assert g["batch_size"] == "20" and g["seeds"] == "2" and g["width"] == "64"
    assert g["n_synthetic"] == "60" and g["d_synthetic"] == "5" and g["digits"] == "100 of the 1797"
    assert "batches of 30 (below the rank 61)" in g["small_batch_sentence"]
    assert g["idx_dir"] == "not set" and g["data_file"] == "not set" and g["d10_state"] == "not in this run"
    assert g["agreement"] == "the first 10 samples of each data set, width m = 32, depths L = 0, 1, 2"
    assert g["two_sample"] == "width m = 256 (2 seeds)" and "m(1 + d) = 384" in g["rank_bound"]
    # the sizes are those loaded, not those asked for: a sweep of another width says so
    wider = C.glue_values(cfg, dataclasses.replace(sweep, width=512), agree, t2)
    assert wider["width"] == "512" and "m(1 + d) = 3072" in wider["rank_bound"]


def test_figure_settings_state_the_run_and_its_departures_from_the_paper():
    cfg, sweep, agree, t2 = _run()
    f1 = C.setting_figure3(sweep)
    assert "synthetic (n = 60, d = 5)" in f1 and "faces (n = 40, d = 625)" in f1 and "m = 64" in f1
    assert "depths L = 0, 1, 2, 4" in f1 and "2 seeds" in f1 and "batches of 20" in f1 and "{profile}" in f1
    assert "Deviation" in f1 and "(the paper: 512)" in f1 and "Fashion-MNIST absent (its IDX files needed)" in f1
    assert "depths L = 0, 1, 2, 4 (the paper: 0 to 10)" in f1 and "2 seeds (the paper: 5)" in f1  # PAPER_FIGURE3
    assert "all 60,000 MNIST images are not in this figure: the next section runs the authors' protocol" in f1
    assert "finite κ₀: digits, faces (batches of 30 on digits)" in C.setting_first_layer(sweep)
    s4 = C.setting_two_sample(t2)
    assert "0.05, 0.3 rad" in s4 and "m = 256" in s4 and "depths L = 0, 1, 2, 4" in s4
    assert C.setting_prop41(sweep).count("{profile}") == 1
    theory = C.TheoryResult(pd.DataFrame(), names=sweep.names, depths=sweep.depths)
    assert "none for" not in C.setting_theory(theory, sweep)
    # counterfactual: the paper's sizes give no departure in width, depths, seeds or batch size
    paper = dataclasses.replace(sweep, width=512, batch_size=512, seeds=5, depths=tuple(range(11)))
    p1 = C.setting_figure3(paper)
    assert "m = 512" in p1 and "depths L = 0 to 10" in p1
    assert "(the paper: 512)" not in p1 and "(the authors': 512)" not in p1 and "(the authors': 512)" in f1
    # another run: unit norm, the authors' 2000 x 10 set, no digits
    cfg2, other, _, _ = _run(unit_norm=True, datasets=["synthetic", "faces"])
    o1 = C.setting_figure3(other)
    assert "unit norm" in o1 and "digits" not in o1.split("Deviation")[0]


def _summary(relu_kappa, lin_kappa, relu_angle, lin_angle, depths=(0, 1, 4)):
    rows = []
    for act, k, a in (("relu", relu_kappa, relu_angle), ("linear", lin_kappa, lin_angle)):
        for L, kv, av in zip(depths, k, a):
            rows.append(dict(dataset="synthetic", activation=act, depth=L, kappa_mean=kv, kappa_high_mean=kv,
                             kappa_batch_mean=kv / 2, angle_mean=av, interval=False))
    return pd.DataFrame(rows)


def _sweep(S, names=("synthetic",)):
    return C.ConditioningSweep(S, tuple(names), (0, 1, 4), 512)


def test_the_paper_table_is_the_rows_the_checks_judged():
    S = _summary([np.inf, 1e4, 1e3], [np.inf, np.inf, np.inf], [1.0, 5.0, 20.0], [1.0, 1.0, 0.9])
    checks = C.checks_figure3(_sweep(S))
    t = paper_vs_book(checks)
    assert list(t.columns) == ["claim", "statement", "paper", "this book", "rule", "holds"]
    assert len(t) == sum(len(c.rows) for c in checks) == 5  # angle; kappa (2 protocols, not testable); 2 trends
    assert (t.claim == "[LH] Fig 3").all() and t.statement.str.startswith("synthetic").all()
    trend = t[t.statement.str.contains("against depth")]
    assert list(trend.holds) == ["yes", "yes"] and "5e+03 (L=1) -> 500 (L=4)" in trend["this book"].iloc[0]
    assert "batches of 512" in trend.statement.iloc[0] and "full data" in trend.statement.iloc[1]
    assert (t[t.statement.str.contains("ReLU against linear")].holds.tolist() == ["yes", "—", "—"])
    # counterfactual: ReLU kappa rises and its angle shrinks below the linear one: the rows say "no"
    bad = _summary([np.inf, 1e3, 1e4], [np.inf, 1e4, 1e2], [1.0, 20.0, 0.5], [1.0, 1.0, 3.0])
    tb = paper_vs_book(C.checks_figure3(_sweep(bad)))
    assert (tb[tb.statement.str.contains("against depth|φ_min")].holds == "no").all()
    # a set the paper does not use is marked so
    S["dataset"] = "faces"
    tf = paper_vs_book(C.checks_figure3(_sweep(S, ("faces",))))
    assert tf.statement.str.startswith("faces (not in the paper)").all()


def test_unmeasured_depths_are_left_out_of_the_rows():
    S = _summary([np.inf, 1e4, math.nan], [np.inf, np.inf, np.inf], [1.0, 5.0, math.nan], [1.0, 1.0, math.nan])
    c = C.check_figure3(_sweep(S), "full")
    assert c.status == "not checked" and c.rows == ()  # one depth L >= 1 measured: no trend to judge
    a = C.check_figure3_angle(_sweep(S))
    assert [r["holds"] for r in a.rows] == [True] and a.rows[0]["this book"] == "ReLU vs linear: 5 vs 1 at L=1"
