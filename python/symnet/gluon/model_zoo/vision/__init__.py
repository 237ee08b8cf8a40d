"""mx.gluon.model_zoo.vision: the image classification networks of MXNet 1.x's model zoo, with
MXNet's block structure and therefore MXNet's parameter names (structural: features.0.weight;
prefixed: resnetv10_conv0_weight). pretrained=True loads MXNet's parameter file through
model_store.get_model_file (found in $MXNET_HOME/models, or fetched; offline, the error names
the file and where to put it)."""
from .alexnet import *  # noqa: F401,F403
from .densenet import *  # noqa: F401,F403
from .inception import *  # noqa: F401,F403
from .mobilenet import *  # noqa: F401,F403
from .resnet import *  # noqa: F401,F403
from .squeezenet import *  # noqa: F401,F403
from .vgg import *  # noqa: F401,F403


def _registry():
    """get_model's names (MXNet's, e.g. 'mobilenet0.25', 'inceptionv3') -> constructors."""
    made = globals()
    models = {"alexnet": made["alexnet"], "inceptionv3": made["inception_v3"],
              "squeezenet1.0": made["squeezenet1_0"], "squeezenet1.1": made["squeezenet1_1"]}
    for v in (1, 2):
        for d in (18, 34, 50, 101, 152):
            models["resnet%d_v%d" % (d, v)] = made["resnet%d_v%d" % (d, v)]
    for d in (11, 13, 16, 19):
        models["vgg%d" % d] = made["vgg%d" % d]
        models["vgg%d_bn" % d] = made["vgg%d_bn" % d]
    for d in (121, 161, 169, 201):
        models["densenet%d" % d] = made["densenet%d" % d]
    for m in ("1.0", "0.75", "0.5", "0.25"):
        tag = m.replace(".", "_")
        models["mobilenet" + m] = made["mobilenet" + tag]
        models["mobilenetv2_" + m] = made["mobilenet_v2_" + tag]
    return models


_MODELS = _registry()


def get_model(name, **kwargs):
    """The model-zoo network `name` (as MXNet spells it), e.g. get_model('resnet18_v1',
    classes=10); keyword arguments go to its constructor."""
    key = name.lower()
    if key not in _MODELS:
        raise ValueError("model_zoo.vision: no model %r; available:\n\t%s"
                         % (name, "\n\t".join(sorted(_MODELS))))
    return _MODELS[key](**kwargs)
