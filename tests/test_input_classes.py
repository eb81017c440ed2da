"""One property test per class of bad input (lib.site.input_classes), over every public function of the science layer
that takes the class's input.

The functions are enumerated from the code (:func:`lib.site.input_classes.takers`: every public callable whose
signature has a parameter of the class), so a new one is driven the day it is added; :data:`CALLS` says how to call
each with good arguments, and a test fails when an enumerated function has no call there. Each bad input must end in
:class:`lib.validation.InputError` (or ``InputTypeError``) with one message naming the parameter: no raw traceback
from torch or numpy, no silently wrong answer. Where a right answer exists (a complex array whose imaginary parts are
all 0, the largest seed, a tiny but normal kernel) it must be computed, and equal the answer for the plain input.
"""
from __future__ import annotations

import inspect
import math
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from lib.site.input_classes import INPUT_CLASSES, public_callables, takers
from lib.validation import SEED_MAX, InputError

CLASSES = {c.key: c for c in INPUT_CLASSES}

def _unit_rows(n: int, d: int, seed: int = 0) -> np.ndarray:
    X = np.random.default_rng(seed).standard_normal((n, d))
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def _mlp(depth: int = 2, width: int = 8, **kw):
    from lib.finite.mlp import MLP
    return MLP(5, width, depth, **kw)


def _kernel(n: int = 4) -> np.ndarray:
    from lib.finite.ntk import empirical_ntk
    return empirical_ntk(_mlp(), _unit_rows(n, 5))


def _gram(n: int = 4) -> np.ndarray:
    X = _unit_rows(n, 6, seed=1)
    return X @ X.T


def _op():
    from lib.finite.extremes import ntk_operator
    return ntk_operator(_mlp(), _unit_rows(6, 5))


def _scan():
    from lib.finite.extremes import min_angle_scan
    return min_angle_scan(_op(), progress=False)


def _factors():
    from lib.finite.ntk import layer_factors
    return layer_factors(_mlp(), _unit_rows(4, 5))


#: good values by parameter name, for every function not listed in :data:`CALLS` with its own
GENERIC = {
    "X": lambda: _unit_rows(4, 5), "x": lambda: _unit_rows(1, 5)[0], "X_test": lambda: _unit_rows(3, 5, seed=2),
    "X1": lambda: _unit_rows(3, 5), "Z": lambda: _unit_rows(3, 5, seed=3), "K": _kernel, "G": _gram,
    "A": lambda: np.eye(3) + 0.1, "B": lambda: np.eye(3), "theta": lambda: 0.5, "theta_in": lambda: 0.7,
    "rho": lambda: 0.3, "q": lambda: 1.0, "q0": lambda: [1.0, 2.0], "q1": lambda: 1.0, "q2": lambda: 1.5,
    "qi": lambda: 1.0, "qj": lambda: 1.5, "z": lambda: 0.5, "angles": lambda: [0.5, 1.0],
    "coefficients": lambda: [0.0, 1.0, 0.5], "delta": lambda: 0.1, "delta0": lambda: 0.5, "mu": lambda: 0.5,
    "eps": lambda: 0.1, "b": lambda: 0.3, "a": lambda: 0.1, "norms": lambda: (1.0, 2.0), "lr": lambda: 0.1,
    "model": _mlp, "activation": lambda: "relu", "base": lambda: "relu", "seed": lambda: 0, "seeds": lambda: [0],
    "depth": lambda: 2, "depths": lambda: [1, 2], "width": lambda: 8, "in_dim": lambda: 5, "n": lambda: 4,
    "d": lambda: 5, "op": _op, "scan": _scan, "order": lambda: 1, "labels": lambda: np.array([0, 1, 0, 1]),
    "shift": lambda: 0.0,
}

#: what a zero imaginary part must leave equal, where a result also holds what differs run to run (timings)
TIMING = ("seconds", "timings", "load_start", "load_end", "t_")
PROJECT = {"lib.finite.ntk.relu_depth_kernels": lambda out: [row[:3] for row in out],
           "lib.finite.ntk.relu_depth_batch_kernels": lambda out: [(i, [row[:3] for row in ks]) for i, ks in out]}

#: (function, parameter) pairs whose input is a tensor of a given dtype, not a number: a complex one is refused
#: even with zero imaginary parts (there is no real answer to compare with)
DTYPE_BOUND = {("lib.finite.training.cross_entropy", "labels"), ("lib.finite.hessian_bounds.second_derivative", "z"),
               ("lib.finite.wrapped.swish", "z"), ("lib.finite.wrapped.swish_deriv", "z"),
               ("lib.finite.ntk.check_kernel", "K"), ("lib.finite.ntk.check_kernel", "X"),
               ("lib.finite.ntk.bias_ntk", "A"), ("lib.finite.ntk.ntk_from_factors", "A"),
               ("lib.finite.batched_sgd.sgd_train_runs", "y")}

