"""Each function the networkx backend dispatches, against networkx's own
answer, on the repository's test graphs and generated Kronecker and
uniform graphs; then the issue's timings on a large generated graph,
each hpgraph call's time split into its phases (Phases).

    python3 nx_compare.py --bin bin/gpu/hpgraph --out DIR [--scale 12]
        [--timing-scale 20 --timing-degree 10]

Writes DIR/nx_compare.json and DIR/nx_timing.json and prints a table of
each. Needs networkx 3.3 or later with hpgraph installed as its backend
(the networkx.backends entry point). Exits 1 if an answer differs.
"""

import argparse
import collections
import gc
import json
import math
import os
import subprocess
import sys
import time
import warnings
from array import array

import networkx as nx

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TESTDATA = os.path.join(REPO, "datasets", "testdata")


def read_testdata(name, directed=None):
    """A Matrix Market or edge-list file of datasets/testdata as a simple
    networkx graph in the file's ids, unweighted."""
    entries, file_directed, sized = [], True, not name.endswith(".mtx")
    with open(os.path.join(TESTDATA, name)) as f:
        for line in f:
            if line.startswith("%%MatrixMarket"):
                file_directed = "symmetric" not in line
            if not line.strip() or line[0] in "%#":
                continue
            if not sized:
                sized = True
                continue
            u, v = line.split()[:2]
            entries.append((int(u), int(v)))
    G = nx.DiGraph() if (file_directed if directed is None else directed) else nx.Graph()
    G.add_edges_from(entries)
    return G


def generate(binary, kind, scale, degree, directory):
    """A graph from `hpgraph gen` as a networkx graph with nodes 0..N-1
    (isolated ones included), undirected."""
    path = os.path.join(directory, f"{kind}{scale}-{degree}.el")
    if not os.path.exists(path):
        subprocess.run([binary, "gen", kind, "--scale", str(scale), "--degree", str(degree), "-o", path], check=True,
                       stdout=subprocess.DEVNULL)
    with open(path, "rb") as f:
        data = f.read()
    body = data.split(b"\n", 2)[2]  # (after the two comment lines gen writes)
    nums = array("q", map(int, body.split()))
    G = nx.Graph()
    G.add_nodes_from(range(1 << scale))
    G.add_edges_from(zip(nums[0::2], nums[1::2]))
    return G


def close_ranks(a, b, n, tol):
    """PageRank answers within networkx's tolerance of each other."""
    return a.keys() == b.keys() and math.fsum(abs(a[v] - b[v]) for v in a) <= n * tol * 0.85 / 0.15


def cases(G):
    """(function, args, kwargs, equal) to compare on G."""
    nodes = list(G)
    hub = max(G, key=G.degree)
    out = [
        ("pagerank", (), {}, lambda a, b: close_ranks(a, b, len(G), 1e-6)),
        ("pagerank", (), {"tol": 1e-10, "max_iter": 1000}, lambda a, b: close_ranks(a, b, len(G), 1e-10)),
        ("single_source_shortest_path_length", (hub,), {}, None),
        ("single_source_shortest_path_length", (nodes[0],), {"cutoff": 2}, None),
        ("descendants", (hub,), {}, None),
        ("descendants_at_distance", (hub, 2), {}, None),
    ]
    W = G.copy()
    for i, (u, v) in enumerate(W.edges()):
        W[u][v]["weight"] = 1 + (7 * i) % 13
    out.append(("single_source_dijkstra_path_length", (hub,), {}, None, W))
    if G.is_directed():
        out += [("weakly_connected_components", (), {}, lambda a, b: list(a) == list(b)),
                ("number_weakly_connected_components", (), {}, None)]
    else:
        out += [("connected_components", (), {}, lambda a, b: list(a) == list(b)),
                ("number_connected_components", (), {}, None),
                ("node_connected_component", (hub,), {}, None),
                ("triangles", (), {}, None), ("clustering", (), {}, None), ("average_clustering", (), {}, None)]
    return [c if len(c) == 5 else (*c, G) for c in out]


def compare(graphs):
    rows, bad = [], 0
    for gname, G in graphs.items():
        for name, args, kwargs, equal, H in cases(G):
            func = getattr(nx, name)
            want = func(H, *args, **kwargs)
            try:
                got = func(H, *args, backend="hpgraph", **kwargs)
                dispatched = True
            except NotImplementedError as e:
                got, dispatched = None, str(e)
            ok = dispatched is True and (equal(got, want) if equal else got == want)
            bad += not ok
            rows.append({"graph": gname, "nodes": len(G), "edges": G.number_of_edges(), "function": name,
                         "kwargs": {k: v for k, v in kwargs.items()}, "dispatched": dispatched, "equal": ok})
            print(f"{'ok ' if ok else 'BAD'} {gname:28} {name:36} {kwargs}")
    return rows, bad


