"""The networkx backend: ``nx.pagerank(G, backend="hpgraph")``.

networkx (3.3 or later) finds it through the ``networkx.backends`` entry
point (:class:`BackendInterface`). A networkx graph is converted once to
arrays (:class:`HPGraph`, cached on the graph as networkx caches backend
graphs), uploaded to ``hpgraph serve`` when an algorithm first needs it
(a large graph's while it is converted, _Structure._pack), and kept there; the last answers are kept with the arrays, and a later
call with the same arguments returns a copy. A function is dispatched
only where hpgraph's answer is networkx's: ``can_run`` declines (and
networkx runs its own) wherever the definitions part, for example a
personalized PageRank, weighted clustering, directed clustering or
weights that float32 cannot sum exactly. The functions and their
conditions: README.md, "networkx backend", and _nx_info.FUNCTIONS.

The server: ``nx.config.backends.hpgraph.server`` (or $HPGRAPH_URL) with
its token, else a private one started on a free loopback port with the
binary of ``nx.config.backends.hpgraph.binary``, $HPGRAPH_BIN or PATH.
"""

import atexit
import collections
import contextlib
import gc
import http.client
import inspect
import itertools
import math
import operator
import os
import struct
import sys
import threading
import weakref
from array import array
from itertools import chain, compress, islice
from operator import methodcaller

import networkx as nx

from . import _fork, _nx_info
from .client import Client, Edges, HPGraphError
from .server import LocalServer

__all__ = ["BackendInterface", "HPGraph", "convert_from_nx", "convert_to_nx"]

# float32 sums of integers are exact up to 2^24.
_F32_EXACT = 1 << 24
# The server's limit on a parameter that counts supersteps.
_MAX_ITERATIONS = 1 << 20


def _config(key, env):
    cfg = getattr(getattr(nx, "config", None), "backends", None)
    value = getattr(getattr(cfg, "hpgraph", None), key, None) if cfg is not None else None
    return value if value is not None else os.environ.get(env)


_client_lock = threading.Lock()
_clients = {}


def _client():
    """The client of the configured server, or of a private one started once."""
    url, token = _config("server", "HPGRAPH_URL"), _config("token", "HPGRAPH_TOKEN")
    key = (url, token) if url else ("local", _config("binary", "HPGRAPH_BIN"), _config("backend", "HPGRAPH_BACKEND") or "auto")
    with _client_lock:
        c = _clients.get(key)
        if c is None:
            if url:
                c = Client(url, token)
            else:
                server = LocalServer(binary=key[1], backend=key[2])
                c = server.client()
                c.server = server
            atexit.register(c.flush_drops)  # (before a private server stops: registered after it)
            _clients[key] = c
        return c