#: functions whose good arguments are not the generic ones (name -> kwargs factory); ``None``: refused input is
#: driven but the good call is not made (it spawns a process or needs data this machine may not have)
CALLS = {
    "lib.activations.normalized": lambda: dict(base="relu", shift=0.2),
    "lib.activations.normrelu": lambda: dict(b=0.3),
    "lib.data.base.preprocess": lambda: dict(X=_unit_rows(6, 5), n=4, seed=0),
    "lib.data.base.subsample": lambda: dict(X=_unit_rows(6, 5), y=np.arange(6), n=4, seed=0, source="X"),
    "lib.data.base.check_n": lambda: dict(n=3),
    "lib.data.datasets.gaussian_data": lambda: dict(n=4, d=5, seed=0),
    "lib.data.datasets.load_dataset": lambda: dict(name="synthetic", n=4, seed=0),
    "lib.data.datasets.load_array": lambda: dict(_data_files()["load_array"], seed=0),
    "lib.data.datasets.load_digits_subset": lambda: dict(n=10, seed=0),
    "lib.data.faces.load_faces": lambda: dict(n=4, seed=0),
    "lib.data.idx.load_idx_dataset": lambda: dict(_data_files()["load_idx_dataset"], seed=0),
    "lib.data.mnist5k.load_mnist_5k": None,
    "lib.data.pairs.angle_pairs": lambda: dict(angles=[0.5, 1.0], d=5, seed=0, norms=(1.0, 2.0)),
    "lib.data.pairs.pair_angles": lambda: dict(K=_kernel(4)),
    "lib.data.pairs.pair_cosines": lambda: dict(K=_kernel(4)),
    "lib.data.synthetic.synthetic_regression": lambda: dict(n=4, d=5, seed=0),
    "lib.finite.archs.Conv1dNet": lambda: dict(in_dim=5, width=4, seed=0, kernel_size=3),
    "lib.finite.archs.ResMLP": lambda: dict(in_dim=5, width=4, depth=3, seed=0),
    "lib.finite.authors.AuthorsNet": lambda: dict(layer_sizes=[5, 8, 1], seed=0),
    "lib.finite.authors.authors_ntk": lambda: dict(net=_authors_net(), X1=_unit_rows(3, 5),
                                                   X2=_unit_rows(2, 5, seed=4)),
    "lib.finite.authors.ntk_scale": lambda: dict(in_dim=5, depth=2),
    "lib.finite.batched_sgd.sgd_train_runs": lambda: dict(
        X=_unit_rows(6, 5), y=np.arange(6) % 2, depth=1, width=4, lrs=[0.1], seeds=[0], epochs=1, batch_size=3,
        X_test=_unit_rows(3, 5, seed=2), y_test=np.array([0, 1, 0]), out_dim=2, progress=False),
    "lib.finite.benchmark.run_benchmark": None,
    "lib.finite.benchmark.run_method": None,
    "lib.finite.benchmark_tables.target_row": lambda: dict(df=_bench_rows(), n=4, depth=1),
    "lib.finite.cost_model.flop_count": lambda: dict(method="ours", n=4, in_dim=5, width=8, depth=2),
    "lib.finite.cost_model.memory_estimate": lambda: dict(method="ours", n=4, in_dim=5, width=8, depth=2),
    "lib.finite.cost_model.ntk_vp_chunk": lambda: dict(n=4, in_dim=5, width=8, depth=2, memory_budget=2**30),
    "lib.finite.cost_model.param_count": lambda: dict(in_dim=5, width=8, depth=2),
    "lib.finite.extremes.bench.run_scale_case": None,
    "lib.finite.extremes.bench.scale_inputs": lambda: dict(data="gaussian", n=4, in_dim=5, seed=0),
    "lib.finite.extremes.bench.scale_case": lambda: dict(n=6, depth=1, width=8, in_dim=5, seed=0,
                                                         method="matrix_free", lambda_min="bounds", shift=None),
    "lib.finite.extremes.cholesky.TiledCholesky": lambda: dict(n=6, tile=4),
    "lib.finite.extremes.cholesky.lambda_min_lower_bound": lambda: dict(op=_op(), tile=4, progress=False),
    "lib.finite.extremes.cholesky.tiled_bytes": lambda: dict(n=6, tile=4),
    "lib.finite.extremes.core.ntk_extremes": lambda: dict(model=_mlp(), X=_unit_rows(6, 5), progress=False),
    "lib.finite.extremes.operator.MatrixFreeNTK": lambda: dict(terms=_op().terms),
    "lib.finite.extremes.scan.lambda_max_bounds": lambda: dict(op=_op(), progress=False),
    "lib.finite.extremes.scan.lambda_min_upper_bound": lambda: dict(op=_op(), scan=_scan(), progress=False),
    "lib.finite.extremes.scan.min_angle_scan": lambda: dict(op=_op(), progress=False),
    "lib.finite.geometry.input_angle": lambda: dict(x=np.array([1.0, 0, 0]), z=np.array([1.0, 1.0, 0])),
    "lib.finite.hessian.power_iteration": lambda: dict(matvec=lambda v: 2 * v, dim=3),
    "lib.finite.hessian.dense_model_hessian": lambda: dict(model=_mlp(1, 3), x=_unit_rows(1, 5)[0]),
    "lib.finite.hessian.model_hessian_norm": lambda: dict(model=_mlp(1, 4), X=_unit_rows(2, 5)),
    "lib.finite.hessian_bounds.one_layer_hessian_norm": lambda: dict(model=_mlp(1, 4, activation="tanh"),
                                                                      x=_unit_rows(1, 5)[0]),
    "lib.finite.hessian_bounds.two_layer_bound": lambda: dict(model=_mlp(2, 4, activation="tanh"),
                                                              x=_unit_rows(1, 5)[0]),
    "lib.finite.hessian_bounds.second_derivative": lambda: dict(activation=_tanh(), z=torch.linspace(-1, 1, 5)),
    "lib.finite.mlp.MLP": lambda: dict(in_dim=5, width=8, depth=2, seed=0, out_dim=1),
    "lib.finite.ntk.bias_ntk": lambda: dict(A=_factors()[0], D=_factors()[1], bias_scale=0.5),
    "lib.finite.ntk.check_kernel": lambda: dict(K=torch.as_tensor(_kernel(4)), X=torch.as_tensor(_unit_rows(4, 5))),
    "lib.finite.ntk.empirical_ntk": lambda: dict(model=_mlp(), X=_unit_rows(4, 5), block_size=2, chunk_size=3),
    "lib.finite.ntk.gram_upper": lambda: dict(A=_unit_rows(4, 5)),
    "lib.finite.ntk.linear_features": lambda: dict(net=_mlp(activation="linear"), X=_unit_rows(4, 5)),
    "lib.finite.ntk.ntk_from_factors": lambda: dict(A=_factors()[0], D=_factors()[1], block_size=2),
    "lib.finite.ntk.relu_depth_batch_kernels": lambda: dict(X=_unit_rows(6, 5), batches=[np.arange(3), np.arange(3, 6)],
                                                            width=8, depths=[0, 1, 2], seed=0),
    "lib.finite.ntk.relu_depth_kernels": lambda: dict(X=_unit_rows(4, 5), width=8, depths=[0, 1, 2], seed=0),
    "lib.finite.reference.jacobian_ntk": lambda: dict(model=_mlp(), X=_unit_rows(3, 5), chunk_size=2),
    "lib.finite.reference.ntk_vp": lambda: dict(model=_mlp(), X=_unit_rows(3, 5), chunk_size=2),
    "lib.finite.sgd_benchmark.run_sgd_benchmark": None,
    "lib.finite.sgd_benchmark.run_sgd_case": None,
    "lib.finite.sgd_benchmark.sgd_update_flops": lambda: dict(batch=10, in_dim=5, width=8, depth=2, out_dim=3),
    "lib.finite.training.accuracy": lambda: dict(model=_mlp(1, 4, out_dim=2), X=_unit_rows(4, 5),
                                                 labels=np.array([0, 1, 0, 1])),
    "lib.finite.training.cross_entropy": lambda: dict(logits=torch.zeros(4, 2), labels=torch.tensor([0, 1, 0, 1])),
    "lib.finite.training.gd_train": lambda: dict(model=_mlp(1, 4), X=_unit_rows(4, 5), y=np.zeros(4), lr=0.1,
                                                 steps=2, progress=False),
    "lib.finite.training.linearized_losses": lambda: dict(K=_kernel(4), r0=np.ones(4), lr=0.1, steps=3),
    "lib.finite.training.lr_grid_search": lambda: dict(make_model=lambda: _mlp(1, 4, out_dim=2),
                                                       X=_unit_rows(4, 5), y=np.array([0, 1, 0, 1]), lrs=[0.1],
                                                       epochs=1, batch_size=2, seed=0, progress=False),
    "lib.finite.training.sgd_train": lambda: dict(model=_mlp(1, 4, out_dim=2), X=_unit_rows(4, 5),
                                                  y=np.array([0, 1, 0, 1]), lr=0.1, epochs=1, batch_size=2, seed=0,
                                                  X_test=_unit_rows(2, 5, seed=2), y_test=np.array([0, 1]),
                                                  progress=False),
    "lib.finite.variants.VariantMLP": lambda: dict(in_dim=5, width=8, depth=2, seed=0, layer_std=[1.0, 2.0, 1.0],
                                                   layer_mult=1.5, bias_std=0.1),
    "lib.finite.variants.variant_ntk": lambda: dict(model=_variant(), X=_unit_rows(3, 5)),
    "lib.finite.variants.layer_weights": lambda: dict(depth=2, layer_std=[1.0, 2.0, 1.0], width=8.0),
    "lib.finite.variants.relu_weighted_gradient_angle": lambda: dict(theta_in=0.7, depth=2, weights=[1.0, 2.0, 1.0]),
    "lib.finite.width_trend.limit_status": lambda: dict(a=0.1, se=0.01, at_max=0.5, slope=-0.5),
    "lib.finite.tangent.model_ntk": lambda: dict(model=_mlp(), X=_unit_rows(3, 5)),
    "lib.finite.wrapped.wrapped_ntk": lambda: dict(model=_wrapped(), X=_unit_rows(3, 5),
                                                   base_kernel=_kernel_of(_wrapped().net, _unit_rows(3, 5))),
    "lib.finite.wrapped.swish": lambda: dict(z=torch.linspace(-1, 1, 5)),
    "lib.finite.wrapped.swish_deriv": lambda: dict(z=torch.linspace(-1, 1, 5)),
    "lib.spectra.fit_slope": lambda: dict(x=[1.0, 2.0, 4.0], y=[1.0, 0.5, 0.25]),
    "lib.spectra.relative_error": lambda: dict(A=np.eye(3) + 0.1, B=np.eye(3)),
    "lib.spectra.extreme_eigenvalues": lambda: dict(K=_kernel(4), method="lanczos", tol=1e-10),
    "lib.theory._common.check_count": lambda: dict(n=3),
    "lib.theory._common.check_depth": lambda: dict(depth=3),
    "lib.theory.aak_bounds.aak_depth_bound": lambda: dict(mu=0.5, delta=0.1, n=10, eps=0.1),
    "lib.theory.dual.hermite_coefficients": lambda: dict(activation="tanh", n_terms=8),
    "lib.theory.dual.hermite_dual_activation": lambda: dict(activation="tanh", rho=0.3, n_terms=8),
    "lib.theory.dual_kernel.ThetaTable": lambda: dict(activation=_tanh(), q=1.0),
    "lib.theory.dual_kernel.theta_table": lambda: dict(activation=_tanh(), q=1.0),
    "lib.theory.dual_kernel.diagonal_expectations": lambda: dict(activation="tanh", q=[1.0, 2.0]),
    "lib.theory.dual_kernel.dual_expectations": lambda: dict(activation="tanh", theta=0.5, q1=1.0, q2=1.5),
    "lib.theory.dual_kernel.layer_map": lambda: dict(activation="tanh", theta=0.5, qi=1.0, qj=1.5),
    "lib.theory.limits.aak_correlation_bound": lambda: dict(activation="norm_relu", delta0=0.5, depth=3),
    "lib.theory.limits.gershgorin_kappa_bound": lambda: dict(n=4, delta=0.1),
    "lib.theory.limits.relu_condition_number_limit": lambda: dict(n=4),
    "lib.theory.limits.relu_normalized_ntk_limit": lambda: dict(n=4),
    "lib.theory.limits.relu_cos_phi_asymptotic": lambda: dict(depth=10, theta_in=0.7),
    "lib.theory.nonlinearity.correlation_map": lambda: dict(activation="tanh", rho=0.3, q1=1.0, q2=1.5),
    "lib.theory.nonlinearity.length_map": lambda: dict(activation="tanh", q0=[1.0, 2.0], depth=3),
    "lib.theory.nonlinearity.hadamard_power_bound": lambda: dict(G=_gram(4), coefficients=[0.0, 1.0, 0.5]),
    "lib.theory.quadrature.pair_expectations": lambda: dict(f=np.tanh, q1=1.0, q2=1.5, theta=0.5),
    "lib.theory.recursion.first_layer_ntk": lambda: dict(X=_unit_rows(3, 5), depth=2, activation="tanh"),
    "lib.theory.recursion.gradient_angle": lambda: dict(theta_in=0.7, depth=2, activation="tanh"),
    "lib.theory.recursion.layer_kernels": lambda: dict(X=_unit_rows(3, 5), depth=2, activation="tanh"),
    "lib.theory.recursion.nngp": lambda: dict(X=_unit_rows(3, 5), depth=2, activation="tanh"),
    "lib.theory.recursion.ntk": lambda: dict(X=_unit_rows(3, 5), depth=2, activation="tanh"),
    "lib.theory.relu.relu_gradient_angle_weighted": lambda: dict(theta_in=0.7, depth=2, layer_weights=[1.0, 2.0, 1.0]),
    "lib.theory.relu_cross.relu_ntk_between": lambda: dict(X=_unit_rows(3, 5), Z=_unit_rows(2, 5, seed=3), depth=2,
                                                           grid=33),
    "lib.validation.as_data": lambda: dict(X=_unit_rows(3, 5), in_dim=5),
    "lib.validation.as_row": lambda: dict(x=_unit_rows(1, 5)[0], in_dim=5),
    "lib.validation.as_tensor": lambda: dict(X=_unit_rows(3, 5), in_dim=5),
    "lib.validation.check_labels": lambda: dict(y=[0, 1, 2], n=3),
    "lib.validation.check_seeds": lambda: dict(seeds=[0, 1]),
    "lib.validation.derived_seed": lambda: dict(seed=0, offset=3),
}


