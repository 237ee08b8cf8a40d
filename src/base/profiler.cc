/*!
 * \brief The profiler's record buffer, its Chrome-trace writer and its aggregate table. Records
 *  are appended under one mutex: they are only taken while the profiler runs, at most one per
 *  operator call, which costs far less than the call itself.
 */
#include "symnet/profiler.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iomanip>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "symnet/base.h"

namespace symnet {
namespace profiler {

namespace detail {
std::atomic<uint32_t> g_recording{0};
}

namespace {

struct Record {
  char phase;  // 'X' span, 'C' counter, 'i' instant
  Category category;
  std::string name, device, detail;
  int64_t ts, dur;
  double value;
  uint64_t tid;
};

struct Totals {
  int64_t count = 0;
  double total_ms = 0, min_ms = 0, max_ms = 0;
};

struct State {
  std::mutex mu;
  Config config;
  bool running = false, paused = false;
  std::vector<Record> records;
  std::map<std::string, std::map<std::string, Totals>> totals;  // device -> name -> totals

  void Publish() {
    uint32_t bits = 0;
    if (running && !paused) {
      const bool on[] = {config.symbolic, config.imperative, config.api, config.memory, true};
      for (int c = 0; c < 5; ++c)
        if (on[c]) bits |= 1u << c;
    }
    detail::g_recording.store(bits, std::memory_order_relaxed);
  }
};

State& Get() {
  static State* s = new State();  // never destroyed: storage freed at exit may still record
  return *s;
}

uint64_t ThreadId() {
  // small stable numbers per thread read better in the trace viewer than hashed ids
  static std::atomic<uint64_t> next{0};
  thread_local const uint64_t id = next++;
  return id;
}

const char* CategoryName(Category c) {
  switch (c) {
    case Category::kSymbolic:
      return "operator";
    case Category::kImperative:
      return "imperative";
    case Category::kApi:
      return "api";
    case Category::kMemory:
      return "memory";
    default:
      return "user";
  }
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char ch : s) {
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += static_cast<char>(ch);
    } else if (ch < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", ch);
      out += buf;
    } else {
      out += static_cast<char>(ch);
    }
  }
  return out + "\"";
}

void Append(Record r) {
  State& s = Get();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.running || s.paused) return;  // stopped between the caller's check and now
  if (r.phase == 'X' && s.config.aggregate) {
    Totals& t = s.totals[r.device][r.name];
    const double ms = static_cast<double>(r.dur) / 1000.0;
    t.min_ms = t.count == 0 ? ms : std::min(t.min_ms, ms);
    t.max_ms = t.count == 0 ? ms : std::max(t.max_ms, ms);
    t.total_ms += ms;
    ++t.count;
  }
  s.records.push_back(std::move(r));
}

}  // namespace

void SetConfig(const Config& config) {
  State& s = Get();
  std::lock_guard<std::mutex> lock(s.mu);
  s.config = config;
  s.Publish();
}

Config GetConfig() {
  State& s = Get();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.config;
}

void SetRunning(bool running) {
  State& s = Get();
  std::lock_guard<std::mutex> lock(s.mu);
  s.running = running;
  s.paused = false;
  s.Publish();
}

bool IsRunning() {
  State& s = Get();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.running;
}

void SetPaused(bool paused) {
  State& s = Get();
  std::lock_guard<std::mutex> lock(s.mu);
  s.paused = paused;
  s.Publish();
}

int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void RecordSpan(Category c, const std::string& name, const std::string& device,
                const std::string& detail, int64_t start_us, int64_t end_us) {
  if (!Recording(c)) return;
  Append(Record{'X', c, name, device, detail, start_us, std::max<int64_t>(end_us - start_us, 0),
                0.0, ThreadId()});
}

void RecordCounter(Category c, const std::string& name, const std::string& device, double value) {
  if (!Recording(c)) return;
  Append(Record{'C', c, name, device, std::string(), NowMicros(), 0, value, ThreadId()});
}

void RecordMarker(Category c, const std::string& name, const std::string& device,
                  const std::string& scope) {
  SYMNET_CHECK(scope == "global" || scope == "process" || scope == "thread")
      << "profiler marker '" << name << "': scope '" << scope
      << "' is not one of global, process, thread";
  if (!Recording(c)) return;
  Append(Record{'i', c, name, device, scope, NowMicros(), 0, 0.0, ThreadId()});
}

