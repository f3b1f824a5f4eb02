#!/usr/bin/env bash
# Device check of findContours' C upload (one call): ab.py, then the contours GPU tests at the ci
# profile. From the repository root:  OUT=$OUT bash compat_matrix/raw/contours-native-upload/validate.sh
set -u
python3 -m pip install -q --no-deps --no-build-isolation -e . > $OUT/pip.log 2>&1 || { echo pip failed; tail $OUT/pip.log; }
export CVGPU_GOLDEN_DIR=$PWD/shared/golden PYTHONDONTWRITEBYTECODE=1
timeout 200 python3 compat_matrix/raw/contours-native-upload/ab.py 2>&1 | tee $OUT/ab.txt
HYPOTHESIS_PROFILE=ci timeout 300 python3 -m pytest -q -n 14 -p no:cacheprovider -m gpu tests/contours \
  2>&1 | grep -v "Benchmark\|warner" | tail -8 | tee $OUT/pytest-contours.log
