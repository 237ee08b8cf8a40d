#!/usr/bin/env python3
"""Checks that compiled objects hold no x86 instruction beyond the portable baseline.

symnet's default build targets x86-64-v3 (AVX2, FMA, F16C, BMI), so that one build runs on every
CPU of that level; oneDNN picks AVX-512/AMX kernels at run time by itself. An AVX-512 or AMX
instruction in symnet's own objects would die with SIGILL on an AVX2 machine. This disassembles
the objects (objdump -d) and fails on any instruction that needs more than the baseline.

    tools/check_portable.py build/pip/CMakeFiles/symnet.dir        # every .o below the folder
    tools/check_portable.py some.o other.o

Exit status 0: clean; 1: offending instructions (listed); 2: nothing to check / objdump failed.
"""
import os
import re
import subprocess
import sys

# Operand and mnemonic patterns that exist only beyond x86-64-v3 (AVX-512 F/BW/DQ/VL/VNNI/BF16/FP16,
# AMX). EVEX-only registers: zmm*, xmm16-31/ymm16-31, opmask k0-7; embedded broadcast {1toN}.
BEYOND = [
    (r"%zmm\d+", "AVX-512 zmm register"),
    (r"%[xy]mm(1[6-9]|2\d|3[01])\b", "AVX-512 extended xmm/ymm register"),
    (r"%k[0-7]\b", "AVX-512 opmask register"),
    (r"\{1to\d+\}", "AVX-512 embedded broadcast"),
    (r"\b(vpternlog[dq]|vpermt2\w+|vpermi2\w+|vpcompress\w+|vpexpand\w+|vpmov[dq][bwd]|"
     r"vcvtne2ps2bf16|vcvtneps2bf16|vdpbf16ps|vp4dpwssd|vpdpbusds?|vpdpwssds?|"
     r"vcvtph2psx|vcvtps2phx|v(add|sub|mul|div|max|min|sqrt)ph|vfn?m(add|sub)\d+ph|tdpb\w+|tileloadd\w*|tilestored|ldtilecfg|sttilecfg|tilezero)\b",
     "AVX-512/AMX/VNNI instruction"),
]
PATTERN = re.compile("|".join("(%s)" % p for p, _ in BEYOND))


def objects(paths):
    for p in paths:
        if os.path.isdir(p):
            for root, _, files in os.walk(p):
                for f in sorted(files):
                    if f.endswith(".o"):
                        yield os.path.join(root, f)
        else:
            yield p


def offending(obj):
    """(instruction line, reason) pairs in one object file."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", obj], check=True,
                         stdout=subprocess.PIPE, universal_newlines=True).stdout
    found = []
    for line in out.splitlines():
        if "\t" not in line:
            continue
        insn = line.split("\t", 1)[1]
        m = PATTERN.search(insn)
        if m:
            reason = next(r for (p, r), g in zip(BEYOND, m.groups()) if g)
            found.append((insn.strip(), reason))
    return found


def main(argv):
    if not argv:
        print(__doc__)
        return 2
    objs = list(objects(argv))
    if not objs:
        print("check_portable: no object files under %s" % " ".join(argv))
        return 2
    bad = 0
    for obj in objs:
        hits = offending(obj)
        if hits:
            bad += 1
            print("%s: %d instructions beyond the baseline, e.g." % (obj, len(hits)))
            for insn, reason in hits[:5]:
                print("    %-50s (%s)" % (insn, reason))
    if bad:
        print("check_portable: %d of %d objects need more than the portable baseline" % (bad, len(objs)))
        return 1
    print("check_portable: %d objects, no instruction beyond the baseline" % len(objs))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
