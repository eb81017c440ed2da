"""Chapter 05 nets (lib.chapters.non_constancy.nets): data, architectures, refused parameters."""
import pytest

from lib.book.params import ParameterError
from lib.chapters import non_constancy as NC


def test_bad_parameters_are_refused_by_name():
    with pytest.raises(ParameterError, match="'k' must be at least 2") as e:
        NC.check_parameters(1, 2.5, 5, 3)
    assert "'lr_scale'" in str(e.value) and "'n_hessian'" in str(e.value)
    NC.check_parameters(3, 1.8, 2, 12)


@pytest.mark.parametrize("args, name", [((1, 1.8, 2, 12), "'k'"), ((2, 2.0, 2, 12), "'lr_scale'"),
                                        ((2, 1.8, 13, 12), "'n_hessian'")])
def test_each_parameter_bound_just_inside_and_just_outside(args, name):
    NC.check_parameters(2, 1.99, 12, 12)  # every bound met at its edge: k = 2, lr_scale below 2, n_hessian = n
    with pytest.raises(ParameterError, match=name) as e:
        NC.check_parameters(*args)
    assert str(e.value).count("\n  ") == 1  # that parameter alone


def test_build_knows_every_arch_and_refuses_others():
    for arch in NC.ARCHS:
        model, base = NC.build(arch, 3, 8, 0, bottleneck=2)
        assert (model is base) == (arch not in NC.NONLINEAR)
    with pytest.raises(ValueError, match="arch must be one of"):
        NC.build("quadratic", 3, 8, 0)
    with pytest.raises(ValueError, match="bottleneck width b"):
        NC.build("bottleneck", 3, 8, 0)
    assert abs(NC.SUP_DERIV["swish"] - 1.0998) < 1e-3
