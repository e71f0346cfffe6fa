"""A private ``hpgraph serve`` on a free loopback port, for this process."""

import atexit
import collections
import os
import queue
import re
import secrets
import shutil
import subprocess
import tempfile
import threading

from .client import Client

__all__ = ["BinaryNotFound", "LocalServer", "find_binary"]


class BinaryNotFound(FileNotFoundError):
    """No hpgraph binary where it was looked for."""


def find_binary(binary=None):
    """The hpgraph binary: binary (a path), else $HPGRAPH_BIN, else
    ``hpgraph`` on PATH."""
    looked = []
    for what, path in (("the binary argument", binary), ("$HPGRAPH_BIN", os.environ.get("HPGRAPH_BIN"))):
        if path:
            if os.path.isfile(path) and os.access(path, os.X_OK):
                return os.path.abspath(path)
            raise BinaryNotFound(f"hpgraph binary not found: {what} names {path!r}, which is not an executable file")
        looked.append(what)
    found = shutil.which("hpgraph")
    if found:
        return found
    raise BinaryNotFound(
        "hpgraph binary not found: give it (binary=...), set $HPGRAPH_BIN, or put hpgraph on PATH "
        "(`make build` in the hpgraph repository writes bin/hpgraph)"
    )


_LISTENING = re.compile(r"serve: listening on (http://\S+)")


class LocalServer:
    """Starts ``hpgraph serve`` on 127.0.0.1 at a free port, with a random
    bearer token, and stops it at exit (or :meth:`stop`, or leaving a
    ``with`` block). ``data_dir`` is the directory its graphs load from (a
    temporary one, removed at stop, when not given); ``backend`` is auto,
    cpu or cuda; ``args`` are more flags of ``hpgraph serve``."""

    def __init__(self, binary=None, backend="auto", data_dir=None, args=(), startup_timeout=120):
        self.binary = find_binary(binary)
        self._tmp = None
        if data_dir is None:
            data_dir = self._tmp = tempfile.mkdtemp(prefix="hpgraph-serve-")
        self.data_dir = data_dir
        self.token = secrets.token_hex(16)
        env = dict(os.environ, HPGRAPH_TOKEN=self.token)  # (not on the command line, where ps shows it)
        cmd = [self.binary, "serve", "--listen", "127.0.0.1:0", "--data-dir", data_dir, "--backend", backend, *args]
        self._log = collections.deque(maxlen=200)
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True)
        atexit.register(self.stop)
        self.url = None  # (before the thread that reads the log looks at it)
        lines = queue.Queue()
        threading.Thread(target=self._drain, args=(lines,), daemon=True).start()
        try:
            while self.url is None:
                line = lines.get(timeout=startup_timeout)
                if line is None:
                    raise RuntimeError(f"hpgraph serve exited ({self.proc.wait()}) before listening: " + " | ".join(self._log))
                m = _LISTENING.search(line)
                if m:
                    self.url = m.group(1)
        except queue.Empty:
            self.stop()
            raise TimeoutError(f"hpgraph serve did not listen within {startup_timeout} s: " + " | ".join(self._log)) from None
        except BaseException:
            self.stop()
            raise

    def _drain(self, lines):
        # Reads the server's log (so that its pipe never fills), handing
        # lines over until it listens; None at its end.
        for line in self.proc.stderr:
            line = line.rstrip("\n")
            self._log.append(line)
            if self.url is None:
                lines.put(line)
        lines.put(None)

    @property
    def log(self):
        """The server's last log lines."""
        return list(self._log)

    def client(self, timeout=None):
        """A client of this server."""
        return Client(self.url, self.token, timeout)

    def stop(self):
        """Stops the server (SIGTERM: it finishes the queries in flight)."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self._tmp:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None
        atexit.unregister(self.stop)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
