"""Chapter 06's paper-protocol record: the command, its pieces (written, verified before reuse, resumed, spread over
several runs), the record read back whole or partial and cross-checked against its own grid and runs, the chapter's
studies and text, and the command line's refusals (one line, exit status 2)."""
import json
import re
import time
from pathlib import Path

import numpy as np
import pytest

from lib.book.cache import SweepError, cache_root
from lib.chapters import optimization as OPT
from lib.chapters.optimization import paper_record as PR
from lib.chapters.optimization import record_files as RF
from lib.validation import InputError

#: a tiny MNIST-5k protocol: depths 1, 3, 6, 12 of the protocol's; the coarse grid 1, 4, 1e4 (1e4 diverges)
TINY = ["--record", "--data", "mnist_5k", "--depths", "1", "3", "6", "12", "--epochs", "3", "--search-epochs", "2",
        "--width", "8", "--lrs", "1", "4", "1e4"]
TINY_PROTOCOL = PR.PAPER_SGD_5K._replace(epochs=3, search_epochs=2, width=8, lrs=(1.0, 4.0, 1e4))


def tiny_cells() -> Path:
    """The tiny case's cell cache: a stable folder (``<cache>/tests/optimization-tiny-record``, beside the book's cells
    in :func:`lib.book.cache.cache_root`), so that a later session (each mutant's test run of ``tools/mutate.py``)
    reuses the trained cells instead of training them again (fixture setup 54.7 s -> 1.15 s under load);
    :func:`lib.book.sweep.run_sweep` verifies every cell before reuse, and a cell's key holds its parameters, data
    fingerprint and code version (``paper_record.VERSION``)."""
    return cache_root() / "tests" / "optimization-tiny-record"


@pytest.fixture(scope="module")
def tiny_record(tmp_path_factory):
    """A tiny case written by the command line in two pieces (seed 0, then seeds 1 and 2; own folder), its cells
    trained once and reused from :func:`tiny_cells`."""
    d = tmp_path_factory.mktemp("rec")
    mp = pytest.MonkeyPatch()
    mp.setenv("NTK_CACHE_DIR", str(tiny_cells()))
    assert PR.main(TINY + ["--seeds", "0", "--record-dir", str(d)]) == 0
    assert PR.main(TINY + ["--seeds", "1", "2", "--record-dir", str(d)]) == 0
    mp.undo()
    return d


def folder(d):
    return d / PR.RECORD_FOLDERS["mnist_5k"]


def test_each_piece_is_its_own_file(tiny_record):
    names = sorted(p.name for p in folder(tiny_record).glob("*.json"))
    assert names == sorted([RF.search_piece_name(L) for L in (1, 3, 6, 12)]
                           + [RF.run_piece_name(L, s) for L in (1, 3, 6, 12) for s in range(3)])
    piece = RF.read_piece(folder(tiny_record) / RF.run_piece_name(3, 1))
    assert piece["kind"] == "run" and piece["run"]["seed"] == 1 and piece["protocol"]["precision"] == "fp32"
    assert piece["command"].endswith("--seeds 1 2 --record-dir " + str(tiny_record))
    assert piece["data"]["name"] == "MNIST-5k" and piece["data"]["n_train"] == 4000


def test_the_command_writes_a_record_that_reads_back(tiny_record):
    rec = PR.read_sgd_record("mnist_5k", tiny_record)
    assert rec["data"]["updates_per_epoch"] == 8 and rec["data"]["pixels"] == "[-1, 1] x sqrt(2/784)"
    assert len(rec["runs"]) == 4 * 3 and all(len(r["train_loss"]) == 4 for r in rec["runs"])
    assert rec["missing"].startswith("no rate search at depths 2, 4, 5, 7, 8, 9, 10")
    assert "(12 of 33 runs recorded)" in rec["missing"]
    for L, g in rec["grid"].items():
        assert all((v is None) == (e >= 0) for v, e in zip(g["late_loss"], g["diverged_epoch"]))
        scores = {lr: v for lr, v in zip(g["lrs"], g["late_loss"]) if v is not None}
        assert rec["chosen_lr"][L] == min(scores, key=scores.get)
        # refined: the rates a factor sqrt 2 from the best coarse rate, where the grid was coarser
        assert g["refined"] and set(g["refined"]) == set(g["lrs"]) - {1.0, 4.0, 1e4}
    assert rec["chosen_lr"]["1"] == 4 * 2 ** 0.5 and OPT.rate_gaps(rec["grid"]["1"]["lrs"], 4 * 2 ** 0.5) == (2 ** 0.5, 1e4 / 4 / 2 ** 0.5)
    # one round of refinement: on this grid (not powers of 2) 4 sqrt 2 still has 1e4 above it; at depth 3 a net of
    # width 8 dies at any rate and 7071 wins by 1e-5: both named as a grid too coarse to judge
    assert OPT.coarse_rates(PR.record_studies(rec)["Table 1"]) == [1, 3]
    st = PR.record_studies(rec)
    assert set(st) == {"Figure 4", "Table 1"}
    assert st["Figure 4"].depths == [1, 3, 6] and st["Table 1"].depths == [1, 3, 6, 12]
    assert st["Table 1"].recorded.startswith("`python -m lib.chapters.optimization --record --data mnist_5k")
    assert "3 pieces" not in st["Table 1"].recorded and "pieces)" in st["Table 1"].recorded
    assert st["Table 1"].part == st["Figure 4"].part == PR.RECORD_PARTS["mnist_5k"]
    c = OPT.check_depth_speed(st["Figure 4"])
    assert c.status == "inconclusive" and "3 epochs" in c.caveat and "first 2 of the 3 epochs" in c.caveat
    assert "a partial record: no rate search at depths 2, 4, 5" in c.caveat
    assert c.part == PR.RECORD_PARTS["mnist_5k"] and c.rows[-1]["holds"] is False


