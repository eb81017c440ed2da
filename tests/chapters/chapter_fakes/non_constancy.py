"""Chapter 05: synthetic runs and Hessian norms with prescribed power laws, shared by the check tests.

"""
import numpy as np
import pandas as pd

from lib.chapters import non_constancy as NC

WIDTHS = [20, 200, 2000]
BOTTLENECKS = [4, 16, 64]


def _path(level, steps, lr=0.5, lam0=1.0, lam_end=0.5):
    t = np.arange(steps + 1)
    ks = np.arange(0, steps + 1, 10)
    return dict(loss=0.9 ** t, kernel_steps=ks, kernel_change=level * ks / max(ks[-1], 1), lr=lr,
                lambda_min=np.linspace(lam0, lam_end, len(ks)))


def make_runs(lin_slope=-0.5, nl_slope=0.0, nl_level=0.5, b_slope=-0.5, nl_converged=True, nl_steps=150,
              lin_steps=100, seeds=2, lm_change=0.0, move_slope=0.0, nl_loss_rate=0.9, nl_lam_end=0.5,
              lr_scale=1.8, max_move_slope=-0.5, nl_out_slope=0.45) -> NC.KernelRuns:
    """Delta_K = c m^slope per arch, with small seed noise; a bottleneck sweep with Delta_K = b^b_slope.

    The non-linear nets' loss falls like nl_loss_rate^t while their smallest kernel eigenvalue goes from 1 to
    ``nl_lam_end`` (a number, or a dict by arch); with lr 0.5 and ``lr_scale`` 1.8 the PL guarantee is 0.95^t. The
    largest move of one weight is 0.5 (m/20)^max_move_slope (and 0.8 times that for the second weight matrix). The
    output function's smallest slope along the path is ``nl_out_slope`` (a number, or a dict by arch) times its sup,
    [LZB] Thm 5.1's premise (1 for a linear output)."""
    rows, rows_b = [], []
    for s in range(seeds):
        noise = 1 + 0.01 * s
        for m in WIDTHS:
            for arch, dk, steps, conv in (("linear", 0.3 * (m / 20) ** lin_slope, lin_steps, True),
                                          ("swish", nl_level * (m / 20) ** nl_slope, nl_steps, nl_converged),
                                          ("softmax", nl_level * 1.2 * (m / 20) ** nl_slope, nl_steps, nl_converged)):
                if arch == "linear":
                    path = _path(dk, steps)
                    path["output_slope"] = np.ones(steps + 1)
                else:
                    end = nl_lam_end.get(arch, 0.5) if isinstance(nl_lam_end, dict) else nl_lam_end
                    path = _path(dk, steps, lam_end=end)
                    path["loss"] = nl_loss_rate ** np.arange(steps + 1)
                    frac = nl_out_slope.get(arch, 0.45) if isinstance(nl_out_slope, dict) else nl_out_slope
                    path["output_slope"] = np.full(steps + 1, frac * NC.SUP_DERIV[arch])
                wmax = 0.5 * (m / 20) ** max_move_slope * noise
                rows.append(dict(arch=arch, width=m, bottleneck=None, seed=s, delta_K=dk * noise, steps=steps,
                                 converged=conv, weight_move=(m / 20) ** move_slope * noise, weight_max=wmax,
                                 weight_max_layers=np.array([wmax, 0.8 * wmax]), **path))
        for b in BOTTLENECKS:
            dk = 0.8 * (b / 4) ** b_slope * noise
            rows_b.append(dict(arch="bottleneck", width=256, bottleneck=b, seed=s, delta_K=dk, steps=100,
                               converged=True, weight_move=1.0, **_path(dk, 100)))
    lm = pd.DataFrame([dict(arch="linear_model", width=1, bottleneck=None, seed=s, delta_K=lm_change, steps=50,
                            converged=True, weight_move=1.0, **_path(lm_change, 50)) for s in range(seeds)])
    return NC.KernelRuns(pd.DataFrame(rows), pd.DataFrame(rows_b), tuple(WIDTHS), 256, tuple(BOTTLENECKS), 3, 1500, 0.01,
                         lm, seeds=seeds, n=12, d=10, activation="tanh", track_every=10, lr_scale=lr_scale,
                         profile="smoke")


