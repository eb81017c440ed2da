"""The one home of the tangent kernel of any model (lib.finite.tangent): its dispatch, against the routines it
replaced, and its refusals."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from lib.finite.archs import Conv1dNet, ResMLP
from lib.finite.mlp import MLP
from lib.finite.ntk import bias_ntk, empirical_ntk, layer_factors, ntk_from_factors
from lib.finite.reference import jacobian, jacobian_ntk, model_inputs
from lib.finite.tangent import model_ntk, pair_gradient_angles
from lib.finite.variants import VariantMLP, variant_ntk
from lib.finite.wrapped import OutputWrapped, wrapped_ntk
from lib.validation import InputError, InputTypeError


def _rows(n: int, d: int, seed: int = 0) -> np.ndarray:
    X = np.random.default_rng(seed).standard_normal((n, d))
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def _autograd_gradients(model, X) -> list[torch.Tensor]:
    """The routine lib/chapters/non_constancy/lzb_measure.py had (its _grads): one autograd pass per sample over
    the trainable parameters of a scalar model (inputs checked as the library checks them)."""
    Xt = model_inputs(model, X)
    params = [p for p in model.parameters() if p.requires_grad]
    out = []
    for i in range(Xt.shape[0]):
        with torch.enable_grad():
            f = model(Xt[i:i + 1]).reshape(-1)[0]
            out.append(torch.cat([g.reshape(-1) for g in torch.autograd.grad(f, params)]).detach())
    return out


def _old_gram(model, X) -> np.ndarray:
    g = _autograd_gradients(model, X)
    return np.array([[float(a @ b) for b in g] for a in g])


def _old_model_ntk(model, X) -> np.ndarray:
    """lib.finite.wrapped.model_ntk as it was (dispatch by isinstance)."""
    if isinstance(model, OutputWrapped):
        return wrapped_ntk(model, X)
    if isinstance(model, MLP):
        return empirical_ntk(model, X)
    raise TypeError(type(model).__name__)


def _old_variant_ntk(model, X) -> np.ndarray:
    """VariantMLP.ntk as it was."""
    A, D = layer_factors(model, X)
    K = ntk_from_factors(A, D)
    return K if model.biases is None else K + bias_ntk(A, D, model.bias_mult)


def _rel(a, b) -> float:
    return float(np.abs(np.asarray(a) - np.asarray(b)).max() / np.abs(np.asarray(b)).max())


MODELS = {
    "mlp": lambda: MLP(5, 16, 2, activation="tanh", seed=1),
    "mlp_k3": lambda: MLP(5, 16, 2, activation="relu", seed=1, out_dim=3),
    "variant": lambda: VariantMLP(5, 12, 2, activation="tanh", seed=2, bias_std=0.4, layer_std=[1.0, 2.0, 0.5]),
    "variant_standard": lambda: VariantMLP(5, 12, 2, seed=2, parameterization="standard"),
    "swish": lambda: OutputWrapped(MLP(5, 16, 1, activation="tanh", seed=3), "swish", center=True),
    "softmax": lambda: OutputWrapped(MLP(5, 16, 1, activation="tanh", seed=3, out_dim=3), "softmax"),
    "cnn": lambda: Conv1dNet(5, 4, activation="tanh", seed=4),
    "resnet": lambda: ResMLP(5, 8, activation="tanh", seed=5),
    "sequential": lambda: torch.nn.Sequential(torch.nn.Linear(5, 7), torch.nn.Tanh(), torch.nn.Linear(7, 1)).double(),
}

#: what each class got from the dispatchers before (None: no exact method, refused by both)
OLD = {"mlp": _old_model_ntk, "mlp_k3": _old_model_ntk, "variant": _old_variant_ntk,
       "variant_standard": _old_variant_ntk, "swish": _old_model_ntk, "softmax": _old_model_ntk}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_model_ntk_equals_the_old_routine_and_the_jacobian_contraction(name):
    model, X = MODELS[name](), _rows(6, 5)
    K = model_ntk(model, X)
    assert K.dtype == np.float64 and K.shape[0] == K.shape[1] and _rel(K, K.T) < 1e-14
    if name in OLD:  # the same routine as before: identical numbers
        np.testing.assert_array_equal(K, OLD[name](model, X))
    assert _rel(K, jacobian_ntk(model, X)) < 1e-12
    if name not in ("mlp_k3", "softmax"):  # scalar models: the hand-written per-sample gradients of lzb_measure
        assert _rel(K, _old_gram(model, X)) < 1e-12


def test_the_segment_quantities_of_lzb_measure_are_unchanged():
    """[LZB] Prop 2.3's dK and bound from the kernel equal those of the old per-sample gradients (float64)."""
    for model in (MLP(4, 8, 1, activation="tanh", seed=0),
                  OutputWrapped(MLP(4, 8, 1, activation="tanh", seed=0), "swish", center=True)):
        X = _rows(3, 4, seed=1)
        K0, g0 = model_ntk(model, X), _autograd_gradients(model, X)
        with torch.no_grad():
            for p in model.parameters():
                p.add_(0.3 * torch.randn(p.shape, generator=torch.Generator().manual_seed(7), dtype=p.dtype))
        K1, g1 = model_ntk(model, X), _autograd_gradients(model, X)
        for i in range(3):
            for j in range(i, 3):
                old_dk = abs(float(g1[i] @ g1[j] - g0[i] @ g0[j]))
                assert abs(abs(K1[i, j] - K0[i, j]) - old_dk) < 1e-14 * abs(K1).max()
                assert math.isclose(math.sqrt(K1[j, j]), float(g1[j].norm()), rel_tol=1e-14)
                assert math.isclose(math.sqrt(K0[i, i]), float(g0[i].norm()), rel_tol=1e-14)


