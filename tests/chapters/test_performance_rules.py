"""Chapter 07's verdict rules, pinned at every threshold.

The three targets are the book's own (claims "Performance: ..."): each is fed constructed benchmark rows
through the real ``check_*``, at the target, just above and below it, and at the edge of its noise band
(built from the documented values, :data:`DOCUMENTED`, which the module constants must equal); the
full-data records are checked as data at the edge of every field's range.
"""
import copy
import json
import math
from pathlib import Path

import numpy as np
import pytest

from lib.chapters import performance
from lib.chapters.performance import recorded as REC
from lib.chapters.performance import targets as T
from lib.validation import InputError
from tests.chapters.test_performance import rows, run

DOCUMENTED = dict(TARGET_SIZE=(512, 512, 10), SPEEDUP_TARGET=100, MEMORY_TARGET=10, THROUGHPUT_TARGET=0.5,
                  TIMING_RTOL=0.2, MEMORY_RTOL=0.1)
D = DOCUMENTED
IN, OUT = 0.99, 1.01
OURS_S, OURS_MB, MATMUL = 0.1, 10.0, 8.0   # what rows() gives ours and the plain matmul


def test_the_thresholds_are_the_documented_ones():
    assert {k: getattr(T, k) for k in DOCUMENTED} == DOCUMENTED


def levels(target, rtol):
    """(ratio, status) at the target, just above and below it, and just inside and outside the noise band."""
    edge = target / (1 + rtol)
    return [(target, "reproduced"), (target * OUT, "reproduced"), (target * IN, "reproduced with caveat"),
            (edge * OUT, "reproduced with caveat"), (edge * IN, "not reproduced")]


@pytest.mark.parametrize("ratio,status", levels(D["SPEEDUP_TARGET"], D["TIMING_RTOL"]))
def test_speedup_levels(ratio, status):
    c = performance.check_speedup(run(rows(jac_s=ratio * OURS_S)))
    assert c.status == status and ("noise" in c.caveat) == status.endswith("caveat")


@pytest.mark.parametrize("ratio,status", levels(D["MEMORY_TARGET"], D["MEMORY_RTOL"]))
def test_memory_levels(ratio, status):
    c = performance.check_memory(run(rows(jac_mb=ratio * OURS_MB)))
    assert c.status == status and ("noise" in c.caveat) == status.endswith("caveat")


@pytest.mark.parametrize("ratio,status", levels(D["THROUGHPUT_TARGET"], D["TIMING_RTOL"]))
def test_throughput_levels(ratio, status):
    c = performance.check_throughput(run(rows(ours_gflops=ratio * MATMUL)))
    assert c.status == status and ("noise" in c.caveat) == status.endswith("caveat")


@pytest.mark.parametrize("size", [dict(n=256), dict(width=256), dict(depth=5)])
def test_each_part_of_the_target_size_matters(size):
    n, width, depth = size.get("n", 512), size.get("width", 512), size.get("depth", 10)
    bench = run(rows(n=n, width=width, depth=depth), target_n=n, target_depth=depth)
    for check in (performance.check_speedup, performance.check_memory, performance.check_throughput):
        c = check(bench)
        assert c.status == "not checked" and c.caveat == c.measured
    at = run(rows())
    assert {check(at).status for check in (performance.check_speedup, performance.check_memory,
                                            performance.check_throughput)} == {"reproduced"}


def test_not_checked_when_ours_did_not_run():
    df = rows()
    df.loc[df.method == "ours", ["status", "seconds", "peak_mb", "gflops"]] = ["skipped", np.nan, np.nan, np.nan]
    for check in (performance.check_speedup, performance.check_memory, performance.check_throughput):
        c = check(run(df))
        assert c.status == "not checked" and "Not measured" in c.caveat