def test_a_rerun_reuses_the_verified_pieces(tiny_record, tmp_path, monkeypatch):
    monkeypatch.setenv("NTK_CACHE_DIR", str(tmp_path / "empty-cache"))   # nothing cached: only the pieces
    monkeypatch.setattr(PR, "run_sweep", lambda *a, **k: pytest.fail("a piece at hand was recomputed"))
    before = {p.name: p.read_bytes() for p in folder(tiny_record).glob("*.json")}
    rec = PR.measure_sgd_case(TINY_PROTOCOL, depths=[1, 3, 6, 12], record_dir=tiny_record)
    assert {p.name: p.read_bytes() for p in folder(tiny_record).glob("*.json")} == before
    assert rec["runs"] == PR.read_sgd_record("mnist_5k", tiny_record)["runs"]


def test_an_interrupted_piece_resumes_from_the_cache(tiny_record, tmp_path, monkeypatch):
    """The pieces' cells stay in the sweep cache: with the pieces gone, a rerun writes them again without training."""
    monkeypatch.setenv("NTK_CACHE_DIR", str(tiny_cells()))
    monkeypatch.setattr(PR, "sgd_record_cell", lambda *a, **k: pytest.fail("a cached cell was trained again"))
    for name in (RF.search_piece_name(6), RF.run_piece_name(6, 0)):
        (tmp_path / PR.RECORD_FOLDERS["mnist_5k"]).mkdir(exist_ok=True)
        (tmp_path / PR.RECORD_FOLDERS["mnist_5k"] / name).write_bytes((folder(tiny_record) / name).read_bytes())
    t0 = time.perf_counter()
    rec = PR.measure_sgd_case(TINY_PROTOCOL, depths=[6], seeds=[0, 1], record_dir=tmp_path)
    assert time.perf_counter() - t0 < 60
    assert [r["seed"] for r in rec["runs"]] == [0, 1]
    want = PR.read_sgd_record("mnist_5k", tiny_record)["runs"]
    assert [r for r in rec["runs"]] == [r for r in want if r["depth"] == 6 and r["seed"] < 2]


def _copy(tiny_record, tmp_path, edit_piece=None, name=None):
    d = tmp_path / PR.RECORD_FOLDERS["mnist_5k"]
    d.mkdir()
    for p in folder(tiny_record).glob("*.json"):
        (d / p.name).write_bytes(p.read_bytes())
    if edit_piece is not None:
        piece = json.loads((d / name).read_text())
        edit_piece(piece)
        RF.write_piece(d / name, piece)   # a consistent checksum: the content checks must catch it
    return d


@pytest.mark.parametrize("name,edit,field", [
    (RF.search_piece_name(3), lambda p: p.update(chosen_lr=999.0), "chosen_lr"),
    (RF.search_piece_name(3), lambda p: p["grid"].update(lrs=p["grid"]["lrs"][::-1]), "grid.lrs"),
    (RF.search_piece_name(3), lambda p: p["grid"]["late_loss"].pop(), "grid"),
    (RF.run_piece_name(3, 1), lambda p: p["run"].update(lr=-1), "run.lr"),
    (RF.run_piece_name(3, 1), lambda p: p["run"].update(train_loss=[1.0]), "run.train_loss"),
    (RF.run_piece_name(3, 1), lambda p: p["run"].update(test_acc=1.5), "run.test_acc"),
    (RF.run_piece_name(3, 1), lambda p: p["run"].update(seed=7), "run.seed"),
    (RF.run_piece_name(3, 1), lambda p: p["protocol"].update(epochs=1.5), "protocol.epochs"),
    (RF.run_piece_name(3, 1), lambda p: p.pop("commit"), "commit"),
])
def test_a_damaged_piece_is_refused_naming_file_and_field(tiny_record, tmp_path, name, edit, field):
    d = _copy(tiny_record, tmp_path, edit, name)
    with pytest.raises(InputError, match=re.escape(f"{d / name}: field '{field}'")):
        PR.read_sgd_record("mnist_5k", tmp_path)


def test_a_run_of_another_rate_than_its_depths_choice_is_refused(tiny_record, tmp_path):
    name = RF.run_piece_name(3, 1)
    d = _copy(tiny_record, tmp_path, lambda p: p["run"].update(lr=p["run"]["lr"] * 2), name)
    with pytest.raises(InputError, match=re.escape(f"{d / name}: field 'run.lr'") + ".*but search_depth03.json chose"):
        PR.read_sgd_record("mnist_5k", tmp_path)


def test_an_edited_piece_fails_its_checksum(tiny_record, tmp_path):
    d = _copy(tiny_record, tmp_path)
    p = d / RF.run_piece_name(1, 0)
    p.write_text(p.read_text().replace('"seed": 0', '"seed": 0 ', 1).replace('"diverged": false', '"diverged": true'))
    with pytest.raises(InputError, match=re.escape(f"{p}: field 'checksum'")):
        PR.read_sgd_record("mnist_5k", tmp_path)


def test_pieces_of_two_protocols_conflict(tiny_record, tmp_path):
    d = _copy(tiny_record, tmp_path, lambda p: p["protocol"].update(width=16), RF.run_piece_name(12, 2))
    with pytest.raises(InputError, match=r"conflict: their protocol differs in 'width'"):
        PR.read_sgd_record("mnist_5k", tmp_path)
    with pytest.raises(InputError, match="was written under another protocol"):
        PR.measure_sgd_case(TINY_PROTOCOL._replace(epochs=4), depths=[1], seeds=[0], record_dir=tmp_path)


