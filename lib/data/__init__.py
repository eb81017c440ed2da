"""Data: real and synthetic data sets (:mod:`~lib.data.datasets`, the entry point; MNIST-style IDX
files in :mod:`~lib.data.idx`; scikit-image's faces in :mod:`~lib.data.faces`; shared preprocessing
in :mod:`~lib.data.base`) and input pairs at exact angles (:mod:`~lib.data.pairs`). No function
downloads anything."""
