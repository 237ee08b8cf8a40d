/*! \brief The C++ ResNet builders: parameter counts and output shapes. */
#include <gtest/gtest.h>

#include "symnet/symnet.h"

namespace symnet {
namespace {

int64_t NumParams(const Symbol& net, const Shape& data) {
  std::vector<Shape> args, outs, aux;
  net.InferShape({{"data", data}}, &args, &outs, &aux);
  const auto names = net.ListArguments();
  int64_t n = 0;
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] != "data" && names[i] != "softmax_label") n += args[i].Size();
  return n;
}

TEST(ResNet, FiftyLayersV15HasTorchvisionsParameterCount) {
  models::ResNetOptions opt;
  Symbol net = models::ResNet(opt);
  EXPECT_EQ(NumParams(net, Shape{1, 3, 224, 224}), 25557032);
  std::vector<Shape> args, outs, aux;
  net.InferShape({{"data", Shape{8, 3, 224, 224}}}, &args, &outs, &aux);
  EXPECT_EQ(outs[0], (Shape{8, 1000}));
  EXPECT_EQ(aux.size(), 106u);
}

TEST(ResNet, OtherDepthsAndErrors) {
  models::ResNetOptions opt;
  opt.num_layers = 18;
  EXPECT_EQ(NumParams(models::ResNet(opt), Shape{1, 3, 224, 224}), 11689512);
  opt.num_layers = 42;
  EXPECT_THROW(models::ResNet(opt), Error);
  Symbol c20 = models::CifarResNet(20, 10);
  std::vector<Shape> args, outs, aux;
  c20.InferShape({{"data", Shape{2, 3, 32, 32}}}, &args, &outs, &aux);
  EXPECT_EQ(outs[0], (Shape{2, 10}));
  EXPECT_THROW(models::CifarResNet(21), Error);
}

}  // namespace
}  // namespace symnet
