"""Chapter 03, [LH] Figure 3 on all 60,000 MNIST images under the authors' protocol
(lib.chapters.conditioning.mnist_figure3): the cells, the record, its checks, the verdicts."""
import copy
import json
import math
from pathlib import Path

import numpy as np
import pytest

from lib.book.cache import cache_root
from lib.chapters import conditioning as C
from lib.chapters.conditioning import mnist_figure3 as M
from lib.validation import InputError

DEPTHS = [0, 1, 2, 3]


def test_the_authors_partition_of_60000_images():
    parts = C.authors_partition(60000, 512, 3)
    assert len(parts) == 118 and [len(b) for b in parts[-2:]] == [512, 96]
    assert np.array_equal(np.sort(np.concatenate(parts)), np.arange(60000))
    assert C.partition_text() == "118 batches (117 of 512 and a last one of 96, kept as their DataLoader keeps it)"
    assert C.partition_text(batches=118).endswith("keeps it), all of them read")
    assert C.partition_text(batches=4).endswith("the first 4 of them read")
    assert [len(b) for b in C.first_batches(parts, 2)] == [512, 512] and len(C.first_batches(parts, None)) == 118
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(InputError, match="batches must be a positive integer"):
            C.first_batches(parts, bad)


def test_the_cells_are_batch_only_and_limited_only_when_asked():
    cells = C.mnist_figure3_cells(DEPTHS, 16, 2, batches=3)
    relu = [c for c in cells if c["activation"] == "relu"]
    lin = [c for c in cells if c["activation"] == "linear"]
    assert len(relu) == 2 and all(c["depths"] == DEPTHS for c in relu)  # one cell per seed, every depth
    assert len(lin) == 2 * len(DEPTHS)
    assert all(c["full"] is False and c["batches"] == 3 and c["dataset"] == "mnist" for c in cells)
    # every batch: no "batches" key, so the cells (and their cache keys) are those of the whole protocol
    assert all("batches" not in c for c in C.mnist_figure3_cells(DEPTHS, 16, 2, batches=None))
    assert all("batches" not in c for c in C.mnist_figure3_cells(DEPTHS, 16, 2, batches=118))


def small_cells() -> Path:
    """The tiny protocol's cell cache: a stable folder (``<cache>/tests/conditioning-mnist-small``, beside the book's
    cells in :func:`lib.book.cache.cache_root`), so that a later session (each mutant's test run of
    ``tools/mutate.py``) reuses the measured cells instead of measuring them again; :func:`lib.book.sweep.run_sweep`
    verifies every cell before reuse, and a cell's key holds its parameters, data fingerprint and code version."""
    return cache_root() / "tests" / "conditioning-mnist-small"


@pytest.fixture(scope="module")
def small_record(tmp_path_factory):
    """The protocol at a tiny size (width 16, 2 seeds, 2 batches of 512 per seed), measured (cells reused from
    :func:`small_cells`) and recorded."""
    base = tmp_path_factory.mktemp("mnistfig3")
    mp = pytest.MonkeyPatch()
    mp.setenv("NTK_CACHE_DIR", str(small_cells()))
    proto = C.AuthorsFigure3(tuple(DEPTHS), 16, 2, 512, 2)
    rec = C.record_mnist_figure3(proto, record_dir=base / "records")
    built = C.measure_mnist_figure3(DEPTHS, 16, 2, batches=2, progress=False)
    mp.undo()
    return base / "records", rec, built


def test_a_build_and_its_record_hold_the_same_numbers(small_record):
    records, rec, built = small_record
    read = C.read_mnist_record(records)
    assert read.source == "record" and built.source == "build" and read.batches == built.batches == 2
    assert "depths L = 0 to 3 (the paper: 0 to 10)" in C.mnist_figure3_deviations(read)  # from PAPER_FIGURE3
    assert rec["command"] == ("python -m lib.chapters.conditioning --record --seeds 2 --width 16 --batch-size 512 "
                              "--depths 0 1 2 3 --batches 2")
    a = read.sweep.summary.set_index(["activation", "depth"]).kappa_batch_mean
    b = built.sweep.summary.set_index(["activation", "depth"]).kappa_batch_mean
    np.testing.assert_array_equal(a.sort_index(), b.sort_index())
    # at depth 0 both networks are the linear model: the same kappa, that of X_b X_b^T
    assert a["relu", 0] == pytest.approx(a["linear", 0], rel=1e-9)
    assert np.isfinite(a).all() and (a >= 1).all()
    assert C.read_mnist_record(records.parent / "nowhere") is None


def _good(small_record) -> dict:
    return copy.deepcopy(small_record[1])


