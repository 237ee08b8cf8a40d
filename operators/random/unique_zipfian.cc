/*! \brief _sample_unique_zipfian (unique_zipfian.h): shape and type rules, registration. */
#include "unique_zipfian.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(SampleUniqueZipfianParam);

namespace {

bool UniqueZipfianShape(const NodeAttrs& attrs, std::vector<Shape>*, std::vector<Shape>* out) {
  const SampleUniqueZipfianParam& p = Param<SampleUniqueZipfianParam>(attrs);
  const Shape& s = p.shape;
  SYMNET_CHECK(s.ndim() == 2 && s[0] >= 0 && s[1] >= 0)
      << "_sample_unique_zipfian: shape must be (batch_size, num_sampled), got " << s;
  SYMNET_CHECK(s[1] <= p.range_max)
      << "_sample_unique_zipfian: num_sampled (" << s[1] << ") must not exceed range_max ("
      << p.range_max << "): the classes of a row are distinct";
  AssignOutShape(out, 0, s);
  AssignOutShape(out, 1, Shape{s[0]});
  return true;
}

bool UniqueZipfianType(const NodeAttrs&, std::vector<DType>*, std::vector<DType>* out) {
  AssignType(out, 0, DType::kInt64, false);
  AssignType(out, 1, DType::kInt64, false);
  return true;
}

}  // namespace

SYMNET_REGISTER_OP(_sample_unique_zipfian)
    .describe(
        "Per row of shape (batch_size, num_sampled): num_sampled distinct classes in "
        "[0, range_max) from the log-uniform (Zipfian) distribution P(k) = log((k+2)/(k+1)) / "
        "log(range_max+1), repeats rejected; outputs (samples, num_tries), int64.")
    .set_num_inputs(0)
    .set_num_outputs(2)
    .set_attr_parser(ParamParser<SampleUniqueZipfianParam>)
    .add_arguments(ParamDocs<SampleUniqueZipfianParam>())
    .set_attr<FInferShape>("FInferShape", UniqueZipfianShape)
    .set_attr<FInferType>("FInferType", UniqueZipfianType)
    .set_attr<FTempSpace>("FTempSpace",
                          [](const NodeAttrs& attrs, const std::vector<Shape>&,
                             const std::vector<DType>&) { return UniqueZipfianTempBytes(attrs); })
    .set_attr<FGradient>("FGradient", NoInputGradients)
    .set_attr<TDrawsRandom>("TDrawsRandom", true)
    .set_attr<FCompute>("FCompute<cpu>", UniqueZipfianCompute<cpu>);

}  // namespace ops
}  // namespace symnet
