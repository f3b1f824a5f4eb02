#!/usr/bin/env bash
# First device call of the tenth session (issue 44), at the commit named in HISTORY: the grid
# barrier's variants alone (barrier_probe.py), the phase trace with the marks inside phase B
# (session-2026-11-28g/hp_trace.py, window 256), and ab_arms.py (cur, bar, spread, bar+spread).
#   OUT=$OUT bash compat_matrix/raw/session-2026-11-28-tenth/call_1.sh
set -u
python3 -m pip install -q --no-deps --no-build-isolation -e . > "$OUT/pip.log" 2>&1
S=compat_matrix/raw
T=$S/session-2026-11-28-tenth
( timeout 60 python3 $T/barrier_probe.py > "$OUT/barrier.jsonl" 2>> "$OUT/err.txt"; echo "barrier rc $?" >> "$OUT/rc.txt" )
( CVGPU_ENGINE=cuda timeout 90 python3 $S/session-2026-11-28g/hp_trace.py 256 \
    > "$OUT/hp-trace.jsonl" 2>> "$OUT/err.txt"; echo "trace rc $?" >> "$OUT/rc.txt" )
( HP_ARMS=${HP_ARMS:-cur,bar,spread,bar+spread} CVGPU_ENGINE=cuda timeout ${AB_TIMEOUT:-240} python3 $T/ab_arms.py \
    > "$OUT/ab.jsonl" 2>> "$OUT/err.txt"; echo "ab rc $?" >> "$OUT/rc.txt" )
cat "$OUT/rc.txt"