@pytest.mark.parametrize("edit,match", [
    (lambda r: r["rows"].append(dict(r["rows"][0])), r"repeats the case \('linear', 0, 0\) of rows\[0\]: two rows "
                                                     "of one case are a conflict"),
    (lambda r: r["rows"].pop(), "lacks 1 case"),
    (lambda r: r["rows"][0].update(n_batches=118), "the protocol reads 2 batches per seed"),
    (lambda r: r["rows"][0].update(kappa_batch=0.5), r"not a condition number >= 1 \(null: infinite\)"),
    (lambda r: r["rows"][0].update(seed=2), r"outside the protocol"),
    (lambda r: r["rows"][0].update(depth=1.0), "not an integer"),
    (lambda r: r["rows"][0].update(n_batches=True), "not an integer"),
    (lambda r: r["rows"][0].update(activation="tanh"), r"outside the protocol"),
    (lambda r: r["rows"][0].update(min_angle_batch=4.0), r"not an angle in \[0, pi\]"),
    (lambda r: r.update(partition=117), "but 60,000 images in batches of 512 make 118"),
    (lambda r: r["protocol"].update(batches=118), r"not null \(all\) or a number of batches below 118"),
    (lambda r: r["data"].update(n=5000), "is not MNIST's 60,000 x 784 training images"),
    (lambda r: r["protocol"].update(depths=[0, 0]), "not a list of distinct depths"),
    (lambda r: r.pop("commit"), "'commit' is missing"),
])
def test_a_record_is_checked_field_by_field(small_record, tmp_path, edit, match):
    rec = _good(small_record)
    assert C.check_mnist_record(copy.deepcopy(rec), tmp_path / "r.json")  # counterfactual: the intact one passes
    edit(rec)
    (tmp_path / M.RECORD_NAME).write_text(json.dumps(rec))
    with pytest.raises(InputError, match=f"the record {tmp_path / M.RECORD_NAME}: field .*{match}"):
        C.read_mnist_record(tmp_path)


def test_an_unreadable_record_names_the_file(tmp_path):
    (tmp_path / M.RECORD_NAME).write_text("{oops")
    with pytest.raises(InputError, match=f"the record {tmp_path / M.RECORD_NAME} is not valid JSON"):
        C.read_mnist_record(tmp_path)


def _record(tmp_path, relu, linear, batches=None, seeds=2, width=512, name="r"):
    """A record of the whole protocol (or ``batches`` per seed) whose seed-mean kappas are ``relu`` and ``linear``
    by depth (depths 0..len-1; None: infinite), read back as a result."""
    depths = list(range(len(relu)))
    total = 118
    rows = [dict(activation=a, depth=L, seed=s, kappa_batch=None if k is None else k * (1 + (s - 0.5) * 0.01),
                 n_batches=total if batches is None else batches, min_angle_batch=0.5, seconds=1.0)
            for a, ks in (("relu", relu), ("linear", linear)) for L, k in enumerate(ks) for s in range(seeds)]
    rec = dict(protocol=dict(depths=depths, width=width, seeds=seeds, batch_size=512, batches=batches),
               partition=total, data=dict(name="mnist", n=60000, d=784), rows=rows, compute_seconds=60.0,
               command="python -m lib.chapters.conditioning --record", commit="abc", recorded="today",
               load_start=1.0, load_end=2.0)
    d = tmp_path / name
    d.mkdir()
    (d / M.RECORD_NAME).write_text(json.dumps(rec))
    return C.read_mnist_record(d)


FULL_DEPTHS = 11
FALLS = [1e8] + [1e5 / (L + 1) for L in range(1, FULL_DEPTHS)]
LINEAR = [1e8] * FULL_DEPTHS


def test_the_record_of_the_whole_protocol_is_judged_as_the_paper(tmp_path):
    rec = _record(tmp_path, FALLS, LINEAR, seeds=5)
    assert not C.mnist_figure3_deviations(rec)
    kappa, depth = C.check_figure3_mnist(C.MnistFigure3Run(None, rec))
    assert kappa.part == "ReLU vs linear kappa, MNIST (60,000)" and kappa.status == "reproduced"
    assert depth.part == "kappa decreases with depth, MNIST (60,000)" and depth.status == "reproduced"
    assert depth.measured.startswith("MNIST (60,000 training images), the authors' protocol, record (118 of 118 "
                                     "batches per seed) (5 seeds, width 512, batches of 512): ")
    assert depth.rows[0]["statement"].startswith("MNIST (60,000), record (118 of 118 batches per seed): ")
    # counterfactual: a ReLU kappa that rises with depth is not reproduced, on the authors' protocol
    up = _record(tmp_path, FALLS[:1] + FALLS[1:][::-1], LINEAR, seeds=5, name="up")
    assert C.check_figure3_mnist(C.MnistFigure3Run(None, up))[1].status == "not reproduced"
    # and one above the linear network's is not reproduced either
    above = _record(tmp_path, FALLS, [1e8] + [10.0] * (FULL_DEPTHS - 1), seeds=5, name="above")
    assert C.check_figure3_mnist(C.MnistFigure3Run(None, above))[0].status == "not reproduced"


