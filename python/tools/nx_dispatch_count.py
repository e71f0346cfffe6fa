"""A pytest plugin for networkx's own test suite run with the backend
(NETWORKX_TEST_BACKEND=hpgraph): counts the tests in which networkx
dispatched a call to hpgraph, and the calls by function, and writes them
with the failed and xfailed tests' ids and each test's outcome counted
(failed over xfailed over skipped over passed, across its phases) to
$HPGRAPH_DISPATCH_JSON.

    python3 -m pytest --pyargs networkx -p nx_dispatch_count
"""

import collections
import functools
import json
import os

import pytest

_calls = collections.Counter()
_dispatched, _failed, _xfailed = set(), set(), set()
_outcome = {}
_RANK = {"passed": 0, "skipped": 1, "xfailed": 2, "failed": 3}
_current = [None]


def pytest_configure(config):
    from hpgraph import networkx_backend as backend

    for name in backend._ALGORITHMS:
        func = getattr(backend.BackendInterface, name)

        @functools.wraps(func)
        def counted(*args, __name=name, __func=func, **kwargs):
            _calls[__name] += 1
            if _current[0] is not None:
                _dispatched.add(_current[0])
            return __func(*args, **kwargs)

        setattr(backend.BackendInterface, name, staticmethod(counted))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _current[0] = item.nodeid
    yield
    _current[0] = None


def pytest_runtest_logreport(report):
    if report.failed:
        _failed.add(report.nodeid)
        what = "failed"
    elif hasattr(report, "wasxfail"):
        _xfailed.add(report.nodeid)
        what = "xfailed"
    elif report.skipped:
        what = "skipped"
    else:
        what = "passed"
    if _RANK[what] >= _RANK[_outcome.get(report.nodeid, "passed")]:
        _outcome[report.nodeid] = what


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("HPGRAPH_DISPATCH_JSON")
    summary = {"tests_dispatched": len(_dispatched), "calls": dict(_calls), "failed": sorted(_failed), "xfailed": sorted(_xfailed),
               "outcomes": dict(collections.Counter(_outcome.values())),
               "dispatched": sorted(_dispatched)}
    if path:
        with open(path, "w") as f:
            json.dump(summary, f, indent=1)
    print(f"\nhpgraph: {len(_dispatched)} tests ran dispatched calls; {sum(_calls.values())} calls: {dict(_calls)}")
