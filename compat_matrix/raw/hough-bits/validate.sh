#!/usr/bin/env bash
# Device check of the bit upload of HoughLines (one call, nvidia-h100-x1): the hough and cuda GPU
# tests at the ci profile, the host-helper tests, then ab.py. From the repository root:
#   OUT=$OUT bash compat_matrix/raw/hough-bits/validate.sh
set -u
python3 -m pip install -q --no-deps --no-build-isolation -e . > $OUT/pip.log 2>&1 || { echo pip failed; tail $OUT/pip.log; }
export CVGPU_GOLDEN_DIR=$PWD/shared/golden PYTHONDONTWRITEBYTECODE=1
python3 -c "from cvgpu import _native; print('helpers:', _native.helpers())" | tee $OUT/helpers.txt
HYPOTHESIS_PROFILE=ci timeout 300 python3 -m pytest -q -n 14 -p no:cacheprovider -m gpu tests/hough/test_hough_lines.py tests/hough/test_hough_hardening.py tests/hough/test_graph_plan.py \
  tests/tools/test_native.py tests/test_engine.py 2>&1 | tail -15 | tee $OUT/pytest-hough.log
timeout 280 python3 compat_matrix/raw/hough-bits/ab.py 2>&1 | tee $OUT/ab.txt
timeout 240 python3 -m cvgpu bench --only threads --no-progress --json $OUT/bench-threads.json 2>&1 | tail -20 | tee $OUT/bench-threads.txt