# ---------------------------------------------------------------- records as data, at each field's edge
GOOD = dict(n=2, depth=0, width=1, in_dim=1, min_angle=0.0, lambda_max=1.0, lambda_max_low=1.0,
            lambda_max_high=1.0, kappa_low=1.0, kappa_high=math.inf, lambda_min_mode="certified", seconds=0.0,
            peak_gib=0.0, load_start=0.0, load_end=0.0, cpus=1, command="python -m x", commit="abc",
            recorded="now", date="today", t_angle_scan=0.0, shift=None, lambda_min_low=0.0, lambda_min=1.0,
            lambda_min_high=1.0, singular=False)
#: a consistent exact record: kappa = lambda_max / lambda_min = 2
EXACT = dict(GOOD, lambda_min_mode="exact", lambda_max=2.0, lambda_max_low=2.0, lambda_max_high=2.0, kappa_low=2.0,
             kappa_high=2.0, lambda_min_low=1.0)


def test_a_record_at_every_lower_edge_is_accepted():
    assert REC.check_record(copy.deepcopy(GOOD), Path("r.json")) == GOOD
    assert REC.check_record(dict(GOOD, min_angle=math.pi, kappa_low=None, kappa_high=None, singular=True),
                            Path("r.json"))
    assert REC.check_record(copy.deepcopy(EXACT), Path("r.json"))


@pytest.mark.parametrize("field,value", [
    ("n", 1), ("depth", -1), ("width", 0), ("in_dim", 0), ("cpus", 0), ("n", True), ("n", 2.0),
    ("min_angle", -1e-12), ("min_angle", math.pi * OUT), ("lambda_max", math.inf), ("lambda_max", -1e-12),
    ("kappa_low", IN), ("kappa_high", math.nan), ("seconds", -1e-12), ("t_angle_scan", -1e-12),
    ("t_angle_scan", math.inf), ("shift", math.nan), ("command", " "), ("lambda_max_high", 1.0 * IN),
    ("lambda_max_low", 1.0 * OUT)])
def test_a_record_just_past_an_edge_is_refused(field, value):
    with pytest.raises(InputError, match="the record r.json"):
        REC.check_record(dict(GOOD, **{field: value}), Path("r.json"))


def test_a_reversed_kappa_interval_is_refused_and_an_equal_one_accepted():
    assert REC.check_record(copy.deepcopy(EXACT), Path("r.json"))
    with pytest.raises(InputError, match="reversed"):
        REC.check_record(dict(EXACT, kappa_high=2.0 * IN), Path("r.json"))
    with pytest.raises(InputError, match="not an object"):
        REC.check_record([GOOD], Path("r.json"))


# ---------------------------------------------------------------- a record's fields against each other
@pytest.mark.parametrize("change,match", [
    (dict(lambda_min_low=-5.0), r"lambda_min_low = -5.0 < 0 with singular: false"),
    (dict(lambda_min_low=-1e-300), ".* < 0 with singular: false"),
    (dict(singular="no"), "field 'singular' must be true or false"),
    (dict(singular=True), r"a singular kernel has kappa = infinity"),
    (dict(lambda_min_low=2.0), r"lambda_min_low <= lambda_min <= lambda_min_high fails"),
    (dict(lambda_min=1.0 * OUT), r"lambda_min_low <= lambda_min <= lambda_min_high fails"),
    (dict(lambda_min_high=None), "the lambda_min interval .* has a missing end"),
    (dict(lambda_min_high=math.nan), "field 'lambda_min_high' must be a finite number or null"),
    (dict(lambda_min_high=1.5, lambda_min=1.5, kappa_low=1.0), "lambda_min_high = 1.5 exceeds lambda_max_high"),
    (dict(kappa_low=1.0 * OUT), r"field 'kappa_low' = .* does not follow from its eigenvalues"),
    (dict(kappa_high=1e6), r"field 'kappa_high' = 1000000.0 does not follow"),
    (dict(data="cifar"), "field 'data' must be one of"),
    (dict(data="mnist"), "an MNIST case has in_dim 784"),
])
def test_a_record_whose_fields_contradict_each_other_is_refused(change, match):
    with pytest.raises(InputError, match=f"the record r.json: {match}"):
        REC.check_record(dict(GOOD, **change), Path("r.json"))


