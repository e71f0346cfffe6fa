"""A large graph's arcs made by several processes: forked helpers and
the calling one each pack a chunk of the rows at a time (README.md,
"Where the time goes").

The rows are split into chunks of contiguous rows, about as many arcs
each; their numbers wait in a pipe, written before the helpers are
forked, from which each process (the caller too) takes the next one.
A helper packs its chunk into memory shared with the caller and says so
on a second pipe; the caller copies the helpers' chunks into its array
in order, telling ``ready`` how far the array is final, and packs in its
own array what it takes. Every chunk is packed by the same function with
the same values, whoever packs it: the array is the single process's,
byte for byte. A chunk whose helper failed, died or was lost is packed
by the caller (and raises there as it would have in one process); the
helpers are waited for at most PATIENCE seconds without a message, then
killed; before this returns, those ended are reaped and a thread reaps
those ending; before it raises, all are killed and reaped."""

import gc
import mmap
import os
import select
import signal
import struct
import sys
import threading
import time
import warnings
from bisect import bisect_right
from itertools import accumulate

# Helpers wait this long for a message before they are given up (killed,
# their chunks packed by the caller); at the end, helpers still ending are
# reaped by a thread, which kills those that take longer than REAP.
PATIENCE = 60.0
REAP = 10.0
# A fork's time in the caller by its resident memory, until one is
# measured: 65 ms for 2.2 GiB here (the page tables it copies).
FORK_S_PER_BYTE = 0.030 / 2**30
# A helper's message: the chunk and whether it is packed.
_MESSAGE = struct.Struct("=iB")
# Chunks at most: their numbers (4 bytes each) fit in a pipe's smallest buffer (a page).
_MOST = 1024


def can_fork():
    return sys.platform.startswith("linux") and hasattr(os, "fork")