@contextlib.contextmanager
def _no_gc():
    """Cyclic garbage collection off while many acyclic containers are
    made: each collection walks the networkx graph's millions of objects
    (grouping 262,144 nodes into components took 1.1 s with it, 0.09 s
    without)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


# --- conversion --------------------------------------------------------


class _Structure:
    """A networkx graph's vertices and arcs as arrays: vertex i is
    nodes[i]; an undirected graph lists each edge in both directions (a
    self loop once), as its adjacency does; a multigraph's parallel edges
    are one arc. It also holds what hpgraph keeps for the graph: the
    graphs uploaded from it (``uploads``, dropped on the server when it
    is collected) and the answers of recent calls (``kept``)."""

    __slots__ = ("nodes", "n", "src", "dst", "directed", "multigraph", "_identity", "_index", "uploads", "client",
                 "kept", "lock", "_upload", "__weakref__")

    def __init__(self, G, upload=False):
        """upload: send the unweighted graph to the server while its arcs
        are made (_pack), where there are _STREAM_MIN of them or more."""
        self.nodes = nodes = list(G)
        self.n = n = len(nodes)
        self.directed, self.multigraph = G.is_directed(), G.is_multigraph()
        if n > 2**31 - 1:
            raise NotImplementedError(f"{n} nodes; hpgraph takes at most 2^31-1")
        self._index = None
        self.uploads, self.client, self.kept, self.lock = {}, None, collections.OrderedDict(), threading.Lock()
        self._upload = upload
        rows = list(map(G._adj.__getitem__, nodes))  # (a DiGraph's successors)
        try:
            self._arcs(rows)
        except _Changed:  # (a view whose rows' len counts otherwise than they iterate)
            self._upload = False
            self._arcs([list(row) for row in rows])

    def _arcs(self, rows):
        # Nodes that are ints 0..n-1 in order are their own vertices: the
        # heads are the rows' keys as they are. Other ints go through a
        # table, anything else through a dict.
        nodes, n = self.nodes, self.n
        counts = list(map(len, rows))
        m = sum(counts)
        self.src = _repeat_each(counts)
        self._identity = False
        if set(map(type, nodes)) <= {int}:
            try:
                if nodes == list(range(n)):
                    self.dst, self._identity = self._pack(rows, counts, chain.from_iterable, m), True
                    return
                if n and min(nodes) >= 0 and max(nodes) < 4 * n + _BLOCK:
                    self.dst = _gather(nodes, rows, counts, m)
                    return
            except (struct.error, TypeError, IndexError):  # (a row keyed by a float or another number equal to a node)
                self._upload = False
        index = dict(zip(nodes, range(n))).__getitem__
        self.dst = self._pack(rows, counts, lambda rs: map(index, chain.from_iterable(rs)), m)

    def _pack(self, rows, counts, values, m):
        """_ints(rows, counts, values, m); where this conversion uploads,
        sent to the server as they are made (the server reads them
        meanwhile, in its own process), once: the graph is uploaded as
        server_graph would upload it. Where the upload fails, the arcs are
        made all the same (server_graph tries again, and raises, when an
        algorithm needs the server)."""
        if not self._upload or m < _STREAM_MIN:
            return _ints(rows, counts, values, m)
        self._upload = False
        try:
            client = _client()
        except Exception:  # (no server to be had: the algorithm that needs one will say why)
            return _ints(rows, counts, values, m)
        out = array("i", bytes(4 * m))
        edges = Edges(self.n, self.src, out, directed=self.directed, symmetric=not self.directed)
        name = _upload_name()
        try:
            client.upload(name, edges, fill=lambda ready: _ints(rows, counts, values, m, out, ready), **_upload_options())
        except (HPGraphError, OSError, http.client.HTTPException, ValueError):
            return out
        self.uploaded(None, client, name)
        return out

    def uploaded(self, key, client, name):
        """Records the upload of name (key: None, or an edge attribute's
        (attr, default)), dropped on the server when this is collected."""
        if self.client is None:
            self.client = client
            weakref.finalize(self, _drop, client, self.uploads.values())
        self.uploads[key] = name

    def nodes_of(self, vertices):
        """The nodes of vertices (an iterable of ints): the graph's own
        objects, not equal ints made anew (which would take memory)."""
        return map(self.nodes.__getitem__, vertices)

    def vertex(self, node):
        if self._identity and type(node) is int:
            return node
        if self._index is None:
            self._index = dict(zip(self.nodes, range(self.n)))
        return self._index[node]

    def keep(self, key, make):
        """make(), or what it made for an earlier call with the same key:
        the graph's last _KEPT answers are kept while networkx keeps the
        conversion (it drops it when the graph changes). What it returns
        is shared: callers return copies."""
        with self.lock:
            if key in self.kept:
                self.kept.move_to_end(key)
                return self.kept[key]
        value = make()
        with self.lock:
            self.kept[key] = value
            while len(self.kept) > _KEPT:
                self.kept.popitem(last=False)
        return value


# Answers kept per converted graph (_Structure.keep).
_KEPT = 8
# Components made into sets a block at a time (_components).
_BLOCK = 1 << 16
# Arcs from which a conversion streams its upload (_Structure._pack), and
# how many a piece of the stream carries.
_STREAM_MIN = 1 << 18
_SEND = 1 << 18
# Ints packed a block at a time (_int32s): a block's objects are read
# twice (into a list, then by struct), the second time while they are
# still in the core's cache. 1,024 packed the 20 M arcs of a kron graph
# in 0.93 s where 65,536 took 1.21 (docs: python/README.md).
_PACK = 1 << 10
_PACK_BLOCK = struct.Struct(f"={_PACK}i").pack_into
# Ints from which a conversion packs them in several processes (_ints);
# by default at most _WORKERS of them, none on fewer than _FORK_CORES
# cores; the rows split into _CHUNKS chunks a process (README.md, "Where
# the time goes").
_FORK_MIN = 1 << 22
_WORKERS = 8
_FORK_CORES = 4
_CHUNKS = 4
# Ints one process packs a second, about (20 M arcs in 0.9-1.3 s here):
# the helpers' forks may take the caller half the time it would take
# alone (_fork.pack_rows's budget).
_PACK_RATE = 20e6


class _Changed(Exception):
    """An iteration gave another number of ints than the rows' lengths said."""


