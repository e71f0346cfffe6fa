"""A client of ``hpgraph serve``, standard library only.

It loads graphs from the server's data directory or uploads them from
memory (edge arrays, see :class:`Edges`), runs the built-in algorithms
and returns their answers keyed by the graph's own vertex ids: a summary
as a dict, per-vertex answers as arrays (:class:`Rows`) or a dict.
"""

import collections
import http.client
import json
import struct
import sys
import threading
import urllib.parse
from array import array

__all__ = ["Client", "Edges", "Groups", "HPGraphError", "Rows"]

_LITTLE = sys.byteorder == "little"


class HPGraphError(Exception):
    """An error answer of the server: its HTTP status, its message, and the
    request's field at fault (``body``, ``algo``, ``params.src``, ...)."""

    def __init__(self, status, message, field=None, extra=None):
        super().__init__(f"hpgraph serve: {status}: {message}")
        self.status = status
        self.message = message
        self.field = field
        self.extra = extra or {}


def _le(a):
    """a (an array) as little-endian bytes."""
    if not _LITTLE:
        a = array(a.typecode, a)
        a.byteswap()
    return memoryview(a).cast("B")


def _as_array(seq, typecode, what):
    """seq as an array of typecode: an array of it as is, anything else
    (a list, a numpy array, ...) converted."""
    if isinstance(seq, array) and seq.typecode == typecode:
        return seq
    if hasattr(seq, "__array__"):  # numpy: through its buffer, not element by element
        import numpy

        dtype = {"i": "<i4", "q": "<i8", "f": "<f4"}[typecode]
        a = array(typecode)
        a.frombytes(numpy.ascontiguousarray(seq, dtype=dtype).tobytes())
        if not _LITTLE:
            a.byteswap()
        return a
    try:
        return array(typecode, seq)
    except (TypeError, OverflowError) as e:
        raise ValueError(f"{what}: {e}") from None


class Edges:
    """A graph to upload: entry i is the arc ``src[i] -> dst[i]`` of a
    directed graph, or the edge {src[i], dst[i]} of an undirected one,
    between vertices 0..n-1 (int32 indices).

    ``weights``: one float32 a entry, or None. ``symmetric``: an undirected
    graph whose entries list every edge in both directions (the server
    checks that they do). ``ids``: the vertices' ids in queries and
    answers (distinct, >= 0); None: vertex v's id is ``id_base + v``.
    """

    MAGIC = b"HPGEDGES"

    def __init__(self, n, src, dst, weights=None, directed=True, symmetric=False, ids=None, id_base=0):
        self.n = n
        self.src = _as_array(src, "i", "src")
        self.dst = _as_array(dst, "i", "dst")
        self.weights = None if weights is None else _as_array(weights, "f", "weights")
        self.directed = directed
        self.symmetric = symmetric
        self.ids = None if ids is None else _as_array(ids, "q", "ids")
        self.id_base = id_base
        m = len(self.src)
        if len(self.dst) != m or (self.weights is not None and len(self.weights) != m):
            raise ValueError(f"src, dst and weights differ in length ({m}, {len(self.dst)}, {len(self.weights or ())})")
        if self.ids is not None and len(self.ids) != n:
            raise ValueError(f"{len(self.ids)} ids for {n} vertices")

    def chunks(self):
        """The upload's body, as a list of bytes-like pieces."""
        flags = 0
        for bit, on in enumerate((self.directed, self.weights is not None, self.ids is not None, self.symmetric)):
            if on:
                flags |= 1 << bit
        header = struct.pack("<8sIIQQq", self.MAGIC, 1, flags, self.n, len(self.src), self.id_base)
        parts = [header]
        for a in (self.ids, self.src, self.dst, self.weights):
            if a is not None and len(a):
                parts.append(_le(a))
        return parts


