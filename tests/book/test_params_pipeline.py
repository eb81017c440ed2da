import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lib.book import params as P
from lib.book.pipeline import EXECUTED, ROOT, declared_parameters, executed_path, main, notebook_sources, to_ipynb
from lib.book.results import verdict, load_all


def test_validate_collects_all_errors():
    with pytest.raises(P.ParameterError) as exc:
        P.validate(width=(-3, P.positive_int), depths=([1, -2], P.int_list(min_value=0)),
                   device=("gpu9", P.device_name), act=("sigmoid", P.choice(["relu", "tanh"])))
    msg = str(exc.value)
    for name in ("'width'", "'depths'", "'device'", "'act'"):
        assert name in msg


def test_validate_normalizes():
    cfg = P.validate(depths=(3, P.int_list()), w=(512.0, P.positive_int))
    assert cfg.depths == [3] and cfg.w == 512


def test_lists_given_as_strings_by_plain_papermill_are_read():
    cfg = P.validate(depths=("[0, 2, 5]", P.int_list()), lrs=("[0.1, 1]", P.float_list()),
                     acts=("[relu, tanh]", P.choices_list(["relu", "tanh"])))
    assert cfg.depths == [0, 2, 5] and cfg.lrs == [0.1, 1.0] and cfg.acts == ["relu", "tanh"]
    with pytest.raises(P.ParameterError, match="'depths'"):
        P.validate(depths=("[0, 2", P.int_list()))


@pytest.mark.parametrize("src", notebook_sources(), ids=lambda p: p.stem)
def test_parameters_cell_is_fully_visible_to_papermill(src, tmp_path):
    """Every assignment in the tagged cell must be a papermill parameter (a '=' in a comment hides it)."""
    import ast
    import jupytext
    nb = jupytext.read(src)
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(cells) == 1, "exactly one cell tagged 'parameters'"
    names = {t.id for node in ast.parse(cells[0].source).body if isinstance(node, ast.Assign) for t in node.targets}
    out = to_ipynb(src, out=tmp_path / (src.stem + ".ipynb"))
    assert set(declared_parameters(out)) == names
    assert "profile" in names


def pipeline(*args):
    return subprocess.run([sys.executable, "-m", "lib.book.pipeline", *args], cwd=ROOT, capture_output=True, text=True)


def test_unknown_parameter_name_is_rejected_before_running():
    r = pipeline("--only", "01", "-p", "widht", "64")
    assert r.returncode == 2
    assert "unknown parameter(s) ['widht']" in r.stderr


def test_unknown_profile_and_notebook_are_rejected():
    r = pipeline("--only", "01", "--profile", "huge")
    assert r.returncode == 2 and "unknown profile 'huge'" in r.stderr
    r = pipeline("--only", "99")
    assert r.returncode == 2 and "no notebook matches ['99']" in r.stderr


def test_bad_parameter_value_fails_with_a_clear_message():
    r = pipeline("--only", "01", "-p", "widths", "[-5]", "--profile", "smoke")
    assert r.returncode == 2
    assert "parameter 'widths' must contain integers >= 1" in r.stderr


def test_verdicts_round_trip(tmp_path, monkeypatch):
    monkeypatch.setenv("NTK_RESULTS_DIR", str(tmp_path))
    s = verdict("99_x", "[LH] Thm 2.3", status="reproduced", measured="numbers", section="S")
    assert s.startswith("**Verdict ({ref}`[LH] Thm 2.3 <report-lh-thm-2-3>`): reproduced.**")
    verdict("99_x", "[LH] Thm 2.3", status="not reproduced", measured="other")
    rows = load_all(tmp_path)
    assert len(rows) == 1 and rows[0]["status"] == "not reproduced"
    with pytest.raises(ValueError, match="status must be one of"):
        verdict("99_x", "[LH] Thm 2.3", status="sort of", measured="m")


# --------------------------------------------------------------------------- jupytext pairing, executed copies

DEMO = """# %% [markdown]
# # 9. Demo
# Back to the [introduction](../book/intro.md).

# %% tags=["parameters"]
profile = "default"  # parameter profile
n = 2  # a size

# %%
print(n * 21)
"""