def _int32s(values, count, out=None, ready=None):
    """count ints (values, each in int32's range) as an array('i') (out,
    where given). They are packed a block at a time, each block read into
    a list and packed while its objects are still in the cache: the
    objects of a large graph lie scattered in memory, and reading them is
    the cost. ready(k), where given, is told every _SEND ints or so that
    the first k are made, and at the end."""
    if out is None:
        out = array("i", bytes(4 * count))
    values, i, mark = iter(values), 0, _SEND
    while True:
        block = list(islice(values, _PACK))
        k = len(block)
        if i + k > count:
            raise _Changed
        if k == _PACK:
            _PACK_BLOCK(out, 4 * i, *block)
        elif k:
            struct.pack_into(f"={k}i", out, 4 * i, *block)
        i += k
        if k < _PACK:
            break
        if ready is not None and i >= mark:
            ready(i)
            mark = i + _SEND
    if i != count:
        raise _Changed
    if ready is not None:
        ready(i)
    return out


def _ints(rows, counts, values, count, out=None, ready=None):
    """_int32s(values(rows), count, out, ready), where rows are lists or
    dicts of counts[i] keys each and values(rows[i:j]) what rows i..j-1
    pack to; from _FORK_MIN ints, made by _workers() processes (_fork):
    the same array, a share of the time."""
    workers = _workers()
    if count < _FORK_MIN or workers < 2 or not _fork.can_fork():
        return _int32s(values(rows), count, out, ready)
    if out is None:
        out = array("i", bytes(4 * count))
    budget = count / _PACK_RATE / 2  # (forks for at most half of what one process would take)
    return _fork.pack_rows(rows, counts, values, _int32s, out, ready, workers - 1, _CHUNKS * workers, budget)


def _workers():
    """The processes that convert a large graph, the caller's included:
    the configured number, else the cores this process may use, at most
    _WORKERS, and 1 where there are fewer than _FORK_CORES."""
    value = _config("workers", "HPGRAPH_WORKERS")
    if value is None or value == "":
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        return min(cores, _WORKERS) if cores >= _FORK_CORES else 1
    try:
        workers = int(value)
    except (TypeError, ValueError):
        workers = 0
    if isinstance(value, bool) or workers < 1 or str(workers) != str(value).strip():
        raise ValueError(f"hpgraph's workers (nx.config.backends.hpgraph.workers or $HPGRAPH_WORKERS): "
                         f"want a number of processes, 1 or more; got {value!r}")
    return workers


def _repeat_each(counts):
    """Vertex i counts[i] times, for each i in order (the arcs' tails), as
    an array('i'); with numpy where it is installed (a third of the time)."""
    out = array("i")
    try:
        import numpy
    except ImportError:
        ints = map(int.to_bytes, range(len(counts)), itertools.repeat(4), itertools.repeat(sys.byteorder))
        out.frombytes(b"".join(map(bytes.__mul__, ints, counts)))
    else:
        out.frombytes(memoryview(numpy.repeat(numpy.arange(len(counts), dtype=numpy.int32), counts)).cast("B"))
    return out


def _gather(nodes, rows, counts, count):
    """The vertices of the rows' keys (count of them) where the nodes are
    ints from 0 to a few times their number, through a table of vertices
    by node (no dict lookups); with numpy, where it is installed, the
    table is read in one step."""
    table = array("i", [-1]) * (max(nodes) + 1)
    for i, node in enumerate(nodes):
        table[node] = i
    try:
        import numpy
    except ImportError:
        at = table.__getitem__
        return _ints(rows, counts, lambda rs: map(at, chain.from_iterable(rs)), count)
    ids = numpy.frombuffer(_ints(rows, counts, chain.from_iterable, count), dtype=numpy.int32)
    out = array("i")
    out.frombytes(memoryview(numpy.frombuffer(table, dtype=numpy.int32)[ids]).cast("B"))
    return out


