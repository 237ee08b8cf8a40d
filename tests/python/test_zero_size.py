"""Zero-size arrays through every op (issue 14): a batch of 0 rows, or an axis of length 0, must
give outputs of the right (zero-size) shape and dtype, write-mode gradients that are zeros (not
whatever the gradient buffer held), and the values numpy gives for reductions of nothing. Never
a crash, a NaN that leaks into a weight, or a moving statistic spoiled by an empty batch.

Each user-visible op has a case below; `test_every_op_has_a_zero_size_case` fails when an op is
registered without one, so a new op cannot skip this check."""
import numpy as np
import pytest

import symnet as mx

GARBAGE = 7.0  # what gradient buffers hold before backward: write-mode must replace it


def _f(*shape):
    return ("float32", shape)


# op -> (inputs {name: (dtype, shape)}, params). Inputs are listed in the op's argument order.
UNARY = ["BlockGrad", "Flatten", "_copy", "abs", "arccos", "arccosh", "arcsin", "arcsinh",
         "arctan", "arctanh", "cbrt", "ceil", "cos", "cosh", "degrees", "erf", "exp", "expm1",
         "fix", "floor", "log", "log10", "log1p", "log2", "negative", "ones_like", "radians",
         "rcbrt", "reciprocal", "relu", "rint", "round", "rsqrt", "sigmoid", "sign", "sin",
         "sinh", "softsign", "sqrt", "square", "tan", "tanh", "trunc", "zeros_like",
         "_convert_layout"]
SCALAR = ["_div_scalar", "_minus_scalar", "_mul_scalar", "_plus_scalar", "_rdiv_scalar",
          "_rminus_scalar"]
BINARY_SAME = ["elemwise_add", "elemwise_div", "elemwise_mul", "elemwise_sub"]
BROADCAST = ["broadcast_add", "broadcast_div", "broadcast_mul", "broadcast_sub"]
# the binary math and comparison ops in their three forms (test_operator_binary.py's tables)
_BINARY_MATH = ["maximum", "minimum", "power", "mod", "hypot", "equal", "not_equal", "greater",
                "greater_equal", "lesser", "lesser_equal", "logical_and", "logical_or", "logical_xor"]
UNARY += ["logical_not"]
# the special functions, hard_sigmoid, softmin and the loss wrappers (test_operator_loss.py)
UNARY += ["erfinv", "gamma", "gammaln", "hard_sigmoid", "softmin", "make_loss"]
SCALAR += ["smooth_l1"]
SCALAR += ["_%s_scalar" % n for n in _BINARY_MATH] + ["_rpower_scalar", "_rmod_scalar"]
BINARY_SAME += ["_" + n for n in _BINARY_MATH]
BROADCAST += ["broadcast_" + n for n in _BINARY_MATH]

CASES = {}
for _op in UNARY:
    CASES[_op] = ({"data": _f(0, 3)}, {})
for _op in SCALAR:
    CASES[_op] = ({"data": _f(0, 3)}, {"scalar": 2.0})
for _op in BINARY_SAME:
    CASES[_op] = ({"lhs": _f(0, 3), "rhs": _f(0, 3)}, {})
for _op in BROADCAST:
    CASES[_op] = ({"lhs": _f(0, 3), "rhs": _f(1, 3)}, {})