def _tanh():
    from lib.activations import get_activation
    return get_activation("tanh")


def _authors_net():
    from lib.finite.authors import AuthorsNet
    return AuthorsNet([5, 8, 1], seed=0)


def _variant():
    from lib.finite.variants import VariantMLP
    return VariantMLP(5, 8, 2, seed=0, bias_std=0.5)


def _wrapped():
    from lib.finite.wrapped import OutputWrapped
    return OutputWrapped(_mlp(), "swish")


def _kernel_of(model, X):
    from lib.finite.ntk import empirical_ntk
    return empirical_ntk(model, X)


def _bench_rows():
    import pandas as pd
    return pd.DataFrame([dict(method=m, n=4, width=8, depth=1, in_dim=5, variant="", chunk=None, flops=1.0,
                              status="ok", reason="", seconds=s, peak_mb=1.0, est_mb=1.0, K_path=None, max_rel_diff=0.0,
                              gflops=1.0, matmul_gflops=2.0)
                         for m, s in (("ours", 1.0), ("jacobian", 2.0), ("ntk_vp", 3.0))])


def good_kwargs(home: str, fn) -> dict | None:
    """Good arguments for ``fn`` (None: the good call is not made, see :data:`CALLS`)."""
    if home in CALLS:
        factory = CALLS[home]
        return None if factory is None else factory()
    out = {}
    for name, p in inspect.signature(fn).parameters.items():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.default is inspect.Parameter.empty or name in GENERIC:
            if name not in GENERIC:
                raise KeyError(f"{home}: no good value for its parameter {name!r}: add it to CALLS")
            out[name] = GENERIC[name]()
    if "progress" in inspect.signature(fn).parameters:
        out["progress"] = False
    return out


