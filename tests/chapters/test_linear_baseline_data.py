"""Chapter 01 data sets (lib.chapters.linear_baseline.data): bad parameters are refused, naming them."""
import numpy as np
import pytest

from lib.book.params import ParameterError
from lib.chapters.linear_baseline import data as D


def test_load_data_returns_unit_digits_with_an_invertible_gram_and_n_over_gaussian_points():
    X, X_over = D.load_data(16, 12, 4)
    assert X.shape == (16, 64) and X_over.shape == (12, 4)
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1.0)
    assert np.linalg.matrix_rank(X) == 16


def test_load_data_refuses_a_singular_gram_matrix_naming_the_parameter():
    with pytest.raises(ParameterError, match=r"'n_samples' \(100\).*singular"):
        D.load_data(100, 40, 5)


def test_load_data_refuses_n_over_not_above_d_over():
    with pytest.raises(ParameterError, match=r"'n_over' \(3\) must exceed 'd_over' \(5\)"):
        D.load_data(16, 3, 5)
