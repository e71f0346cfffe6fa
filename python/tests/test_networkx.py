"""The networkx backend's functions, each against networkx's own answer
on the repository's test graphs and generated ones. The functions are
called directly (any networkx); the dispatch tests need networkx 3.3 or
later (backend dispatching) and skip on older ones, saying so."""

import collections
import gc
import math
import random
import sys

import pytest

nx = pytest.importorskip("networkx", reason="networkx is not installed (apt-get install python3-networkx)")
pytest.importorskip("scipy", reason="networkx's pagerank needs scipy (apt-get install python3-scipy)")

from graphs import networkx_graph  # noqa: E402
from hpgraph import networkx_backend as backend  # noqa: E402
from hpgraph.client import Client  # noqa: E402

B = backend.BackendInterface
if tuple(int(x) for x in nx.__version__.split(".")[:2]) < (3, 3):
    NO_DISPATCH = f"networkx {nx.__version__} has no backend dispatching (3.3 or later has)"
elif "hpgraph" not in nx.utils.backends.backends:
    NO_DISPATCH = "hpgraph is not installed as a networkx backend (pip install --no-deps --no-build-isolation ./python)"
else:
    NO_DISPATCH = None
needs_dispatch = pytest.mark.skipif(NO_DISPATCH is not None, reason=str(NO_DISPATCH))



def graphs(directed=None):
    out = {}
    karate = networkx_graph("karate.mtx", weighted=False)
    out["karate"] = karate
    out["karate-strings"] = nx.relabel_nodes(karate, {v: f"v{v}" for v in karate})
    out["hartford(sparse ids)"] = networkx_graph("hartford_drug.edgelist", directed=False)
    out["lanl(directed)"] = networkx_graph("lanl_routes.edgelist", weighted=False)
    out["ldbc(directed, sinks)"] = networkx_graph("ldbc-directed-example.mtx", weighted=False)
    out["west0067(directed)"] = networkx_graph("west0067.mtx", weighted=False)
    g = nx.gnp_random_graph(300, 0.02, seed=7)
    g.add_edges_from([(3, 3), (50, 50)])  # self loops
    g.add_nodes_from([1000, 1001])  # isolated
    out["gnp+loops"] = g
    d = nx.gnp_random_graph(200, 0.03, seed=8, directed=True)
    d.add_edge(5, 5)
    out["gnp-directed+loop"] = d
    out["path(reversed order)"] = nx.Graph(list(nx.path_graph(40).edges())[::-1])
    out["float nodes 0.0..n-1"] = nx.relabel_nodes(nx.cycle_graph(30), float)
    return {k: v for k, v in out.items() if directed is None or v.is_directed() == directed}


def each(directed=None):
    return pytest.mark.parametrize("G", list(graphs(directed).values()), ids=list(graphs(directed)))


def run(name, G, *args, **kwargs):
    """The backend's answer, after can_run agreed."""
    ok = B.can_run(name, (G, *args), kwargs)
    assert ok is True, ok
    return getattr(B, name)(backend.convert_from_nx(G, {"weight": 1} if "weight" in kwargs else None), *args, **kwargs)


