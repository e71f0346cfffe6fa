"""hpgraph from Python: a client of ``hpgraph serve`` (standard library
only), a private local server, graphs sent from memory, and a networkx
backend (``nx.pagerank(G, backend="hpgraph")``; see README.md)."""

from .client import Client, Edges, Groups, HPGraphError, Rows
from .server import BinaryNotFound, LocalServer, find_binary

__version__ = "0.1.0"
__all__ = ["BinaryNotFound", "Client", "Edges", "Groups", "HPGraphError", "LocalServer", "Rows", "connect", "find_binary"]


def connect(url=None, token=None, binary=None, backend="auto"):
    """A client of the server at url, or, when url is None, of a private
    server started on a free loopback port (stopped at exit); binary is
    the hpgraph binary to start (else $HPGRAPH_BIN, else PATH)."""
    if url is not None:
        return Client(url, token)
    server = LocalServer(binary=binary, backend=backend)
    client = server.client()
    client.server = server  # (stopped at exit, or with client.server.stop())
    return client
