/*!
 * \brief The typed C++ helpers (symnet/ops.h, ops_nn.h, ops_tensor.h) build the JSON that MXNet
 *  1.9.1's Python API writes for the same calls: kMXNetJson below is MXNet's output for the
 *  network of BuildWithHelpers (made by the script in this file's comment at the end).
 */
#include <gtest/gtest.h>

#include <optional>

#include "../test_util.h"

namespace symnet {
namespace {

// MXNet 1.9.1's mx.sym.Group(...).tojson() for the network below, compacted
const char* kMXNetJson =
    "{\"nodes\":[{\"op\":\"null\",\"name\":\"data\",\"inputs\":[]},{\"op\":\"null\",\"name\":\"c1_"
    "weight\",\"attrs\":"
    "{\"kernel\":\"(3, 3)\",\"num_filter\":\"8\",\"pad\":\"(1, 1)\",\"stride\":\"(1, "
    "1)\"},\"inputs\":[]},{\"op\":\""
    "null\",\"name\":\"c1_bias\",\"attrs\":{\"kernel\":\"(3, "
    "3)\",\"num_filter\":\"8\",\"pad\":\"(1, 1)\",\"stride\""
    ":\"(1, "
    "1)\"},\"inputs\":[]},{\"op\":\"Convolution\",\"name\":\"c1\",\"attrs\":{\"kernel\":\"(3, "
    "3)\",\"num_fi"
    "lter\":\"8\",\"pad\":\"(1, 1)\",\"stride\":\"(1, "
    "1)\"},\"inputs\":[[0,0,0],[1,0,0],[2,0,0]]},{\"op\":\"nul"
    "l\",\"name\":\"b1_gamma\",\"attrs\":{\"eps\":\"2e-05\",\"fix_gamma\":\"False\"},\"inputs\":[]}"
    ",{\"op\":\"null\""
    ",\"name\":\"b1_beta\",\"attrs\":{\"eps\":\"2e-05\",\"fix_gamma\":\"False\"},\"inputs\":[]},{"
    "\"op\":\"null\",\"n"
    "ame\":\"b1_moving_mean\",\"attrs\":{\"__init__\":\"[\\\"zero\\\", "
    "{}]\",\"eps\":\"2e-05\",\"fix_gamma\":\"Fals"
    "e\"},\"inputs\":[]},{\"op\":\"null\",\"name\":\"b1_moving_var\",\"attrs\":{\"__init__\":\"["
    "\\\"one\\\", {}]\",\""
    "eps\":\"2e-05\",\"fix_gamma\":\"False\"},\"inputs\":[]},{\"op\":\"BatchNorm\",\"name\":\"b1\","
    "\"attrs\":{\"eps"
    "\":\"2e-05\",\"fix_gamma\":\"False\"},\"inputs\":[[3,0,0],[4,0,0],[5,0,0],[6,0,1],[7,0,1]]},{"
    "\"op\":\""
    "LeakyReLU\",\"name\":\"a1\",\"attrs\":{\"slope\":\"0.1\"},\"inputs\":[[8,0,0]]},{\"op\":"
    "\"LRN\",\"name\":\"l1\""
    ",\"attrs\":{\"nsize\":\"5\"},\"inputs\":[[9,0,0]]},{\"op\":\"Pooling\",\"name\":\"p1\","
    "\"attrs\":{\"kernel\":\""
    "(2, 2)\",\"pool_type\":\"max\",\"stride\":\"(2, "
    "2)\"},\"inputs\":[[10,0,0]]},{\"op\":\"null\",\"name\":\"dw_"
    "weight\",\"attrs\":{\"kernel\":\"(3, "
    "3)\",\"no_bias\":\"True\",\"num_filter\":\"8\",\"num_group\":\"8\",\"pad\""
    ":\"(1, "
    "1)\"},\"inputs\":[]},{\"op\":\"Convolution\",\"name\":\"dw\",\"attrs\":{\"kernel\":\"(3, "
    "3)\",\"no_bia"
    "s\":\"True\",\"num_filter\":\"8\",\"num_group\":\"8\",\"pad\":\"(1, "
    "1)\"},\"inputs\":[[11,0,0],[12,0,0]]},{"
    "\"op\":\"null\",\"name\":\"d1_weight\",\"attrs\":{\"kernel\":\"(2, "
    "2)\",\"num_filter\":\"4\",\"stride\":\"(2, 2"
    ")\"},\"inputs\":[]},{\"op\":\"Deconvolution\",\"name\":\"d1\",\"attrs\":{\"kernel\":\"(2, "
    "2)\",\"num_filter\""
    ":\"4\",\"stride\":\"(2, "
    "2)\"},\"inputs\":[[13,0,0],[14,0,0]]},{\"op\":\"Concat\",\"name\":\"cat\",\"attrs\":"
    "{\"dim\":\"1\",\"num_args\":\"2\"},\"inputs\":[[15,0,0],[10,0,0]]},{\"op\":\"null\",\"name\":"
    "\"ln_gamma\",\"a"
    "ttrs\":{\"axis\":\"1\"},\"inputs\":[]},{\"op\":\"null\",\"name\":\"ln_beta\",\"attrs\":{"
    "\"axis\":\"1\"},\"inputs"
    "\":[]},{\"op\":\"LayerNorm\",\"name\":\"ln\",\"attrs\":{\"axis\":\"1\"},\"inputs\":[[16,0,0],["
    "17,0,0],[18,0"
    ",0]]},{\"op\":\"Pooling\",\"name\":\"gp\",\"attrs\":{\"global_pool\":\"True\",\"kernel\":\"(1,"
    " 1)\",\"pool_ty"
    "pe\":\"avg\"},\"inputs\":[[19,0,0]]},{\"op\":\"Flatten\",\"name\":\"fl\",\"inputs\":[[20,0,0]]"
    "},{\"op\":\"Dr"
    "opout\",\"name\":\"dr\",\"attrs\":{\"p\":\"0.25\"},\"inputs\":[[21,0,0]]},{\"op\":\"null\","
    "\"name\":\"fc_weigh"
    "t\",\"attrs\":{\"num_hidden\":\"6\"},\"inputs\":[]},{\"op\":\"null\",\"name\":\"fc_bias\","
    "\"attrs\":{\"num_hid"
    "den\":\"6\"},\"inputs\":[]},{\"op\":\"FullyConnected\",\"name\":\"fc\",\"attrs\":{\"num_"
    "hidden\":\"6\"},\"inpu"
    "ts\":[[22,0,0],[23,0,0],[24,0,0]]},{\"op\":\"clip\",\"name\":\"cl\",\"attrs\":{\"a_max\":\"1."
    "0\",\"a_min\":"
    "\"-1.0\"},\"inputs\":[[25,0,0]]},{\"op\":\"MakeLoss\",\"name\":\"loss\",\"inputs\":[[26,0,0]]}"
    ",{\"op\":\"nu"
    "ll\",\"name\":\"tokens\",\"inputs\":[]},{\"op\":\"null\",\"name\":\"emb_weight\",\"attrs\":{"
    "\"input_dim\":\"20"
    "\",\"output_dim\":\"6\"},\"inputs\":[]},{\"op\":\"Embedding\",\"name\":\"emb\",\"attrs\":{"
    "\"input_dim\":\"20\","
    "\"output_dim\":\"6\"},\"inputs\":[[28,0,0],[29,0,0]]},{\"op\":\"null\",\"name\":\"rnn_"
    "parameters\",\"attr"
    "s\":{\"bidirectional\":\"True\",\"mode\":\"lstm\",\"num_layers\":\"2\",\"state_size\":\"7\"},"
    "\"inputs\":[]},{"
    "\"op\":\"null\",\"name\":\"rnn_state\",\"attrs\":{\"bidirectional\":\"True\",\"mode\":"
    "\"lstm\",\"num_layers\":"
    "\"2\",\"state_size\":\"7\"},\"inputs\":[]},{\"op\":\"null\",\"name\":\"rnn_state_cell\","
    "\"attrs\":{\"bidirect"
    "ional\":\"True\",\"mode\":\"lstm\",\"num_layers\":\"2\",\"state_size\":\"7\"},\"inputs\":[]},{"
    "\"op\":\"RNN\",\"n"
    "ame\":\"rnn\",\"attrs\":{\"bidirectional\":\"True\",\"mode\":\"lstm\",\"num_layers\":\"2\","
    "\"state_size\":\"7\""
    "},\"inputs\":[[30,0,0],[31,0,0],[32,0,0],[33,0,0]]},{\"op\":\"slice_axis\",\"name\":\"last\","
    "\"attrs\""
    ":{\"axis\":\"0\",\"begin\":\"4\",\"end\":\"None\"},\"inputs\":[[34,0,0]]},{\"op\":"
    "\"SliceChannel\",\"name\":\"h"
    "alves\",\"attrs\":{\"axis\":\"2\",\"num_outputs\":\"2\"},\"inputs\":[[35,0,0]]},{\"op\":"
    "\"transpose\",\"name"
    "\":\"tr\",\"attrs\":{\"axes\":\"(1, 0, "
    "2)\"},\"inputs\":[[36,0,0]]},{\"op\":\"batch_dot\",\"name\":\"bd\",\"at"
    "trs\":{\"transpose_b\":\"True\"},\"inputs\":[[37,0,0],[37,0,0]]},{\"op\":\"expand_dims\","
    "\"name\":\"ex\","
    "\"attrs\":{\"axis\":\"1\"},\"inputs\":[[26,0,0]]},{\"op\":\"dot\",\"name\":\"dt\",\"attrs\":{"
    "\"transpose_b\":\""
    "True\"},\"inputs\":[[25,0,0],[25,0,0]]},{\"op\":\"elemwise_add\",\"name\":\"add\",\"inputs\":["
    "[40,0,0],"
    "[40,0,0]]}],\"arg_nodes\":[0,1,2,4,5,6,7,12,14,17,18,23,24,28,29,31,32,33],\"node_row_ptr\":[0"
    ",1,2,3,4,5,6,7,8,11,12,14,16,17,18,19,20,21,22,23,26,27,28,30,31,32,33,34,35,36,37,38,39,4"
    "0,41,42,43,45,46,47,48,49,50],\"heads\":[[27,0,0],[38,0,0],[39,0,0],[41,0,0],[36,1,0]],\"attr"
    "s\":{\"mxnet_version\":[\"int\",10901]}}";

Symbol BuildWithHelpers() {
  Symbol data = Symbol::Variable("data");
  Symbol c1 = op::Convolution(data, 8, Shape{3, 3}, Shape{1, 1}, Shape{1, 1}, "c1");
  Symbol b1 = op::BatchNorm(c1, "b1", /*fix_gamma=*/false, /*eps=*/2e-5);
  Symbol a1 = op::LeakyReLU(b1, "leaky", 0.1, "a1");
  Symbol l1 = op::LRN(a1, 5, "l1");
  Symbol p1 = op::Pooling(l1, Shape{2, 2}, "max", Shape{2, 2}, Shape(), "p1");
  Symbol dw = op::Convolution(p1, 8, Shape{3, 3}, Shape(), Shape{1, 1}, "dw", /*no_bias=*/true,
                              /*num_group=*/8);
  Symbol d1 = op::Deconvolution(dw, 4, Shape{2, 2}, Shape{2, 2}, Shape(), "d1");
  Symbol cat = op::Concat({d1, l1}, 1, "cat");
  Symbol ln = op::LayerNorm(cat, "ln", 1);
  Symbol gp = op::Pooling(ln, Shape{1, 1}, "avg", Shape(), Shape(), "gp", /*global_pool=*/true);
  Symbol fc = op::FullyConnected(op::Dropout(op::Flatten(gp, "fl"), 0.25, "dr"), 6, "fc");
  Symbol cl = op::clip(fc, -1.0, 1.0, "cl");
  Symbol emb = op::Embedding(Symbol::Variable("tokens"), 20, 6, "emb");
  Symbol rnn = op::RNN(emb, 7, 2, "lstm", "rnn", /*bidirectional=*/true);
  Symbol last = op::slice_axis(rnn, 0, 4, std::nullopt, "last");
  Symbol halves = op::SliceChannel(last, 2, 2, false, "halves");
  Symbol tr = op::transpose(halves[0], Shape{1, 0, 2}, "tr");
  Symbol bd = op::batch_dot(tr, tr, "bd", false, /*transpose_b=*/true);
  Symbol ex = op::expand_dims(cl, 1, "ex");
  Symbol dt = op::dot(fc, fc, "dt", false, /*transpose_b=*/true);
  Symbol add = op::elemwise_add(dt, dt, "add");
  return Symbol::Group({op::MakeLoss(cl, "loss"), bd, ex, add, halves[1]});
}

TEST(OpsHelpers, WriteTheJsonMXNetWrites) {
  const Symbol ours = BuildWithHelpers();
  const Symbol theirs = Symbol::FromJSON(kMXNetJson);
  EXPECT_EQ(ours.ToJSON(), theirs.ToJSON());
  EXPECT_EQ(ours.AttrDict(), theirs.AttrDict());
}

TEST(OpsHelpers, NetworkInfersShapes) {
  const Symbol net = BuildWithHelpers();
  std::vector<Shape> args, outs, aux;
  ASSERT_TRUE(
      net.InferShape({{"data", Shape{2, 3, 16, 16}}, {"tokens", Shape{5, 2}}}, &args, &outs, &aux));
  ASSERT_EQ(outs.size(), 5u);
  EXPECT_EQ(outs[0], (Shape{2, 6}));     // loss
  EXPECT_EQ(outs[1], (Shape{2, 1, 1}));  // bd
  EXPECT_EQ(outs[2], (Shape{2, 1, 6}));  // ex
  EXPECT_EQ(outs[3], (Shape{2, 2}));     // add
  EXPECT_EQ(outs[4], (Shape{1, 2, 7}));  // the second half of the last step
  EXPECT_EQ(aux.size(), 2u);             // b1's moving statistics
}

}  // namespace
}  // namespace symnet