CASES.update({
    "Activation": ({"data": _f(0, 3)}, {"act_type": "tanh"}),
    "BatchNorm": ({"data": _f(0, 3, 4, 4), "gamma": _f(3), "beta": _f(3), "moving_mean": _f(3),
                   "moving_var": _f(3)}, {"fix_gamma": False}),
    "_FusedBatchNormReLU": ({"data": _f(0, 3, 4, 4), "gamma": _f(3), "beta": _f(3),
                             "moving_mean": _f(3), "moving_var": _f(3)}, {"fix_gamma": False}),
    "_FusedAddReLU": ({"lhs": _f(0, 3), "rhs": _f(0, 3)}, {}),
    "_contrib_BatchNormWithReLU": ({"data": _f(0, 3, 4, 4), "gamma": _f(3), "beta": _f(3),
                                    "moving_mean": _f(3), "moving_var": _f(3)}, {"fix_gamma": False}),
    "_contrib_SyncBatchNorm": ({"data": _f(0, 3, 4, 4), "gamma": _f(3), "beta": _f(3),
                                "moving_mean": _f(3), "moving_var": _f(3)}, {"fix_gamma": False}),
    "Cast": ({"data": _f(0, 3)}, {"dtype": "float16"}),
    "Concat": ({"arg0": _f(0, 2), "arg1": _f(0, 3)}, {"num_args": 2, "dim": 1}),
    "dot": ({"lhs": _f(0, 3), "rhs": _f(3, 4)}, {}),
    "batch_dot": ({"lhs": _f(0, 2, 3), "rhs": _f(0, 3, 4)}, {}),
    "Convolution": ({"data": _f(0, 2, 5, 5), "weight": _f(4, 2, 3, 3), "bias": _f(4)},
                    {"kernel": (3, 3), "num_filter": 4}),
    "_FusedConvBN": ({"data": _f(0, 2, 5, 5), "weight": _f(4, 2, 3, 3), "gamma": _f(4), "beta": _f(4),
                      "moving_mean": _f(4), "moving_var": _f(4)},
                     {"kernel": (3, 3), "num_filter": 4, "no_bias": True, "bn_fix_gamma": False,
                      "with_relu": True}),
    "Deconvolution": ({"data": _f(0, 2, 3, 3), "weight": _f(2, 4, 3, 3), "bias": _f(4)},
                      {"kernel": (3, 3), "num_filter": 4, "stride": (2, 2), "no_bias": False}),
    "UpSampling": ({"arg0": _f(0, 2, 3, 3), "arg1": _f(0, 1, 6, 6)},
                   {"scale": 2, "sample_type": "nearest", "num_args": 2}),
    "Dropout": ({"data": _f(0, 3)}, {"p": 0.5}),
    "FullyConnected": ({"data": _f(0, 5), "weight": _f(3, 5), "bias": _f(3)}, {"num_hidden": 3}),
    "LeakyReLU": ({"data": _f(0, 3)}, {"act_type": "elu"}),
    "L2Normalization": ({"data": _f(0, 3, 4)}, {"mode": "channel"}),
    "LRN": ({"data": _f(0, 6, 3, 3)}, {"nsize": 5}),
    # an empty batch: gamma and beta get zero gradients (LayerNorm's axis is not empty)
    "LayerNorm": ({"data": _f(0, 3), "gamma": _f(3), "beta": _f(3)}, {"output_mean_var": True}),
    "InstanceNorm": ({"data": _f(0, 2, 3), "gamma": _f(2), "beta": _f(2)}, {}),
    "GroupNorm": ({"data": _f(0, 4, 3), "gamma": _f(2), "beta": _f(2)}, {"num_groups": 2}),
    "LinearRegressionOutput": ({"data": _f(0, 3), "label": _f(0, 3)}, {}),
    "LogisticRegressionOutput": ({"data": _f(0, 3), "label": _f(0, 3)}, {}),
    "MAERegressionOutput": ({"data": _f(0, 3), "label": _f(0, 3)}, {}),
    "SVMOutput": ({"data": _f(0, 3), "label": _f(0)}, {"use_linear": True}),
    "MakeLoss": ({"data": _f(0, 3)}, {"normalization": "valid"}),
    "Pooling": ({"data": _f(0, 2, 4, 4)}, {"kernel": (2, 2), "pool_type": "avg"}),
    "Reshape": ({"data": _f(0, 6)}, {"shape": (0, 2, 3)}),
    "SoftmaxOutput": ({"data": _f(0, 3), "label": _f(0)}, {"normalization": "valid"}),
    "add_n": ({"arg0": _f(0, 3), "arg1": _f(0, 3)}, {"num_args": 2}),
    "all_finite": ({"data": _f(0, 3)}, {}),
    "amp_cast": ({"data": _f(0, 3)}, {"dtype": "bfloat16"}),
    "amp_multicast": ({"arg0": _f(0, 3), "arg1": ("float16", (0, 2))}, {"num_outputs": 2}),
    "clip": ({"data": _f(0, 3)}, {"a_min": -1.0, "a_max": 1.0}),
    "log_softmax": ({"data": _f(3, 0)}, {"axis": 0}),
    "softmax": ({"data": _f(0, 3)}, {}),
    "mean": ({"data": _f(0, 3)}, {"axis": (0,)}),
    "sum": ({"data": _f(0, 3)}, {"axis": (0,)}),
    # reductions of an empty axis give their identity (max -inf, prod 1, ...); the searches need a
    # non-empty axis, so their batch is empty instead
    "max": ({"data": _f(0, 3)}, {"axis": (0,)}),
    "min": ({"data": _f(0, 3)}, {"axis": (0,)}),
    "prod": ({"data": _f(0, 3)}, {"axis": (0,)}),
    "nansum": ({"data": _f(0, 3)}, {"axis": (0,)}),
    "nanprod": ({"data": _f(0, 3)}, {"axis": (0,)}),
    "norm": ({"data": _f(0, 3)}, {"axis": (0,)}),
    "argmax": ({"data": _f(0, 3)}, {"axis": 1}),
    "argmin": ({"data": _f(0, 3)}, {"axis": -1}),
    "argmax_channel": ({"data": _f(0, 3)}, {}),
    "topk": ({"data": _f(0, 3)}, {"k": 2, "ret_typ": "both"}),
    "sort": ({"data": _f(0, 3)}, {}),
    "argsort": ({"data": _f(3, 0)}, {"axis": 0}),
    "softmax_cross_entropy": ({"data": _f(0, 3), "label": _f(0)}, {}),
    "transpose": ({"data": _f(0, 3, 2)}, {"axes": (2, 0, 1)}),
    "expand_dims": ({"data": _f(0, 3)}, {"axis": 1}),
    "squeeze": ({"data": _f(0, 1, 3)}, {}),
    "slice": ({"data": _f(0, 5)}, {"begin": (None, -1), "end": (None, 0), "step": (None, -2)}),
    "slice_axis": ({"data": _f(0, 5)}, {"axis": 1, "begin": 1, "end": -1}),
    "SliceChannel": ({"data": _f(0, 6)}, {"num_outputs": 3, "axis": 1}),
    "multi_all_finite": ({"arg0": _f(0, 3), "arg1": _f(2, 0)}, {"num_arrays": 2}),
    # the broadcast, tile/repeat, reverse, stack, SwapAxis and reshape_like ops
    # (test_operator_shape.py)
    "broadcast_to": ({"data": _f(0, 1)}, {"shape": (0, 4)}),
    "broadcast_like": ({"lhs": _f(0, 1), "rhs": _f(0, 3)}, {}),
    "broadcast_axis": ({"data": _f(0, 1, 2)}, {"axis": (1,), "size": (3,)}),
    "tile": ({"data": _f(0, 3)}, {"reps": (2, 2)}),
    "repeat": ({"data": _f(0, 3)}, {"repeats": 2, "axis": 1}),
    "reverse": ({"data": _f(0, 3)}, {"axis": (0, 1)}),
    "stack": ({"arg0": _f(0, 3), "arg1": _f(0, 3)}, {"num_args": 2, "axis": 1}),
    "SwapAxis": ({"data": _f(0, 3, 2)}, {"dim1": 0, "dim2": 2}),
    "reshape_like": ({"lhs": _f(0, 6), "rhs": _f(3, 0, 2)}, {}),
    # the indexing, diag, shape and creation ops (test_operator_index.py); the index arrays here
    # hold values in [0.5, 1.5), which truncate to 0 or 1
    "where": ({"condition": _f(0, 3), "x": _f(0, 3), "y": _f(0, 3)}, {}),
    "take": ({"a": _f(0, 3), "indices": _f(2,)}, {"axis": 1}),
    "pick": ({"data": _f(0, 3), "index": _f(0,)}, {"axis": 1}),
    "batch_take": ({"a": _f(0, 3), "indices": ("int32", (0,))}, {}),
    "one_hot": ({"indices": _f(0,)}, {"depth": 3}),
    "slice_like": ({"data": _f(0, 5), "shape_like": _f(0, 2)}, {}),
    "diag": ({"data": _f(0, 3)}, {}),
    "shape_array": ({"data": _f(0, 3)}, {}),
    "size_array": ({"data": _f(0, 3)}, {}),
    "_zeros": ({}, {"shape": (0, 3)}),
    "_ones": ({}, {"shape": (2, 0)}),
    "_full": ({}, {"shape": (0,), "value": 2.0}),
    "_arange": ({}, {"start": 1, "stop": 1}),
    # the random samplers and shuffle (test_operator_random.py): no samples, or no parameters
    "_random_uniform": ({}, {"shape": (0, 3)}),
    "_random_normal": ({}, {"shape": (2, 0)}),
    "_random_gamma": ({}, {"shape": (0,), "alpha": 2.0}),
    "_random_exponential": ({}, {"shape": (0, 1)}),
    "_random_poisson": ({}, {"shape": (0,), "lam": 20.0}),
    "_random_randint": ({}, {"shape": (0, 2), "low": 0, "high": 5}),
    "_sample_uniform": ({"low": _f(0, 3), "high": _f(0, 3)}, {"shape": (2,)}),
    "_sample_normal": ({"mu": _f(2,), "sigma": _f(2,)}, {"shape": (0,)}),
    "_sample_gamma": ({"alpha": _f(0,), "beta": _f(0,)}, {}),
    "_sample_exponential": ({"lam": _f(0, 2)}, {"shape": (3,)}),
    "_sample_poisson": ({"lam": _f(3, 0)}, {}),
    "_random_negative_binomial": ({}, {"shape": (0, 2), "k": 3, "p": 0.4}),
    "_random_generalized_negative_binomial": ({}, {"shape": (2, 0), "mu": 2.0, "alpha": 0.5}),
    "_sample_negative_binomial": ({"k": _f(0, 2), "p": _f(0, 2)}, {"shape": (3,)}),
    "_sample_generalized_negative_binomial": ({"mu": _f(2,), "alpha": _f(2,)}, {"shape": (0,)}),
    "_random_uniform_like": ({"data": _f(0, 3)}, {"low": -1.0}),
    "_random_normal_like": ({"data": _f(2, 0)}, {}),
    "_random_gamma_like": ({"data": _f(0,)}, {"alpha": 2.0}),
    "_random_exponential_like": ({"data": _f(0, 1)}, {}),
    "_random_poisson_like": ({"data": _f(0,)}, {"lam": 20.0}),
    "_random_negative_binomial_like": ({"data": _f(0, 2)}, {"k": 2, "p": 0.5}),
    "_random_generalized_negative_binomial_like": ({"data": _f(3, 0)}, {"mu": 1.5, "alpha": 0.0}),
    # empty rows of categories; get_prob gives the output with a gradient
    "_sample_multinomial": ({"data": _f(0, 3)}, {"shape": (2,), "get_prob": True}),
    "_shuffle": ({"data": _f(0, 3)}, {}),
    # Embedding, the sequence ops and SoftmaxActivation (test_operator_seq.py): no indices, no
    # time steps, an empty batch
    "Embedding": ({"data": _f(0,), "weight": _f(4, 3)}, {"input_dim": 4, "output_dim": 3}),
    "SequenceMask": ({"data": _f(0, 3), "sequence_length": _f(3,)}, {"use_sequence_length": True}),
    "SequenceLast": ({"data": _f(3, 0, 2), "sequence_length": _f(0,)}, {"use_sequence_length": True}),
    "SoftmaxActivation": ({"data": _f(0, 3)}, {}),
    # CTC over an empty batch (test_operator_ctc.py): an empty loss, no gradient to write
    "CTCLoss": ({"data": _f(3, 0, 4), "label": _f(0, 2)}, {}),
    # Pad, Crop, BilinearResize2D (test_operator_pad.py): constant padding of an empty axis (a
    # non-empty output), an empty batch, and a resize to an empty height (a non-empty input)
    "Pad": ({"data": _f(1, 2, 0, 3)}, {"mode": "constant", "pad_width": (0, 0, 0, 0, 1, 1, 0, 2)}),
    "Crop": ({"arg0": _f(0, 2, 4, 4), "arg1": _f(1, 1, 2, 3)}, {"num_args": 2, "center_crop": True}),
    "_contrib_BilinearResize2D": ({"data": _f(2, 1, 1, 3)}, {"mode": "to_even_down"}),
    # the SSD and RPN ops (test_operator_multibox.py): an empty feature map (no anchors), empty
    # batches, and Proposal asked for no rows
    "_contrib_MultiBoxPrior": ({"data": _f(2, 3, 0, 4)}, {"sizes": (0.5, 0.25)}),
    "_contrib_MultiBoxTarget": ({"anchor": _f(1, 4, 4), "label": _f(0, 2, 5), "cls_pred": _f(0, 3, 4)}, {}),
    "_contrib_MultiBoxDetection": ({"cls_prob": _f(0, 3, 4), "loc_pred": _f(0, 16), "anchor": _f(1, 4, 4)}, {}),
    "_contrib_MultiProposal": ({"cls_prob": _f(0, 2, 2, 2), "bbox_pred": _f(0, 4, 2, 2), "im_info": _f(0, 3)},
                               {"scales": (2,), "ratios": (1,), "rpn_post_nms_top_n": 3}),
    "_contrib_Proposal": ({"cls_prob": _f(1, 2, 2, 2), "bbox_pred": _f(1, 4, 2, 2), "im_info": _f(1, 3)},
                          {"scales": (2,), "ratios": (1,), "rpn_post_nms_top_n": 0}),
    # the box ops and ROI pooling (test_operator_detection.py): no boxes, an empty batch, no ROIs
    # (the data gradient is then all zeros)
    "_contrib_box_iou": ({"lhs": _f(0, 4), "rhs": _f(3, 4)}, {}),
    "_contrib_box_nms": ({"data": _f(0, 4, 6)}, {}),
    "_contrib_bipartite_matching": ({"data": _f(2, 0, 3)}, {"threshold": 0.1}),
    "_contrib_ROIAlign": ({"data": _f(2, 3, 4, 4), "rois": _f(0, 5)}, {"pooled_size": (2, 2), "spatial_scale": 1.0}),
    "ROIPooling": ({"data": _f(2, 3, 4, 4), "rois": _f(0, 5)}, {"pooled_size": (2, 2), "spatial_scale": 1.0}),
    # the fused RNN over no time steps: the initial states pass through (test_operator_rnn.py)
    "RNN": ({"data": _f(0, 2, 3), "parameters": _f(56,), "state": _f(1, 2, 2), "state_cell": _f(1, 2, 2)},
            {"state_size": 2, "num_layers": 1, "mode": "lstm"}),
    # optimizer updates of an empty weight (a zero-size parameter, e.g. an unused embedding)
    "sgd_update": ({"weight": _f(0,), "grad": _f(0,)}, {"lr": 0.1}),
    "sgd_mom_update": ({"weight": _f(0,), "grad": _f(0,), "mom": _f(0,)}, {"lr": 0.1, "momentum": 0.9}),
    "nag_mom_update": ({"weight": _f(0,), "grad": _f(0,), "mom": _f(0,)}, {"lr": 0.1, "momentum": 0.9}),
    "adam_update": ({"weight": _f(0,), "grad": _f(0,), "mean": _f(0,), "var": _f(0,)}, {"lr": 0.1}),
    "ftml_update": ({"weight": _f(0,), "grad": _f(0,), "d": _f(0,), "v": _f(0,), "z": _f(0,)}, {"lr": 0.1, "t": 1}),
    "mp_sgd_update": ({"weight": ("float16", (0,)), "grad": ("float16", (0,)),
                       "weight32": _f(0,)}, {"lr": 0.1}),
    "mp_sgd_mom_update": ({"weight": ("float16", (0,)), "grad": ("float16", (0,)), "mom": _f(0,),
                           "weight32": _f(0,)}, {"lr": 0.1, "momentum": 0.9}),
    "mp_nag_mom_update": ({"weight": ("float16", (0,)), "grad": ("float16", (0,)), "mom": _f(0,),
                           "weight32": _f(0,)}, {"lr": 0.1, "momentum": 0.9}),
    "mp_adam_update": ({"weight": ("float16", (0,)), "grad": ("float16", (0,)), "mean": _f(0,),
                        "var": _f(0,), "weight32": _f(0,)}, {"lr": 0.1}),
    "rmsprop_update": ({"weight": _f(0,), "grad": _f(0,), "n": _f(0,)}, {"lr": 0.1}),
    "rmspropalex_update": ({"weight": _f(0,), "grad": _f(0,), "n": _f(0,), "g": _f(0,), "delta": _f(0,)},
                           {"lr": 0.1}),
    "ftrl_update": ({"weight": _f(0,), "grad": _f(0,), "z": _f(0,), "n": _f(0,)}, {"lr": 0.1}),
    "signsgd_update": ({"weight": _f(0,), "grad": _f(0,)}, {"lr": 0.1}),
    "signum_update": ({"weight": _f(0,), "grad": _f(0,), "mom": _f(0,)}, {"lr": 0.1, "momentum": 0.9}),
    "_adamw_update": ({"weight": _f(0,), "grad": _f(0,), "mean": _f(0,), "var": _f(0,), "rescale_grad": _f(1,)},
                      {"lr": 0.1, "eta": 1.0}),
    "_mp_adamw_update": ({"weight": ("float16", (0,)), "grad": ("float16", (0,)), "mean": _f(0,), "var": _f(0,),
                          "weight32": _f(0,), "rescale_grad": _f(1,)}, {"lr": 0.1, "eta": 1.0}),
    # LAMB's two phases (the norms r1 and r2 of an empty weight and direction are 0)
    "lamb_update_phase1": ({"weight": _f(0,), "grad": _f(0,), "mean": _f(0,), "var": _f(0,)},
                           {"t": 1, "wd": 0.0}),
    "mp_lamb_update_phase1": ({"weight": ("float16", (0,)), "grad": ("float16", (0,)), "mean": _f(0,),
                               "var": _f(0,), "weight32": _f(0,)}, {"t": 1, "wd": 0.0}),
    "lamb_update_phase2": ({"weight": _f(0,), "g": _f(0,), "r1": _f(1,), "r2": _f(1,)}, {"lr": 0.1}),
    "mp_lamb_update_phase2": ({"weight": ("float16", (0,)), "g": _f(0,), "r1": _f(1,), "r2": _f(1,),
                               "weight32": _f(0,)}, {"lr": 0.1}),
    "multi_sgd_update": ({"w0": _f(0,), "g0": _f(0,), "w1": _f(2,), "g1": _f(2,)},
                         {"lrs": (0.1, 0.1), "wds": (0.0, 0.0), "num_weights": 2}),
    "multi_sgd_mom_update": ({"w0": _f(0,), "g0": _f(0,), "m0": _f(0,), "w1": _f(2,), "g1": _f(2,),
                              "m1": _f(2,)},
                             {"lrs": (0.1, 0.1), "wds": (0.0, 0.0), "momentum": 0.9, "num_weights": 2}),
    "multi_mp_sgd_update": ({"w0": ("float16", (0,)), "g0": ("float16", (0,)), "w32_0": _f(0,)},
                            {"lrs": (0.1,), "wds": (0.0,), "num_weights": 1}),
    "multi_mp_sgd_mom_update": ({"w0": ("float16", (0,)), "g0": ("float16", (0,)), "m0": _f(0,),
                                 "w32_0": _f(0,)},
                                {"lrs": (0.1,), "wds": (0.0,), "momentum": 0.9, "num_weights": 1}),
    # issue 39's ops: assigning into an empty box, an empty factorisation, densities of no
    # samples (each parameter's gradient is then 0), no rows of unique classes
    "_slice_assign": ({"lhs": _f(0, 3), "rhs": _f(0, 2)}, {"begin": (None, 1), "end": (None, 3)}),
    "_slice_assign_scalar": ({"data": _f(0, 3)}, {"scalar": 2.0, "begin": (0,), "end": (None,)}),
    "_identity_with_attr_like_rhs": ({"lhs": _f(0, 3), "rhs": _f(0, 3)}, {}),
    "_linalg_gelqf": ({"A": _f(0, 2, 3)}, {}),
    "_random_pdf_dirichlet": ({"sample": _f(2, 0, 3), "alpha": _f(2, 3)}, {}),
    "_sample_unique_zipfian": ({}, {"range_max": 5, "shape": (0, 3)}),
    # no outputs (it zeroes its inputs in place), so a graph of it has nothing to bind: imperative
    # only, as in MXNet
    "reset_arrays": ({"arg0": _f(0, 3), "arg1": _f(2, 0)}, {"num_arrays": 2}),
})
for _dist, _params in (("uniform", ("low", "high")), ("normal", ("mu", "sigma")), ("gamma", ("alpha", "beta")),
                       ("exponential", ("lam",)), ("poisson", ("lam",)), ("negative_binomial", ("k", "p")),
                       ("generalized_negative_binomial", ("mu", "alpha"))):
    CASES["_random_pdf_" + _dist] = (dict([("sample", _f(2, 0))] + [(p, _f(2,)) for p in _params]), {})