class _Weights:
    """One edge attribute's values (default where an edge has none), in
    the arcs' order, and what can_run asks of them."""

    __slots__ = ("attr", "default", "values", "uniform", "minimum", "integral", "ints", "total", "numeric")

    def __init__(self, G, st, attr, default):
        self.attr, self.default = attr, default
        m = 0 if st.multigraph else len(st.dst)
        ws = []
        if m:
            rows = list(map(G._adj.__getitem__, st.nodes))

            def data():
                return chain.from_iterable(map(methodcaller("values"), rows))

            if any(map(operator.contains, data(), itertools.repeat(attr))):
                ws = list(map(methodcaller("get", attr, default), data()))
            else:  # (most often no edge has it: a pass that makes nothing, half the time)
                ws = [default]
        types = set(map(type, ws))
        self.ints = all(issubclass(t, int) for t in types)
        self.numeric = not st.multigraph and all(issubclass(t, (int, float)) for t in types)
        self.values, self.uniform, self.minimum, self.integral, self.total = array("d"), self.numeric, 1.0, self.numeric, 0.0
        if not self.numeric or not ws:
            return
        if ws.count(ws[0]) == len(ws):
            try:
                w = float(ws[0])
            except OverflowError:
                self.numeric = False
                return
            self.values = array("d", (w,)) * m
            self.minimum, self.total = w, w * m
            self.uniform = math.isfinite(self.total)
            self.integral = self.uniform and w.is_integer()
            return
        try:
            self.values = values = array("d", ws)
        except OverflowError:
            self.numeric = False
            return
        self.minimum, top = min(values), max(values)
        self.total = sum(values)  # (inf or nan if any is, or they overflow)
        finite = math.isfinite(self.total)
        self.uniform = finite and self.minimum == top
        self.integral = finite and array("d", map(math.floor, values)) == values


def _caching():
    """Whether conversions may be kept on the networkx graph: not while
    networkx's tests run with the backend (they edit graphs' data in
    place between calls), nor when networkx's cache is off."""
    backends = getattr(getattr(nx, "utils", None), "backends", None)
    testing = getattr(getattr(backends, "_dispatchable", None), "_is_testing", False)
    return not testing and getattr(getattr(nx, "config", None), "cache_converted_graphs", False)


def _cached(G, key, make):
    cache = getattr(G, "__networkx_cache__", None) if _caching() else None
    if cache is None:
        return make()
    mine = cache.setdefault("hpgraph", {})
    if key not in mine:
        mine[key] = make()
    return mine[key]


def _structure(G):
    if isinstance(G, HPGraph):
        return G.structure
    with _no_gc():
        return _cached(G, "structure", lambda: _Structure(G, upload=True))


def _weights(G, attr, default=1):
    if isinstance(G, HPGraph):
        if G.weights is not None and (G.weights.attr, G.weights.default) == (attr, default):
            return G.weights
        G = G.graph
    st = _structure(G)
    with _no_gc():
        return _cached(G, ("weights", attr, default), lambda: _Weights(G, st, attr, default))


_names = itertools.count()


def _upload_name():
    return f"nx{os.getpid()}-{next(_names)}"


def _upload_options():
    return {"keep_loops": True, "relabel": _config("relabel", "HPGRAPH_RELABEL") or "none"}


def _drop(client, names):
    # (a finalizer, which may run within a request: the drops wait for the next)
    for name in list(names):
        client.drop_later(name)


