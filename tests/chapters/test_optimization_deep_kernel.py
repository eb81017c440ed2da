"""[LH] Sec. 5(c) (lib.chapters.optimization.deep_kernel): the rule of check_sec5c at every threshold, on
constructed studies fed to the real check, and the measurement on a tiny real case."""
import numpy as np
import pandas as pd
import pytest

from lib.chapters import optimization as OPT
from lib.chapters.optimization import deep_kernel as DK

DOCUMENTED = dict(KR_RIDGE=1e-12, CHANCE_MARGIN=0.05, KR_SE_MULTIPLE=2.0, KR_DEEP=10_000)
IN, OUT = 0.99, 1.01
SPLITS = 4
#: the per-split offsets: mean 0, sample sd 1 (so a column's sd over splits is the scale it is given)
OFF = np.array([-1.5, -0.5, 0.5, 1.5]) / np.std([-1.5, -0.5, 0.5, 1.5], ddof=1)


def test_the_thresholds_are_the_documented_ones():
    assert {k: getattr(DK, k) for k in DOCUMENTED} == DOCUMENTED


def study(acc, sd=0.01, centred=None, depths=None, splits=SPLITS) -> DK.DeepKernel:
    """A study whose split-mean accuracy at each depth is ``acc`` with split sd ``sd``; ``centred`` likewise
    (default: the chance level, 0.1)."""
    depths = depths or [10 ** i for i in range(len(acc))]
    centred = [0.1] * len(acc) if centred is None else centred
    off = OFF[:splits] - OFF[:splits].mean()
    off = off / np.std(off, ddof=1)
    rows = [dict(depth=L, split=s, accuracy=a + sd * off[s], accuracy_centred=c + sd * off[s], majority_share=0.1,
                 input_part=1.0 / L, offdiag_spread=1.0 / L)
            for L, a, c in zip(depths, acc, centred) for s in range(splits)]
    return DK.DeepKernel(pd.DataFrame(rows), depths, 300, 300, splits)


def status(dk):
    return OPT.check_sec5c(dk).status


def test_holds_fails_and_caveat():
    assert status(study([0.96, 0.9, 0.5, 0.12, 0.1])) == "reproduced"
    flat = study([0.96, 0.96, 0.96, 0.96, 0.96])  # the largest depth is 1e4 = KR_DEEP
    assert status(flat) == "not reproduced"
    assert status(study([0.96, 0.96, 0.96, 0.96])) == "inconclusive"  # deepest 1e3 < KR_DEEP
    c = OPT.check_sec5c(study([0.96, 0.9, 0.5, 0.12, 0.1], centred=[0.96, 0.95, 0.93, 0.92, 0.91]))
    assert c.status == "reproduced with caveat" and "shrunk, not lost" in c.caveat and "91.0%" in c.caveat
    c = OPT.check_sec5c(study([0.96, 0.5, 0.1, 0.3, 0.1]))  # rises from 1e2 to 1e3
    assert c.status == "reproduced with caveat" and "L=[1000]" in c.caveat
    c = OPT.check_sec5c(study([0.96, 0.9, 0.5, 0.4, 0.3]))
    assert c.status == "inconclusive" and "not reached" in c.caveat


def test_vacuous_premise():
    assert status(study([0.96])) == "not checked"
    assert status(study([0.96, 0.1], splits=1)) == "not checked"
    assert OPT.check_sec5c(study([0.96])).measured.startswith("1 depth, ")
    assert OPT.check_sec5c(study([0.96, 0.1], splits=1)).measured == "2 depths, 1 split."


def test_chance_margin_boundary():
    edge = 0.1 + DK.CHANCE_MARGIN
    assert status(study([0.96, 0.5, edge * IN], sd=0.0)) == "reproduced"
    assert status(study([0.96, 0.5, edge * OUT], sd=0.0)) == "inconclusive"
    assert status(study([0.96, 0.5, 0.1], centred=[0.9, 0.5, edge * IN], sd=0.0)) == "reproduced"
    assert status(study([0.96, 0.5, 0.1], centred=[0.9, 0.5, edge * OUT], sd=0.0)) == "reproduced with caveat"


def test_fall_and_rise_against_the_split_spread():
    sd = 0.1
    se2 = np.hypot(sd, sd) / np.sqrt(SPLITS)  # se of a difference of two split means
    d = DK.KR_SE_MULTIPLE * se2
    # the fall from the first to the last depth (deepest 1e4 = KR_DEEP, so no fall is "not reproduced")
    five = lambda last: [last + d * OUT, last, last, last, last]
    assert status(study(five(0.1), sd=sd)) == "reproduced"
    assert status(study([0.1 + d * IN, 0.1, 0.1, 0.1, 0.1], sd=sd)) == "not reproduced"
    # a rise between consecutive depths
    assert status(study([0.9, 0.1, 0.1 + d * IN, 0.1], sd=sd)) == "reproduced"
    assert status(study([0.9, 0.1, 0.1 + d * OUT, 0.1], sd=sd)) == "reproduced with caveat"
    # KR_DEEP: a flat curve at the deepest depth just below it is inconclusive
    assert status(study([0.9, 0.9], depths=[1, DK.KR_DEEP - 1])) == "inconclusive"
    assert status(study([0.9, 0.9], depths=[1, DK.KR_DEEP])) == "not reproduced"


def test_measurement_on_a_tiny_real_case(tmp_path, monkeypatch):
    monkeypatch.setenv("NTK_CACHE_DIR", str(tmp_path))
    cfg = OPT.SPEC.config(kr_depths=[1, 1_000_000], kr_n_train=60, kr_n_test=60, kr_splits=2)
    dk = OPT.measure_deep_kernel(cfg)
    t = OPT.deep_kernel_table(dk)
    assert list(t.index) == [1, 1_000_000] and len(dk.frame) == 4
    assert t.accuracy[1] > 0.7 and t.accuracy[1_000_000] < 0.3   # shallow kernels classify digits, deep ones do not
    assert t.input_part[1_000_000] < 1e-2 < t.input_part[1]
    assert t.offdiag_spread[1_000_000] < 1e-3
    fig = OPT.figure_deep_kernel(dk)
    assert fig["label"] == "fig-opt-deep-kernel" and "60 training" in fig["setting"]


def test_each_statement_row_carries_its_verdict():
    """The rows: near chance at the deepest depth, the fall, and the centred targets (reported, not judged)."""
    ok = OPT.check_sec5c(study([0.96, 0.9, 0.5, 0.12, 0.1]))
    assert [r["holds"] for r in ok.rows[:3]] == [True, True, None]
    flat = OPT.check_sec5c(study([0.96, 0.96, 0.96, 0.96, 0.96]))
    assert [r["holds"] for r in flat.rows[:3]] == [False, False, None]


def test_two_splits_suffice_and_a_rise_after_the_first_depth_is_named():
    assert status(study([0.96, 0.1], splits=2)) != "not checked"
    c = OPT.check_sec5c(study([0.5, 0.96, 0.5, 0.12, 0.1]))   # rises from depth 1 to 10
    assert c.status == "reproduced with caveat" and "L=[10]" in c.caveat