# Expected values where an empty input gives a non-empty output (numpy's answers).
REDUCTION_CHECKS = {
    "sum": lambda outs: np.testing.assert_array_equal(outs[0], np.zeros(3)),
    "mean": lambda outs: np.testing.assert_array_equal(np.isnan(outs[0]), np.ones(3, bool)),
    "max": lambda outs: np.testing.assert_array_equal(outs[0], np.full(3, -np.inf)),
    "min": lambda outs: np.testing.assert_array_equal(outs[0], np.full(3, np.inf)),
    "prod": lambda outs: np.testing.assert_array_equal(outs[0], np.ones(3)),
    "nansum": lambda outs: np.testing.assert_array_equal(outs[0], np.zeros(3)),
    "nanprod": lambda outs: np.testing.assert_array_equal(outs[0], np.ones(3)),
    "norm": lambda outs: np.testing.assert_array_equal(outs[0], np.zeros(3)),
    "all_finite": lambda outs: np.testing.assert_array_equal(outs[0], [1.0]),
    "multi_all_finite": lambda outs: np.testing.assert_array_equal(outs[0], [1.0]),
    "softmax_cross_entropy": lambda outs: np.testing.assert_array_equal(outs[0], [0.0]),
}
# ops without a gradient (the optimizer updates, whose "outputs" are their updated inputs)
NOT_DIFFERENTIABLE = {op for op in CASES if not mx._core.op_info(op)["has_gradient"]}


