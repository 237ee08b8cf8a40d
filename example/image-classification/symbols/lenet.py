"""LeNet (LeCun et al., 1998) as MXNet's image-classification scripts build it: two
convolution + tanh + max-pooling stages, a 500-unit tanh layer and the classifier."""
import mxnet as mx


def get_symbol(num_classes=10, dtype="float32", **kwargs):
    data = mx.sym.Variable("data")
    if dtype == "float16":
        data = mx.sym.Cast(data=data, dtype="float16")
    x = data
    for filters in (20, 50):
        x = mx.sym.Convolution(data=x, kernel=(5, 5), num_filter=filters)
        x = mx.sym.Activation(data=x, act_type="tanh")
        x = mx.sym.Pooling(data=x, pool_type="max", kernel=(2, 2), stride=(2, 2))
    x = mx.sym.Flatten(data=x)
    x = mx.sym.Activation(data=mx.sym.FullyConnected(data=x, num_hidden=500), act_type="tanh")
    x = mx.sym.FullyConnected(data=x, num_hidden=num_classes)
    if dtype == "float16":
        x = mx.sym.Cast(data=x, dtype="float32")
    return mx.sym.SoftmaxOutput(data=x, name="softmax")
