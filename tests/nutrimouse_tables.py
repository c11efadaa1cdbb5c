"""Nutrimouse-like tables written by the tests: a gene table and a lipid table keyed by mouse id
(rows in different orders, three empty cells, two mice without a lipid row), and a metadata
table of text columns (``mouse_id,genotype,diet``) whose id column has no recognised name.

The real Nutrimouse study (Martin et al. 2007) has 40 mice: 2 genotypes x 5 diets x 4 mice,
120 liver genes and 21 hepatic fatty acids; here the genes carry the genotype and the lipids
the diet, so both metadata columns relate to the clusters and a random column does not.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

GENOTYPES = ("wt", "ppar")
DIETS = ("coc", "fish", "lin", "ref", "sun")


def nutrimouse(n_per: int = 4, start: int = 1, seed: int = 0) -> dict:
    """Ids, metadata and the two views of ``2 x 5 x n_per`` mice (ids from ``start``)."""
    g = np.random.default_rng(seed)
    n = 2 * len(DIETS) * n_per
    geno = np.repeat(np.arange(2), len(DIETS) * n_per)
    diet = np.tile(np.repeat(np.arange(len(DIETS)), n_per), 2)
    centres = np.random.default_rng(99)  # the same biology for every batch of mice
    gene_c = centres.normal(scale=2.5, size=(2, 120))
    lipid_c = np.abs(centres.normal(loc=4.0, scale=2.0, size=(len(DIETS), 21)))
    genes = gene_c[geno] + g.normal(size=(n, 120))
    lipids = np.abs(lipid_c[diet] + g.normal(scale=0.4, size=(n, 21)))
    lipids = 100 * lipids / lipids.sum(axis=1, keepdims=True)  # percentages, as measured
    ids = np.array([f"mouse_{start + i}" for i in range(n)])
    return {"ids": ids, "genotype": geno, "diet": diet, "genes": genes, "lipids": lipids}


def write_nutrimouse(folder: Path, data: dict | None = None, lipid_missing: int = 2) -> dict:
    """genes.csv, lipids.tsv and meta.csv in ``folder``; returns the paths and what was
    written (``no_lipids``: the ids without a lipid row; ``empty``: (id, gene) cells left
    empty)."""
    data = data or nutrimouse()
    folder.mkdir(parents=True, exist_ok=True)
    g = np.random.default_rng(1)
    ids, n = data["ids"], data["ids"].size
    no_lipids = set(g.choice(n, lipid_missing, replace=False).tolist()) if lipid_missing else set()
    cells = zip(g.choice(n, 3, False), g.choice(120, 3, False), strict=True)
    empty = {(int(i), int(j)) for i, j in cells}
    genes = ["mouse_id," + ",".join(f"gene{j + 1}" for j in range(120))]
    for i in g.permutation(n):
        cells = ["" if (i, j) in empty else f"{v:.5f}" for j, v in enumerate(data["genes"][i])]
        genes.append(f"{ids[i]}," + ",".join(cells))
    lipids = ["mouse_id\t" + "\t".join(f"C{j + 14}:{j % 4}" for j in range(21))]
    for i in g.permutation(n):
        if i not in no_lipids:
            lipids.append(f"{ids[i]}\t" + "\t".join(f"{v:.4f}" for v in data["lipids"][i]))
    meta = ["mouse_id,genotype,diet,cage"]
    cages = g.permutation(np.arange(n) % 4)  # unrelated to the biology
    for i in g.permutation(n):
        meta.append(
            f"{ids[i]},{GENOTYPES[data['genotype'][i]]},{DIETS[data['diet'][i]]},cage{cages[i]}"
        )
    paths = {"genes": folder / "genes.csv", "lipids": folder / "lipids.tsv",
             "meta": folder / "meta.csv"}  # fmt: skip
    paths["genes"].write_text("\n".join(genes) + "\n", encoding="utf-8")
    paths["lipids"].write_text("\n".join(lipids) + "\n", encoding="utf-8")
    paths["meta"].write_text("\n".join(meta) + "\n", encoding="utf-8")
    return {
        **paths,
        "data": data,
        "no_lipids": sorted(ids[i] for i in no_lipids),
        "empty": sorted((ids[i], f"gene{j + 1}") for i, j in empty),
    }


def table_args(t: dict, meta: bool = True) -> list[str]:
    """The ``mvc`` data flags naming these tables."""
    args = ["--view", f"genes={t['genes']}", "--view", f"lipids={t['lipids']}"]
    return [*args, "--meta", str(t["meta"])] if meta else args