class _ZeroSizeIdentity(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0])


@mx.operator.register("zero_size_identity")
class _ZeroSizeIdentityProp(mx.operator.CustomOpProp):
    """Custom: a Python identity, so the route through user code sees empty arrays too."""

    def create_operator(self, ctx, shapes, dtypes):
        return _ZeroSizeIdentity()


CASES["Custom"] = ({"data": _f(0, 3)}, {"op_type": "zero_size_identity"})


def _user_ops():
    return sorted(op for op in mx._core.list_ops()
                  if not mx._core.op_info(op)["is_backward"] and not op.startswith("_backward"))


def test_every_op_has_a_zero_size_case():
    missing = sorted(set(_user_ops()) - set(CASES))
    assert not missing, "ops without a zero-size case in test_zero_size.py: %s" % missing


def _imperative(op, inputs, params):
    arrays = [mx.nd.zeros(shape, dtype=dtype) for dtype, shape in inputs.values()]
    out = getattr(mx.nd, op)(*arrays, **params)
    return out if isinstance(out, (list, tuple)) else [out]


IMPERATIVE_ONLY = {"reset_arrays"}


@pytest.mark.parametrize("op", sorted(CASES))
def test_imperative_call_on_zero_size_inputs(op):
    inputs, params = CASES[op]
    if op in IMPERATIVE_ONLY:
        assert _imperative(op, inputs, params) == []
        return
    sym_shapes = _symbolic_output_shapes(op, inputs, params)
    outs = _imperative(op, inputs, params)
    if op.endswith("_update"):
        return  # updates write their weights in place; the call not failing is the check
    assert [o.shape for o in outs] == sym_shapes
    if op in REDUCTION_CHECKS:
        REDUCTION_CHECKS[op]([o.asnumpy() for o in outs])


