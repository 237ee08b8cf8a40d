/*!
 * \brief The loss scaler and the mixed-precision step's skip-or-update decision: the single
 *  implementation that the C++ Trainer and Python's amp.LossScaler (hence Module and Trainer)
 *  share, so the rules and the saved state cannot drift apart.
 */
#include <algorithm>
#include <string>

#include "src/train/loss_scaler_json.h"
#include "symnet/base.h"
#include "symnet/imperative.h"
#include "symnet/train.h"

namespace symnet {
namespace train {

void LossScaler::Validate() const {
  SYMNET_CHECK(min_scale > 0 && min_scale <= max_scale)
      << "LossScaler: min_scale " << min_scale << " must be > 0 and <= max_scale " << max_scale;
  SYMNET_CHECK(scale >= min_scale && scale <= max_scale)
      << "LossScaler: the scale " << scale << " is outside [" << min_scale << ", " << max_scale
      << "]";
  SYMNET_CHECK(factor > 1) << "LossScaler: scale_factor must be > 1, got " << factor;
  SYMNET_CHECK(window >= 1) << "LossScaler: scale_window must be >= 1, got " << window;
}

void LossScaler::Update(bool overflow) {
  if (overflow) {
    ++num_overflows;
    clean_steps = 0;
    if (dynamic) scale = std::max(min_scale, scale / factor);
    return;
  }
  ++clean_steps;
  if (dynamic && clean_steps >= window) {
    scale = std::min(max_scale, scale * factor);
    clean_steps = 0;
  }
}

bool LossScaler::HasOverflow(const std::vector<NDArray>& grads) {
  std::vector<NDArray> present;
  for (const auto& g : grads)
    if (!g.is_none()) present.push_back(g);
  if (present.empty()) return false;
  const NDArray flag =
      Invoke("multi_all_finite", {{"num_arrays", std::to_string(present.size())}}, present)[0];
  return flag.GetDouble(0) == 0.0;
}

double LossScaler::CheckStep(const std::vector<NDArray>& grads) {
  const double used = scale;  // the factor this step's gradients were scaled by
  const bool overflow = HasOverflow(grads);
  Update(overflow);
  return overflow ? 0.0 : used;
}

json::Value LossScalerToValue(const LossScaler& s) {
  json::Value v = json::Value::Object();
  v.Set("loss_scale", json::Value::Number(s.scale));
  v.Set("clean_steps", json::Value::Number(static_cast<double>(s.clean_steps)));
  v.Set("num_overflows", json::Value::Number(static_cast<double>(s.num_overflows)));
  v.Set("scale_factor", json::Value::Number(s.factor));
  v.Set("scale_window", json::Value::Number(static_cast<double>(s.window)));
  v.Set("min_scale", json::Value::Number(s.min_scale));
  v.Set("max_scale", json::Value::Number(s.max_scale));
  v.Set("dynamic", json::Value::Bool(s.dynamic));
  return v;
}

namespace {

double NumberField(const json::Value& obj, const char* key, double fallback) {
  const json::Value* f = obj.Find(key);
  if (!f) return fallback;
  SYMNET_CHECK(f->kind == json::Value::kNumber) << "loss scaler state: '" << key << "' is a "
                                                << json::KindName(f->kind) << ", expected a number";
  return f->number;
}

}  // namespace

void LossScalerFromValue(const json::Value& v, LossScaler* out) {
  SYMNET_CHECK(v.kind == json::Value::kObject)
      << "loss scaler state: expected a JSON object, got a " << json::KindName(v.kind);
  SYMNET_CHECK(v.Find("loss_scale")) << "loss scaler state: no 'loss_scale'";
  LossScaler s = *out;
  s.scale = NumberField(v, "loss_scale", s.scale);
  s.clean_steps = json::ToInt64(NumberField(v, "clean_steps", 0), "loss scaler state: clean_steps");
  s.num_overflows =
      json::ToInt64(NumberField(v, "num_overflows", 0), "loss scaler state: num_overflows");
  s.factor = NumberField(v, "scale_factor", s.factor);
  s.window = json::ToInt64(NumberField(v, "scale_window", static_cast<double>(s.window)),
                           "loss scaler state: scale_window");
  s.min_scale = NumberField(v, "min_scale", s.min_scale);
  s.max_scale = NumberField(v, "max_scale", s.max_scale);
  if (const json::Value* d = v.Find("dynamic")) {
    SYMNET_CHECK(d->kind == json::Value::kBool)
        << "loss scaler state: 'dynamic' is a " << json::KindName(d->kind)
        << ", expected true or false";
    s.dynamic = d->boolean;
  }
  s.Validate();
  *out = s;
}

std::string LossScaler::ToJson() const { return json::Write(LossScalerToValue(*this)); }

void LossScaler::FromJson(const std::string& text) { LossScalerFromValue(json::Parse(text), this); }

}  // namespace train
}  // namespace symnet