def demo_root(tmp_path: Path) -> Path:
    """A repository with one tiny chapter, one Markdown page and the real jupytext configuration."""
    (tmp_path / "notebooks" / "profiles").mkdir(parents=True)
    (tmp_path / "book").mkdir()
    (tmp_path / "notebooks" / "09_demo.py").write_text(DEMO)
    (tmp_path / "notebooks" / "profiles" / "09_demo.yaml").write_text("smoke:\n  n: 3\n")
    (tmp_path / "book" / "intro.md").write_text("# Intro\n")
    shutil.copy2(ROOT / "jupytext.toml", tmp_path / "jupytext.toml")
    return tmp_path


def test_executing_a_notebook_leaves_its_source_byte_identical(tmp_path, monkeypatch):
    root = demo_root(tmp_path)
    src = root / "notebooks" / "09_demo.py"
    before = src.read_bytes()
    monkeypatch.setenv("NTK_RESULTS_DIR", str(root / "results"))
    assert main(["--root", str(root), "--profile", "smoke", "--only", "09", "-p", "n", "5"]) == 0
    assert src.read_bytes() == before
    assert not src.with_suffix(".ipynb").exists(), "nothing is written beside the source"
    out = executed_path(src, root)
    assert out == root / EXECUTED / "notebooks" / "09_demo.ipynb"
    nb = json.loads(out.read_text())
    injected = [c for c in nb["cells"] if "injected-parameters" in c["metadata"].get("tags", [])]
    assert injected and "n = 5" in "".join(injected[0]["source"])
    assert "105" in json.dumps(nb)  # it ran
    assert "formats" not in nb["metadata"].get("jupytext", {}), "the executed copy is paired with nothing"
    # the pages are staged next to the executed notebooks, so ../book/intro.md resolves from a chapter
    assert (out.parent / "../book/intro.md").resolve() == (root / "book" / "intro.md").resolve()


def test_jupytext_pairs_sources_but_never_the_executed_copies():
    from jupytext.config import find_jupytext_configuration_file, load_jupytext_configuration_file
    from jupytext.paired_paths import paired_paths
    cfg_file = find_jupytext_configuration_file(str(ROOT))
    assert Path(cfg_file).resolve() == (ROOT / "jupytext.toml").resolve()
    cfg = load_jupytext_configuration_file(cfg_file)

    def paired(rel):
        path = str(ROOT / rel)
        fmts = cfg.default_formats(path)
        return sorted(Path(p).relative_to(ROOT).as_posix() for p, _ in paired_paths(path, None, fmts)) if fmts else []

    assert paired("notebooks/01_linear_baseline.py") == ["notebooks/01_linear_baseline.ipynb",
                                                         "notebooks/01_linear_baseline.py"]
    assert paired("notebooks/01_linear_baseline.ipynb") == paired("notebooks/01_linear_baseline.py")
    assert paired("book/report.py") == ["book/report.ipynb", "book/report.py"]
    for rel in ("_executed/notebooks/01_linear_baseline.ipynb", "_executed/book/report.ipynb"):
        assert paired(rel) == [rel], f"{rel} must not be paired with a .py"


def test_bounded_parameters_are_checked_in_lib_not_in_notebooks():
    with pytest.raises(P.ParameterError, match=r"'angles' must contain numbers <= 3.14159"):
        P.validate(angles=([0.5, 4.0], P.float_list(positive=True, max_value=3.141592653589793)))
    with pytest.raises(P.ParameterError, match=r"'deg' must contain numbers below 180"):
        P.validate(deg=([10, 180], P.float_list(positive=True, below=180)))
    with pytest.raises(P.ParameterError, match=r"'n' must be an integer >= 2, got 1"):
        P.validate(n=(1, P.int_at_least(2)))
    assert P.validate(n=(2.0, P.int_at_least(2))).n == 2
    cfg = P.validate(shifts=([60.0], P.optional(P.float_list(positive=True))), depths=([1, 10], P.int_list()))
    with pytest.raises(P.ParameterError, match=r"'shifts' must give one value per entry of 'depths' \(2\), got \[60.0\]"):
        P.one_per(cfg, "shifts", "depths")
    P.one_per(P.validate(shifts=(None, P.optional(P.float_list())), depths=([1], P.int_list())), "shifts", "depths")
    P.one_per(P.validate(shifts=([1.0], P.float_list()), depths=([1], P.int_list())), "shifts", "depths")


