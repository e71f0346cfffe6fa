"""Issue 40's later calls, measured alone: single_source_shortest_path_length
(from the highest-degree node) and connected_components on a generated
Kronecker graph, each later call (the graph converted and cached, the
answer not kept from an earlier call; "kept": with it kept) split into the server's part (the
request, the server's work and the answer's transfer) and Python's
(decoding, mapping vertices to nodes, the answer's objects), with the
floor of those objects in CPython: the time to build the same dict, or
the same sets, from lists that are already at hand.

    python3 nx_later.py --bin bin/hpgraph [--scale 20 --degree 10 --rounds 7]
        [--out DIR] [--networkx-rounds 1]

With networkx 3.3 or later and hpgraph installed as its backend the calls
are dispatched (backend="hpgraph"); otherwise the backend's functions are
called on the conversion directly. Prints a table and writes
DIR/nx_later.json where --out is given. Exits 1 if an answer differs
from networkx's.
"""

import argparse
import gc
import itertools
import json
import os
import statistics
import sys
import tempfile
import time
import warnings

import networkx as nx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nx_compare import clock, generate  # noqa: E402

from hpgraph import client as hpclient  # noqa: E402
from hpgraph import networkx_backend as backend  # noqa: E402


class ServerPart:
    """The time in Client._request (the request sent, the server's work,
    the answer read) and the compute time the server reports."""

    def __init__(self):
        self.request_s = self.compute_s = 0.0

    def __enter__(self):
        self.real = real = hpclient.Client._request

        def timed(c, *args, **kwargs):
            t = time.perf_counter()
            r = real(c, *args, **kwargs)
            self.request_s += time.perf_counter() - t
            ms = r[0].get("X-Hpgraph-Compute-Ms")
            if ms is not None:
                self.compute_s += float(ms) / 1e3
            return r

        hpclient.Client._request = timed
        return self

    def __exit__(self, *exc):
        hpclient.Client._request = self.real


def dispatching():
    return "hpgraph" in getattr(getattr(getattr(nx, "utils", None), "backends", None), "backends", {})


def floors(G, lengths, components, rounds):
    """The CPython floor of each answer: the dict of lengths made by
    dict(zip()) from a list of its nodes and one of its values, and the
    components' sets made from slices of one list of their nodes (a
    component of one node as {node}), cyclic collection off."""
    keys, values = list(lengths), list(lengths.values())
    members = list(itertools.chain.from_iterable(components))
    bounds = list(itertools.accumulate(map(len, components), initial=0))

    def sets():
        gc.disable()
        try:
            return [set(members[a:b]) if b - a > 1 else {members[a]} for a, b in zip(bounds, bounds[1:])]
        finally:
            gc.enable()

    out = {}
    for name, f in (("dict_zip_s", lambda: dict(zip(keys, values))), ("sets_from_slices_s", sets)):
        out[name] = statistics.median(clock(f)[0] for _ in range(rounds))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", required=True, help="the hpgraph binary (gen, and the server where none is configured)")
    p.add_argument("--scale", type=int, default=20)
    p.add_argument("--degree", type=int, default=10)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--networkx-rounds", type=int, default=1)
    p.add_argument("--out")
    a = p.parse_args()
    warnings.simplefilter("ignore")  # (networkx's note on its cache of conversions)
    os.environ.setdefault("HPGRAPH_BIN", a.bin)
    with tempfile.TemporaryDirectory() as tmp:
        t, G = clock(lambda: generate(a.bin, "kron", a.scale, a.degree, a.out or tmp))
    hub = max(G, key=G.degree)
    print(f"kron{a.scale}: {len(G)} nodes, {G.number_of_edges()} edges, read in {t:.1f} s", flush=True)
    dispatch = dispatching()
    if dispatch:
        target = G
        kw = {"backend": "hpgraph"}
    else:
        target, kw = backend.convert_from_nx(G), {}
    funcs = {
        "single_source_shortest_path_length": (nx.single_source_shortest_path_length,
                                               backend.BackendInterface.single_source_shortest_path_length, (hub,)),
        "connected_components": (lambda g, **k: list(nx.connected_components(g, **k)),
                                 lambda g: list(backend.BackendInterface.connected_components(g)), ()),
    }
    out = {"nodes": len(G), "edges": G.number_of_edges(), "dispatched": dispatch, "networkx": nx.__version__}
    bad = 0
    answers = {}
    for name, (nxf, bf, args) in funcs.items():
        row = {}
        nxt = []
        for _ in range(a.networkx_rounds):
            t, want = clock(lambda: nxf(G, *args))
            nxt.append(t)
        row["networkx_s"] = statistics.median(nxt)
        call = (lambda: nxf(G, *args, **kw)) if dispatch else (lambda: bf(target, *args))
        call()  # (the conversion, the upload, the first query)
        totals, requests, computes = [], [], []
        for _ in range(a.rounds):
            for h in ([target] if not dispatch else G.__networkx_cache__["backends"]["hpgraph"].values()):
                h.structure.kept.clear()  # (no answer kept from an earlier call)
            with ServerPart() as sp:
                t, got = clock(call)
            totals.append(t)
            requests.append(sp.request_s)
            computes.append(sp.compute_s)
        row["later_s"] = statistics.median(totals)
        row["server_s"] = statistics.median(requests)
        row["server_compute_s"] = statistics.median(computes)
        row["python_s"] = statistics.median(t - r for t, r in zip(totals, requests))
        row["speedup"] = row["networkx_s"] / row["later_s"]
        # (and with the answer kept from the call before: a copy of it)
        row["kept_s"] = statistics.median(clock(call)[0] for _ in range(a.rounds))
        row["equal"] = got == want
        answers[name] = got
        bad += not row["equal"]
        out[name] = row
        print(name, json.dumps(row), flush=True)
    lengths, comps = answers["single_source_shortest_path_length"], answers["connected_components"]
    out["answer_sizes"] = {"lengths": len(lengths), "components": len(comps),
                           "singletons": sum(len(c) == 1 for c in comps), "largest": max(map(len, comps))}
    out["floor"] = floors(G, lengths, comps, a.rounds)
    print(json.dumps(out["answer_sizes"]), json.dumps(out["floor"]))
    print(f"{'function':36} {'networkx':>9} {'later':>9} {'server':>9} {'compute':>9} {'python':>9} {'floor':>9} {'speedup':>8} {'kept':>9}")
    for name, fl in (("single_source_shortest_path_length", "dict_zip_s"), ("connected_components", "sets_from_slices_s")):
        r = out[name]
        print(f"{name:36} {r['networkx_s']:8.3f}s {r['later_s']:8.4f}s {r['server_s']:8.4f}s {r['server_compute_s']:8.4f}s "
              f"{r['python_s']:8.4f}s {out['floor'][fl]:8.4f}s {r['speedup']:7.0f}x {r['kept_s']:8.4f}s")
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "nx_later.json"), "w") as f:
            json.dump(out, f, indent=1)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
