#!/usr/bin/env python3
"""Checks that every #include in the C++ tree points down the layer table (docs/architecture.md).

Each source file belongs to one layer (by path, most specific prefix first); a file may include
files of its own layer and of the layers listed as allowed below its own. The table of allowed
edges holds only downward edges (checked too). Prints every offending include as
`file:line: layer A includes layer B (path)` and exits 1 when there is one.

    python3 tools/check_layers.py [--root DIR]
    python3 tools/check_layers.py --markdown   # the table as docs/architecture.md shows it
"""
import argparse
import os
import re
import sys

# bottom to top: (layer, path prefixes relative to the repository root)
LAYERS = [
    ("base", ["include/symnet/base.h", "include/symnet/dtype.h", "include/symnet/shape.h",
              "include/symnet/device.h", "include/symnet/random.h", "include/symnet/file_io.h",
              "include/symnet/profiler.h",
              "src/base/"]),
    # kernel launch, CUDA streams/handles/pools/graphs, oneDNN's engine and ISA, features()
    ("device", ["include/symnet/runtime.h", "src/device/"]),
    ("storage", ["include/symnet/storage.h", "src/storage/"]),
    ("tensor", ["include/symnet/tensor.h", "include/symnet/ndarray.h", "include/symnet/ndarray_io.h",
                "include/symnet/collectives.h", "src/ndarray/", "src/dist/"]),
    # ops and the nodes their attributes (FGradient, ...) make
    ("registry", ["include/symnet/op.h", "include/symnet/op_attr_types.h", "include/symnet/node.h",
                  "src/core/op_registry.cc", "src/core/node.cc"]),
    ("graph", ["include/symnet/node.h", "include/symnet/graph.h", "include/symnet/symbol.h",
               "include/symnet/operator_builder.h", "include/symnet/ops.h", "include/symnet/ops_nn.h",
               "include/symnet/ops_tensor.h", "src/core/"]),
    ("passes", ["include/symnet/pass.h", "src/pass/"]),
    ("amp", ["include/symnet/amp.h", "amp/"]),
    ("operators", ["operators/", "include/symnet/custom_op.h"]),
    ("executor", ["include/symnet/executor.h", "include/symnet/imperative.h",
                  "include/symnet/autograd.h", "src/executor/",
                  "src/imperative/"]),
    # below training, which reads data through it
    ("io", ["include/symnet/recordio.h", "include/symnet/image_record_iter.h", "src/io/"]),
    ("training", ["include/symnet/train.h", "src/train/"]),
    ("models", ["include/symnet/models/", "src/models/"]),
    ("library", ["include/symnet/symnet.h"]),
    ("python", ["python/"]),
]
# what each layer may include besides itself: downward edges only (checked in main)
ALLOWED = {
    "base": set(),
    "device": {"base"},
    "storage": {"base", "device"},
    "tensor": {"base", "device", "storage"},
    "registry": {"base", "device", "storage", "tensor"},
    "graph": {"base", "device", "storage", "tensor", "registry"},
    "passes": {"base", "device", "storage", "tensor", "registry", "graph"},
    "amp": {"base", "device", "tensor", "registry", "graph", "passes"},
    "operators": {"base", "device", "storage", "tensor", "registry", "graph"},
    "executor": {"base", "device", "storage", "tensor", "registry", "graph", "passes", "amp"},
    "io": {"base", "device", "storage", "tensor"},
    "training": {"base", "device", "storage", "tensor", "registry", "graph", "passes", "amp",
                 "executor", "io"},
    "models": {"base", "device", "tensor", "registry", "graph"},
    "library": {name for name, _ in LAYERS[:-2]},
    "python": {name for name, _ in LAYERS[:-1]},
}
SOURCE = re.compile(r"\.(h|cc|cu|cuh)$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(rel):
    best = None
    for name, prefixes in LAYERS:
        for p in prefixes:
            if rel == p or (p.endswith("/") and rel.startswith(p)):
                if best is None or len(p) > len(best[1]):
                    best = (name, p)
    return best[0] if best else None


def resolve(root, rel_dir, inc):
    """The repository path an include names: next to the file, then include/, then the root."""
    for base in (rel_dir, "include", ""):
        cand = os.path.normpath(os.path.join(base, inc))
        if os.path.isfile(os.path.join(root, cand)):
            return cand.replace(os.sep, "/")
    return None


def check(root):
    rank = {name: i for i, (name, _) in enumerate(LAYERS)}
    errors = []
    for layer, allowed in ALLOWED.items():
        for other in allowed:
            if rank[other] >= rank[layer]:
                errors.append("the table allows an upward edge: %s -> %s" % (layer, other))
    for top in ("include", "src", "operators", "amp", "python"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not SOURCE.search(f):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, f), root).replace(os.sep, "/")
                mine = layer_of(rel)
                if mine is None:
                    errors.append("%s: belongs to no layer (add it to LAYERS)" % rel)
                    continue
                with open(os.path.join(root, rel), encoding="utf-8") as fh:
                    for no, line in enumerate(fh, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        target = resolve(root, os.path.dirname(rel), m.group(1))
                        if target is None:
                            continue  # a system or generated header
                        theirs = layer_of(target)
                        if theirs is None or theirs == mine or theirs in ALLOWED[mine]:
                            continue
                        errors.append("%s:%d: layer %s includes layer %s (%s)" % (rel, no, mine, theirs, target))
    return errors


def markdown():
    """The layer table, bottom to top, for docs/architecture.md (a test keeps the two equal)."""
    rows = ["| layer | files | may include |", "|---|---|---|"]
    for name, prefixes in LAYERS:
        below = [n for n, _ in LAYERS if n in ALLOWED[name]]
        rows.append("| %s | %s | %s |" % (name, ", ".join("`%s`" % p for p in prefixes),
                                         ", ".join(below) if below else "nothing"))
    return "\n".join(rows) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    p.add_argument("--markdown", action="store_true", help="print the layer table and exit")
    args = p.parse_args()
    if args.markdown:
        sys.stdout.write(markdown())
        return 0
    errors = check(os.path.abspath(args.root))
    for e in errors:
        print(e)
    if errors:
        print("%d include(s) point up the layer table (docs/architecture.md)" % len(errors))
        return 1
    print("every include points down the layer table")
    return 0


if __name__ == "__main__":
    sys.exit(main())
