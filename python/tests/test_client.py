"""The client, the local server and uploads against a real server, checked
against closed forms (no networkx needed)."""

import http.client
import math
import os
from array import array

import pytest

import hpgraph
from conftest import BACKEND
from graphs import read_entries
from hpgraph import Edges, HPGraphError


def path_graph(n, **kw):
    """0 - 1 - ... - n-1, each edge once."""
    return Edges(n, range(n - 1), range(1, n), directed=False, **kw)


def test_run_closed_forms(client):
    # Two cycles (sizes 5 and 7, ids from 100) and K4 (ids 200..203).
    src, dst = [], []
    for lo, size in ((0, 5), (5, 7)):
        for k in range(size):
            src.append(lo + k)
            dst.append(lo + (k + 1) % size)
    k4 = [(12 + a, 12 + b) for a in range(4) for b in range(a + 1, 4)]
    src += [a for a, _ in k4]
    dst += [b for _, b in k4]
    ids = [100 + i for i in range(12)] + [200, 201, 202, 203]
    info = client.upload("g", Edges(16, src, dst, directed=False, ids=ids))
    assert (info["vertices"], info["edges"], info["directed"], info["path"]) == (16, 18, False, "")

    cc = client.values("g", "cc")
    assert cc == {i: 100 if i < 105 else 105 if i < 200 else 200 for i in ids}
    assert client.run("g", "cc")["result"]["components"] == 3

    depth = client.rows("g", "bfs", src=105)["depth"]
    # On the 7-cycle from its first vertex: min(k, 7-k); elsewhere -1.
    assert list(depth) == [-1] * 5 + [min(k, 7 - k) for k in range(7)] + [-1] * 4

    # Only the reached, only depth; the vertices grouped by a column.
    reached = client.rows("g", "bfs", src=105, columns=["depth"], reached_only=True)
    assert list(reached.columns) == ["depth"] and list(reached.ids) == ids[5:12]
    assert list(reached["depth"]) == [min(k, 7 - k) for k in range(7)]
    groups = client.groups("g", "cc")
    assert list(groups.values) == [100, 105, 200] and list(groups.offsets) == [0, 5, 12, 16]
    assert list(groups) == [ids[:5], ids[5:12], ids[12:]] and list(groups.ids) == ids
    by_depth = client.groups("g", "bfs", "depth", reached_only=True, src=105)
    assert list(by_depth.values) == [0, 1, 2, 3]
    assert list(by_depth) == [[105], [106, 111], [107, 110], [108, 109]]
    with pytest.raises(HPGraphError) as e:
        client.groups("g", "pagerank-ldbc")
    assert e.value.field == "columns"

    tri = client.values("g", "tc", per_vertex=True)
    assert tri == {i: 3 if i >= 200 else 0 for i in ids}
    lcc = client.values("g", "lcc")
    assert lcc == {i: 1.0 if i >= 200 else 0.0 for i in ids}

    # PageRank of a graph whose every component is regular: 1/n each.
    rank = client.values("g", "pagerank-ldbc", iterations=30)
    assert all(math.isclose(r, 1 / 16, rel_tol=1e-12) for r in rank.values())


def test_rows_columns_and_sssp(client):
    # A weighted directed path 0 -> 1 -> ... -> 9 with weights 1..9:
    # dist(k) = k(k+1)/2; vertex 10 unreachable.
    n = 11
    client.upload("p", Edges(n, range(9), range(1, 10), weights=[float(k) for k in range(1, 10)], directed=True))
    rows = client.rows("p", "sssp", src=0)
    assert list(rows.ids) == list(range(n)) and list(rows.columns) == ["dist"]
    assert list(rows["dist"])[:10] == [k * (k + 1) / 2 for k in range(10)]
    assert rows["dist"][10] == math.inf
    assert rows.summary.startswith("source 0: reached 10 vertices")
    bfs = client.rows("p", "bfs", src=0)
    assert bfs["depth"].typecode == "q" and list(bfs["parent"]) == [0] + list(range(9)) + [-1]
    with pytest.raises(ValueError, match="give a column"):
        bfs.to_dict()


def test_symmetric_upload_is_the_undirected_graph(client):
    n = 30
    once = path_graph(n)
    both = Edges(n, list(range(n - 1)) + list(range(1, n)), list(range(1, n)) + list(range(n - 1)), directed=False, symmetric=True)
    a, b = client.upload("once", once), client.upload("both", both)
    assert (a["vertices"], a["edges"], a["nnz"]) == (b["vertices"], b["edges"], b["nnz"]) == (n, n - 1, 2 * (n - 1))
    assert client.values("both", "bfs", "depth", src=0) == {k: k for k in range(n)}
    with pytest.raises(HPGraphError) as e:
        client.upload("bad", Edges(3, [0, 1, 1], [1, 0, 2], directed=False, symmetric=True))
    assert e.value.status == 400 and e.value.field == "body" and "arc 1 -> 2 has no reverse" in e.value.message


