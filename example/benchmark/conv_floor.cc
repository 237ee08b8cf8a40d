/*!
 * \brief conv_floor: the floor of a ResNet-50 v1.5 training step on this CPU. It times every
 *  distinct convolution of the network (forward, backward data, backward weights) in oneDNN
 *  alone, with each primitive's own preferred formats (format_tag::any, what symnet's layout
 *  plan gives it) and no reorders, and adds them up with their counts. No framework can run a
 *  step faster than this sum on oneDNN 2.6; symnet's step divided by it is its overhead.
 *
 *    build/pip/example/conv_floor [batch=32] [dtype=float32|bfloat16] [reps=3] [image=224]
 *
 *  The stem's backward data is left out, as in training (the images need no gradient).
 *  Each call is timed twice: warm (best of `reps` back-to-back calls, its operands still in the
 *  caches from the call before) and cold (after writing over a buffer twice the size of the
 *  last-level cache, as in a training step, where the ~50 other layers in between have evicted
 *  this layer's operands). The cold sum is the floor a step can reach; the warm one is shown
 *  beside it.
 *  ONEDNN_MAX_CPU_ISA=AVX2 measures the AVX2 floor on a larger CPU.
 */
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

using dnnl::memory;
using md = memory::desc;

struct Conv {
  int64_t c, o, hw, k, s;  // in channels, out channels, input height = width, kernel, stride
  int count;
  int64_t out_hw() const { return (hw + 2 * (k / 2) - k) / s + 1; }
  std::string Name() const {
    return std::to_string(c) + "->" + std::to_string(o) + " " + std::to_string(k) + "x" +
           std::to_string(k) + "/" + std::to_string(s) + " @" + std::to_string(hw);
  }
};

/*!
 * \brief ResNet-50 v1.5's convolutions (stride in the 3x3), merged by shape with counts, for
 *  `image` x `image` inputs: a 7x7/2 stem and max pooling, or (image <= 32, symnet's small-image
 *  variant) a 3x3 stem without pooling.
 */
std::vector<Conv> ResNet50Convs(int64_t image) {
  const bool small = image <= 32;
  std::vector<Conv> all{small ? Conv{3, 64, image, 3, 1, 1} : Conv{3, 64, image, 7, 2, 1}};
  const int units[4] = {3, 4, 6, 3};
  int64_t in = 64, hw = small ? image : image / 4;
  for (int st = 0; st < 4; ++st) {
    const int64_t mid = 64 << st, out = mid * 4;
    for (int u = 0; u < units[st]; ++u) {
      const int64_t s = (u == 0 && st > 0) ? 2 : 1;
      all.push_back({in, mid, hw, 1, 1, 1});
      all.push_back({mid, mid, hw, 3, s, 1});
      const int64_t ohw = hw / s;
      all.push_back({mid, out, ohw, 1, 1, 1});
      if (u == 0) all.push_back({in, out, hw, 1, s, 1});  // projection shortcut
      in = out;
      hw = ohw;
    }
  }
  std::vector<Conv> merged;
  for (const Conv& c : all) {
    auto it = std::find_if(merged.begin(), merged.end(), [&](const Conv& m) {
      return m.c == c.c && m.o == c.o && m.hw == c.hw && m.k == c.k && m.s == c.s;
    });
    if (it == merged.end())
      merged.push_back(c);
    else
      ++it->count;
  }
  return merged;
}

/*! \brief Evicts the caches: writes over twice the last-level cache (64 MiB when unknown). */
void FlushCaches() {
  static std::vector<char> junk = [] {
    const long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    return std::vector<char>(llc > 0 ? 2 * static_cast<size_t>(llc) : (64u << 20));
  }();
  static char v = 0;
  ++v;
  std::fill(junk.begin(), junk.end(), v);
}

struct Timing {
  double warm, cold;  // seconds: best back-to-back call; median call after a cache flush
};

