"""Tests of lib.chapters.optimization.book_text: glued values, captions, the paper-vs-book table of [LH] Table 1."""
import numpy as np
import pandas as pd
import pytest

from lib.book import params as P
from lib.chapters import optimization as OPT
from lib.chapters.optimization import sgd as SGD
from lib.validation import InputError

SMOKE = dict(profile="smoke", gd_depths=[1, 3], gd_width=128, gd_steps=150, gd_samples=15, gd_dim=5,
             sgd_data=["faces"], sgd_depths=[1, 6, 8], sgd_width=32, batch_size=500, lrs=[0.5, 4.0, 32.0], epochs=5,
             seeds=2, n_test=500, sgd_dtype="float32", idx_dir=None, fashion_dir=None, n_idx=60000, device="cpu")
PAPER = dict(SMOKE, sgd_data=["MNIST"], sgd_depths=[1, 3, 6, 8, 10, 12], sgd_width=512, epochs=500, seeds=3,
             n_test=10000)


def _cfg(**over):
    v = dict(SMOKE, **over)
    return P.validate(
        profile=(v["profile"], P.text), gd_depths=(v["gd_depths"], P.int_list(min_value=1, min_len=2)),
        gd_width=(v["gd_width"], P.positive_int), gd_steps=(v["gd_steps"], P.positive_int),
        gd_samples=(v["gd_samples"], P.positive_int), gd_dim=(v["gd_dim"], P.positive_int),
        sgd_data=(v["sgd_data"], P.choices_list(OPT.SGD_DATA)),
        sgd_depths=(v["sgd_depths"], P.int_list(min_value=1, min_len=2)),
        sgd_width=(v["sgd_width"], P.positive_int), batch_size=(v["batch_size"], P.positive_int),
        lrs=(v["lrs"], P.float_list(positive=True, min_len=3)), epochs=(v["epochs"], P.positive_int),
        seeds=(v["seeds"], P.int_at_least(2)), n_test=(v["n_test"], P.positive_int),
        sgd_dtype=(v["sgd_dtype"], P.choice(["float32", "float64"])), idx_dir=(v["idx_dir"], P.path_or_none),
        fashion_dir=(v["fashion_dir"], P.path_or_none), n_idx=(v["n_idx"], P.positive_int),
        device=(v["device"], P.device_name), sgd_record=(v.get("sgd_record", "read"), P.choice(["read", "compute"])))


def test_glue_values_come_from_the_config():
    g = OPT.glue_values(_cfg())
    assert {"fig6_1", "fig6_2", "fig6_3"} <= set(g)
    assert g["gd_m"] == "128" and g["gd_n"] == "15" and g["gd_d"] == "5" and g["n_seeds"] == "2"
    assert g["lr_grid"] == "0.5, 4, 32" and g["sgd_L"] == "1, 6, 8" and g["faces_dim"] == "625"
    assert "n = 15, d = 5" in g["fig6_1"] and "m = 128" in g["fig6_1"] and "profile smoke" in g["fig6_1"]
    # faces: 200 images, 50 held out, so the batch is the whole training set and one update per epoch
    assert "n = 150 training and 50 test images" in g["fig6_2"] and "5 epochs = 5 SGD updates" in g["fig6_2"]
    assert "batch 150 (the whole training set) instead of 500" in g["fig6_2"]
    assert "learning-rate grid 0.5, 4, 32" in g["fig6_2"] and "depths 1, 6, 8 instead of" in g["fig6_3"]


@pytest.mark.parametrize("name, value, key, text", [
    ("gd_width", 256, "fig6_1", "m = 256"), ("gd_samples", 40, "fig6_1", "n = 40"),
    ("gd_depths", [1, 2, 7], "fig6_1", "L = 1, 2, 7"), ("epochs", 40, "fig6_2", "40 epochs = 40 SGD updates"),
    ("seeds", 4, "fig6_3", "4 seeds per depth"), ("lrs", [1.0, 2.0, 3.0], "fig6_2", "grid 1, 2, 3"),
    ("sgd_width", 64, "fig6_2", "width 64 instead of 512"), ("profile", "default", "fig6_2", "profile default"),
])
def test_changing_a_value_changes_the_text(name, value, key, text):
    before, after = OPT.glue_values(_cfg()), OPT.glue_values(_cfg(**{name: value}))
    assert before[key] != after[key] and text in after[key] and text not in before[key]