def clock(f):
    # (a collection first: the garbage of what ran before is not this call's)
    gc.collect()
    t = time.perf_counter()
    r = f()
    return time.perf_counter() - t, r


class Phases:
    """Where the backend's calls spend their time, while active: converting
    (the arrays, and an edge attribute's values; with the upload that a
    large graph's conversion streams as it makes the arcs, whose time
    is also given as streamed_upload_s), uploading (the client's wait;
    the server's own load time in it), querying (the request, the
    answer's transfer and decoding; the server's compute time in it). The
    rest of a call is networkx's dispatch and the making of the answer's
    Python objects."""

    def __init__(self):
        from hpgraph import client, networkx_backend

        self.patches = [(networkx_backend._Structure, "__init__"), (networkx_backend._Weights, "__init__"),
                        (client.Client, "_request")]
        self.times = collections.Counter()
        self.converting = False

    def __enter__(self):
        self.saved = [getattr(cls, name) for cls, name in self.patches]
        for (cls, name), real in zip(self.patches, self.saved):
            setattr(cls, name, self._timed(real, name))
        return self

    def __exit__(self, *exc):
        for (cls, name), real in zip(self.patches, self.saved):
            setattr(cls, name, real)

    def _timed(self, real, name):
        def timed(obj, *args, **kwargs):
            converting = self.converting
            self.converting = converting or name == "__init__"
            t = time.perf_counter()
            try:
                r = real(obj, *args, **kwargs)
            finally:
                self.converting = converting
            took = time.perf_counter() - t
            if name == "__init__":
                if not converting:
                    self.times["convert_s"] += took
            elif args[0] == "PUT":
                self.times["streamed_upload_s" if converting else "upload_s"] += took
                self.times["server_load_s"] += json.loads(r[1])["load_ms"] / 1e3
            elif args[1].endswith("/run"):
                self.times["query_s"] += took
                ms = r[0].get("X-Hpgraph-Compute-Ms")
                self.times["server_compute_s"] += float(ms if ms is not None else json.loads(r[1])["times_ms"]["compute"]) / 1e3
            return r

        return timed

    def measure(self, f):
        """(seconds, the phases' seconds, f's answer)."""
        self.times.clear()
        t, r = clock(f)
        phases = {k: round(v, 4) for k, v in self.times.items()}
        phases["rest_s"] = round(t - sum(v for k, v in self.times.items() if not k.startswith(("server_", "streamed_"))), 4)
        return t, phases, r


def relabel_choices(hg, src):
    """The server's renumbering of an upload (relabel none or auto), what
    it costs at the upload and gains in a BFS and a PageRank."""
    from hpgraph import Edges

    client, st = hg.server_graph()[0], hg.structure
    out = {}
    for relabel in ("none", "auto"):
        edges = Edges(st.n, st.src, st.dst, directed=st.directed, symmetric=not st.directed)
        t, info = clock(lambda: client.upload("relabel-" + relabel, edges, keep_loops=True, relabel=relabel))
        row = {"upload_s": t, "server_load_s": info["load_ms"] / 1e3}
        for key, algo, params in (("bfs_first", "bfs", {"src": src}), ("bfs", "bfs", {"src": src}),
                                  ("pagerank20", "pagerank-ldbc", {"iterations": 20})):
            t, r = clock(lambda: client.run("relabel-" + relabel, algo, **params))
            row[key + "_s"], row[key + "_compute_s"] = t, r["times_ms"]["compute"] / 1e3
        client.drop("relabel-" + relabel)
        out[relabel] = row
    return out


def summary(out):
    """The timings as lines of text: speed-ups and the first call's phases."""
    lines = [f"{out['nodes']} nodes, {out['edges']} edges; converted in {out['convert_s']:.2f} s (a large graph's "
             f"upload streamed with it) and sent in {out['send_s']:.2f} s more: "
             f"{out['convert_send_edges_per_s'] / 1e6:.2f} M edges/s; relabel {out['relabel']}"]
    for relabel, row in out["relabel_choices"].items():
        lines.append(f"  relabel {relabel}: " + ", ".join(f"{k} {v:.3f}" for k, v in row.items()))
    lines.append(f"{'function':36} {'networkx':>9} {'first':>15} {'later':>17} {'not kept':>16}   first call's phases")
    for name, row in out.items():
        if not isinstance(row, dict) or "first_s" not in row:
            continue
        cells = [f"{row.get('networkx_s', math.nan):8.3f}s"]
        for k in ("first", "later", "not_kept"):
            cells.append(f"{row[k + '_s']:8.4f}s {row.get(k + '_speedup', math.nan):6.1f}x")
        total = row["first_s"]
        shares = ", ".join(f"{k[:-2]} {v / total:.0%}" for k, v in row["first_phases"].items() if not k.startswith(("server_", "streamed_")))
        lines.append(f"{name:36} {' '.join(cells)}   {shares}")
    return "\n".join(lines)