def test_upload_equals_load(client):
    # lanl_routes: weighted, sparse ids; loaded from the data directory
    # and uploaded from the entries read here.
    entries, _ = read_entries("lanl_routes.edgelist")
    ids = sorted({u for u, _, _ in entries} | {v for _, v, _ in entries})
    index = {x: i for i, x in enumerate(ids)}
    edges = Edges(len(ids), [index[u] for u, _, _ in entries], [index[v] for _, v, _ in entries],
                  weights=[w for _, _, w in entries], directed=True, ids=ids)
    up = client.upload("up", edges, relabel="degree")
    file = client.load("file", "lanl_routes.edgelist", relabel="degree")
    for key in ("vertices", "edges", "nnz", "directed", "weighted", "ids"):
        assert up[key] == file[key], key
    src = ids[0]
    for algo, params in (("sssp", {"src": src}), ("cc", {}), ("pagerank-ldbc", {"iterations": 10})):
        a, b = client.rows("up", algo, **params), client.rows("file", algo, **params)
        assert a.ids == b.ids and a.columns == b.columns, algo
    assert client.values("up", "bfs", "depth", src=src) == client.values("file", "bfs", "depth", src=src)


def test_arrays_from_numpy(client):
    numpy = pytest.importorskip("numpy", reason="numpy is not installed")
    n = 8
    client.upload("np", Edges(n, numpy.arange(n - 1), numpy.arange(1, n), weights=numpy.full(n - 1, 2.0), directed=False))
    assert client.values("np", "sssp", src=0) == {k: 2.0 * k for k in range(n)}


def filled_later(edges, pieces):
    """(edges with a zeroed dst, a fill that writes edges' dst back in
    pieces of the given sizes, telling ready after each)."""
    dst = array("i", edges.dst)
    later = Edges(edges.n, edges.src, array("i", bytes(4 * len(dst))), edges.weights, edges.directed, edges.symmetric)
    told = []

    def fill(ready):
        told.append("called")
        k = 0
        for size in pieces:
            memoryview(later.dst)[k : k + size] = dst[k : k + size]
            k += size
            ready(k)
            told.append(k)

    return later, fill, told


