"""MXNet 1.9.1's package tree in symnet: the modules io/, optimizer/, kvstore/, image/ (with
detection.py), visualization, attribute, engine, libinfo and gluon.model_zoo.model_store exist
under MXNet's names with every name MXNet defines in them (and the private names libraries such
as GluonCV, GluonNLP, d2l and insightface import); AttrScope reaches every symbol created in its
block; Module's group2ctxs places a CPU ctx_group's gradients; NDArrayIter counts the first data
array's samples; the detection augmenters and ImageDetIter give MXNet's labels; imrotate,
copyMakeBorder, MNISTIter and LBSGD work as MXNet's."""
import importlib
import os
import random
import struct
import warnings

import numpy as np
import pytest

import symnet as mx

# the names each MXNet 1.9.1 module defines (dir() of the module, less what it imports from
# elsewhere), as `python -c "import mxnet"` lists them
MXNET_NAMES = {
    "io": "CSVIter DataBatch DataDesc DataIter ImageDetRecordIter ImageRecordInt8Iter ImageRecordIter "
          "ImageRecordIter_v1 ImageRecordUInt8Iter ImageRecordUInt8Iter_v1 LibSVMIter MNISTIter MXDataIter "
          "NDArrayIter PrefetchingIter ResizeIter io utils",
    "io.io": "CSVIter DataBatch DataDesc DataIter ImageDetRecordIter ImageRecordInt8Iter ImageRecordIter "
             "ImageRecordIter_v1 ImageRecordUInt8Iter ImageRecordUInt8Iter_v1 LibSVMIter MNISTIter MXDataIter "
             "NDArrayIter PrefetchingIter ResizeIter",
    "io.utils": "",
    "optimizer": "AdaDelta AdaGrad Adam Adamax DCASGD FTML Ftrl LAMB LARS LBSGD NAG Nadam Optimizer RMSProp SGD SGLD "
                 "Signum Test Updater ccSGD contrib create get_updater optimizer register NDabs",
    "optimizer.optimizer": "AdaDelta AdaGrad Adam Adamax DCASGD FTML Ftrl LAMB LARS LBSGD NAG Nadam Optimizer "
                           "RMSProp SGD SGLD Signum Test Updater ccSGD create get_updater register NDabs",
    "optimizer.contrib": "GroupAdaGrad",
    "kvstore": "KVStore KVStoreBase KVStoreServer base create kvstore kvstore_server",
    "kvstore.base": "KVStoreBase TestStore create",
    "kvstore.kvstore": "KVStore",
    "kvstore.kvstore_server": "KVStoreServer",
    "image": "Augmenter BrightnessJitterAug CastAug CenterCropAug ColorJitterAug ColorNormalizeAug ContrastJitterAug "
             "CreateAugmenter CreateDetAugmenter CreateMultiRandCropAugmenter DetAugmenter DetBorrowAug "
             "DetHorizontalFlipAug DetRandomCropAug DetRandomPadAug DetRandomSelectAug ForceResizeAug "
             "HorizontalFlipAug HueJitterAug ImageDetIter ImageIter LightingAug RandomCropAug RandomGrayAug "
             "RandomOrderAug RandomSizedCropAug ResizeAug SaturationJitterAug SequentialAug center_crop "
             "color_normalize copyMakeBorder det detection fixed_crop image imdecode imread imresize imrotate "
             "random_crop random_rotate random_size_crop resize_short scale_down",
    "image.image": "Augmenter BrightnessJitterAug CastAug CenterCropAug ColorJitterAug ColorNormalizeAug "
                   "ContrastJitterAug CreateAugmenter ForceResizeAug HorizontalFlipAug HueJitterAug ImageIter "
                   "LightingAug RandomCropAug RandomGrayAug RandomOrderAug RandomSizedCropAug ResizeAug "
                   "SaturationJitterAug SequentialAug center_crop color_normalize copyMakeBorder fixed_crop imdecode "
                   "imread imresize imrotate random_crop random_rotate random_size_crop resize_short scale_down",
    "image.detection": "CreateDetAugmenter CreateMultiRandCropAugmenter DetAugmenter DetBorrowAug "
                       "DetHorizontalFlipAug DetRandomCropAug DetRandomPadAug DetRandomSelectAug ImageDetIter",
    "visualization": "plot_network print_summary",
    "attribute": "AttrScope",
    "engine": "bulk set_bulk_size",
    "libinfo": "find_conf_path find_include_path find_lib_path __version__",
    "gluon.model_zoo": "model_store vision",
    "gluon.model_zoo.model_store": "get_model_file purge short_hash",
    "gluon.contrib.estimator": "BatchBegin BatchEnd BatchProcessor CheckpointHandler EarlyStoppingHandler EpochBegin "
                               "EpochEnd Estimator GradientUpdateHandler LoggingHandler MetricHandler StoppingHandler "
                               "TrainBegin TrainEnd ValidationHandler batch_processor estimator event_handler utils",
    "gluon.contrib.estimator.estimator": "Estimator",
    "gluon.contrib.estimator.event_handler": "BatchBegin BatchEnd CheckpointHandler EarlyStoppingHandler EpochBegin "
                                             "EpochEnd EventHandler GradientUpdateHandler LoggingHandler MetricHandler "
                                             "StoppingHandler TrainBegin TrainEnd ValidationHandler",
    "gluon.contrib.estimator.batch_processor": "BatchProcessor",
    # (MXNet's gluon.contrib also has cnn: deformable convolution layers)
    "gluon.contrib": "data estimator nn rnn",
    "gluon.contrib.data": "IntervalSampler sampler text",
    "gluon.contrib.data.sampler": "IntervalSampler",
    "gluon.contrib.data.text": "WikiText103 WikiText2",
    "callback": "LogValidationMetricsCallback ProgressBar Speedometer do_checkpoint log_train_metric module_checkpoint",
    "initializer": "Bilinear Constant FusedRNN InitDesc Initializer LSTMBias Load MSRAPrelu Mixed Normal One "
                   "Orthogonal Uniform Xavier Zero register string_types",
    "model": "BatchEndParam FeedForward load_checkpoint load_params save_checkpoint",
    "gluon.nn": "Activation AvgPool1D AvgPool2D AvgPool3D BatchNorm BatchNormReLU Conv1D Conv1DTranspose Conv2D "
                "Conv2DTranspose Conv3D Conv3DTranspose Dense Dropout ELU Embedding Flatten GELU GlobalAvgPool1D "
                "GlobalAvgPool2D GlobalAvgPool3D GlobalMaxPool1D GlobalMaxPool2D GlobalMaxPool3D GroupNorm "
                "HybridLambda HybridSequential InstanceNorm Lambda LayerNorm LeakyReLU MaxPool1D MaxPool2D "
                "MaxPool3D PReLU ReflectionPad2D SELU Sequential Swish activations basic_layers conv_layers",
    "gluon.nn.conv_layers": "AvgPool1D AvgPool2D AvgPool3D Conv1D Conv1DTranspose Conv2D Conv2DTranspose Conv3D "
                            "Conv3DTranspose GlobalAvgPool1D GlobalAvgPool2D GlobalAvgPool3D GlobalMaxPool1D "
                            "GlobalMaxPool2D GlobalMaxPool3D MaxPool1D MaxPool2D MaxPool3D ReflectionPad2D "
                            "numeric_types",
    "gluon.nn.activations": "Activation ELU GELU LeakyReLU PReLU SELU Swish",
    "operator": "CustomOp CustomOpProp NDArrayOp NumpyOp OperatorArguments PythonOp get_all_registered_operators "
                "get_operator_arguments register",
    "contrib": "amp autograd io nd ndarray sym symbol tensorboard text",
    "contrib.tensorboard": "LogMetricsCallback",
    "contrib.io": "DataDesc DataIter DataLoaderIter",
    # the contrib operators symnet registers (MXNet 1.9.1 has 56 more: deformable convolution,
    # quantization, DGL graph, fft, interleaved attention matmuls, ...)
    "contrib.ndarray": "BatchNormWithReLU BilinearResize2D CTCLoss MultiBoxDetection MultiBoxPrior MultiBoxTarget "
                       "MultiProposal Proposal ROIAlign SyncBatchNorm bipartite_matching box_iou box_nms "
                       "box_non_maximum_suppression ctc_loss",
    "contrib.symbol": "BatchNormWithReLU BilinearResize2D CTCLoss MultiBoxDetection MultiBoxPrior MultiBoxTarget "
                      "MultiProposal Proposal ROIAlign SyncBatchNorm bipartite_matching box_iou box_nms "
                      "box_non_maximum_suppression ctc_loss",
    "contrib.autograd": "NDArray TrainingStateScope backward compute_gradient grad grad_and_loss mark_variables "
                        "set_is_training string_types test_section train_section zeros_like",
    "contrib.text": "embedding utils vocab",
    "contrib.text.vocab": "Vocabulary",
    "contrib.text.embedding": "CompositeEmbedding CustomEmbedding FastText GloVe create get_pretrained_file_names "
                              "register",
    "contrib.text.utils": "count_tokens_from_str",
    "rtc": "CudaKernel CudaModule numeric_types string_types",
    "executor_manager": "DataParallelExecutorGroup DataParallelExecutorManager",
    # top-level names of these modules
    "": "AttrScope attribute engine libinfo visualization viz io optimizer kvstore kv image rtc executor_manager",
}