def timing(G, later_runs=3):
    """The issue's targets: conversion and upload rate, and each function's
    first call (conversion included), later calls (the answer kept) and a
    later call whose answer is not kept, against networkx's; each hpgraph
    call with its phases (Phases)."""
    from hpgraph import networkx_backend as backend

    m = G.number_of_edges()
    out = {"nodes": len(G), "edges": m}
    t, _ = clock(lambda: sum(1 for _ in G.edges))
    out["iterate_edges_s"] = t
    out["iterate_edges_per_s"] = m / t
    G.__networkx_cache__.clear()
    t_conv, hg = clock(lambda: backend.convert_from_nx(G))
    t_send, _ = clock(lambda: hg.server_graph())
    out.update(convert_s=t_conv, send_s=t_send, convert_send_edges_per_s=m / (t_conv + t_send),
               relabel=backend._config("relabel", "HPGRAPH_RELABEL") or "none")
    hub = max(G, key=G.degree)
    out["relabel_choices"] = relabel_choices(hg, hg.structure.vertex(hub))
    del hg
    funcs = {
        "pagerank": lambda **kw: nx.pagerank(G, **kw),
        "single_source_shortest_path_length": lambda **kw: nx.single_source_shortest_path_length(G, hub, **kw),
        "connected_components": lambda **kw: list(nx.connected_components(G, **kw)),
        "number_connected_components": lambda **kw: nx.number_connected_components(G, **kw),
    }
    with Phases() as phases:
        for name, f in funcs.items():
            row = {}
            try:
                row["networkx_s"], want = clock(f)
            except Exception as e:  # (networkx's pagerank needs scipy)
                row["networkx_error"], want = repr(e), None
            G.__networkx_cache__.clear()
            row["first_s"], row["first_phases"], got = phases.measure(lambda: f(backend="hpgraph"))
            later = [phases.measure(lambda: f(backend="hpgraph")) for _ in range(later_runs)]
            kept = later[-1][2]
            later = sorted(((t, p) for t, p, _ in later), key=lambda r: r[0])
            row["later_s"], row["later_phases"] = later[len(later) // 2]
            for h in G.__networkx_cache__["backends"]["hpgraph"].values():
                h.structure.kept.clear()
            row["not_kept_s"], row["not_kept_phases"], again = phases.measure(lambda: f(backend="hpgraph"))
            if want is not None:
                equal = (lambda a, b: close_ranks(a, b, len(G), 1e-6)) if name == "pagerank" else (lambda a, b: a == b)
                row["equal"] = equal(got, want) and equal(kept, want) and equal(again, want)
                for k in ("first", "later", "not_kept"):
                    row[k + "_speedup"] = row["networkx_s"] / row[k + "_s"]
            out[name] = row
            print(name, json.dumps(row), flush=True)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", required=True, help="the hpgraph binary (gen)")
    p.add_argument("--out", required=True)
    p.add_argument("--scale", type=int, default=12, help="scale of the kron and urand graphs compared")
    p.add_argument("--timing-scale", type=int, default=0, help="scale of the timed kron graph (0: no timing)")
    p.add_argument("--timing-degree", type=int, default=10)
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    warnings.simplefilter("ignore")
    if "hpgraph" not in nx.utils.backends.backends:
        sys.exit("hpgraph is not installed as a networkx backend")
    graphs = {name: read_testdata(name) for name in
              ("karate.mtx", "hartford_drug.edgelist", "lanl_routes.edgelist", "ldbc-directed-example.mtx", "west0067.mtx")}
    graphs["hartford(directed)"] = read_testdata("hartford_drug.edgelist", directed=True)
    for kind in ("kron", "uniform"):
        G = generate(a.bin, kind, a.scale, 16, a.out)
        graphs[f"{kind}{a.scale}"] = G
        graphs[f"{kind}{a.scale}(directed)"] = nx.DiGraph(G)
    rows, bad = compare(graphs)
    with open(os.path.join(a.out, "nx_compare.json"), "w") as f:
        json.dump(rows, f, indent=1)
    print(f"{len(rows) - bad} equal, {bad} differ or were not dispatched")
    if a.timing_scale:
        t0 = time.perf_counter()
        G = generate(a.bin, "kron", a.timing_scale, a.timing_degree, a.out)
        print(f"timing graph: {len(G)} nodes, {G.number_of_edges()} edges, read in {time.perf_counter() - t0:.1f} s", flush=True)
        out = timing(G)
        with open(os.path.join(a.out, "nx_timing.json"), "w") as f:
            json.dump(out, f, indent=1)
        print(summary(out))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
