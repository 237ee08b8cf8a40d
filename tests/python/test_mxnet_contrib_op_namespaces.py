"""mx.contrib.ndarray / mx.contrib.symbol (and their aliases mx.contrib.nd / mx.contrib.sym) as
MXNet 1.9.1's: the contrib operators (_contrib_<name>) under <name>, listed in __all__, functions
of their own module, without mx.nd.contrib's Python helpers; values equal MXNet's (printed by
running the same calls on MXNet 1.9.1)."""
import numpy as np

import symnet as mx

BOXES = [[0, 0.9, 0, 0, 1, 1], [0, 0.8, 0, 0, 0.9, 0.9], [1, 0.7, 2, 2, 3, 3]]
NMS = [[0.0, 0.9, 0.0, 0.0, 1.0, 1.0], [1.0, 0.7, 2.0, 2.0, 3.0, 3.0], [-1.0] * 6]


def test_aliases_and_names():
    assert mx.contrib.nd is mx.contrib.ndarray and mx.contrib.sym is mx.contrib.symbol
    for mod, kind in ((mx.contrib.nd, "ndarray"), (mx.contrib.sym, "symbol")):
        assert mod.__all__ == sorted(mod.__all__) and "box_nms" in mod.__all__
        assert all(hasattr(mod, n) for n in mod.__all__)
        assert mod.box_nms.__name__ == "box_nms" and mod.box_nms.__module__ == "symnet.contrib." + kind
        # the Python helpers of mx.nd.contrib and symnet's optimizer aliases are not MXNet's here
        for name in ("foreach", "cond", "isnan", "rand_zipfian", "adamw_update", "mp_adamw_update"):
            assert not hasattr(mod, name), name
    assert mx.contrib.nd.__all__ == mx.contrib.sym.__all__
    assert set(mx.contrib.nd.__all__) <= set(dir(mx.nd.contrib))
    ns = {}
    exec("from symnet.contrib.ndarray import *", ns)
    assert callable(ns["MultiBoxPrior"]) and "box_nms" in ns and "_fill" not in ns


def test_values_equal_mxnet():
    d = mx.nd.array(BOXES)
    np.testing.assert_allclose(mx.contrib.nd.box_nms(d, overlap_thresh=0.1).asnumpy(), NMS, rtol=1e-6)
    np.testing.assert_allclose(mx.contrib.nd.box_iou(d[:, 2:], d[:2, 2:]).asnumpy(),
                               [[1.0, 0.81], [0.81, 1.0], [0.0, 0.0]], rtol=1e-5)
    s = mx.contrib.sym.box_nms(mx.sym.var("x"), overlap_thresh=0.1, name="nms")
    assert s.list_outputs() == ["nms_output0"]
    np.testing.assert_allclose(s.eval(x=d)[0].asnumpy(), NMS, rtol=1e-6)
