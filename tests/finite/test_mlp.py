import math

import numpy as np
import pytest
import torch

from lib.activations import ACTIVATIONS, get_activation, normrelu, AAK_NORMRELU_LAMBDA
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk, ntk_with_layer_terms
from lib.finite.variants import VariantMLP
from lib.finite.wrapped import swish, swish_deriv


def test_shapes_and_depth_zero_is_linear_model(rng):
    X = rng.standard_normal((7, 3))
    net = MLP(3, 16, 0)
    W = net.weights[0].detach().numpy()
    np.testing.assert_allclose(net(X).detach().numpy(), X @ W[0], rtol=1e-14)
    assert MLP(3, 16, 4)(X).shape == (7,)
    assert MLP(3, 16, 2, out_dim=4)(X).shape == (7, 4)


def test_forward_matches_manual_formula(rng):
    # [LH] Eq. (1), written out independently of lib.finite.mlp
    X = rng.standard_normal((5, 4))
    net = MLP(4, 32, 2, activation="tanh", seed=3)
    Ws = [w.detach().numpy() for w in net.weights]
    c = get_activation("tanh").c
    a = X
    for W in Ws[:-1]:
        a = math.sqrt(c / W.shape[0]) * np.tanh(a @ W.T)
    np.testing.assert_allclose(net(X).detach().numpy(), (a @ Ws[-1].T)[:, 0], rtol=1e-12)


def test_seed_determinism_and_independence(rng):
    X = rng.standard_normal((3, 2))
    a, b, c = MLP(2, 8, 2, seed=1), MLP(2, 8, 2, seed=1), MLP(2, 8, 2, seed=2)
    assert torch.equal(a(X), b(X))
    assert not torch.equal(a(X), c(X))


def test_weights_are_standard_normal():
    W = MLP(400, 400, 1, seed=0).weights[0].detach().numpy().ravel()
    # 160000 draws: sample mean sd 1/400, sample variance sd sqrt(2/160000) = 0.0035
    assert abs(W.mean()) < 5 / 400
    assert abs(W.var() - 1) < 5 * 0.0035


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_c_s_normalizes_second_moment(name):
    act = ACTIVATIONS[name]
    # Monte Carlo check of c_s = 1 / E[s(z)^2] with 2e6 samples, independent of the quadrature
    z = np.random.default_rng(0).standard_normal(2_000_000)
    m2 = np.mean(act.np_fn(z) ** 2)
    sd = np.std(act.np_fn(z) ** 2) / math.sqrt(z.size)
    assert abs(act.c * m2 - 1) < 6 * act.c * sd + 1e-12
    # and the torch and numpy versions agree
    t = torch.linspace(-4, 4, 101, dtype=torch.float64)
    np.testing.assert_allclose(act(t).numpy(), act.np_fn(t.numpy()), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", [n for n in ACTIVATIONS if n.startswith("norm")])
def test_normalized_activations_are_centred_and_unit(name):
    act = ACTIVATIONS[name]
    assert abs(act.mean) < 1e-10
    assert abs(act.second_moment - 1) < 1e-10


def test_derivatives_match_finite_differences():
    z = np.linspace(-3, 3, 61) + 0.013  # avoid the kinks exactly
    for act in ACTIVATIONS.values():
        h = 1e-6
        fd = (act.np_fn(z + h) - act.np_fn(z - h)) / (2 * h)
        np.testing.assert_allclose(act.np_deriv(z), fd, rtol=1e-5, atol=1e-6, err_msg=act.name)


def test_torch_derivatives_match_numpy_derivatives():
    z = torch.linspace(-3, 3, 61, dtype=torch.float64) + 0.013  # avoid the kinks exactly
    for act in ACTIVATIONS.values():
        np.testing.assert_allclose(act.deriv(z).numpy(), act.np_deriv(z.numpy()), rtol=1e-12, atol=1e-13,
                                   err_msg=act.name)
    assert ACTIVATIONS["swish"].torch_deriv is not None  # closed form; the others use autograd
    assert ACTIVATIONS["relu"].deriv(z).dtype == torch.float64


def test_wrapped_swish_is_the_registry_swish():
    z = torch.linspace(-5, 5, 101, dtype=torch.float64)
    assert torch.equal(swish(z), ACTIVATIONS["swish"].torch_fn(z))
    s = torch.sigmoid(z)
    assert torch.equal(swish_deriv(z), s * (1 + z * (1 - s)))


def test_normrelu_matches_aak_scale():
    act = normrelu()
    b = float(act.name.split("=")[1].rstrip(")"))
    z = np.random.default_rng(1).standard_normal(1_000_000)
    lam = 1 / np.std(np.maximum(z, b))
    assert abs(lam - AAK_NORMRELU_LAMBDA) < 5e-3


@pytest.mark.parametrize("kwargs, message", [
    (dict(in_dim=3, width=-1, depth=2), "width must be a positive integer"),
    (dict(in_dim=3, width=0, depth=2), "width must be a positive integer"),
    (dict(in_dim=3, width=8, depth=-1), "depth must be a non-negative integer"),
    (dict(in_dim=0, width=8, depth=1), "in_dim must be a positive integer"),
    (dict(in_dim=3, width=8, depth=1, activation="sigmoidz"), "unknown activation 'sigmoidz'"),
    (dict(in_dim=3, width=8, depth=1, device="cuda:7"), "device"),
    (dict(in_dim=3, width=8, depth=1, device="banana"), "unknown device"),
    (dict(in_dim=3, width=[8, 4], depth=3), "does not match"),
])
def test_bad_construction_is_a_clear_error(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        MLP(**kwargs)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.int64, torch.complex128, "float64"])
def test_unsupported_dtype_is_a_clear_error(dtype):
    with pytest.raises(ValueError, match=r"dtype must be torch.float32 or torch.float64, got") as info:
        MLP(3, 8, 1, dtype=dtype)
    assert repr(dtype) in str(info.value)
    with pytest.raises(ValueError, match="dtype must be"):
        VariantMLP(3, 8, 1, dtype=dtype, bias_std=0.5)


