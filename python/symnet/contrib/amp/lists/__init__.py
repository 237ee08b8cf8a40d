"""MXNet's AMP op lists (symbol_fp16, symbol_bf16): read from symnet's C++ precision lists, the
ones the graph rewrite applies, so that the two never disagree."""
from . import symbol_bf16, symbol_fp16
