#!/usr/bin/env bash
# Call 4: the grid join (HoughLinesP's kernel launched plainly, hp_join) on one H200: the busy-SM
# probe, the GPU suites of the Hough family with the hardening tests (ci profile), and hp_ab.py
# against HEAD's tree (.dev/ab-old, carried), ABAB.
set -u
D=compat_matrix/raw/session-2026-11-29-thirteenth
python3 -m pip install -q --no-deps --no-build-isolation -e . > /tmp/pip.log 2>&1
timeout 60 python3 $D/coop_wait_probe.py > "$OUT/probe.txt" 2>&1; echo "probe rc $?" >> "$OUT/rc.txt"
( timeout 220 python3 -m pytest -q -m gpu tests/hough tests/test_hardening_common.py tests/test_engine.py \
    tests/test_no_jit.py tests/test_device_ops.py -n 15 -p no:cacheprovider -rfE > "$OUT/pytest-gpu.log" 2>&1
  echo "pytest rc $?" >> "$OUT/rc.txt" )
for arm in A B A B; do
  tree=$PWD; [ $arm = A ] && tree=$PWD/.dev/ab-old
  ( PYTHONPATH=$tree timeout 60 python3 $D/hp_ab.py $arm >> "$OUT/hp-ab.jsonl" 2>> "$OUT/hp-ab.err"; echo "ab $arm rc $?" >> "$OUT/rc.txt" )
done
cat "$OUT/rc.txt"; cat "$OUT/probe.txt"; tail -n 6 "$OUT/pytest-gpu.log"; tail -n 3 "$OUT/hp-ab.err"
python3 - "$OUT/hp-ab.jsonl" <<'PY'
import json, sys, collections, statistics
rows = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    r = json.loads(line)
    rows[r["row"]][r["label"]].append(r["ms"])
    if not r["same"]:
        print("NOT EQUAL", r)
for row, d in rows.items():
    print("%-20s A %s  B %s" % (row, " ".join("%.3f" % v for v in d["A"]), " ".join("%.3f" % v for v in d["B"])))
PY