def make_hessian(lin_slope=-0.5, nl_slope=0.0, converged=True, b_slope=-0.5, bm_slope=0.0,
                 unconverged=(), ball_slope=None, nl_ball_slope=None, ball=True, trained_distance=3.0,
                 trained_factor=1.0, kernel_slope=0.0, diag_slope=None, quad_slope=0.0, quad=True,
                 ball_unconverged=()) -> NC.HessianNorms:
    """Hessian norms c m^slope per arch, and the two bottleneck sweeps (against b, against m); ``converged=False``
    marks every power iteration unconverged, ``unconverged`` those of the named archs only.

    The ball (R = 10, unless ``ball=False``): per net, w_0 (the norm at w_0), one random point at distance R (1.1
    times it: the sup) and the GD end point at ``trained_distance`` (``trained_factor`` times it), the norm at w_0
    being c m^ball_slope (linear; lin_slope by default) or c m^nl_ball_slope (swish, softmax; nl_slope by default);
    ``ball_unconverged`` marks the ball's power iterations of those archs unconverged. The kernel at w_0:
    lambda_max 10 m^kernel_slope, mean diagonal 2 m^diag_slope (kernel_slope by default). The network of Eq 31
    (unless ``quad=False``): 3 m^quad_slope at w_0, the inf, and 1.2 times it at a random point."""
    rows = [dict(arch=a, width=m, seed=s, hess_norm=c * (m / 20) ** sl * (1 + 0.01 * s), iterations=50,
                 converged=converged and a not in unconverged)
            for s in range(2) for m in WIDTHS
            for a, c, sl in (("linear", 1.0, lin_slope), ("swish", 0.5, nl_slope), ("softmax", 0.3, nl_slope))]
    bott = [dict(sweep="b", width=256, bottleneck=b, seed=s, hess_norm=(b / 4) ** b_slope, iterations=50,
                 converged=converged) for b in BOTTLENECKS for s in range(2)]
    bott += [dict(sweep="m", width=m, bottleneck=4, seed=s, hess_norm=0.7 * (m / 20) ** bm_slope, iterations=50,
                  converged=converged) for m in WIDTHS for s in range(2)]
    ball_slope = lin_slope if ball_slope is None else ball_slope
    nl_ball_slope = nl_slope if nl_ball_slope is None else nl_ball_slope
    brows = [dict(arch=a, width=m, seed=s, point=p, distance=dist, hess_norm=c * (m / 20) ** sl * (1 + 0.01 * s) * f,
                  iterations=50, converged=converged and a not in unconverged and a not in ball_unconverged)
             for s in range(2) for m in WIDTHS
             for a, c, sl in (("linear", 1.0, ball_slope), ("swish", 0.5, nl_ball_slope), ("softmax", 0.3, nl_ball_slope))
             for p, dist, f in (("init", 0.0, 1.0), ("random 1", 10.0, 1.1), ("trained", trained_distance, trained_factor))]
    diag_slope = kernel_slope if diag_slope is None else diag_slope
    kernel = pd.DataFrame([dict(width=m, seed=s, lambda_max=10 * (m / 20) ** kernel_slope * (1 + 0.01 * s),
                                mean_diag=2 * (m / 20) ** diag_slope) for m in WIDTHS for s in range(2)])
    qrows = [dict(width=m, seed=s, bottleneck=4, point=p, distance=dist, hess_norm=3 * (m / 20) ** quad_slope * f,
                  iterations=50, converged=converged)
             for m in WIDTHS for s in range(2) for p, dist, f in (("init", 0.0, 1.0), ("random 1", 10.0, 1.2))]
    return NC.HessianNorms(pd.DataFrame(rows), tuple(WIDTHS), 3, pd.DataFrame(bott), seeds=2, n=12, d=10, n_hessian=2,
                           activation="tanh", bottleneck_width=256, bottlenecks=tuple(BOTTLENECKS), profile="smoke",
                           ball=pd.DataFrame(brows) if ball else None, ball_radius=10.0, ball_widths=tuple(WIDTHS),
                           kernel=kernel, quadratic=pd.DataFrame(qrows) if quad else None)
