#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks scalebench's fleet outputs against the published formats.

fleetcheck.py FORMAT FILE [EXPECT]: FORMAT kcidb (validated with
python3-jsonschema against tests/data/kcidb-v4-subset.schema.json), ktap
(version line, plan 1..N, N numbered result lines), lava (every line a
comment or `lava-test-case NAME --result pass|fail|skip [--measurement V
--units U]`), lkp (every line `key: value`). EXPECT, when given, is
`NAME=STATUS[,NAME=STATUS]`: those tests must have that status in the
format's own words (kcidb PASS/FAIL/..., ktap ok/not ok/skip, lava and lkp
pass/fail/skip). Prints what is wrong and exits 1, or exits 0.
"""
import json
import os
import re
import sys


def fail(msg):
    print(msg)
    sys.exit(1)


def kcidb(text):
    import jsonschema
    here = os.path.dirname(os.path.abspath(__file__))
    schema = json.load(open(os.path.join(here, "..", "..", "data", "kcidb-v4-subset.schema.json")))
    doc = json.loads(text)
    errs = list(jsonschema.Draft202012Validator(schema).iter_errors(doc))
    if errs:
        fail("kcidb: " + "; ".join(e.message for e in errs[:5]))
    if not doc.get("tests") or len(doc.get("checkouts", [])) != 1 or len(doc.get("builds", [])) != 1:
        fail("kcidb: needs one checkout, one build and tests")
    b = doc["builds"][0]
    if b["checkout_id"] != doc["checkouts"][0]["id"]:
        fail("kcidb: the build does not name the checkout")
    ids = [t["id"] for t in doc["tests"]]
    if len(set(ids)) != len(ids):
        fail("kcidb: test ids repeat")
    for t in doc["tests"]:
        if t["build_id"] != b["id"]:
            fail("kcidb: test %s does not name the build" % t["id"])
    return {t["path"]: t["status"] for t in doc["tests"]}


def ktap(text):
    lines = text.splitlines()
    if not lines or lines[0] != "KTAP version 1":
        fail("ktap: the first line is not 'KTAP version 1'")
    plans = [l for l in lines if re.fullmatch(r"1\.\.\d+", l)]
    if len(plans) != 1:
        fail("ktap: %d plan lines" % len(plans))
    n = int(plans[0][3:])
    res = {}
    num = 0
    for l in lines[1:]:
        if l.startswith("#") or l == plans[0]:
            continue
        m = re.fullmatch(r"(ok|not ok) (\d+) ([^#]+?)(?: # (SKIP|TODO)\b.*)?", l)
        if not m:
            fail("ktap: not a result, plan or diagnostic line: %r" % l)
        num += 1
        if int(m.group(2)) != num:
            fail("ktap: test %s out of order" % m.group(2))
        res[m.group(3)] = "skip" if m.group(4) == "SKIP" else m.group(1)
    if num != n or n == 0:
        fail("ktap: plan 1..%d but %d results" % (n, num))
    return res


def lava(text):
    res = {}
    pat = re.compile(r"lava-test-case ([-_.A-Za-z0-9]+) --result (pass|fail|skip)"
                     r"(?: --measurement (-?[0-9.]+(?:e[-+]?[0-9]+)?) --units ([^ ]+))?")
    for l in text.splitlines():
        if l.startswith("#"):
            continue
        m = pat.fullmatch(l)
        if not m:
            fail("lava: not a lava-test-case line: %r" % l)
        if m.group(3) is not None:
            float(m.group(3))
        res[m.group(1)] = m.group(2)
    if not res:
        fail("lava: no test cases")
    return res


def lkp(text):
    res = {}
    for l in text.splitlines():
        m = re.fullmatch(r"([^\s:]+): (\S.*)", l)
        if not m:
            fail("lkp: not a 'key: value' line: %r" % l)
        k, v = m.groups()
        for s in ("pass", "fail", "skip"):
            if k.endswith("." + s):
                if v != "1":
                    fail("lkp: %s: %s" % (k, v))
                res[k[: -len(s) - 1]] = s
        if k.endswith(("_ns", ".exponent", ".n")):
            float(v)
    if not res:
        fail("lkp: no tests")
    return res


def main():
    fmt, path = sys.argv[1], sys.argv[2]
    got = {"kcidb": kcidb, "ktap": ktap, "lava": lava, "lkp": lkp}[fmt](open(path).read())
    if len(sys.argv) > 3:
        for pair in sys.argv[3].split(","):
            name, want = pair.split("=")
            if got.get(name) != want:
                fail("%s: %s is %s, not %s (have %s)" % (fmt, name, got.get(name), want, sorted(got)))


main()