class HPGraph:
    """A networkx graph converted for hpgraph: its arrays (``structure``,
    shared by the conversions of one networkx graph, with the graphs
    uploaded from them and recent answers) and the edge attribute it was
    converted with (``weights``). ``graph`` is the networkx graph it was
    made from."""

    __networkx_backend__ = "hpgraph"

    def __init__(self, G, weights=None):
        self.graph = G
        self.structure = _structure(G)
        self.weights = weights

    def is_directed(self):
        return self.structure.directed

    def is_multigraph(self):
        return self.structure.multigraph

    def __len__(self):
        return self.structure.n

    def __contains__(self, node):
        return node in self.graph

    def server_graph(self, weights=None):
        """(client, name) of this graph on the server, uploaded on first
        use: unweighted, or with weights (a _Weights)."""
        st = self.structure
        key = None if weights is None else (weights.attr, weights.default)
        with st.lock:
            if key not in st.uploads:
                client = st.client or _client()
                w = None if weights is None else array("f", weights.values)
                edges = Edges(st.n, st.src, st.dst, w, directed=st.directed, symmetric=not st.directed)
                name = _upload_name()
                client.upload(name, edges, **_upload_options())
                st.uploaded(key, client, name)
            return st.client, st.uploads[key]

    def keep(self, key, make):
        """make(), or the answer kept from an earlier call (_Structure.keep)."""
        return self.structure.keep(key, make)


def convert_from_nx(G, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False, preserve_node_attrs=False,
                    preserve_graph_attrs=False, name=None, graph_name=None):
    """A networkx graph as an HPGraph, with the one edge attribute that
    edge_attrs names ({attr: default}) when it names one."""
    if preserve_edge_attrs is True or (edge_attrs and len(edge_attrs) > 1):
        raise NotImplementedError("hpgraph converts one edge attribute at most")
    weights = None
    if edge_attrs:
        ((attr, default),) = edge_attrs.items()
        weights = _weights(G, attr, 1 if default is None else default)
    return HPGraph(G, weights)


def convert_to_nx(obj, *, name=None):
    """An HPGraph's networkx graph; any other result as it is."""
    return obj.graph if isinstance(obj, HPGraph) else obj


def _hp(G, attr=None):
    """G as an HPGraph (a networkx graph given directly is converted)."""
    if isinstance(G, HPGraph):
        return G
    return convert_from_nx(G, {attr: 1} if attr is not None else None)


# --- what is dispatched ------------------------------------------------

_ALGORITHMS = {}


def _algorithm(check):
    """Registers a function of networkx's name and signature, and check,
    which says whether hpgraph's answer is networkx's for the bound
    arguments: True, or why not."""

    def register(func):
        _ALGORITHMS[func.__name__] = (func, inspect.signature(func), check)
        return staticmethod(func)

    return register


def _graph_reason(G, directed=None, multigraph=True):
    """Why G cannot be converted, or None."""
    if not isinstance(G, (nx.Graph, HPGraph)):
        return f"not a networkx graph ({type(G).__name__})"
    if directed is not None and G.is_directed() != directed:
        return "a directed graph" if G.is_directed() else "an undirected graph"
    if not multigraph and G.is_multigraph():
        return "a multigraph (its parallel edges count in networkx's definition)"
    return None


def _source_reason(G, source):
    try:
        if source in G:
            return None
    except TypeError:
        pass
    return "the source is not a node of the graph (networkx raises)"


def _weight_reason(G, weight, need):
    """None where the edge attribute weight meets need ('uniform' or
    'exact'), else why not."""
    if weight is None:
        return None
    if not isinstance(weight, str):
        return "weight is not an attribute name"
    w = _weights(G, weight)
    if not w.numeric:
        return f"edge attribute {weight!r} is not a number on every edge"
    if need == "uniform" and not (w.uniform and w.minimum > 0):
        return f"edge attribute {weight!r} is not one positive value on every edge"
    if need == "exact" and not (w.integral and w.minimum >= 0 and w.total <= _F32_EXACT):
        return f"edge attribute {weight!r}: float32 sums are not exact (want non-negative integers summing to at most 2^24)"
    return None


def _nodes_rows(G, algo, weights=None, **params):
    """The per-vertex answer of algo on G, columns in G's node order."""
    client, name = G.server_graph(weights)
    return client.rows(name, algo, **params).columns


def _reached(G, algo, column, src, weights=None):
    """(vertices, values): the vertices src reaches (in G's node order)
    and their values of algo's column, each an array; the server sends
    only those."""
    client, name = G.server_graph(weights)
    rows = client.rows(name, algo, columns=[column], reached_only=True, src=src)
    return rows.ids, rows.columns[column]


