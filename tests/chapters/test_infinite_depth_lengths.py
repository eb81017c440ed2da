"""Chapter 04, :mod:`lib.chapters.infinite_depth.lengths`: [AAK] Thm 3.11: inputs of any length."""
from lib.chapters.infinite_depth.lengths import check_lengths, compute_lengths


def test_check_lengths_prediction_and_counterfactual():
    c = check_lengths(compute_lengths("tanh", 5, depth=60))
    assert c.claim_id == "[AAK] Thm 3.11" and c.status == "reproduced", c.measured
    # ReLU is positively homogeneous: every input keeps its length, no common fixed point
    assert check_lengths(compute_lengths("relu", 5, depth=60)).status == "not reproduced"
    assert check_lengths(compute_lengths("tanh", 5, depth=8)).status == "inconclusive"  # too shallow
