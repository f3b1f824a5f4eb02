#!/usr/bin/env bash
# Tenth device call of the twelfth session: the GPU suites (ci profile) at 3024a74 (the detector's
# row bounds through voting.cuh's hough_corner_columns; its fatbin rebuilt).
#   OUT=$OUT bash compat_matrix/raw/session-2026-11-29-twelfth/call_10.sh
set -u
python3 -m pip install -q --no-deps --no-build-isolation -e . > /tmp/pip.log 2>&1
( timeout 200 python3 -m pytest -q -m gpu tests/cuda tests/hough tests/test_engine.py tests/test_no_jit.py \
    tests/test_device_ops.py -n 15 -p no:cacheprovider -rfE > "$OUT/pytest-gpu.log" 2>&1; echo "pytest rc $?" >> "$OUT/rc.txt" )
cat "$OUT/rc.txt"; tail -n 3 "$OUT/pytest-gpu.log"
