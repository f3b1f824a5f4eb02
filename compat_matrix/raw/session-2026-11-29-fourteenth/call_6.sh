#!/usr/bin/env bash
# Call 6 (fourteenth session): the many-lines test as fixed (its path check inside an override), then
# `cvgpu bench --only cuda` with OpenCV-CUDA's kernels (.ocv, carried) in the same job, now with
# HoughLines rows at the "up to 2,000 lines" thresholds too.
set -u
[ -d shared/golden ] && export CVGPU_GOLDEN_DIR=$PWD/shared/golden
python3 -m pip install -q --no-deps --no-build-isolation -e . > /tmp/pip.log 2>&1
timeout 120 python3 -m pytest -q -m gpu tests/hough/test_hough_lines.py -k "many_lines or more_lines" -p no:cacheprovider \
    -rfE > "$OUT/pytest-gpu.log" 2>&1; echo "pytest rc $?"; tail -n 3 "$OUT/pytest-gpu.log"
timeout 400 python3 -m cvgpu bench --only cuda --no-progress --json "$OUT/bench-cuda.json" > "$OUT/bench-cuda.log" 2>&1
echo "bench rc $?"; grep -E "HoughLines |HoughLinesDetector" "$OUT/bench-cuda.log" | grep -E "up to|1920x10|3840" | head -40