def _summary(G, algo, **params):
    client, name = G.server_graph()
    return client.run(name, algo, **params)["result"]


def _steps(start, alpha, bound):
    """The fewest PageRank iterations i >= 1 after which start*alpha^i <
    bound (a contraction by alpha from start), or None where none is."""
    if bound <= 0 or not 0 <= alpha < 1:
        return None
    if alpha == 0 or start < bound:
        return 1
    i = max(1, math.ceil(math.log(bound / start) / math.log(alpha)))
    while start * alpha**i >= bound:
        i += 1
    return i


def _check_pagerank(G, alpha, personalization, max_iter, tol, nstart, weight, dangling, **kw):
    reason = _graph_reason(G, multigraph=False)
    if reason:
        return reason
    if personalization is not None or nstart is not None or dangling is not None:
        return "personalization, nstart and dangling are not hpgraph's PageRank"
    if not (isinstance(alpha, (int, float)) and 0 <= alpha <= 1):
        return "alpha outside [0, 1]"
    if not isinstance(max_iter, int) or not isinstance(tol, (int, float)):
        return "max_iter or tol of another type"
    return _weight_reason(G, weight, "uniform") or True


def _check_source(directed=None):
    def check(G, source, *args, **kw):
        return _graph_reason(G, directed) or _source_reason(G, source) or True

    return check


def _check_bfs_lengths(G, source, cutoff, **kw):
    # (networkx versions differ on fractional and negative cutoffs)
    if cutoff is not None and (isinstance(cutoff, bool) or not isinstance(cutoff, int) or cutoff < 0):
        return "cutoff is not a non-negative integer (networkx versions differ on others)"
    return _check_source()(G, source)


def _check_distance(G, source, distance, **kw):
    if isinstance(distance, bool) or not isinstance(distance, (int, float)):
        return "distance is not a number"
    return _check_source()(G, source)


def _check_dijkstra(G, source, cutoff, weight, **kw):
    return _graph_reason(G, multigraph=False) or _source_reason(G, source) or _weight_reason(G, weight, "exact") or True


def _check_graph(directed=None, multigraph=True, nonempty=False):
    def check(G, *args, **kw):
        reason = _graph_reason(G, directed, multigraph)
        if not reason and nonempty and len(G) == 0:
            reason = "the null graph (networkx raises)"
        return reason or True

    return check


def _check_node(directed):
    def check(G, n, **kw):
        return _graph_reason(G, directed) or _source_reason(G, n) or True

    return check


def _check_triangles(G, nodes, **kw):
    # (networkx 3.x counts a multigraph's triangles on its simple graph
    # when nodes is None; older ones refuse multigraphs: left to it)
    return _graph_reason(G, False, multigraph=False) or True


def _check_clustering(G, nodes=None, weight=None, count_zeros=True, **kw):
    reason = _graph_reason(G, False, multigraph=False)
    if reason:
        return reason
    if weight is not None:
        return "weighted clustering is not hpgraph's"
    if len(G) == 0:
        return "the null graph"
    return True


