#!/usr/bin/env bash
# Last device call of the ninth session (issue 44), at 30dd290: the offsets' warp scan against
# 98027a7 (.dev/hp_base.cu, carried), the GPU suites (ci profile), the trace, the hough-p bench rows,
# then HoughLinesP's property files at the device profile for the time left.
#   OUT=$OUT bash compat_matrix/raw/session-2026-11-29/call_f.sh
set -u
python3 -m pip install -q --no-deps --no-build-isolation -e . > "$OUT/pip.log" 2>&1
S=compat_matrix/raw
( timeout 90 python3 -m pytest -q -m gpu tests/hough tests/test_engine.py tests/test_no_jit.py tests/test_device_ops.py \
    -n 12 -p no:cacheprovider > "$OUT/pytest-gpu.log" 2>&1; echo "pytest rc $?" >> "$OUT/rc.txt" )
( HP_BASE=.dev/hp_base.cu HP_BASE_STATIC=48964 HP_AB=base,new HP_SWEEP=new:512 CVGPU_ENGINE=cuda timeout 120 \
    python3 $S/session-2026-11-29/ab_phase_c2.py > "$OUT/ab-scan.jsonl" 2> "$OUT/err.txt"; echo "ab rc $?" >> "$OUT/rc.txt" )
( CVGPU_ENGINE=cuda timeout 60 python3 $S/session-2026-11-28g/hp_trace.py 256 \
    > "$OUT/hp-trace.jsonl" 2>> "$OUT/err.txt"; echo "trace rc $?" >> "$OUT/rc.txt" )
( timeout 90 python3 -m cvgpu bench --only hough-p --no-progress --json "$OUT/bench-hough-p.json" \
    > "$OUT/bench-hough-p.txt" 2>&1; echo "bench rc $?" >> "$OUT/rc.txt" )
( HYPOTHESIS_PROFILE=device CVGPU_PROPERTY_SHARDS=32 timeout ${P_TIMEOUT:-200} python3 -m pytest -q -m gpu -rfE \
    tests/hough/test_hough_lines_p.py tests/hough/test_hough_lines_p_hardening.py -n 14 -p no:cacheprovider \
    > "$OUT/pytest-hough-p-device.log" 2>&1; echo "pytest-device rc $?" >> "$OUT/rc.txt" )
cat "$OUT/rc.txt"