// The MXNet side (run with build/mxnet-venv/bin/python, prints kMXNetJson before compacting):
// """The network of tests/cpp/core/ops_helpers_test.cc, built with MXNet 1.9.1's Python API."""
// import mxnet as mx
// data = mx.sym.var("data")
// c1 = mx.sym.Convolution(data, kernel=(3, 3), num_filter=8, stride=(1, 1), pad=(1, 1), name="c1")
// b1 = mx.sym.BatchNorm(c1, fix_gamma=False, eps=2e-5, name="b1")
// a1 = mx.sym.LeakyReLU(b1, slope=0.1, name="a1")
// l1 = mx.sym.LRN(a1, nsize=5, name="l1")
// p1 = mx.sym.Pooling(l1, kernel=(2, 2), pool_type="max", stride=(2, 2), name="p1")
// dw = mx.sym.Convolution(p1, kernel=(3, 3), num_filter=8, pad=(1, 1), num_group=8, no_bias=True,
// name="dw") d1 = mx.sym.Deconvolution(dw, kernel=(2, 2), num_filter=4, stride=(2, 2), name="d1")
// cat = mx.sym.Concat(d1, l1, dim=1, name="cat")
// ln = mx.sym.LayerNorm(cat, axis=1, name="ln")
// gp = mx.sym.Pooling(ln, kernel=(1, 1), pool_type="avg", global_pool=True, name="gp")
// fl = mx.sym.Flatten(gp, name="fl")
// dr = mx.sym.Dropout(fl, p=0.25, name="dr")
// fc = mx.sym.FullyConnected(dr, num_hidden=6, name="fc")
// cl = mx.sym.clip(fc, a_min=-1.0, a_max=1.0, name="cl")
// tok = mx.sym.var("tokens")
// emb = mx.sym.Embedding(tok, input_dim=20, output_dim=6, name="emb")
// rnn = mx.sym.RNN(emb, state_size=7, num_layers=2, mode="lstm", bidirectional=True, name="rnn")
// last = mx.sym.slice_axis(rnn, axis=0, begin=4, end=None, name="last")
// halves = mx.sym.SliceChannel(last, num_outputs=2, axis=2, name="halves")
// tr = mx.sym.transpose(halves[0], axes=(1, 0, 2), name="tr")
// bd = mx.sym.batch_dot(tr, tr, transpose_b=True, name="bd")
// ex = mx.sym.expand_dims(cl, axis=1, name="ex")
// dt = mx.sym.dot(fc, fc, transpose_b=True, name="dt")
// add = mx.sym.elemwise_add(dt, dt, name="add")
// out = mx.sym.Group([mx.sym.MakeLoss(cl, name="loss"), bd, ex, add, halves[1]])
// print(out.tojson())