def test_a_reduced_run_passes_with_its_caveat_and_never_fails(tmp_path):
    """Fewer batches than the authors' (or other sizes): a pass is 'with caveat', a failure 'inconclusive', each
    naming the departure; the record, when there is one, is judged instead."""
    good = _record(tmp_path, FALLS, LINEAR, batches=4, seeds=5, name="good")
    kappa, depth = C.check_figure3_mnist(C.MnistFigure3Run(good, None))
    assert depth.status == "reproduced with caveat" and "4 of the 118 batches" in depth.caveat
    bad = _record(tmp_path, FALLS[:1] + FALLS[1:][::-1], LINEAR, batches=4, seeds=5, name="bad")
    fail = C.check_figure3_mnist(C.MnistFigure3Run(bad, None))[1]
    assert fail.status == "inconclusive" and fail.caveat.startswith("not the authors' protocol: 4 of the 118")
    narrow = _record(tmp_path, FALLS, LINEAR, seeds=5, width=64, name="narrow")
    assert C.check_figure3_mnist(C.MnistFigure3Run(narrow, None))[1].caveat == "width m = 64 (the paper: 512)"
    # a record of the whole protocol decides, whatever the reduced build says
    full = _record(tmp_path, FALLS, LINEAR, seeds=5, name="full")
    assert C.check_figure3_mnist(C.MnistFigure3Run(bad, full))[1].status == "reproduced"
    g = C.glue_mnist_figure3(C.MnistFigure3Run(bad, full, 4))
    assert "record" in g["mnist_judged"] and "reduced" not in g["mnist_judged"]
    assert g["mnist_build"].startswith("this build read the first 4 of the 118 batches of each seed's partition "
                                       "(the parameter mnist_batches, now 4; None reads all)")
    assert "read all 118 batches of each of its 5 seeds" in g["mnist_record"]
    # a build of the whole protocol stands for itself
    up = _record(tmp_path, FALLS[:1] + FALLS[1:][::-1], LINEAR, seeds=5, name="up2")
    run = C.MnistFigure3Run(full, up)
    assert run.judged is full and C.check_figure3_mnist(run)[1].status == "reproduced"
    assert [r.source for r in run.shown] == ["record", "record"] and run.shown[0] is up


def test_the_section_measures_the_build_as_asked_and_reads_the_record(tmp_path, monkeypatch):
    cfg = C.SPEC.config(mnist_batches=0)
    run = C.measure_mnist_section(cfg, record_dir=tmp_path)
    assert run.build is None and run.record is None and run.shown == [] and run.judged is None
    monkeypatch.setattr(M, "measure_mnist_figure3", lambda *a, **k: ("measured", a, k))
    run = C.measure_mnist_section(C.SPEC.config(mnist_batches=3, width=16, seeds=2), record_dir=tmp_path)
    assert run.build[0] == "measured" and run.build[2]["batches"] == 3 and run.build[1][1:] == (16, 2)
    assert run.mnist_batches == 3


def test_nothing_measured_is_not_checked_and_names_the_command(tmp_path):
    for c in C.check_figure3_mnist(C.MnistFigure3Run(None, None)):
        assert c.status == "not checked" and "python -m lib.chapters.conditioning --record" in c.caveat
    g = C.glue_mnist_figure3(C.MnistFigure3Run(None, None, 0))
    assert "mnist_batches is 0" in g["mnist_build"] and "no record yet" in g["mnist_record"]
    assert not any("--" in v or "`" in v for v in g.values())  # plain text: smartquotes would turn -- into a dash


def test_an_infinite_kappa_is_drawn_and_tabled_as_infinite(tmp_path):
    rec = _record(tmp_path, [None] + FALLS[1:], [None] * FULL_DEPTHS, seeds=5)
    tab = C.table_mnist_figure3(C.MnistFigure3Run(None, rec))
    assert math.isinf(tab.iloc[0, 0]) and math.isinf(tab.iloc[5, 1])
    fig = C.plot_mnist_figure3(C.MnistFigure3Run(None, rec))
    assert fig.axes[0].get_yscale() == "log"
    kappa = C.check_figure3_mnist(C.MnistFigure3Run(None, rec))[0]
    assert kappa.status == "not checked"  # the linear kappa is infinite everywhere: not testable
    setting = C.setting_figure3_mnist(C.MnistFigure3Run(None, rec))
    assert setting.startswith("Setting: MNIST's 60,000 training images")


def test_command_line_refuses_bad_arguments_with_one_line(capsys):
    for argv, match in ((["--record", "--seeds", "0"], "--seeds must be an integer >= 1"),
                        (["--record", "--depths", "1", "1"], "--depths must be distinct"),
                        (["--record", "--batches", "0"], "--batches must be an integer >= 1")):
        with pytest.raises(SystemExit) as exc:
            M.main(argv)
        err = capsys.readouterr().err.strip()
        assert exc.value.code == 2 and err.count("\n") == 0 and match in err
