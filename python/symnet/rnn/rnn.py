"""mx.rnn.rnn: checkpoints of networks built from RNN cells. The files hold the cells' unpacked
(per-gate) weights, which do not depend on fused or unfused form: save unpacks, load packs."""
import warnings

from ..model import load_checkpoint, save_checkpoint
from ._base import BaseRNNCell

__all__ = ['rnn_unroll', 'save_rnn_checkpoint', 'load_rnn_checkpoint', 'do_rnn_checkpoint',
           'save_checkpoint', 'load_checkpoint', 'BaseRNNCell']


def _as_list(cells):
    return [cells] if isinstance(cells, BaseRNNCell) else cells


def rnn_unroll(cell, length, inputs=None, begin_state=None, input_prefix='', layout='NTC'):
    """Deprecated: cell.unroll(length, inputs, begin_state, layout)."""
    warnings.warn('rnn_unroll is deprecated. Please call cell.unroll directly.')
    # MXNet forwards input_prefix too, which unroll does not take; it is dropped here
    del input_prefix
    return cell.unroll(length=length, inputs=inputs, begin_state=begin_state, layout=layout)


def save_rnn_checkpoint(cells, prefix, epoch, symbol, arg_params, aux_params):
    """Writes prefix-symbol.json and prefix-<epoch>.params (mx.model.save_checkpoint) with each
    cell's weights unpacked first.

    Parameters
    ----------
    cells : BaseRNNCell or list of BaseRNNCell
        The cells whose weights `arg_params` holds.
    prefix : str
        The file prefix.
    epoch : int
        The epoch number in the file name.
    symbol : Symbol
        The network.
    arg_params, aux_params : dict of str to NDArray
        The parameters and auxiliary states.
    """
    for cell in _as_list(cells):
        arg_params = cell.unpack_weights(arg_params)
    save_checkpoint(prefix, epoch, symbol, arg_params, aux_params)


def load_rnn_checkpoint(cells, prefix, epoch):
    """(symbol, arg_params, aux_params) of a save_rnn_checkpoint, the cells' weights packed
    again.

    Parameters
    ----------
    cells : BaseRNNCell or list of BaseRNNCell
        The cells of the network.
    prefix : str
        The file prefix.
    epoch : int
        The epoch to load.
    """
    sym, arg_params, aux_params = load_checkpoint(prefix, epoch)
    for cell in _as_list(cells):
        arg_params = cell.pack_weights(arg_params)
    return sym, arg_params, aux_params


def do_rnn_checkpoint(cells, prefix, period=1):
    """An epoch-end callback for fit that saves with save_rnn_checkpoint every `period` epochs.

    Parameters
    ----------
    cells : BaseRNNCell or list of BaseRNNCell
        The cells of the network.
    prefix : str
        The file prefix.
    period : int
        Save every this many epochs (at least 1).
    """
    period = int(max(1, period))

    def _callback(iter_no, sym=None, arg=None, aux=None):
        if (iter_no + 1) % period == 0:
            save_rnn_checkpoint(cells, prefix, iter_no + 1, sym, arg, aux)
    return _callback
