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


def alexnet(mx, num_classes=10, filters=(24, 64, 96, 96, 64), num_hidden=128):
    """AlexNet (Krizhevsky et al. 2012) with local response normalisation and dropout; the
    convolution widths and hidden units are scaled down from (96, 256, 384, 384, 256) and 4096."""
    data = mx.sym.Variable(name="data")
    # stage 1
    conv1 = mx.sym.Convolution(data=data, kernel=(11, 11), stride=(4, 4), num_filter=filters[0])
    relu1 = mx.sym.Activation(data=conv1, act_type="relu")
    lrn1 = mx.sym.LRN(data=relu1, alpha=0.0001, beta=0.75, knorm=2, nsize=5)
    pool1 = mx.sym.Pooling(data=lrn1, pool_type="max", kernel=(3, 3), stride=(2, 2))
    # stage 2
    conv2 = mx.sym.Convolution(data=pool1, kernel=(5, 5), pad=(2, 2), num_filter=filters[1])
    relu2 = mx.sym.Activation(data=conv2, act_type="relu")
    lrn2 = mx.sym.LRN(data=relu2, alpha=0.0001, beta=0.75, knorm=2, nsize=5)
    pool2 = mx.sym.Pooling(data=lrn2, kernel=(3, 3), stride=(2, 2), pool_type="max")
    # stage 3
    conv3 = mx.sym.Convolution(data=pool2, kernel=(3, 3), pad=(1, 1), num_filter=filters[2])
    relu3 = mx.sym.Activation(data=conv3, act_type="relu")
    conv4 = mx.sym.Convolution(data=relu3, kernel=(3, 3), pad=(1, 1), num_filter=filters[3])
    relu4 = mx.sym.Activation(data=conv4, act_type="relu")
    conv5 = mx.sym.Convolution(data=relu4, kernel=(3, 3), pad=(1, 1), num_filter=filters[4])
    relu5 = mx.sym.Activation(data=conv5, act_type="relu")
    pool3 = mx.sym.Pooling(data=relu5, kernel=(3, 3), stride=(2, 2), pool_type="max")
    # stage 4
    flatten = mx.sym.Flatten(data=pool3)
    fc1 = mx.sym.FullyConnected(data=flatten, num_hidden=num_hidden)
    relu6 = mx.sym.Activation(data=fc1, act_type="relu")
    dropout1 = mx.sym.Dropout(data=relu6, p=0.5)
    # stage 5
    fc2 = mx.sym.FullyConnected(data=dropout1, num_hidden=num_hidden)
    relu7 = mx.sym.Activation(data=fc2, act_type="relu")
    dropout2 = mx.sym.Dropout(data=relu7, p=0.5)
    # stage 6
    fc3 = mx.sym.FullyConnected(data=dropout2, num_hidden=num_classes)
    return mx.sym.SoftmaxOutput(data=fc3, name="softmax")


# VGG (Simonyan & Zisserman 2014): convolutions per stage for each depth; the widths are those
# of the paper divided by VGG_DIVISOR to keep the test fast
VGG_LAYERS = {11: (1, 1, 2, 2, 2), 13: (2, 2, 2, 2, 2), 16: (2, 2, 3, 3, 3), 19: (2, 2, 4, 4, 4)}
VGG_FILTERS = (64, 128, 256, 512, 512)


def _vgg_features(mx, body, layers, filters, batch_norm):
    for i, num in enumerate(layers):
        for j in range(num):
            body = mx.sym.Convolution(data=body, kernel=(3, 3), pad=(1, 1), num_filter=filters[i],
                                      name="conv%d_%d" % (i + 1, j + 1))
            if batch_norm:
                body = mx.sym.BatchNorm(data=body, name="bn%d_%d" % (i + 1, j + 1))
            body = mx.sym.Activation(data=body, act_type="relu", name="relu%d_%d" % (i + 1, j + 1))
        body = mx.sym.Pooling(data=body, pool_type="max", kernel=(2, 2), stride=(2, 2), name="pool%d" % (i + 1))
    return body


def _vgg_classifier(mx, body, num_classes, num_hidden):
    flatten = mx.sym.Flatten(data=body, name="flatten")
    fc6 = mx.sym.FullyConnected(data=flatten, num_hidden=num_hidden, name="fc6")
    relu6 = mx.sym.Activation(data=fc6, act_type="relu", name="relu6")
    drop6 = mx.sym.Dropout(data=relu6, p=0.5, name="drop6")
    fc7 = mx.sym.FullyConnected(data=drop6, num_hidden=num_hidden, name="fc7")
    relu7 = mx.sym.Activation(data=fc7, act_type="relu", name="relu7")
    drop7 = mx.sym.Dropout(data=relu7, p=0.5, name="drop7")
    return mx.sym.FullyConnected(data=drop7, num_hidden=num_classes, name="fc8")


