"""The provenance line that ends every chapter (lib.book.provenance)."""
import re
import time

from lib.book import provenance as PV


def test_overrides_told_by_the_pipeline_are_labelled(monkeypatch):
    monkeypatch.setenv("NTK_PROFILE", "smoke")
    monkeypatch.setenv("NTK_OVERRIDES", '{"seeds": 5, "widths": [64, 128]}')
    line = PV.provenance_line("default", seconds=125.0)
    assert "profile `smoke` **with overrides** `seeds = 5`, `widths = [64, 128]`" in line
    assert "wall time of this chapter 2.1 min" in line


def test_a_run_without_overrides_and_a_run_outside_the_pipeline(monkeypatch):
    monkeypatch.setenv("NTK_PROFILE", "paper")
    monkeypatch.setenv("NTK_OVERRIDES", "{}")
    assert "profile `paper`, no overrides" in PV.provenance_line("default", seconds=3)
    monkeypatch.delenv("NTK_PROFILE")
    monkeypatch.delenv("NTK_OVERRIDES")
    assert "profile `default`, run outside the pipeline (overrides unknown)" in PV.provenance_line("default")


def test_run_info_names_commit_versions_and_machine():
    info = PV.run_info()
    assert re.fullmatch(r"[0-9a-f]{10}( with uncommitted changes)?|unknown.*", info["commit"])
    import torch
    assert info["torch"] == torch.__version__ and info["cores"] >= 1
    assert (info["gpu"] is None) == (not torch.cuda.is_available())


def test_kernel_seconds_is_the_age_of_this_process():
    s = PV.kernel_seconds()
    t0 = time.time()
    assert 0 <= s < 24 * 3600
    time.sleep(0.2)
    assert PV.kernel_seconds() - s >= 0.15 - (time.time() - t0 - 0.2)