def test_float32_network_gives_float64_kernels(rng):
    X = rng.standard_normal((5, 3))
    net32 = MLP(3, 8, 2, dtype=torch.float32, seed=1)
    assert net32.dtype == torch.float32
    K32 = empirical_ntk(net32, X)
    assert K32.dtype == np.float64
    K, T = ntk_with_layer_terms(net32, X)
    assert K.dtype == np.float64 and T[1].dtype == np.float64
    net64 = MLP(3, 8, 2, seed=1)
    with torch.no_grad():
        for w64, w32 in zip(net64.weights, net32.weights):
            w64.copy_(w32.double())
    np.testing.assert_allclose(K32, empirical_ntk(net64, X), rtol=1e-5)


def test_bad_data_is_a_clear_error():
    net = MLP(3, 8, 1)
    with pytest.raises(ValueError, match="NaN or inf"):
        net(np.array([[1.0, np.nan, 0.0]]))
    with pytest.raises(ValueError, match="columns but the model expects in_dim=3"):
        net(np.ones((2, 4)))
    with pytest.raises(ValueError, match=r"shape \(n, d\)"):
        net(np.ones(3))


def test_too_wide_network_is_refused_before_allocating(monkeypatch):
    """width=10**7 would need ~7e5 GiB: refused at once, naming the estimate, the limit and width."""
    import lib.validation
    from lib.validation import InputError

    monkeypatch.setattr(lib.validation, "available_memory", lambda: 8 * 2**30)
    with pytest.raises(InputError, match=r"would need about 7\.45e\+05 GiB but only 8 GiB.*reduce width") as exc:
        MLP(5, width=10_000_000, depth=2)
    assert "width=10000000" in str(exc.value)
    assert isinstance(exc.value, ValueError)
    monkeypatch.setattr(lib.validation, "available_memory", lambda: None)  # unknown limit: no check
    assert MLP(3, 8, 1).depth == 1


@pytest.mark.parametrize("kwargs, exc_type, message", [
    (dict(width=0, depth=1), ValueError, "width must be a positive integer, got 0"),
    (dict(width=-3, depth=1), ValueError, "width must be a positive integer, got -3"),
    (dict(width=2.5, depth=1), TypeError, "width must be a positive integer, got 2.5"),
    (dict(width=True, depth=1), TypeError, "width must be a positive integer, got True"),
    (dict(width=4, depth=True), TypeError, r"depth must be a non-negative integer .*got True"),
    (dict(width=4, depth=1.0), TypeError, r"depth must be a non-negative integer .*got 1\.0"),
    (dict(width=4, depth=-1), ValueError, "depth must be a non-negative integer"),
])
def test_bad_width_or_depth_is_an_input_error(kwargs, exc_type, message):
    from lib.validation import InputError

    with pytest.raises(InputError, match=message) as exc:
        MLP(3, **kwargs)
    assert isinstance(exc.value, exc_type)