class Rows:
    """A per-vertex answer: ``ids`` (an array of int64, ascending) and
    ``columns``, each an array (int64 'q' or float64 'd') in the ids'
    order, by name (bfs: depth, parent; sssp: dist, inf unreached;
    pagerank, pagerank-ldbc: rank; cc: component; tc: triangles; lcc:
    lcc; cdlp: community)."""

    def __init__(self, ids, columns, summary=""):
        self.ids = ids
        self.columns = columns
        self.summary = summary

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, column):
        return self.columns[column]

    def to_dict(self, column=None):
        """{id: value} of one column (the only one, when not given)."""
        if column is None:
            if len(self.columns) != 1:
                raise ValueError(f"give a column: one of {', '.join(self.columns)}")
            (column,) = self.columns
        return dict(zip(self.ids, self.columns[column]))

    @classmethod
    def decode(cls, body, summary=""):
        """Reads the server's binary output (docs/serve-openapi.yaml)."""
        view = memoryview(body)
        if len(view) < 24 or bytes(view[:8]) != b"HPGROWS\x00":
            raise ValueError("not an hpgraph binary answer")
        version, ncols, n = struct.unpack_from("<IIQ", view, 8)
        if version != 1:
            raise ValueError(f"binary answer version {version}; this client reads 1")
        off, names, types = 24, [], []
        for _ in range(ncols):
            typ, length = view[off], view[off + 1]
            types.append(chr(typ))
            names.append(bytes(view[off + 2 : off + 2 + length]).decode())
            off += 2 + length
        off = (off + 7) & ~7
        if len(view) != off + 8 * n * (ncols + 1):
            raise ValueError(f"binary answer of {len(view)} bytes; its header describes {off + 8 * n * (ncols + 1)}")

        def column(typecode, start):
            return _array(typecode, view[start : start + 8 * n])

        ids = column("q", off)
        columns = {name: column(typ, off + 8 * n * (k + 1)) for k, (name, typ) in enumerate(zip(names, types))}
        return cls(ids, columns, summary)


class Groups:
    """A per-vertex answer grouped by one integer column's value (the
    server's output "groups"): group g holds the vertices
    ``ids[offsets[g]:offsets[g+1]]`` (ascending), whose value is
    ``values[g]``; the groups come in the order of their smallest ids.
    Each an array of int64 ('q')."""

    def __init__(self, values, offsets, ids, summary=""):
        self.values = values
        self.offsets = offsets
        self.ids = ids
        self.summary = summary

    def __len__(self):
        return len(self.values)

    def __iter__(self):
        """Each group's ids, as a list."""
        ids = list(self.ids)
        return (ids[a:b] for a, b in zip(self.offsets, self.offsets[1:]))

    @classmethod
    def decode(cls, body, summary=""):
        """Reads the server's groups output (docs/serve-openapi.yaml)."""
        view = memoryview(body)
        if len(view) < 32 or bytes(view[:8]) != b"HPGGRPS\x00":
            raise ValueError("not an hpgraph groups answer")
        version, _, n, g = struct.unpack_from("<IIQQ", view, 8)
        if version != 1:
            raise ValueError(f"groups answer version {version}; this client reads 1")
        if len(view) != 32 + 8 * (2 * g + 1 + n):
            raise ValueError(f"groups answer of {len(view)} bytes; its header describes {32 + 8 * (2 * g + 1 + n)}")
        parts, off = [], 32
        for count in (g, g + 1, n):
            parts.append(_array("q", view[off : off + 8 * count]))
            off += 8 * count
        return cls(*parts, summary)


def _array(typecode, view):
    """The little-endian values of view as an array of typecode."""
    a = array(typecode)
    a.frombytes(view)
    if not _LITTLE:
        a.byteswap()
    return a


