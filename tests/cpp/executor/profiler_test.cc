/*!
 * \brief The C++ profiler: a span per op call of an executor step inside the step's API span,
 *  valid Chrome-trace JSON (read back with the project's parser), categories that follow the
 *  config, the aggregate totals, and the executor monitor's names and NCHW values.
 */
#include "symnet/profiler.h"

#include <gtest/gtest.h>

#include <map>

#include "../test_util.h"
#include "src/core/json.h"

namespace symnet {
namespace {

Symbol Net() {
  Operator conv("Convolution");
  conv.SetParam("kernel", Shape{3, 3}).SetParam("pad", Shape{1, 1}).SetParam("num_filter", 16);
  Symbol c = conv.SetInput("data", Symbol::Variable("data")).CreateSymbol("c1");
  return op::FullyConnected(op::Activation(c, "relu", "a1"), 4, "fc");
}

/*! \brief Stops the profiler and drops its records when a test ends, pass or fail. */
struct ProfilerSession {
  explicit ProfilerSession(profiler::Config c) {
    profiler::SetRunning(false);
    profiler::Clear();
    profiler::SetConfig(c);
  }
  ~ProfilerSession() {
    profiler::SetRunning(false);
    profiler::Clear();
    profiler::SetConfig(profiler::Config());
  }
};

std::vector<json::Value> Events(const std::string& cat, const std::string& ph) {
  const json::Value trace = json::Parse(profiler::ChromeTraceJSON(false));
  std::vector<json::Value> out;
  for (const json::Value& e : trace.Find("traceEvents")->array)
    if (e.Find("ph")->str == ph && (cat.empty() || e.Find("cat")->str == cat)) out.push_back(e);
  return out;
}

TEST(Profiler, SpansPerOpCallInsideTheStepSpan) {
  profiler::Config c;
  c.aggregate = true;
  ProfilerSession session(c);
  auto exe = Executor::SimpleBind(Net(), Device::CPU(), {{"data", Shape{2, 3, 6, 6}}}, {}, {},
                                  GradReq::kWrite);
  exe->Forward(true);  // not recorded: the profiler is stopped
  profiler::SetRunning(true);
  exe->Forward(true);
  exe->Backward({});
  profiler::SetRunning(false);
  exe->Forward(true);  // stopped again
  std::map<std::string, int> ops;
  const auto spans = Events("operator", "X");
  for (const auto& e : spans) ++ops[e.Find("name")->str];
  EXPECT_EQ(ops["Convolution"], 1);
  EXPECT_EQ(ops["FullyConnected"], 1);
  EXPECT_EQ(ops["_backward_Convolution"], 1);
  const auto api = Events("api", "X");
  ASSERT_EQ(api.size(), 2u);
  EXPECT_EQ(api[0].Find("name")->str, "Executor::Forward");
  const double begin = api[0].Find("ts")->number, end = begin + api[0].Find("dur")->number;
  for (const auto& e : spans)
    if (e.Find("name")->str == "Convolution") {
      EXPECT_GE(e.Find("ts")->number, begin);
      EXPECT_LE(e.Find("ts")->number + e.Find("dur")->number, end);
      EXPECT_EQ(e.Find("args")->Find("node")->str, "c1");
    }
  const std::string table = profiler::AggregateTable(false, "count", false, true);
  EXPECT_NE(table.find("Convolution"), std::string::npos) << table;
  EXPECT_EQ(profiler::AggregateTable(false, "total", false, false).find("Convolution"),
            std::string::npos);  // the reset above dropped the totals
  EXPECT_THROW(profiler::AggregateTable(false, "fastest", false, false), Error);
}

TEST(Profiler, CategoriesFollowTheConfigAndPauseRecordsNothing) {
  profiler::Config c;
  c.symbolic = false;
  c.api = false;
  ProfilerSession session(c);
  auto exe = Executor::SimpleBind(Net(), Device::CPU(), {{"data", Shape{2, 3, 6, 6}}}, {}, {},
                                  GradReq::kNull);
  profiler::SetRunning(true);
  exe->Forward(false);
  NDArray x = NDArray::Full(Shape{4}, 2.0);
  Invoke("sqrt", {}, {x});
  profiler::SetPaused(true);
  Invoke("exp", {}, {x});
  profiler::SetPaused(false);
  EXPECT_TRUE(Events("operator", "X").empty());
  EXPECT_TRUE(Events("api", "X").empty());
  const auto imperative = Events("imperative", "X");
  ASSERT_EQ(imperative.size(), 1u);
  EXPECT_EQ(imperative[0].Find("name")->str, "sqrt");
  EXPECT_FALSE(Events("memory", "C").empty());  // the arrays allocated while running
  EXPECT_THROW(profiler::RecordMarker(profiler::Category::kUser, "m", "d", "nowhere"), Error);
}

TEST(ExecutorMonitor, NamesAndLogicalValues) {
  auto exe = Executor::SimpleBind(Net(), Device::CPU(), {{"data", Shape{2, 3, 6, 6}}}, {}, {},
                                  GradReq::kWrite);
  for (NDArray a : exe->arg_arrays()) a.Fill(0.25);
  std::map<std::string, NDArray> seen;
  exe->SetMonitorCallback([&](const std::string& name, const NDArray& v) { seen[name] = v.Copy(); },
                          true);
  exe->Forward(true);
  // c1's output may be in a blocked layout inside the graph: the monitor sees NCHW values,
  // here each 0.25 * (0.25 * 27 in the interior, fewer at the padded border) + 0.25
  ASSERT_TRUE(seen.count("c1_output"));
  const NDArray& c1 = seen["c1_output"];
  EXPECT_EQ(c1.shape(), (Shape{2, 16, 6, 6}));
  const float* p = static_cast<const float*>(c1.dptr());
  EXPECT_FLOAT_EQ(p[0], 0.25f * 0.25f * 12 + 0.25f);  // corner (0, 0): 2 x 2 window x 3
  EXPECT_FLOAT_EQ(p[7], 0.25f * 0.25f * 27 + 0.25f);  // (1, 1): interior
  EXPECT_TRUE(seen.count("c1_data") && seen.count("c1_weight") && seen.count("a1_input0"));
  EXPECT_TRUE(seen.count("fc_output"));
  exe->Backward({});
  EXPECT_TRUE(seen.count("fc_backward_output1"));
  exe->SetMonitorCallback(nullptr);
  seen.clear();
  exe->Forward(true);
  EXPECT_TRUE(seen.empty());
}

}  // namespace
}  // namespace symnet
