"""The DataLoader's worker processes.

Workers are forked (as MXNet's on Linux), so any dataset works, lambdas and open files included,
without pickling it. Forking a process that has run OpenMP-parallel code leaves libgomp's thread
pool in the child without its threads, and the child's first parallel region waits for them
forever; so a worker first limits OpenMP to one thread (each worker is one process: parallelism
comes from having several). Then symnet's C++ ops are safe there and a dataset or transform may
use them. A worker runs the dataset and the batchify function, and sends the batch back as numpy
arrays (_transport); the parent makes the NDArrays.

Each worker has its own task pipe and result pipe, no shared queue: no lock a dying worker could
leave held, and a dead worker is seen at once (its process sentinel). The parent never blocks
writing to a worker that could itself be blocked writing a result: a task goes to a worker only
if the worker is idle or the tasks already queued to it are small (see _can_take).

Each task carries a seed drawn in the parent from mx.random's generator in task order; the
worker reseeds with it, so random transforms give the same batches on every run after
mx.random.seed, whichever worker runs which task.
"""
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import threading
import time
import traceback
import warnings
import weakref

from ... import _core
from ... import random as _random
from . import _transport

_LIVE_POOLS = weakref.WeakSet()
_SMALL_QUEUE_BYTES = 32768  # half a Linux pipe buffer: queued tasks never fill it
_MAX_QUEUED = 2  # tasks waiting in one worker's pipe


class _RemoteTraceback(Exception):
    """Carries a worker's traceback text as the __cause__ of the exception re-raised here."""

    def __str__(self):
        return self.args[0]


def _pack_error(exc, worker_id, indices):
    try:
        blob = pickle.dumps(exc)
    except Exception:  # an exception holding unpicklable state: its type name and text survive
        blob = None
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    where = "DataLoader worker %d (pid %d), loading samples %s" % (
        worker_id, os.getpid(), list(indices) if len(indices) <= 16 else
        "%s ... (%d)" % (list(indices[:16]), len(indices)))
    return blob, type(exc).__name__, str(exc), tb, where


def _raise_error(packed):
    blob, type_name, message, tb, where = packed
    exc = None
    if blob is not None:
        try:
            exc = pickle.loads(blob)
        except Exception:
            exc = None
    if not isinstance(exc, BaseException):
        exc = RuntimeError("%s: %s" % (type_name, message))
    if hasattr(exc, "add_note"):
        exc.add_note("(raised in %s)" % where)
    raise exc from _RemoteTraceback("\n\nin %s:\n%s" % (where, tb))


def _worker_loop(worker_id, dataset, batchify_fn, task_conn, result_conn, inherited, parent_pid):
    for conn in inherited:  # other workers' pipe ends: held here, they would hide an EOF there
        conn.close()
    _core.set_omp_num_threads(1)
    while True:
        try:
            while not task_conn.poll(1.0):
                if os.getppid() != parent_pid:  # the parent died without closing the pipe
                    return
            msg = task_conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        task_id, seed, indices = msg
        try:
            if seed is not None:
                _random.seed(seed)
            reply = (task_id, True, _transport.encode(batchify_fn([dataset[i] for i in indices])))
        except Exception as e:
            reply = (task_id, False, _pack_error(e, worker_id, indices))
        try:
            try:
                _transport.send(result_conn, reply)
            except (pickle.PicklingError, TypeError, AttributeError) as e:  # a batch not picklable
                _transport.send(result_conn, (task_id, False, _pack_error(e, worker_id, indices)))
        except OSError:  # the parent closed the pipe: it is shutting down
            return


class _Worker:
    __slots__ = ("process", "tasks", "results", "queued")

    def __init__(self, process, tasks, results):
        self.process, self.tasks, self.results = process, tasks, results
        self.queued = {}  # task id -> pickled size, for tasks sent and not yet answered