Timing Seconds(const std::function<void()>& f, int reps) {
  f();  // warm-up (first execution initialises the jit kernels)
  auto once = [&] {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  Timing t{1e30, 0};
  for (int r = 0; r < reps; ++r) t.warm = std::min(t.warm, once());
  std::vector<double> cold;
  for (int r = 0; r < reps; ++r) {
    FlushCaches();
    cold.push_back(once());
  }
  std::sort(cold.begin(), cold.end());
  t.cold = cold[cold.size() / 2];
  return t;
}

memory Mem(const md& d, dnnl::engine& eng) {
  memory m(d, eng);
  std::fill_n(static_cast<char*>(m.get_data_handle()), d.get_size(), 0);  // touch the pages
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
    std::printf(
        "usage: conv_floor [BATCH=32] [DTYPE=float32|bfloat16] [REPS=3] [IMAGE=224]\n"
        "  times ResNet-50 v1.5's convolutions in oneDNN alone (forward, backward-data,\n"
        "  backward-weights), cold and warm cache: the floor of a training step\n");
    return 0;
  }
  const int64_t n = argc > 1 ? std::atoll(argv[1]) : 32;
  const std::string dtype = argc > 2 ? argv[2] : "float32";
  const int reps = argc > 3 ? std::atoi(argv[3]) : 3;
  const int64_t image = argc > 4 ? std::atoll(argv[4]) : 224;
  const auto dt = dtype == "bfloat16" ? memory::data_type::bf16 : memory::data_type::f32;
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);
  double total[3] = {0, 0, 0}, warm_total = 0, flops = 0;
  std::printf("ResNet-50 v1.5 convolutions, batch %lld, %lldx%lld, %s, oneDNN %d.%d, ISA %d\n",
              static_cast<long long>(n), static_cast<long long>(image),
              static_cast<long long>(image), dtype.c_str(), dnnl_version()->major,
              dnnl_version()->minor, static_cast<int>(dnnl::get_effective_cpu_isa()));
  std::printf(
      "cold-cache times (median of reps, each after a cache flush)\n%-26s %5s %10s %10s %10s %8s  "
      "%s\n",
      "shape", "count", "fwd ms", "bwd-d ms", "bwd-w ms", "fwd GF/s", "implementations");
  try {
    for (const Conv& c : ResNet50Convs(image)) {
      const int64_t ohw = c.out_hw(), p = c.k / 2;
      const memory::dims src{n, c.c, c.hw, c.hw}, wei{c.o, c.c, c.k, c.k}, dst{n, c.o, ohw, ohw};
      const memory::dims strides{c.s, c.s}, pad_l{p, p};
      const memory::dims pad_r{(ohw - 1) * c.s + c.k - c.hw - p, (ohw - 1) * c.s + c.k - c.hw - p};
      const auto any = memory::format_tag::any;
      const md s_any(src, dt, any), w_any(wei, dt, any), d_any(dst, dt, any);
      using fwd_t = dnnl::convolution_forward;
      const fwd_t::primitive_desc fpd(
          fwd_t::desc(dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct, s_any,
                      w_any, d_any, strides, pad_l, pad_r),
          eng);
      // backward: diff_dst in the format forward wrote, diff_src in the format forward read
      using bwd_d_t = dnnl::convolution_backward_data;
      using bwd_w_t = dnnl::convolution_backward_weights;
      const bwd_w_t::primitive_desc wpd(
          bwd_w_t::desc(dnnl::algorithm::convolution_direct, fpd.src_desc(), w_any, fpd.dst_desc(),
                        strides, pad_l, pad_r),
          eng, fpd);
      memory x = Mem(fpd.src_desc(), eng), w = Mem(fpd.weights_desc(), eng),
             y = Mem(fpd.dst_desc(), eng);
      memory dw = Mem(wpd.diff_weights_desc(), eng);
      fwd_t fwd(fpd);
      bwd_w_t bwd_w(wpd);
      Timing t[3] = {};
      t[0] = Seconds(
          [&] {
            fwd.execute(strm, {{DNNL_ARG_SRC, x}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, y}});
            strm.wait();
          },
          reps);
      t[2] = Seconds(
          [&] {
            bwd_w.execute(strm,
                          {{DNNL_ARG_SRC, x}, {DNNL_ARG_DIFF_DST, y}, {DNNL_ARG_DIFF_WEIGHTS, dw}});
            strm.wait();
          },
          reps);
      std::string impls = std::string(fpd.impl_info_str()) + ", ";
      if (c.c != 3) {  // the stem's data gradient is never needed
        const bwd_d_t::primitive_desc dpd(
            bwd_d_t::desc(dnnl::algorithm::convolution_direct, fpd.src_desc(), w_any,
                          fpd.dst_desc(), strides, pad_l, pad_r),
            eng, fpd);
        memory wd = Mem(dpd.weights_desc(), eng), dx = Mem(dpd.diff_src_desc(), eng);
        bwd_d_t bwd_d(dpd);
        t[1] = Seconds(
            [&] {
              bwd_d.execute(
                  strm, {{DNNL_ARG_DIFF_DST, y}, {DNNL_ARG_WEIGHTS, wd}, {DNNL_ARG_DIFF_SRC, dx}});
              strm.wait();
            },
            reps);
        impls += std::string(dpd.impl_info_str()) + ", ";
      }
      impls += wpd.impl_info_str();
      for (int i = 0; i < 3; ++i) {
        total[i] += t[i].cold * c.count;
        warm_total += t[i].warm * c.count;
      }
      flops += 2.0 * n * c.o * ohw * ohw * c.c * c.k * c.k * c.count * (c.c == 3 ? 2 : 3);
      const double gflop = 2.0 * n * c.o * ohw * ohw * c.c * c.k * c.k * 1e-9;
      std::printf("%-26s %5d %10.2f %10.2f %10.2f %8.0f  %s\n", c.Name().c_str(), c.count,
                  t[0].cold * 1e3, t[1].cold * 1e3, t[2].cold * 1e3, gflop / t[0].cold,
                  impls.c_str());
    }
  } catch (const dnnl::error& e) {
    std::fprintf(stderr, "oneDNN: %s (bfloat16 needs AVX512_BF16 or AMX)\n", e.what());
    return 1;
  }
  const double sum = total[0] + total[1] + total[2];
  std::printf(
      "floor: %.3f s/step (forward %.3f, backward data %.3f, backward weights %.3f) = %.2f img/s "
      "at "
      "%.0f GFLOP/s (cold caches; warm: %.3f s/step = %.2f img/s)\n",
      sum, total[0], total[1], total[2], n / sum, flops / sum * 1e-9, warm_total, n / warm_total);
  return 0;
}
