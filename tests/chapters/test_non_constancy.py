"""Chapter 05 package: every public name re-exported from its module and documented there, the renamed names."""
import importlib
import inspect
import os

import pytest

from lib.chapters import non_constancy

#: Former public names of the chapter, renamed to the one verb "measure" (old -> new) or folded away.
RENAMED = {"compute_kernel_runs": "measure_kernel_runs", "compute_hessian_norms": "measure_hessian_norms",
           "width_sweep": "measure_width_nets", "bottleneck_sweep": "measure_bottleneck_nets",
           "linear_model_sweep": "measure_linear_model", "hessian_sweep": "measure_hessian_by_width",
           "bottleneck_hessian_sweep": "measure_bottleneck_hessian", "backward_sweep": "measure_backward"}
#: The public names kept (notebook 06, lib/__init__.py and the claims registry look them up on the package).
KEPT = ("PAPER_EXPONENTS", "table_paper_vs_book", "glue_values", "ARCHS", "SUP_DERIV", "FLAT", "check_parameters",
        "build", "train_tracked", "KernelRuns", "HessianNorms", "run_summary",
        "table_width_means", "kernel_change_by_width", "width_slopes", "plot_width_trend", "check_linear_model",
        "check_weight_change", "check_linear_kernel", "check_nonlinear_kernel", "plot_bottleneck", "check_bottleneck",
        "plot_kernel_paths", "hessian_summary", "plot_hessian", "check_hessian", "check_nonlinear_hessian",
        "plot_bottleneck_hessian", "check_bottleneck_hessian", "check_bottleneck_hessian_width", "plot_convergence",
        "check_convergence", "check_backward", "SPEC")


def test_every_public_name_is_re_exported_from_its_module():
    assert set(KEPT) | set(RENAMED.values()) <= set(non_constancy.__all__)
    assert not set(RENAMED) & set(non_constancy.__all__)
    assert len(non_constancy.__all__) == len(set(non_constancy.__all__))
    for name in non_constancy.__all__:
        obj = getattr(non_constancy, name)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            home = importlib.import_module(obj.__module__)
            assert home.__name__.startswith("lib.chapters.non_constancy.") and name in home.__all__, name
            assert obj.__doc__, name


def test_no_module_imports_a_private_name_or_star_imports():
    """Only the front star-imports (its own modules, tests/test_layout.py); a module names what it imports."""
    import ast
    from pathlib import Path
    pkg = Path(non_constancy.__file__).parent
    for f in pkg.glob("*.py"):
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("lib"):
                names = [a.name for a in node.names]
                assert f.name == "__init__.py" or "*" not in names, (f.name, names)
                assert not [n for n in names if n.startswith("_")], (f.name, names)


def test_measurements_are_named_measure():
    assert all(not n.startswith(("compute_", "run_sweep")) and not n.endswith(("_sweep", "_study"))
               for n in non_constancy.__all__)


@pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ,
                    reason="under mutmut (tools/mutate.py) each module holds its mutants as well")
def test_modules_stay_small():
    from pathlib import Path
    for f in Path(non_constancy.__file__).parent.glob("*.py"):
        assert len(f.read_text().splitlines()) <= 400, f.name
