"""The conversion in several processes (hpgraph._fork): the single
process's arrays byte for byte, whichever way the nodes are numbered;
a helper that fails, dies or hangs costs time, not the answer; no helper
outlives a conversion."""

import glob
import os
import sys
import time

import pytest

nx = pytest.importorskip("networkx")

from hpgraph import _fork  # noqa: E402
from hpgraph import networkx_backend as backend  # noqa: E402
from test_networkx import conversion_cases  # noqa: E402

pytestmark = pytest.mark.skipif(not _fork.can_fork(), reason="the conversion forks on Linux only")


def children():
    """This process's children, zombies included, but the servers it
    starts (the backend's own, on its first upload)."""
    out = set()
    for path in glob.glob(f"/proc/{os.getpid()}/task/*/children"):
        try:
            with open(path) as f:
                out.update(f.read().split())
        except OSError:  # (a thread that ended meanwhile: the reaper's, say)
            pass
    for pid in list(out):
        try:
            with open(f"/proc/{pid}/comm") as f:
                if f.read().strip() == "hpgraph":
                    out.discard(pid)
        except OSError:  # (gone meanwhile)
            out.discard(pid)
    return out


@pytest.fixture
def forked(monkeypatch):
    """Every conversion of 1 arc or more in 3 processes, 4 chunks each,
    the forks' time unbounded."""
    monkeypatch.setattr(backend, "_FORK_MIN", 1)
    monkeypatch.setattr(backend, "_PACK_RATE", 1e-9)
    monkeypatch.setattr(backend, "_CHUNKS", 4)
    monkeypatch.setenv("HPGRAPH_WORKERS", "3")
    before = children()
    yield monkeypatch
    deadline = time.monotonic() + _fork.REAP + 5  # (helpers still ending are reaped by a thread)
    while not children() <= before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert children() <= before, "a helper outlived its conversion"


def arrays(st):
    return st.nodes, st.n, st.src.tobytes(), st.dst.tobytes(), st.directed, st.multigraph


def single(G, upload=False):
    """The conversion in this process alone."""
    workers = os.environ.pop("HPGRAPH_WORKERS", None)
    try:
        return backend._Structure(G, upload)
    finally:
        if workers is not None:
            os.environ["HPGRAPH_WORKERS"] = workers


def cases():
    out = conversion_cases()
    mixed = nx.gnm_random_graph(400, 3000, seed=9)
    mixed = nx.relabel_nodes(mixed, {v: (f"s{v}" if v % 3 == 0 else (v, "t") if v % 3 == 1 else v) for v in mixed})
    mixed.add_edges_from([("s0", "s0"), (1, 1)])
    out["mixed ids, loops"] = mixed
    w = nx.gnm_random_graph(500, 4000, seed=10, directed=True)
    for k, (u, v) in enumerate(w.edges()):
        w[u][v]["weight"] = k % 7 + 1
    w.add_edge(3, 3, weight=2)
    out["directed, weighted, loop"] = w
    dm = nx.MultiDiGraph(w)
    dm.add_edges_from(list(w.edges())[:50])
    out["directed multigraph"] = dm
    return out


@pytest.mark.parametrize("numpy", [True, False], ids=["numpy", "no numpy"])
def test_forked_conversion_is_the_single_process_one(numpy, forked):
    if not numpy:
        forked.setitem(sys.modules, "numpy", None)  # (import numpy raises ImportError)
    for name, G in cases().items():
        want = arrays(single(G))
        assert arrays(backend._Structure(G)) == want, name
        if G.number_of_edges():
            assert backend._weights(G, "weight").values == backend._Weights(G, single(G), "weight", 1).values, name


def test_forked_conversion_streams_its_upload(forked, server):
    # The upload streamed while helpers pack: the same arrays, and on the
    # server the graph of them.
    forked.setattr(backend, "_STREAM_MIN", 1)
    forked.setattr(backend, "_SEND", 3)
    for name in ("ints 0..n-1 (blocks)", "karate-strings", "negative ints (a dict)", "multigraph"):
        G = conversion_cases()[name]
        st = backend._Structure(G, upload=True)
        assert arrays(st) == arrays(single(G)) and list(st.uploads) == [None], name
        count = nx.number_weakly_connected_components if G.is_directed() else nx.number_connected_components
        assert st.client.run(st.uploads[None], "cc")["result"]["components"] == count(G), name


