#!/usr/bin/env bash
# Twelfth device call of the twelfth session: call 11's two arms again in alternation, ABABABAB
# (call 11 ran A then B once, and cv2 itself ran 1.6-1.9x slower in B's process: the host's
# spread), each row's median over the four runs of an arm, cv2's beside it.
#   OUT=$OUT bash compat_matrix/raw/session-2026-11-29-twelfth/call_12.sh      (carry .dev)
set -u
python3 -m pip install -q --no-deps --no-build-isolation -e . > /tmp/pip.log 2>&1
for r in 1 2 3 4; do
  for arm in A B; do
    tree=$PWD; [ $arm = A ] && tree=$PWD/.dev/ab-old
    ( cd /tmp && PYTHONPATH=$tree timeout 60 python3 -m cvgpu bench --only hough --no-progress \
        --json "/tmp/b-$arm-$r.json" > /dev/null 2>&1; echo "bench $arm $r rc $?" >> "$OUT/rc.txt" )
  done
done
python3 - "$OUT" <<'PY'
import json, glob, sys, statistics, collections
out = sys.argv[1]
by = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob("/tmp/b-*-*.json")):
    arm = f.split("-")[1]
    d = json.load(open(f))
    for r in (d["rows"] if isinstance(d, dict) else d):
        key = (r["workload"], r["io"])
        by[key][arm].append((r["cvgpu_ms"] * 1e3, r["cv2_ms"]))
json.dump({"%s|%s" % k: v for k, v in by.items()}, open(out + "/bench-hough-ab.json", "w"))
print("row                              io      cvgpu us A / B     B/A    cv2 ms A / B")
for (w, io), d in by.items():
    a = statistics.median(x[0] for x in d["A"]); b = statistics.median(x[0] for x in d["B"])
    ca = statistics.median(x[1] for x in d["A"]); cb = statistics.median(x[1] for x in d["B"])
    print("%-32s %-6s %7.1f %7.1f   %5.3f   %7.2f %7.2f" % (w[:32], io, a, b, b / a, ca, cb))
PY
cat "$OUT/rc.txt" | sort | uniq -c | head