def _data_files() -> dict:
    """A small .npy file and MNIST-style IDX files (a tempdir, once), for the loaders' refusals."""
    import struct
    import tempfile
    from pathlib import Path
    global _FILES
    if _FILES is None:
        d = Path(tempfile.mkdtemp(prefix="input-classes-"))
        np.save(d / "X.npy", _unit_rows(6, 5))

        def idx(path, arr):
            path.write_bytes(bytes([0, 0, 0x08, arr.ndim]) + struct.pack(f">{arr.ndim}I", *arr.shape)
                             + arr.astype(">u1").tobytes())
        idx(d / "train-images-idx3-ubyte", np.arange(6 * 4, dtype=np.uint8).reshape(6, 2, 2))
        idx(d / "train-labels-idx1-ubyte", np.arange(6, dtype=np.uint8) % 2)
        _FILES = dict(load_array=dict(path=d / "X.npy", n=4), load_idx_dataset=dict(directory=d, n=4))
    return _FILES


_FILES = None


def bare_kwargs(home: str, fn, param: str) -> dict:
    """Arguments for a call that must be refused at ``param``: the good ones where known, else generic values."""
    kw = good_kwargs(home, fn)
    if kw is None:  # the good call is not made: generic values for the required parameters
        kw = {n: GENERIC[n]() for n, p in inspect.signature(fn).parameters.items()
              if p.default is inspect.Parameter.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
              and n in GENERIC}
        extra = {"run_scale_case": dict(n=6, depth=1), "run_method": dict(method="ours", n=4, width=8, depth=1),
                 **_data_files()}
        kw.update(extra.get(home.rsplit(".", 1)[1], {}))
    return kw


