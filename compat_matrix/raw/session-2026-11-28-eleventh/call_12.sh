#!/usr/bin/env bash
# Twelfth device call of the eleventh session: the GPU suites (ci profile) at the session's last
# code commit (the stash budget of cvgpu/cuda/segments.py).
#   OUT=$OUT bash compat_matrix/raw/session-2026-11-28-eleventh/call_12.sh
set -u
python3 -m pip install -q --no-deps --no-build-isolation -e . > /tmp/pip.log 2>&1
( timeout 150 python3 -m pytest -q -m gpu tests/cuda tests/test_engine.py tests/test_no_jit.py \
    tests/test_device_ops.py -n 15 -p no:cacheprovider -rfE > "$OUT/pytest-gpu.log" 2>&1; echo "pytest rc $?" >> "$OUT/rc.txt" )
cat "$OUT/rc.txt"; tail -n 3 "$OUT/pytest-gpu.log"