def test_upload_filled_while_sent(client):
    # The graph a fill makes while it is sent is the graph of its arrays
    # sent whole: told ready once at the end, in uneven pieces (one empty:
    # told the same twice), in pieces of 7.
    entries, _ = read_entries("karate.mtx")
    whole = Edges(35, [u for u, _, _ in entries], [v for _, v, _ in entries], directed=False)
    client.upload("whole", whole)
    m = len(whole.dst)
    assert m > 70
    for i, pieces in enumerate(([m], [1, 0, 5, m - 6], [7] * (m // 7) + [m % 7])):
        later, fill, told = filled_later(whole, pieces)
        client.upload(f"later{i}", later, fill=fill)
        assert told[0] == "called" and told[-1] == m and later.dst == whole.dst
        for algo, params in (("bfs", {"src": 1}), ("cc", {}), ("tc", {"per_vertex": True})):
            a, b = client.rows(f"later{i}", algo, **params), client.rows("whole", algo, **params)
            assert a.ids == b.ids and a.columns == b.columns, (pieces, algo)


def test_upload_fill_fails_or_upload_fails(client, server):
    # A fill's own error ends the upload, leaves no graph and the client
    # usable; a fill is called once where the request fails before its
    # body, and the request's error is raised.
    entries, _ = read_entries("karate.mtx")
    whole = Edges(35, [u for u, _, _ in entries], [v for _, v, _ in entries], directed=False)
    later, fill, _ = filled_later(whole, [10, 10])

    def broken(ready):
        fill(ready)
        raise RuntimeError("made no more")

    with pytest.raises(RuntimeError, match="made no more"):
        client.upload("broken", later, fill=broken)
    assert client.graphs() == []
    client.upload("after", whole)
    assert [g["name"] for g in client.graphs()] == ["after"]
    dead = hpgraph.Client("http://127.0.0.1:9")  # (discard: nothing listens)
    later, fill, told = filled_later(whole, [len(whole.dst)])
    with pytest.raises(OSError):
        dead.upload("nowhere", later, fill=fill)
    assert told == ["called", len(whole.dst)] and later.dst == whole.dst
    with hpgraph.LocalServer(binary=server.binary, backend=BACKEND, args=["--max-upload", "1000"]) as small:
        big = path_graph(3000)
        later, fill, told = filled_later(big, [100] * 29 + [99])
        with pytest.raises((HPGraphError, OSError)) as e:
            small.client().upload("big", later, fill=fill)
        assert told[-1] == 2999 and later.dst == big.dst
        assert not isinstance(e.value, HPGraphError) or e.value.status == 413


def test_request_cut_short(client, monkeypatch):
    # A request interrupted while it waits for the answer (Ctrl-C, a
    # timeout) leaves the client usable: the next request goes out on a
    # new connection, not the spent one.
    client.upload("g", path_graph(4))
    real = http.client.HTTPConnection.getresponse
    cut = []

    def interrupted(self, *args, **kwargs):
        if not cut:
            cut.append(True)
            raise KeyboardInterrupt
        return real(self, *args, **kwargs)

    monkeypatch.setattr(http.client.HTTPConnection, "getresponse", interrupted)
    with pytest.raises(KeyboardInterrupt):
        client.run("g", "bfs", src=0)
    assert cut and list(client.rows("g", "bfs", src=0).ids) == [0, 1, 2, 3]


def test_errors_carry_field_and_message(client):
    client.upload("g", path_graph(4))
    cases = [
        (lambda: client.run("g", "nope"), 400, "algo", "unknown algorithm"),
        (lambda: client.run("g", "bfs", src=99), 400, "params.src", "99 is not a vertex"),
        (lambda: client.run("missing", "bfs"), 404, "name", "no graph named"),
        (lambda: client.load("x", "../etc/passwd"), 400, "path", "'..' is refused"),
        (lambda: client.upload("g", path_graph(4)), 409, "name", "loaded already"),
        (lambda: client.upload("x", path_graph(4), format="mtx"), 400, "format", "does not apply to an upload"),
        (lambda: client.upload("x", Edges(2, [0], [5])), 400, "body", "outside [0, 2)"),
        (lambda: client.upload("x", Edges(0, [], [])), 400, "body", "no vertices"),
    ]
    for call, status, field, text in cases:
        with pytest.raises(HPGraphError) as e:
            call()
        assert (e.value.status, e.value.field) == (status, field) and text in e.value.message, e.value
        assert str(status) in str(e.value)


def test_upload_limit(server):
    with hpgraph.LocalServer(binary=server.binary, backend=BACKEND, args=["--max-upload", "1000"]) as small:
        c = small.client()
        c.upload("fits", path_graph(100))  # 40 + 8*99 bytes
        with pytest.raises(HPGraphError) as e:
            c.upload("big", path_graph(200))
        assert e.value.status == 413 and e.value.field == "body" and "upload limit of 1000 bytes" in e.value.message


def test_token(server):
    anonymous = hpgraph.Client(server.url)
    assert anonymous.health()["status"] == "ok"  # (health needs no token)
    with pytest.raises(HPGraphError) as e:
        anonymous.graphs()
    assert e.value.status == 401 and e.value.field == "Authorization"
    assert hpgraph.Client(server.url, server.token).graphs() is not None


def test_local_server_stops(server):
    s = hpgraph.LocalServer(binary=server.binary, backend=BACKEND)
    data_dir = s.data_dir
    assert s.client().health()["status"] == "ok" and os.path.isdir(data_dir)
    s.stop()
    assert s.proc.returncode is not None and not os.path.exists(data_dir)
    with pytest.raises(OSError):
        s.client().health()


def test_connect_starts_a_private_server(server):
    c = hpgraph.connect(binary=server.binary, backend=BACKEND)
    try:
        assert c.url.startswith("http://127.0.0.1:") and c.url != server.url
        assert c.health()["backend"] == BACKEND
    finally:
        c.server.stop()


def test_binary_not_found(monkeypatch, tmp_path):
    with pytest.raises(hpgraph.BinaryNotFound, match="the binary argument names '/no/such/hpgraph'"):
        hpgraph.find_binary("/no/such/hpgraph")
    monkeypatch.setenv("HPGRAPH_BIN", str(tmp_path))
    with pytest.raises(hpgraph.BinaryNotFound, match=r"\$HPGRAPH_BIN names"):
        hpgraph.LocalServer()
    monkeypatch.delenv("HPGRAPH_BIN")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(hpgraph.BinaryNotFound, match="put hpgraph on PATH"):
        hpgraph.find_binary()


def test_server_that_fails_to_start(server):
    with pytest.raises(RuntimeError, match="exited .* before listening: .*backend"):
        hpgraph.LocalServer(binary=server.binary, backend="nosuch")


def test_edges_checks_lengths():
    with pytest.raises(ValueError, match="differ in length"):
        Edges(3, [0, 1], [1])
    with pytest.raises(ValueError, match="2 ids for 3 vertices"):
        Edges(3, [0], [1], ids=[5, 6])
    with pytest.raises(ValueError, match="src"):
        Edges(3, [0, 2**40], [1, 2])
    assert Edges(2, array("i", [0]), array("i", [1])).src.typecode == "i"
