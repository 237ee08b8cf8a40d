"""The GPU layout plan: 16-bit graphs run channels-last (cuDNN NHWC convolutions, channels-last
BatchNorm, pooling, LeakyReLU, Concat and element-wise kernels, _convert_layout at the edges);
float32 graphs keep NCHW. Either way the numbers are those of the default layout."""
import pytest

from gpu_device import DEVICE as GPU
from test_layout import assert_same_results, run, small_cnn

ON_GPU = GPU is not None and GPU.device_type == "gpu"


@pytest.mark.parametrize("dtype,rtol", [("float16", 2e-2), ("bfloat16", 5e-2)])
@pytest.mark.parametrize("width", [8, 16])
def test_sixteen_bit_graphs_run_channels_last_and_match_the_default_layout(dtype, rtol, width):
    net, shapes = small_cnn(width), {"data": (4, 3, 12, 12)}
    exe, o1, g1, a1 = run(net, shapes, dtype, True, ctx=GPU)
    _, o2, g2, a2 = run(net, shapes, dtype, False, ctx=GPU)
    dbg = exe.debug_str()
    if ON_GPU:  # GPUs never use oneDNN's nChw16c, whatever the channel count
        assert "(NHWC)" in dbg and "(nChw16c)" not in dbg and "_convert_layout" in dbg
    assert_same_results((o1, g1, a1), (o2, g2, a2), rtol)


def test_float32_graphs_keep_the_default_layout_on_a_gpu():
    exe = run(small_cnn(8), {"data": (4, 3, 12, 12)}, "float32", True, ctx=GPU)[0]
    if ON_GPU:
        assert "(NHWC)" not in exe.debug_str() and "_convert_layout" not in exe.debug_str()