@pytest.mark.parametrize("how", ["raise", "die", "hang"])
def test_a_failed_helper_costs_time_not_the_answer(how, forked, tmp_path):
    # Every helper fails on every chunk it takes (and leaves a file saying
    # so): the caller packs them all again.
    forked.setattr(_fork, "PATIENCE", 1.0)
    G = conversion_cases()["ints far apart (a dict)"]
    want = arrays(single(G))
    caller, real = os.getpid(), backend._int32s

    def pack(values, count, out=None, ready=None):
        if os.getpid() != caller:
            (tmp_path / str(os.getpid())).touch()
            if how == "raise":
                raise RuntimeError("a helper's error")
            if how == "die":
                os._exit(9)
            time.sleep(600)
        return real(values, count, out, ready)

    forked.setattr(backend, "_int32s", pack)
    t = time.monotonic()
    assert arrays(backend._Structure(G)) == want
    assert time.monotonic() - t < 30
    assert list(tmp_path.iterdir()), "no helper took a chunk"


def forks(monkeypatch):
    """The number of forks, as they are made."""
    made, real = [], os.fork

    def fork():
        pid = real()
        if pid:
            made.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", fork)
    return made


def test_forks_within_their_budget(forked):
    # Forks while they would take less than half the pack alone: with
    # the pack estimated instant, none; with the fork estimated instant,
    # one less than the workers.
    G = conversion_cases()["ints 0..n-1 (blocks)"]
    want, made = arrays(single(G)), forks(forked)
    forked.setattr(backend, "_PACK_RATE", 1e15)
    assert arrays(backend._Structure(G)) == want and made == []
    forked.setattr(_fork, "FORK_S_PER_BYTE", 0.0)
    forked.setattr(_fork, "_fork", lambda: (time.sleep(0.01), os.fork())[1])  # (10 ms each: none within 1 ns)
    assert arrays(backend._Structure(G)) == want and len(made) == 1
    forked.setattr(backend, "_PACK_RATE", 1e-9)
    assert arrays(backend._Structure(G)) == want and len(made) == 3


@pytest.mark.parametrize("refused", ["fork", "pipe", "mmap"])
def test_refused_one_process(refused, forked):
    # Where a fork, a pipe or shared memory is refused, the caller packs.
    def refuse(*args):
        raise OSError(11, f"{refused} refused")

    forked.setattr(_fork.mmap if refused == "mmap" else os, refused, refuse)
    G = conversion_cases()["ints 0..n-1 (blocks)"]
    assert arrays(backend._Structure(G)) == arrays(single(G))


def test_an_error_of_the_caller_stops_the_helpers(forked):
    # An interrupt while the caller packs ends the helpers at once, hung or not.
    caller = os.getpid()

    def pack(values, count, out=None, ready=None):
        if os.getpid() != caller:
            time.sleep(600)
        raise KeyboardInterrupt

    forked.setattr(backend, "_int32s", pack)
    rows = [[1, 2, 3]] * 40
    t = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        backend._ints(rows, [3] * 40, backend.chain.from_iterable, 120)
    assert time.monotonic() - t < 30


def test_chunks_cover_the_rows():
    counts = [5, 0, 0, 100, 1, 1, 0, 7]
    for parts in (1, 2, 3, 8, 50):
        cs = _fork.chunks(counts, parts)
        assert [c[0] for c in cs] == [0] + [c[1] for c in cs[:-1]] and cs[-1][1] == len(counts), parts
        assert all(c[2] == sum(counts[: c[0]]) and c[3] == sum(counts[: c[1]]) for c in cs), parts
        assert len(cs) <= parts
    assert _fork.chunks([], 4) == []


@pytest.mark.parametrize("value", ["0", "-2", "two", "1.5", " "])
def test_workers_setting_checked(value, monkeypatch):
    monkeypatch.setenv("HPGRAPH_WORKERS", value)
    with pytest.raises(ValueError, match="HPGRAPH_WORKERS"):
        backend._workers()


def test_workers_setting(monkeypatch):
    monkeypatch.setenv("HPGRAPH_WORKERS", "5")
    assert backend._workers() == 5
    monkeypatch.delenv("HPGRAPH_WORKERS")
    cores = len(os.sched_getaffinity(0))
    assert backend._workers() == (1 if cores < backend._FORK_CORES else min(cores, backend._WORKERS))
