"""The data sets of chapter 01, checked before anything is computed ([LH] Cor 2.4).

:func:`lib.chapters.linear_baseline.data.load_data` returns the digits (n < d, finite kappa_0) and the
Gaussian points of the n > d case, and names the notebook parameter that makes either unusable.
"""
from __future__ import annotations

import numpy as np

from lib.book.spec import reads_config
from lib.book.params import ParameterError
from lib.data.datasets import gaussian_data, load_digits_subset
from lib.validation import check_seed

__all__ = ["load_data"]


@reads_config(n_samples="n_samples", n_over="n_over", d_over="d_over")
def load_data(n_samples: int, n_over: int, d_over: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The chapter's two data sets, checked before anything is computed ([LH] Cor 2.4).

    The first set, ``n_samples`` unit-norm images of scikit-learn's digits (d = 64), must have an
    invertible Gram matrix: the chapter measures kappa/kappa_0, which needs a finite kappa_0. The
    second, ``n_over`` Gaussian points in ``d_over`` dimensions, illustrates the n > d case and needs
    ``n_over > d_over``.

    Args:
        n_samples: number of digits.
        n_over: number of Gaussian points of the n > d case.
        d_over: their dimension.
        seed: subsampling and sampling seed.

    Returns:
        ``(X, X_over)``.

    Raises:
        lib.book.params.ParameterError: ``n_over <= d_over``, or the digits chosen have a singular Gram
            matrix (more than 64 of them, or linearly dependent images), naming the parameter.
    """
    seed = check_seed(seed)
    errors = []
    if n_over <= d_over:
        errors.append(f"parameter 'n_over' ({n_over}) must exceed 'd_over' ({d_over}): that section shows the "
                      "n > d case, where the Gram matrix is singular")
    X = load_digits_subset(n_samples, seed=seed, unit_norm=True)
    rank = int(np.linalg.matrix_rank(X))
    if rank < len(X):
        errors.append(f"parameter 'n_samples' ({n_samples}): these digits span only {rank} dimensions "
                      f"(d = {X.shape[1]}, and some pixels are always blank), so their Gram matrix is singular and "
                      f"kappa_0 is infinite; the chapter compares kappa with a finite kappa_0, so use fewer digits "
                      f"(the default, 40, has an invertible Gram matrix)")
    if errors:
        raise ParameterError("bad notebook parameter(s):\n  " + "\n  ".join(errors))
    return X, gaussian_data(n_over, d_over, seed=seed)
