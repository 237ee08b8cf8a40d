/*! \brief The loss scaler's state as a JSON value, for the .states codec to nest in its meta. */
#ifndef SYMNET_SRC_TRAIN_LOSS_SCALER_JSON_H_
#define SYMNET_SRC_TRAIN_LOSS_SCALER_JSON_H_

#include "src/core/json.h"
#include "symnet/train.h"

namespace symnet {
namespace train {

json::Value LossScalerToValue(const LossScaler& s);
/*! \brief Reads the fields `v` has over `*s` (keeping the rest) and validates the result. */
void LossScalerFromValue(const json::Value& v, LossScaler* s);

}  // namespace train
}  // namespace symnet

#endif  // SYMNET_SRC_TRAIN_LOSS_SCALER_JSON_H_