def test_a_single_file_and_pieces_are_two_records_of_one_case(tiny_record, tmp_path):
    _copy(tiny_record, tmp_path)
    (tmp_path / PR.RECORD_NAME).write_text((PR.RECORD_DIR / PR.RECORD_NAME).read_text())
    with pytest.raises(InputError, match="two records of the MNIST-5k case"):
        PR.read_sgd_record("mnist_5k", tmp_path)


# ---------------------------------------------------------------- the single-file MNIST-5k record, cross-checked
def _single(tmp_path, edit):
    rec = json.loads((PR.RECORD_DIR / PR.RECORD_NAME).read_text())
    edit(rec)
    (tmp_path / PR.RECORD_NAME).write_text(json.dumps(rec))
    return tmp_path / PR.RECORD_NAME


def test_the_committed_record_reads_as_the_whole_case_in_float32_unrefined():
    rec = PR.read_sgd_record("mnist_5k")
    assert rec["missing"] == "" and rec["protocol"]["precision"] == "fp32" and rec["protocol"]["refine"] is False
    assert rec["data"]["name"] == "MNIST-5k" and len(rec["runs"]) == 33


@pytest.mark.parametrize("edit,field", [
    (lambda r: r["chosen_lr"].update({"3": 999}), "chosen_lr.3"),               # not a rate of the grid
    (lambda r: r["chosen_lr"].update({"3": 0.5}), "chosen_lr.3"),               # in the grid, not the best
    (lambda r: r["runs"][4].update(lr=64.0), "runs[4].lr"),                      # not its depth's chosen rate
    (lambda r: r["runs"].append(dict(r["runs"][0])), "runs[33]"),                # a (depth, seed) twice
    (lambda r: r["grid"].pop("3"), "chosen_lr"),
    (lambda r: r.pop("commit"), "commit"),
    (lambda r: r["protocol"].update(epochs=1.5), "protocol.epochs"),
    (lambda r: r["protocol"].update(depths=[1, True]), "protocol.depths"),
    (lambda r: r["runs"][0].update(train_loss=[1.0]), "runs[0].train_loss"),
    (lambda r: r["runs"][1].update(test_acc=1.5), "runs[1].test_acc"),
    (lambda r: r["runs"][1].update(depth=7, seed=2, lr=16.0), "runs["),          # (7, 2) twice
    (lambda r: r["runs"].pop(), "runs"),
])
def test_a_damaged_single_record_is_refused_naming_file_and_field(tmp_path, edit, field):
    path = _single(tmp_path, edit)
    with pytest.raises(InputError, match=re.escape(f"{path}: field '{field}") + ("'" if "[" != field[-1] else "")):
        PR.read_sgd_record("mnist_5k", tmp_path)


def test_not_json_and_missing(tmp_path):
    assert PR.read_sgd_record("mnist_5k", tmp_path) is None and PR.read_sgd_record("mnist", tmp_path) is None
    (tmp_path / PR.RECORD_NAME).write_text("{ not json")
    with pytest.raises(InputError, match="is not valid JSON"):
        PR.read_sgd_record("mnist_5k", tmp_path)
    case = PR.sgd_record_case("read", data="mnist", record_dir=tmp_path / "none")
    assert case.studies == {} and case.figure4 is None
    src = PR.glue_record(case, "mnist")["mnist_source"]
    assert "missing" in src and "`python -m lib.chapters.optimization --record --seeds 0`" in src
    g = PR.glue_record(case, "mnist")  # no record: the declared protocol, nothing measured
    assert g["mnist_data"].startswith("all of MNIST") and "60,000 training images" in g["mnist_data"]
    assert g["mnist_protocol"].startswith("width 512, cross-entropy, plain SGD with batch 500, 500 epochs, 3 seeds")
    assert "bfloat16" in g["mnist_protocol"] and "refined" in g["mnist_search"]
    assert g["mnist_search"].endswith("Chosen rates: none yet (no record)")
    assert g["mnist_deviations"] == "No deviation is judged yet: nothing is measured."
    g5 = PR.glue_record(PR.sgd_record_case("read", data="mnist_5k", record_dir=tmp_path / "none"))
    assert "1,000 of them held out" in g5["rec_data"] and "4,000 for training" in g5["rec_data"]
    with pytest.raises(InputError, match="sgd_record must be"):
        PR.sgd_record_case("write")
    with pytest.raises(InputError, match="data must be one of"):
        PR.read_sgd_record("cifar", tmp_path)


def test_glue_and_settings_come_from_the_record(tiny_record):
    case = PR.sgd_record_case("read", data="mnist_5k", record_dir=tiny_record)
    g = PR.glue_record(case)
    assert set(g) == {"rec_data", "rec_protocol", "rec_search", "rec_source", "rec_deviations"}
    assert g["rec_data"].startswith("the 5,000 MNIST training images") and "1,000 of them held out" in g["rec_data"]
    assert g["rec_protocol"] == ("width 8, cross-entropy, plain SGD with batch 500, 3 epochs, 3 seeds, depths 1 to 10 "
                                 "for Figure 4 and 1, 3, 6, 8, 10, 12 for Table 1, float32")
    assert "Chosen rates: depth 1:" in g["rec_search"] and "first 2 of the 3 epochs" in g["rec_search"]
    assert "refined next to the best rate" in g["rec_search"]
    assert "a record, not re-run by this build" in g["rec_source"] and "--depths 1 3 6 12" in g["rec_source"]
    assert "**It is partial**: no rate search at depths 2, 4, 5" in g["rec_source"]
    assert "4,000 training images instead of 60,000" in g["rec_deviations"]
    # each part names what its own depths lack: Table 1 reads no depth 2, 4, 5, 7 or 9
    assert case.figure4.missing == "no rate search at depths 2, 4, 5, 7, 8, 9, 10 (12 of 33 runs recorded)"
    assert case.table1.missing == "no rate search at depths 8, 10 (12 of 33 runs recorded)"
    fig4 = OPT.sgd_setting(case.figure4)
    assert fig4.startswith("Setting: MNIST-5k, n = 4,000 training and 1,000 test images, batch 500, 3 epochs")
    assert "depths L = 1, 3, 6," in fig4 and "over the first 2 of the 3 epochs" in fig4
    assert "refined next to each depth's best rate by a factor sqrt 2" in fig4 and "a partial record" in fig4
    assert "read from a record, `python -m lib.chapters.optimization --record" in fig4 and "profile" not in fig4
    table1 = OPT.sgd_setting(case.table1, table=True)
    assert table1.startswith("Setting: held-out accuracy after the last epoch on MNIST-5k")
    assert "depths L = 1, 3, 6, 12" in table1 and "[LH] Table 1: MNIST" in table1


