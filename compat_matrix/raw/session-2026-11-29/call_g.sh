#!/usr/bin/env bash
# Device call G of the ninth session (issue 44): the chunk stop by word operations (HEAD) against
# 30dd290 (.dev/hp_base.cu, carried), ABBA at window 256 over the 34 rows, and the GPU Hough suite.
#   OUT=$OUT bash compat_matrix/raw/session-2026-11-29/call_g.sh
set -u
python3 -m pip install -q --no-deps --no-build-isolation -e . > "$OUT/pip.log" 2>&1
( timeout 60 python3 -m pytest -q -m gpu tests/hough -n 12 -p no:cacheprovider > "$OUT/pytest-gpu.log" 2>&1
  echo "pytest rc $?" >> "$OUT/rc.txt" )
( HP_BASE=.dev/hp_base.cu HP_BASE_STATIC=48964 HP_AB=base,new HP_SWEEP=new:512 CVGPU_ENGINE=cuda timeout 120 \
    python3 compat_matrix/raw/session-2026-11-29/ab_phase_c2.py > "$OUT/ab-stop.jsonl" 2> "$OUT/err.txt"
  echo "ab rc $?" >> "$OUT/rc.txt" )
cat "$OUT/rc.txt"