std::string ChromeTraceJSON(bool clear) {
  State& s = Get();
  std::vector<Record> records;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    records = clear ? std::move(s.records) : s.records;
    if (clear) s.records.clear();
  }
  // one trace "process" per device (or domain), named by a metadata event
  std::map<std::string, int> pids;
  for (const Record& r : records) pids.emplace(r.device, 0);
  int next = 0;
  for (auto& kv : pids) kv.second = next++;
  std::ostringstream os;
  os << "{\n\"traceEvents\": [\n";
  bool first = true;
  auto sep = [&]() -> std::ostream& {
    os << (first ? "" : ",\n");
    first = false;
    return os;
  };
  for (const auto& kv : pids)
    sep() << R"({"ph": "M", "name": "process_name", "pid": )" << kv.second
          << R"(, "args": {"name": )" << JsonString(kv.first) << "}}";
  for (const Record& r : records) {
    sep() << "{\"name\": " << JsonString(r.name) << ", \"cat\": \"" << CategoryName(r.category)
          << "\", \"ph\": \"" << r.phase << "\", \"ts\": " << r.ts
          << ", \"pid\": " << pids[r.device] << ", \"tid\": " << r.tid;
    if (r.phase == 'X') {
      os << ", \"dur\": " << r.dur;
      if (!r.detail.empty()) os << ", \"args\": {\"node\": " << JsonString(r.detail) << "}";
    } else if (r.phase == 'C') {
      os << ", \"args\": {" << JsonString(r.name) << ": " << std::setprecision(17) << r.value
         << "}";
    } else {
      os << ", \"s\": \"" << r.detail[0] << "\"";
    }
    os << "}";
  }
  os << "\n],\n\"displayTimeUnit\": \"ms\"\n}\n";
  return os.str();
}

std::string AggregateTable(bool json, const std::string& sort_by, bool ascending, bool reset) {
  static const std::map<std::string, std::function<double(const Totals&)>> keys = {
      {"total", [](const Totals& t) { return t.total_ms; }},
      {"avg", [](const Totals& t) { return t.total_ms / static_cast<double>(t.count); }},
      {"min", [](const Totals& t) { return t.min_ms; }},
      {"max", [](const Totals& t) { return t.max_ms; }},
      {"count", [](const Totals& t) { return static_cast<double>(t.count); }}};
  auto key = keys.find(sort_by);
  SYMNET_CHECK(key != keys.end()) << "profiler dumps: sort_by='" << sort_by
                                  << "'; expected total, avg, min, max or count";
  State& s = Get();
  std::map<std::string, std::map<std::string, Totals>> totals;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    SYMNET_CHECK(s.config.aggregate)
        << "profiler dumps: aggregate statistics are off; call "
           "mx.profiler.set_config(aggregate_stats=True) before set_state('run')";
    totals = reset ? std::move(s.totals) : s.totals;
    if (reset) s.totals.clear();
  }
  std::ostringstream os;
  os << std::fixed << std::setprecision(4);
  if (json)
    os << "{\n\"Time\": {";
  else
    os << "Profile Statistics:\n\tNote: times are in milliseconds.\n";
  bool first_dev = true;
  for (const auto& dev : totals) {
    std::vector<std::pair<std::string, Totals>> rows(dev.second.begin(), dev.second.end());
    std::stable_sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
      const double x = key->second(a.second), y = key->second(b.second);
      return ascending ? x < y : x > y;
    });
    if (json) {
      os << (first_dev ? "\n" : ",\n") << JsonString(dev.first) << ": {";
      bool first = true;
      for (const auto& r : rows) {
        const Totals& t = r.second;
        os << (first ? "\n  " : ",\n  ") << JsonString(r.first) << ": {\"Count\": " << t.count
           << ", \"Total\": " << t.total_ms << ", \"Min\": " << t.min_ms
           << ", \"Max\": " << t.max_ms << ", \"Avg\": " << t.total_ms / t.count << "}";
        first = false;
      }
      os << "\n}";
    } else {
      os << "\n" << dev.first << "\n" << std::string(dev.first.size(), '=') << "\n";
      os << std::left << std::setw(40) << "Name" << std::right << std::setw(12) << "Total Count"
         << std::setw(16) << "Time (ms)" << std::setw(16) << "Min Time (ms)" << std::setw(16)
         << "Max Time (ms)" << std::setw(16) << "Avg Time (ms)"
         << "\n";
      os << std::left << std::setw(40) << "----" << std::right << std::setw(12) << "-----------"
         << std::setw(16) << "---------" << std::setw(16) << "-------------" << std::setw(16)
         << "-------------" << std::setw(16) << "-------------"
         << "\n";
      for (const auto& r : rows) {
        const Totals& t = r.second;
        os << std::left << std::setw(40) << r.first << std::right << std::setw(12) << t.count
           << std::setw(16) << t.total_ms << std::setw(16) << t.min_ms << std::setw(16) << t.max_ms
           << std::setw(16) << t.total_ms / t.count << "\n";
      }
    }
    first_dev = false;
  }
  if (json) os << "\n}\n}\n";
  return os.str();
}

void Clear() {
  State& s = Get();
  std::lock_guard<std::mutex> lock(s.mu);
  s.records.clear();
  s.totals.clear();
}

}  // namespace profiler
}  // namespace symnet
