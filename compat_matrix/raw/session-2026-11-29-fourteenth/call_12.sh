#!/usr/bin/env bash
# Call 12 (fourteenth session, branch contours-graph): graph_ab.py, then the contours GPU suite with
# the hardening, engine, no-JIT and device-op tests (ci profile).
set -u
D=compat_matrix/raw/session-2026-11-29-fourteenth
python3 -m pip install -q --no-deps --no-build-isolation -e . > /tmp/pip.log 2>&1
timeout 200 python3 $D/graph_ab.py > "$OUT/graph-ab.jsonl" 2> "$OUT/graph-ab.err"; echo "ab rc $?"; tail -n 3 "$OUT/graph-ab.err"
python3 - "$OUT/graph-ab.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    print("%-34s %-22s cv2 %6.0f launched %6.0f graph %6.0f (%.2fx) %s %s %s" % (
        r["row"], r["contours"], r["cv2_us"], r["launched"]["us"], r["graph"]["us"],
        r["launched"]["us"] / r["graph"]["us"], r["graph"]["paths"],
        "" if r["launched"]["ok"] and r["graph"]["ok"] else "NOT EQUAL", ""))
PY
( timeout 330 python3 -m pytest -q -m gpu tests/contours tests/test_hardening_common.py tests/test_engine.py \
    tests/test_no_jit.py tests/test_device_ops.py -n 15 -p no:cacheprovider -rfE > "$OUT/pytest-gpu.log" 2>&1
  echo "pytest rc $?" )
tail -n 12 "$OUT/pytest-gpu.log"
