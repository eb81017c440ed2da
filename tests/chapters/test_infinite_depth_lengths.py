"""Chapter 04, :mod:`lib.chapters.infinite_depth.lengths`: [AAK] Thm 3.11: inputs of any length."""
from lib.chapters.infinite_depth import SPEC
from lib.chapters.infinite_depth.lengths import check_lengths, measure_lengths

CFG = SPEC.config(aak_n=5)


def test_check_lengths_prediction_and_counterfactual():
    lengths = measure_lengths(CFG, "tanh", depth=60)
    assert (lengths.activation, lengths.n, lengths.depth, lengths.norms) == ("tanh", 5, 60, (0.5, 2.0))
    c = check_lengths(lengths)
    assert c.claim_id == "[AAK] Thm 3.11" and c.status == "reproduced", c.measured
    assert "inputs of norms 0.5 to 2:" in c.measured
    # ReLU is positively homogeneous: every input keeps its length, no common fixed point
    assert check_lengths(measure_lengths(CFG, "relu", depth=60)).status == "not reproduced"
    assert check_lengths(measure_lengths(CFG, "tanh", depth=8)).status == "inconclusive"  # too shallow
