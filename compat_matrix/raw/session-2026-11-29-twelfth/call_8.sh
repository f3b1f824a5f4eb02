#!/usr/bin/env bash
# Eighth device call of the twelfth session (issue 40): cv2_path_probe.py's four arms in eight
# rounds of fresh processes, arms in turn (document_scanner's findContours calls: cv2 alone, cv2
# after import cvgpu, cvgpu with the engine's cv2, the same after gc.freeze()).
#   OUT=$OUT bash compat_matrix/raw/session-2026-11-29-twelfth/call_8.sh
set -u
D=compat_matrix/raw/session-2026-11-29-twelfth
python3 -m pip install -q --no-deps --no-build-isolation -e . > /tmp/pip.log 2>&1
for r in 1 2 3 4 5 6 7 8; do
  for arm in cv2 cv2+import cvgpu cvgpu-gcfreeze; do
    timeout 30 python3 $D/cv2_path_probe.py $arm >> "$OUT/probe.jsonl" 2>> "$OUT/probe.err"
  done
done
python3 - "$OUT/probe.jsonl" <<'PY'
import json, sys, collections, statistics
by = collections.defaultdict(list)
for line in open(sys.argv[1]):
    d = json.loads(line)
    by[d["arm"]].append(d)
for arm, ds in by.items():
    m = sorted(d["median_ms"] for d in ds)
    print("%-16s n=%d  median of medians %.3f ms  range %.3f-%.3f  gc collections %s  engine %s" % (
        arm, len(ds), statistics.median(m), m[0], m[-1], sorted({d["gc_collections"] for d in ds}), ds[0]["engine"]))
PY
tail -n 3 "$OUT/probe.err"
