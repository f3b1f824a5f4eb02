#!/usr/bin/env bash
# First device call of the ninth session (issue 44): HoughLinesP phase C on a GPU at last.
#   OUT=$OUT bash compat_matrix/raw/session-2026-11-29/call_a.sh
# ab_phase_c.py (same-process A/B of the two correction orders), the phase trace at HEAD, the GPU
# Hough suites (ci profile) and the hough-p bench rows against cv2; everything logs to $OUT.
set -u
python3 -m pip install -q --no-deps --no-build-isolation -e . > "$OUT/pip.log" 2>&1
nvidia-smi -L > "$OUT/smi.txt" 2>&1
git -C . log -1 --format=%H > "$OUT/commit.txt" 2>/dev/null || true
S=compat_matrix/raw
( CVGPU_ENGINE=cuda timeout 200 python3 $S/session-2026-11-28h/ab_phase_c.py 64 256 \
    > "$OUT/ab-phase-c.jsonl" 2> "$OUT/ab.err"; echo "ab rc $?" >> "$OUT/rc.txt" )
( CVGPU_ENGINE=cuda timeout 70 python3 $S/session-2026-11-28g/hp_trace.py 64 256 \
    > "$OUT/hp-trace.jsonl" 2>> "$OUT/ab.err"; echo "trace rc $?" >> "$OUT/rc.txt" )
( timeout 150 python3 -m pytest -q -m gpu tests/hough -n 12 -p no:cacheprovider \
    > "$OUT/pytest-hough.log" 2>&1; echo "pytest rc $?" >> "$OUT/rc.txt" )
( timeout 120 python3 -m cvgpu bench --only hough-p --no-progress --json "$OUT/bench-hough-p.json" \
    > "$OUT/bench-hough-p.txt" 2>&1; echo "bench rc $?" >> "$OUT/rc.txt" )
