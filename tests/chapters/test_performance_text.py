"""Chapter 07: the glued prose values and the figure settings follow the measured results' settings
(lib.chapters.performance: glue_values, figure_*), and the notebook's prose shows values, not parameter names."""
from dataclasses import replace

import pandas as pd
import pytest

from lib.chapters import performance

BASE = dict(ns=[256, 512, 1024], width=512, depths=[1, 5, 10], in_dim=64, methods=["ours", "jacobian", "ntk_vp"],
            repeats=5, threads=1, time_budget=180.0, memory_budget_mb=4096.0, target_n=512, target_depth=10,
            peers_everywhere=False, scale_ns=[4000], scale_depths=[1, 10], scale_width=512, scale_in_dim=784,
            scale_lambda_min="certified", scale_shifts=None, scale_data="gaussian", sgd_depths=[1], sgd_width=512, sgd_batch=500, sgd_runs=9,
            sgd_n_train=1000)


@pytest.fixture(autouse=True)
def no_overrides(monkeypatch):
    monkeypatch.delenv("NTK_OVERRIDES", raising=False)


@pytest.fixture
def texts(monkeypatch):
    """``texts(**parameters)``: the glued values and the two figure settings of a run with these parameters (the
    measurements replaced by empty frames: only the settings the results carry are read)."""
    for target in ("benchmark.run_benchmark", "scale.measure_scale_cases", "sgd.run_sgd_benchmark",
                   "benchmark.plot_time_memory", "benchmark.plot_throughput"):
        monkeypatch.setattr(f"lib.chapters.performance.{target}", lambda *a, **k: pd.DataFrame())

    def make(**over):
        device = over.pop("device", None)
        cfg = performance.SPEC.config(**{**BASE, **over})
        runs = [performance.measure_benchmark(cfg), performance.measure_scale(cfg),
                performance.measure_sgd_benchmark(cfg)]
        if device:  # "cuda" is refused by the spec on a machine without a GPU; the text is what is tested
            runs = [replace(r, device=device) for r in runs]
        out = performance.glue_values(*runs)
        out.update(fig7_1=performance.figure_time_memory(runs[0])["setting"],
                   fig7_2=performance.figure_throughput(runs[0])["setting"])
        return out
    return make


def test_keys_and_plain_text(texts):
    g = texts()
    for key in ("fig7_1", "fig7_2", "scale_caption", "target_size", "threads", "peer_sizes", "scale_sizes"):
        assert isinstance(g[key], str) and g[key]
    assert all("$" not in v for v in g.values()), "glue:text pastes plain text: no TeX in glued values"
    assert g["target_size"] == "n = 512, width 512, depth 10"
    assert (g["speedup_target"], g["memory_target"], g["throughput_target"]) == ("100", "10", "50%")


def test_captions_state_the_setting_and_the_deviation(texts):
    g = texts()
    c = g["fig7_1"]
    assert "n = 256, 512, 1024" in c and "d = 64" in c and "width m = 512" in c and "depths L = 1, 5, 10" in c
    assert "1 torch thread per worker" in c and "{profile}" in c  # the recorder writes the run's profile there
    assert "Jacobian contraction and NTK-vector products only at the targets' size" in c
    assert "A100" in c and "batches of 512" in c and "n = 512, the paper's batch, is among the sizes" in c
    assert "time and memory figure above" in g["fig7_2"] and "A100" in g["fig7_2"]
    s = g["scale_caption"]
    assert "n = 4000" in s and "d = 784" in s and "width m = 512" in s and "depths L = 1, 10" in s
    assert "certified interval" in s and "60,000" in s


@pytest.mark.parametrize("change, key, before, after", [
    (dict(ns=[64], target_n=64), "fig7_1", "n = 256, 512, 1024", "n = 64 "),
    (dict(width=64), "fig7_1", "width m = 512", "width m = 64"),
    (dict(depths=[2], target_depth=2), "fig7_2", "depths L = 1, 5, 10", "depths L = 2"),
    (dict(threads=0), "threads", "1 torch thread", "torch's default number of threads"),
    (dict(threads=2), "fig7_1", "1 torch thread per worker", "2 torch threads per worker"),
    (dict(peers_everywhere=True), "peer_sizes", "only at the targets' size", "at every size"),
    (dict(peers_everywhere=True), "peers_everywhere", "off", "on"),
    (dict(ns=[64, 256, 512, 1024], depths=[1, 2, 5, 10], target_n=64, target_depth=2), "peer_sizes",
     "n = 512, depth 10", "n = 64, depth 2"),
    (dict(methods=["ours"]), "fig7_1", "Jacobian contraction and NTK-vector products only", "no torch.func method"),
    (dict(device="cuda"), "fig7_1", "CPU (", "a CUDA GPU"),
    (dict(in_dim=10), "in_dim", "64", "10"),
    (dict(time_budget=30.0), "time_budget", "180 s", "30 s"),
    (dict(memory_budget_mb=6.0), "memory_budget", "4096 MB", "6 MB"),
    (dict(scale_ns=[300]), "scale_sizes", "n = 4000", "n = 300"),
    (dict(scale_depths=[1, 3]), "scale_caption", "depths L = 1, 10", "depths L = 1, 3"),
    (dict(scale_width=64), "scale_caption", "width m = 512", "width m = 64"),
    (dict(scale_in_dim=10), "scale_in_dim", "784", "10"),
    (dict(scale_data="mnist"), "scale_caption", "inputs from N(0, I_d)", "MNIST training images (d = 784; pixels"),
    (dict(scale_data="mnist"), "scale_caption", "the inputs here are Gaussian", "60,000."),
    (dict(scale_lambda_min="bounds"), "scale_caption", "certified interval", "bounds only"),
    (dict(methods=["ours", "jacobian"]), "methods_timed", "Jacobian contraction and NTK-vector products",
     "ours (Hadamard of Grams) and Jacobian contraction"),
    (dict(sgd_depths=[1, 5, 10]), "sgd_sizes", "depth 1,", "depths 1, 5, 10,"),
    (dict(sgd_width=64), "sgd_caption", "width 512", "width 64"),
    (dict(sgd_batch=100), "sgd_caption", "batch 500", "batch 100"),
    (dict(sgd_runs=3), "sgd_caption", "seeds 0 to 8", "seeds 0 to 2"),
    (dict(sgd_n_train=5000), "sgd_caption", "1,000 training inputs", "5,000 training inputs"),
    (dict(scale_shifts=[60.0, 600.0]), "scale_caption", "tiles fit); {profile}",
     "one factorization at the given shift (s = 60 at depth 1, s = 600 at depth 10)"),
])
def test_changing_a_parameter_changes_the_text(texts, change, key, before, after):
    old, new = texts()[key], texts(**change)[key]
    assert before in old and before not in new and after in new


