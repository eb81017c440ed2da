"""Chapter 05 package: every name of the former single module is re-exported by lib.chapters.non_constancy."""
import importlib
import inspect

from lib.chapters import non_constancy as NC

#: The public names of the former lib/chapters/non_constancy.py (notebooks 05 and 06, lib/__init__.py and the
#: claims registry look them up on the package).
OLD_NAMES = ("glue_values", "PAPER_EXPONENTS", "table_paper_vs_book", "ARCHS", "SUP_DERIV", "FLAT",
             "check_parameters", "synthetic_regression", "build", "train_tracked", "width_sweep", "bottleneck_sweep",
             "linear_model_sweep", "hessian_sweep", "bottleneck_hessian_sweep", "KernelRuns", "HessianNorms",
             "compute_kernel_runs", "compute_hessian_norms", "run_summary", "table_width_means",
             "kernel_change_by_width", "width_slopes", "plot_width_trend", "check_linear_model",
             "check_weight_change", "check_linear_kernel", "check_nonlinear_kernel", "plot_bottleneck",
             "check_bottleneck", "plot_kernel_paths", "hessian_summary", "plot_hessian", "check_hessian",
             "check_nonlinear_hessian", "plot_bottleneck_hessian", "check_bottleneck_hessian",
             "check_bottleneck_hessian_width", "plot_convergence", "check_convergence", "backward_sweep",
             "check_backward")


def test_every_former_name_is_re_exported_from_its_module():
    assert set(OLD_NAMES) <= set(NC.__all__) and len(NC.__all__) == len(set(NC.__all__))
    for name in NC.__all__:
        obj = getattr(NC, name)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            home = importlib.import_module(obj.__module__)
            assert home.__name__.startswith("lib.chapters.non_constancy.") and name in home.__all__, name


def test_notebook_06_import_still_works():
    from lib.chapters.non_constancy import synthetic_regression
    assert synthetic_regression is NC.nets.synthetic_regression


def test_modules_stay_small():
    from pathlib import Path
    for f in Path(NC.__file__).parent.glob("*.py"):
        assert len(f.read_text().splitlines()) <= 400, f.name
