#!/usr/bin/env python3
"""Writes MXNet 1.9.1's reference for Gluon model-zoo networks, for
tests/python/test_gluon_model_zoo_parity.py (which runs this under the MXNet venv that
tools/run_tests.sh makes).

    build/mxnet-venv/bin/python tests/mxnet_parity/make_zoo_reference.py resnet18_v1 OUT
    build/mxnet-venv/bin/python tests/mxnet_parity/make_zoo_reference.py --serve ROOT NAME...

OUT gets gluon.params (MXNet's save_parameters: structural names), export-symbol.json and
export-0000.params (MXNet's export: prefixed names), names.json (structural -> prefixed) and
ref.npz in make_references.py's format: the input, the inference output, the head gradient, the
training-mode output, each parameter's gradient (a fixed sample of entries for large ones) and
the BatchNorm running statistics after the training forward.
Dropout rates are set to 0 before anything runs (the training check must be deterministic), so
the exported graph of a network with Dropout carries identity ops in their place.

--serve writes ROOT/NAME for each network in turn, at most AHEAD of them waiting to be read (the
test deletes each when done): MXNet works on the next network while symnet checks this one, and
all 34 networks' parameter files (several GB together) never exist at once. A network MXNet
fails on gets ROOT/NAME.failed with the error instead.
"""
import json
import os
import sys
import time
import traceback

import numpy as np

import mxnet as mx
from mxnet import autograd
from mxnet.gluon import nn
from mxnet.gluon.model_zoo import vision

from make_references import store_gradient  # the same reference format



def input_shape(name):
    """Small inputs keep CI fast; DenseNet and SqueezeNet end in fixed 7x7 / 13x13 average pools
    and Inception v3 in an 8x8 one, which fix their input sizes."""
    if name.startswith(("densenet", "squeezenet")):
        return (1, 3, 224, 224)
    if name == "inceptionv3":
        return (1, 3, 299, 299)
    if name.startswith("vgg"):  # 2x2 maps in the last stage at 32x32 already, as ResNet's at 64
        return (2, 3, 32, 32)
    return (2, 3, 64, 64)


def dropout_off(block):
    if isinstance(block, nn.Dropout):
        block._rate = 0.0
    for child in block._children.values():
        dropout_off(child)


def main(name, out):
    os.makedirs(out, exist_ok=True)
    seed = sum(ord(c) for c in name)
    mx.random.seed(seed)
    rng = np.random.RandomState(seed)
    with mx.name.NameManager():  # names as a fresh process gives them (resnetv10_)
        net = vision.get_model(name, classes=10)
    dropout_off(net)
    net.initialize(mx.init.Xavier(rnd_type="gaussian", magnitude=2))
    x = mx.nd.array(rng.uniform(-1, 1, input_shape(name)).astype(np.float32))
    net(x)  # finishes deferred initialisation
    params = net.collect_params()
    for pname, p in params.items():
        # non-trivial BatchNorm state, so inference and training modes differ visibly
        shape = p.shape
        if pname.endswith("running_mean") or pname.endswith("beta"):
            p.set_data(mx.nd.array(rng.uniform(-0.2, 0.2, shape)))
        elif pname.endswith("running_var") or pname.endswith("gamma"):
            p.set_data(mx.nd.array(rng.uniform(0.6, 1.4, shape)))
    net.save_parameters(os.path.join(out, "gluon.params"))
    net.hybridize()
    y_inf = net(x)
    net.export(os.path.join(out, "export"), 0)

    # the keys of make_references.py's ref.npz, with Gluon's structural parameter names
    ref = {"input:data": x.asnumpy(), "out_infer:0": y_inf.asnumpy()}
    head = rng.uniform(-1, 1, y_inf.shape).astype(np.float32)
    with autograd.record(train_mode=True):
        y = net(x)
    y.backward(mx.nd.array(head))
    ref["out_train:0"], ref["head_grad:0"] = y.asnumpy(), head
    structural = net._collect_params_with_prefix()
    for key, p in structural.items():
        if key.endswith(("running_mean", "running_var")):  # after the training forward
            ref["aux:" + key] = p.data().asnumpy()
            continue
        if p.grad_req == "null":  # the unused gamma/beta of BatchNorm(scale/center=False)
            continue
        store_gradient(ref, key, p.grad().asnumpy(), rng)
    np.savez(os.path.join(out, "ref.npz"), **ref)
    with open(os.path.join(out, "names.json"), "w") as f:
        json.dump({k: p.name for k, p in structural.items()}, f)
    print("reference %s: %d parameters, input %s" % (name, len(structural), x.shape))


AHEAD = 2


def serve(root, names):
    for name in names:
        while sum(not n.endswith((".partial", ".failed")) for n in os.listdir(root)) >= AHEAD:
            if os.getppid() == 1:  # the test process is gone
                return
            time.sleep(0.02)
        part = os.path.join(root, name + ".partial")
        try:
            main(name, part)
        except Exception:  # reported to the test of this network; the others still run
            with open(os.path.join(root, name + ".failed"), "w") as f:
                f.write(traceback.format_exc())
            continue
        os.rename(part, os.path.join(root, name))


if __name__ == "__main__":
    if sys.argv[1] == "--serve":
        serve(sys.argv[2], sys.argv[3:])
    else:
        main(sys.argv[1], sys.argv[2])
