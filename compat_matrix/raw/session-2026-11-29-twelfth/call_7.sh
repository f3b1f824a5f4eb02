#!/usr/bin/env bash
# Seventh device call of the twelfth session: HoughLines on the one-wave voting grid (B: the tree of
# one-wave.patch on 1c26e9c, never committed) against vote_config's (V: TUNING.lines_one_wave False),
# BVBVBV, after the GPU suites of the Hough families (ci profile).
#   OUT=$OUT bash compat_matrix/raw/session-2026-11-29-twelfth/call_7.sh
set -u
D=compat_matrix/raw/session-2026-11-29-twelfth
python3 -m pip install -q --no-deps --no-build-isolation -e . > /tmp/pip.log 2>&1
( timeout 200 python3 -m pytest -q -m gpu tests/hough tests/cuda tests/test_engine.py tests/test_no_jit.py \
    tests/test_device_ops.py -n 15 -p no:cacheprovider -rfE > "$OUT/pytest-gpu.log" 2>&1; echo "pytest rc $?" >> "$OUT/rc.txt" )
for arm in B V B V B V; do
  tree=$PWD; [ $arm = A ] && tree=$PWD/.dev/ab-old
  ( PYTHONPATH=$tree timeout 90 python3 $D/hl_ab.py $arm 640x480 1280x720 1920x1080 3840x2160 >> "$OUT/hl-ab.jsonl" 2>> "$OUT/hl-ab.err"; echo "ab $arm rc $?" >> "$OUT/rc.txt" )
done
cat "$OUT/rc.txt"; tail -n 3 "$OUT/pytest-gpu.log"; tail -n 5 "$OUT/hl-ab.err"
python3 - "$OUT/hl-ab.jsonl" <<'PY'
import json, sys, collections, statistics
rows = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    r = json.loads(line)
    if "row" in r:
        for k in ("det_ms", "hl_dev_ms", "hl_np_ms"):
            rows[r["row"]][(r["label"], k)].append(r[k])
print("row                    det B / V (us)    HL dev B / V (us)   HL numpy B / V (us)")
for row, d in rows.items():
    m = lambda l, k: 1e3 * statistics.median(d[(l, k)]) if d[(l, k)] else float("nan")
    print("%-22s %5.1f %5.1f   %5.1f %5.1f   %6.1f %6.1f" % ((row,) + tuple(
        m(l, k) for k in ("det_ms", "hl_dev_ms", "hl_np_ms") for l in "BV")))
PY
