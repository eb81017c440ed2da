"""The troubleshooting appendix: every bad input ends in one of the project's own errors, or in the
right answer, never in a raw error from torch or numpy (lib.site.bad_input)."""
import math

import numpy as np
import pytest

from lib.site import bad_input as B


@pytest.fixture(scope="module")
def library_outcomes(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("bad")
    return B.run_cases(B.library_cases(tmp) + B.class_cases(tmp)), tmp


def test_every_library_bad_input_gets_an_own_error_naming_the_problem(library_outcomes):
    outcomes, _ = library_outcomes
    assert len(outcomes) >= 15
    for o in outcomes:
        if o.case.expect_error:
            assert o.own_error, f"{o.case.what}: {o.error}: {o.message}"
            assert o.message.strip(), o.case.what
        else:
            assert not o.error, f"{o.case.what} should compute an answer, got {o.error}: {o.message}"


def test_the_answers_are_right(library_outcomes):
    outcomes, _ = library_outcomes
    by_what = {o.case.what: o for o in outcomes}
    assert by_what["a singular kernel"].message == f"kappa = {math.inf}; singular: yes"
    # the depth-1e7 ReLU NTK: normalized off-diagonal entries tend to 1/4 ([LH] Thm 4.3, n = 3 points)
    ratio = float(by_what["depth 10^7 of the ReLU NTK"].message.rsplit("=", 1)[1])
    assert abs(ratio - 0.25) < 1e-3
    assert by_what["depth 10^7 of the ReLU NTK"].seconds < 30
    assert by_what["a cached sweep cell edited by hand"].message.startswith("recomputed (kappa = 3)")
    assert "checksum" in by_what["a cached sweep cell edited by hand"].message


def test_messages_name_the_parameter_or_file(library_outcomes):
    outcomes, tmp = library_outcomes
    by_what = {o.case.what: o.message for o in outcomes}
    assert "activation 'relux'" in by_what["unknown activation"]
    assert "width" in by_what["negative width"] and "width" in by_what["weights larger than memory"]
    assert "missing.npy" in by_what["a data file that does not exist"]
    assert "data_key" in by_what["an .npz without the asked array"]
    assert "idx_dir" in by_what["Fashion-MNIST files not on this machine"]
    assert "not positive semi-definite" in by_what["an indefinite 'kernel'"]
    table = B.table_markdown(outcomes, tmp=tmp)
    assert str(tmp) not in table and table.count("\n") == len(outcomes) + 1


def test_a_raw_error_is_flagged():
    """Counterfactual: a case that ends in numpy's own error is not counted as handled."""
    raw = B.Case("library", "raw", "np.linalg.inv(singular)", lambda: np.linalg.inv(np.ones((2, 2))))
    (o,) = B.run_cases([raw])
    assert o.error == "LinAlgError" and not o.own_error


def test_pipeline_bad_command_lines_exit_2_with_one_message(tmp_path):
    outcomes = B.run_cases(B.pipeline_cases(tmp_path))
    for o in outcomes:
        assert o.own_error and o.message.startswith("exit code 2: error:"), (o.case.what, o.message)
    assert "['widht']" in outcomes[0].message
    assert "parameter 'widths' must contain integers >= 1" in outcomes[2].message
    msg = {o.case.what: o.message for o in outcomes}
    assert "--profile paper, not -p" in msg["overriding the profile with -p"]
    assert "01_linear_baseline.yaml" in msg["a profile YAML that is a list"]
    assert "--n must be an integer >= 2" in msg["zero inputs to the performance CLI"]


def test_round_2_cases_name_the_parameter_file_or_resolution(library_outcomes):
    outcomes, tmp = library_outcomes
    by_what = {o.case.what: o for o in outcomes}
    msg = {w: o.message for w, o in by_what.items()}
    assert "overflowed" in msg["inputs so large the kernel overflows"]
    assert "underflow" in msg["inputs in the subnormal range"]
    assert "W^(2)" in msg["a NaN weight (a diverged training step)"]
    assert "layer indices" in msg["a fractional layer index"] and "half()" in msg["float16 after construction"]
    assert "block_size" in msg["block_size=None"] and "block_size" in msg["a zero block size"]
    assert "complex" in msg["a complex Hermitian matrix"]
    assert "below the resolution" in msg["an angle below the resolution"]
    assert "scale" in msg["a NaN scale"] and "overflow" in msg["a scale that overflows"]
    assert "seed" in msg["a negative seed"] and "junk.npz" in msg["zip magic then junk"]
    assert "swapped" in msg["image and label files swapped"]
    assert msg["another cell's record under this cell's key"].startswith("recomputed (kappa = 3, not 7")
    assert "kappa_low" in msg["a reversed kappa interval in notebooks/records/"]
    assert "01_linear_baseline.json" in msg["a truncated results file"]



def test_every_class_of_bad_input_has_cases_on_the_page_and_a_row_in_the_classes_table(library_outcomes):
    from lib.site.input_classes import INPUT_CLASSES, classes_markdown
    outcomes, _ = library_outcomes
    shown = {o.case.cls for o in outcomes}
    assert {c.key for c in INPUT_CLASSES} <= shown
    table = classes_markdown()
    assert table.count("\n") == len(INPUT_CLASSES) + 1 and all(c.title in table for c in INPUT_CLASSES)



def test_the_classes_table_has_no_emphasis_a_star_could_make():
    """The table means no bold or italics: "2**64" written as text made "64, -2" bold on the page. Counterfactual:
    the same words outside code are read with emphasis."""
    from markdown_it import MarkdownIt
    from lib.site.input_classes import classes_markdown
    md = MarkdownIt("commonmark").enable("table")
    html = md.render(classes_markdown())
    assert "<table>" in html and "<strong>" not in html and "<em>" not in html
    assert "<strong>" in md.render("range (2**64, -2**63 - 1)")


def test_round_3_cases_are_refused_naming_the_parameter_or_computed_right(library_outcomes):
    import math

    from lib import theory
    outcomes, _ = library_outcomes
    msg = {o.case.what: o.message for o in outcomes if o.case.cls}
    for what in ("complex inputs (NumPy)", "complex inputs (torch)", "complex inputs, full-data spectra",
                 "complex inputs, infinite width", "complex inputs to batched SGD"):
        assert msg[what].startswith("X is complex"), what
    assert msg["a complex input to a Hessian bound"].startswith("x is complex")
    assert "seed must be an integer in [0, 2**63 - 1]" in msg["a seed above the generators' range"]
    assert "seeds[0]" in msg["a seed out of range, batched SGD"]
    assert msg["the largest seed"] == f"computed: an MLP with seed {2**63 - 1}"
    assert "width" in msg["a zero width of a residual net"] and "width" in msg["a fractional width of a CNN"]
    assert all("depth" in msg[w] for w in ("a fractional depth", "a negative depth", "a NaN depth"))
    assert "rho must be in [-1, 1]" in msg["a correlation above 1"] and "b must be" in msg["a NaN shift"]
    assert msg["a subnormal eps"] == f"computed: depth {theory.aak_depth_bound(0.5, 0.1, 10, 1e-310)}"
    assert msg["a subnormal delta"] == f"computed: depth {math.ceil(-math.log(2e-320) / math.log1p(0.25))}"
    assert "bfloat16" in msg["a bfloat16 kernel"] and "n must be" in msg["an infinite number of inputs"]
    assert "not positive semi-definite" in msg["an indefinite unit-diagonal G"]
    assert all(msg[w].endswith("(the notebook is unchanged)") for w in
               ("a default its own checker refuses", "a default holding a newline", "a NaN default"))
    gap = float(msg["small inputs whose kernel is normal floats"].rsplit("=", 1)[1].split()[0])
    assert gap < 1e-13 and "subnormal" in msg["a kernel of subnormal floats"]