def _symbol(op, inputs, params):
    args = [mx.sym.var(name) for name in inputs]
    return getattr(mx.sym, op)(*args, name="z", **params)


def _symbolic_output_shapes(op, inputs, params):
    sym = _symbol(op, inputs, params)
    shapes = {name: shape for name, (_, shape) in inputs.items()}
    types = {name: dtype for name, (dtype, _) in inputs.items()}
    _, out_shapes, _ = sym.infer_shape(**shapes)
    sym.infer_type(**types)
    return [tuple(s) for s in out_shapes]


@pytest.mark.parametrize("op", sorted(set(CASES) - {o for o in CASES if o.endswith("_update")} - IMPERATIVE_ONLY))
def test_bound_forward_backward_on_zero_size_inputs(op):
    """Through an executor: forward in training mode, then backward with write-mode gradients
    that start as garbage. Non-empty gradients (a weight's, for an empty batch) must be zeros,
    and BatchNorm's moving statistics must not take anything from an empty batch."""
    inputs, params = CASES[op]
    sym = _symbol(op, inputs, params)
    shapes = {name: shape for name, (_, shape) in inputs.items()}
    types = {name: dtype for name, (dtype, _) in inputs.items()}
    differentiable = op not in NOT_DIFFERENTIABLE
    exe = sym.simple_bind(mx.cpu(), grad_req="write" if differentiable else "null",
                          type_dict=types, **shapes)
    rng = np.random.RandomState(0)
    for arr in list(exe.arg_dict.values()) + list(exe.aux_dict.values()):
        arr[:] = rng.uniform(0.5, 1.5, size=arr.shape)
    aux_before = {k: v.asnumpy().copy() for k, v in exe.aux_dict.items()}
    outs = exe.forward(is_train=True)
    assert [o.shape for o in outs] == _symbolic_output_shapes(op, inputs, params)
    if op in REDUCTION_CHECKS:
        REDUCTION_CHECKS[op]([o.asnumpy() for o in outs])
    for name, before in aux_before.items():
        np.testing.assert_array_equal(exe.aux_dict[name].asnumpy(), before,
                                      err_msg="%s: moving statistic %s changed by an empty batch"
                                      % (op, name))
    if not differentiable:
        return
    for grad in exe.grad_dict.values():
        if grad is not None:
            grad[:] = GARBAGE
    exe.backward([mx.nd.ones(o.shape, dtype=o.dtype) for o in outs])
    for name, grad in exe.grad_dict.items():
        if grad is None:
            continue
        assert grad.shape == shapes[name]
        g = grad.asnumpy()
        if op in ("SoftmaxOutput", "LinearRegressionOutput") and name == "label":
            continue  # the label gradient is not defined by these ops
        np.testing.assert_array_equal(g, np.zeros_like(g), err_msg="%s: gradient of %s for an "
                                      "empty batch" % (op, name))


