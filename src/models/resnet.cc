/*! \brief ResNet builders (the Python twin is python/symnet/models/resnet.py). */
#include "symnet/models/resnet.h"

#include "symnet/operator_builder.h"
#include "symnet/ops.h"

namespace symnet {
namespace models {

namespace {

/*! \brief How the layers are built: BatchNorm momentum and the data layout. */
struct Style {
  double momentum;
  bool nhwc;
};

/*! \brief layout='NHWC' on a channels-last network; no attribute otherwise (MXNet's JSON). */
Operator& WithLayout(Operator& op, const Style& st) {
  return st.nhwc ? op.SetParam("layout", "NHWC") : op;
}

Symbol Conv(const Symbol& x, int filters, int k, int stride, int pad, const std::string& name,
            const Style& st) {
  Operator op("Convolution");
  op.SetParam("kernel", Shape{k, k})
      .SetParam("stride", Shape{stride, stride})
      .SetParam("pad", Shape{pad, pad})
      .SetParam("num_filter", filters)
      .SetParam("no_bias", true);
  return WithLayout(op, st).SetInput("data", x).CreateSymbol(name);
}

Symbol BN(const Symbol& x, const Style& st, const std::string& name, bool zero_gamma = false) {
  Symbol gamma = Symbol::Variable(name + "_gamma");
  if (zero_gamma) gamma.SetAttr({{"__init__", "[\"zero\", {}]"}});
  Operator op("BatchNorm");
  op.SetParam("fix_gamma", false).SetParam("eps", 2e-5).SetParam("momentum", st.momentum);
  if (st.nhwc) op.SetParam("axis", 3);
  return op.SetInput("data", x).SetInput("gamma", gamma).CreateSymbol(name);
}

Symbol Relu(const Symbol& x, const std::string& name) { return op::Activation(x, "relu", name); }

/*! \brief One residual unit: basic (two 3x3) or bottleneck (1x1, 3x3, 1x1 with 4x width). */
Symbol Unit(const Symbol& x, int filters, int stride, bool project, bool bottleneck, bool v15,
            const Style& st, bool zero_gamma, const std::string& name) {
  Symbol body;
  if (bottleneck) {
    const int mid = filters / 4;
    body = Relu(BN(Conv(x, mid, 1, v15 ? 1 : stride, 0, name + "_conv1", st), st, name + "_bn1"),
                name + "_relu1");
    body = Relu(BN(Conv(body, mid, 3, v15 ? stride : 1, 1, name + "_conv2", st), st, name + "_bn2"),
                name + "_relu2");
    body = BN(Conv(body, filters, 1, 1, 0, name + "_conv3", st), st, name + "_bn3", zero_gamma);
  } else {
    body = Relu(BN(Conv(x, filters, 3, stride, 1, name + "_conv1", st), st, name + "_bn1"),
                name + "_relu1");
    body = BN(Conv(body, filters, 3, 1, 1, name + "_conv2", st), st, name + "_bn2", zero_gamma);
  }
  Symbol shortcut = x;
  if (project) shortcut = BN(Conv(x, filters, 1, stride, 0, name + "_sc", st), st, name + "_sc_bn");
  return Relu(Operator("elemwise_add")(body)(shortcut).CreateSymbol(name + "_plus"),
              name + "_relu");
}

Symbol Head(const Symbol& body, int num_classes, double label_smoothing, const Style& st) {
  Operator op("Pooling");
  op.SetParam("global_pool", true).SetParam("pool_type", "avg").SetParam("kernel", Shape{1, 1});
  Symbol pool = WithLayout(op, st).SetInput("data", body).CreateSymbol("pool1");
  Symbol fc = op::FullyConnected(op::Flatten(pool, "flatten1"), num_classes, "fc1");
  if (label_smoothing == 0.0) return op::SoftmaxOutput(fc, "softmax");
  return Operator("SoftmaxOutput")
      .SetParam("smooth_alpha", label_smoothing)
      .SetInput("data", fc)
      .CreateSymbol("softmax");
}

}  // namespace

Symbol ResNet(const ResNetOptions& opt) {
  std::vector<int> units;
  switch (opt.num_layers) {
    case 18:
      units = {2, 2, 2, 2};
      break;
    case 34:
      units = {3, 4, 6, 3};
      break;
    case 50:
      units = {3, 4, 6, 3};
      break;
    case 101:
      units = {3, 4, 23, 3};
      break;
    case 152:
      units = {3, 8, 36, 3};
      break;
    default:
      SYMNET_THROW << "ResNet depth " << opt.num_layers << " is not one of 18, 34, 50, 101, 152";
  }
  SYMNET_CHECK(opt.version == "1" || opt.version == "1.5")
      << "ResNet version '" << opt.version << "' is not '1' or '1.5'";
  SYMNET_CHECK_EQ(opt.image_shape.ndim(), 3) << "image_shape is (channels, height, width)";
  const bool bottleneck = opt.num_layers >= 50;
  const bool v15 = opt.version == "1.5";
  const Style st{opt.bn_momentum, opt.channels_last};
  Symbol x = Symbol::Variable("data");
  if (opt.image_shape[1] <= 32) {  // small images: 3x3 stem, no max pooling
    x = Relu(BN(Conv(x, 64, 3, 1, 1, "conv0", st), st, "bn0"), "relu0");
  } else {
    x = Relu(BN(Conv(x, 64, 7, 2, 3, "conv0", st), st, "bn0"), "relu0");
    Operator pool("Pooling");
    pool.SetParam("kernel", Shape{3, 3})
        .SetParam("stride", Shape{2, 2})
        .SetParam("pad", Shape{1, 1})
        .SetParam("pool_type", "max");
    x = WithLayout(pool, st).SetInput("data", x).CreateSymbol("pool0");
  }
  int in_filters = 64;
  for (size_t s = 0; s < units.size(); ++s) {
    const int filters = (bottleneck ? 256 : 64) << s;
    for (int u = 0; u < units[s]; ++u) {
      const int stride = (u == 0 && s > 0) ? 2 : 1;
      const bool project = u == 0 && (stride != 1 || in_filters != filters);
      x = Unit(x, filters, stride, project, bottleneck, v15, st, opt.zero_init_last_gamma,
               "stage" + std::to_string(s + 1) + "_unit" + std::to_string(u + 1));
      in_filters = filters;
    }
  }
  return Head(x, opt.num_classes, opt.label_smoothing, st);
}

Symbol CifarResNet(int depth, int num_classes, double bn_momentum) {
  SYMNET_CHECK(depth >= 8 && (depth - 2) % 6 == 0)
      << "CIFAR ResNet depth must be 6n+2 (20, 32, 44, 56, 110), got " << depth;
  const int n = (depth - 2) / 6;
  const Style st{bn_momentum, false};
  Symbol x = Relu(BN(Conv(Symbol::Variable("data"), 16, 3, 1, 1, "conv0", st), st, "bn0"), "relu0");
  int in_filters = 16;
  for (int s = 0; s < 3; ++s) {
    const int filters = 16 << s;
    for (int u = 0; u < n; ++u) {
      const int stride = (u == 0 && s > 0) ? 2 : 1;
      x = Unit(x, filters, stride, u == 0 && (stride != 1 || in_filters != filters), false, false,
               st, false, "stage" + std::to_string(s + 1) + "_unit" + std::to_string(u + 1));
      in_filters = filters;
    }
  }
  return Head(x, num_classes, 0.0, st);
}

}  // namespace models
}  // namespace symnet