# private names well-known libraries import from these modules
PRIVATE_NAMES = {
    "image.image": "_get_interp_method",
    "io": "_init_data _getdata_by_idx _has_instance",
    "io.utils": "_init_data _getdata_by_idx _has_instance",
    "io.io": "DataDesc DataBatch DataIter",
    "gluon.model_zoo.model_store": "get_model_file purge _model_sha1 apache_repo_url",
    "gluon.contrib.estimator.event_handler": "_check_event_handlers",
    "contrib.text.embedding": "_TokenEmbedding",
    "contrib.text": "_constants",
    "gluon.contrib.data": "_constants",
    "gluon.contrib.data.text": "C _LanguageModelDataset _WikiText _get_repo_file_url check_sha1 download",
    "executor_manager": "_split_input_slice _check_arguments _load_data _load_label _load_general _bind_exec",
    "gluon.contrib.estimator.utils": "_check_metrics _check_handler_metric_ref _suggest_metric_for_loss",
}


@pytest.mark.parametrize("module", sorted(set(MXNET_NAMES) | set(PRIVATE_NAMES)))
def test_every_mxnet_name_of_the_module_exists(module):
    mod = importlib.import_module("symnet." + module if module else "symnet")
    names = (MXNET_NAMES.get(module, "") + " " + PRIVATE_NAMES.get(module, "")).split()
    missing = [n for n in names if not hasattr(mod, n)]
    assert not missing, "symnet.%s lacks MXNet 1.9.1's %s" % (module, missing)


