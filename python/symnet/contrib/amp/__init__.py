"""mx.contrib.amp: automatic mixed precision, laid out as MXNet 1.9.1's package (amp, lists,
loss_scaler). symnet.amp is the same amp module under symnet's shorter name."""
from . import amp, lists, loss_scaler
from .amp import *
from .loss_scaler import LossScaler
