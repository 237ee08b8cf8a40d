/*! \brief all_finite / multi_all_finite parameters (shared by the CPU and GPU kernels). */
#ifndef SYMNET_OPERATORS_AMP_ALL_FINITE_H_
#define SYMNET_OPERATORS_AMP_ALL_FINITE_H_

#include "../operator_common.h"

namespace symnet {
namespace ops {

struct AllFiniteParam : public dmlc::Parameter<AllFiniteParam> {
  bool init_output;
  DMLC_DECLARE_PARAMETER(AllFiniteParam) {
    DMLC_DECLARE_FIELD(init_output).set_default(true).describe("Set the output to 1 first.");
  }
};

struct MultiAllFiniteParam : public dmlc::Parameter<MultiAllFiniteParam> {
  int num_arrays;
  bool init_output;
  DMLC_DECLARE_PARAMETER(MultiAllFiniteParam) {
    DMLC_DECLARE_FIELD(num_arrays).set_default(1).set_lower_bound(1).describe("Number of arrays.");
    DMLC_DECLARE_FIELD(init_output).set_default(true).describe("Set the output to 1 first.");
  }
};

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_AMP_ALL_FINITE_H_