def chunks(counts, parts):
    """Up to parts chunks of the rows, [(row lo, row hi, arc lo, arc hi)],
    contiguous and covering every row, about as many arcs each."""
    ends = list(accumulate(counts))
    m, rows = (ends[-1] if ends else 0), len(counts)
    bounds = sorted({0, rows, *(bisect_right(ends, m * j // parts) for j in range(1, parts))})
    return [(lo, hi, ends[lo - 1] if lo else 0, ends[hi - 1]) for lo, hi in zip(bounds, bounds[1:])]


def pack_rows(rows, counts, values, pack, out, ready, helpers, parts, budget=float("inf"), patience=None):
    """pack(values(rows), sum(counts), out, ready) (out an array('i') of
    that length, ready None or as _int32s takes it), made by the caller
    and up to helpers forked processes, parts chunks. Helpers are forked
    while their forks would take the caller less than budget seconds in
    all (a fork's time: the last one's, the first's by the caller's
    resident memory): a process much larger than its graph forks fewer,
    or none."""
    patience = PATIENCE if patience is None else patience
    cs = chunks(counts, min(parts, _MOST))
    m = cs[-1][3] if cs else 0
    fds = []
    try:
        shared = mmap.mmap(-1, max(4 * m, 1))
        fds += os.pipe()
        fds += os.pipe()
    except OSError:  # (no shared memory or pipes to be had: one process)
        for fd in fds:
            os.close(fd)
        return pack(values(rows), m, out, ready)
    tasks_r, tasks_w, results_r, results_w = fds
    view, mine = memoryview(shared), memoryview(out).cast("B")
    pids, state = [], bytearray(len(cs))  # (0: to pack, 1: packed by a helper, 2: packed here, 3: to pack here)
    gently = False
    try:
        os.write(tasks_w, b"".join(c.to_bytes(4, "little") for c in range(len(cs))))  # (at most a page: never blocks)
        os.close(tasks_w)
        tasks_w = -1
        spent, each = 0.0, _resident() * FORK_S_PER_BYTE
        for _ in range(helpers):
            if spent + each > budget:
                break
            t = time.perf_counter()
            pid = _fork()
            if pid == 0:
                _helper(rows, values, pack, cs, view, tasks_r, results_r, results_w)
            if pid < 0:
                break
            pids.append(pid)
            each = time.perf_counter() - t
            spent += each
        os.close(results_w)
        results_w = -1
        live, buf, waited = bool(pids), b"", time.monotonic()

        def hear(timeout):
            """Reads the helpers' messages within timeout; False where none came."""
            nonlocal live, buf, waited
            if not select.select([results_r], [], [], timeout)[0]:
                return False
            data = os.read(results_r, 4096)
            waited = time.monotonic()
            if not data:
                live = False  # (every helper has gone)
            buf += data
            whole = len(buf) - len(buf) % _MESSAGE.size
            for k, ok in _MESSAGE.iter_unpack(buf[:whole]):
                state[k] = 1 if ok else 3
            buf = buf[whole:]
            return True

        for c, (lo, hi, a, z) in enumerate(cs):
            while state[c] == 0:
                if live and hear(0):  # (chunks the helpers have packed, sent before this one packs another)
                    continue
                task = os.read(tasks_r, 4)
                if task:  # (the next chunk no one has taken: packed here)
                    k = int.from_bytes(task, "little")
                    try:
                        pack(values(rows[cs[k][0] : cs[k][1]]), cs[k][3] - cs[k][2], mine[4 * cs[k][2] : 4 * cs[k][3]])
                        state[k] = 2
                    except Exception:  # (packed again, and raised, in its turn: an earlier chunk's error first)
                        state[k] = 3
                    waited = time.monotonic()  # (the helpers' patience counts while this one waits)
                elif not live:
                    state[c] = 3
                elif not hear(max(0.0, waited + patience - time.monotonic())):
                    live = False  # (no word from the helpers for too long: theirs are packed here)
                    _stop(pids)
            if state[c] == 1:
                mine[4 * a : 4 * z] = view[4 * a : 4 * z]
            elif state[c] == 3:
                pack(values(rows[lo:hi]), z - a, mine[4 * a : 4 * z])
            if ready is not None and z > a:
                ready(z)
        if ready is not None:
            ready(m)
        gently = True
    finally:
        _stop(pids, gently)
        for fd in (tasks_r, tasks_w, results_r, results_w):
            if fd >= 0:
                os.close(fd)
        mine.release()
        view.release()
        shared.close()
    return out


def _resident():
    """This process's resident memory, bytes (0 where unknown)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _fork():
    """A helper's pid, 0 in the helper, -1 where none can be made."""
    try:
        with warnings.catch_warnings():  # (python 3.12's warning about fork in a process with threads: a
            warnings.simplefilter("ignore", DeprecationWarning)  # helper takes no lock, and ends with os._exit)
            return os.fork()
    except OSError:
        return -1


def _helper(rows, values, pack, cs, view, tasks_r, results_r, results_w):
    """A helper's life: packs the chunks it takes into view, says so, and
    ends with os._exit, never returning to the caller's code."""
    code = 1
    try:
        os.close(results_r)
        gc.disable()  # (a collection would write to every object of the graph, copying its pages)
        for sig in (signal.SIGINT, signal.SIGTERM):  # (not the caller's handlers: an interrupt ends a helper)
            try:
                signal.signal(sig, signal.SIG_DFL)
            except ValueError:  # (forked from a thread of a python that does not make it the main one)
                pass
        while True:
            task = os.read(tasks_r, 4)
            if not task:
                break
            k = int.from_bytes(task, "little")
            lo, hi, a, z = cs[k]
            try:
                pack(values(rows[lo:hi]), z - a, view[4 * a : 4 * z])
                ok = 1
            except Exception:  # (the caller packs it again, and raises)
                ok = 0
            os.write(results_w, _MESSAGE.pack(k, ok))
        code = 0
    finally:
        os._exit(code)


def _stop(pids, gently=False):
    """Reaps the helpers: gently, those that have ended, the others (at
    their ends, nothing left to take) by a thread, killed if they last
    another REAP seconds; else killed at once."""
    if gently:
        pids[:] = [pid for pid in pids if not _reaped(pid)]
        if pids:
            threading.Thread(target=_reap, args=(list(pids),), name="hpgraph-reap", daemon=True).start()
    else:
        _reap(pids, 0.0)
    pids.clear()


def _reap(pids, wait=None):
    deadline = time.monotonic() + (REAP if wait is None else wait)
    while True:
        pids = [pid for pid in pids if not _reaped(pid)]
        if not pids or time.monotonic() >= deadline:
            break
        time.sleep(0.001)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        _reaped(pid, 0)


def _reaped(pid, flags=None):
    try:
        return os.waitpid(pid, os.WNOHANG if flags is None else flags)[0] == pid
    except ChildProcessError:  # (reaped elsewhere)
        return True