def test_the_cross_checks_hold_at_their_edges():
    """Counterparts: the same fields, consistent, are accepted (a negative lower bound of a singular kernel; kappa
    within the relative tolerance of its quotient; an exact point; MNIST at 784 pixels)."""
    ok = [dict(GOOD, lambda_min_low=-1.0, singular=True, kappa_low=None, kappa_high=None),
          dict(GOOD, kappa_low=1.0 * (1 + REC.RECORD_RTOL / 2)),
          dict(GOOD, kappa_high=None), dict(EXACT), dict(GOOD, data="mnist", in_dim=784, n=60000),
          dict(GOOD, lambda_min_low=0.5, kappa_high=2.0)]
    for row in ok:
        assert REC.check_record(row, Path("r.json")) is row
    with pytest.raises(InputError, match="does not follow"):
        REC.check_record(dict(GOOD, kappa_low=1.0 * (1 + 2 * REC.RECORD_RTOL)), Path("r.json"))
    with pytest.raises(InputError, match="does not follow"):
        REC.check_record(dict(EXACT, kappa_low=2.0 * (1 + 2 * REC.RECORD_RTOL), kappa_high=2.0 * (1 + 2 * REC.RECORD_RTOL)),
                         Path("r.json"))


# ---------------------------------------------------------------- the verdict texts, pinned


def golden_cases() -> dict:
    """One constructed benchmark per branch of every target check; their full verdicts are pinned in a golden file."""
    skipped = rows()
    ours = skipped.method == "ours"
    skipped.loc[ours, ["status", "seconds", "peak_mb", "gflops"]] = ["skipped", np.nan, np.nan, np.nan]
    benches = {"at target": run(rows()), "caveat": run(rows(jac_s=9.0, jac_mb=95.0, ours_gflops=3.6)),
               "fails": run(rows(jac_s=5.0, jac_mb=50.0, ours_gflops=2.0)),
               "off size": run(rows(n=256), target_n=256), "jacobian skipped": run(rows(jac_status="skipped")),
               "no jacobian": run(rows().query("method != 'jacobian'"), methods=("ours", "ntk_vp")),
               "not benchmarked": run(rows(), target_n=1024), "ours skipped": run(skipped)}
    out = {}
    for name, bench in benches.items():
        for check in (performance.check_speedup, performance.check_memory, performance.check_throughput):
            c = check(bench)
            out[f"{check.__name__} {name}"] = dict(claim=c.claim_id, status=c.status, part=c.part, caveat=c.caveat,
                                                   measured=c.measured)
    return out


def test_the_verdict_texts_are_pinned():
    """The full verdict of every branch as a reader sees it. After a deliberate change of wording, regenerate
    with ``NTK_REGEN_GOLDEN=1`` and review the diff."""
    from chapter_fakes.golden import assert_golden
    assert_golden("performance_checks", golden_cases())


def test_a_ratio_at_exactly_the_noise_edge_is_a_caveat():
    """ratio (1 + rtol) == target exactly: still within the noise (a flipped >= fails here)."""
    jac_mb, gflops = 90.9090909090909, 3.3333333333333335   # ratio 100/11 and fraction 5/12, to the last bit
    assert (jac_mb / OURS_MB) * (1 + D["MEMORY_RTOL"]) == D["MEMORY_TARGET"]
    assert (gflops / MATMUL) * (1 + D["TIMING_RTOL"]) == D["THROUGHPUT_TARGET"]
    assert performance.check_memory(run(rows(jac_mb=jac_mb))).status == "reproduced with caveat"
    assert performance.check_throughput(run(rows(ours_gflops=gflops))).status == "reproduced with caveat"
