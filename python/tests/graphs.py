"""Readers of the test graphs (Matrix Market and edge lists) for the
tests, written here so that they do not depend on the code under test."""

import gzip
import os

from conftest import TESTDATA


def read_entries(name):
    """(entries [(u, v, w or None)], directed) of a file in datasets/testdata,
    in its own ids."""
    path = os.path.join(TESTDATA, name)
    opener = gzip.open if path.endswith(".gz") else open
    entries, directed, sized = [], True, not name.endswith(".mtx")
    with opener(path, "rt") as f:
        for line in f:
            if line.startswith("%%MatrixMarket"):
                directed = "symmetric" not in line
            if not line.strip() or line[0] in "%#":
                continue
            fields = line.split()
            if not sized:  # (the Matrix Market size line)
                sized = True
                continue
            w = float(fields[2]) if len(fields) > 2 else None
            entries.append((int(fields[0]), int(fields[1]), w))
    return entries, directed


def networkx_graph(name, directed=None, weighted=True):
    """A file in datasets/testdata as a networkx graph (simple)."""
    import networkx as nx

    entries, file_directed = read_entries(name)
    G = nx.DiGraph() if (file_directed if directed is None else directed) else nx.Graph()
    for u, v, w in entries:
        if weighted and w is not None:
            G.add_edge(u, v, weight=w)
        else:
            G.add_edge(u, v)
    return G