def call(fn, kwargs: dict):
    """Call ``fn(**kwargs)``, consuming a generator (its checks run at the first item)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn(**kwargs)
        return list(out) if inspect.isgenerator(out) else out


def refused(fn, kwargs: dict, param: str) -> str:
    """Assert that the call is refused with one message naming ``param``; return the message."""
    try:
        out = call(fn, kwargs)
    except InputError as exc:
        msg = str(exc)
        assert param in msg or param.rstrip("s") in msg, f"{fn.__qualname__}({param}=...): message names " \
                                                         f"another parameter: {msg}"
        assert msg.count("\n") == 0 or "Traceback" not in msg
        return msg
    except Exception as exc:  # noqa: BLE001 - a raw error is what the test looks for
        pytest.fail(f"{fn.__qualname__}({param}={kwargs[param]!r:.60}): raw {type(exc).__name__}: {exc}")
    pytest.fail(f"{fn.__qualname__}({param}={kwargs[param]!r:.60}): silently returned {out!r:.80}")


def cases(key: str) -> list:
    """(function, parameter) pairs of a class."""
    return [(home, p) for home, params in takers(CLASSES[key]).items() for p in params]


def same(a, b) -> bool:
    """Results equal to rounding (arrays, numbers, tuples, dicts, dataclasses, networks by their weights)."""
    if isinstance(a, torch.nn.Module):
        return all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))
    if isinstance(a, (list, tuple)) and not isinstance(a, str):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if hasattr(a, "__dataclass_fields__"):
        return same(vars(a), vars(b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a if not str(k).startswith(TIMING))
    if isinstance(a, (np.ndarray, torch.Tensor, float, int, np.floating)):
        return np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-12, atol=0, equal_nan=True)
    return True  # other objects (activations, operators): the call succeeding is what is checked


# ---- completeness: every enumerated function has a call -------------------------------------------------------

def test_every_public_function_taking_a_class_input_has_a_good_call():
    """A new public function with a seed, an X or a depth must be given a call here (or generic values fit it)."""
    funcs = public_callables()
    missing = []
    for key in ("real", "seed", "order"):
        for home in takers(CLASSES[key]):
            try:
                bare_kwargs(home, funcs[home], "")
            except KeyError as exc:
                missing.append(str(exc))
    assert not missing, missing
    assert set(CALLS) <= set(funcs), f"CALLS names functions that are gone: {sorted(set(CALLS) - set(funcs))}"


@pytest.mark.parametrize("home", sorted({h for k in ("real", "seed", "order") for h in takers(CLASSES[k])}))
def test_the_good_call_computes(home):
    """The good arguments are good: the call returns (so a refusal below is the bad input's doing)."""
    fn = public_callables()[home]
    kw = good_kwargs(home, fn)
    if kw is None:
        pytest.skip(f"{home}: starts a process or needs files this test does not provide; only refusals are driven")
    call(fn, kw)


# ---- class 1: complex numbers are refused, a zero imaginary part changes nothing -------------------------------

def _complex(v, imag: float):
    if isinstance(v, torch.Tensor):
        return v.to(torch.complex128) + imag * 1j
    if isinstance(v, (list, tuple)) and v and isinstance(v[0], torch.Tensor):
        return [_complex(t, imag) for t in v]
    return np.asarray(v) + imag * 1j if np.ndim(v) else complex(v) + imag * 1j


@pytest.mark.parametrize("home,param", cases("real"))
def test_complex_input_is_refused_naming_the_parameter(home, param):
    fn = public_callables()[home]
    kw = bare_kwargs(home, fn, param)
    good = kw.get(param)
    kw[param] = _complex(good if good is not None else GENERIC.get(param, lambda: 0.5)(), 0.25)
    refused(fn, kw, param)


@pytest.mark.parametrize("home,param", cases("real"))
def test_a_zero_imaginary_part_gives_the_answer_of_the_real_input(home, param):
    fn = public_callables()[home]
    kw = good_kwargs(home, fn)
    if kw is None or param not in kw or kw[param] is None:
        pytest.skip("no good call")
    if (home, param) in DTYPE_BOUND:
        kw[param] = _complex(kw[param], 0.0)
        refused(fn, kw, param)
        return
    project = PROJECT.get(home, lambda out: out)
    want = project(call(fn, good_kwargs(home, fn)))
    kw[param] = _complex(kw[param], 0.0)
    assert same(project(call(fn, kw)), want)


@pytest.mark.parametrize("home,param", cases("real"))
def test_text_where_numbers_are_meant_is_refused(home, param):
    fn = public_callables()[home]
    kw = bare_kwargs(home, fn, param)
    kw[param] = "0.5"
    refused(fn, kw, param)


# ---- class 2: seeds ----------------------------------------------------------------------------------------------

BAD_SEEDS = [2**64, 2**63, -1, -2**63 - 1, 1.5, float("nan"), True, "0", None, np.uint64(2**63)]


def _seed_value(param: str, v):
    return [v] if param == "seeds" else v


@pytest.mark.parametrize("home,param", cases("seed"))
@pytest.mark.parametrize("bad", BAD_SEEDS, ids=repr)
def test_a_seed_outside_the_generators_range_is_refused(home, param, bad):
    fn = public_callables()[home]
    kw = bare_kwargs(home, fn, param)
    kw[param] = _seed_value(param, bad)
    refused(fn, kw, param)


@pytest.mark.parametrize("home,param", cases("seed"))
def test_the_largest_seed_is_taken_and_is_deterministic(home, param):
    fn = public_callables()[home]
    kw = good_kwargs(home, fn)
    if kw is None:
        pytest.skip("no good call")
    project = PROJECT.get(home, lambda out: out)
    kw[param] = _seed_value(param, np.int64(SEED_MAX))
    fresh = {**good_kwargs(home, fn), param: _seed_value(param, SEED_MAX)}  # a model trained in place is not reused
    assert same(project(call(fn, kw)), project(call(fn, fresh)))


# ---- class 3: sizes, depths, orders and real parameters -----------------------------------------------------------

#: refused by every parameter of the class, whatever its range
BAD_ORDERS = [2.7, -1, float("nan"), float("inf"), -float("inf"), True, "3", 1 + 1j]


@pytest.mark.parametrize("home,param", cases("order"))
@pytest.mark.parametrize("bad", BAD_ORDERS, ids=repr)
def test_a_bad_size_order_or_number_is_refused_naming_it(home, param, bad):
    fn = public_callables()[home]
    kw = bare_kwargs(home, fn, param)
    good = kw.get(param, GENERIC.get(param, lambda: None)())
    real = _is_real_param(fn, param)
    if bad == -1 and param in ("rho", "b", "a", "shift", "delta0") or (bad == 2.7 and real):
        pytest.skip(f"{bad!r} is a good value of {param}")
    if isinstance(good, (list, tuple)) and param != "layer_sizes":
        bad = [bad]
    kw[param] = bad if param != "layer_sizes" else [5, bad, 1]
    refused(fn, kw, param)


def _is_real_param(fn, param: str) -> bool:
    """A parameter that takes non-integers (annotated float or ArrayLike), where 2.7 is a good value."""
    p = inspect.signature(fn).parameters[param]
    return any(t in str(p.annotation) for t in ("float", "ArrayLike")) or isinstance(p.default, float)



@settings(max_examples=60, deadline=None)
@given(depth=st.one_of(st.integers(-5, 8), st.floats(allow_nan=True, allow_infinity=True)))
def test_depths_of_the_theory_are_integers_never_truncated(depth):
    """Hypothesis over ints and floats: an integer depth >= 0 computes, anything else is refused naming depth."""
    from lib import theory
    for f, kw in ((theory.length_map, dict(activation="relu", q0=[1.0])),
                  (theory.relu_ntk, dict(X=_unit_rows(3, 4))),
                  (theory.relu_gradient_angle, dict(theta_in=0.5))):
        if isinstance(depth, int) and depth >= 0:
            out = f(depth=depth, **kw)
            assert np.all(np.isfinite(out))
        else:
            refused(f, dict(kw, depth=depth), "depth")


def test_the_issue_cases_of_tiny_numbers_are_computed_exactly():
    """eps = 1e-310 and delta = 1e-320 have finite answers: the bound is summed in logs, never through 1/eps."""
    from lib import theory
    mu, delta, n = 0.5, 0.1, 10
    L0 = math.ceil(math.log(1 / (2 * delta)) / math.log1p(mu / 2))
    log_inv_2t = math.log(2 + 1e-310) + math.log(n - 1) - math.log(1e-310) - math.log(2)
    assert theory.aak_depth_bound(mu, delta, n, 1e-310) == L0 + math.ceil(2 / mu * log_inv_2t)
    assert theory.aak_first_phase(mu, 1e-320) == math.ceil(-math.log(2e-320) / math.log1p(0.25))
    assert theory.aak_first_phase(5e-324, 0.25) > 10**300  # a subnormal mu: exact, a 300-digit depth


@settings(max_examples=80, deadline=None)
@given(b=st.floats(-37, 37))
def test_normrelu_closed_forms_hold_to_3e_12_over_their_whole_range(b):
    """NormReLU's mean and variance of max(z, b) against 60-digit (mpmath) values over NORMRELU_B_RANGE, and mu."""
    import mpmath as mp
    from lib.activations import normrelu_constants
    from lib.theory import normrelu_mu
    with mp.workdps(420):
        B = mp.mpf(b)
        p, P = mp.npdf(B), mp.ncdf(B)
        mean = p + B * P
        var = B * B * P + (1 - P) + B * p - mean ** 2
        mu = 1 - (1 - P) ** 2 / var
    c, lam = normrelu_constants(b)
    assert c == pytest.approx(float(mean), rel=3e-12, abs=0) and lam == pytest.approx(float(1 / mp.sqrt(var)),
                                                                                    rel=3e-12)
    assert normrelu_mu(b) == pytest.approx(float(mu), rel=3e-12, abs=1e-15)


@pytest.mark.parametrize("b", [-37.5, 38.0, 1e10, -1e10])
def test_normrelu_beyond_its_range_is_refused_naming_b(b):
    from lib.activations import normrelu_constants, normrelu_lambda
    from lib.theory import normrelu_mu
    for f in (normrelu_constants, normrelu_lambda, normrelu_mu):
        refused(f, dict(b=b), "b")


# ---- class 4: a certified bound certifies or refuses -------------------------------------------------------------

def _hermitian(n: int, rng) -> np.ndarray:
    Z = rng.standard_normal((n, 3)) + 1j * rng.standard_normal((n, 3))
    Z /= np.linalg.norm(Z, axis=1, keepdims=True)
    return Z @ Z.conj().T


@st.composite
def unit_diagonal_matrices(draw):
    """Real Gram matrices, complex Hermitian ones, indefinite unit-diagonal ones, asymmetric ones and NaN."""
    n = draw(st.integers(2, 6))
    rng = np.random.default_rng(draw(st.integers(0, 10_000)))
    kind = draw(st.sampled_from(["gram", "hermitian", "indefinite", "asymmetric", "nan"]))
    X = rng.standard_normal((n, draw(st.integers(1, 6))))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    G = X @ X.T
    if kind == "hermitian":
        G = _hermitian(n, rng)
    elif kind == "indefinite":
        S = rng.uniform(-1, 1, (n, n))
        G = (S + S.T) / 2
        np.fill_diagonal(G, 1.0)
    elif kind == "asymmetric":
        G = G + np.triu(rng.uniform(0.1, 0.3, (n, n)), 1)
    elif kind == "nan":
        G = G.copy()
        G[0, -1] = G[-1, 0] = np.nan
    c = draw(st.lists(st.floats(0, 2), min_size=1, max_size=5))
    return G, c


@settings(max_examples=150, deadline=None)
@given(unit_diagonal_matrices())
def test_hadamard_power_bound_is_a_lower_bound_or_a_refusal(Gc):
    from lib.theory import hadamard_power_bound
    G, c = Gc
    try:
        bound = hadamard_power_bound(G, c)
    except InputError as exc:
        assert "G" in str(exc)
        assert (np.iscomplexobj(G) or not np.all(np.isfinite(G)) or not np.allclose(G, G.T)
                or np.linalg.eigvalsh(G)[0] < -1e-8), f"a valid G was refused: {exc}"
        return
    M = sum(ck * G ** k for k, ck in enumerate(c))
    truth = np.linalg.eigvalsh(M)[0] if np.ndim(M) else float(M)
    assert bound <= truth + 1e-12 * max(1.0, abs(truth)), (bound, truth)


@pytest.mark.parametrize("G,want", [
    (np.array([[1, 0.6j, 0], [-0.6j, 1, 0], [0, 0, 1]]), "complex"),
    (np.array([[1, 0.85, 0], [0.85, 1, 0.85], [0, 0.85, 1]]), "not positive semi-definite"),
    (np.array([[1, np.nan], [np.nan, 1]]), "NaN"),
    (np.array([[1, 0.5], [0.4, 1]]), "not symmetric"),
    (np.array([[2, 0.5], [0.5, 1]]), "unit diagonal"),
])
def test_the_issue_cases_of_the_certified_bound_are_refused(G, want):
    from lib.theory import hadamard_power_bound
    with pytest.raises(InputError, match=want):
        hadamard_power_bound(G, [0, 1])


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 7))
def test_gershgorin_kappa_bound_bounds_kappa_of_every_unit_diagonal_kernel(seed, n):
    from lib.spectra import condition_number
    from lib.theory import gershgorin_kappa_bound
    X = _unit_rows(n, 8, seed=seed)
    K = X @ X.T
    delta = np.abs(K - np.eye(n)).max()
    assert condition_number(K) <= gershgorin_kappa_bound(n, delta) * (1 + 1e-12)


