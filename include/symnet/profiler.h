/*!
 * \brief The process-wide profiler behind mx.profiler: records spans (one per operator call,
 *  executor step or user event), counters (bytes in use) and instant markers while running, and
 *  writes them as a Chrome trace (chrome://tracing, Perfetto) or an aggregate table.
 */
#ifndef SYMNET_PROFILER_H_
#define SYMNET_PROFILER_H_

#include <atomic>
#include <cstdint>
#include <string>

namespace symnet {
namespace profiler {

/*! \brief What is recorded (MXNet's profile_symbolic, _imperative, _api and _memory). */
struct Config {
  bool symbolic = true;    // ops run by a bound executor (Module, hybridized Gluon)
  bool imperative = true;  // ops called one by one (mx.nd, autograd)
  bool api = true;         // executor forward/backward calls
  bool memory = true;      // bytes allocated per device, as counters
  bool aggregate = false;  // keep per-name totals for AggregateTable
};

enum class Category { kSymbolic, kImperative, kApi, kMemory, kUser };

void SetConfig(const Config& config);
Config GetConfig();

/*! \brief Starts (true) or stops recording; records stay until dumped or cleared. */
void SetRunning(bool running);
bool IsRunning();
/*! \brief While paused, a running profiler records nothing (MXNet's pause/resume). */
void SetPaused(bool paused);

namespace detail {
extern std::atomic<uint32_t> g_recording;  // bit per Category; 0 when stopped or paused
}

/*! \brief Whether events of this category are being recorded now (one atomic load). */
inline bool Recording(Category c) {
  return (detail::g_recording.load(std::memory_order_relaxed) >> static_cast<int>(c)) & 1u;
}

/*! \brief Microseconds on the steady clock the trace's timestamps use. */
int64_t NowMicros();

/*!
 * \brief One complete span. `device` groups spans into a trace process ("cpu/0", "gpu/1",
 *  "api", or a user domain); `detail` (may be empty) is shown as the span's args.node.
 */
void RecordSpan(Category c, const std::string& name, const std::string& device,
                const std::string& detail, int64_t start_us, int64_t end_us);
/*! \brief A counter sample (Chrome trace "C" event). */
void RecordCounter(Category c, const std::string& name, const std::string& device, double value);
/*! \brief An instant event; scope is "global", "process" or "thread". */
void RecordMarker(Category c, const std::string& name, const std::string& device,
                  const std::string& scope);

/*! \brief Everything recorded so far as Chrome trace JSON; `clear` drops the records after. */
std::string ChromeTraceJSON(bool clear);
/*!
 * \brief Per-name totals (count, total/min/max/avg milliseconds) of the spans since the last
 *  reset, grouped by device; as a text table or JSON. sort_by: "total", "avg", "min", "max" or
 *  "count". Needs Config::aggregate.
 */
std::string AggregateTable(bool json, const std::string& sort_by, bool ascending, bool reset);
/*! \brief Drops records and totals. */
void Clear();

/*! \brief Records a span over its lifetime when `c` is being recorded at construction. */
class Span {
 public:
  Span(Category c, const char* name, const char* device)
      : c_(c), name_(name), device_(device), start_(Recording(c) ? NowMicros() : -1) {}
  ~Span() {
    if (start_ >= 0) RecordSpan(c_, name_, device_, std::string(), start_, NowMicros());
  }
  Span(const Span&) = delete;
  Span& operator=(const Span&) = delete;

 private:
  Category c_;
  const char* name_;
  const char* device_;
  int64_t start_;
};

}  // namespace profiler
}  // namespace symnet

#endif  // SYMNET_PROFILER_H_