def test_mnist_and_digits_deviations_differ(tmp_path):
    digits = OPT.glue_values(_cfg(**PAPER))  # MNIST asked for, no folder: digits instead
    mnist = OPT.glue_values(_cfg(**dict(PAPER, idx_dir=str(tmp_path))))
    assert digits["fig6_2"] != mnist["fig6_2"] and digits["fig6_3"] != mnist["fig6_3"]
    assert "digits (1,297 training images) instead of MNIST" in digits["fig6_3"]
    assert "idx_dir = None" in digits["fig6_3"] and "idx_dir = None" in digits["sgd_sets"]
    assert digits["sgd_runs"].startswith("digits (MNIST was asked for") and "n = 1,297 training" in digits["sgd_runs"]
    assert "no MNIST folder is given (papermill parameter idx_dir = None)" in digits["idx_folders"]
    assert f"MNIST IDX files are read from {tmp_path}" in mnist["idx_folders"]
    assert "Deviation on MNIST: none (the paper's protocol)" in mnist["fig6_3"]
    assert "instead of MNIST" not in mnist["fig6_2"] and mnist["sgd_sets"] == "MNIST"
    assert "10,000 test images of MNIST" in mnist["binomial_se"]
    fewer = OPT.glue_values(_cfg(**dict(PAPER, idx_dir=str(tmp_path), n_idx=6000)))
    assert "6,000 of the 60,000 training images" in fewer["fig6_2"] and "6,000 SGD updates" in fewer["fig6_2"]


def test_resolved_data_follow_compute_sgd_studies(monkeypatch, tmp_path):
    ran = []
    monkeypatch.setattr(SGD, "compute_sgd_study", lambda data, *a, **k: ran.append(data) or data)
    for sets, idx in ((["MNIST", "digits", "faces"], None), (["MNIST", "Fashion-MNIST"], str(tmp_path)),
                      (["Fashion-MNIST", "MNIST"], None)):
        cfg = _cfg(sgd_data=sets, idx_dir=idx)
        ran.clear()
        SGD.compute_sgd_studies(cfg.sgd_data, [1, 2], 2, idx_dir=cfg.idx_dir, fashion_dir=cfg.fashion_dir)
        assert [d for d, _ in OPT.resolved_sgd_data(cfg)] == ran


def test_data_sizes_are_the_loaders():
    from lib.data.datasets import load_digits_subset, load_faces
    for name, X in (("digits", load_digits_subset()), ("faces", load_faces(unit_norm=True))):
        assert X.shape == (OPT.DATA_SIZES[name]["n"], OPT.DATA_SIZES[name]["d"])
    with pytest.raises(InputError, match="sgd_data"):
        OPT.sgd_setting(_cfg(), "CIFAR")


def _study(acc, data="MNIST", n_train=60000, epochs=500, depths=(1, 6, 12), seeds=3):
    rows = [dict(dataset=data, depth=L, seed=s, lr=1.0, train_loss=np.ones(epochs + 1), late_loss=1.0,
                 test_acc=a + 0.001 * (s - 1), diverged=False, seconds=0.1)
            for L, a in zip(depths, acc) for s in range(seeds)]
    grid = pd.DataFrame([dict(dataset=data, depth=L, lr=lr, late_loss=1.0 / lr, chosen=lr == 1.0)
                         for L in depths for lr in (0.5, 1.0, 2.0)])
    return OPT.SGDStudy(data, grid, pd.DataFrame(rows), list(depths), n_train, 300, 500, epochs, seeds, 512,
                        [0.5, 1.0, 2.0], 1.0)