class WorkerPool:
    """num_workers forked processes that turn index lists into batches of `dataset`."""

    def __init__(self, num_workers, dataset, batchify_fn):
        if "fork" not in multiprocessing.get_all_start_methods():
            raise RuntimeError("DataLoader worker processes need the 'fork' start method, which "
                               "this platform lacks; use num_workers=0 or thread_pool=True")
        ctx = multiprocessing.get_context("fork")
        self._workers = []
        self._next_id = 0
        self._pending = []  # (task id, message bytes) not yet sent to a worker
        self._results = {}
        self._cancelled = set()
        self._broken = None
        self._closed = False
        inherited = [c for pool in list(_LIVE_POOLS) for c in pool._parent_ends()]
        # Ctrl-C goes to the parent alone (the workers inherit the ignoring handler)
        main = threading.current_thread() is threading.main_thread()
        old_handler = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
        try:
            for i in range(num_workers):
                task_r, task_w = ctx.Pipe(duplex=False)
                res_r, res_w = ctx.Pipe(duplex=False)
                ends = inherited + self._parent_ends() + [task_w, res_r]
                p = ctx.Process(target=_worker_loop, name="DataLoader worker %d" % i, daemon=True,
                                args=(i, dataset, batchify_fn, task_r, res_w, ends, os.getpid()))
                with warnings.catch_warnings():
                    # Python 3.12+ warns that forking a multi-threaded process may deadlock the
                    # child; the threads it counts are OpenMP's, the hazard _worker_loop defuses
                    warnings.filterwarnings("ignore", message=".*fork", category=DeprecationWarning)
                    p.start()
                task_r.close()
                res_w.close()
                self._workers.append(_Worker(p, task_w, res_r))
        except BaseException:
            self.shutdown()
            raise
        finally:
            if main:
                signal.signal(signal.SIGINT, old_handler)
        _LIVE_POOLS.add(self)

    def _parent_ends(self):
        return [c for w in self._workers for c in (w.tasks, w.results)]

    @property
    def broken(self):
        """Why the pool cannot be used any more (a worker died), or None."""
        return self._broken

    def submit(self, indices):
        """Queues a batch of sample indices; returns its task id."""
        if self._broken:
            raise RuntimeError(self._broken)
        task_id = self._next_id
        self._next_id += 1
        seed = int(_random.host_rng().randint(0, 2 ** 31 - 1))
        msg = pickle.dumps((task_id, seed, list(indices)), protocol=pickle.HIGHEST_PROTOCOL)
        self._pending.append((task_id, msg))
        self._dispatch()
        return task_id

    def cancel(self, task_ids):
        """Drops the results of tasks nobody will ask for (an abandoned iterator)."""
        ids = set(task_ids)
        unsent = {t for t, _ in self._pending} & ids
        self._pending = [(t, m) for t, m in self._pending if t not in ids]
        for t in ids - unsent:  # sent: drop the result now, or when it comes
            if self._results.pop(t, None) is None:
                self._cancelled.add(t)

    def _can_take(self, w, size):
        # an idle worker is reading its pipe, so any task goes in; else only small tasks queue
        return not w.queued or (len(w.queued) < _MAX_QUEUED and
                                sum(w.queued.values()) + size <= _SMALL_QUEUE_BYTES)

    def _dispatch(self):
        while self._pending:
            task_id, msg = self._pending[0]
            free = [w for w in self._workers if self._can_take(w, len(msg))]
            if not free:
                return
            w = min(free, key=lambda w: len(w.queued))
            try:
                w.tasks.send_bytes(msg)
            except OSError:  # nobody reads that pipe: the worker is gone
                w.process.join(1.0)
                self._died(w)
            w.queued[task_id] = len(msg)
            self._pending.pop(0)

    def _died(self, w):
        code = w.process.exitcode
        if code is not None and code < 0:
            try:
                how = "was killed by signal %s" % signal.Signals(-code).name
            except ValueError:
                how = "was killed by signal %d" % -code
        else:
            how = "exited with code %s" % code
        self._broken = ("DataLoader worker process %s (pid %d) %s while loading batches (a crash "
                        "in native code, or killed, e.g. by the out-of-memory killer); the "
                        "DataLoader starts new workers for its next epoch"
                        % (w.process.name.split()[-1], w.process.pid, how))
        self.shutdown()
        raise RuntimeError(self._broken)

    def _receive(self, w):
        try:
            task_id, ok, payload = _transport.recv(w.results)
        except (EOFError, OSError):
            w.process.join(1.0)
            self._died(w)
        w.queued.pop(task_id, None)
        if task_id in self._cancelled:
            self._cancelled.discard(task_id)
        else:
            self._results[task_id] = (ok, payload)

    def result(self, task_id, timeout):
        """The batch of a task (encoded, see _transport), waiting up to timeout seconds; a
        worker's exception is raised here with its original type and message."""
        deadline = time.monotonic() + timeout
        while task_id not in self._results:
            if self._broken:
                raise RuntimeError(self._broken)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise multiprocessing.TimeoutError(
                    "DataLoader: no batch from the worker processes after %g s (a slow transform? "
                    "raise the DataLoader's timeout)" % timeout)
            conns = {w.results: w for w in self._workers}
            sentinels = {w.process.sentinel: w for w in self._workers}
            ready = multiprocessing.connection.wait(list(conns) + list(sentinels), remaining)
            for r in ready:
                if r in conns:
                    self._receive(conns[r])
            for r in ready:
                if r in sentinels and not sentinels[r].results.poll(0):
                    self._died(sentinels[r])
            self._dispatch()
        ok, payload = self._results.pop(task_id)
        if not ok:
            _raise_error(payload)
        return payload

    def shutdown(self):
        """Stops and reaps every worker (terminating those still busy after a moment)."""
        if self._closed:
            return
        self._closed = True
        _LIVE_POOLS.discard(self)
        for w in self._workers:
            w.results.close()  # a worker blocked writing a batch gets EPIPE and exits
            try:
                w.tasks.send_bytes(pickle.dumps(None))
            except OSError:
                pass
            w.tasks.close()
        deadline = time.monotonic() + 1.0
        for w in self._workers:
            w.process.join(max(0.0, deadline - time.monotonic()))
            if w.process.exitcode is None:
                w.process.terminate()
                w.process.join(5.0)
            if w.process.exitcode is None:
                w.process.kill()
                w.process.join()