def vgg(mx, num_layers=11, batch_norm=False, num_classes=10, divisor=8, num_hidden=128):
    if num_layers not in VGG_LAYERS:
        raise ValueError("no VGG with %d layers; choose one of %s" % (num_layers, sorted(VGG_LAYERS)))
    data = mx.sym.Variable(name="data")
    features = _vgg_features(mx, data, VGG_LAYERS[num_layers], [f // divisor for f in VGG_FILTERS], batch_norm)
    classifier = _vgg_classifier(mx, features, num_classes, num_hidden)
    return mx.sym.SoftmaxOutput(data=classifier, name="softmax")


def _conv_relu(mx, data, num_filter, kernel, stride=(1, 1), pad=(0, 0), name=None, suffix=""):
    conv = mx.symbol.Convolution(data=data, num_filter=num_filter, kernel=kernel, stride=stride, pad=pad,
                                 name="conv_%s%s" % (name, suffix))
    return mx.symbol.Activation(data=conv, act_type="relu", name="relu_%s%s" % (name, suffix))


def _inception_v1(mx, data, num_1x1, num_3x3red, num_3x3, num_5x5red, num_5x5, pool, proj, name):
    c1x1 = _conv_relu(mx, data, num_1x1, kernel=(1, 1), name="%s_1x1" % name)
    c3x3r = _conv_relu(mx, data, num_3x3red, kernel=(1, 1), name="%s_3x3" % name, suffix="_reduce")
    c3x3 = _conv_relu(mx, c3x3r, num_3x3, kernel=(3, 3), pad=(1, 1), name="%s_3x3" % name)
    c5x5r = _conv_relu(mx, data, num_5x5red, kernel=(1, 1), name="%s_5x5" % name, suffix="_reduce")
    c5x5 = _conv_relu(mx, c5x5r, num_5x5, kernel=(5, 5), pad=(2, 2), name="%s_5x5" % name)
    pooling = mx.symbol.Pooling(data=data, kernel=(3, 3), stride=(1, 1), pad=(1, 1), pool_type=pool,
                                name="%s_pool_%s_pool" % (pool, name))
    cproj = _conv_relu(mx, pooling, proj, kernel=(1, 1), name="%s_proj" % name)
    return mx.symbol.Concat(*[c1x1, c3x3, c5x5, cproj], name="ch_concat_%s_chconcat" % name)


def googlenet(mx, num_classes=10, divisor=8):
    """GoogLeNet (Szegedy et al. 2014): inception v1 modules, with the paper's local response
    normalisation after the first pooling and the third convolution; widths divided by divisor."""
    def w(*widths):
        return [max(n // divisor, 1) for n in widths]
    data = mx.sym.Variable("data")
    conv1 = _conv_relu(mx, data, w(64)[0], kernel=(7, 7), stride=(2, 2), pad=(3, 3), name="conv1")
    pool1 = mx.sym.Pooling(conv1, kernel=(3, 3), stride=(2, 2), pool_type="max")
    norm1 = mx.sym.LRN(pool1, alpha=0.0001, beta=0.75, nsize=5)
    conv2 = _conv_relu(mx, norm1, w(64)[0], kernel=(1, 1), stride=(1, 1), name="conv2")
    conv3 = _conv_relu(mx, conv2, w(192)[0], kernel=(3, 3), stride=(1, 1), pad=(1, 1), name="conv3")
    norm3 = mx.sym.LRN(conv3, alpha=0.0001, beta=0.75, nsize=5)
    pool3 = mx.sym.Pooling(norm3, kernel=(3, 3), stride=(2, 2), pool_type="max")
    in3a = _inception_v1(mx, pool3, *w(64, 96, 128, 16, 32), "max", w(32)[0], name="in3a")
    in3b = _inception_v1(mx, in3a, *w(128, 128, 192, 32, 96), "max", w(64)[0], name="in3b")
    pool4 = mx.sym.Pooling(in3b, kernel=(3, 3), stride=(2, 2), pool_type="max")
    in4a = _inception_v1(mx, pool4, *w(192, 96, 208, 16, 48), "max", w(64)[0], name="in4a")
    in4b = _inception_v1(mx, in4a, *w(160, 112, 224, 24, 64), "max", w(64)[0], name="in4b")
    in4c = _inception_v1(mx, in4b, *w(128, 128, 256, 24, 64), "max", w(64)[0], name="in4c")
    in4d = _inception_v1(mx, in4c, *w(112, 144, 288, 32, 64), "max", w(64)[0], name="in4d")
    in4e = _inception_v1(mx, in4d, *w(256, 160, 320, 32, 128), "max", w(128)[0], name="in4e")
    pool5 = mx.sym.Pooling(in4e, kernel=(3, 3), stride=(2, 2), pool_type="max")
    in5a = _inception_v1(mx, pool5, *w(256, 160, 320, 32, 128), "max", w(128)[0], name="in5a")
    in5b = _inception_v1(mx, in5a, *w(384, 192, 384, 48, 128), "max", w(128)[0], name="in5b")
    pool6 = mx.sym.Pooling(in5b, kernel=(7, 7), stride=(1, 1), global_pool=True, pool_type="avg")
    flatten = mx.sym.Flatten(data=pool6)
    drop = mx.sym.Dropout(data=flatten, p=0.4)
    fc1 = mx.sym.FullyConnected(data=drop, num_hidden=num_classes)
    return mx.symbol.SoftmaxOutput(data=fc1, name="softmax")


def _conv_bn_relu(mx, data, num_filter, kernel, stride=(1, 1), pad=(0, 0), name=None, suffix="",
                  fix_gamma=True, eps=1e-5 + 1e-10, bn_mom=0.9):
    conv = mx.symbol.Convolution(data=data, num_filter=num_filter, kernel=kernel, stride=stride, pad=pad,
                                 name="conv_%s%s" % (name, suffix))
    bn = mx.symbol.BatchNorm(data=conv, fix_gamma=fix_gamma, eps=eps, momentum=bn_mom, name="bn_%s%s" % (name, suffix))
    return mx.symbol.Activation(data=bn, act_type="relu", name="relu_%s%s" % (name, suffix))


def _inception_bn_a(mx, data, num_1x1, num_3x3red, num_3x3, num_d3x3red, num_d3x3, pool, proj, name):
    c1x1 = _conv_bn_relu(mx, data, num_1x1, kernel=(1, 1), name="%s_1x1" % name)
    c3x3r = _conv_bn_relu(mx, data, num_3x3red, kernel=(1, 1), name="%s_3x3" % name, suffix="_reduce")
    c3x3 = _conv_bn_relu(mx, c3x3r, num_3x3, kernel=(3, 3), pad=(1, 1), name="%s_3x3" % name)
    cd3x3r = _conv_bn_relu(mx, data, num_d3x3red, kernel=(1, 1), name="%s_double_3x3" % name, suffix="_reduce")
    cd3x3 = _conv_bn_relu(mx, cd3x3r, num_d3x3, kernel=(3, 3), pad=(1, 1), name="%s_double_3x3_0" % name)
    cd3x3 = _conv_bn_relu(mx, cd3x3, num_d3x3, kernel=(3, 3), pad=(1, 1), name="%s_double_3x3_1" % name)
    pooling = mx.symbol.Pooling(data=data, kernel=(3, 3), stride=(1, 1), pad=(1, 1), pool_type=pool,
                                name="%s_pool_%s_pool" % (pool, name))
    cproj = _conv_bn_relu(mx, pooling, proj, kernel=(1, 1), name="%s_proj" % name)
    return mx.symbol.Concat(*[c1x1, c3x3, cd3x3, cproj], name="ch_concat_%s_chconcat" % name)


def _inception_bn_b(mx, data, num_3x3red, num_3x3, num_d3x3red, num_d3x3, name):
    c3x3r = _conv_bn_relu(mx, data, num_3x3red, kernel=(1, 1), name="%s_3x3" % name, suffix="_reduce")
    c3x3 = _conv_bn_relu(mx, c3x3r, num_3x3, kernel=(3, 3), pad=(1, 1), stride=(2, 2), name="%s_3x3" % name)
    cd3x3r = _conv_bn_relu(mx, data, num_d3x3red, kernel=(1, 1), name="%s_double_3x3" % name, suffix="_reduce")
    cd3x3 = _conv_bn_relu(mx, cd3x3r, num_d3x3, kernel=(3, 3), pad=(1, 1), stride=(1, 1),
                          name="%s_double_3x3_0" % name)
    cd3x3 = _conv_bn_relu(mx, cd3x3, num_d3x3, kernel=(3, 3), pad=(1, 1), stride=(2, 2),
                          name="%s_double_3x3_1" % name)
    pooling = mx.symbol.Pooling(data=data, kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="max",
                                name="max_pool_%s_pool" % name)
    return mx.symbol.Concat(*[c3x3, cd3x3, pooling], name="ch_concat_%s_chconcat" % name)


def inception_bn(mx, num_classes=10, divisor=8):
    """Inception with batch normalisation (Ioffe & Szegedy 2015) for ImageNet-sized inputs;
    widths divided by divisor."""
    def w(*widths):
        return [max(n // divisor, 1) for n in widths]
    data = mx.symbol.Variable(name="data")
    conv1 = _conv_bn_relu(mx, data, w(64)[0], kernel=(7, 7), stride=(2, 2), pad=(3, 3), name="1")
    pool1 = mx.symbol.Pooling(data=conv1, kernel=(3, 3), stride=(2, 2), name="pool_1", pool_type="max")
    conv2red = _conv_bn_relu(mx, pool1, w(64)[0], kernel=(1, 1), stride=(1, 1), name="2_red")
    conv2 = _conv_bn_relu(mx, conv2red, w(192)[0], kernel=(3, 3), stride=(1, 1), pad=(1, 1), name="2")
    pool2 = mx.symbol.Pooling(data=conv2, kernel=(3, 3), stride=(2, 2), name="pool_2", pool_type="max")
    in3a = _inception_bn_a(mx, pool2, *w(64, 64, 64, 64, 96), "avg", w(32)[0], "3a")
    in3b = _inception_bn_a(mx, in3a, *w(64, 64, 96, 64, 96), "avg", w(64)[0], "3b")
    in3c = _inception_bn_b(mx, in3b, *w(128, 160, 64, 96), "3c")
    in4a = _inception_bn_a(mx, in3c, *w(224, 64, 96, 96, 128), "avg", w(128)[0], "4a")
    in4b = _inception_bn_a(mx, in4a, *w(192, 96, 128, 96, 128), "avg", w(128)[0], "4b")
    in4c = _inception_bn_a(mx, in4b, *w(160, 128, 160, 128, 160), "avg", w(128)[0], "4c")
    in4d = _inception_bn_a(mx, in4c, *w(96, 128, 192, 160, 192), "avg", w(128)[0], "4d")
    in4e = _inception_bn_b(mx, in4d, *w(128, 192, 192, 256), "4e")
    in5a = _inception_bn_a(mx, in4e, *w(352, 192, 320, 160, 224), "avg", w(128)[0], "5a")
    in5b = _inception_bn_a(mx, in5a, *w(352, 192, 320, 192, 224), "max", w(128)[0], "5b")
    avg = mx.symbol.Pooling(data=in5b, kernel=(7, 7), stride=(1, 1), name="global_pool", pool_type="avg",
                            global_pool=True)
    flatten = mx.symbol.Flatten(data=avg, name="flatten")
    fc1 = mx.symbol.FullyConnected(data=flatten, num_hidden=num_classes, name="fc1")
    return mx.symbol.SoftmaxOutput(data=fc1, name="softmax")


def _conv_v3(mx, data, num_filter, kernel=(1, 1), stride=(1, 1), pad=(0, 0), name=None, suffix=""):
    conv = mx.sym.Convolution(data=data, num_filter=num_filter, kernel=kernel, stride=stride, pad=pad,
                              no_bias=True, name="%s%s_conv2d" % (name, suffix))
    bn = mx.sym.BatchNorm(data=conv, eps=2e-5, name="%s%s_batchnorm" % (name, suffix), fix_gamma=True)
    return mx.sym.Activation(data=bn, act_type="relu", name="%s%s_relu" % (name, suffix))


def _pool_v3(mx, data, pool, name, stride=(1, 1), pad=(1, 1)):
    return mx.sym.Pooling(data=data, kernel=(3, 3), stride=stride, pad=pad, pool_type=pool,
                          name="%s_pool_%s_pool" % (pool, name))


def _inception_v3_a(mx, data, num_1x1, num_3x3_red, num_3x3_1, num_3x3_2, num_5x5_red, num_5x5, pool, proj, name):
    tower_1x1 = _conv_v3(mx, data, num_1x1, name="%s_conv" % name)
    tower_5x5 = _conv_v3(mx, data, num_5x5_red, name="%s_tower" % name, suffix="_conv")
    tower_5x5 = _conv_v3(mx, tower_5x5, num_5x5, kernel=(5, 5), pad=(2, 2), name="%s_tower" % name,
                         suffix="_conv_1")
    tower_3x3 = _conv_v3(mx, data, num_3x3_red, name="%s_tower_1" % name, suffix="_conv")
    tower_3x3 = _conv_v3(mx, tower_3x3, num_3x3_1, kernel=(3, 3), pad=(1, 1), name="%s_tower_1" % name,
                         suffix="_conv_1")
    tower_3x3 = _conv_v3(mx, tower_3x3, num_3x3_2, kernel=(3, 3), pad=(1, 1), name="%s_tower_1" % name,
                         suffix="_conv_2")
    cproj = _conv_v3(mx, _pool_v3(mx, data, pool, name), proj, name="%s_tower_2" % name, suffix="_conv")
    return mx.sym.Concat(*[tower_1x1, tower_5x5, tower_3x3, cproj], name="ch_concat_%s_chconcat" % name)


def _inception_v3_b(mx, data, num_3x3, num_d3x3_red, num_d3x3_1, num_d3x3_2, pool, name):
    """First grid reduction (35 -> 17 at the published 299x299 input)."""
    tower_3x3 = _conv_v3(mx, data, num_3x3, kernel=(3, 3), pad=(0, 0), stride=(2, 2), name="%s_conv" % name)
    tower_d3x3 = _conv_v3(mx, data, num_d3x3_red, name="%s_tower" % name, suffix="_conv")
    tower_d3x3 = _conv_v3(mx, tower_d3x3, num_d3x3_1, kernel=(3, 3), pad=(1, 1), stride=(1, 1),
                          name="%s_tower" % name, suffix="_conv_1")
    tower_d3x3 = _conv_v3(mx, tower_d3x3, num_d3x3_2, kernel=(3, 3), pad=(0, 0), stride=(2, 2),
                          name="%s_tower" % name, suffix="_conv_2")
    pooling = _pool_v3(mx, data, pool, name, stride=(2, 2), pad=(0, 0))
    return mx.sym.Concat(*[tower_3x3, tower_d3x3, pooling], name="ch_concat_%s_chconcat" % name)


def _inception_v3_c(mx, data, num_1x1, num_d7_red, num_d7_1, num_d7_2, num_q7_red, num_q7_1, num_q7_2,
                    num_q7_3, num_q7_4, pool, proj, name):
    """Factorised 7x7 convolutions (1x7 then 7x1)."""
    tower_1x1 = _conv_v3(mx, data=data, num_filter=num_1x1, kernel=(1, 1), name="%s_conv" % name)
    tower_d7 = _conv_v3(mx, data=data, num_filter=num_d7_red, name="%s_tower" % name, suffix="_conv")
    tower_d7 = _conv_v3(mx, data=tower_d7, num_filter=num_d7_1, kernel=(1, 7), pad=(0, 3),
                        name="%s_tower" % name, suffix="_conv_1")
    tower_d7 = _conv_v3(mx, data=tower_d7, num_filter=num_d7_2, kernel=(7, 1), pad=(3, 0),
                        name="%s_tower" % name, suffix="_conv_2")
    tower_q7 = _conv_v3(mx, data=data, num_filter=num_q7_red, name="%s_tower_1" % name, suffix="_conv")
    for i, (n, kernel, pad) in enumerate([(num_q7_1, (7, 1), (3, 0)), (num_q7_2, (1, 7), (0, 3)),
                                          (num_q7_3, (7, 1), (3, 0)), (num_q7_4, (1, 7), (0, 3))]):
        tower_q7 = _conv_v3(mx, data=tower_q7, num_filter=n, kernel=kernel, pad=pad, name="%s_tower_1" % name,
                            suffix="_conv_%d" % (i + 1))
    cproj = _conv_v3(mx, data=_pool_v3(mx, data, pool, name), num_filter=proj, kernel=(1, 1),
                     name="%s_tower_2" % name, suffix="_conv")
    return mx.sym.Concat(*[tower_1x1, tower_d7, tower_q7, cproj], name="ch_concat_%s_chconcat" % name)


def _inception_v3_d(mx, data, num_3x3_red, num_3x3, num_d7_3x3_red, num_d7_1, num_d7_2, num_d7_3x3, pool, name):
    """Second grid reduction (17 -> 8 at 299x299)."""
    tower_3x3 = _conv_v3(mx, data=data, num_filter=num_3x3_red, name="%s_tower" % name, suffix="_conv")
    tower_3x3 = _conv_v3(mx, data=tower_3x3, num_filter=num_3x3, kernel=(3, 3), pad=(0, 0), stride=(2, 2),
                         name="%s_tower" % name, suffix="_conv_1")
    tower_d7_3x3 = _conv_v3(mx, data=data, num_filter=num_d7_3x3_red, name="%s_tower_1" % name, suffix="_conv")
    tower_d7_3x3 = _conv_v3(mx, data=tower_d7_3x3, num_filter=num_d7_1, kernel=(1, 7), pad=(0, 3),
                            name="%s_tower_1" % name, suffix="_conv_1")
    tower_d7_3x3 = _conv_v3(mx, data=tower_d7_3x3, num_filter=num_d7_2, kernel=(7, 1), pad=(3, 0),
                            name="%s_tower_1" % name, suffix="_conv_2")
    tower_d7_3x3 = _conv_v3(mx, data=tower_d7_3x3, num_filter=num_d7_3x3, kernel=(3, 3), stride=(2, 2),
                            name="%s_tower_1" % name, suffix="_conv_3")
    pooling = _pool_v3(mx, data, pool, name, stride=(2, 2), pad=(0, 0))
    return mx.sym.Concat(*[tower_3x3, tower_d7_3x3, pooling], name="ch_concat_%s_chconcat" % name)


def _inception_v3_e(mx, data, num_1x1, num_d3_red, num_d3_1, num_d3_2, num_3x3_d3_red, num_3x3, num_3x3_d3_1,
                    num_3x3_d3_2, pool, proj, name):
    """Expanded filter bank: 1x3 and 3x1 branches side by side."""
    tower_1x1 = _conv_v3(mx, data=data, num_filter=num_1x1, kernel=(1, 1), name="%s_conv" % name)
    tower_d3 = _conv_v3(mx, data=data, num_filter=num_d3_red, name="%s_tower" % name, suffix="_conv")
    tower_d3_a = _conv_v3(mx, data=tower_d3, num_filter=num_d3_1, kernel=(1, 3), pad=(0, 1),
                          name="%s_tower" % name, suffix="_mixed_conv")
    tower_d3_b = _conv_v3(mx, data=tower_d3, num_filter=num_d3_2, kernel=(3, 1), pad=(1, 0),
                          name="%s_tower" % name, suffix="_mixed_conv_1")
    tower_3x3_d3 = _conv_v3(mx, data=data, num_filter=num_3x3_d3_red, name="%s_tower_1" % name, suffix="_conv")
    tower_3x3_d3 = _conv_v3(mx, data=tower_3x3_d3, num_filter=num_3x3, kernel=(3, 3), pad=(1, 1),
                            name="%s_tower_1" % name, suffix="_conv_1")
    tower_3x3_d3_a = _conv_v3(mx, data=tower_3x3_d3, num_filter=num_3x3_d3_1, kernel=(1, 3), pad=(0, 1),
                              name="%s_tower_1" % name, suffix="_mixed_conv")
    tower_3x3_d3_b = _conv_v3(mx, data=tower_3x3_d3, num_filter=num_3x3_d3_2, kernel=(3, 1), pad=(1, 0),
                              name="%s_tower_1" % name, suffix="_mixed_conv_1")
    cproj = _conv_v3(mx, data=_pool_v3(mx, data, pool, name), num_filter=proj, kernel=(1, 1),
                     name="%s_tower_2" % name, suffix="_conv")
    return mx.sym.Concat(*[tower_1x1, tower_d3_a, tower_d3_b, tower_3x3_d3_a, tower_3x3_d3_b, cproj],
                         name="ch_concat_%s_chconcat" % name)


def inception_v3(mx, num_classes=10, divisor=16):
    """Inception-v3 (Szegedy et al. 2015), widths divided by divisor. At the published 299x299
    input the grids are 35, 17 and 8; the smallest input the valid-convention poolings allow is
    75x75 (grids 7, 3 and 1), hence the global (not 8x8) final pooling."""
    def w(*widths):
        return [max(n // divisor, 1) for n in widths]
    data = mx.sym.Variable(name="data")
    # stage 1
    conv = _conv_v3(mx, data, w(32)[0], kernel=(3, 3), stride=(2, 2), name="conv")
    conv_1 = _conv_v3(mx, conv, w(32)[0], kernel=(3, 3), name="conv_1")
    conv_2 = _conv_v3(mx, conv_1, w(64)[0], kernel=(3, 3), pad=(1, 1), name="conv_2")
    pool = mx.sym.Pooling(data=conv_2, kernel=(3, 3), stride=(2, 2), pool_type="max", name="pool")
    # stage 2
    conv_3 = _conv_v3(mx, pool, w(80)[0], kernel=(1, 1), name="conv_3")
    conv_4 = _conv_v3(mx, conv_3, w(192)[0], kernel=(3, 3), name="conv_4")
    pool1 = mx.sym.Pooling(data=conv_4, kernel=(3, 3), stride=(2, 2), pool_type="max", name="pool1")
    # stage 3
    in3a = _inception_v3_a(mx, pool1, *w(64, 64, 96, 96, 48, 64), "avg", w(32)[0], "mixed")
    in3b = _inception_v3_a(mx, in3a, *w(64, 64, 96, 96, 48, 64), "avg", w(64)[0], "mixed_1")
    in3c = _inception_v3_a(mx, in3b, *w(64, 64, 96, 96, 48, 64), "avg", w(64)[0], "mixed_2")
    in3d = _inception_v3_b(mx, in3c, *w(384, 64, 96, 96), "max", "mixed_3")
    # stage 4
    in4a = _inception_v3_c(mx, in3d, *w(192, 128, 128, 192, 128, 128, 128, 128, 192), "avg", w(192)[0], "mixed_4")
    in4b = _inception_v3_c(mx, in4a, *w(192, 160, 160, 192, 160, 160, 160, 160, 192), "avg", w(192)[0], "mixed_5")
    in4c = _inception_v3_c(mx, in4b, *w(192, 160, 160, 192, 160, 160, 160, 160, 192), "avg", w(192)[0], "mixed_6")
    in4d = _inception_v3_c(mx, in4c, *w(192, 192, 192, 192, 192, 192, 192, 192, 192), "avg", w(192)[0], "mixed_7")
    in4e = _inception_v3_d(mx, in4d, *w(192, 320, 192, 192, 192, 192), "max", "mixed_8")
    # stage 5
    in5a = _inception_v3_e(mx, in4e, *w(320, 384, 384, 384, 448, 384, 384, 384), "avg", w(192)[0], "mixed_9")
    in5b = _inception_v3_e(mx, in5a, *w(320, 384, 384, 384, 448, 384, 384, 384), "max", w(192)[0], "mixed_10")
    # pool
    pool = mx.sym.Pooling(data=in5b, kernel=(8, 8), stride=(1, 1), global_pool=True, pool_type="avg",
                          name="global_pool")
    flatten = mx.sym.Flatten(data=pool, name="flatten")
    fc1 = mx.sym.FullyConnected(data=flatten, num_hidden=num_classes, name="fc1")
    return mx.sym.SoftmaxOutput(data=fc1, name="softmax")


def _conv_mobile(mx, data, num_filter=1, kernel=(1, 1), stride=(1, 1), pad=(0, 0), num_group=1, name=None,
                 suffix=""):
    conv = mx.sym.Convolution(data=data, num_filter=num_filter, kernel=kernel, num_group=num_group, stride=stride,
                              pad=pad, no_bias=True, name="%s%s_conv2d" % (name, suffix))
    bn = mx.sym.BatchNorm(data=conv, name="%s%s_batchnorm" % (name, suffix), fix_gamma=True)
    return mx.sym.Activation(data=bn, act_type="relu", name="%s%s_relu" % (name, suffix))


# MobileNet v1 (Howard et al. 2017): after the first full 3x3 convolution, (output width,
# stride) of each depthwise-separable block (a 3x3 depthwise convolution, then a 1x1 one)
MOBILENET_BLOCKS = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1), (512, 1), (512, 1),
                    (512, 1), (512, 1), (1024, 2), (1024, 1)]


def mobilenet(mx, num_classes=10, alpha=0.25):
    data = mx.sym.Variable(name="data")
    width = int(32 * alpha)
    body = _conv_mobile(mx, data, num_filter=width, kernel=(3, 3), pad=(1, 1), stride=(2, 2), name="conv_1")
    for i, (out, stride) in enumerate(MOBILENET_BLOCKS):
        # depthwise: one group per channel
        body = _conv_mobile(mx, body, num_group=width, num_filter=width, kernel=(3, 3), pad=(1, 1),
                            stride=(stride, stride), name="conv_%d_dw" % (i + 2))
        width = int(out * alpha)
        body = _conv_mobile(mx, body, num_filter=width, kernel=(1, 1), pad=(0, 0), stride=(1, 1),
                            name="conv_%d" % (i + 2))
    pool = mx.sym.Pooling(data=body, kernel=(7, 7), global_pool=True, pool_type="avg", name="pool")
    flatten = mx.sym.Flatten(data=pool, name="flatten")
    fc = mx.sym.FullyConnected(data=flatten, num_hidden=num_classes, name="fc")
    return mx.sym.SoftmaxOutput(data=fc, name="softmax")


def _resnext_unit(mx, data, num_filter, stride, dim_match, name, num_group=32, bn_mom=0.9, workspace=256):
    """A ResNeXt bottleneck (Xie et al. 2016): 1x1, grouped 3x3 (cardinality num_group), 1x1."""
    conv1 = mx.sym.Convolution(data=data, num_filter=int(num_filter * 0.5), kernel=(1, 1), stride=(1, 1),
                               pad=(0, 0), no_bias=True, workspace=workspace, name=name + "_conv1")
    bn1 = mx.sym.BatchNorm(data=conv1, fix_gamma=False, eps=2e-5, momentum=bn_mom, name=name + "_bn1")
    act1 = mx.sym.Activation(data=bn1, act_type="relu", name=name + "_relu1")
    conv2 = mx.sym.Convolution(data=act1, num_filter=int(num_filter * 0.5), num_group=num_group, kernel=(3, 3),
                               stride=stride, pad=(1, 1), no_bias=True, workspace=workspace, name=name + "_conv2")
    bn2 = mx.sym.BatchNorm(data=conv2, fix_gamma=False, eps=2e-5, momentum=bn_mom, name=name + "_bn2")
    act2 = mx.sym.Activation(data=bn2, act_type="relu", name=name + "_relu2")
    conv3 = mx.sym.Convolution(data=act2, num_filter=num_filter, kernel=(1, 1), stride=(1, 1), pad=(0, 0),
                               no_bias=True, workspace=workspace, name=name + "_conv3")
    bn3 = mx.sym.BatchNorm(data=conv3, fix_gamma=False, eps=2e-5, momentum=bn_mom, name=name + "_bn3")
    if dim_match:
        shortcut = data
    else:
        shortcut_conv = mx.sym.Convolution(data=data, num_filter=num_filter, kernel=(1, 1), stride=stride,
                                           no_bias=True, workspace=workspace, name=name + "_sc")
        shortcut = mx.sym.BatchNorm(data=shortcut_conv, fix_gamma=False, eps=2e-5, momentum=bn_mom,
                                    name=name + "_sc_bn")
    return mx.sym.Activation(data=bn3 + shortcut, act_type="relu", name=name + "_relu")


def resnext(mx, units=(1, 1, 1, 1), filters=(16, 64, 128, 256, 512), num_classes=10, num_group=32, bn_mom=0.9,
            workspace=256):
    data = mx.sym.Variable(name="data")
    data = mx.sym.BatchNorm(data=data, fix_gamma=True, eps=2e-5, momentum=bn_mom, name="bn_data")
    body = mx.sym.Convolution(data=data, num_filter=filters[0], kernel=(7, 7), stride=(2, 2), pad=(3, 3),
                              no_bias=True, name="conv0", workspace=workspace)
    body = mx.sym.BatchNorm(data=body, fix_gamma=False, eps=2e-5, momentum=bn_mom, name="bn0")
    body = mx.sym.Activation(data=body, act_type="relu", name="relu0")
    body = mx.sym.Pooling(data=body, kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="max")
    for i, n in enumerate(units):
        stride = (1, 1) if i == 0 else (2, 2)
        body = _resnext_unit(mx, body, filters[i + 1], stride, False, name="stage%d_unit%d" % (i + 1, 1),
                             num_group=num_group, bn_mom=bn_mom, workspace=workspace)
        for j in range(n - 1):
            body = _resnext_unit(mx, body, filters[i + 1], (1, 1), True, name="stage%d_unit%d" % (i + 1, j + 2),
                                 num_group=num_group, bn_mom=bn_mom, workspace=workspace)
    pool1 = mx.sym.Pooling(data=body, global_pool=True, kernel=(7, 7), pool_type="avg", name="pool1")
    flat = mx.sym.Flatten(data=pool1)
    fc1 = mx.sym.FullyConnected(data=flat, num_hidden=num_classes, name="fc1")
    return mx.sym.SoftmaxOutput(data=fc1, name="softmax")


def vgg11(mx):
    return vgg(mx, num_layers=11)


def vgg16_bn(mx):
    return vgg(mx, num_layers=16, batch_norm=True)


BUILDERS = {"mlp": mlp, "lenet": lenet, "resnet": resnet, "alexnet": alexnet, "vgg11": vgg11, "vgg16_bn": vgg16_bn,
            "googlenet": googlenet, "inception_bn": inception_bn, "inception_v3": inception_v3,
            "mobilenet": mobilenet, "resnext": resnext}
# the input each builder's network takes at a small size it allows (test_classic_symbols.py binds
# and runs the symnet graphs at these shapes); two samples, as a training-mode BatchNorm over
# inception-v3's final 1x1 grids needs more than one value per channel
INPUT_SHAPES = {"mlp": (2, 1, 28, 28), "lenet": (2, 1, 28, 28), "resnet": (2, 3, 64, 64),
                "alexnet": (2, 3, 67, 67), "vgg11": (2, 3, 32, 32), "vgg16_bn": (2, 3, 32, 32),
                "googlenet": (2, 3, 64, 64), "inception_bn": (2, 3, 64, 64), "inception_v3": (2, 3, 75, 75),
                "mobilenet": (2, 3, 64, 64), "resnext": (2, 3, 64, 64)}
