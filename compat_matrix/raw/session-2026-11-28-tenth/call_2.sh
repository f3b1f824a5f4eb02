#!/usr/bin/env bash
# Second device call of the tenth session (issue 44): the barrier probe (fixed launch), the GPU
# suites (ci profile) on the shipped fatbin, ab_phase_c2.py with HP_BASE = 4271d1a's kernel
# (.dev/hp_base.cu, carried) against the working tree (barrier, spread walkers, candidate words),
# the phase trace at 256, and the hough-p bench rows.
#   OUT=$OUT bash compat_matrix/raw/session-2026-11-28-tenth/call_2.sh
set -u
python3 -m pip install -q --no-deps --no-build-isolation -e . > "$OUT/pip.log" 2>&1
S=compat_matrix/raw
T=$S/session-2026-11-28-tenth
( timeout 60 python3 $T/barrier_probe.py > "$OUT/barrier.jsonl" 2>> "$OUT/err.txt"; echo "barrier rc $?" >> "$OUT/rc.txt" )
( timeout 120 python3 -m pytest -q -m gpu tests/hough tests/test_engine.py tests/test_no_jit.py tests/test_device_ops.py \
    -n 12 -p no:cacheprovider > "$OUT/pytest-gpu.log" 2>&1; echo "pytest rc $?" >> "$OUT/rc.txt" )
( HP_BASE=.dev/hp_base.cu HP_BASE_STATIC=48964 HP_AB=base,new HP_SWEEP=new:512 CVGPU_ENGINE=cuda timeout 150 \
    python3 $S/session-2026-11-29/ab_phase_c2.py > "$OUT/ab.jsonl" 2>> "$OUT/err.txt"; echo "ab rc $?" >> "$OUT/rc.txt" )
( CVGPU_ENGINE=cuda timeout 60 python3 $S/session-2026-11-28g/hp_trace.py 256 \
    > "$OUT/hp-trace.jsonl" 2>> "$OUT/err.txt"; echo "trace rc $?" >> "$OUT/rc.txt" )
( timeout 90 python3 -m cvgpu bench --only hough-p --no-progress --json "$OUT/bench-hough-p.json" \
    > "$OUT/bench-hough-p.txt" 2>&1; echo "bench rc $?" >> "$OUT/rc.txt" )
cat "$OUT/rc.txt"
