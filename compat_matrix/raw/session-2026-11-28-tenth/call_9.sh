#!/usr/bin/env bash
# Ninth device call of the tenth session (issue 44): the GPU suites (ci profile) on the shipped
# fatbin with the turns loaded with the mask (turnpre); ab_arms.py (base = a132ef9,
# cur), the phase trace at 256, the hough-p bench rows, then HoughLinesP's property
# files at the device profile for P_TIMEOUT seconds.
#   OUT=$OUT bash compat_matrix/raw/session-2026-11-28-tenth/call_9.sh
set -u
python3 -m pip install -q --no-deps --no-build-isolation -e . > "$OUT/pip.log" 2>&1
S=compat_matrix/raw
T=$S/session-2026-11-28-tenth
( timeout 120 python3 -m pytest -q -m gpu tests/hough tests/test_engine.py tests/test_no_jit.py tests/test_device_ops.py \
    -n 12 -p no:cacheprovider > "$OUT/pytest-gpu.log" 2>&1; echo "pytest rc $?" >> "$OUT/rc.txt" )
( HP_ARMS=${HP_ARMS:-base,cur} CVGPU_ENGINE=cuda timeout ${AB_TIMEOUT:-200} python3 $T/ab_arms.py \
    > "$OUT/ab.jsonl" 2>> "$OUT/err.txt"; echo "ab rc $?" >> "$OUT/rc.txt" )
( CVGPU_ENGINE=cuda timeout 60 python3 $S/session-2026-11-28g/hp_trace.py 256 \
    > "$OUT/hp-trace.jsonl" 2>> "$OUT/err.txt"; echo "trace rc $?" >> "$OUT/rc.txt" )
( timeout 90 python3 -m cvgpu bench --only hough-p --no-progress --json "$OUT/bench-hough-p.json" \
    > "$OUT/bench-hough-p.txt" 2>&1; echo "bench rc $?" >> "$OUT/rc.txt" )
( HYPOTHESIS_PROFILE=device CVGPU_PROPERTY_SHARDS=32 timeout ${P_TIMEOUT:-40} python3 -m pytest -q -m gpu -rfE \
    tests/hough/test_hough_lines_p.py tests/hough/test_hough_lines_p_hardening.py -n 14 -p no:cacheprovider \
    > "$OUT/pytest-hough-p-device.log" 2>&1; echo "pytest-device rc $?" >> "$OUT/rc.txt" )
cat "$OUT/rc.txt"
