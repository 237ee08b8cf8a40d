#!/usr/bin/env python3
"""Writes docs/operators.md, the operator table, from the registry of the installed symnet, and
the table of AMP categories in docs/amp.md (between its amp-lists markers) from amp_lists.cc.

    python3 tools/gen_operators_doc.py           # rewrite both
    python3 tools/gen_operators_doc.py --check   # exit 1 if either is not current

Columns come from the registry itself: names and aliases, which devices have a kernel (the GPU
column needs a CUDA build, which CI has), whether the op has a gradient, its AMP category per
16-bit target (amp/amp_lists.cc), and the dtypes it runs in on the CPU. The dtypes are probed:
each op is bound with the call in tests/python/test_zero_size.py's CASES (sizes 0 made 2), its
first floating input given the dtype and the inputs of that one's dtype left to the op's type
rule, and run forward.
"""
import argparse
import difflib
import os
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
DOC = os.path.join(REPO, "docs", "operators.md")
DTYPES = [("float64", "f64"), ("float32", "f32"), ("float16", "f16"), ("bfloat16", "bf16")]


def _amp_categories(amp, target):
    cat = {}
    for name, fn in (("16-bit", amp.list_lp16_ops), ("float32", amp.list_fp32_ops),
                     ("widest", amp.list_widest_type_cast), ("neutral", amp.list_lp16_fp32_ops)):
        for op in fn(target):
            cat[op] = name
    for op, attr, values in amp.list_conditional_fp32_ops(target):
        cat[op] = cat.get(op, "neutral") + " (float32 if %s=%s)" % (attr, "/".join(values))
    return cat


def _runs_in(mx, op, inputs, params, dtype):
    """Whether `op` binds and runs forward with its first floating input in `dtype`."""
    shapes = {n: tuple(2 if d == 0 else d for d in shape) for n, (_, shape) in inputs.items()}
    floats = ("float64", "float32", "float16", "bfloat16")
    first = next((n for n, (t, _) in inputs.items() if t in floats), None)
    if first is None:
        return False
    # inputs of the first one's dtype in the case follow the op's type rule; others keep theirs
    # (mp_sgd_update's float32 master weights next to 16-bit weights)
    types = {n: t for n, (t, _) in inputs.items() if t != inputs[first][0]}
    types[first] = dtype
    try:
        sym = getattr(mx.sym, op)(*[mx.sym.var(n) for n in inputs], name="probe", **params)
        exe = sym.simple_bind(mx.cpu(), grad_req="null", type_dict=types, **shapes)
        for arr in exe.arg_dict.values():
            arr[:] = 1.0
        exe.forward(is_train=False)
        for o in exe.outputs:
            o.wait_to_read()
        return True
    except Exception:  # noqa: BLE001 - any refusal means "not in this dtype"
        return False


def generate():
    import symnet as mx
    from symnet import amp
    sys.path.insert(0, os.path.join(REPO, "tests", "python"))
    from test_zero_size import CASES

    if mx._core.features().get("CUDA") != "1":
        raise SystemExit("gen_operators_doc.py needs a CUDA build of symnet (the GPU column lists "
                         "the GPU kernels a CUDA build registers)")
    amp16, ampbf = _amp_categories(amp, "float16"), _amp_categories(amp, "bfloat16")
    ops = sorted((op for op in mx._core.list_ops()
                  if not mx._core.op_info(op)["is_backward"] and not op.startswith("_backward")),
                 key=lambda s: (s.lstrip("_").lower(), s))
    lines = [
        "# Operators",
        "",
        "Generated from the operator registry by `tools/gen_operators_doc.py`; do not edit by hand",
        "(`tests/python/test_operators_doc.py` fails when this file is not current). Names, aliases,",
        "attributes and defaults are MXNet 1.x's; `mx.sym.<name>` and `mx.nd.<name>` call them, and",
        "symbol files name them so.",
        "",
        "- **CPU / GPU**: the op has a kernel for that device (the GPU column describes a CUDA build).",
        "- **dtypes**: what the op runs in on the CPU, probed with its first floating input in each",
        "  dtype (others follow the op's type rule: BatchNorm keeps float32 parameters for 16-bit data).",
        "- **AMP float16 / bfloat16**: the op's category in `amp.convert_symbol` for that target: 16-bit",
        "  (cast to the target), float32 (cast to float32), widest (inputs cast to their widest dtype),",
        "  neutral (runs in the dtype it gets). See docs/amp.md.",
        "- **gradient**: the op can be differentiated (optimizer updates and the like cannot).",
        "",
        "%d operators." % len(ops),
        "",
        "| operator | aliases | CPU | GPU | dtypes | AMP float16 | AMP bfloat16 | gradient |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for op in ops:
        info = mx._core.op_info(op)
        case = CASES.get(op)
        dtypes = " ".join(short for dt, short in DTYPES if case and _runs_in(mx, op, case[0], case[1], dt))
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            op, ", ".join(info["aliases"]), "✓" if info["cpu"] else "", "✓" if info["gpu"] else "",
            dtypes or "(see the op)", amp16.get(op, ""), ampbf.get(op, ""),
            "✓" if info["has_gradient"] else ""))
    return "\n".join(lines) + "\n"


AMP_DOC = os.path.join(REPO, "docs", "amp.md")
AMP_BEGIN, AMP_END = "<!-- amp-lists:begin (python3 tools/gen_operators_doc.py) -->", "<!-- amp-lists:end -->"


def amp_table():
    """The ops of each AMP category, per target, as docs/amp.md shows them."""
    import symnet as mx
    from symnet import amp
    ops = {op for op in mx._core.list_ops()
           if not mx._core.op_info(op)["is_backward"] and not op.startswith("_backward")}
    rows = ["| category | float16 | bfloat16 |", "|---|---|---|"]
    by_target = {t: _amp_categories(amp, t) for t in ("float16", "bfloat16")}
    for cat in ("16-bit", "float32", "widest", "neutral"):
        cells = []
        for t in ("float16", "bfloat16"):
            names = sorted((op for op, c in by_target[t].items() if op in ops and c.split(" (")[0] == cat),
                           key=lambda s: (s.lstrip("_").lower(), s))
            cells.append(", ".join(n + (" (" + by_target[t][n].split(" (", 1)[1] if " (" in by_target[t][n]
                                        else "") for n in names))
        rows.append("| %s | %s | %s |" % (cat, cells[0], cells[1]))
    return "\n".join(rows) + "\n"


def _with_amp_table(doc, table):
    head, rest = doc.split(AMP_BEGIN, 1)
    return head + AMP_BEGIN + "\n" + table + rest[rest.index(AMP_END):]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail if docs/operators.md is not current")
    args = ap.parse_args()
    with open(AMP_DOC) as f:
        amp_doc = f.read()
    wanted = {DOC: generate(), AMP_DOC: _with_amp_table(amp_doc, amp_table())}
    stale = 0
    for path, text in wanted.items():
        rel = os.path.relpath(path, REPO)
        current = open(path).read() if os.path.exists(path) else ""
        if args.check:
            if current != text:
                sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), text.splitlines(True),
                                                           rel, "generated"))
                print("%s is not current: run python3 tools/gen_operators_doc.py" % rel)
                stale += 1
            else:
                print("%s is current" % rel)
        else:
            with open(path, "w") as f:
                f.write(text)
            print("wrote", path)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
