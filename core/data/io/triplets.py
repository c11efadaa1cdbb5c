"""Sparse views stored as (doc, term, value) triplet lists, 1-based as MATLAB writes them
(e.g. Reuters ``*_sample`` variables): recognising them and building the n x d CSR view."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["is_triplets", "triplets_to_csr"]


def is_triplets(x: object, n: int | None) -> bool:
    """A (doc, term, value) list: k x 3, two positive integer index columns, k != n."""
    if sp.issparse(x) or x.ndim != 2 or x.shape[1] != 3 or x.shape[0] < 2:
        return False
    if n is not None and x.shape[0] == n:
        return False
    idx = np.asarray(x[:, :2], dtype=np.float64)
    if not (np.all(np.isfinite(idx)) and np.all(idx == np.round(idx)) and idx.min() >= 0):
        return False
    return n is None or idx[:, 0].max() <= n or idx[:, 1].max() <= n


def triplets_to_csr(x: np.ndarray, n: int | None, key: str, notes: list[str]) -> sp.csr_matrix:
    """Build an ``n x max(term)`` CSR matrix from a 1-based (doc, term, value) list."""
    trip = np.asarray(x, dtype=np.float64)
    docs, terms, vals = trip[:, 0].astype(np.int64), trip[:, 1].astype(np.int64), trip[:, 2]
    base = 0 if min(docs.min(), terms.min()) == 0 else 1
    if n is not None and docs.max() - base >= n and terms.max() - base < n:
        docs, terms = terms, docs
        notes.append(f"'{key}' lists (term, doc, value): swapped to (doc, term, value)")
    n_rows = n if n is not None else int(docs.max()) + 1 - base
    n_cols = int(terms.max()) + 1 - base
    if base == 0:
        notes.append(f"'{key}' has index 0: read as 0-based (doc, term, value) triplets")
    mat = sp.coo_matrix((vals, (docs - base, terms - base)), shape=(n_rows, n_cols)).tocsr()
    pairs = np.unique(np.stack([docs, terms]), axis=1).shape[1]
    if pairs < trip.shape[0]:
        notes.append(
            f"'{key}' repeats {trip.shape[0] - pairs} (doc, term) pair(s): their values were summed"
        )
    return mat
