import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lib.book import params as P
from lib.book.paths import ROOT
from lib.book.results import verdict, load_all
from lib.site.pipeline import EXECUTED, declared_parameters, executed_path, main, notebook_sources, to_ipynb


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
    return subprocess.run([sys.executable, "-m", "lib.site.pipeline", *args], cwd=ROOT, capture_output=True, text=True)


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
    """A bad value is refused before the chapter runs: its verdicts are not cleared, its executed page is not
    overwritten (the notebook's own check came after both)."""
    page = executed_path(ROOT / "notebooks" / "01_linear_baseline.py", ROOT)
    before = page.stat().st_mtime_ns if page.exists() else None
    r = pipeline("--only", "01", "-p", "widths", "[-5]", "--profile", "smoke")
    assert r.returncode == 2
    assert "01_linear_baseline.py: bad notebook parameter(s):" in r.stderr
    assert "parameter 'widths' must contain integers >= 1" in r.stderr
    assert "running" not in r.stdout and (page.stat().st_mtime_ns if page.exists() else None) == before


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


# ---- profiles, the profile override, one run per chapter, unwritable results, Ctrl-C ----------

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
    from lib.book.profile_files import ProfileError, load_profiles
    root = demo_root(tmp_path)
    assert load_profiles(root) == {"smoke": {"09_demo": {"n": 3}}}  # counterfactual: the intact file
    bad = root / "notebooks" / "profiles" / "07_other.yaml"
    bad.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(ProfileError, match=match) as exc:
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
    from lib.book.profile_files import ProfileError, load_profiles
    root = demo_root(tmp_path)
    prof = root / "notebooks" / "profiles" / "09_demo.yaml"
    prof.write_text(text)
    with pytest.raises(ProfileError) as exc:
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
    from lib.site.pipeline import PipelineError, parse_overrides
    with pytest.raises(PipelineError, match=r"parameter 'cfg'.*key 'a' is given twice"):
        parse_overrides([["cfg", "{a: 1, a: 2}"]])
    assert parse_overrides([["cfg", "{a: 1, b: 2}"]]) == {"cfg": {"a": 1, "b": 2}}


def test_a_chapter_being_run_is_not_run_twice(tmp_path, monkeypatch, capsys):
    import fcntl

    from lib.site.pipeline import chapter_lock
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

    from lib.site.pipeline import PipelineError, clear_verdicts
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
busy = False  # hold the interpreter lock (one long C call) instead of sleeping

# %%
import os, pathlib, time
from lib.book.cache import cached_call
cached_call("08_sleeper", {"cell": 1}, lambda: 42)  # a finished cache cell, kept when the run is stopped
pathlib.Path(os.environ["SLEEPER_MARK"]).write_text(str(os.getpid()))
if busy:
    sum(range(10 ** 13))  # never lets ipykernel's parent-poll thread run
time.sleep(600)
"""


def restore_sigint():
    """In the child before it starts: SIGINT back to its default. A job started in the background of a
    non-interactive shell (``( make test & )``, CI runners, nohup) inherits SIGINT as ignored, and so
    would the pipeline this test starts, which then never sees the signal."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture
def start_sleeper(tmp_path):
    """Start a pipeline running a kernel that sleeps: ``start_sleeper(...)`` -> (process, kernel pid, root).
    A pipeline a failed test leaves running is killed at teardown (its kernel dies with it)."""
    started = []

    def start(sigint_ignored_here=False, busy=False):
        return sleeper_pipeline(tmp_path, sigint_ignored_here, busy, started)

    yield start
    for proc in started:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)


def sleeper_pipeline(tmp_path, sigint_ignored_here, busy, started):
    """A pipeline running a kernel that sleeps: (process, kernel pid, root). With ``sigint_ignored_here``
    the pipeline is started as from a background job (SIGINT ignored in this process while it starts)."""
    import signal
    import time
    root = demo_root(tmp_path)
    (root / "notebooks" / "08_sleeper.py").write_text(SLEEPER)
    mark = tmp_path / "kernel.pid"
    env = dict(os.environ, NTK_RESULTS_DIR=str(root / "results"), NTK_CACHE_DIR=str(root / ".cache"),
               SLEEPER_MARK=str(mark))
    before = signal.signal(signal.SIGINT, signal.SIG_IGN) if sigint_ignored_here else None
    try:
        proc = subprocess.Popen([sys.executable, "-m", "lib.site.pipeline", "--root", str(root), "--only", "08",
                                 "-p", "busy", json.dumps(busy)],
                                cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True, preexec_fn=restore_sigint)
    finally:
        if sigint_ignored_here:
            signal.signal(signal.SIGINT, before)
    started.append(proc)
    t0 = time.time()
    while not mark.exists() and time.time() - t0 < 600 and proc.poll() is None:
        time.sleep(0.2)
    assert mark.exists(), proc.stderr.read()
    time.sleep(0.2)  # the pid is written
    return proc, int(mark.read_text()), root


