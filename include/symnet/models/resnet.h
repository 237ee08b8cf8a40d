/*! \brief ResNet symbol builders (ImageNet-style v1/v1.5 and CIFAR-style), MXNet naming. */
#ifndef SYMNET_MODELS_RESNET_H_
#define SYMNET_MODELS_RESNET_H_

#include "symnet/symbol.h"

namespace symnet {
namespace models {

struct ResNetOptions {
  int num_layers = 50;          // 18, 34, 50, 101, 152
  std::string version = "1.5";  // "1": stride in the first 1x1 conv; "1.5": in the 3x3 conv
  int num_classes = 1000;
  Shape image_shape{3, 224, 224};  // (C, H, W); H <= 32 uses a 3x3 stem without max pooling
  double bn_momentum = 0.9;
  bool zero_init_last_gamma = false;  // the last BatchNorm of each block starts at gamma = 0
  double label_smoothing = 0.0;       // SoftmaxOutput smooth_alpha
  /*! \brief The channels-last network of MXNet's GPU scripts: data (N, H, W, C), layout='NHWC'
   *  convolutions (weights (O, kh, kw, C)) and poolings, BatchNorm on axis 3. */
  bool channels_last = false;
};

/*!
 * \brief ResNet v1/v1.5 ending in SoftmaxOutput "softmax": Convolution (no_bias), BatchNorm
 *  (fix_gamma=False, eps=2e-5), relu. Names follow MXNet: conv0, bn0, stage1_unit1_conv1, ...
 */
Symbol ResNet(const ResNetOptions& opt);

/*! \brief CIFAR-style ResNet (depth 6n+2: 20, 32, 44, 56, 110) for 32x32 inputs. */
Symbol CifarResNet(int depth, int num_classes = 10, double bn_momentum = 0.9);

}  // namespace models
}  // namespace symnet

#endif  // SYMNET_MODELS_RESNET_H_