@settings(max_examples=40, deadline=None)
@given(rho=st.floats(-1, 1), name=st.sampled_from(["norm_relu", "norm_tanh", "normrelu", "norm_gelu"]))
def test_the_dual_activation_bound_bounds_the_dual_activation(rho, name):
    from lib.theory import dual_activation, dual_activation_bound
    assert abs(float(dual_activation(name, rho))) <= float(dual_activation_bound(name, rho)) + 1e-12


def test_the_matrix_free_brackets_contain_the_dense_eigenvalues():
    """lambda_max_bounds, lambda_min_upper_bound and the certified lambda_min_lower_bound against eigvalsh."""
    from lib.finite.extremes import lambda_max_bounds, lambda_min_lower_bound, lambda_min_upper_bound
    op = _op()
    ev = np.linalg.eigvalsh(op.dense())
    lo, hi = lambda_max_bounds(op, _scan(), progress=False)[:2]
    assert lo <= ev[-1] * (1 + 1e-12) and ev[-1] <= hi * (1 + 1e-12)
    up, _ = lambda_min_upper_bound(op, _scan(), progress=False)
    assert ev[0] <= up * (1 + 1e-12)
    cert = lambda_min_lower_bound(op, tile=4, progress=False)
    assert cert.lower <= ev[0] <= cert.upper * (1 + 1e-12)