def test_package_layout_and_aliases():
    import symnet.viz

    assert mx.viz is mx.visualization is symnet.viz
    assert mx.image.det is mx.image.detection
    assert mx.io.io.NDArrayIter is mx.io.NDArrayIter and mx.io.io.DataDesc is mx.io.DataDesc
    assert mx.optimizer.optimizer.Optimizer is mx.optimizer.Optimizer
    assert mx.kvstore.kvstore.KVStore is mx.kv.KVStore and type(mx.kv.create("local")) is mx.kvstore.kvstore.KVStore
    assert isinstance(mx.kv.create("teststore"), mx.kvstore.base.TestStore)
    assert mx.optimizer.NDabs is mx.nd.abs
    for old in ("_io_extra", "_optimizers_extra", "_optimizer_contrib", "_image_aug", "_image_iter",
                "_image_resize", "_network_view"):
        with pytest.raises(ImportError):
            importlib.import_module("symnet." + old)
    with pytest.raises(mx.MXNetError, match="no parameter server"):
        mx.kvstore.KVStoreServer(mx.kv.create("local")).run()


# ---- AttrScope -------------------------------------------------------------------------------------
def test_attr_scope_reaches_variables_and_operators():
    with mx.AttrScope(ctx_group="dev1", mood="calm"):
        a = mx.sym.Variable("a")
        b = a * 2
        fc = mx.sym.FullyConnected(b, num_hidden=3, name="attrscope_fc", attr={"mood": "busy"})
        with mx.AttrScope(ctx_group="dev2"):
            c = mx.sym.var("c", attr={"lr_mult": "3"})
    d = mx.sym.var("d")
    assert a.attr("ctx_group") == "dev1" and a.attr("mood") == "calm"
    assert b.attr("ctx_group") == "dev1"
    assert fc.attr("mood") == "busy" and fc.attr("ctx_group") == "dev1"  # the call's own attr wins
    # composition's own variables (the weight and bias) get the scope too, as MXNet's
    assert fc.attr_dict()["attrscope_fc_weight"]["__ctx_group__"] == "dev1"
    assert c.attr("ctx_group") == "dev2" and c.attr("mood") == "calm" and c.attr("lr_mult") == "3"
    assert d.attr("ctx_group") is None and d.list_attr() == {}  # the scope ended with the block


