#!/usr/bin/env bash
# Sixth device call of the eleventh session (issue 42, a probe): ncu's kernel times of the lines
# detector's lean replay on the weakest rows of 3168434's bench (camera 3840x2160 threshold 42,
# 1,857 lines; coffee 3840x2160 threshold 96; astronaut 1280x720 threshold 128), then the
# cuda-hough bench rows (OpenCV-CUDA's kernels in the same job) at 6f66699.
#   OUT=$OUT bash compat_matrix/raw/session-2026-11-28-eleventh/call_6.sh      (carry .ocv)
set -u
python3 -m pip install -q --no-deps --no-build-isolation -e . > /tmp/pip.log 2>&1
T=compat_matrix/raw/session-2026-11-28-eleventh
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -n 1)
for wl in "camera 3840x2160 42" "coffee 3840x2160 96" "astronaut 1280x720 128"; do
  echo "# $wl" >> "$OUT/ncu-det.csv"
  ( CVGPU_ENGINE=cuda timeout 60 $NCU --clock-control none --kernel-name regex:"^ch_" \
      --metrics gpu__time_duration.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__grid_size,launch__block_size,launch__registers_per_thread \
      --csv python3 $T/det_one.py $wl >> "$OUT/ncu-det.csv" 2>> "$OUT/err.txt"; echo "ncu $wl rc $?" >> "$OUT/rc.txt" )
done
( timeout 300 python3 -m cvgpu bench --only cuda-hough --no-progress --json "$OUT/bench-cuda-hough.json" \
    > "$OUT/bench-cuda-hough.txt" 2>&1; echo "bench rc $?" >> "$OUT/rc.txt" )
cat "$OUT/rc.txt"; cat "$OUT/bench-cuda-hough.txt"