@settings(max_examples=25, deadline=None)
@given(width=st.integers(1, 12), depth=st.integers(0, 3), n=st.integers(1, 5), seed=st.integers(0, 2**31),
       activation=st.sampled_from(["relu", "tanh", "gelu"]))
def test_mlp_kernel_is_the_gram_of_its_per_sample_gradients(width, depth, n, seed, activation):
    net = MLP(4, width, depth, activation=activation, seed=seed)
    X = _rows(n, 4, seed=seed % 1000)
    J = jacobian(net, X)
    assert J.shape == (n, 1, sum(p.numel() for p in net.parameters()))
    F = J.reshape(n, -1)
    ref = (F @ F.T).numpy()
    np.testing.assert_allclose(model_ntk(net, X), ref, rtol=1e-12, atol=1e-12 * np.abs(ref).max())
    np.testing.assert_allclose(F.numpy(), torch.stack(_autograd_gradients(net, X)).numpy(), rtol=1e-13, atol=1e-15)


@settings(max_examples=15, deadline=None)
@given(bias=st.floats(0.0, 2.0), std=st.floats(0.3, 3.0), seed=st.integers(0, 2**31),
       par=st.sampled_from(["ntk", "standard"]))
def test_variant_kernel_is_the_gram_of_all_its_parameters(bias, std, seed, par):
    net = VariantMLP(4, 6, 2, seed=seed, bias_std=bias, layer_std=std, parameterization=par)
    X = _rows(4, 4, seed=seed % 1000)
    K = model_ntk(net, X)
    np.testing.assert_array_equal(K, _old_variant_ntk(net, X))
    ref = _old_gram(net, X)
    np.testing.assert_allclose(K, ref, rtol=1e-12, atol=1e-12 * np.abs(ref).max())


