"""DataLoader: mini-batches of a dataset, loaded in this process, in worker processes
(num_workers > 0, see _worker_pool.py) or in threads (thread_pool=True), as MXNet's."""
import collections
import multiprocessing.pool
import weakref

from ... import context
from ... import ndarray as nd
from . import _transport
from . import sampler as _sampler
from ._worker_pool import WorkerPool
from .batchify import default_batchify_fn, default_mp_batchify_fn, numpy_batchify_fn  # noqa: F401

__all__ = ["DataLoader"]


def _as_in_context(data, ctx):
    if isinstance(data, nd.NDArray):
        return data.as_in_context(ctx)
    if isinstance(data, (list, tuple)):
        return [_as_in_context(d, ctx) for d in data]
    return data


def _thread_worker_fn(samples, batchify_fn, dataset):
    return batchify_fn([dataset[i] for i in samples])


class DataLoader:
    """Loads mini-batches from a dataset.

    dataset: a Dataset (or any object with len() and []); batch_size, shuffle, sampler and
    last_batch ('keep' | 'discard' | 'rollover') build a BatchSampler, or batch_sampler gives one
    (then none of those four may be given). batchify_fn merges a list of samples into a batch
    (default_batchify_fn by default). num_workers > 0 loads batches in that many forked worker
    processes, prefetching `prefetch` batches (2 * num_workers by default); thread_pool=True uses
    threads instead. timeout: seconds to wait for one batch from the workers. pin_memory returns
    batches in cpu_pinned memory (pin_device_id), which on a CPU-only machine is ordinary memory.
    """

    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None, last_batch=None,
                 batch_sampler=None, batchify_fn=None, num_workers=0, pin_memory=False,
                 pin_device_id=0, prefetch=None, thread_pool=False, timeout=120,
                 auto_reload=False):
        self._pool = None
        self._dataset = dataset
        self._pin_memory = pin_memory
        self._pin_device_id = pin_device_id
        self._thread_pool = thread_pool
        if not timeout > 0:
            raise ValueError("timeout must be positive, given %r" % (timeout,))
        self._timeout = timeout

        if batch_sampler is None:
            if batch_size is None:
                raise ValueError("batch_size must be specified unless batch_sampler is specified")
            if sampler is None:
                if shuffle:
                    sampler = _sampler.RandomSampler(len(dataset))
                else:
                    sampler = _sampler.SequentialSampler(len(dataset))
            elif shuffle:
                raise ValueError("shuffle must not be specified if sampler is specified")
            batch_sampler = _sampler.BatchSampler(sampler, batch_size,
                                                  last_batch if last_batch else "keep")
        elif batch_size is not None or shuffle or sampler is not None or last_batch is not None:
            raise ValueError("batch_size, shuffle, sampler and last_batch must not be specified if "
                             "batch_sampler is specified.")
        self._batch_sampler = batch_sampler
        self._num_workers = max(0, int(num_workers))
        self._prefetch = max(0, int(prefetch) if prefetch is not None else 2 * self._num_workers)
        self._batchify_fn = default_batchify_fn if batchify_fn is None else batchify_fn
        # workers build the default batch in numpy; the parent makes the NDArrays (_transport)
        self._worker_batchify_fn = numpy_batchify_fn if self._batchify_fn is default_batchify_fn \
            else self._batchify_fn
        if self._num_workers > 0:
            self._start_pool()
        self.auto_reload = auto_reload
        self._iter = None
        if auto_reload:
            self.refresh()

    def _start_pool(self):
        if self._thread_pool:
            self._pool = multiprocessing.pool.ThreadPool(self._num_workers)
            stop = self._pool.terminate
        else:
            self._pool = WorkerPool(self._num_workers, self._dataset, self._worker_batchify_fn)
            stop = self._pool.shutdown
        # no reference to self: the workers stop when the DataLoader is collected, or at exit
        self._finalizer = weakref.finalize(self, stop)

    def __len__(self):
        return len(self._batch_sampler)

    def __iter__(self):
        if self._iter is None:
            self.refresh()
        it, self._iter = self._iter, None  # an iterator is used once
        yield from it
        if self._iter is None and self.auto_reload:
            self.refresh()

    def refresh(self):
        """Starts a new pass (with auto_reload, prefetching begins now, before iteration)."""
        self._iter = self._make_iter()

    def clean(self):
        """Drops a pass prepared by refresh()."""
        self._iter = None

    def _make_iter(self):
        if self._num_workers == 0:
            return self._same_process_iter()
        if self._thread_pool:
            return self._thread_iter()
        return self._process_iter()

    def _pin(self, batch):
        if self._pin_memory:
            return _as_in_context(batch, context.cpu_pinned(self._pin_device_id))
        return batch

    def _same_process_iter(self):
        for batch in self._batch_sampler:
            yield self._pin(self._batchify_fn([self._dataset[idx] for idx in batch]))

    def _thread_iter(self):
        pool, timeout = self._pool, self._timeout
        return _PrefetchIter(
            self._batch_sampler, self._prefetch,
            submit=lambda idx: pool.apply_async(_thread_worker_fn,
                                                (idx, self._batchify_fn, self._dataset)),
            fetch=lambda res: self._pin(res.get(timeout)))

    def _process_iter(self):
        if self._pool is None or self._pool.broken:
            if getattr(self, "_finalizer", None) is not None:
                self._finalizer()  # reaps the old workers, if any are left
            self._start_pool()
        pool, timeout = self._pool, self._timeout
        ctx = context.cpu_pinned(self._pin_device_id) if self._pin_memory else context.cpu()
        return _PrefetchIter(
            self._batch_sampler, self._prefetch, submit=pool.submit,
            fetch=lambda task: _transport.decode(pool.result(task, timeout), ctx),
            cancel=pool.cancel)


class _PrefetchIter:
    """Batches loaded ahead by a pool: `prefetch` are requested at once (as MXNet does), one
    more each time one is taken. Finished, failed or dropped, it cancels what is still in flight,
    so no result waits in the pool for a reader that is gone."""

    def __init__(self, batch_sampler, prefetch, submit, fetch, cancel=None):
        self._batches = iter(batch_sampler)
        self._submit, self._fetch, self._cancel = submit, fetch, cancel
        self._sent = collections.deque()
        for _ in range(prefetch):
            self._push()

    def _push(self):
        idx = next(self._batches, None)
        if idx is not None:
            self._sent.append(self._submit(idx))

    def __iter__(self):
        return self

    def __next__(self):
        self._push()
        if not self._sent:
            raise StopIteration
        try:
            return self._fetch(self._sent.popleft())
        except BaseException:
            self.close()
            raise

    next = __next__

    def close(self):
        sent, self._sent = list(self._sent), collections.deque()
        self._batches = iter(())
        if sent and self._cancel is not None:
            self._cancel(sent)

    def __del__(self):
        self.close()
