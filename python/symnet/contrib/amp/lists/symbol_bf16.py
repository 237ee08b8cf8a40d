"""The bfloat16 AMP lists under MXNet's names: BF16_FUNCS run in bfloat16, FP32_FUNCS in float32,
BF16_FP32_FUNCS in whatever dtype arrives, WIDEST_TYPE_CASTS cast their inputs to the widest one,
CONDITIONAL_FP32_FUNCS are (op, attribute, values) that run in float32."""
from .. import amp as _amp

BF16_FUNCS = _amp.list_lp16_ops("bfloat16")
FP32_FUNCS = _amp.list_fp32_ops("bfloat16")
BF16_FP32_FUNCS = _amp.list_lp16_fp32_ops("bfloat16")
WIDEST_TYPE_CASTS = _amp.list_widest_type_cast("bfloat16")
CONDITIONAL_FP32_FUNCS = _amp.list_conditional_fp32_ops("bfloat16")