def test_layers_are_passed_down_and_refused_where_they_mean_nothing():
    X = _rows(5, 5)
    net = MLP(5, 8, 3, seed=0)
    np.testing.assert_array_equal(model_ntk(net, X, layers="first"), empirical_ntk(net, X, layers="first"))
    w = OutputWrapped(MLP(5, 8, 2, seed=0), "swish")
    assert _rel(model_ntk(w, X, layers=[2, 3]), jacobian_ntk(_Frozen(w, ["net.weights.0"]), X)) < 1e-12
    v = VariantMLP(5, 8, 2, seed=0)
    np.testing.assert_array_equal(model_ntk(v, X, layers=[1]), empirical_ntk(MLP(5, 8, 2, seed=0), X, layers=[1]))
    with pytest.raises(InputError, match="layers=\\[1\\]: a VariantMLP with biases"):
        model_ntk(VariantMLP(5, 8, 2, seed=0, bias_std=0.1), X, layers=[1])
    with pytest.raises(InputError, match="layer selection is only supported"):
        model_ntk(ResMLP(5, 8), X, layers="first")
    with pytest.raises(InputError, match="base_kernel or layers"):
        wrapped_ntk(w, X, base_kernel=np.eye(5), layers=[1])


class _Frozen(torch.nn.Module):
    """A model whose named parameters leave some out (frozen), for the Jacobian reference of a layer selection."""

    def __init__(self, model, frozen):
        super().__init__()
        self.model, self.frozen = model, set(frozen)

    def named_parameters(self, *a, **k):
        return ((n, p) for n, p in super().named_parameters(*a, **k) if n.removeprefix("model.") not in self.frozen)

    def forward(self, X):
        return self.model(X, validate=False)


@pytest.mark.parametrize("bad", ["mlp", None, 3.0, np.eye(3), lambda X: X, torch.ones(3)])
def test_a_model_that_is_not_a_module_is_refused_naming_model(bad):
    with pytest.raises(InputTypeError, match="^model must be a torch.nn.Module"):
        model_ntk(bad, _rows(3, 5))
    with pytest.raises(InputTypeError, match="^model must be a torch.nn.Module"):
        jacobian(bad, _rows(3, 5))


@pytest.mark.parametrize("name", ["mlp", "variant", "swish", "cnn", "sequential"])
@pytest.mark.parametrize("X, what", [(np.ones((3, 4)), "columns|shape"), (np.full((3, 5), np.nan), "NaN|finite"),
                                     (np.ones((3, 5)) + 1j, "complex"), ("abc", "X")])
def test_bad_inputs_are_refused_naming_x(name, X, what):
    with pytest.raises(InputError, match=what) as e:
        model_ntk(MODELS[name](), X)
    assert "X" in str(e.value)


def test_a_model_without_parameters_is_refused():
    with pytest.raises(InputError, match="has no parameters"):
        model_ntk(torch.nn.Identity(), _rows(3, 5))


def test_pair_gradient_angles_read_the_one_kernel():
    X = _rows(6, 5)
    for model in (MLP(5, 16, 2, seed=0), VariantMLP(5, 16, 2, seed=0, bias_std=0.3),
                  OutputWrapped(MLP(5, 16, 1, seed=0), "swish"), ResMLP(5, 8)):
        K = model_ntk(model, X)
        cos = [K[2 * i, 2 * i + 1] / math.sqrt(K[2 * i, 2 * i] * K[2 * i + 1, 2 * i + 1]) for i in range(3)]
        np.testing.assert_allclose(np.cos(pair_gradient_angles(model, X)), cos, atol=1e-12)


def test_float32_models_keep_their_dtype_below_and_float64_above():
    net = MLP(5, 8, 2, seed=0, dtype=torch.float32)
    X = _rows(4, 5)
    assert jacobian(net, X).dtype == torch.float32
    K = model_ntk(net, X)
    assert K.dtype == np.float64  # empirical_ntk: assembled in the model's dtype, returned as float64
    assert _rel(K, jacobian_ntk(net, X)) < 1e-5  # float32 digits
    assert jacobian_ntk(net, X).dtype == np.float32
    assert variant_ntk(VariantMLP(5, 8, 2, seed=0, dtype=torch.float32), X).dtype == np.float64