def sources(G):
    nodes = list(G)
    return [nodes[0], nodes[len(nodes) // 2], max(G, key=G.degree)]


@each()
def test_pagerank(G):
    # networkx's answer to within the tolerance it promises: it stops at
    # a step under n*tol in L1, so within n*tol*alpha/(1-alpha) of the
    # fixed point, where hpgraph's answer is to 1% of that.
    for tol in (1e-11, 1e-6):
        want = nx.pagerank(G, tol=tol, max_iter=1000)
        got = run("pagerank", G, tol=tol, max_iter=1000)
        assert list(got) == list(want)
        l1 = math.fsum(abs(got[v] - want[v]) for v in G)
        assert l1 <= len(G) * tol * 0.85 / 0.15, l1
    assert all(type(x) is float for x in got.values())


def test_pagerank_iterations_are_networkx_iterations():
    # One iteration each (networkx stops at once with a huge tol).
    for G in graphs().values():
        want = nx.pagerank(G, max_iter=1, tol=1e9)
        got = backend._nodes_rows(backend._hp(G), "pagerank-ldbc", damping=0.85, iterations=1, precision="float64")["rank"]
        assert all(math.isclose(a, want[v], rel_tol=1e-12) for a, v in zip(got, G))


def test_pagerank_convergence_failure_as_networkx():
    G = graphs()["karate"]
    for max_iter, tol in ((0, 1e-6), (1, 1e-6), (5, 1e-12), (30, 1e-9), (200, 1e-12)):
        try:
            want = nx.pagerank(G, max_iter=max_iter, tol=tol)
        except nx.PowerIterationFailedConvergence:
            want = None
        if want is None:
            with pytest.raises(nx.PowerIterationFailedConvergence):
                run("pagerank", G, max_iter=max_iter, tol=tol)
        else:
            got = run("pagerank", G, max_iter=max_iter, tol=tol)
            assert math.fsum(abs(got[v] - want[v]) for v in G) <= len(G) * tol * 0.85 / 0.15 * 2
    # alpha 1 (no contraction) and 0 (uniform).
    for alpha in (0.0, 1.0, 0.5):
        want = nx.pagerank(G, alpha=alpha, tol=1e-10, max_iter=1000)
        got = run("pagerank", G, alpha=alpha, tol=1e-10, max_iter=1000)
        assert all(math.isclose(got[v], want[v], rel_tol=1e-6) for v in G)


def test_pagerank_uniform_weights():
    G = graphs()["karate"].copy()
    nx.set_edge_attributes(G, 3, "w")
    assert B.can_run("pagerank", (G,), {"weight": "w"}) is True
    want = nx.pagerank(G, weight="w", tol=1e-12)
    got = B.pagerank(backend.convert_from_nx(G, {"w": 1}), weight="w", tol=1e-12)
    assert all(math.isclose(got[v], want[v], rel_tol=1e-9) for v in G)


@each()
def test_bfs_lengths(G):
    for s in sources(G):
        assert run("single_source_shortest_path_length", G, s) == nx.single_source_shortest_path_length(G, s)
        for cutoff in (0, 1, 2, 5):
            want = nx.single_source_shortest_path_length(G, s, cutoff=cutoff)
            assert run("single_source_shortest_path_length", G, s, cutoff=cutoff) == want, cutoff
        assert run("descendants", G, s) == nx.descendants(G, s)
        for distance in (0, 1, 2, 3, 50, -1):
            assert run("descendants_at_distance", G, s, distance) == nx.descendants_at_distance(G, s, distance)


@each()
def test_dijkstra(G):
    H = G.copy()
    for i, (u, v) in enumerate(H.edges()):
        H[u][v]["weight"] = (7 * i) % 13  # (zero weights included)
    for s in sources(H):
        for g in (G, H):
            want = nx.single_source_dijkstra_path_length(g, s)
            got = run("single_source_dijkstra_path_length", g, s, weight="weight")
            assert got == want and all(type(got[v]) is type(want[v]) for v in want)
            want = nx.single_source_dijkstra_path_length(g, s, cutoff=5)
            assert run("single_source_dijkstra_path_length", g, s, cutoff=5, weight="weight") == want


@each(directed=False)
def test_components(G):
    assert list(run("connected_components", G)) == list(nx.connected_components(G))
    assert run("number_connected_components", G) == nx.number_connected_components(G)
    assert run("is_connected", G) == nx.is_connected(G)
    for s in sources(G):
        assert run("node_connected_component", G, s) == nx.node_connected_component(G, s)


@each(directed=True)
def test_weak_components(G):
    assert list(run("weakly_connected_components", G)) == list(nx.weakly_connected_components(G))
    assert run("number_weakly_connected_components", G) == nx.number_weakly_connected_components(G)
    assert run("is_weakly_connected", G) == nx.is_weakly_connected(G)


@each(directed=False)
def test_triangles_and_clustering(G):
    assert run("triangles", G) == nx.triangles(G)
    want = nx.clustering(G)
    got = run("clustering", G)
    assert got == want and all(type(got[v]) is type(want[v]) for v in G)
    assert run("average_clustering", G) == nx.average_clustering(G)
    if any(want.values()):
        assert run("average_clustering", G, count_zeros=False) == nx.average_clustering(G, count_zeros=False)
    else:
        for average in (nx.average_clustering, lambda G, **kw: run("average_clustering", G, **kw)):
            with pytest.raises(ZeroDivisionError):
                average(G, count_zeros=False)
    s = sources(G)
    assert run("triangles", G, s[0]) == nx.triangles(G, s[0])
    assert run("clustering", G, s) == nx.clustering(G, s)


def test_multigraph():
    M = nx.MultiGraph(graphs()["gnp+loops"])
    M.add_edges_from(list(M.edges())[:40])  # parallel edges
    assert list(run("connected_components", M)) == list(nx.connected_components(M))
    assert run("single_source_shortest_path_length", M, 0) == nx.single_source_shortest_path_length(M, 0)
    # A view (an edge subgraph), whose adjacency's len counts otherwise than it iterates.
    V = M.edge_subgraph(list(M.edges(keys=True))[::2])
    assert list(run("connected_components", V)) == list(nx.connected_components(V))
    assert run("single_source_shortest_path_length", V, 0) == nx.single_source_shortest_path_length(V, 0)
    for name, args in (("pagerank", ()), ("clustering", ()), ("triangles", ()), ("single_source_dijkstra_path_length", (0,))):
        assert "multigraph" in B.can_run(name, (M, *args), {})


def test_declines_where_definitions_differ():
    G = graphs()["karate"].copy()
    D = graphs()["lanl(directed)"]
    for i, (u, v) in enumerate(G.edges()):
        G[u][v]["weight"] = 1 + i % 3
        G[u][v]["frac"] = 0.1
    G[1][2]["big"] = 2**25
    declined = [
        ("pagerank", (G,), {"personalization": {0: 1}}, "personalization"),
        ("pagerank", (G,), {"nstart": {0: 1}}, "personalization"),
        ("pagerank", (G,), {"dangling": {0: 1}}, "dangling"),
        ("pagerank", (G,), {}, "not one positive value"),
        ("pagerank", (G,), {"alpha": 1.5}, "alpha"),
        ("single_source_dijkstra_path_length", (G, 1), {"weight": "frac"}, "float32 sums are not exact"),
        ("single_source_dijkstra_path_length", (G, 1), {"weight": "big"}, "float32 sums are not exact"),
        ("single_source_dijkstra_path_length", (G, 1), {"weight": lambda u, v, d: 1}, "not an attribute name"),
        ("single_source_shortest_path_length", (G, "nope"), {}, "not a node"),
        ("single_source_shortest_path_length", (G, 1), {"cutoff": 1.5}, "cutoff"),
        ("clustering", (D,), {}, "directed"),
        ("clustering", (G,), {"weight": "weight"}, "weighted clustering"),
        ("connected_components", (D,), {}, "directed"),
        ("weakly_connected_components", (G,), {}, "undirected"),
        ("is_connected", (nx.Graph(),), {}, "null graph"),
        ("label_propagation_communities", (G,), {}, None),
        ("bfs_layers", (G, 1), {}, None),
    ]
    for name, args, kwargs, why in declined:
        ok = B.can_run(name, args, kwargs)
        assert ok is not True and (why is None or why in ok), (name, kwargs, ok)


def test_empty_graph():
    E = nx.Graph()
    assert run("pagerank", E) == {} == nx.pagerank(E)
    assert list(run("connected_components", E)) == []
    assert run("number_connected_components", E) == 0
    assert run("triangles", E) == {}


def arcs(G):
    """G's arcs as networkx lists its edges: both directions of an
    undirected edge, a multigraph's parallel edges once."""
    out = set()
    for u, v in G.edges():
        out.add((u, v))
        if not G.is_directed():
            out.add((v, u))
    return out


def converted_arcs(st):
    """The arcs of a conversion, in the nodes they stand for."""
    return collections.Counter(zip(map(st.nodes.__getitem__, st.src), map(st.nodes.__getitem__, st.dst)))


def conversion_cases():
    big = nx.gnm_random_graph(6000, 50000, seed=3)  # (more arcs than a block of _int32s)
    shuffled = list(big)
    random.Random(4).shuffle(shuffled)
    out = dict(graphs())
    out["ints 0..n-1 (blocks)"] = big
    out["ints, shuffled (a table)"] = nx.relabel_nodes(big, dict(zip(big, shuffled)))
    out["ints from 1 (a table)"] = nx.relabel_nodes(big, lambda v: v + 1)
    out["ints far apart (a dict)"] = nx.relabel_nodes(big, lambda v: v * 1000)
    out["negative ints (a dict)"] = nx.relabel_nodes(big, lambda v: -v)
    out["directed, shuffled"] = nx.DiGraph(out["ints, shuffled (a table)"])
    # A row keyed by a float equal to its int node (networkx keeps the key it was given).
    mixed = nx.path_graph(10)
    mixed.add_edge(3, 7.0)
    out["a float key for an int node"] = mixed
    mixed2 = nx.relabel_nodes(nx.path_graph(10), lambda v: v + 5)
    mixed2.add_edge(6, 9.0)
    out["a float key, ints from 5"] = mixed2
    M = nx.MultiGraph(big)
    M.add_edges_from(list(big.edges())[:100])
    out["multigraph"] = M
    out["view (edge subgraph)"] = M.edge_subgraph(list(M.edges(keys=True))[::3])
    out["empty"] = nx.Graph()
    out["isolated only"] = nx.empty_graph(5)
    return out


@pytest.mark.parametrize("numpy", [True, False], ids=["numpy", "no numpy"])
def test_conversion(numpy, monkeypatch):
    # Against networkx's own list of its edges, whichever way the nodes
    # are numbered; with numpy (where installed) and without.
    if not numpy:
        monkeypatch.setitem(sys.modules, "numpy", None)  # (import numpy raises ImportError)
    for name, G in conversion_cases().items():
        st = backend._Structure(G)
        assert st.nodes == list(G) and st.n == len(G) and len(st.src) == len(st.dst), name
        got = converted_arcs(st)
        assert set(got) == arcs(G) and max(got.values(), default=1) == 1, name
        for v in G:
            assert st.nodes[st.vertex(v)] == v, name


@pytest.mark.parametrize("numpy", [True, False], ids=["numpy", "no numpy"])
def test_conversion_streams_its_upload(numpy, monkeypatch):
    # Every graph's conversion streams its upload, in pieces of 3 arcs:
    # the same arrays as a conversion that uploads nothing, and on the
    # server the graph of them (BFS depths and components as networkx's);
    # where the conversion fails part way (a float key, a view whose rows
    # count otherwise), the fallback's arrays and no upload.
    if not numpy:
        monkeypatch.setitem(sys.modules, "numpy", None)
    monkeypatch.setattr(backend, "_STREAM_MIN", 1)
    monkeypatch.setattr(backend, "_SEND", 3)
    for name, G in conversion_cases().items():
        plain, st = backend._Structure(G), backend._Structure(G, upload=True)
        assert (st.nodes, st.src, st.dst, st.uploads) == (plain.nodes, plain.src, plain.dst, {}) or (
            st.nodes == plain.nodes and st.src == plain.src and st.dst == plain.dst and list(st.uploads) == [None]), name
        streamed = None in st.uploads
        if name in ("ints 0..n-1 (blocks)", "karate-strings", "negative ints (a dict)", "multigraph"):
            assert streamed, name
        if "float key" in name or name in ("empty", "view (edge subgraph)"):
            assert not streamed, name
        if not streamed:
            continue
        depth = st.client.rows(st.uploads[None], "bfs", src=0).columns["depth"]
        want = nx.single_source_shortest_path_length(G, st.nodes[0])
        assert {st.nodes[v]: d for v, d in enumerate(depth) if d >= 0} == want, name
        count = nx.number_weakly_connected_components if G.is_directed() else nx.number_connected_components
        assert st.client.run(st.uploads[None], "cc")["result"]["components"] == count(G), name


def test_int32s_counts_what_it_packs():
    assert list(backend._int32s(range(70000), 70000)) == list(range(70000))
    for count in (69999, 70001, 65536):
        with pytest.raises(backend._Changed):
            backend._int32s(range(70000), count)
    assert list(backend._repeat_each([2, 0, 1, 3])) == [0, 0, 2, 3, 3, 3]


def test_components_grouped_as_networkx():
    # Components of 1 node, of a few and of many, the nodes in a shuffled
    # order: networkx's order of the components is the server's groups'.
    rng = random.Random(5)
    G = nx.Graph()
    G.add_nodes_from(range(2000))
    parts = [list(range(0, 300)), list(range(300, 430))] + [list(range(430 + 5 * k, 435 + 5 * k)) for k in range(200)]
    for p in parts:
        rng.shuffle(p)
        nx.add_path(G, p)
    for H in (G, nx.relabel_nodes(G, {v: f"n{v}" for v in G})):
        shuffled = nx.Graph()
        shuffled.add_nodes_from(rng.sample(list(H), len(H)))
        shuffled.add_edges_from(H.edges())
        for g in (H, shuffled):
            assert list(run("connected_components", g)) == list(nx.connected_components(g))


def test_answers_kept_and_copied(monkeypatch):
    # A later call with the same arguments on the same conversion asks the
    # server nothing and returns a new copy, which the caller may change.
    G = graphs()["gnp+loops"]
    asked = []
    real = Client._request

    def counted(client, method, path, *args, **kwargs):
        if path.endswith("/run"):
            asked.append(path)
        return real(client, method, path, *args, **kwargs)

    monkeypatch.setattr(Client, "_request", counted)
    hg, weighted = backend.convert_from_nx(G), backend.convert_from_nx(G, {"weight": 1})
    calls = [
        ("pagerank", ()), ("single_source_shortest_path_length", (0,)), ("descendants", (0,)),
        ("descendants_at_distance", (0, 2)), ("single_source_dijkstra_path_length", (0,)),
        ("node_connected_component", (0,)), ("triangles", ()), ("clustering", ()),
    ]
    for name, args in calls:
        h = weighted if name == "single_source_dijkstra_path_length" else hg
        n = len(asked)
        first = getattr(B, name)(h, *args)
        assert len(asked) > n, name
        n = len(asked)
        second = getattr(B, name)(h, *args)
        assert len(asked) == n and second == first and second is not first, name
        second.clear()
        assert getattr(B, name)(h, *args) == first, name
        assert getattr(B, name)(backend.convert_from_nx(G.copy()), *args) == first, name  # (a fresh conversion)
    n = len(asked)
    comps = list(B.connected_components(hg))
    assert len(asked) > n
    n = len(asked)
    again = list(B.connected_components(hg))
    assert len(asked) == n and again == comps and all(a is not b for a, b in zip(again, comps))
    again[0].clear()
    assert list(B.connected_components(hg)) == comps == list(nx.connected_components(G))


def test_changed_graph_asked_again():
    # networkx drops the conversion, and with it the answers, when the
    # graph changes through its methods.
    if not getattr(getattr(nx, "config", None), "cache_converted_graphs", False):
        pytest.skip(f"networkx {nx.__version__} keeps no cache on graphs (__networkx_cache__, 3.3 or later)")
    G = nx.Graph(graphs()["gnp+loops"])
    for _ in range(2):
        assert run("single_source_shortest_path_length", G, 0) == nx.single_source_shortest_path_length(G, 0)
        assert list(run("connected_components", G)) == list(nx.connected_components(G))
        G.add_edge(0, 299)
        G.remove_node(len(G) // 2)


def test_answers_kept_are_bounded():
    st = backend._Structure(nx.path_graph(3))
    for k in range(backend._KEPT + 5):
        assert st.keep(("k", k), lambda: k) == k
    assert len(st.kept) == backend._KEPT and ("k", 0) not in st.kept
    assert st.keep(("k", backend._KEPT + 4), lambda: "made again") == backend._KEPT + 4


def test_conversion_is_cached_on_the_graph(monkeypatch):
    if not hasattr(nx.Graph(), "__networkx_cache__") or not getattr(getattr(nx, "config", None), "cache_converted_graphs", False):
        pytest.skip(f"networkx {nx.__version__} keeps no cache on graphs (__networkx_cache__, 3.3 or later)")
    G = graphs()["gnp+loops"].copy()
    made = []
    real = backend._Structure
    monkeypatch.setattr(backend, "_Structure", lambda g, **kw: made.append(g) or real(g, **kw))
    h1 = backend.convert_from_nx(G)
    h2 = backend.convert_from_nx(G, {"weight": 1})
    assert len(made) == 1 and h1.structure is h2.structure
    G.add_edge(0, 299)  # (networkx clears the cache)
    backend.convert_from_nx(G)
    assert len(made) == 2


def test_server_graph_dropped_with_its_conversion():
    hg = backend.convert_from_nx(graphs()["karate"])
    client, name = hg.server_graph()
    assert name in {g["name"] for g in client.graphs()}
    del hg
    gc.collect()
    assert name not in {g["name"] for g in client.graphs()}


@needs_dispatch
def test_dispatch():
    G = graphs()["gnp+loops"]
    assert nx.pagerank(G, backend="hpgraph", tol=1e-12) == pytest.approx(nx.pagerank(G, tol=1e-12), rel=1e-9)
    assert nx.single_source_shortest_path_length(G, 0, backend="hpgraph") == nx.single_source_shortest_path_length(G, 0)
    assert list(nx.connected_components(G, backend="hpgraph")) == list(nx.connected_components(G))
    with pytest.raises(NotImplementedError):
        nx.pagerank(G, personalization={0: 1}, backend="hpgraph")
    info = nx.utils.backends.backend_info["hpgraph"]
    assert "pagerank" in info["functions"] and "min_nodes" in info["default_config"]


@needs_dispatch
def test_dispatch_uses_the_cached_graph():
    import warnings

    G = nx.Graph(graphs()["gnp+loops"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nx.number_connected_components(G, backend="hpgraph")
        cached = G.__networkx_cache__["backends"]["hpgraph"]
        (hg,) = cached.values()
        uploaded = dict(hg.structure.uploads)
        nx.connected_components(G, backend="hpgraph")
        nx.single_source_shortest_path_length(G, 0, backend="hpgraph")
        assert G.__networkx_cache__["backends"]["hpgraph"] == cached and hg.structure.uploads == uploaded
        # pagerank's conversion (with its weight attribute) shares the arrays and the upload
        nx.pagerank(G, backend="hpgraph")
        assert all(h.structure is hg.structure for h in G.__networkx_cache__["backends"]["hpgraph"].values())
        assert hg.structure.uploads == uploaded


@needs_dispatch
def test_should_run_declines_small_graphs():
    assert isinstance(B.should_run("pagerank", (nx.path_graph(10),), {}), str)
    assert B.should_run("pagerank", (nx.path_graph(2000),), {}) is True
