"""A multilayer perceptron: the image flattened, two ReLU layers of 128 and 64 units, the
classifier."""
import mxnet as mx


def get_symbol(num_classes=10, **kwargs):
    x = mx.sym.Flatten(data=mx.sym.Variable("data"))
    for i, units in enumerate((128, 64)):
        x = mx.sym.FullyConnected(data=x, name="fc%d" % (i + 1), num_hidden=units)
        x = mx.sym.Activation(data=x, name="relu%d" % (i + 1), act_type="relu")
    x = mx.sym.FullyConnected(data=x, name="fc3", num_hidden=num_classes)
    return mx.sym.SoftmaxOutput(data=x, name="softmax")