def test_a_whole_record_without_both_parts_is_refused_by_the_chapter(tmp_path):
    def table1_only(rec):
        rec["protocol"]["depths"] = [1, 12]
        rec["grid"] = {k: v for k, v in rec["grid"].items() if k in ("1", "12")}
        rec["chosen_lr"] = {k: v for k, v in rec["chosen_lr"].items() if k in ("1", "12")}
        rec["runs"] = [r for r in rec["runs"] if r["depth"] in (1, 12)]
    _single(tmp_path, table1_only)
    assert set(PR.record_studies(PR.read_sgd_record("mnist_5k", tmp_path))) == set()
    with pytest.raises(InputError, match=r"holds depths \[1, 12\]: chapter 06 needs two of"):
        PR.sgd_record_case("read", record_dir=tmp_path)


def test_a_partial_record_shows_what_it_holds(tiny_record, tmp_path):
    d = _copy(tiny_record, tmp_path)
    for L in (3, 6):
        for s in (1, 2):
            (d / RF.run_piece_name(L, s)).unlink()
    (d / RF.run_piece_name(12, 0)).unlink()
    (d / RF.run_piece_name(12, 1)).unlink()
    (d / RF.run_piece_name(12, 2)).unlink()
    (d / RF.search_piece_name(12)).unlink()
    rec = PR.read_sgd_record("mnist_5k", tmp_path)
    assert "seeds 1, 2 missing at depth 3; seeds 1, 2 missing at depth 6" in rec["missing"]
    case = PR.sgd_record_case("read", record_dir=tmp_path)
    assert case.table1 is None and case.figure4.depths == [1, 3, 6]   # no depth beyond 6 yet: no Table 1
    assert "**It is partial**" in PR.glue_record(case)["rec_source"]


# ---------------------------------------------------------------- the command line: one line, exit status 2
@pytest.mark.parametrize("args,message", [
    (["--lrs", "inf"], "--lrs: 'inf' is not a positive finite number"),
    (["--lrs", "nan"], "--lrs: 'nan' is not a positive finite number"),
    (["--epochs", "0"], "--epochs: '0' is not a positive integer"),
    (["--search-epochs", "5", "--epochs", "1"], "search_epochs (5) must be at most epochs (1)"),
    (["--depths", "15"], "depths: [15] are not depths of the protocol"),
    (["--seeds", "3"], "seeds: [3] are not seeds of the protocol (0 to 2)"),
    (["--device", "cuda"], "CUDA is not available"),
    (["--data", "cifar"], "--data: invalid choice"),
    ([], None),
])
def test_bad_command_lines_exit_2_with_one_line_at_once(tmp_path, capsys, args, message, monkeypatch):
    monkeypatch.setattr(PR, "record_data", lambda *a, **k: pytest.fail("data loaded before the arguments were checked"))
    if message is None:   # no --record
        with pytest.raises(SystemExit) as e:
            PR.main(["--record-dir", str(tmp_path)])
        assert e.value.code == 2 and capsys.readouterr().err.strip().startswith("error: nothing to do")
        return
    t0 = time.perf_counter()
    try:
        code = PR.main(["--record", "--record-dir", str(tmp_path)] + args)
    except SystemExit as e:   # argparse's own refusals
        code = e.code
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("error: ") and message in err[0]
    assert time.perf_counter() - t0 < 5 and not any(tmp_path.iterdir())