def gone(pid: int) -> bool:
    """The process has ended (or is a zombie awaiting its reaper)."""
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().split(")")[-1].split()[0] == "Z"
    except OSError:
        return True


def assert_stopped_cleanly(root: Path, kernel: int):
    """The kernel is gone, the chapter lock is free and names no holder, the finished cache cell is kept."""
    import fcntl
    import time

    from lib.book.cache import cell_key, read_record
    t0 = time.time()
    while not gone(kernel) and time.time() - t0 < 10:
        time.sleep(0.1)
    assert gone(kernel), "the kernel outlived the pipeline"
    lock = root / "results" / ".08_sleeper.lock"
    with open(lock, "a+") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)  # raises if still held
        fh.seek(0)
        assert fh.read() == ""
    cells = list((root / ".cache" / "sweeps" / "08_sleeper").glob("*.json"))
    assert len(cells) == 1 and read_record(cells[0], cells[0].stem, "08_sleeper")["result"]["value"] == 42


@pytest.mark.slow
@pytest.mark.parametrize("sigint_ignored_here", [False, True], ids=["foreground", "background-job"])
def test_ctrl_c_stops_the_pipeline_within_seconds(start_sleeper, sigint_ignored_here):
    import signal
    import time
    proc, kernel, root = start_sleeper(sigint_ignored_here)
    proc.send_signal(signal.SIGINT)
    t1 = time.time()
    rc = proc.wait(timeout=60)
    assert rc == 130 and time.time() - t1 < 60
    assert "interrupted: 08_sleeper.py interrupted (Ctrl-C)" in proc.stderr.read()
    assert_stopped_cleanly(root, kernel)


@pytest.mark.slow
def test_sigterm_stops_the_pipeline_as_ctrl_c_does(start_sleeper):
    """``kill PID`` (how a run in the background is stopped): the kernel killed, the lock released, the
    finished cache cell kept, exit code 143 and one line saying so."""
    import signal
    import time
    proc, kernel, root = start_sleeper()
    proc.send_signal(signal.SIGTERM)
    t1 = time.time()
    rc = proc.wait(timeout=60)
    err = proc.stderr.read()
    assert rc == 143 and time.time() - t1 < 60, err
    assert "interrupted: 08_sleeper.py interrupted (SIGTERM): its kernel was stopped" in err
    assert "Traceback" not in err
    assert_stopped_cleanly(root, kernel)


@pytest.mark.slow
def test_the_kernel_dies_with_a_killed_pipeline(start_sleeper):
    """SIGKILL leaves the pipeline no cleanup: the kernel must not live on as an orphan, also while a
    cell holds the interpreter lock (ipykernel's own parent poll, a thread, then never runs)."""
    import signal
    import time
    proc, kernel, root = start_sleeper(busy=True)
    assert not gone(kernel)  # counterfactual: it runs while the pipeline does
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    t0 = time.time()
    while not gone(kernel) and time.time() - t0 < 10:
        time.sleep(0.05)
    assert gone(kernel) and time.time() - t0 < 1.0, "the kernel outlived a killed pipeline"


# ---- notebooks that run at once --------------------------------------------------------------------------

PAIR = """# %% tags=["parameters"]
profile = "default"  # parameter profile
me = "{me}"  # this notebook
other = "{other}"  # the notebook that may run beside it
wait = 0.0  # seconds to wait for the other to start

# %%
import os, pathlib, time
import torch
here = pathlib.Path(os.environ["PAIR_DIR"])
(here / f"{{me}}.start").write_text(repr(time.time()))
t0 = time.time()
while wait and not (here / f"{{other}}.start").exists() and time.time() - t0 < wait:
    time.sleep(0.05)
print("saw other", (here / f"{{other}}.start").exists())
print("threads", os.environ.get("OMP_NUM_THREADS"), torch.get_num_threads())
os.write(2, f"{{me}} said this on fd 2\\n".encode())
(here / f"{{me}}.end").write_text(repr(time.time()))
"""

