"""lib.validation: devices checked up front, integer sizes, kernels that overflow or underflow."""
import numpy as np
import pytest
import torch

from lib.validation import (InputError, InputTypeError, as_matrix, check_device, check_kernel_scale,
                            positive_int)


def test_unavailable_devices_are_one_message_and_cpu_is_fine():
    assert check_device("cpu") == torch.device("cpu")
    if not torch.backends.mps.is_available():
        with pytest.raises(InputError, match="'mps' requested but MPS"):
            check_device("mps")
    if not torch.cuda.is_available():
        with pytest.raises(InputError, match="CUDA is not available"):
            check_device("cuda")
    with pytest.raises(InputError, match="unknown device 'gpu0'"):
        check_device("gpu0")


@pytest.mark.parametrize("value", [None, "4", 1.5, True])
def test_positive_int_refuses_what_is_not_an_integer(value):
    with pytest.raises(InputTypeError, match="block_size must be a positive integer"):
        positive_int(value, "block_size")


def test_positive_int_refuses_zero_and_keeps_integers():
    with pytest.raises(InputError, match="block_size must be a positive integer, got 0"):
        positive_int(0, "block_size")
    assert positive_int(np.int64(4), "block_size") == 4


def test_kernel_scale_refuses_overflow_and_underflow_not_ordinary_or_zero_kernels():
    with pytest.raises(InputError, match="3 NaN or inf entries"):
        check_kernel_scale(3, 1.0, torch.float64, "K", "rescale")
    tiny64, tiny32 = np.finfo(np.float64).tiny, np.finfo(np.float32).tiny
    with pytest.raises(InputError, match="lost to underflow"):  # just below the smallest normal float64
        check_kernel_scale(0, tiny64 * (1 - 2**-20), torch.float64, "K", "rescale")
    with pytest.raises(InputError, match="lost to underflow"):  # float32's range ends far earlier
        check_kernel_scale(0, tiny32 * 0.5, torch.float32, "K", "rescale")
    check_kernel_scale(0, tiny64, torch.float64, "K", "rescale")  # counterfactual: the smallest normal number
    check_kernel_scale(0, 1e-300, torch.float64, "K", "rescale")  # a small but normal kernel (X * 1e-150)
    check_kernel_scale(0, tiny32, torch.float32, "K", "rescale")
    check_kernel_scale(0, 0.0, torch.float64, "K", "rescale")  # an exact zero is left to the spectrum's check


@pytest.mark.parametrize("K,match", [("abc", "must be real numbers"), ([[1, 2], [3]], "rows of different lengths"),
                                     ([[2, 1j], [-1j, 2]], "complex with non-zero imaginary parts")])
def test_as_matrix_refuses_strings_ragged_and_complex(K, match):
    with pytest.raises(InputError, match=match):
        as_matrix(K)


def test_as_matrix_reads_a_complex_matrix_with_zero_imaginary_part():
    np.testing.assert_array_equal(as_matrix(np.array([[2, 1], [1, 2]], dtype=complex)), [[2.0, 1.0], [1.0, 2.0]])