# --------------------------------------------------------------------------- what the terminal shows

WARNS = """# %% tags=["parameters"]
profile = "default"  # parameter profile
fail = False  # stop with a bad-parameter error after warning

# %%
import os, warnings
warnings.warn("data set 'file' skipped: data_file /nowhere.npy does not exist")
print("env", os.environ.get("NTK_PROFILE"), os.environ.get("NTK_OVERRIDES"))

# %%
from lib.book.params import ParameterError
if fail:
    raise ParameterError("parameter 'fail' asked for it")
"""


def warns_root(tmp_path: Path) -> Path:
    root = demo_root(tmp_path)
    (root / "notebooks" / "08_warns.py").write_text(WARNS)
    return root


def test_warnings_of_a_notebook_are_printed_on_the_terminal(tmp_path, monkeypatch, capsys):
    root = warns_root(tmp_path)
    monkeypatch.setenv("NTK_RESULTS_DIR", str(root / "results"))
    assert main(["--root", str(root), "--only", "08"]) == 0
    err = capsys.readouterr().err
    assert "warning in 08_warns, cell 2: UserWarning: data set 'file' skipped: data_file /nowhere.npy" in err
    assert "KeyboardInterrupt" not in err and "IPKernelApp" not in err


def test_a_failing_run_shows_its_warnings_and_one_line_error(tmp_path, monkeypatch, capsys):
    root = warns_root(tmp_path)
    monkeypatch.setenv("NTK_RESULTS_DIR", str(root / "results"))
    assert main(["--root", str(root), "--only", "08", "-p", "fail", "true"]) == 2
    err = capsys.readouterr().err
    assert "data set 'file' skipped" in err  # the reason is on screen, not only in the notebook
    assert "ParameterError: parameter 'fail' asked for it" in err
    # what plain papermill shows from the notebook: the message, not the frames of lib
    nb = json.loads(executed_path(root / "notebooks" / "08_warns.py", root).read_text())
    errors = [o for c in nb["cells"] for o in c.get("outputs", []) if o["output_type"] == "error"]
    assert [e["traceback"] for e in errors] == [["ParameterError: parameter 'fail' asked for it"]]


def test_the_kernel_is_told_the_profile_and_the_overrides(tmp_path, monkeypatch):
    root = warns_root(tmp_path)
    monkeypatch.setenv("NTK_RESULTS_DIR", str(root / "results"))
    monkeypatch.delenv("NTK_PROFILE", raising=False)
    monkeypatch.delenv("NTK_OVERRIDES", raising=False)
    assert main(["--root", str(root), "--only", "08", "--profile", "smoke", "-p", "fail", "false"]) == 0
    nb = json.loads(executed_path(root / "notebooks" / "08_warns.py", root).read_text())
    stdout = "".join("".join(o.get("text", "")) for c in nb["cells"] for o in c.get("outputs", [])
                     if o.get("name") == "stdout")
    assert 'env smoke {"fail": false}' in stdout
    assert "NTK_PROFILE" not in os.environ, "main() leaves the caller's environment as it was"


BARS = """# %% tags=["parameters"]
profile = "default"  # parameter profile
plain = False  # use tqdm itself (the counterfactual) instead of lib.progress.tqdm

# %%
import tqdm.std
from lib.progress import tqdm as bar
for _ in (tqdm.std.tqdm if plain else bar)(range(3), desc="demo-bar", disable=False):
    pass
"""


@pytest.mark.parametrize("plain", [False, True])
def test_progress_bars_stay_out_of_executed_notebooks(tmp_path, monkeypatch, plain):
    root = demo_root(tmp_path)
    (root / "notebooks" / "07_bars.py").write_text(BARS)
    monkeypatch.setenv("NTK_RESULTS_DIR", str(root / "results"))
    assert main(["--root", str(root), "--only", "07", "-p", "plain", json.dumps(plain)]) == 0
    nb = json.loads(executed_path(root / "notebooks" / "07_bars.py", root).read_text())
    outputs = json.dumps([c.get("outputs", []) for c in nb["cells"]])
    assert ("demo-bar" in outputs) == plain, "lib.progress bars go to the terminal; plain tqdm's land in the notebook"


