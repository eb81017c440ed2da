"""lib.data.synthetic: the smooth regression targets of chapters 5 and 6, reachable by their outputs."""
import numpy as np

from lib.data import synthetic_regression
from lib.data.datasets import gaussian_data


def test_synthetic_regression_targets_are_reachable():
    data = synthetic_regression(50, 4, 3, seed=0)
    assert np.allclose(np.linalg.norm(data["X"], axis=1), 1)
    assert data["y"].min() >= 0 and data["y"].max() <= 1  # inside the range of swish
    assert np.allclose(data["y_soft"].sum(axis=1), 1) and (data["y_soft"] > 0).all()
    assert data["y_soft"].shape == (50, 3) and data["y"].shape == (50,)


def test_inputs_are_the_unit_norm_gaussian_set_and_seeded():
    data = synthetic_regression(30, 5, seed=0)
    np.testing.assert_array_equal(data["X"], gaussian_data(30, 5, seed=0, unit_norm=True))
    again, other = synthetic_regression(30, 5, seed=0), synthetic_regression(30, 5, seed=1)
    np.testing.assert_array_equal(again["y"], data["y"])
    assert not np.array_equal(other["y"], data["y"])
