#!/usr/bin/env bash
# Eighth device call of the eleventh session: the bench rows of cuda (the lines detector beside
# OpenCV-CUDA's kernels in the same job; issue 42) and hough-p (HoughLinesP beside cv2; issue 44)
# at the session's last kernel change.
#   OUT=$OUT bash compat_matrix/raw/session-2026-11-28-eleventh/call_8.sh      (carry .ocv)
set -u
python3 -m pip install -q --no-deps --no-build-isolation -e . > /tmp/pip.log 2>&1
( timeout 260 python3 -m cvgpu bench --only cuda --no-progress --json "$OUT/bench-cuda.json" \
    > "$OUT/bench-cuda.txt" 2>&1; echo "bench cuda rc $?" >> "$OUT/rc.txt" )
( timeout 110 python3 -m cvgpu bench --only hough-p --no-progress --json "$OUT/bench-hough-p.json" \
    > "$OUT/bench-hough-p.txt" 2>&1; echo "bench hough-p rc $?" >> "$OUT/rc.txt" )
cat "$OUT/rc.txt"; cat "$OUT/bench-cuda.txt"; cat "$OUT/bench-hough-p.txt"