AFTER = """# %% tags=["parameters"]
profile = "default"  # parameter profile

# %%
import os, pathlib
here = pathlib.Path(os.environ["PAIR_DIR"])
print("chapters ended before this page", all((here / f"{s}.end").exists() for s in ("a", "b")))
"""


def pair_root(tmp_path: Path) -> Path:
    root = demo_root(tmp_path)
    (root / "notebooks" / "05_a.py").write_text(PAIR.format(me="a", other="b"))
    (root / "notebooks" / "06_b.py").write_text(PAIR.format(me="b", other="a"))
    (root / "book" / "after.py").write_text(AFTER)
    for stem in ("05_a", "06_b"):  # under "smoke" each waits for the other to start
        (root / "notebooks" / "profiles" / f"{stem}.yaml").write_text("smoke:\n  wait: 60\n")
    return root


def printed(root: Path, stem: str, folder: str = "notebooks") -> str:
    nb = json.loads((root / EXECUTED / folder / f"{stem}.ipynb").read_text())
    return "".join("".join(o.get("text", "")) for c in nb["cells"] for o in c.get("outputs", [])
                   if o.get("name") == "stdout")


@pytest.mark.parametrize("jobs", [2, 1])
def test_chapters_run_two_at_a_time_then_the_pages(tmp_path, monkeypatch, capsys, jobs):
    from lib.site.machine import usable_cores
    from lib.site.pipeline import threads_per_kernel
    root = pair_root(tmp_path)
    marks = tmp_path / "marks"
    marks.mkdir()
    monkeypatch.setenv("NTK_RESULTS_DIR", str(root / "results"))
    monkeypatch.setenv("PAIR_DIR", str(marks))
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        monkeypatch.delenv(var, raising=False)
    profile = "smoke" if jobs == 2 else "default"
    assert main(["--root", str(root), "--only", "05", "06", "after", "--jobs", str(jobs), "--profile", profile]) == 0
    out, err = capsys.readouterr()
    start = {s: float((marks / f"{s}.start").read_text()) for s in "ab"}
    end = {s: float((marks / f"{s}.end").read_text()) for s in "ab"}
    overlap = max(start.values()) < min(end.values())
    assert "chapters ended before this page True" in printed(root, "after", "book")
    if jobs == 2:
        assert overlap and "saw other True" in printed(root, "05_a") and "saw other True" in printed(root, "06_b")
        n = threads_per_kernel(2)
        assert n == max(1, usable_cores() // 2)
        assert f"threads {n} {n}" in printed(root, "05_a")
        # the kernels' own output reaches the terminal one line at a time, named by its chapter
        assert "[05] a said this on fd 2" in err and "[06] b said this on fd 2" in err
        assert "2 at a time" in out and "05_a done in" in out
    else:  # counterfactual: one at a time, the libraries' own thread counts
        assert not overlap and "saw other False" in printed(root, "05_a")
        assert "threads None" in printed(root, "05_a")
        assert "one at a time" in out
    assert "per notebook: " in out and re.search(r"wall time [\d.]+ s; float32 matmul 500x512x512: \d+ GFLOP/s at the "
                                                 r"start, \d+ GFLOP/s at the end", out)


def run_in_terminal(cmd: list[str], env: dict, timeout: float = 300) -> tuple[int, str]:
    """Run ``cmd`` with a pseudo-terminal as its stdin, stdout and stderr, as a person at a terminal
    would; return its exit code and everything it wrote there."""
    import pty
    import select
    import time
    master, slave = pty.openpty()
    proc = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=ROOT, start_new_session=True)
    os.close(slave)
    chunks, t0 = [], time.time()
    try:
        while time.time() - t0 < timeout:
            ready, _, _ = select.select([master], [], [], 1.0)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # EIO: the process and its children closed the terminal
                    break
                if not data:
                    break
                chunks.append(data)
            elif proc.poll() is not None:
                break
    finally:
        os.close(master)
    return proc.wait(timeout=60), b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.parametrize("jobs", [1, 2])