def test_a_parameter_hidden_from_papermill_is_named(tmp_path, monkeypatch, capsys):
    root = demo_root(tmp_path)
    (root / "notebooks" / "06_hidden.py").write_text(
        '# %% tags=["parameters"]\nprofile = "default"  # profile\n'
        'n = 40  # digits (d = 64); more are dependent\n\n# %%\nprint(n)\n')
    monkeypatch.setenv("NTK_RESULTS_DIR", str(root / "results"))
    assert main(["--root", str(root), "--only", "06"]) == 2
    assert "papermill cannot see parameter(s) ['n']" in capsys.readouterr().err


def test_a_run_starts_from_no_verdicts_of_its_chapter(tmp_path, monkeypatch):
    root = demo_root(tmp_path)
    results = root / "results"
    results.mkdir()
    (results / "09_demo.json").write_text('{"[LH] Fig 4": {"status": "not reproduced"}}')  # an older run's
    (results / "01_other.json").write_text("{}")  # another chapter's: kept
    monkeypatch.setenv("NTK_RESULTS_DIR", str(results))
    assert main(["--root", str(root), "--only", "09"]) == 0
    assert not (results / "09_demo.json").exists() and (results / "01_other.json").exists()


def test_input_errors_show_one_line_in_a_notebook():
    from lib.validation import InputError, InputTypeError
    for exc in (InputError("bad x"), InputTypeError("bad type"), P.ParameterError("bad p")):
        assert exc._render_traceback_() == [f"{type(exc).__name__}: {exc}"]
        assert isinstance(exc, ValueError)


# ---- round 2: profiles, the profile override, one run per chapter, unwritable results, Ctrl-C ----------

