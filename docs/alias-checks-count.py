#!/usr/bin/env python3
"""Counts, per corpus kernel, the outermost loops of kernel_* that parallel-for
transforms: as written (restrict kept), and with `restrict` removed; 'before'
ignores the transformations that needed a run-time alias check (the remark says
'versioned'), which are exactly what this branch adds."""
import os, re, subprocess, sys
W = sys.argv[1] if len(sys.argv) > 1 else "."  # repository root, with target/debug/weft built
weft = os.path.join(W, "target/debug/weft")
kdir = os.path.join(W, "testsuite/benchmarks/kernels")
env = dict(os.environ, CPATH=os.path.join(W, "testsuite/benchmarks/common") + ":" + kdir)
import tempfile
tmp = tempfile.mkdtemp(prefix="weft-alias-count-")
def roots(src):
    out = subprocess.run([weft, "analyze", src], capture_output=True, text=True, env=env).stdout
    r, fn = set(), None
    for line in out.splitlines():
        m = re.match(r"(?i)function @(\S+)", line)
        if m: fn = m.group(1)
        m = re.match(r"\s*loop (L\d+) \(header \S+, depth 1\)", line)
        if m and fn and fn.startswith("kernel_"): r.add((fn, m.group(1)))
    return r
def applied(src):
    p = subprocess.run([weft, "opt", src, "-o", os.path.join(tmp, "o.ll"), "-S",
                        "--passes=parallel-for", "--remarks"], capture_output=True, text=True, env=env)
    a = {}
    for line in (p.stdout + p.stderr).splitlines():
        m = re.match(r"remark \[parallel-for\] @(kernel_\S+) (L\d+) \(\S+\): applied: (.*)", line)
        if m: a[(m.group(1), m.group(2))] = "versioned" in m.group(3)
    return a
rows = []
for f in sorted(os.listdir(kdir)):
    if not f.endswith(".c"): continue
    name = f[:-2]
    text = open(os.path.join(kdir, f)).read()
    style = "restrict" if re.search(r"\brestrict\b", text) else ("globals" if "KC_MAX" in text and "kc_array" not in text else "helper")
    plain = os.path.join(tmp, f)
    open(plain, "w").write(re.sub(r"\brestrict\b", "", text))
    res = []
    for src in (os.path.join(kdir, f), plain):
        rt = roots(src); ap = applied(src)
        before = sum(1 for k in rt if k in ap and not ap[k])
        after = sum(1 for k in rt if k in ap)
        res.append((len(rt), before, after))
    (n, wb, wa), (_, pb, pa) = res
    rows.append((name, style, n, wb, wa, pb, pa))
print("| kernel | style | outermost loops | as written, before | as written, after | restrict removed, before | restrict removed, after |")
print("|---|---|---|---|---|---|---|")
for r in rows:
    print("| `%s` | %s | %d | %d | %d | %d | %d |" % r)
ks = lambda c: sum(1 for r in rows if r[c] > 0)
ls = lambda c: sum(r[c] for r in rows)
print("| **kernels with a parallel outermost loop** | | | %d | %d | %d | %d |" % (ks(3), ks(4), ks(5), ks(6)))
print("| **parallel outermost loops** | | %d | %d | %d | %d | %d |" % (ls(2), ls(3), ls(4), ls(5), ls(6)))
