/*!
 * \brief BindOptions: the one place symnet reads the environment variables that used to switch
 *  behaviour deep inside (layout plan, CUDA graphs, cuDNN workspace); they are now only the
 *  defaults of options every bind takes explicitly.
 */
#include <cstdlib>
#include <string>

#include "symnet/executor.h"

namespace symnet {

namespace {
const char* Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : nullptr;
}
}  // namespace

bool EliminateCommonExprEnabled() {
  // read at every bind, not once: MXNet's users (and its tests) switch it between binds
  const char* v = Env("MXNET_ELIMINATE_COMMON_EXPR");
  return v == nullptr || std::string(v) != "0";
}

const BindOptions& BindOptions::FromEnvironment() {
  static const BindOptions defaults = [] {
    BindOptions o;
    if (const char* v = Env("SYMNET_LAYOUT")) {
      o.layout = v;
    } else if (const char* c = Env("SYMNET_CHANNELS_LAST")) {
      o.layout = std::string(c) == "0" ? "off" : "auto";  // the older switch
    }
    if (const char* v = Env("SYMNET_CUDA_GRAPHS")) o.cuda_graphs = std::string(v) == "1";
    if (const char* v = Env("SYMNET_FUSE")) o.fuse = std::string(v) != "0";
    if (const char* v = Env("SYMNET_CUDNN_WORKSPACE_MB")) {
      char* end = nullptr;
      const unsigned long long mb = std::strtoull(v, &end, 10);
      SYMNET_CHECK(end != v && *end == '\0')
          << "SYMNET_CUDNN_WORKSPACE_MB='" << v << "' is not a whole number of MiB";
      o.workspace_mb = mb;
    }
    o.Validate();
    return o;
  }();
  return defaults;
}

void BindOptions::Validate() const {
  SYMNET_CHECK(layout == "auto" || layout == "NHWC" || layout == "off")
      << "bind option layout='" << layout << "': expected 'auto', 'NHWC' or 'off'";
}

}  // namespace symnet
