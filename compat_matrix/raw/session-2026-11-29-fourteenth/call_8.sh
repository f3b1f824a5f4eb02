#!/usr/bin/env bash
# Call 8 (fourteenth session): contours_split.py, then its profiled calls under ncu (kernel durations).
set -u
D=compat_matrix/raw/session-2026-11-29-fourteenth
python3 -m pip install -q --no-deps --no-build-isolation -e . > /tmp/pip.log 2>&1
timeout 120 python3 $D/contours_split.py > "$OUT/split.txt" 2>&1; echo "split rc $?"; cat "$OUT/split.txt"
timeout 300 ncu --profile-from-start off --clock-control none --metrics gpu__time_duration.sum --csv \
    python3 $D/contours_split.py ncu > "$OUT/ncu.csv" 2> "$OUT/ncu.err"; echo "ncu rc $?"; tail -n 3 "$OUT/ncu.err"
python3 - "$OUT/ncu.csv" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
head, body = rows[0], rows[1:]
ki, vi, ui = head.index("Kernel Name"), head.index("Metric Value"), head.index("Metric Unit")
calls, cur, last_id = [], [], None
for r in body:
    name, v, unit = r[ki], float(r[vi].replace(",", "")), r[ui]
    us = v / 1000 if unit in ("ns", "nsecond") else (v if unit in ("us", "usecond") else v * 1000)
    cur.append((name.split("(")[0][:40], us))
# One profiled call after another (each starts with pad_init*): numpy, then packed, row by row.
groups = []
for n, us in cur:
    if n.startswith("pad_init") or not groups:
        groups.append([])
    groups[-1].append((n, us))
for g in groups:
    print("call: %d launches, %.1f us: %s" % (len(g), sum(u for _, u in g), " ".join("%s %.1f" % x for x in g)))
PY
