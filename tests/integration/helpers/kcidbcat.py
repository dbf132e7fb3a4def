#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""kcidbcat.py CATALOG FAMILIES KCIDB...: fleet/kernelci/tests.yaml has the
form of KCIDB's catalog (one key, scalebench; a one-line title, a
description, a home URL), lists every family named in the file FAMILIES,
and every test path of the KCIDB documents is scalebench.<family>.<...> of
a listed family. Exit 1 saying what is wrong."""
import json, re, sys, yaml
cat = yaml.safe_load(open(sys.argv[1]))
assert list(cat) == ["scalebench"], "one key, scalebench"
e = cat["scalebench"]
assert set(e) <= {"title", "description", "home"} and "\n" not in e["title"].strip()
assert re.fullmatch(r"https?://\S+", e["home"])
fams = set(re.findall(r"scalebench\.([a-z]+)\.\*", e["description"]))
want = set(open(sys.argv[2]).read().split())
assert want and want <= fams, "families not listed: %s" % (want - fams)
n = 0
for f in sys.argv[3:]:
    text = open(f).read()
    if not text.strip():
        continue  # a command that failed: its own check says so
    for t in json.loads(text)["tests"]:
        m = re.fullmatch(r"scalebench\.([a-z]+)\.[-_A-Za-z0-9]+(\.[-_A-Za-z0-9]+)*", t["path"])
        assert m and m.group(1) in fams, t["path"]
        n += 1
assert n > 0, "no test paths"