def test_an_unreachable_scheduler_or_a_failed_cell_is_one_line(tmp_path, capsys, monkeypatch):
    def boom(*a, **k):
        raise SweepError("cannot reach the Dask scheduler at 'tcp://nowhere:1': timed out")
    monkeypatch.setattr(PR, "run_sweep", boom)
    code = PR.main(TINY + ["--scheduler", "tcp://nowhere:1", "--record-dir", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err == ["error: cannot reach the Dask scheduler at 'tcp://nowhere:1': timed out"]


@pytest.mark.slow
def test_all_of_mnist_runs_in_pieces(tmp_path, monkeypatch):
    """The paper's data: 60,000 training images (120 updates an epoch) and the official 10,000 test images."""
    monkeypatch.setenv("NTK_CACHE_DIR", str(tmp_path / "cache"))
    assert PR.main(["--record", "--depths", "1", "--seeds", "0", "--epochs", "1", "--search-epochs", "1",
                    "--width", "4", "--lrs", "1", "2", "--record-dir", str(tmp_path)]) == 0
    rec = PR.read_sgd_record("mnist", tmp_path)
    assert rec["data"]["n_train"] == 60000 and rec["data"]["n_test"] == 10000 and rec["data"]["updates_per_epoch"] == 120
    assert rec["protocol"]["precision"] == "bf16" and rec["protocol"]["data"] == "mnist"
    assert rec["missing"].endswith("(1 of 33 runs recorded)") and len(rec["runs"]) == 1
    assert 0.1 < rec["runs"][0]["test_acc"] <= 1 and PR.RECORD_PARTS["mnist"] == "MNIST (60,000), the paper's protocol"


def test_stratified_split_is_balanced_and_seeded():
    y = np.repeat(np.arange(10), 500)
    tr, te = OPT.stratified_split(y, 1000, seed=0)
    assert len(te) == 1000 and np.bincount(y[te]).tolist() == [100] * 10 and not set(tr) & set(te)
    assert not np.array_equal(te, OPT.stratified_split(y, 1000, seed=1)[1])
    uneven = np.r_[np.zeros(7, int), np.ones(3, int)]
    assert np.bincount(uneven[OPT.stratified_split(uneven, 5)[1]]).tolist() == [4, 1]
    with pytest.raises(InputError, match="n_test"):
        OPT.stratified_split(y, 0)


@pytest.mark.parametrize("split,kw", [(OPT.stratified_split, dict(y=np.arange(6) % 2, n_test=2)),
                                      (OPT.train_test_split, dict(X=np.eye(6), y=np.arange(6) % 2, n_test=2)),
                                      (OPT.mnist5k_split, {}), (OPT.mnist_split, {})])
@pytest.mark.parametrize("seed", [-1, 1.5, True])
def test_the_splits_refuse_a_bad_seed_first(split, kw, seed, monkeypatch):
    monkeypatch.setattr("lib.chapters.optimization.sgd.load_mnist", lambda *a, **k: pytest.fail("loaded first"))
    monkeypatch.setattr("lib.chapters.optimization.sgd.load_mnist_5k", lambda *a, **k: pytest.fail("loaded first"))
    with pytest.raises(InputError, match="seed"):
        split(**kw, seed=seed)


def test_out_dim_is_a_positive_integer():
    from lib.finite.batched_sgd import sgd_train_runs
    X, y = np.eye(6), np.arange(6) % 2
    for bad in (2.5, True, 0):
        with pytest.raises(InputError, match="out_dim"):
            sgd_train_runs(X, y, depth=1, width=4, lrs=[1.0], seeds=[0], epochs=1, batch_size=3, out_dim=bad,
                           progress=False)


# ---------------------------------------------------------------- check_record on a record built in memory (no SGD)
def _proto(**kw):
    p = dict(depths=[1, 3], width=8, batch=500, epochs=3, seeds=3, lrs=[1.0, 4.0], search_epochs=2, n_test=1000,
             split_seed=0, divergence_factor=10.0, dtype="float32", loss_record="epoch", data="mnist_5k",
             precision="fp32", refine=True)
    return dict(p, **kw)


def _record(**proto):
    """A whole, consistent record of two depths and three seeds: depth 1's grid refined (2 between 1 and 4) with
    4 diverged; depth 3's best rate is the smallest."""
    p = _proto(**proto)
    grid = {"1": dict(lrs=[1.0, 2.0, 4.0], late_loss=[0.5, 0.25, None], diverged_epoch=[-1, -1, 1]),
            "3": dict(lrs=[1.0, 4.0], late_loss=[0.125, 0.375], diverged_epoch=[-1, -1])}
    chosen = {"1": 2.0, "3": 1.0}
    runs = [dict(depth=L, seed=s, lr=chosen[str(L)], train_loss=[2.0, 1.0, 0.5, 0.25][:p["epochs"] + 1],
                 diverged=False, test_acc=0.875, train_acc=0.9375) for L in (1, 3) for s in range(p["seeds"])]
    return dict(protocol=p, data=dict(name="MNIST-5k", fingerprint="f"), grid=grid, chosen_lr=chosen, runs=runs)


def _check(rec, whole=True):
    return RF.check_record(rec, Path("rec.json"), whole=whole)


def _refused(rec, field, why, whole=True):
    with pytest.raises(InputError, match=re.escape(f"the record rec.json: field '{field}' ") + ".*" + why):
        _check(rec, whole)


def test_a_consistent_record_in_memory_passes_whole():
    rec = _record()
    out = _check(rec)
    assert out["missing"] == "" and out["protocol"] == rec["protocol"] and out["runs"] == rec["runs"]
    legacy = _record()
    for k in ("data", "precision", "refine"):
        del legacy["protocol"][k]
    p = _check(legacy)["protocol"]
    assert (p["data"], p["precision"], p["refine"]) == ("mnist_5k", "fp32", False)


def _set(path, value):
    """An edit of the record at ``path`` (keys and indices) to ``value`` (``...``: delete)."""
    def edit(rec):
        obj = rec
        for k in path[:-1]:
            obj = obj[k]
        if value is ...:
            del obj[path[-1]]
        else:
            obj[path[-1]] = value
    return edit


def _accepted_or_refused(edit, field, why, whole=True):
    """The record after ``edit`` is accepted whole (``field`` None) or refused naming ``field`` and ``why``."""
    rec = _record()
    edit(rec)
    if field is None:
        assert _check(rec)["missing"] == ""
    else:
        _refused(rec, field, why, whole=whole)


@pytest.mark.parametrize("edit,field,why", [
    # the record and its protocol
    (lambda r: r.update(protocol=[1]), "protocol", "is not a JSON object"),
    (_set(("protocol", "width"), ...), "protocol", r"lacks \['width'\]"),
    (lambda r: (r["protocol"].update(epochs=2), [x["train_loss"].pop() for x in r["runs"]]), None, None),  # = search
    (_set(("protocol", "search_epochs"), 4), "protocol.search_epochs", "is 4, more than the 3 epochs"),
    (_set(("protocol", "split_seed"), -1), "protocol.split_seed", "not a non-negative integer"),
    (_set(("protocol", "split_seed"), 1), None, None),
    (_set(("protocol", "depths"), 3), "protocol.depths", "not a list of distinct positive integers"),
    (_set(("protocol", "depths"), []), "protocol.depths", "not a list of distinct"),
    (_set(("protocol", "depths"), [1, 3, 3]), "protocol.depths", "not a list of distinct"),
    (_set(("protocol", "depths"), [1, 3, "3"]), "protocol.depths", "not a list of distinct"),
    (_set(("protocol", "depths"), [1, 3, 0]), "protocol.depths", "is 0, not a positive integer"),
    (_set(("protocol", "depths"), [1, 3, True]), "protocol.depths", "is True, not a positive integer"),
    (_set(("protocol", "lrs"), 1.0), "protocol.lrs", "not a list of positive rates"),
    (_set(("protocol", "lrs"), []), "protocol.lrs", "not a list of positive rates"),
    (_set(("protocol", "lrs"), [1.0, 0.0]), "protocol.lrs", "is 0.0, not a positive number"),
    (_set(("protocol", "lrs"), [1.0, float("inf")]), "protocol.lrs", "is inf, not a positive number"),
    (_set(("protocol", "lrs"), [True]), "protocol.lrs", "is True, not a positive number"),
    (_set(("protocol", "lrs"), [1]), None, None),                                    # an integer rate is a rate
    (_set(("protocol", "divergence_factor"), 1), "protocol.divergence_factor", "is 1, not a number above 1"),
    (_set(("protocol", "divergence_factor"), 1.5), None, None),
    (_set(("protocol", "divergence_factor"), 2), None, None),
    (_set(("protocol", "divergence_factor"), True), "protocol.divergence_factor", "is True, not a positive number"),
    (_set(("protocol", "divergence_factor"), "10"), "protocol.divergence_factor", "is '10', not a positive number"),
    (_set(("protocol", "divergence_factor"), float("inf")), "protocol.divergence_factor", "is inf, not a positive"),
    (_set(("protocol", "divergence_factor"), 0.5), "protocol.divergence_factor", "is 0.5, not a number above 1"),
    (_set(("protocol", "precision"), "fp16"), "protocol.precision", r"is 'fp16', not one of \['fp32', 'bf16'\]"),
    (_set(("protocol", "precision"), "bf16"), None, None),
    (_set(("protocol", "refine"), 1), "protocol.refine", "is not true/false"),
    (_set(("protocol", "refine"), False), None, None),
    # a depth's grid
    (_set(("grid", "1"), [1.0]), "grid.1", "must hold lrs, late_loss and diverged_epoch;"),
    (_set(("grid", "1", "late_loss"), ...), "grid.1", "must hold lrs, late_loss and diverged_epoch;"),
    (_set(("grid", "1", "lrs"), ...), "grid.1", "must hold lrs, late_loss and diverged_epoch;"),
    (_set(("grid", "1", "diverged_epoch"), ...), "grid.1", "must hold lrs, late_loss and diverged_epoch;"),
    (_set(("grid", "1", "lrs"), (1.0, 2.0, 4.0)), "grid.1", "of one length"),
    (_set(("grid", "1", "late_loss"), (0.5, 0.25, None)), "grid.1", "of one length"),
    (_set(("grid", "1", "diverged_epoch"), (-1, -1, 1)), "grid.1", "of one length"),
    (_set(("grid", "1", "late_loss"), [0.5, 0.25]), "grid.1", "of one length"),
    (_set(("grid", "1", "diverged_epoch"), [-1, -1]), "grid.1", "of one length"),
    (_set(("grid", "1"), dict(lrs=[], late_loss=[], diverged_epoch=[])), "grid.1", "of one length"),
    (_set(("grid", "1", "lrs"), [1.0, -2.0, 4.0]), "grid.1.lrs", "is -2.0, not a positive number"),
    (_set(("grid", "1", "lrs"), [1.0, 8.0, 4.0]), "grid.1.lrs", "not increasing"),
    (_set(("grid", "1", "lrs"), [1.0, 4.0, 4.0]), "grid.1.lrs", "not increasing"),
    (_set(("grid", "1", "lrs"), [1.0, 2.0, 8.0]), "grid.1.lrs", "lacks rates of the protocol's grid"),
    (_set(("grid", "1", "late_loss"), [0.5, -0.01, None]), "grid.1.late_loss", "holds -0.01, not a non-negative"),
    (_set(("grid", "1", "late_loss"), [0.5, True, None]), "grid.1.late_loss", "holds True, not a non-negative"),
    (_set(("grid", "1", "late_loss"), [0.5, "0", None]), "grid.1.late_loss", "holds '0', not a non-negative"),
    (_set(("grid", "1", "late_loss"), [0.5, 0, None]), None, None),                   # a loss of 0 is a loss
    (_set(("grid", "1", "diverged_epoch"), [-1, -2, 1]), "grid.1.diverged_epoch", r"holds -2, not an epoch \(-1"),
    (_set(("grid", "1", "diverged_epoch"), [-1, True, 1]), "grid.1.diverged_epoch", "holds True, not an epoch"),
    (_set(("grid", "1", "diverged_epoch"), [-1, 0.0, 1]), "grid.1.diverged_epoch", "holds 0.0, not an epoch"),
    (_set(("grid", "1", "diverged_epoch"), [-1, -1, 0]), None, None),
    (_set(("chosen_lr", "1"), True), "chosen_lr.1", "is True, not a rate of the grid"),
    (_set(("chosen_lr", "1"), "2.0"), "chosen_lr.1", "is '2.0', not a rate of the grid"),
    (_set(("chosen_lr", "1"), 3.0), "chosen_lr.1", r"is 3.0, not a rate of the grid \[1.0, 2.0, 4.0\]"),
    (_set(("grid", "1", "late_loss"), [None, None, None]), "grid.1.late_loss", "holds no rate that trained"),
    (_set(("chosen_lr", "1"), 1.0), "chosen_lr.1", "is 1, but the rate of the grid with the smallest late loss is 2"),
    (_set(("grid", "3", "late_loss"), [0.375, 0.125]), "chosen_lr.3", "smallest late loss is 4;"),
    (_set(("grid", "3", "late_loss"), [0.125, 0.125]), None, None),                   # a tie: the smaller rate
    (_set(("grid", "1", "late_loss"), [None, 0.25, 0.5]), None, None),                 # excluded is not smallest
    # the grid against the record
    (_set(("grid",), []), "chosen_lr", "must name one rate for every depth of the grid"),
    (_set(("chosen_lr",), []), "chosen_lr", "must name one rate for every depth of the grid"),
    (lambda r: r.update(grid=list(r["grid"])), "chosen_lr", "must name one rate for every depth"),   # same keys
    (lambda r: r.update(chosen_lr=list(r["chosen_lr"])), "chosen_lr", "must name one rate for every depth"),
    (_set(("chosen_lr", "3"), ...), "chosen_lr", "must name one rate for every depth"),
    (lambda r: (r["grid"].update({"2": r["grid"]["3"]}), r["chosen_lr"].update({"2": 1.0})), "grid.2",
     r"is a depth the protocol does not run \(\[1, 3\]\)"),
])
def test_check_record_refuses_each_field_with_its_own_message(edit, field, why):
    """Every refusal of the protocol and the grids, and the value just inside each bound (``field`` None: accepted)."""
    _accepted_or_refused(edit, field, why)


@pytest.mark.parametrize("k", ["width", "batch", "epochs", "seeds", "search_epochs", "n_test"])
def test_each_protocol_count_is_a_positive_integer(k):
    for bad in (0, -1, True, 2.5, "3"):
        rec = _record()
        rec["protocol"][k] = bad
        _refused(rec, f"protocol.{k}", f"is {bad!r}, not a positive integer", whole=False)
    rec = _record(**{k: 1}, **({"search_epochs": 1} if k == "epochs" else {}))
    rec["runs"] = []
    assert _check(rec, whole=False)["protocol"][k] == 1


@pytest.mark.parametrize("edit,field,why", [
    (_set(("runs", 1), [1]), "runs[1]", "is not a JSON object"),
    (_set(("runs", 1, "depth"), 2), "runs[1].depth", r"is 2, not one of the protocol's depths \[1, 3\]"),
    (_set(("runs", 1, "depth"), ...), "runs[1].depth", "is None, not one of the protocol's depths"),
    (_set(("runs", 1, "seed"), -1), "runs[1].seed", r"is -1, not one of the protocol's seeds 0\.\.2"),
    (_set(("runs", 2, "seed"), 3), "runs[2].seed", r"is 3, not one of the protocol's seeds 0\.\.2"),
    (_set(("runs", 1, "seed"), True), "runs[1].seed", "is True, not one of the protocol's seeds"),
    (_set(("runs", 1, "seed"), 1.0), "runs[1].seed", "is 1.0, not one of the protocol's seeds"),
    (_set(("runs", 1, "lr"), 0), "runs[1].lr", "is 0, not a positive number"),
    (_set(("runs", 1, "lr"), 4.0), "runs[1].lr", "is 4, but the rate search chose 2 at depth 1"),
    (_set(("runs", 1, "train_loss"), (2.0, 1.0, 0.5, 0.25)), "runs[1].train_loss", r"is not 4 non-negative losses"),
    (_set(("runs", 1, "train_loss"), [2.0, 1.0, 0.5]), "runs[1].train_loss", "is not 4 non-negative losses"),
    (_set(("runs", 1, "train_loss"), [2.0, 1.0, 0.5, 0.25, 0.1]), "runs[1].train_loss", "is not 4 non-negative"),
    (_set(("runs", 1, "train_loss"), [2.0, 1.0, -0.5, 0.25]), "runs[1].train_loss", "is not 4 non-negative"),
    (_set(("runs", 1, "train_loss"), [2.0, 1.0, True, 0.25]), "runs[1].train_loss", "is not 4 non-negative"),
    (_set(("runs", 1, "train_loss"), [2.0, 1.0, "0", 0.25]), "runs[1].train_loss", "is not 4 non-negative"),
    (_set(("runs", 1, "train_loss"), [2.0, 0, None, None]), None, None),              # 0, then diverged
    (_set(("runs", 1, "diverged"), 0), "runs[1].diverged", "is not true/false"),
    (_set(("runs", 1, "diverged"), ...), "runs[1].diverged", "is not true/false"),
    (_set(("runs", 1, "diverged"), True), None, None),
    (_set(("runs", 1, "test_acc"), -0.01), "runs[1].test_acc", r"is -0.01, not an accuracy in \[0, 1\]"),
    (_set(("runs", 1, "test_acc"), 1.01), "runs[1].test_acc", r"is 1.01, not an accuracy in \[0, 1\]"),
    (_set(("runs", 1, "test_acc"), True), "runs[1].test_acc", "is True, not an accuracy"),
    (_set(("runs", 1, "test_acc"), "1"), "runs[1].test_acc", "is '1', not an accuracy"),
    (_set(("runs", 1, "train_acc"), -0.01), "runs[1].train_acc", r"is -0.01, not an accuracy in \[0, 1\]"),
    (_set(("runs", 1, "train_acc"), 1.01), "runs[1].train_acc", r"is 1.01, not an accuracy in \[0, 1\]"),
    (_set(("runs", 1, "train_acc"), True), "runs[1].train_acc", "is True, not an accuracy"),
    (lambda r: r["runs"][1].update(test_acc=0, train_acc=1), None, None),
    (lambda r: r["runs"][1].update(test_acc=1, train_acc=0), None, None),
    (lambda r: r["runs"][1].update(test_acc=None, train_acc=None), None, None),          # a diverged run's
    # the runs against the record
    (lambda r: r.update(runs=tuple(r["runs"])), "runs", "is not a list"),
    (lambda r: r["runs"].append(dict(r["runs"][4])), "runs[6]", "repeats depth 3, seed 1"),
    (lambda r: r["runs"][5].update(seed=0), "runs[5]", "repeats depth 3, seed 0"),
    (lambda r: (r["grid"].pop("3"), r["chosen_lr"].pop("3")), "runs[3].depth", "is 3, a depth with no rate search"),
])
def test_check_record_refuses_each_run_field_with_its_own_message(edit, field, why):
    _accepted_or_refused(edit, field, why, whole=False)


@pytest.mark.parametrize("k", ["protocol", "data", "grid", "chosen_lr", "runs"])
def test_a_record_lacking_a_part_is_refused_naming_it(k):
    rec = _record()
    del rec[k]
    _refused(rec, k, "is missing;")
    with pytest.raises(InputError, match=re.escape("field '(top level)' is not a JSON object")):
        _check([rec])


def test_missing_text_names_each_gap_and_a_whole_record_refuses_it():
    """Depths 4 to 7 unsearched and seeds 0 to 3 missing at depth 3 are listed one by one (never "4 to 7"); one
    missing seed is "seed", two are "seeds"."""
    rec = _record(seeds=4, depths=[1, 3, 4, 5, 6, 7])
    rec["runs"] = [r for r in rec["runs"] if (r["depth"], r["seed"]) not in ((1, 1), (1, 2)) and r["depth"] != 3]
    want = ("no rate search at depths 4, 5, 6, 7; seeds 1, 2 missing at depth 1; seeds 0, 1, 2, 3 missing at depth 3 "
            "(2 of 24 runs recorded)")
    assert _check(rec, whole=False)["missing"] == want
    _refused(rec, "runs", re.escape("is not whole: " + want))
    one = _record()
    one["runs"] = [r for r in one["runs"] if (r["depth"], r["seed"]) != (3, 2)]
    assert _check(one, whole=False)["missing"] == "seed 2 missing at depth 3 (5 of 6 runs recorded)"
    none = _record()
    none["runs"] = []
    assert RF.missing_text(_check(none, whole=False)) == ("seeds 0, 1, 2 missing at depth 1; seeds 0, 1, 2 missing "
                                                          "at depth 3 (0 of 6 runs recorded)")
    assert RF.missing_text(_record()) == ""
    # a part of the record: only its depths' gaps, the count the whole record's
    assert RF.missing_text(_check(rec, whole=False), depths=[1, 4]) == ("no rate search at depth 4; seeds 1, 2 missing "
                                                                        "at depth 1 (2 of 24 runs recorded)")
    assert RF.missing_text(_check(rec, whole=False), depths=[3]) == "seeds 0, 1, 2, 3 missing at depth 3 (2 of 24 runs recorded)"
    assert RF.missing_text(_check(one, whole=False), depths=[1]) == ""


def test_the_pieces_table_lists_each_piece_with_its_time_and_result(tiny_record, tmp_path):
    """One row per piece in (depth, search then runs by seed) order, each with the command's arguments, the commit,
    the piece's own seconds and its result; a count against the protocol's; only the header without pieces."""
    d = folder(tiny_record)
    lines = RF.pieces_table(d).splitlines()
    assert lines[:2] == ["| piece | command (after `--record`) | commit | worker s | result |", "|---|---|---|---:|---|"]
    rows = lines[2:-2]
    assert [r.split(" | ")[0] for r in rows] == [
        f"| {w}" for L in (1, 3, 6, 12) for w in [f"search, depth {L}"] + [f"run, depth {L}, seed {s}" for s in range(3)]]
    search, run = RF.read_piece(d / RF.search_piece_name(6)), RF.read_piece(d / RF.run_piece_name(6, 2))
    assert (f"| search, depth 6 | `--data mnist_5k --depths 1 3 6 12 --epochs 3 --search-epochs 2 --width 8 --lrs 1 4 1e4 "
            f"--seeds 0 --record-dir {tiny_record}` | {search['commit'][:7]} | {search['seconds']:,.0f} | "
            f"rate {search['chosen_lr']:.4g} |") in rows
    assert any(r.startswith("| run, depth 6, seed 2 |") and r.endswith(
        f"| {run['seconds']:,.0f} | test accuracy {100 * run['run']['test_acc']:.2f}% |") for r in rows)
    assert lines[-2:] == ["", "12 of the 33 runs and 4 of the 11 rate searches."]
    gone = _copy(tiny_record, tmp_path)
    (gone / RF.run_piece_name(3, 1)).unlink()
    assert RF.pieces_table(gone).splitlines()[-1] == "11 of the 33 runs and 4 of the 11 rate searches."
    assert RF.pieces_table(tmp_path / "none") == lines[0] + "\n" + lines[1]
    (tmp_path / "d").mkdir()
    diverged = _copy(tiny_record, tmp_path / "d", lambda p: p["run"].update(test_acc=None, diverged=True),
                     RF.run_piece_name(12, 0))
    assert [r for r in RF.pieces_table(diverged).splitlines() if r.startswith("| run, depth 12, seed 0 |")][0] \
        .endswith("| diverged |")     # no loss left out: the epoch is not known
    (tmp_path / "e").mkdir()
    stopped = _copy(tiny_record, tmp_path / "e", lambda p: p["run"].update(
        test_acc=None, diverged=True, train_loss=p["run"]["train_loss"][:2] + [None] * (len(p["run"]["train_loss"]) - 2)),
        RF.run_piece_name(12, 0))
    assert [r for r in RF.pieces_table(stopped).splitlines() if r.startswith("| run, depth 12, seed 0 |")][0] \
        .endswith("| diverged (stopped in epoch 2) |")
