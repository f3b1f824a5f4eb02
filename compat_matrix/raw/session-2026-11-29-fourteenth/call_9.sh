#!/usr/bin/env bash
# Call 9 (fourteenth session): the property files whose kernels eb92bba changed, at the device profile
# (>= 10,000 examples a property, each split into 16 items, 15 workers): HoughLines /
# HoughLinesWithAccumulator against cv2, and the lines detector against its model and OpenCV-CUDA's
# golden outputs.
set -u
[ -d shared/golden ] && export CVGPU_GOLDEN_DIR=$PWD/shared/golden
python3 -m pip install -q --no-deps --no-build-isolation -e . > /tmp/pip.log 2>&1
HYPOTHESIS_PROFILE=device CVGPU_PROPERTY_SHARDS=16 timeout 520 python3 -m pytest -q -m gpu \
    tests/hough/test_hough_lines.py tests/cuda/test_cuda_hough.py tests/cuda/test_cuda_hough_golden.py -n 15 -p no:cacheprovider -rfE \
    > "$OUT/pytest-device.log" 2>&1
echo "pytest rc $?"; tail -n 6 "$OUT/pytest-device.log"
