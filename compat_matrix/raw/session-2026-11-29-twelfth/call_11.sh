#!/usr/bin/env bash
# Eleventh device call of the twelfth session: `cvgpu bench --only hough` (HoughLines on the seed
# segments and photographs, numpy and device io, cv2 in the same run) over 5a3329a's tree (A, carried
# as .dev/ab-old) and then 71f61c5 (B), for the rows b11332e's zeroing after the count moves.
#   OUT=$OUT bash compat_matrix/raw/session-2026-11-29-twelfth/call_11.sh      (carry .dev)
set -u
python3 -m pip install -q --no-deps --no-build-isolation -e . > /tmp/pip.log 2>&1
for arm in A B; do
  tree=$PWD; [ $arm = A ] && tree=$PWD/.dev/ab-old
  ( cd /tmp && PYTHONPATH=$tree timeout 130 python3 -m cvgpu bench --only hough --no-progress \
      --json "$OUT/bench-hough-$arm.json" > "$OUT/bench-hough-$arm.txt" 2>&1; echo "bench $arm rc $?" >> "$OUT/rc.txt" )
done
cat "$OUT/rc.txt"; head -n 3 "$OUT/bench-hough-A.txt"
paste -d'|' <(cut -c1-86 "$OUT/bench-hough-A.txt") <(cut -c48-70 "$OUT/bench-hough-B.txt") | head -n 40
