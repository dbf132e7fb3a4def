#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The LAVA test definition (fleet/lava/automated/linux/scalebench/) as LAVA
reads it, for tests/integration/fleet_lava.sh.

lavadef.py check YAML
    the fields LAVA requires: metadata with format "Lava-Test Test
    Definition 1.0", name, description, os, scope, devices (lists); params a
    mapping of strings; run.steps a list of strings; every ${VAR} a step
    uses is a param; the script the steps run exists and is executable.
lavadef.py runsh YAML ROOT [NAME=VALUE ...]
    the shell script LAVA's test shell runs for it: the params as shell
    variables (NAME='value', the definition's defaults, then the job's
    values), `cd ROOT` (the test-definitions tree), then the steps.
lavadef.py result RESULT_TXT JSON [--baseline]
    output/result.txt against the run's JSON: every line `NAME
    pass|fail|skip [VALUE UNITS]`; scalebench.install and scalebench.run
    pass; per bench of the JSON a case with its status, a .p99 and an
    .exponent case (the exponent of the JSON's verdict); nothing else.
Prints what is wrong and exits 1, or exits 0.
"""
import json
import os
import re
import sys

import yaml


def fail(msg):
    print(msg)
    sys.exit(1)


def load(path):
    with open(path) as f:
        return yaml.safe_load(f)


def check(path):
    d = load(path)
    md = d.get("metadata")
    if not isinstance(md, dict):
        fail("no metadata mapping")
    if md.get("format") != "Lava-Test Test Definition 1.0":
        fail("metadata.format is %r" % md.get("format"))
    for k in ("name", "description"):
        if not isinstance(md.get(k), str) or not md[k].strip():
            fail("metadata.%s missing" % k)
    if md["name"] != os.path.splitext(os.path.basename(path))[0]:
        fail("metadata.name %r is not the file's name" % md["name"])
    for k in ("os", "scope", "devices"):
        if not isinstance(md.get(k), list) or not md[k] or not all(isinstance(x, str) for x in md[k]):
            fail("metadata.%s is not a list of strings" % k)
    params = d.get("params")
    if not isinstance(params, dict) or not all(isinstance(v, str) for v in params.values()):
        fail("params is not a mapping of strings")
    for p in ("JOB", "BENCHES", "DIR", "BASELINE"):
        if p not in params:
            fail("params lacks %s" % p)
    steps = (d.get("run") or {}).get("steps")
    if not isinstance(steps, list) or not steps or not all(isinstance(s, str) for s in steps):
        fail("run.steps is not a list of strings")
    for s in steps:
        for v in re.findall(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)", s):
            if v not in params:
                fail("step %r uses %s, not a param" % (s, v))
    # the steps start at the tree's root: cd into the definition's directory, run its script
    root = os.path.dirname(os.path.abspath(path))
    for _ in ("linux", "automated", "root"):
        root = os.path.dirname(root)
    cwd = root
    ran = False
    for s in steps:
        m = re.match(r"cd (\S+)$", s)
        if m:
            cwd = os.path.normpath(os.path.join(cwd, m.group(1)))
            continue
        script = os.path.join(cwd, s.split()[0])
        if not os.access(script, os.X_OK):
            fail("step %r: %s is not an executable file" % (s, script))
        ran = True
    if not ran:
        fail("no step runs a script")


def runsh(path, root, overrides):
    d = load(path)
    out = ["###default parameters from test definition###"]
    for k, v in d["params"].items():
        out.append("%s='%s'" % (k, v or ""))
    out.append("###test parameters from job submission###")
    for o in overrides:
        k, v = o.split("=", 1)
        out.append("%s='%s'" % (k, v))
    out.append("cd '%s'" % root)
    out.extend(d["run"]["steps"])
    print("\n".join(out))


def result(path, jpath, baseline):
    cases = {}
    with open(path) as f:
        for line in f:
            m = re.fullmatch(r"([-_.A-Za-z0-9]+) (pass|fail|skip)(?: (-?[0-9.]+(?:e[-+]?[0-9]+)?) (\S+))?\n", line)
            if not m:
                fail("result.txt: not `NAME pass|fail|skip [VALUE UNITS]`: %r" % line)
            if m.group(1) in cases:
                fail("result.txt: %s twice" % m.group(1))
            cases[m.group(1)] = (m.group(2), m.group(3), m.group(4))
    want = ["scalebench.install", "scalebench.run"] + (["scalebench.baseline"] if baseline else [])
    for w in want:
        if cases.pop(w, (None,))[0] != "pass":
            fail("result.txt: %s is not pass" % w)
    d = json.load(open(jpath))
    word = {"ok": "pass", "failed": "fail", "interrupted": "fail", "skipped": "skip"}
    for b in d["benches"]:
        # the case of this bench: scalebench.<name> with the variant and the file system after it
        base = "scalebench." + b["name"]
        mine = [c for c in cases if (c == base or c.startswith(base + ".")) and not c.endswith((".p99", ".exponent"))]
        if len(mine) != 1:
            fail("result.txt: %d cases for bench %s: %s" % (len(mine), b["name"], mine))
        c = mine[0]
        st, val, unit = cases.pop(c)
        if not baseline and st != word[b["status"]]:
            fail("result.txt: %s is %s, the JSON says %s" % (c, st, b["status"]))
        if b["status"] == "ok":
            if unit != "ns" or float(val) <= 0:
                fail("result.txt: %s has no cost in ns (%s %s)" % (c, val, unit))
            p99 = cases.pop(c + ".p99", None)
            ex = cases.pop(c + ".exponent", None)
            if not p99 or p99[2] != "ns" or float(p99[1]) < float(val) * 0.5:
                fail("result.txt: %s.p99 missing or not in ns: %s" % (c, p99))
            if not ex or abs(float(ex[1]) - b["verdict"]["exponent"]) > 1e-6 * max(1, abs(b["verdict"]["exponent"])):
                fail("result.txt: %s.exponent %s, the JSON's verdict says %s" % (c, ex, b["verdict"]["exponent"]))
    if cases:
        fail("result.txt: cases that are no bench of the JSON: %s" % sorted(cases))


def main():
    a = sys.argv[1:]
    if a and a[0] == "check" and len(a) == 2:
        check(a[1])
    elif a and a[0] == "runsh" and len(a) >= 3:
        runsh(a[1], a[2], a[3:])
    elif a and a[0] == "result" and len(a) in (3, 4):
        result(a[1], a[2], len(a) == 4 and a[3] == "--baseline")
    else:
        fail(__doc__)


main()
