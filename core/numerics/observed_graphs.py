"""Anchor graphs of incomplete views: rows of missing samples are empty.

Shared by the anchor-graph methods that handle samples missing from views (FMDC, DTLL;
docs/methods/incomplete.md). ``observed`` is the n x V bool mask of which sample has which
view.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from core.numerics.graphs import normalize_anchor_graph

__all__ = ["consensus_graph", "place_rows", "sample_scaling", "scaled_graphs"]


def place_rows(z: sp.spmatrix, rows: np.ndarray, n: int) -> sp.csr_matrix:
    """An (n_v x m) graph of the observed ``rows`` placed in an n x m graph (others empty)."""
    z = z.tocoo()
    return sp.csr_matrix((z.data, (rows[z.row], z.col)), shape=(n, z.shape[1]))


def sample_scaling(observed: np.ndarray) -> np.ndarray:
    """r_i = sqrt(V / V_i): per-sample normalisation over the views each sample has."""
    return np.sqrt(observed.shape[1] / observed.sum(axis=1))


def scaled_graphs(graphs: Sequence[sp.csr_matrix], observed: np.ndarray) -> list[sp.csr_matrix]:
    """R Ẑ_v for every view: with ``R = diag(r_i)`` the equal-weight consensus
    ``Σ_v Ẑ_vẐ_vᵀ / V`` becomes ``R (Σ_v Ẑ_vẐ_vᵀ / V_i) R``, so every sample's
    self-similarity is on the same scale whatever its number of views."""
    scale = sp.diags(sample_scaling(observed))
    return [sp.csr_matrix(scale @ normalize_anchor_graph(z)) for z in graphs]


def consensus_graph(
    graphs: Sequence[sp.csr_matrix], observed: np.ndarray, weights: np.ndarray
) -> sp.csr_matrix:
    """Σ_v α_v Z_v / Σ_{v observed} α_v, the views side by side (n x Σ m_v: the anchors of
    different views are different points); rows sum to 1 over the views a sample has."""
    share = observed @ np.asarray(weights, dtype=np.float64)
    inv = np.where(share > 0, 1.0 / np.where(share > 0, share, 1.0), 0.0)
    stacked = sp.hstack([w * z for w, z in zip(weights, graphs, strict=True)]).tocsr()
    return sp.csr_matrix(sp.diags(inv) @ stacked)