def test_verdict_sentence_and_batch_deviation_off_the_targets_size(texts):
    on = texts()
    off = texts(ns=[64], width=64, depths=[2], target_n=64, target_depth=2)
    assert "the checks below give verdicts" in on["target_verdicts"]
    assert "not the targets' size" in off["target_verdicts"] and "n = 64, width 64, depth 2" in off["target_verdicts"]
    assert "no size here is the paper's batch of 512 inputs" in off["fig7_1"]
    assert "width 64 instead of 512" in off["fig7_1"]


def test_the_captions_leave_the_profile_and_overrides_to_the_recorder(texts, monkeypatch):
    """The setting says where the run's profile goes; the recorder writes it there with the pipeline's overrides
    (:meth:`lib.book.results.Recorder.figure`, tested in tests/book/test_recorder.py)."""
    monkeypatch.setenv("NTK_OVERRIDES", '{"width": 2048}')
    setting = texts()["fig7_1"]
    assert setting.count("{profile}") == 1 and "2048" not in setting


def test_paper_profile_values_come_from_the_profiles_file(texts):
    from lib.book.profile_files import load_profiles
    paper = load_profiles()["paper"]["07_performance"]
    g = texts()
    assert g["paper_scale_n"] == ", ".join(f"{n:,}" for n in paper["scale_ns"])
    assert g["paper_peers_everywhere"] == ("on" if paper.get("peers_everywhere") else "off")
    assert "NTK-vector products" in g["paper_methods"]
    assert "NTK-vector" not in texts(methods=["ours", "jacobian"])["methods_timed"]
    assert g["paper_sgd_sizes"].startswith(f"depths {', '.join(map(str, paper['sgd_depths']))}, width 512")
    assert f"{paper['sgd_n_train']:,} training inputs" in g["paper_sgd_sizes"]


def test_figure_axes_follow_the_number_of_sizes(texts):
    assert "one column per depth" in texts()["fig7_1_axes"]
    assert texts(ns=[512])["fig7_1_axes"] == "against depth at n = 512"


def _notebook_cells():
    import re
    from pathlib import Path
    src = (Path(__file__).resolve().parents[2] / "notebooks" / "07_performance.py").read_text()
    return [(m.group(1) or "", m.group(2)) for m in re.finditer(r"^# %%(.*)\n((?:(?!# %%).*\n?)*)", src, re.M)]


def _named_without_value(prose: str, params) -> list[str]:
    """Parameter names in prose that are not a 'papermill parameter' pointer with a glued value nearby."""
    import re
    bad = []
    prose = re.sub(r"\{glue:text\}`\w+`", "{glue:text}", prose)
    for para in re.split(r"\n#\s*\n", prose):
        para = re.sub(r"\s*\n#\s?", " ", para)  # one line per paragraph: "papermill\n# parameter" matches
        for p in params:
            for m in re.finditer(f"`{p}`", para):
                pointer = "papermill parameter" in para[max(0, m.start() - 160): m.start()]
                if not (pointer and "{glue:text}" in para):
                    bad.append(p)
    return bad


def test_notebook_prose_shows_values_and_figures_are_registered_not_typed(texts):
    import re
    cells = _notebook_cells()
    params = performance.SPEC.names
    glued = set(texts())
    figures = 0
    for head, body in cells:
        if "[markdown]" in head:
            for key in re.findall(r"\{glue:text\}`(\w+)`", body):
                assert key in glued, key
            assert not _named_without_value(body, params), body[:200]
            assert not re.search(r"\*Figure \d|Drawn by", body), body[:200]  # the registry numbers and credits
        elif "rec.figure(" in body:
            figures += body.count("rec.figure(")
            assert "hide-input" in head, body
    assert figures == 2
    # counterfactual: a bare parameter name, or a pointer without the value in force, is caught
    assert _named_without_value("# timed at the targets' size (`target_n`, `target_depth`)", params)
    assert _named_without_value("# the papermill parameter `threads` sets it", params) == ["threads"]
    assert not _named_without_value("# here {glue:text}`threads` (the papermill parameter `threads`)", params)

