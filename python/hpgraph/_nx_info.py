"""networkx's ``networkx.backend_info`` entry point: what the backend
dispatches, for networkx's documentation and configuration. It imports
nothing of networkx (networkx reads it while it is being imported)."""

# The networkx functions the backend runs, and how their answers relate
# to networkx's own (README.md, "networkx backend").
FUNCTIONS = {
    "pagerank": "LDBC PageRank (pagerank-ldbc) run to networkx's stopping rule or beyond; "
    "personalization, nstart, dangling and unequal weights fall back to networkx.",
    "single_source_shortest_path_length": "bfs: the depths.",
    "descendants": "bfs: the vertices reached.",
    "descendants_at_distance": "bfs: the vertices at that depth.",
    "single_source_dijkstra_path_length": "sssp, for non-negative integral weights whose sum "
    "is at most 2^24 (float32 sums then exact); other weights fall back to networkx.",
    "connected_components": "cc, the components in networkx's order.",
    "number_connected_components": "cc's summary.",
    "is_connected": "cc's summary.",
    "node_connected_component": "cc.",
    "weakly_connected_components": "cc on the directed graph.",
    "number_weakly_connected_components": "cc's summary.",
    "is_weakly_connected": "cc's summary.",
    "triangles": "tc with per-vertex counts (undirected graphs).",
    "clustering": "lcc (undirected, unweighted graphs).",
    "average_clustering": "lcc (undirected, unweighted graphs).",
}


def get_info():
    return {
        "backend_name": "hpgraph",
        "project": "hpgraph",
        "package": "hpgraph",
        "short_summary": "GPU/CPU graph analytics as sparse matrix-vector products, through hpgraph serve.",
        "functions": {name: {"additional_docs": doc} for name, doc in FUNCTIONS.items()},
        # nx.config.backends.hpgraph: server (a URL; None starts a private
        # one), token, binary (else $HPGRAPH_BIN, else PATH), backend
        # (auto, cpu, cuda), min_nodes (should_run declines smaller graphs),
        # relabel (the server's renumbering of an uploaded graph: none, the
        # default, or auto or degree), workers (the processes that convert
        # a large graph, the caller's included; else $HPGRAPH_WORKERS, else
        # the cores it may use, at most 8).
        "default_config": {"server": None, "token": None, "binary": None, "backend": None, "min_nodes": 1000,
                           "relabel": None, "workers": None},
    }
