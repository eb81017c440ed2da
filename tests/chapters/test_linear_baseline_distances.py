"""Chapter 01 [LH] Remark 3.4 (lib.chapters.linear_baseline.distances): a ReLU network separates similar
pairs better in distance, a linear network (the counterfactual) does not; Figure 1.5."""
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from lib.chapters.linear_baseline import distances as DI


def test_distances_reproduced_for_relu_not_for_a_linear_network():
    relu = DI.measure_distances([1.0, 5.0, 20.0], 256, [0, 1, 3], 5)
    c = DI.check_distances(relu)
    assert (c.claim_id, c.status) == ("[LH] Remark 3.4", "reproduced"), c.measured
    lin = DI.measure_distances([1.0, 5.0, 20.0], 256, [1, 3], 5, activation="linear")
    np.testing.assert_allclose(lin.predicted, 1.0)
    assert DI.check_distances(lin).status == "not reproduced"  # the linear network keeps distances
    assert DI.check_distances(relu[relu.seed == 0]).status == "inconclusive"  # one draw: no standard error
    c0 = DI.check_distances(relu[relu.depth == 0])
    assert (c0.part, c0.status) == ("", "not checked") and "the model is linear" in c0.caveat
    fig = DI.plot_distances(relu)
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    plt.close(fig)