def test_overriding_the_profile_with_p_is_refused(tmp_path, monkeypatch, capsys):
    root = demo_root(tmp_path)
    monkeypatch.setenv("NTK_RESULTS_DIR", str(root / "results"))
    assert main(["--root", str(root), "--profile", "smoke", "--only", "09", "-p", "profile", "paper"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "choose the profile with --profile paper, not -p" in err


@pytest.mark.parametrize("text,match", [("- smoke\n- paper\n", "top level must be a mapping"),
                                        ("smoke: [1, 2]\n", "profile 'smoke' must be a mapping"),
                                        ("smoke: 3\n", "profile 'smoke' must be a mapping"),
                                        (b"smoke:\n  n: \xff\xfe\n", "is not UTF-8"),
                                        ("smoke: {n: [1\n", "is not valid YAML")])
def test_a_damaged_profile_is_one_message_naming_its_file(tmp_path, text, match):
    from lib.book.pipeline import PipelineError, load_profiles
    root = demo_root(tmp_path)
    assert load_profiles(root) == {"smoke": {"09_demo": {"n": 3}}}  # counterfactual: the intact file
    bad = root / "notebooks" / "profiles" / "07_other.yaml"
    bad.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(PipelineError, match=match) as exc:
        load_profiles(root)
    assert str(bad) in str(exc.value) and "\n" not in str(exc.value)
    # a damaged profile of another chapter does not stop a run of this one
    assert load_profiles(root, ["09_demo"]) == {"smoke": {"09_demo": {"n": 3}}}
    assert main(["--root", str(root), "--only", "09", "--list"]) == 0


@pytest.mark.parametrize("text,key,where", [
    ("smoke:\n  n: 2\n  n: 3\n", "n", "lines 2 and 3"),                   # one parameter twice
    ("smoke:\n  n: 2\npaper:\n  n: 9\nsmoke:\n  n: 3\n", "smoke", "lines 1 and 5"),  # two smoke: blocks
    ("smoke: {n: 2, n: 3}\n", "n", "both on line 1"),                      # a flow mapping
])
def test_a_profile_with_a_repeated_key_is_refused_naming_file_and_key(tmp_path, monkeypatch, capsys, text, key,
                                                                       where):
    from lib.book.pipeline import PipelineError, load_profiles
    root = demo_root(tmp_path)
    prof = root / "notebooks" / "profiles" / "09_demo.yaml"
    prof.write_text(text)
    with pytest.raises(PipelineError) as exc:
        load_profiles(root)
    msg = str(exc.value)
    assert msg.startswith(f"{prof}: key {key!r} is given twice ({where})") and "\n" not in msg
    monkeypatch.setenv("NTK_RESULTS_DIR", str(root / "results"))
    assert main(["--root", str(root), "--profile", "smoke", "--only", "09"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"error: {msg}"
    assert not (root / "results" / "09_demo.json").exists() and not executed_path(root / "notebooks" / "09_demo.py", root).exists()
    # counterfactual: the same keys once each are read, and a merge key may be overridden beside it
    prof.write_text("base: &b {n: 2}\nsmoke:\n  <<: *b\n  n: 3\n")
    assert load_profiles(root)["smoke"] == {"09_demo": {"n": 3}}


def test_a_p_value_with_a_repeated_key_is_refused():
    from lib.book.pipeline import PipelineError, parse_overrides
    with pytest.raises(PipelineError, match=r"parameter 'cfg'.*key 'a' is given twice"):
        parse_overrides([["cfg", "{a: 1, a: 2}"]])
    assert parse_overrides([["cfg", "{a: 1, b: 2}"]]) == {"cfg": {"a": 1, "b": 2}}


def test_a_chapter_being_run_is_not_run_twice(tmp_path, monkeypatch, capsys):
    import fcntl

    from lib.book.pipeline import chapter_lock
    root = demo_root(tmp_path)
    monkeypatch.setenv("NTK_RESULTS_DIR", str(root / "results"))
    (root / "results").mkdir()
    src = root / "notebooks" / "09_demo.py"
    with open(root / "results" / ".09_demo.lock", "a+") as held:  # another pipeline runs chapter 09
        held.write("pid 4242")
        held.flush()
        fcntl.flock(held.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert main(["--root", str(root), "--profile", "smoke", "--only", "09"]) == 2
        assert "09_demo is being run by another pipeline (pid 4242" in capsys.readouterr().err
    with chapter_lock(src):  # counterfactual: released, it is taken
        pass


def test_an_unwritable_results_directory_stops_before_running(tmp_path, monkeypatch, capsys):
    from pathlib import Path as P_

    from lib.book.pipeline import PipelineError, clear_verdicts
    root = demo_root(tmp_path)
    blocker = root / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("NTK_RESULTS_DIR", str(blocker / "results"))
    assert main(["--root", str(root), "--profile", "smoke", "--only", "09"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and f"results directory {blocker / 'results'} cannot be written" in err
    monkeypatch.setenv("NTK_RESULTS_DIR", str(root / "results"))
    (root / "results").mkdir()
    (root / "results" / "09_demo.json").write_text("{}")

    def read_only(self, missing_ok=False):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(P_, "unlink", read_only)
    with pytest.raises(PipelineError, match="results directory .*results cannot be written \\(Permission denied\\)"):
        clear_verdicts(root / "notebooks" / "09_demo.py")


SLEEPER = """# %% tags=["parameters"]
profile = "default"  # parameter profile

# %%
import os, pathlib, time
pathlib.Path(os.environ["SLEEPER_MARK"]).write_text(str(os.getpid()))
time.sleep(600)
"""


@pytest.mark.slow
def test_ctrl_c_stops_the_pipeline_within_seconds(tmp_path):
    import signal
    import time
    root = demo_root(tmp_path)
    (root / "notebooks" / "08_sleeper.py").write_text(SLEEPER)
    mark = tmp_path / "kernel.pid"
    env = dict(os.environ, NTK_RESULTS_DIR=str(root / "results"), SLEEPER_MARK=str(mark))
    proc = subprocess.Popen([sys.executable, "-m", "lib.book.pipeline", "--root", str(root), "--only", "08"],
                            cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
    t0 = time.time()
    while not mark.exists() and time.time() - t0 < 600 and proc.poll() is None:
        time.sleep(0.2)
    assert mark.exists(), proc.stderr.read()
    kernel = int(mark.read_text())
    proc.send_signal(signal.SIGINT)
    t1 = time.time()
    rc = proc.wait(timeout=120)
    assert rc == 130 and time.time() - t1 < 60
    assert "interrupted: 08_sleeper.py interrupted (Ctrl-C)" in proc.stderr.read()
    time.sleep(1)
    stat = Path(f"/proc/{kernel}/stat")  # the kernel is gone too (or a zombie awaiting its reaper)
    assert not stat.exists() or stat.read_text().split(")")[-1].split()[0] == "Z"