class Client:
    """A client of the server at ``url`` (``http://127.0.0.1:8080``);
    ``token``, when given, is sent as a bearer token. One connection,
    kept alive, shared by the threads that use the client (a request at a
    time)."""

    def __init__(self, url, token=None, timeout=None):
        u = urllib.parse.urlsplit(url)
        if u.scheme != "http" or not u.hostname:
            raise ValueError(f"{url!r}: want http://HOST:PORT")
        self.url = url.rstrip("/")
        self.token = token
        self._host, self._port, self._timeout = u.hostname, u.port or 80, timeout
        self._conn = None
        self._lock = threading.Lock()
        self._drops = collections.deque()

    def close(self):
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def drop_later(self, name):
        """Drops a graph before the next request: safe to call from a
        finalizer, which may run in the middle of a request."""
        self._drops.append(name)

    def flush_drops(self):
        """Drops the graphs drop_later was given (errors ignored: the
        server may have gone)."""
        while self._drops:
            try:
                self._send("DELETE", self._graph_path(self._drops.popleft()))
            except (IndexError, OSError, HPGraphError):
                pass

    def _request(self, method, path, body=None, content_type=None, length=None, stream=None):
        """Sends a request; returns (response headers, body bytes) of a
        success, raises HPGraphError for an error answer. stream, where
        given, sends the body instead of body: stream(send), where send
        takes bytes-like pieces; it is called again if the request is
        sent again on a new connection."""
        if self._drops:
            self.flush_drops()
        return self._send(method, path, body, content_type, length, stream)

    def _send(self, method, path, body=None, content_type=None, length=None, stream=None):
        headers = {}
        if content_type:
            headers["Content-Type"] = content_type
        if length is not None:
            headers["Content-Length"] = str(length)
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        with self._lock:
            for attempt in (0, 1):
                if self._conn is None:
                    self._conn = http.client.HTTPConnection(self._host, self._port, timeout=self._timeout)
                try:
                    if stream is None:
                        self._conn.request(method, path, body=body, headers=headers)
                    else:
                        self._conn.putrequest(method, path)
                        for k, v in headers.items():
                            self._conn.putheader(k, v)
                        self._conn.endheaders()
                        stream(self._conn.send)
                    resp = self._conn.getresponse()
                    data = resp.read()
                    break
                except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                    # A kept-alive connection the server closed: once more on a new one.
                    self._conn.close()
                    self._conn = None
                    if attempt:
                        raise
                except BaseException:
                    # (a request cut short: a timeout, Ctrl-C, a stream's own
                    # error. The connection is mid-request and spent: a later
                    # request on it would fail with CannotSendRequest)
                    self._conn.close()
                    self._conn = None
                    raise
        if resp.status >= 300:
            try:
                e = json.loads(data)
                message = e.pop("error")
                field = e.pop("field", None)
            except (ValueError, KeyError, TypeError, AttributeError):
                e, message, field = {}, data.decode(errors="replace").strip(), None
            raise HPGraphError(resp.status, message, field, e)
        return resp.headers, data

    def _json(self, method, path, body=None):
        payload = None if body is None else json.dumps(body).encode()
        _, data = self._request(method, path, payload, "application/json" if body is not None else None)
        return json.loads(data) if data else None

    @staticmethod
    def _graph_path(name):
        return "/v1/graphs/" + urllib.parse.quote(name, safe="")

    def health(self):
        """The server's health report."""
        return self._json("GET", "/v1/health")

    def graphs(self):
        """The loaded graphs (a list of dicts)."""
        return self._json("GET", "/v1/graphs")["graphs"]

    def graph(self, name):
        """A loaded graph's description."""
        return self._json("GET", self._graph_path(name))

    def load(self, name, path, **options):
        """Loads the file at path (relative to the server's data directory)
        as name; options are the load flags under their JSON names
        (symmetrize, keep_loops, weights, relabel, ...)."""
        return self._json("POST", "/v1/graphs", dict(options, name=name, path=path))

    def upload(self, name, edges, fill=None, **options):
        """Uploads an in-memory graph (an :class:`Edges`) as name; options are
        the cleaning ones of a load (symmetrize, keep_loops,
        keep_duplicates, weights, seed, relabel).

        ``fill``, where given, makes ``edges.dst`` (an array('i') of its
        final length) while the upload is sent: ``fill(ready)`` fills it
        in order and calls ``ready(k)`` when its first k entries are
        final, and those are sent while it makes the rest (the server
        reads them meanwhile). It is called once, whatever becomes of the
        upload; an exception it raises ends the upload and is raised."""
        query = urllib.parse.urlencode({k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in options.items()})
        path = self._graph_path(name) + "?" + query
        if fill is not None and not _LITTLE:  # (its bytes are a swapped copy, made after)
            fill(lambda k: None)
            fill = None
        parts = edges.chunks()
        length = sum(len(p) for p in parts)
        if fill is None:
            _, data = self._request("PUT", path, parts, "application/octet-stream", length)
            return json.loads(data)
        if not len(edges.dst):
            fill(lambda k: None)
            return self.upload(name, edges, **options)
        dst = memoryview(edges.dst).cast("B")
        at = len(parts) - 1 - (edges.weights is not None)  # (the parts: header, ids, src, dst, weights)
        head, tail = parts[:at], parts[at + 1 :]
        fills = [fill]

        def stream(send):
            for p in head:
                send(p)
            sent, failed = 0, []
            if fills:

                def ready(k):
                    nonlocal sent
                    stop = min(4 * k, len(dst))  # (never past the body's length)
                    if not failed and stop > sent:
                        try:
                            send(dst[sent:stop])
                            sent = stop
                        except OSError as e:  # (the server has stopped reading: the rest is still made)
                            failed.append(e)

                fills.pop()(ready)
                if failed:
                    raise failed[0]
            send(dst[sent:])
            for p in tail:
                send(p)

        try:
            _, data = self._request("PUT", path, None, "application/octet-stream", length, stream)
        finally:
            if fills:  # (the request failed before its body)
                fills.pop()(lambda k: None)
        return json.loads(data)

    def drop(self, name):
        """Drops a graph."""
        return self._json("DELETE", self._graph_path(name))

    def run(self, graph, algo, timeout_ms=None, **params):
        """Runs algo on graph and returns its summary (a dict: summary,
        result, iterations, times_ms, ...); params are the algorithm's
        parameters under their JSON names (src in the graph's ids)."""
        return self._json("POST", self._graph_path(graph) + "/run", self._run_body(algo, "summary", timeout_ms, params))

    def rows(self, graph, algo, timeout_ms=None, *, columns=None, reached_only=False, **params):
        """Runs algo on graph and returns its per-vertex answer as
        :class:`Rows`: the columns named (default all), the rows of every
        vertex or, with reached_only (bfs, sssp), of those reached."""
        headers, data = self._run_rows(graph, algo, "binary", timeout_ms, columns, reached_only, params)
        return Rows.decode(data, headers.get("X-Hpgraph-Summary", ""))

    def groups(self, graph, algo, column=None, timeout_ms=None, *, reached_only=False, **params):
        """Runs algo on graph and returns its vertices grouped by their
        value of one integer column (default algo's first: cc's component)
        as :class:`Groups`; with reached_only (bfs, sssp) only those reached."""
        columns = None if column is None else [column]
        headers, data = self._run_rows(graph, algo, "groups", timeout_ms, columns, reached_only, params)
        return Groups.decode(data, headers.get("X-Hpgraph-Summary", ""))

    def _run_rows(self, graph, algo, output, timeout_ms, columns, reached_only, params):
        body = self._run_body(algo, output, timeout_ms, params)
        if columns is not None:
            body["columns"] = list(columns)
        if reached_only:
            body["reached_only"] = True
        return self._request("POST", self._graph_path(graph) + "/run", json.dumps(body).encode(), "application/json")

    def values(self, graph, algo, column=None, timeout_ms=None, **params):
        """Runs algo on graph and returns one column of its per-vertex
        answer as {id: value}."""
        return self.rows(graph, algo, timeout_ms, **params).to_dict(column)

    @staticmethod
    def _run_body(algo, output, timeout_ms, params):
        body = {"algo": algo, "params": params, "output": output}
        if timeout_ms is not None:
            body["timeout_ms"] = timeout_ms
        return body
