"""Finite-width measurements of the geometry of [LH] Sec. 2-3: norms and angles per layer."""
from __future__ import annotations

import numpy as np
import torch

from lib.finite.mlp import MLP
from lib.spectra import angle_matrix
from lib.validation import InputError, as_tensor, real_array

__all__ = ["gram", "layer_geometry", "input_angle"]


def gram(X) -> np.ndarray:
    """The Gram matrix G = X X^T in float64: the NTK of the linear model, depth 0 ([LH] Sec. 2)."""
    T = as_tensor(X)
    return (T @ T.T).numpy()



def input_angle(x, z) -> float:
    """The angle (radians) between two input vectors."""
    x, z = real_array(x, "x").ravel(), real_array(z, "z").ravel()
    if x.shape != z.shape:
        raise InputError(f"x and z must have the same length, got {x.size} and {z.size}")
    nx, nz = np.linalg.norm(x), np.linalg.norm(z)
    if nx == 0 or nz == 0:
        raise InputError("the angle to a zero vector is undefined")
    return float(np.arccos(np.clip(x @ z / (nx * nz), -1.0, 1.0)))


def layer_geometry(model: MLP, X) -> dict[str, np.ndarray]:
    """Per-layer norms and pairwise angles of the embeddings a^(0..L) ([LH] Thm 2.3, Sec. 3).

    Returns ``norm_ratio`` of shape (L+1, n): ||a^(l)(x_i)|| / ||x_i||, and ``angles`` of shape
    (L+1, n, n): the angle between a^(l)(x_i) and a^(l)(x_j) (radians).
    """
    acts = model.embeddings(X)
    x_norm = acts[0].norm(dim=1)
    if bool((x_norm == 0).any()):
        raise InputError("X contains a zero row: its angles are undefined")
    ratios = torch.stack([a.norm(dim=1) / x_norm for a in acts]).cpu().numpy()
    angles = np.stack([angle_matrix((a @ a.T).cpu().numpy()) for a in acts])
    return {"norm_ratio": ratios, "angles": angles}