def _table(acc, **kw):
    study = _study(acc, **kw)
    return OPT.table_table1_vs_paper(OPT.accuracy_table(study.runs, study.depths, OPT.PAPER_TABLE1), study), study


def test_table1_vs_paper_prediction_and_counterfactual():
    t, study = _table((0.95, 0.97, 0.96))
    assert list(t.columns) == ["statement", "paper", "ours", "rule", "holds"]
    judged = t[t.holds != "not judged"]
    assert (judged.holds == "yes").all() and len(judged) == 4
    assert t.iloc[-1].rule.endswith("Deviations here: none.")
    assert OPT.check_accuracy(OPT.accuracy_table(study.runs, study.depths), study).status == "reproduced"
    by = t.set_index("statement")
    assert by.loc["test accuracy at depth 3", "ours"] == "not run"
    assert by.loc["test accuracy at depth 3", "paper"] == "97.43 %"
    assert by.loc["the peak is at depth 6", "paper"].startswith("depth 6 (97.57 %)")
    assert "-0.38 points (6 -> 12)" == by.loc["change from depth 6 to the deepest depth", "paper"]
    assert "twice its standard error" in by.loc["rise from the shallowest depth to depth 6", "rule"]
    bad, _ = _table((0.97, 0.96, 0.95))  # best at the shallowest depth: the paper's shape fails
    b = bad.set_index("statement").holds
    assert b["the peak is at depth 6"] == "no" and b["rise from the shallowest depth to depth 6"] == "no"
    assert b["change from depth 6 to the deepest depth"] == "yes"
    rising, _ = _table((0.95, 0.96, 0.97))  # still rising past depth 6
    assert rising.set_index("statement").holds["change from depth 6 to the deepest depth"] == "no"


def test_table1_vs_paper_names_the_protocol():
    t, _ = _table((0.95, 0.97, 0.96), data="digits", n_train=1297, epochs=50)
    last = t.iloc[-1]
    assert last.holds == "no" and "50 epochs (150 SGD updates) instead of the paper's 500" in last.rule
    assert "inconclusive" in last.rule and last.ours.startswith("digits, 1,297 training images")
    with pytest.raises(InputError, match="sgd_depths must contain 6"):
        _table((0.95, 0.96, 0.97), depths=(1, 3, 4))


def test_glued_values_are_plain_text():
    for g in (OPT.glue_values(_cfg()), OPT.glue_values(_cfg(**PAPER))):
        assert all(isinstance(v, str) and v and "$" not in v for v in g.values()), "glue:text pastes plain text"


def _notebook_cells():
    from pathlib import Path
    import re
    src = (Path(__file__).resolve().parents[2] / "notebooks" / "06_optimization.py").read_text()
    return [(m.group(1) or "", m.group(2)) for m in re.finditer(r"^# %%(.*)\n((?:(?!# %%).*\n?)*)", src, re.M)]


def test_notebook_prose_glues_values_and_every_figure_has_its_caption_line():
    import re
    cells = _notebook_cells()
    params = re.findall(r"^(\w+) *=", next(body for head, body in cells if "parameters" in head), re.M)
    glued = set(OPT.glue_values(_cfg())) | set(OPT.record_glue(dict(mode="read", rec=None, studies={})))
    figures = 0
    for i, (head, body) in enumerate(cells):
        if "[markdown]" in head:
            for key in re.findall(r"\{glue:text\}`(\w+)`", body):
                assert key in glued, key
            prose = re.sub(r"\{glue:text\}`\w+`", "", body)
            assert not [p for p in params if f"`{p}`" in prose], f"a parameter name in prose: {prose[:80]}"
        elif "show(" in body:
            figures += 1
            assert "hide-input" in head, body
            caption = cells[i + 1][1]
            assert f"*Figure 6.{figures}." in caption and f"{{glue:text}}`fig6_{figures}`" in caption
    assert figures == 5