def test_progress_bars_are_drawn_on_the_terminal_and_never_in_a_page(tmp_path, jobs):
    """A run at a terminal, outside pytest: each lib.progress bar is drawn on the terminal (prefixed with its
    chapter when two run at once) and nothing of it reaches the executed notebook."""
    root = demo_root(tmp_path)
    for stem in ("06_bars", "07_bars"):
        (root / "notebooks" / f"{stem}.py").write_text(BARS)
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}
    env.update(NTK_RESULTS_DIR=str(root / "results"), COLUMNS="100")
    code, screen = run_in_terminal([sys.executable, "-m", "lib.site.pipeline", "--root", str(root), "--only", "06",
                                    "07", "--jobs", str(jobs)], env)
    assert code == 0, screen
    bars = re.findall(r"^(.*)demo-bar: 100%", screen.replace("\r", "\n"), re.M)
    assert len(bars) >= 2, screen
    if jobs == 2:
        assert {b.strip() for b in bars} >= {"[06]", "[07]"}, screen
    for stem in ("06_bars", "07_bars"):
        nb = json.loads(executed_path(root / "notebooks" / f"{stem}.py", root).read_text())
        assert "demo-bar" not in json.dumps([c.get("outputs", []) for c in nb["cells"]])


# ---- paths the user gives are taken from where the command was run --------------------------------------

RECORDS = """# %% tags=["parameters"]
profile = "default"  # parameter profile

# %%
from lib.book.cache import cached_call
from lib.book.results import verdict
cached_call("09_rel", {"cell": 1}, lambda: 7)
verdict("09_rel", "[LH] Thm 2.3", status="reproduced", measured="recorded from the notebooks folder")
"""

READS = """# %% tags=["parameters"]
profile = "default"  # parameter profile

# %%
from lib.book.results import load_all
for row in load_all():
    print("report row:", row["claim_id"], row["status"])
"""


def test_relative_results_and_cache_folders_are_taken_from_where_the_command_ran(tmp_path, monkeypatch, capsys):
    root = demo_root(tmp_path / "repo")
    (root / "notebooks" / "09_rel.py").write_text(RECORDS)
    (root / "book" / "report.py").write_text(READS)
    here = tmp_path / "elsewhere"
    here.mkdir()
    monkeypatch.chdir(here)
    monkeypatch.setenv("NTK_RESULTS_DIR", "relres")
    monkeypatch.setenv("NTK_CACHE_DIR", "relcache")
    assert main(["--root", str(root), "--only", "09_rel", "report"]) == 0, capsys.readouterr().err
    assert (here / "relres" / "09_rel.json").exists(), "the verdicts are where the user asked"
    assert list((here / "relcache" / "sweeps" / "09_rel").glob("*.json")), "and so is the cache"
    assert (here / "relres" / ".09_rel.lock").exists()
    strays = [p for p in tmp_path.rglob("relres")] + [p for p in tmp_path.rglob("relcache")]
    assert strays == [here / "relres", here / "relcache"], "nothing under the notebooks' or pages' folders"
    assert "report row: [LH] Thm 2.3 reproduced" in printed(root, "report", "book")
    assert os.environ["NTK_RESULTS_DIR"] == "relres", "the caller's environment is left as it was"


def test_a_relative_root_is_taken_from_where_the_command_ran(tmp_path, monkeypatch):
    root = demo_root(tmp_path / "repo")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NTK_RESULTS_DIR", raising=False)
    assert main(["--root", "repo", "--only", "09"]) == 0
    assert executed_path(root / "notebooks" / "09_demo.py", root).exists()
    assert (root / "results" / ".09_demo.lock").exists()


def test_a_path_parameter_given_with_p_is_made_absolute_before_the_kernel_starts(tmp_path):
    from lib.site.pipeline import absolute_overrides, absolute_path, path_parameters
    ch03 = ROOT / "notebooks" / "03_conditioning.py"
    assert {"data_file", "idx_dir"} <= path_parameters(ch03)
    assert "seeds" not in path_parameters(ch03)
    out = absolute_overrides(ch03, {"data_file": "my/x.npy", "idx_dir": "~/mnist", "seeds": 2, "datasets": ["file"]},
                             cwd=tmp_path)
    assert out == {"data_file": str(tmp_path / "my" / "x.npy"), "idx_dir": str(Path.home() / "mnist"), "seeds": 2,
                   "datasets": ["file"]}
    assert absolute_overrides(ch03, {"data_file": "/abs/x.npy"}, tmp_path) == {"data_file": "/abs/x.npy"}
    assert absolute_overrides(ch03, {"data_file": None}, tmp_path) == {"data_file": None}  # the checker decides
    # a notebook without a spec (a book page) has no path parameters: its values are passed as given
    assert absolute_overrides(ROOT / "book" / "report.py", {"data_file": "x.npy"}, tmp_path) == {"data_file": "x.npy"}
    assert absolute_path("a/../b", tmp_path) == tmp_path / "b"
