/*!
 * \brief The precision lists. A test checks that every registered (non-backward) op appears in
 *  exactly one category for each target, so a new op cannot be forgotten.
 *
 *  float16 and bfloat16 differ where their formats do: bfloat16 keeps float32's exponent range,
 *  so Concat and square may stay neutral, but has a short mantissa, so sigmoid and softsign
 *  run in float32 (MXNet's lists make the same choices).
 */
#include <algorithm>

#include "symnet/amp.h"

namespace symnet {
namespace amp {

namespace {

// dot and batch_dot: matrix products, as FullyConnected (MXNet lists them as widest-type casts);
// Deconvolution runs Convolution's kernels (MXNet's bfloat16 list keeps it in float32 for want
// of bfloat16 kernels, which it has here)
const std::vector<std::string> kTargetOps = {"Convolution", "Deconvolution", "FullyConnected",
                                             "dot", "batch_dot"};

const std::vector<std::string> kFP32Ops = {
    "softmax", "log_softmax", "SoftmaxOutput", "SoftmaxActivation", "LinearRegressionOutput",
    "softmax_cross_entropy", "sum", "mean",
    // exponentials, logarithms and reciprocals leave 16-bit range or precision quickly
    "exp", "expm1", "log", "log1p", "rsqrt", "reciprocal", "log2", "log10", "cbrt", "rcbrt",
    // trigonometric and hyperbolic functions need float32's precision in their arguments
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "arcsinh", "arccosh",
    "arctanh", "erf",
    // special functions: gamma overflows float16 past 8, erfinv and gammaln need float32's
    // digits near their poles (MXNet lists them float32 for both targets)
    "erfinv", "gamma", "gammaln",
    // the other loss heads and softmin, as the losses and softmax above (MXNet's lists)
    "LogisticRegressionOutput", "MAERegressionOutput", "SVMOutput", "MakeLoss", "make_loss",
    "smooth_l1", "softmin",
    // a Custom op's Python code is written for the dtypes its user chose: it gets float32, as
    // MXNet's lists say for both targets
    "Custom",
    // CTC's log-space recursion sums many log probabilities (MXNet lists it float32 for both)
    "CTCLoss",
    // powers and hypot overflow float16 early (MXNet lists them so too)
    "_power", "broadcast_power", "_power_scalar", "_rpower_scalar", "_hypot", "broadcast_hypot",
    "_hypot_scalar",
    // products and norms leave 16-bit range; indices past 2048 (float16) or 256 (bfloat16) are
    // not exact in 16 bits, so argmax and its kin run in float32 (MXNet's float16 list leaves
    // them neutral)
    "prod", "nansum", "nanprod", "norm", "argmax", "argmin", "argmax_channel", "topk", "argsort",
    // a sum of squares and its reciprocal square root (MXNet lists it float32 for both targets)
    "L2Normalization",
    // mean/variance normalizations: 16-bit statistics lose precision (MXNet lists them float32)
    "LayerNorm", "InstanceNorm", "GroupNorm",
    // SSD anchors, targets and decoding: box coordinates, exp/log offsets and IoU comparisons
    // (MXNet lists them float32 for both targets)
    "_contrib_MultiBoxPrior", "_contrib_MultiBoxTarget", "_contrib_MultiBoxDetection",
    // a matrix factorisation needs float32's digits (MXNet lists linalg float32 for both)
    "_linalg_gelqf"};

const std::vector<std::string> kWidestOps = {
    "elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div", "broadcast_add",
    "broadcast_sub", "broadcast_mul", "broadcast_div", "add_n",
    // stack joins inputs that must share a dtype (MXNet lists it widest for both targets)
    "stack",
    // two-input math and comparisons (MXNet's choice)
    "_maximum", "_minimum", "_mod", "broadcast_maximum", "broadcast_minimum", "broadcast_mod",
    "_equal", "_not_equal", "_greater", "_greater_equal", "_lesser", "_lesser_equal",
    "_logical_and", "_logical_or", "_logical_xor", "broadcast_equal", "broadcast_not_equal",
    "broadcast_greater", "broadcast_greater_equal", "broadcast_lesser", "broadcast_lesser_equal",
    "broadcast_logical_and", "broadcast_logical_or", "broadcast_logical_xor",
    // x and y must share a dtype; a float condition takes part too (MXNet's choice)
    "where",
    // box overlaps, NMS and ROIAlign read boxes and features that must share a dtype (MXNet lists
    // them widest for both targets)
    "_contrib_box_iou", "_contrib_box_nms", "_contrib_ROIAlign",
    // lhs and rhs must share a dtype (MXNet lists them neutral, which a mixed pair would fail)
    "_slice_assign", "_identity_with_attr_like_rhs",
    // the densities: the sample and the parameters must share a dtype (MXNet's choice)
    "_random_pdf_uniform", "_random_pdf_normal", "_random_pdf_gamma", "_random_pdf_exponential",
    "_random_pdf_poisson", "_random_pdf_negative_binomial",
    "_random_pdf_generalized_negative_binomial", "_random_pdf_dirichlet"};

const std::vector<std::string> kNeutralOps = {
    // element-wise and shape ops: they do what the dtype in front of them does
    "_copy", "BlockGrad", "zeros_like", "ones_like", "negative", "relu", "tanh", "sqrt", "abs",
    "clip", "sign", "floor", "ceil", "round", "rint", "trunc", "fix", "degrees", "radians",
    "_plus_scalar", "_minus_scalar", "_rminus_scalar", "_mul_scalar", "_div_scalar", "_rdiv_scalar",
    // comparisons and min/max against a scalar are exact in any dtype, and mod rounds only its
    // result (MXNet's bfloat16 list sends them to float32, for want of bfloat16 kernels)
    "_maximum_scalar", "_minimum_scalar", "_mod_scalar", "_rmod_scalar", "_equal_scalar",
    "_not_equal_scalar", "_greater_scalar", "_greater_equal_scalar", "_lesser_scalar",
    "_lesser_equal_scalar", "_logical_and_scalar", "_logical_or_scalar", "_logical_xor_scalar",
    "logical_not", "max", "min", "sort", "Flatten", "Reshape", "expand_dims", "squeeze",
    "transpose", "Activation", "LeakyReLU", "Dropout", "Pooling",
    // slicing and splitting copy elements, exactly in any dtype
    "slice", "slice_axis", "SliceChannel",
    // so do the indexing ops and diag; one_hot, the shape ops and the creation ops make their
    // outputs in the dtype they are told (MXNet: FP16_FP32_FUNCS)
    "take", "pick", "batch_take", "slice_like", "diag", "one_hot", "shape_array", "size_array",
    "_zeros", "_ones", "_full", "_arange",
    // assigning a scalar into a box and zeroing arrays in place work in any dtype; the unique
    // Zipfian sampler makes int64 classes (MXNet: float16 neutral)
    "_slice_assign_scalar", "reset_arrays", "_sample_unique_zipfian",
    // nearest UpSampling copies pixels, exactly in any dtype; bilinear is a small depthwise blend
    // (MXNet: float16 neutral; its bfloat16 list sends it to float32 for want of kernels)
    "UpSampling",
    // Embedding gathers rows and the sequence ops copy or mask steps, exactly in any dtype
    // (MXNet: float16 neutral; its bfloat16 list sends them to float32 for want of kernels)
    "Embedding", "SequenceMask", "SequenceLast",
    // Pad and Crop copy elements; bilinear resizing mixes 4 neighbours with weights in [0, 1],
    // computed in float32 (MXNet: float16 neutral; bfloat16 float32 for want of kernels)
    "Pad", "Crop", "_contrib_BilinearResize2D",
    // so do broadcasting, tiling, repeating, reversing, swapping axes and reshape_like (rhs gives
    // only its shape)
    "broadcast_to", "broadcast_like", "broadcast_axis", "tile", "repeat", "reverse", "SwapAxis",
    "reshape_like",
    // BatchNorm keeps float32 gamma/beta/statistics for 16-bit data (its type rule)
    "BatchNorm", "_contrib_SyncBatchNorm",
    // explicit casts, AMP's own ops, the executor's layout copy and its bind-time fusion (made
    // after AMP has decided the dtypes of the nodes it replaces)
    "Cast", "amp_cast", "amp_multicast", "all_finite", "multi_all_finite", "_convert_layout",
    "_FusedConvBN", "_FusedBatchNormReLU", "_FusedAddReLU",
    // MXNet's BatchNorm + ReLU node: BatchNorm's type rule, as the fused node above
    "_contrib_BatchNormWithReLU",
    // optimizer updates run on the dtypes of the arrays they are given
    "sgd_update", "sgd_mom_update", "mp_sgd_update", "mp_sgd_mom_update", "nag_mom_update",
    "mp_nag_mom_update", "multi_sgd_update", "multi_sgd_mom_update", "multi_mp_sgd_update",
    "multi_mp_sgd_mom_update", "adam_update", "mp_adam_update", "rmsprop_update",
    "rmspropalex_update", "ftrl_update", "ftml_update", "signsgd_update", "signum_update",
    "_adamw_update", "_mp_adamw_update",
    // (MXNet's lists leave LAMB's phases out; they are updates like the others)
    "lamb_update_phase1", "lamb_update_phase2", "mp_lamb_update_phase1", "mp_lamb_update_phase2"};

std::map<std::string, Category> Build(DType target) {
  std::map<std::string, Category> m;
  auto put = [&](const std::vector<std::string>& ops, Category c) {
    for (const auto& op : ops) {
      SYMNET_CHECK(m.emplace(op, c).second) << "AMP lists: " << op << " listed twice";
    }
  };
  put(kTargetOps, Category::kTarget);
  put(kFP32Ops, Category::kFP32);
  put(kWidestOps, Category::kWidest);
  put(kNeutralOps, Category::kNeutral);
  SYMNET_CHECK(
      m.emplace("Concat", target == DType::kBFloat16 ? Category::kNeutral : Category::kWidest)
          .second);
  // as MXNet's lists: with bfloat16's 8-bit mantissa, sigmoid, softsign and hard_sigmoid
  // (outputs near 1) run in float32; with float16's 5-bit exponent, square overflows early
  const bool bf16 = target == DType::kBFloat16;
  for (const char* op : {"sigmoid", "softsign", "hard_sigmoid"})
    SYMNET_CHECK(m.emplace(op, bf16 ? Category::kFP32 : Category::kNeutral).second);
  SYMNET_CHECK(m.emplace("square", bf16 ? Category::kNeutral : Category::kFP32).second);
  // LRN's sum of squares overflows float16; bfloat16 keeps float32's range (MXNet's choice)
  SYMNET_CHECK(m.emplace("LRN", bf16 ? Category::kNeutral : Category::kFP32).second);
  // RNN: its GEMMs are what float16 speeds up on GPUs (MXNet's float16 list); MXNet's bfloat16
  // list keeps it in float32, and so do we (bfloat16 hidden states are rounded at every step and
  // drift over long sequences). Where oneDNN has native bfloat16 the op runs bfloat16 natively
  // (about 2.3x the float32 primitives' speed on an AMX Xeon), so target_dtype_ops=["RNN"] is
  // worth opting into where the sequences are short enough to tolerate it.
  SYMNET_CHECK(m.emplace("RNN", bf16 ? Category::kFP32 : Category::kTarget).second);
  // region proposals: pixel coordinates up to the image size; MXNet's float16 list casts the
  // three inputs to the widest type, its bfloat16 list (8-bit mantissa: pixels past 256 are not
  // exact) keeps them in float32
  for (const char* op : {"_contrib_Proposal", "_contrib_MultiProposal"})
    SYMNET_CHECK(m.emplace(op, bf16 ? Category::kFP32 : Category::kWidest).second);
  // the random samplers make their outputs in the dtype they are told (float16: neutral, as
  // MXNet's list); MXNet's bfloat16 list keeps them in float32, so the samples (and the
  // parameter arrays of _sample_*, the _like forms' inputs and _sample_multinomial's
  // probabilities) keep float32's precision. _shuffle copies rows: neutral.
  const char* const random_ops[] = {
      // scalar parameters
      "_random_uniform", "_random_normal", "_random_gamma", "_random_exponential",
      "_random_poisson", "_random_randint", "_random_negative_binomial",
      "_random_generalized_negative_binomial",
      // the _like forms
      "_random_uniform_like", "_random_normal_like", "_random_gamma_like",
      "_random_exponential_like", "_random_poisson_like", "_random_negative_binomial_like",
      "_random_generalized_negative_binomial_like",
      // parameter arrays
      "_sample_uniform", "_sample_normal", "_sample_gamma", "_sample_exponential",
      "_sample_poisson", "_sample_negative_binomial", "_sample_generalized_negative_binomial",
      "_sample_multinomial"};
  for (const char* op : random_ops)
    SYMNET_CHECK(m.emplace(op, bf16 ? Category::kFP32 : Category::kNeutral).second);
  SYMNET_CHECK(m.emplace("_shuffle", Category::kNeutral).second);
  // ROIPooling takes maxima and bipartite_matching compares scores, exactly in float16 (MXNet's
  // float16 list: neutral); MXNet's bfloat16 list keeps them in float32, and so do we
  for (const char* op : {"ROIPooling", "_contrib_bipartite_matching"})
    SYMNET_CHECK(m.emplace(op, bf16 ? Category::kFP32 : Category::kNeutral).second);
  return m;
}

}  // namespace

const char* CategoryName(Category c) {
  switch (c) {
    case Category::kTarget:
      return "target";
    case Category::kFP32:
      return "fp32";
    case Category::kNeutral:
      return "neutral";
    case Category::kWidest:
      return "widest";
  }
  return "?";
}

const std::map<std::string, Category>& Lists(DType target) {
  SYMNET_CHECK(target == DType::kFloat16 || target == DType::kBFloat16)
      << "AMP target dtype must be float16 or bfloat16, not " << target;
  static const std::map<std::string, Category> f16 = Build(DType::kFloat16);
  static const std::map<std::string, Category> bf16 = Build(DType::kBFloat16);
  return target == DType::kFloat16 ? f16 : bf16;
}

const std::vector<ConditionalFP32>& ConditionalLists(DType target) {
  // softrelu = log(1 + exp(x)) and the exponential LeakyReLU variants overflow float16 early
  static const std::vector<ConditionalFP32> rules = {
      {"Activation", "act_type", {"softrelu"}}, {"LeakyReLU", "act_type", {"elu", "selu", "gelu"}}};
  Lists(target);  // validates the target
  return rules;
}

std::vector<std::string> OpsIn(Category c, DType target) {
  std::vector<std::string> ops;
  for (const auto& kv : Lists(target))
    if (kv.second == c) ops.push_back(kv.first);
  return ops;
}

}  // namespace amp
}  // namespace symnet
