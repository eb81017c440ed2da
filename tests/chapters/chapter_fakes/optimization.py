"""Chapter 06 fakes: SGD studies whose late losses or test accuracies are prescribed exactly, for the rules of
[LH] Figure 4 ("deeper is faster") and Table 1 (the peak at depth 6)."""
import numpy as np
import pandas as pd

from lib.chapters import optimization as OPT

#: The paper's protocol (60,000 training images, batch 500, 500 epochs).
PAPER = dict(data="MNIST", n_train=60000, batch=500, epochs=500)
#: Three seeds at mean - a, mean, mean + a: their sd (ddof 1) is exactly a.
OFFS = (-1.0, 0.0, 1.0)
#: the rate grid of every depth, a factor sqrt 2 on each side of the chosen rate 1 (refined, as the verdicts need)
LRS = [0.5, 2 ** -0.5, 1.0, 2 ** 0.5, 2.0]


def _study(rows: list, depths: list, protocol: dict, seeds: int, lrs=LRS, precision: str = "fp32",
           missing: str = "") -> OPT.SGDStudy:
    grid = pd.DataFrame([dict(dataset=protocol["data"], depth=L, lr=lr, late_loss=1.0, chosen=lr == 1.0)
                         for L in depths for lr in lrs])
    return OPT.SGDStudy(protocol["data"], grid, pd.DataFrame(rows), depths, protocol["n_train"], 1000,
                        protocol["batch"], protocol["epochs"], seeds, 512, list(lrs), 1.0, precision=precision,
                        missing=missing)


def loss_study(log10_means, sds=0.05, depths=None, protocol=PAPER, seeds=3, **kw) -> OPT.SGDStudy:
    """Constant loss curves whose late loss has exactly the given log10 mean per depth and seed spread ``sds``
    (``kw``: the grid ``lrs``, ``precision``, ``missing`` of the study)."""
    depths = list(depths or range(1, len(log10_means) + 1))
    sds = np.broadcast_to(np.asarray(sds, dtype=float), (len(depths),))
    rows = []
    for L, mu, sd in zip(depths, log10_means, sds):
        for s, o in enumerate(OFFS[:seeds]):
            curve = np.full(protocol["epochs"] + 1, 10.0 ** (mu + o * sd))
            rows.append(dict(dataset=protocol["data"], depth=L, seed=s, lr=1.0, train_loss=curve,
                             late_loss=OPT.late_loss(curve), test_acc=0.9, diverged=False, seconds=0.1))
    return _study(rows, depths, protocol, seeds, **kw)


def acc_study(acc_by_depth, sd=0.001, protocol=PAPER, seeds=3, **kw) -> OPT.SGDStudy:
    """Test accuracy ``acc_by_depth[L] + (-1, 0, 1) x sd`` over 3 seeds at each depth (the first ``seeds`` of them)."""
    rows = [dict(dataset=protocol["data"], depth=L, seed=s, lr=1.0, train_loss=np.ones(protocol["epochs"] + 1),
                 late_loss=1.0, test_acc=a + o * sd, diverged=False, seconds=0.1)
            for L, a in acc_by_depth.items() for s, o in enumerate(OFFS[:seeds])]
    return _study(rows, list(acc_by_depth), protocol, seeds, **kw)
