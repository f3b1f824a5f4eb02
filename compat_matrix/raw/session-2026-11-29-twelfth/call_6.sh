#!/usr/bin/env bash
# Sixth device call of the twelfth session: `cvgpu bench --only cuda` (the lines detector beside
# OpenCV-CUDA's kernels, and HoughLines beside the detector, doSort too: issue 42) and
# `--only cuda-segments` (the segment detector, whose zeroing b11332e shares) at 1c26e9c.
#   OUT=$OUT bash compat_matrix/raw/session-2026-11-29-twelfth/call_6.sh      (carry .ocv)
set -u
python3 -m pip install -q --no-deps --no-build-isolation -e . > /tmp/pip.log 2>&1
( timeout 330 python3 -m cvgpu bench --only cuda --no-progress --json "$OUT/bench-cuda.json" \
    > "$OUT/bench-cuda.txt" 2>&1; echo "bench cuda rc $?" >> "$OUT/rc.txt" )
( timeout 150 python3 -m cvgpu bench --only cuda-segments --no-progress --json "$OUT/bench-seg.json" \
    > "$OUT/bench-seg.txt" 2>&1; echo "bench cuda-segments rc $?" >> "$OUT/rc.txt" )
cat "$OUT/rc.txt"; tail -n 5 "$OUT/bench-cuda.txt"; cat "$OUT/bench-seg.txt" | tail -n 14
