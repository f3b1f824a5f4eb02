#!/usr/bin/env bash
# First device call of the twelfth session: the GPU suites (ci profile) at d5f2053 (its
# lean-graph mend never ran on a GPU), then shape_cost.py (a findContours call on a new shape
# against its repeat, and where the new shape's time goes).
#   OUT=$OUT bash compat_matrix/raw/session-2026-11-29-twelfth/call_1.sh
set -u
D=compat_matrix/raw/session-2026-11-29-twelfth
python3 -m pip install -q --no-deps --no-build-isolation -e . > /tmp/pip.log 2>&1
( timeout 170 python3 -m pytest -q -m gpu tests/cuda tests/test_engine.py tests/test_no_jit.py \
    tests/test_device_ops.py -n 15 -p no:cacheprovider -rfE > "$OUT/pytest-gpu.log" 2>&1; echo "pytest rc $?" >> "$OUT/rc.txt" )
( timeout 200 python3 $D/shape_cost.py 300 > "$OUT/shape-cost.txt" 2>&1; echo "shape_cost rc $?" >> "$OUT/rc.txt" )
cat "$OUT/rc.txt"; tail -n 3 "$OUT/pytest-gpu.log"; head -c 6000 "$OUT/shape-cost.txt"
