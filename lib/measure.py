"""Finite-width measurements of the geometry of [LH] Sec. 2-3: norms and angles per layer."""
from __future__ import annotations

import numpy as np
import torch

from .networks import MLP
from .spectra import angle_matrix
from .validation import as_matrix, as_tensor

__all__ = ["gram", "relative_error", "layer_geometry", "input_angle", "fit_slope"]


def gram(X) -> np.ndarray:
    """The Gram matrix G = X X^T in float64: the NTK of the linear model, depth 0 ([LH] Sec. 2)."""
    T = as_tensor(X)
    return (T @ T.T).numpy()


def relative_error(A, B) -> float:
    """||A - B||_F / ||B||_F for two matrices of the same shape."""
    A, B = as_matrix(A, "A", square=False), as_matrix(B, "B", square=False)
    if A.shape != B.shape:
        raise ValueError(f"shapes differ: {A.shape} vs {B.shape}")
    nb = np.linalg.norm(B)
    if nb == 0:
        raise ValueError("relative error to the zero matrix is undefined")
    return float(np.linalg.norm(A - B) / nb)


def input_angle(x, z) -> float:
    """The angle (radians) between two input vectors."""
    x, z = np.asarray(x, float).ravel(), np.asarray(z, float).ravel()
    nx, nz = np.linalg.norm(x), np.linalg.norm(z)
    if nx == 0 or nz == 0:
        raise ValueError("the angle to a zero vector is undefined")
    return float(np.arccos(np.clip(x @ z / (nx * nz), -1.0, 1.0)))


def layer_geometry(model: MLP, X) -> dict[str, np.ndarray]:
    """Per-layer norms and pairwise angles of the embeddings a^(0..L) ([LH] Thm 2.3, Sec. 3).

    Returns ``norm_ratio`` of shape (L+1, n): ||a^(l)(x_i)|| / ||x_i||, and ``angles`` of shape
    (L+1, n, n): the angle between a^(l)(x_i) and a^(l)(x_j) (radians).
    """
    acts = model.embeddings(X)
    x_norm = acts[0].norm(dim=1)
    if bool((x_norm == 0).any()):
        raise ValueError("X contains a zero row: its angles are undefined")
    ratios = torch.stack([a.norm(dim=1) / x_norm for a in acts]).cpu().numpy()
    angles = np.stack([angle_matrix((a @ a.T).cpu().numpy()) for a in acts])
    return {"norm_ratio": ratios, "angles": angles}


def fit_slope(x, y) -> float:
    """Least-squares slope of log y against log x: the exponent of a power law (e.g. the O(m^-1/2) rates)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.size < 2 or np.any(x <= 0) or np.any(y <= 0):
        raise ValueError("fit_slope needs at least two points with positive x and y")
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])
