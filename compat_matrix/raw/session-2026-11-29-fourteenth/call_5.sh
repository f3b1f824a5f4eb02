#!/usr/bin/env bash
# Call 5 (fourteenth session): the sampled-bucket ordering of HoughLines' many-line tail. GPU suites
# of the Hough and cuda families with the hardening, engine, no-JIT and device-op tests (ci profile),
# then hl_ab.py against HEAD's tree (.dev/ab-old, carried), ABAB.
set -u
[ -d shared/golden ] && export CVGPU_GOLDEN_DIR=$PWD/shared/golden
D=compat_matrix/raw/session-2026-11-29-fourteenth
python3 -m pip install -q --no-deps --no-build-isolation -e . > /tmp/pip.log 2>&1
python3 $D/hl_ab.py thresholds "$OUT/thr.json" > /dev/null 2> "$OUT/hl-ab.err"; echo "thresholds rc $?" >> "$OUT/rc.txt"
for arm in A B A B; do
  tree=$PWD; [ $arm = A ] && tree=$PWD/.dev/ab-old
  ( PYTHONPATH=$tree timeout 90 python3 $D/hl_ab.py $arm "$OUT/thr.json" >> "$OUT/hl-ab.jsonl" 2>> "$OUT/hl-ab.err"
    echo "ab $arm rc $?" >> "$OUT/rc.txt" )
done
( timeout 300 python3 -m pytest -q -m gpu tests/hough tests/cuda tests/test_hardening_common.py tests/test_engine.py \
    tests/test_no_jit.py tests/test_device_ops.py -n 15 -p no:cacheprovider -rfE > "$OUT/pytest-gpu.log" 2>&1
  echo "pytest rc $?" >> "$OUT/rc.txt" )
cat "$OUT/rc.txt"; tail -n 8 "$OUT/pytest-gpu.log"; tail -n 3 "$OUT/hl-ab.err"
python3 - "$OUT/hl-ab.jsonl" <<'PY'
import json, sys, collections, statistics
rows = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    r = json.loads(line)
    rows[(r["row"], r["lines"])][r["label"]].append(r)
    if not r["same"]:
        print("NOT EQUAL", r)
print("row lines | HL device A/B us | HL numpy A/B | detector A/B | detector doSort A/B (medians of the arms' runs)")
for (row, n), d in rows.items():
    m = lambda k, a: statistics.median(x[k] for x in d[a]) if d[a] else float("nan")
    print("%-24s %5d | %7.1f %7.1f | %7.1f %7.1f | %6.1f %6.1f | %6.1f %6.1f" % (
        row, n, m("hl_device_us", "A"), m("hl_device_us", "B"), m("hl_numpy_us", "A"), m("hl_numpy_us", "B"),
        m("det_us", "A"), m("det_us", "B"), m("det_sorted_us", "A"), m("det_sorted_us", "B")))
PY
