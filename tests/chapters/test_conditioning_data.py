"""Chapter 03 data and the agreement with the authors' code (lib.chapters.conditioning.data, .agreement)."""
import dataclasses
import math
import warnings

import numpy as np
import pandas as pd
import pytest

from lib.chapters import conditioning as C
from lib.data.datasets import DataMissingError


def test_load_data_warns_on_a_missing_set_and_errors_when_none_is_left(tmp_path):
    cfg = C.SPEC.config(datasets=["synthetic", "fashion_mnist"], n_synthetic=7, idx_dir=str(tmp_path))
    with pytest.warns(UserWarning, match="'fashion_mnist' skipped: .*train-images-idx3-ubyte"):
        data = C.load_data(cfg)
    assert data.names == ["synthetic"] and "fashion_mnist skipped" in data.note
    assert data.requested == ("synthetic", "fashion_mnist")
    assert data.sizes == {"synthetic": (7, 5)} and list(data.info.index) == ["synthetic"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(DataMissingError, match="none of the requested data sets is available: fashion_mnist: "
                                                   ".*idx_dir"):
            C.load_data(C.SPEC.config(datasets=["fashion_mnist"], n_synthetic=5))


def test_load_data_reads_the_plan_off_the_loaded_sets():
    cfg = C.SPEC.config(datasets=["synthetic", "digits", "faces"], n_synthetic=30, n_digits=120, n_faces=50,
                        small_batch=40, batch_size=512, large_n=100, large_full_seeds=1, seeds=3,
                        depths=[0, 1, 2, 4], large_full_depths=[0, 4])
    data = C.load_data(cfg)
    assert data.small == {"digits": 40} and data.full_seeds == {"digits": 1}  # 120 > large_n: one full-data seed
    assert data.full_depths == {"digits": [0, 4]}
    assert data.first_layer == ("faces",)  # digits is large here: no first-layer kernel, no theory lines
    assert data.theory_names == ["synthetic", "faces"]


def test_faces_digits_and_synthetic_d10():
    data, _ = C.load_datasets(["faces", "synthetic_d10", "digits"], n_synthetic=30, n_digits=120, n_faces=50)
    assert data["faces"].shape == (50, 625) and data["synthetic_d10"].shape == (30, 10)
    info = C.table_datasets(data, C.small_batch_sets(data, 40))
    assert np.isfinite(info.kappa0["faces"]) and math.isinf(info.kappa0["digits"])
    assert info.small_batch["digits"] == 40 and pd.isna(info.small_batch["synthetic_d10"])
    assert C.first_layer_sets(info) == ["faces", "digits"] and C.first_layer_sets(info, False) == []
    assert C.small_batch_sets(data, 70) == {}  # 70 > rank 61 of the digits: no finite kappa_0


def test_pixel_range_param():
    from lib.book.params import ParameterError
    assert C.pixel_range_param("pixel_range", [0, 1]) == (0.0, 1.0) and C.pixel_range_param("p", None) is None
    with pytest.raises(ParameterError, match="'pixel_range' must be"):
        C.pixel_range_param("pixel_range", [0, 255])


def test_authors_agreement_prediction_and_counterfactual():
    rng = np.random.default_rng(0)
    data = {"wide": rng.standard_normal((6, 9)), "tall": rng.standard_normal((8, 3))}
    agree = C.measure_authors_agreement(data, [3, 0, 1], 16, n=8, progress=False)
    tab = agree.frame
    assert agree.depths == (0, 1, 3) and agree.text() == "the first 8 samples of each data set, width m = 16, depths L = 0, 1, 3"
    c = C.check_authors_agreement(agree)
    assert c.status == "reproduced" and tab.kernel_rel_err.max() < 1e-12
    assert "not inf" in c.measured  # "tall" has n > d: singular linear kernels
    wrong = tab.assign(kernel_rel_err=np.where(tab.activation == "linear", 0.75, tab.kernel_rel_err))
    assert C.check_authors_agreement(dataclasses.replace(agree, frame=wrong)).status == "not reproduced"


def test_the_note_says_so_when_every_data_set_loaded():
    from lib.chapters import conditioning
    cfg = conditioning.SPEC.config(profile="smoke", datasets=["synthetic"])
    data = conditioning.load_data(cfg)
    assert data.note == "Every requested data set was loaded (synthetic)."
