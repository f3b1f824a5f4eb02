#!/usr/bin/env bash
# Fourth device call of the twelfth session: call 3's A/B with a third arm, C (the working tree with
# the plain maxima scan), ABCABCABC, and 1280x720 added.
#   OUT=$OUT bash compat_matrix/raw/session-2026-11-29-twelfth/call_4.sh      (carry .dev)
set -u
D=compat_matrix/raw/session-2026-11-29-twelfth
python3 -m pip install -q --no-deps --no-build-isolation -e . > /tmp/pip.log 2>&1
for arm in A B C A B C A B C; do
  tree=$PWD; [ $arm = A ] && tree=$PWD/.dev/ab-old
  ( PYTHONPATH=$tree timeout 90 python3 $D/hl_ab.py $arm 640x480 1280x720 1920x1080 3840x2160 >> "$OUT/hl-ab.jsonl" 2>> "$OUT/hl-ab.err"; echo "ab $arm rc $?" >> "$OUT/rc.txt" )
done
cat "$OUT/rc.txt"; tail -n 5 "$OUT/hl-ab.err"
python3 - "$OUT/hl-ab.jsonl" <<'PY'
import json, sys, collections, statistics
rows = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    r = json.loads(line)
    if "row" in r:
        for k in ("det_ms", "hl_dev_ms", "hl_np_ms"):
            rows[r["row"]][(r["label"], k)].append(r[k])
print("row                    det A / B / C (us)    HL dev A / B / C (us)   HL numpy A / B / C (us)")
for row, d in rows.items():
    m = lambda l, k: 1e3 * statistics.median(d[(l, k)]) if d[(l, k)] else float("nan")
    print("%-22s %5.1f %5.1f %5.1f   %5.1f %5.1f %5.1f   %6.1f %6.1f %6.1f" % ((row,) + tuple(
        m(l, k) for k in ("det_ms", "hl_dev_ms", "hl_np_ms") for l in "ABC")))
PY
