#!/usr/bin/env bash
# Second device call of the ninth session (issue 44): the records change against 37eef8e's kernel,
# the window / CMAX sweep, and the GPU Hough suites (ci profile, then HoughLinesP's properties at
# the device profile for what time is left). Carry .dev (hp_base.cu).
#   OUT=$OUT bash compat_matrix/raw/session-2026-11-29/call_b.sh
set -u
python3 -m pip install -q --no-deps --no-build-isolation -e . > "$OUT/pip.log" 2>&1
S=compat_matrix/raw/session-2026-11-29
( HP_BASE=.dev/hp_base.cu CVGPU_ENGINE=cuda timeout 260 python3 $S/ab_phase_c2.py \
    > "$OUT/ab-phase-c2.jsonl" 2> "$OUT/ab2.err"; echo "ab2 rc $?" >> "$OUT/rc.txt" )
( timeout 60 python3 -m pytest -q -m gpu tests/hough -n 12 -p no:cacheprovider \
    > "$OUT/pytest-hough.log" 2>&1; echo "pytest rc $?" >> "$OUT/rc.txt" )
( HYPOTHESIS_PROFILE=device CVGPU_PROPERTY_SHARDS=32 timeout ${P_TIMEOUT:-180} python3 -m pytest -q -m gpu \
    tests/hough/test_hough_lines_p.py tests/hough/test_hough_lines_p_hardening.py -n 14 -p no:cacheprovider \
    > "$OUT/pytest-hough-p-device.log" 2>&1; echo "pytest-device rc $?" >> "$OUT/rc.txt" )
cat "$OUT/rc.txt"
