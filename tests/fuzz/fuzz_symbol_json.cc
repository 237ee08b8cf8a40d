/*!
 * \brief Fuzz target: symbol JSON as Module.load / mx.sym.load read it, then shape and type
 *  inference, and for a small graph whose every shape is known (variables' "__shape__"), a CPU
 *  bind with a forward and a backward pass.
 */
#include <map>

#include "fuzz_util.h"
#include "symnet/executor.h"
#include "symnet/symbol.h"

namespace {

// bind only graphs this small: the fuzzer's memory limit guards against missing size checks, so
// the target itself must not ask for big arrays a real model would legitimately have
constexpr int64_t kMaxBindBytes = int64_t{16} << 20;
constexpr size_t kMaxBindNodes = 64;

int64_t TotalBytes(const std::vector<symnet::Shape>& shapes) {
  int64_t total = 0;
  for (const auto& s : shapes) {
    const int64_t n = s.Size();
    if (n < 0 || n > kMaxBindBytes / 8) return kMaxBindBytes + 1;
    total += n * 8;  // float64 at most
  }
  return total;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  symnet::fuzz::ExpectOnlySymnetErrors([&] {
    const symnet::Symbol sym = symnet::Symbol::FromJSON(symnet::fuzz::AsString(data, size));
    // what loads writes back and loads again to the same text
    const std::string text = sym.ToJSON();
    if (symnet::Symbol::FromJSON(text).ToJSON() != text) __builtin_trap();
    std::vector<symnet::Shape> args, outs, aux;
    if (!sym.InferShape({}, &args, &outs, &aux, /*partial=*/true)) return;
    std::vector<symnet::DType> targs, touts, taux;
    sym.InferType({}, &targs, &touts, &taux, /*partial=*/true);
    if (TotalBytes(args) + TotalBytes(outs) + TotalBytes(aux) > kMaxBindBytes) return;
    if (sym.GetInternals().NumOutputs() > kMaxBindNodes) return;
    std::map<std::string, symnet::Shape> shapes;
    const auto names = sym.ListArguments();
    for (size_t i = 0; i < names.size(); ++i) shapes[names[i]] = args[i];
    auto exec = symnet::Executor::SimpleBind(sym, symnet::Device::CPU(), shapes);
    exec->Forward(/*is_train=*/true);
    exec->Backward();
    exec->Forward(/*is_train=*/false);
  });
  return 0;
}
