"""First calls of single_source_shortest_path_length (the conversion
included) on a generated Kronecker graph with the conversion in 1 and
in more processes (HPGRAPH_WORKERS), interleaved in one process, each
split into its phases (nx_compare.Phases), against networkx's own call.

    python3 nx_workers.py --bin bin/gpu/hpgraph --out DIR [--scale 20]
        [--degree 10] [--workers 1,8] [--rounds 4]

Writes DIR/nx_workers.json and prints each setting's median and range.
Needs networkx 3.3 or later with hpgraph installed as its backend.
Exits 1 if an answer differs from networkx's.
"""

import argparse
import gc
import json
import os
import statistics
import sys
import time
import warnings

import networkx as nx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nx_compare  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", required=True, help="the hpgraph binary (gen)")
    p.add_argument("--out", required=True)
    p.add_argument("--scale", type=int, default=20)
    p.add_argument("--degree", type=int, default=10)
    p.add_argument("--workers", default="1,8", help="HPGRAPH_WORKERS settings compared, comma-separated")
    p.add_argument("--rounds", type=int, default=4)
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    warnings.simplefilter("ignore")
    from hpgraph import networkx_backend as backend

    t0 = time.perf_counter()
    G = nx_compare.generate(a.bin, "kron", a.scale, a.degree, a.out)
    print(f"{len(G)} nodes, {G.number_of_edges()} edges, read in {time.perf_counter() - t0:.1f} s; "
          f"{os.cpu_count()} cores, default workers {backend._workers()}", flush=True)
    hub = max(G, key=G.degree)
    backend._client()  # (the private server started before the first timed call)
    t_nx, want = nx_compare.clock(lambda: nx.single_source_shortest_path_length(G, hub))
    settings = a.workers.split(",")
    calls, bad = {w: [] for w in settings}, 0
    with nx_compare.Phases() as phases:
        for _ in range(a.rounds):
            for w in settings:
                os.environ["HPGRAPH_WORKERS"] = w
                G.__networkx_cache__.clear()
                gc.collect()
                t, ph, got = phases.measure(lambda: nx.single_source_shortest_path_length(G, hub, backend="hpgraph"))
                bad += got != want
                calls[w].append(dict(ph, first_s=t))
                del got
                print(w, json.dumps(calls[w][-1]), flush=True)
    out = {"nodes": len(G), "edges": G.number_of_edges(), "cores": os.cpu_count(), "networkx_s": t_nx, "calls": calls}
    with open(os.path.join(a.out, "nx_workers.json"), "w") as f:
        json.dump(out, f, indent=1)
    print(f"networkx {t_nx:.3f} s; first call, median (range) of {a.rounds}:")
    for w, rows in calls.items():
        line = [f"workers {w:>3}:"]
        for key in ("first_s", "convert_s"):
            v = [r.get(key, 0.0) for r in rows]
            line.append(f"{key[:-2]} {statistics.median(v):.3f} s ({min(v):.3f}-{max(v):.3f})")
        line.append(f"{t_nx / statistics.median(r['first_s'] for r in rows):.2f}x networkx")
        print(" ".join(line))
    print(f"{bad} answers differ" if bad else "answers equal")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