class BackendInterface:
    """What networkx's dispatcher calls (the networkx.backends entry point)."""

    convert_from_nx = staticmethod(convert_from_nx)
    convert_to_nx = staticmethod(convert_to_nx)

    @staticmethod
    def can_run(name, args, kwargs):
        entry = _ALGORITHMS.get(name)
        if entry is None:
            return False
        _, sig, check = entry
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as e:
            return f"arguments: {e}"
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        arguments.update(arguments.pop("backend_kwargs", {}))
        return check(**arguments)

    @staticmethod
    def should_run(name, args, kwargs):
        G = args[0] if args else kwargs.get("G")
        least = _config("min_nodes", "HPGRAPH_MIN_NODES")
        least = 1000 if least is None else int(least)
        if G is not None and len(G) < least:
            return f"fewer than {least} nodes: networkx answers faster than a round trip to the server"
        return True

    # Each function keeps its answer on the conversion (HPGraph.keep), so
    # that a later call with the same arguments only copies it; the copy
    # is the caller's to change, as networkx's answers are.

    @_algorithm(_check_pagerank)
    def pagerank(G, alpha=0.85, personalization=None, max_iter=100, tol=1.0e-6, nstart=None, weight="weight",
                 dangling=None, **backend_kwargs):
        G = _hp(G)
        if len(G) == 0:
            return {}
        if max_iter < 1:
            raise nx.PowerIterationFailedConvergence(max_iter)
        # (a weight is one positive value on every edge: the same ranks)
        return G.keep(("pagerank", alpha, max_iter, tol), lambda: _pagerank(G, alpha, max_iter, tol)).copy()

    @_algorithm(_check_bfs_lengths)
    def single_source_shortest_path_length(G, source, cutoff=None, **backend_kwargs):
        G = _hp(G)
        src = G.structure.vertex(source)

        def lengths():
            ids, depth = _reached(G, "bfs", "depth", src)
            if cutoff is not None:
                keep = list(map(cutoff.__ge__, depth))
                ids, depth = compress(ids, keep), compress(depth, keep)
            return dict(zip(G.structure.nodes_of(ids), depth))

        return G.keep(("bfs lengths", src, cutoff), lengths).copy()

    @_algorithm(_check_source())
    def descendants(G, source, **backend_kwargs):
        G = _hp(G)
        src = G.structure.vertex(source)

        def reached():
            out = set(G.structure.nodes_of(_reached(G, "bfs", "depth", src)[0]))
            out.discard(source)
            return out

        return G.keep(("descendants", src), reached).copy()

    @_algorithm(_check_distance)
    def descendants_at_distance(G, source, distance, **backend_kwargs):
        G = _hp(G)
        if distance < 0:
            return set()
        src = G.structure.vertex(source)

        def at_distance():
            ids, depth = _reached(G, "bfs", "depth", src)
            return set(G.structure.nodes_of(compress(ids, map(distance.__eq__, depth))))

        return G.keep(("at distance", src, distance), at_distance).copy()

    @_algorithm(_check_dijkstra)
    def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight", **backend_kwargs):
        w = None if weight is None else _weights(G, weight)
        G = _hp(G, weight)
        st = G.structure
        src = st.vertex(source)

        def lengths():
            ints = w is None or w.ints  # (networkx's sums of int weights are ints)
            # (all 1: the unweighted graph, whose sssp is unit weights)
            ids, dist = _reached(G, "sssp", "dist", src, None if w is None or (w.uniform and w.minimum == 1) else w)
            if cutoff is not None:
                keep = [d <= cutoff for d in dist]
                ids, dist = compress(ids, keep), compress(dist, keep)
            out = dict(zip(st.nodes_of(ids), map(int, dist) if ints else dist))
            out[source] = 0
            return out

        return G.keep(("dijkstra", src, cutoff, weight), lengths).copy()

    @_algorithm(_check_graph(directed=False))
    def connected_components(G, **backend_kwargs):
        return _components(G)

    @_algorithm(_check_graph(directed=True))
    def weakly_connected_components(G, **backend_kwargs):
        return _components(G)

    @_algorithm(_check_graph(directed=False))
    def number_connected_components(G, **backend_kwargs):
        return _count_components(G)

    @_algorithm(_check_graph(directed=True))
    def number_weakly_connected_components(G, **backend_kwargs):
        return _count_components(G)

    @_algorithm(_check_graph(directed=False, nonempty=True))
    def is_connected(G, **backend_kwargs):
        return _count_components(G) == 1

    @_algorithm(_check_graph(directed=True, nonempty=True))
    def is_weakly_connected(G, **backend_kwargs):
        return _count_components(G) == 1

    @_algorithm(_check_node(directed=False))
    def node_connected_component(G, n, **backend_kwargs):
        G = _hp(G)
        v = G.structure.vertex(n)

        def component():
            label = _nodes_rows(G, "cc")["component"]
            return set(compress(G.structure.nodes, map(label[v].__eq__, label)))

        return G.keep(("component of", v), component).copy()

    @_algorithm(_check_triangles)
    def triangles(G, nodes=None, **backend_kwargs):
        G = _hp(G)

        def counts():
            return dict(zip(G.structure.nodes, _nodes_rows(G, "tc", per_vertex=True)["triangles"] if len(G) else ()))

        return _subset(G, nodes, G.keep(("triangles",), counts))

    @_algorithm(_check_clustering)
    def clustering(G, nodes=None, weight=None, **backend_kwargs):
        G = _hp(G)
        return _subset(G, nodes, _clustering(G))

    @_algorithm(_check_clustering)
    def average_clustering(G, nodes=None, weight=None, count_zeros=True, **backend_kwargs):
        G = _hp(G)
        c = _subset(G, nodes, _clustering(G))
        c = list(c.values()) if isinstance(c, dict) else [c]
        if not count_zeros:
            c = [v for v in c if abs(v) > 0]
        return sum(c) / len(c)