def test_batchnorm_inference_on_an_empty_batch_uses_nothing():
    """Inference with an empty batch: an empty output, moving statistics untouched."""
    x = mx.sym.var("data")
    bn = mx.sym.BatchNorm(x, name="bn", fix_gamma=False)
    exe = bn.simple_bind(mx.cpu(), grad_req="null", data=(0, 3, 2, 2))
    exe.aux_dict["bn_moving_mean"][:] = 0.25
    exe.forward(is_train=False)
    assert exe.outputs[0].shape == (0, 3, 2, 2)
    np.testing.assert_array_equal(exe.aux_dict["bn_moving_mean"].asnumpy(), [0.25] * 3)


@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16"])
@pytest.mark.parametrize("op", ["FullyConnected", "Convolution", "BatchNorm", "Pooling", "softmax"])
def test_empty_batch_in_every_float_dtype(op, dtype):
    """The 16-bit (staged or native) and float64 (loop) kernels take an empty batch too: empty
    outputs and zero weight gradients."""
    inputs, params = CASES[op]
    sym = _symbol(op, inputs, params)
    shapes = {name: shape for name, (_, shape) in inputs.items()}
    types = {name: dtype for name in inputs}
    if op == "BatchNorm":  # its parameters and statistics stay float32 (or float64)
        types.update({k: "float64" if dtype == "float64" else "float32"
                      for k in ("gamma", "beta", "moving_mean", "moving_var")})
    exe = sym.simple_bind(mx.cpu(), grad_req="write", type_dict=types, **shapes)
    for arr in exe.arg_dict.values():
        arr[:] = 1.0
    outs = exe.forward(is_train=True)
    assert outs[0].shape == _symbolic_output_shapes(op, inputs, params)[0] and outs[0].size == 0
    for grad in exe.grad_dict.values():
        grad[:] = GARBAGE
    exe.backward([mx.nd.ones(o.shape, dtype=o.dtype) for o in outs])
    for name, grad in exe.grad_dict.items():
        g = grad.asnumpy().astype(np.float64)
        np.testing.assert_array_equal(g, np.zeros_like(g), err_msg="%s %s: gradient of %s" % (op, dtype, name))


def test_fully_connected_with_zero_features_gives_the_bias():
    """k = 0: each output is a sum of no products, so the output is the bias (numpy agrees:
    (4, 0) @ (0, 3) is a (4, 3) array of zeros), and the data gradient is empty."""
    x = mx.nd.zeros((4, 0))
    w = mx.nd.zeros((3, 0))
    b = mx.nd.array([1.0, 2.0, 3.0])
    out = mx.nd.FullyConnected(x, w, b, num_hidden=3)
    np.testing.assert_array_equal(out.asnumpy(), np.zeros((4, 0)) @ np.zeros((0, 3)) + [1, 2, 3])
