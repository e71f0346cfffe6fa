"""The package's tests run against a real ``hpgraph serve`` on loopback:
the binary of $HPGRAPH_BIN, else the repository's bin/hpgraph (`make
build`), on the backend of $HPGRAPH_TEST_BACKEND (cpu by default), with
the repository's datasets/testdata as its data directory."""

import os

import pytest

import hpgraph

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TESTDATA = os.path.join(REPO, "datasets", "testdata")
BACKEND = os.environ.get("HPGRAPH_TEST_BACKEND", "cpu")


def binary():
    return hpgraph.find_binary(os.environ.get("HPGRAPH_BIN") or os.path.join(REPO, "bin", "hpgraph"))


@pytest.fixture(scope="session")
def server():
    path = binary()
    # The networkx backend starts its own server: the same binary and backend.
    os.environ["HPGRAPH_BIN"], os.environ["HPGRAPH_BACKEND"] = path, BACKEND
    with hpgraph.LocalServer(binary=path, backend=BACKEND, data_dir=TESTDATA) as s:
        yield s


@pytest.fixture
def client(server):
    c = server.client()
    yield c
    for g in c.graphs():
        c.drop(g["name"])
    c.close()