def test_every_public_bound_is_driven_here():
    """The certified bounds of the science layer, by name: each must have a property test above."""
    driven = {"hadamard_power_bound", "gershgorin_kappa_bound", "dual_activation_bound", "lambda_max_bounds",
              "lambda_min_upper_bound", "lambda_min_lower_bound", "aak_correlation_bound", "aak_depth_bound",
              "two_layer_bound"}
    bounds = {home.rsplit(".", 1)[1] for home in public_callables() if home.endswith(("_bound", "_bounds"))}
    assert bounds <= driven, f"bounds without a property test: {sorted(bounds - driven)}"


@settings(max_examples=40, deadline=None)
@given(delta0=st.floats(0, 1), depth=st.integers(0, 6))
def test_aak_correlation_bound_bounds_the_iterated_correlation(delta0, depth):
    from lib.theory import aak_correlation_bound, dual_activation
    bound = aak_correlation_bound("norm_relu", delta0, depth)
    rho = delta0
    for l in range(depth + 1):
        assert abs(rho) <= bound[l] + 1e-12
        rho = float(dual_activation("norm_relu", rho))


def test_aak_depth_bound_holds_where_it_can_be_measured():
    """At the bound's depth the normalized ReLU's top-layer kernel of unit inputs has kappa <= 1 + eps."""
    from lib.theory import aak_depth_bound, coefficient_of_nonlinearity, dual_activation
    from lib.theory import gershgorin_kappa_bound
    mu, delta, n, eps = coefficient_of_nonlinearity("norm_relu"), 0.2, 5, 0.5
    L = aak_depth_bound(mu, delta, n, eps)
    rho = 1 - delta
    for _ in range(L):
        rho = float(dual_activation("norm_relu", rho))
    assert gershgorin_kappa_bound(n, abs(rho)) <= 1 + eps


def test_two_layer_bound_bounds_the_hessian_norm():
    from lib.finite.hessian import dense_model_hessian
    from lib.finite.hessian_bounds import two_layer_bound
    model = _mlp(2, 4, activation="tanh")
    for p in list(model.parameters())[-1:]:
        p.requires_grad_(False)  # [LZB] Prop 3.1 fixes the output layer
    x = _unit_rows(1, 5)[0]
    assert np.linalg.norm(dense_model_hessian(model, x), 2) <= two_layer_bound(model, x).bound * (1 + 1e-12)


# ---- class 6: a writer checks what it writes, and leaves the file when it refuses --------------------------------

def _snapshot(folder) -> dict:
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("bad", [0, -3, 2.5, float("nan"), float("inf"), "a\nb", None, [1, "x"]], ids=repr)
def test_the_spec_writer_refuses_every_default_its_checker_or_the_reader_refuses(tmp_path, bad):
    """Every checker kind of lib.book.params with each value: a default the checker refuses, or one whose line would
    not read back (NaN, inf, a newline), leaves the folder as it was; a good one is written."""
    import ast

    from lib.book import params as P
    from lib.book.params import ParameterError
    from lib.book.spec import ChapterSpec, Param
    from lib.site.specs import write_cells
    src = tmp_path / "09_demo.py"
    src.write_text('# %% tags=["parameters"]\nprofile = "x"\n\n# %%\nprint(1)\n')
    checkers = dict(count=P.positive_int, sizes=P.int_list(min_value=1), rate=P.positive_float,
                    name=P.text, rates=P.float_list(), flag=P.boolean, seed=P.seed)
    for name, check in checkers.items():
        try:
            check(name, bad)
            accepted = True
        except ParameterError:
            accepted = False
        try:
            writable = "\n" not in str(bad) and ast.literal_eval(repr(bad)) == bad
        except (ValueError, SyntaxError):
            writable = False
        spec = ChapterSpec("09_demo", dict(profile=Param("default", P.text, "profile"),
                                           **{name: Param(bad, check, "the value")}))
        before = _snapshot(tmp_path)
        if accepted and writable:  # a good default of this checker: written, and read back
            write_cells({src: spec})
            assert f"{name} = {bad!r}" in src.read_text()
            continue
        with pytest.raises(ParameterError, match=name):
            write_cells({src: spec})
        assert _snapshot(tmp_path) == before


@pytest.mark.parametrize("value", [object(), {1, 2}, b"bytes", 1j], ids=repr)
def test_the_cache_refuses_a_result_it_cannot_store_and_keeps_what_it_had(tmp_path, value):
    from lib.book.cache import cached_call
    cached_call("demo", {"n": 1}, lambda: {"k": 3.0}, cache_dir=tmp_path)
    before = _snapshot(tmp_path)
    with pytest.raises(InputError):
        cached_call("demo", {"n": 2}, lambda: {"k": value}, cache_dir=tmp_path)
    assert _snapshot(tmp_path) == before


