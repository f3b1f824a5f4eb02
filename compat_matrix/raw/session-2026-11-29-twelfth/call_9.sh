#!/usr/bin/env bash
# Ninth device call of the twelfth session: the property files whose kernels b11332e changed, at the
# device profile (>= 10,000 examples a property, each split into 16 items), at abcd110:
# tests/hough/test_hough_lines.py -m gpu (HoughLines: the zeroing after the count, the windowed
# scan), then the segment detector's property (its zeroing now voting.cuh's).
#   OUT=$OUT bash compat_matrix/raw/session-2026-11-29-twelfth/call_9.sh
set -u
python3 -m pip install -q --no-deps --no-build-isolation -e . > /tmp/pip.log 2>&1
export CVGPU_PROPERTY_SHARDS=16 HYPOTHESIS_PROFILE=device
( timeout -s INT -k 20 290 python3 -m pytest -q -m gpu tests/hough/test_hough_lines.py -n 15 -p no:cacheprovider \
    -rfE > "$OUT/pytest-hough-lines-device.log" 2>&1; echo "hough lines rc $?" >> "$OUT/rc.txt" )
( timeout -s INT -k 20 200 python3 -m pytest -q -m gpu tests/cuda/test_cuda_segments.py -k test_property_equals_model \
    -n 15 -p no:cacheprovider -rfE > "$OUT/pytest-segments-device.log" 2>&1; echo "segments rc $?" >> "$OUT/rc.txt" )
cat "$OUT/rc.txt"; tail -n 4 "$OUT/pytest-hough-lines-device.log"; tail -n 4 "$OUT/pytest-segments-device.log"
