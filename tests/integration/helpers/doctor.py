#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Make a doctored copy of a scalebench result for the compare tests.

doctor.py IN OUT [--factor F] [--factor-top F] [--version BENCH=V] [--drop BENCH] [--set-name OLD=NEW]
                 [--snapshot PATH=VALUE] [--replicate K]

--factor F multiplies every latency by F (--factor-top F: only in the top
third of each sweep, at least 2 points): the *_ns statistics, and each
histogram bin moves to the bucket holding F times its midpoint (the
log-linear layout of src/core/hist.h: 2^e split into 128 buckets).
--replicate K makes each bench's first repetition into K, the k-th
scaled by 1 + 0.01 * (k - (K-1)/2): repetitions 1% apart, a tight and
known run-to-run spread for compare's repetition test (the spread of real
repetitions on a busy machine decides what a test of it can see).
"""
import copy
import json
import math
import sys

SUB, EMIN, EMAX = 128, -4, 42
NB = (EMAX - EMIN) * SUB


def bucket_of(ns):
    if not ns >= 2.0 ** EMIN:
        return 0
    m, e = math.frexp(ns)
    e -= 1
    if e >= EMAX:
        return NB - 1
    j = min(int((2 * m - 1) * SUB), SUB - 1)
    return (e - EMIN) * SUB + j


def mid(i):
    e, j = i // SUB + EMIN, i % SUB
    return 2.0 ** e * (1 + (j + 0.5) / SUB)


def scale_point(p, f):
    for k, v in list(p["stats"].items()):
        if k.endswith("_ns"):
            p["stats"][k] = [x * f if x is not None else None for x in v] if isinstance(v, list) else (v * f if v is not None else None)
    bins = {}
    for i, c in p["histogram"]["bins"]:
        k = bucket_of(mid(i) * f)
        bins[k] = bins.get(k, 0) + c
    p["histogram"]["bins"] = [[k, bins[k]] for k in sorted(bins)]


def main():
    a = sys.argv[1:]
    src, dst, a = a[0], a[1], a[2:]
    d = json.load(open(src))
    while a:
        opt, val, a = a[0], a[1], a[2:]
        if opt in ("--factor", "--factor-top"):
            # --factor-top F: only the points in the top third of each sweep
            for b in d["benches"]:
                for r in b["repetitions"]:
                    pts = r["points"]
                    top = sorted(p["n"] for p in pts)[len(pts) - max(len(pts) // 3, 2):] if opt == "--factor-top" else None
                    for p in pts:
                        if top is None or p["n"] in top:
                            scale_point(p, float(val))
        elif opt == "--version":
            name, v = val.split("=")
            for b in d["benches"]:
                if b["name"] == name:
                    b["version"] = int(v)
        elif opt == "--drop":
            d["benches"] = [b for b in d["benches"] if b["name"] != val]
        elif opt == "--set-name":
            old, new = val.split("=", 1)
            for b in d["benches"]:
                if b["name"] == old:
                    b["name"] = new
        elif opt == "--replicate":
            k = int(val)
            for b in d["benches"]:
                if not b["repetitions"]:
                    continue
                reps = []
                for q in range(k):
                    r = copy.deepcopy(b["repetitions"][0])
                    for p in r["points"]:
                        scale_point(p, 1 + 0.01 * (q - (k - 1) / 2))
                    reps.append(r)
                b["repetitions"] = reps
        elif opt == "--snapshot":
            path, v = val.split("=", 1)
            o = d["snapshot"]
            keys = path.split(".")
            for k in keys[:-1]:
                o = o.setdefault(k, {})
            o[keys[-1]] = v
        else:
            sys.exit("doctor.py: unknown option " + opt)
    json.dump(d, open(dst, "w"))


main()