# ---- class 10: refuse only what is really lost ----------------------------------------------------------------------

@pytest.mark.parametrize("scale", [1e-100, 1e-140, 1e-150, 1e-153, 1e-154])
def test_a_small_input_whose_kernel_is_made_of_normal_floats_is_computed_exactly(scale):
    """X * 1e-150: the NTK's entries are about 1e-300, normal floats; its kappa equals the unscaled one."""
    from lib.finite.extremes import ntk_extremes
    from lib.finite.ntk import empirical_ntk
    from lib.spectra import condition_number
    X = _unit_rows(6, 5)
    K, Ks = empirical_ntk(_mlp(), X), empirical_ntk(_mlp(), X * scale)
    assert np.abs(Ks).max() >= np.finfo(float).tiny
    assert condition_number(Ks) == pytest.approx(condition_number(K), rel=1e-13)
    e, es = ntk_extremes(_mlp(), X, progress=False), ntk_extremes(_mlp(), X * scale, progress=False)
    assert es.kappa == pytest.approx(e.kappa, rel=1e-13)


@pytest.mark.parametrize("scale", [1e-155, 1e-160, 1e-200])
def test_an_input_whose_kernel_is_subnormal_is_refused(scale):
    from lib.finite.extremes import ntk_extremes
    from lib.finite.ntk import empirical_ntk
    X = _unit_rows(6, 5) * scale
    for f in (empirical_ntk, ntk_extremes):
        with pytest.raises(InputError, match="subnormal|underflowed"):
            f(_mlp(), X) if f is empirical_ntk else f(_mlp(), X, progress=False)


@settings(max_examples=80, deadline=None)
@given(exponent=st.floats(-323.5, -250))
def test_a_kernel_is_refused_exactly_when_its_entries_are_subnormal(exponent):
    """Over scales 1e-250..1e-323: refused iff max |K| < tiny (2.2e-308); else kappa exact to 1e-13."""
    from lib.spectra import condition_number
    K = _kernel(5)
    Ks = K * 10.0 ** exponent
    if not np.any(Ks):
        return  # all zero: the zero-kernel message, another case
    if np.abs(Ks).max() < np.finfo(float).tiny:
        with pytest.raises(InputError, match="subnormal"):
            condition_number(Ks)
    else:
        assert condition_number(Ks) == pytest.approx(condition_number(K), rel=1e-13)


# ---- nothing is lost: a refused input leaves caches and results as they were --------------------------------------

def test_a_refused_input_leaves_the_angle_scan_cache_as_it_was(tmp_path):
    from lib.finite.extremes import ntk_extremes
    X = _unit_rows(6, 5)
    ntk_extremes(_mlp(), X, method="matrix_free", lambda_min="bounds", cache_dir=tmp_path, progress=False)
    before = _snapshot(tmp_path)
    for bad in (dict(X=X + 0.5j), dict(X=X * 1e-160), dict(X=X, block_size=2.5), dict(X=X, delta=float("nan"))):
        with pytest.raises(InputError):
            ntk_extremes(_mlp(), **{"method": "matrix_free", "lambda_min": "bounds", "cache_dir": tmp_path,
                                    "progress": False, **bad})
    assert _snapshot(tmp_path) == before


# ---- the chapters: their inputs enter through their parameter specs ------------------------------------------------

def _chapter_seed_params() -> list[tuple[str, str]]:
    from lib.site.specs import CHAPTER_PACKAGES, chapter_spec
    return [(stem, name) for stem in CHAPTER_PACKAGES if chapter_spec(stem) is not None
            for name in chapter_spec(stem).params if name.endswith("seed")]


@pytest.mark.parametrize("stem,name", _chapter_seed_params())
@pytest.mark.parametrize("bad", [2**64, 2**63, -1, 1.5, True, "0"], ids=repr)
def test_every_seed_parameter_of_a_chapter_refuses_what_the_generators_refuse(stem, name, bad):
    """A notebook's seed (not a count of seeds) is refused by its spec, before the notebook computes anything."""
    from lib.book.params import ParameterError
    from lib.site.specs import chapter_spec
    with pytest.raises(ParameterError, match=name):
        chapter_spec(stem).config(**{name: bad})
    assert getattr(chapter_spec(stem).config(**{name: SEED_MAX}), name) == SEED_MAX


#: good arguments of the chapter functions that take a seed, where the entry check does not come first
CHAPTER_CALLS = {
    "lib.chapters.optimization.gd.gd_data": lambda: dict(data="Gaussian", n=4),
    "lib.chapters.optimization.gd.measure_gd": lambda: dict(data="Gaussian", n=4, depths=[1], width=8, steps=1),
    "lib.chapters.optimization.sgd.mnist5k_split": lambda: {},
    "lib.chapters.optimization.sgd.stratified_split": lambda: dict(y=np.arange(6) % 2, n_test=2),
    "lib.chapters.optimization.sgd.train_test_split": lambda: dict(X=_unit_rows(6, 5), y=np.arange(6) % 2, n_test=2),
}


def _chapter_seed_functions() -> list:
    out = []
    for home, fn in public_callables(("lib.chapters",)).items():
        if "seed" in inspect.signature(fn).parameters:
            out.append(pytest.param(home, id=home.replace("lib.chapters.", "")))
    return out


@pytest.mark.parametrize("home", _chapter_seed_functions())
def test_every_chapter_function_taking_a_seed_refuses_one_out_of_range_before_any_work(home):
    """The chapters' public functions with a ``seed`` check it first (the other arguments are left None unless
    CHAPTER_CALLS gives them): a seed out of range costs nothing and is named."""
    fn = public_callables(("lib.chapters",))[home]
    kw = CHAPTER_CALLS[home]() if home in CHAPTER_CALLS else {
        n: None for n, p in inspect.signature(fn).parameters.items()
        if p.default is inspect.Parameter.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
    for bad in (2**64, -1, 1.5, True):
        refused(fn, {**kw, "seed": bad}, "seed")
