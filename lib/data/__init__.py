"""Data: real and synthetic data sets (:mod:`~lib.data.datasets`) and input pairs at exact angles
(:mod:`~lib.data.pairs`). No function downloads anything."""