def _pagerank(G, alpha, max_iter, tol):
    # networkx iterates x_i = alpha*M x_{i-1} + (1-alpha)/n from the
    # uniform x_0 until ||x_i - x_{i-1}||_1 < n*tol, raising when that
    # takes more than max_iter. M is column-stochastic, so those
    # differences shrink by alpha or more an iteration, from at most
    # 2*alpha: where 2*alpha^max_iter < n*tol networkx surely stops in
    # time, and the ranks after enough iterations (to 1% of its
    # tolerance) are its answer to within its tolerance. Otherwise the
    # last difference decides, as networkx's does.
    n = len(G)
    bound = n * tol

    def ranks(k):
        return _nodes_rows(G, "pagerank-ldbc", damping=alpha, iterations=k, precision="float64")["rank"]

    sure = _steps(2.0, alpha, bound)
    if sure is not None and sure <= max_iter:
        x = ranks(min(_steps(2.0, alpha, bound / 100), _MAX_ITERATIONS))
    else:
        x = ranks(min(max_iter, _MAX_ITERATIONS))
        prev = ranks(max_iter - 1) if max_iter > 1 else itertools.repeat(1.0 / n, n)
        if not math.fsum(abs(a - b) for a, b in zip(x, prev)) < bound:
            raise nx.PowerIterationFailedConvergence(max_iter)
    return dict(zip(G.structure.nodes, x))


def _subset(G, nodes, values):
    """A per-node answer (kept: shared) restricted as networkx's nodes
    argument says: a copy of all (None), one node's value, or a dict of
    those given."""
    if nodes is None:
        return values.copy()
    if nodes in G.graph:
        return values[nodes]
    return {v: values[v] for v in G.graph.nbunch_iter(nodes)}


def _clustering(G):
    """networkx's clustering of every node (kept: shared): 0 (an int)
    where it is 0."""

    def clustering():
        lcc = _nodes_rows(G, "lcc")["lcc"] if len(G) else ()
        return {v: c if c else 0 for v, c in zip(G.structure.nodes, lcc)}

    return G.keep(("clustering",), clustering)


def _components(G):
    # A generator, as networkx's is: the server is asked at the first
    # component asked for; each component is a new set, made from a slice
    # of one list of the nodes, a block at a time with cyclic collection
    # off (_no_gc: made one by one, the sets of 10 M edges' components took
    # 2.6 s, in collections).
    G = _hp(G)
    if len(G) == 0:
        return
    members, bounds = G.keep(("components",), lambda: _component_members(G))
    for lo in range(0, len(bounds) - 1, _BLOCK):
        b = bounds[lo : lo + _BLOCK + 1]
        with _no_gc():  # (a component of one node without a slice: a third less time)
            sets = [set(members[x:y]) if y - x > 1 else {members[x]} for x, y in zip(b, b[1:])]
        yield from sets


def _component_members(G):
    """(members, bounds): the nodes component by component, the components
    in networkx's order (by their first node in G's order), and where each
    starts: component k is members[bounds[k]:bounds[k+1]]. The server
    groups them (output groups) in the order of their smallest vertices,
    and vertex i is the i-th node: networkx's order."""
    client, name = G.server_graph()
    groups = client.groups(name, "cc")
    return list(G.structure.nodes_of(groups.ids)), list(groups.offsets)


def _count_components(G):
    G = _hp(G)
    return G.keep(("cc count",), lambda: _summary(G, "cc")["components"]) if len(G) else 0


def get_info():
    return _nx_info.get_info()
