#!/usr/bin/env python3
"""An MXNet 1.x training script, written the way MXNet's image-classification examples are, that
runs unchanged on symnet: only the import differs (`import symnet as mx`; with
`--mxnet`, the same file runs on MXNet itself for comparison).

LeNet on the built-in digits .rec files (example/resnet50/digits_data.py): ImageRecordIter,
Module.fit with Xavier, MultiFactorScheduler, Speedometer, do_checkpoint, a composite metric,
then load_checkpoint + score.

    python3 example/mxnet_style/fit_lenet.py [--data-dir build/resnet50_example/data] [--num-epochs 4]
"""
import argparse
import logging
import os
import sys

parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("--data-dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "build",
                                                       "resnet50_example", "data"))
parser.add_argument("--num-epochs", type=int, default=4)
parser.add_argument("--batch-size", type=int, default=32)
parser.add_argument("--lr", type=float, default=0.05)
parser.add_argument("--model-prefix", default=None)
parser.add_argument("--kv-store", default="local")
parser.add_argument("--mxnet", action="store_true", help="run on MXNet instead of symnet")
args = parser.parse_args()

if args.mxnet:
    import mxnet as mx
else:
    import symnet as mx

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")


def get_lenet(num_classes=10):
    data = mx.sym.Variable("data")
    conv1 = mx.sym.Convolution(data=data, kernel=(5, 5), num_filter=20)
    tanh1 = mx.sym.Activation(data=conv1, act_type="tanh")
    pool1 = mx.sym.Pooling(data=tanh1, pool_type="max", kernel=(2, 2), stride=(2, 2))
    conv2 = mx.sym.Convolution(data=pool1, kernel=(5, 5), num_filter=50)
    tanh2 = mx.sym.Activation(data=conv2, act_type="tanh")
    pool2 = mx.sym.Pooling(data=tanh2, pool_type="max", kernel=(2, 2), stride=(2, 2))
    flatten = mx.sym.flatten(data=pool2)
    fc1 = mx.sym.FullyConnected(data=flatten, num_hidden=500)
    tanh3 = mx.sym.Activation(data=fc1, act_type="tanh")
    fc2 = mx.sym.FullyConnected(data=tanh3, num_hidden=num_classes)
    return mx.sym.SoftmaxOutput(data=fc2, name="softmax")


def get_rec_iter(path, shuffle):
    return mx.io.ImageRecordIter(path_imgrec=path, label_width=1, data_name="data",
                                 label_name="softmax_label", data_shape=(3, 32, 32),
                                 batch_size=args.batch_size, shuffle=shuffle,
                                 mean_r=123.68, mean_g=116.779, mean_b=103.939,
                                 std_r=58.393, std_g=57.12, std_b=57.375, preprocess_threads=2)


train = get_rec_iter(os.path.join(args.data_dir, "digits_32_train.rec"), True)
val = get_rec_iter(os.path.join(args.data_dir, "digits_32_val.rec"), False)
kv = mx.kvstore.create(args.kv_store)
epoch_size = 1438 // args.batch_size
lr_scheduler = mx.lr_scheduler.MultiFactorScheduler(step=[2 * epoch_size, 3 * epoch_size], factor=0.1)
model = mx.mod.Module(context=mx.cpu(), symbol=get_lenet())
eval_metrics = mx.metric.create(["accuracy"])
eval_metrics.add(mx.metric.create("top_k_accuracy", top_k=3))
checkpoint = mx.callback.do_checkpoint(args.model_prefix) if args.model_prefix else None
model.fit(train, begin_epoch=0, num_epoch=args.num_epochs, eval_data=val, eval_metric=eval_metrics,
          kvstore=kv, optimizer="sgd",
          optimizer_params={"learning_rate": args.lr, "momentum": 0.9, "wd": 1e-4,
                            "lr_scheduler": lr_scheduler, "multi_precision": True},
          initializer=mx.init.Xavier(rnd_type="gaussian", factor_type="in", magnitude=2),
          batch_end_callback=[mx.callback.Speedometer(args.batch_size, 20)],
          epoch_end_callback=checkpoint, allow_missing=True)

if args.model_prefix:
    sym, arg_params, aux_params = mx.model.load_checkpoint(args.model_prefix, args.num_epochs)
    scored = mx.mod.Module(symbol=sym, context=mx.cpu())
    scored.bind(for_training=False, data_shapes=val.provide_data, label_shapes=val.provide_label)
    scored.set_params(arg_params, aux_params)
    res = dict(scored.score(val, mx.metric.Accuracy()))
    print("reloaded epoch %d: validation accuracy %.4f" % (args.num_epochs, res["accuracy"]))
    sys.exit(0 if res["accuracy"] > 0.5 else 1)
