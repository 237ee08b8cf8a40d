"""Classic MXNet symbol-API network definitions, written here in MXNet 1.x style. Each builder
takes the framework module (`mxnet` or `symnet`) so the same code runs under both; the parity
test compares the JSON the two produce.
"""


def mlp(mx):
    data = mx.symbol.Variable("data")
    fc1 = mx.symbol.FullyConnected(data=data, name="fc1", num_hidden=128)
    act1 = mx.symbol.Activation(data=fc1, name="relu1", act_type="relu")
    fc2 = mx.symbol.FullyConnected(data=act1, name="fc2", num_hidden=64)
    act2 = mx.symbol.Activation(data=fc2, name="relu2", act_type="relu")
    fc3 = mx.symbol.FullyConnected(data=act2, name="fc3", num_hidden=10)
    return mx.symbol.SoftmaxOutput(data=fc3, name="softmax")


def lenet(mx):
    data = mx.symbol.Variable("data")
    conv1 = mx.symbol.Convolution(data=data, kernel=(5, 5), num_filter=20)
    tanh1 = mx.symbol.Activation(data=conv1, act_type="tanh")
    pool1 = mx.symbol.Pooling(data=tanh1, pool_type="max", kernel=(2, 2), stride=(2, 2))
    conv2 = mx.symbol.Convolution(data=pool1, kernel=(5, 5), num_filter=50)
    tanh2 = mx.symbol.Activation(data=conv2, act_type="tanh")
    pool2 = mx.symbol.Pooling(data=tanh2, pool_type="max", kernel=(2, 2), stride=(2, 2))
    flatten = mx.symbol.Flatten(data=pool2)
    fc1 = mx.symbol.FullyConnected(data=flatten, num_hidden=500)
    tanh3 = mx.symbol.Activation(data=fc1, act_type="tanh")
    fc2 = mx.symbol.FullyConnected(data=tanh3, num_hidden=10)
    return mx.symbol.SoftmaxOutput(data=fc2, name="softmax")


def _residual_unit(mx, data, num_filter, stride, dim_match, name, bn_mom=0.9):
    """A bottleneck unit in the style of MXNet's image-classification resnet symbols."""
    bn1 = mx.sym.BatchNorm(data=data, fix_gamma=False, eps=2e-5, momentum=bn_mom, name=name + "_bn1")
    act1 = mx.sym.Activation(data=bn1, act_type="relu", name=name + "_relu1")
    conv1 = mx.sym.Convolution(data=act1, num_filter=num_filter // 4, kernel=(1, 1), stride=(1, 1),
                               pad=(0, 0), no_bias=True, name=name + "_conv1")
    bn2 = mx.sym.BatchNorm(data=conv1, fix_gamma=False, eps=2e-5, momentum=bn_mom, name=name + "_bn2")
    act2 = mx.sym.Activation(data=bn2, act_type="relu", name=name + "_relu2")
    conv2 = mx.sym.Convolution(data=act2, num_filter=num_filter // 4, kernel=(3, 3), stride=stride,
                               pad=(1, 1), no_bias=True, name=name + "_conv2")
    bn3 = mx.sym.BatchNorm(data=conv2, fix_gamma=False, eps=2e-5, momentum=bn_mom, name=name + "_bn3")
    act3 = mx.sym.Activation(data=bn3, act_type="relu", name=name + "_relu3")
    conv3 = mx.sym.Convolution(data=act3, num_filter=num_filter, kernel=(1, 1), stride=(1, 1),
                               pad=(0, 0), no_bias=True, name=name + "_conv3")
    if dim_match:
        shortcut = data
    else:
        shortcut = mx.sym.Convolution(data=act1, num_filter=num_filter, kernel=(1, 1), stride=stride,
                                      no_bias=True, name=name + "_sc")
    return conv3 + shortcut


def resnet(mx, units=(1, 1, 1, 1), filters=(64, 256, 512, 1024, 2048), num_classes=10):
    """A pre-activation ResNet builder like MXNet's example/image-classification/symbols."""
    data = mx.sym.Variable(name="data")
    data = mx.sym.identity(data=data, name="id")
    body = mx.sym.Convolution(data=data, num_filter=filters[0], kernel=(7, 7), stride=(2, 2),
                              pad=(3, 3), no_bias=True, name="conv0")
    body = mx.sym.BatchNorm(data=body, fix_gamma=False, eps=2e-5, momentum=0.9, name="bn0")
    body = mx.sym.Activation(data=body, act_type="relu", name="relu0")
    body = mx.sym.Pooling(data=body, kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="max")
    for i, n in enumerate(units):
        stride = (1 if i == 0 else 2, 1 if i == 0 else 2)
        body = _residual_unit(mx, body, filters[i + 1], stride, False, "stage%d_unit%d" % (i + 1, 1))
        for j in range(n - 1):
            body = _residual_unit(mx, body, filters[i + 1], (1, 1), True, "stage%d_unit%d" % (i + 1, j + 2))
    bn1 = mx.sym.BatchNorm(data=body, fix_gamma=False, eps=2e-5, momentum=0.9, name="bn1")
    relu1 = mx.sym.Activation(data=bn1, act_type="relu", name="relu1")
    pool1 = mx.sym.Pooling(data=relu1, global_pool=True, kernel=(7, 7), pool_type="avg", name="pool1")
    flat = mx.sym.Flatten(data=pool1)
    fc1 = mx.sym.FullyConnected(data=flat, num_hidden=num_classes, name="fc1")
    return mx.sym.SoftmaxOutput(data=fc1, name="softmax")


BUILDERS = {"mlp": mlp, "lenet": lenet, "resnet": resnet}
