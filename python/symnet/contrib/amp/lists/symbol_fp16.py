"""The float16 AMP lists under MXNet's names: FP16_FUNCS run in float16, FP32_FUNCS in float32,
FP16_FP32_FUNCS in whatever dtype arrives, WIDEST_TYPE_CASTS cast their inputs to the widest one,
CONDITIONAL_FP32_FUNCS are (op, attribute, values) that run in float32."""
from .. import amp as _amp

FP16_FUNCS = _amp.list_lp16_ops("float16")
FP32_FUNCS = _amp.list_fp32_ops("float16")
FP16_FP32_FUNCS = _amp.list_lp16_fp32_ops("float16")
WIDEST_TYPE_CASTS = _amp.list_widest_type_cast("float16")
CONDITIONAL_FP32_FUNCS = _amp.list_conditional_fp32_ops("float16")
