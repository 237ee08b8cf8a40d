"""mx.contrib.io: DataLoaderIter, a Gluon DataLoader seen as a DataIter so that Module (and the
other symbolic-API consumers of DataIter) can train from Gluon datasets."""
from .. import ndarray as nd
from ..io import DataDesc, DataIter


class DataLoaderIter(DataIter):
    """Iterates over `loader` (a gluon.data.DataLoader yielding (data, label) batches) as a
    DataIter of one data and one label array named data_name and label_name.

    As in MXNet, the batch size and the shapes given by provide_data / provide_label come from
    the loader's first batch (read once at construction, then the loader is restarted), every
    batch is cast to `dtype`, and a shorter batch (last_batch='keep') is padded up to the batch
    size, getpad() telling by how much; the padded rows are left unset and the padded arrays
    have the default dtype (float32) whatever `dtype` is, both MXNet's behaviour."""

    def __init__(self, loader, data_name="data", label_name="softmax_label", dtype="float32"):
        super(DataLoaderIter, self).__init__()
        self._loader = loader
        self._iter = iter(self._loader)
        data, label = next(self._iter)
        self.batch_size = data.shape[0]
        self.dtype = dtype
        self.provide_data = [DataDesc(data_name, data.shape, dtype)]
        self.provide_label = [DataDesc(label_name, label.shape, dtype)]
        self._current_batch = None
        self.reset()

    def reset(self):
        self._iter = iter(self._loader)

    def iter_next(self):
        try:
            self._current_batch = next(self._iter)
        except StopIteration:
            self._current_batch = None
        return self._current_batch is not None

    def _padded(self, array):
        """`array` cast to dtype, in a batch_size-long array when the batch is short."""
        if self.getpad():
            ret = nd.empty(shape=[self.batch_size] + list(array.shape[1:]))
            ret[: array.shape[0]] = array.astype(self.dtype)
            return ret
        return array.astype(self.dtype)

    def getdata(self):
        return [self._padded(self._current_batch[0])]

    def getlabel(self):
        return [self._padded(self._current_batch[1])]

    def getpad(self):
        return self.batch_size - self._current_batch[0].shape[0]

    def getindex(self):
        return None