def test_attr_scope_rules():
    with pytest.raises(ValueError, match="string"):
        mx.AttrScope(ctx_group=1)
    scope = mx.AttrScope(x="1")
    assert scope.get({"y": "2"}) == {"x": "1", "y": "2"} and scope.get({"x": "3"}) == {"x": "3"}
    assert mx.AttrScope().get(None) == {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        outer = mx.AttrScope.current
        with mx.AttrScope(k="v") as inner:
            assert mx.AttrScope.current is inner
        assert mx.AttrScope.current is outer


def test_module_group2ctxs_places_cpu_group_gradients():
    """MXNet's test_module_ctx_group: a ctx_group mapped to cpu(1) has its gradient there."""
    with mx.AttrScope(ctx_group="dev1"):
        a = mx.sym.Variable("a") * 2
    with mx.AttrScope(ctx_group="dev2"):
        c = a + mx.sym.Variable("b")
    mod = mx.mod.Module(c, context=[mx.cpu(0)], data_names=["a", "b"], label_names=None,
                        group2ctxs={"dev1": mx.cpu(1), "dev2": mx.cpu(2)})
    mod.bind(data_shapes=[("a", (2, 3)), ("b", (2, 3))], inputs_need_grad=True)
    mod.init_params()
    mod.forward(mx.io.DataBatch(data=[mx.nd.ones((2, 3)), mx.nd.ones((2, 3))]), is_train=True)
    mod.backward([mx.nd.ones((2, 3))])
    ga, gb = mod.get_input_grads()
    assert ga.context == mx.cpu(1) and gb.context == mx.cpu(2)
    assert np.array_equal(ga.asnumpy(), np.full((2, 3), 2.0)) and np.array_equal(gb.asnumpy(), np.ones((2, 3)))


# ---- NDArrayIter -----------------------------------------------------------------------------------
def test_ndarray_iter_counts_the_first_data_arrays_samples():
    """MXNet's test_sample_weight_loss passes labels and weights for more samples than data."""
    data = np.arange(30, dtype=np.float32).reshape(10, 3)
    it = mx.io.NDArrayIter(data, {"label": np.arange(20), "w": np.arange(20) * 2}, batch_size=5)
    assert it.num_data == 10
    batches = list(it)
    assert len(batches) == 2
    assert np.array_equal(batches[1].label[0].asnumpy(), np.arange(5, 10))
    assert np.array_equal(batches[1].label[1].asnumpy(), np.arange(5, 10) * 2)
    with pytest.raises(ValueError, match="at least as many samples"):
        mx.io.NDArrayIter(data, np.arange(4), batch_size=2)


# ---- engine, libinfo, model_store ------------------------------------------------------------------
def test_engine_bulk_sizes_nest_and_restore():
    prev = mx.engine.set_bulk_size(15)
    try:
        assert mx.engine.set_bulk_size(7) == 15
        with mx.engine.bulk(30):
            assert mx.engine.set_bulk_size(30) == 30
            x = mx.nd.ones((2,)) + 1  # operators run as always
        assert mx.engine.set_bulk_size(7) == 7
        assert x.asnumpy().tolist() == [2.0, 2.0]
    finally:
        mx.engine.set_bulk_size(prev)


def test_libinfo_finds_symnets_library_and_headers():
    libs = mx.libinfo.find_lib_path()
    assert libs and all(os.path.basename(p) == "libsymnet.so" and os.path.isfile(p) for p in libs)
    assert os.path.isfile(os.path.join(mx.libinfo.find_include_path(), "symnet", "ndarray.h"))
    assert mx.libinfo.__version__ == "1.9.1"
    with pytest.raises(RuntimeError, match="libnothere.so"):
        mx.libinfo.find_lib_path("libnothere")


def test_model_store_offline_names_the_file_and_where_to_put_it(tmp_path, monkeypatch):
    store = mx.gluon.model_zoo.model_store
    monkeypatch.setenv("MXNET_GLUON_REPO", (tmp_path / "no-repo").as_uri())
    root = tmp_path / "models"
    assert store.short_hash("resnet18_v1") == "a0666292"
    with pytest.raises(RuntimeError) as e:
        store.get_model_file("resnet18_v1", root=str(root))
    message = str(e.value)
    assert "resnet18_v1-a0666292.params" in message and str(root) in message
    assert sorted(os.listdir(root)) == []  # no partial download left behind
    with pytest.raises(ValueError, match="not available"):
        store.get_model_file("resnet7_v9", root=str(root))
    (root / "x.params").write_text("")
    (root / "keep.txt").write_text("")
    store.purge(str(root))
    assert sorted(os.listdir(root)) == ["keep.txt"]


def test_pretrained_loads_the_model_store_file(tmp_path, monkeypatch):
    """get_model(..., pretrained=True) loads <root>/<name>-<hash>.params as MXNet's does (the
    table's SHA-1 is swapped for that of a file saved here, which stands in for MXNet's)."""
    import hashlib

    store = mx.gluon.model_zoo.model_store
    vision = mx.gluon.model_zoo.vision
    saved = vision.get_model("mobilenet0.25", classes=4, prefix="pretrained_src_")
    saved.initialize(mx.init.Xavier())
    saved(mx.nd.ones((1, 3, 32, 32)))
    plain = tmp_path / "plain.params"
    saved.save_parameters(str(plain))
    sha1 = hashlib.sha1(plain.read_bytes()).hexdigest()
    monkeypatch.setitem(store._model_sha1, "mobilenet0.25", sha1)
    (tmp_path / ("mobilenet0.25-%s.params" % sha1[:8])).write_bytes(plain.read_bytes())
    net = vision.get_model("mobilenet0.25", classes=4, pretrained=True, root=str(tmp_path), prefix="pretrained_dst_")
    x = mx.nd.array(np.random.RandomState(0).rand(1, 3, 32, 32))
    np.testing.assert_allclose(net(x).asnumpy(), saved(x).asnumpy(), rtol=1e-5, atol=1e-6)
    monkeypatch.setenv("MXNET_GLUON_REPO", (tmp_path / "no-repo").as_uri())
    with pytest.raises(RuntimeError, match="resnet18_v1-a0666292.params"):
        vision.resnet18_v1(pretrained=True, root=str(tmp_path / "empty"))


# ---- detection -------------------------------------------------------------------------------------
def _det_rec(folder):
    """A .rec of 5 random images (sizes 30x40 .. 46x28) with 1-3 boxes each, im2rec's packed
    label layout [2, 5, objects...]."""
    rng = np.random.RandomState(1)
    rec = str(folder / "det.rec")
    with mx.recordio.MXIndexedRecordIO(str(folder / "det.idx"), rec, "w") as w:
        for i in range(5):
            objs = []
            for k in range(1 + i % 3):
                x0, y0 = rng.uniform(0, 0.5, 2)
                bw, bh = rng.uniform(0.2, 0.5, 2)
                objs += [k % 2, x0, y0, min(1.0, x0 + bw), min(1.0, y0 + bh)]
            label = np.array([2, 5] + objs, dtype=np.float32)
            img = rng.randint(0, 256, (30 + 4 * i, 40 - 3 * i, 3)).astype(np.uint8)
            w.write_idx(i, mx.recordio.pack_img(mx.recordio.IRHeader(0, label, i, 0), img))
    return rec


# MXNet 1.9.1's ImageDetIter labels for the records above (the valid rows of each image)
_MXNET_DET_LABELS = [
    [
        [[0, 0.54244, 0.06452, 0.84210, 0.51457], [1, 0.40559, 0.06452, 0.91872, 0.33169]],
        [[0, 0.46821, 0.08798, 0.77185, 0.55429], [1, 0.49038, 0.13889, 0.67082, 0.61532],
         [0, 0.57922, 0.44466, 0.78641, 0.65603]],
        [[0, 0.27453, 0.40460, 0.53413, 0.86867], [1, 0.00000, 0.00000, 0.44651, 0.57463]],
        [[0, 0.00000, 0.38983, 0.47130, 0.77006]],
        [[0, 0.00000, 0.28907, 0.21367, 0.61207]],
        [[0, 0.28232, 0.21414, 0.99061, 1.00000], [1, 0.10121, 0.16960, 1.00000, 1.00000]],
    ],
    [
        [[0, 0.23100, 0.16514, 0.50091, 0.56927], [1, 0.25070, 0.20926, 0.41110, 0.62217],
         [0, 0.32968, 0.47426, 0.51385, 0.65745]],
        [[0, 0.17021, 0.34512, 0.33351, 0.56315]],
        [[0, 0.13609, 0.33830, 0.31752, 0.55123]],
        [[0, 0.20802, 0.43105, 0.33169, 0.78862], [1, 0.17640, 0.42167, 0.38817, 0.68917]],
        [[0, 0.37419, 0.61384, 0.53104, 0.82313], [1, 0.15327, 0.41237, 0.47810, 0.69052]],
        [[0, 0.20668, 0.11078, 0.56217, 0.56543], [1, 0.23264, 0.16042, 0.44389, 0.62494],
         [0, 0.33665, 0.45854, 0.57922, 0.66463]],
    ],
]


@pytest.mark.parametrize("case", [0, 1])
def test_image_det_iter_gives_mxnets_labels(tmp_path, case):
    rec = _det_rec(tmp_path)
    kwargs = [dict(rand_crop=1, rand_pad=0.5, rand_mirror=True, area_range=(0.1, 2.0)),
              dict(rand_pad=1, pad_val=(10, 20, 30))][case]
    random.seed(3 + case)
    it = mx.image.ImageDetIter(2, (3, 16, 20), path_imgrec=rec, path_imgidx=rec[:-3] + "idx", shuffle=True, **kwargs)
    assert it.provide_label[0].shape == (2, 3, 5) and it.provide_data[0].shape == (2, 3, 16, 20)
    batches = list(it)
    assert [b.pad for b in batches] == [0, 0, 1]  # 5 images: the last batch repeats the first
    labels = np.concatenate([b.label[0].asnumpy() for b in batches])
    for got, want in zip(labels, _MXNET_DET_LABELS[case]):
        rows = got[got[:, 0] != -1]
        assert np.all(got[len(rows):] == -1)  # rows past the objects are -1
        np.testing.assert_allclose(rows, np.array(want), atol=1e-5)
    data = batches[0].data[0].asnumpy()
    assert data.dtype == np.float32 and 0 <= data.min() and data.max() <= 255


def test_detection_augmenters_move_the_boxes():
    label = np.array([[1, 0.1, 0.2, 0.5, 0.6]], dtype=np.float32)
    img = mx.nd.array(np.arange(4 * 6 * 3).reshape(4, 6, 3), dtype="uint8")
    flipped, flabel = mx.image.DetHorizontalFlipAug(1.0)(img, label.copy())
    assert np.array_equal(flipped.asnumpy(), img.asnumpy()[:, ::-1])
    np.testing.assert_allclose(flabel, [[1, 0.5, 0.2, 0.9, 0.6]], atol=1e-6)
    pad = mx.image.DetRandomPadAug(area_range=(2.0, 3.0), pad_val=(1, 2, 3))
    random.seed(0)
    padded, plabel = pad(img, label.copy())
    h, w = padded.shape[:2]
    assert h >= 6 and w >= 8 and padded.dtype == np.uint8
    # the box covers the same pixels of the original image inside the canvas
    src = padded.asnumpy()
    ys, xs = np.where((src != [1, 2, 3]).any(axis=2))
    x0, y0 = xs.min(), ys.min()
    np.testing.assert_allclose(plabel[0, 1:], [(x0 + 0.1 * 6) / w, (y0 + 0.2 * 4) / h, (x0 + 0.5 * 6) / w,
                                               (y0 + 0.6 * 4) / h], atol=1e-6)
    assert isinstance(mx.image.CreateMultiRandCropAugmenter(min_object_covered=[0.1, 0.5]), mx.image.DetRandomSelectAug)
    augs = mx.image.CreateDetAugmenter((3, 16, 16), rand_crop=0.5, rand_pad=0.5, rand_mirror=True, mean=True, std=True)
    assert [type(a).__name__ for a in augs] == ["DetRandomSelectAug", "DetHorizontalFlipAug", "DetRandomSelectAug",
                                                "DetBorrowAug", "DetBorrowAug", "DetBorrowAug"]


def test_copy_make_border_modes():
    src = np.arange(2 * 3 * 2).reshape(2, 3, 2).astype(np.uint8)
    const = mx.image.copyMakeBorder(mx.nd.array(src, dtype="uint8"), 1, 0, 2, 1, values=(7, 9)).asnumpy()
    want = np.zeros((3, 6, 2), np.uint8)
    want[...] = [7, 9]
    want[1:, 2:5] = src
    assert np.array_equal(const, want)
    for kind, mode in ((1, "edge"), (2, "symmetric"), (3, "wrap"), (4, "reflect")):
        out = mx.image.copyMakeBorder(src, 1, 1, 2, 2, type=kind)
        assert isinstance(out, np.ndarray)
        assert np.array_equal(out, np.pad(src, ((1, 1), (2, 2), (0, 0)), mode=mode))
    scalar = mx.image.copyMakeBorder(src.astype(np.float32), 0, 1, 0, 0, type=16, value=2.5)
    assert np.all(scalar[2] == 2.5)


def test_imrotate():
    rng = np.random.RandomState(0)
    img = rng.rand(3, 5, 5).astype(np.float32)
    assert np.allclose(mx.image.imrotate(mx.nd.array(img), 0).asnumpy(), img, atol=1e-6)
    # 90 degrees on a square image: a pure permutation of the pixels
    rot = mx.image.imrotate(mx.nd.array(img), 90).asnumpy()
    assert np.allclose(rot, np.rot90(img, k=-1, axes=(1, 2)), atol=1e-5) or \
        np.allclose(rot, np.rot90(img, k=1, axes=(1, 2)), atol=1e-5)
    batch = mx.image.imrotate(mx.nd.array(np.stack([img, img])), mx.nd.array([0, 90])).asnumpy()
    assert np.allclose(batch[0], img, atol=1e-6) and np.allclose(batch[1], rot, atol=1e-6)
    zoomed = mx.image.imrotate(mx.nd.array(img), 45, zoom_in=True).asnumpy()
    assert (zoomed != 0).all()  # no black corner shows
    with pytest.raises(TypeError, match="float32"):
        mx.image.imrotate(mx.nd.array(img, dtype="uint8"), 10)
    with pytest.raises(ValueError, match="both"):
        mx.image.imrotate(mx.nd.array(img), 10, zoom_in=True, zoom_out=True)
    np.random.seed(1)
    assert mx.image.random_rotate(mx.nd.array(img), (-30, 30)).shape == (3, 5, 5)


# ---- MNISTIter, the record iterators' names -------------------------------------------------------------
def test_mnist_iter_reads_idx_files(tmp_path):
    n = 25
    rng = np.random.RandomState(0)
    images = rng.randint(0, 256, (n, 28, 28)).astype(np.uint8)
    (tmp_path / "img").write_bytes(struct.pack(">IIII", 2051, n, 28, 28) + images.tobytes())
    (tmp_path / "lab").write_bytes(struct.pack(">II", 2049, n) + (np.arange(n) % 10).astype(np.uint8).tobytes())
    it = mx.io.MNISTIter(image=str(tmp_path / "img"), label=str(tmp_path / "lab"), batch_size=10, shuffle=False,
                         flat=True, silent=True, data_shape=(784,))
    assert isinstance(it, mx.io.MXDataIter) and it.provide_data[0].shape == (10, 784)
    batches = list(it)
    assert len(batches) == 2  # only full batches, as MXNet's
    np.testing.assert_allclose(batches[0].data[0].asnumpy()[3], images[3].ravel() / 256.0)
    assert batches[1].label[0].asnumpy().tolist() == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    shuffled = mx.io.MNISTIter(image=str(tmp_path / "img"), label=str(tmp_path / "lab"), batch_size=10, seed=3,
                               silent=True)
    first = next(shuffled).label[0].asnumpy()
    shuffled.reset()
    assert np.array_equal(next(shuffled).label[0].asnumpy(), first)  # shuffled once, at construction
    assert shuffled.provide_data[0].shape == (10, 1, 28, 28)
    with pytest.raises(mx.MXNetError, match="not an MNIST image file"):
        mx.io.MNISTIter(image=str(tmp_path / "lab"), label=str(tmp_path / "lab"))
    with pytest.raises(mx.MXNetError, match="sparse"):
        mx.io.LibSVMIter(data_libsvm="x.libsvm", data_shape=(10,))
    with pytest.raises(mx.MXNetError, match="ImageDetIter"):
        mx.io.ImageDetRecordIter(path_imgrec="x.rec", data_shape=(3, 8, 8))


# ---- LBSGD -----------------------------------------------------------------------------------------
def test_lbsgd_updates_every_batch_scale_steps_with_warmup():
    opt = mx.optimizer.create("lbsgd", learning_rate=0.1, batch_scale=2, warmup_epochs=1, updates_per_epoch=4,
                              wd=0.01)
    update = mx.optimizer.get_updater(opt)
    rng = np.random.RandomState(0)
    w0 = rng.rand(3).astype(np.float32)
    w = mx.nd.array(w0)
    grads = [rng.rand(3).astype(np.float32) - 0.5 for _ in range(4)]
    expected = w0.copy()
    for step, g in enumerate(grads, 1):
        update(0, mx.nd.array(g), w)
        if step % 2 == 0:
            lr = 0.1 * min(2.0, 1 + step / 4)  # the linear warm-up factor over 4 updates, up to batch_scale
            expected = (1 - lr * 0.01) * expected - lr * (grads[step - 2] + g) / 2
        np.testing.assert_allclose(w.asnumpy(), expected, rtol=1e-5, atol=1e-6)
