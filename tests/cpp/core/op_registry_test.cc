/*! \brief The registry: lookup, aliases, the attribute contract every op must meet. */
#include <gtest/gtest.h>

#include "symnet/symnet.h"

namespace symnet {
namespace {

TEST(OpRegistry, LookupAndAliases) {
  EXPECT_EQ(Op::Get("_Plus"), Op::Get("elemwise_add"));
  EXPECT_EQ(Op::Get("ElementWiseSum"), Op::Get("add_n"));
  EXPECT_EQ(Op::Find("NoSuchOp"), nullptr);
  try {
    Op::Get("FullyConected");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean FullyConnected"), std::string::npos);
  }
}

// Every forward op can be inferred and run on the CPU; every backward op can run.
TEST(OpRegistry, EveryOpMeetsTheContract) {
  const auto names = Op::ListNames();
  EXPECT_GE(names.size(), 30u);
  for (const auto& name : names) {
    const Op* op = Op::Get(name);
    EXPECT_TRUE(op->has_attr("FCompute<cpu>")) << name;
    if (!op->attr<TIsBackward>("TIsBackward")) {
      EXPECT_TRUE(op->has_attr("FInferShape")) << name;
      EXPECT_FALSE(op->description.empty()) << name;
    }
  }
}

TEST(OpRegistry, ParameterErrorsNameOpNodeKeyAndChoices) {
  auto msg_of = [](const std::map<std::string, std::string>& params) {
    try {
      CreateOpNode(Op::Get("Activation"), "act1", params, {});
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  std::string m = msg_of({{"act_type", "relux"}});
  EXPECT_NE(m.find("Activation"), std::string::npos) << m;
  EXPECT_NE(m.find("'act1'"), std::string::npos) << m;
  EXPECT_NE(m.find("relu"), std::string::npos) << m;
  m = msg_of({{"act_type", "relu"}, {"slope", "0.1"}});
  EXPECT_NE(m.find("unknown attribute 'slope'"), std::string::npos) << m;
  EXPECT_NE(m.find("accepted: act_type"), std::string::npos) << m;
  m = msg_of({});
  EXPECT_NE(m.find("act_type"), std::string::npos) << m;
  // user attributes ("__x__") are not parameters
  EXPECT_EQ(msg_of({{"act_type", "tanh"}, {"__lr_mult__", "2"}}), "");
}

}  // namespace
}  // namespace symnet
