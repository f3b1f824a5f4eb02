#!/usr/bin/env bash
# Third device call of the eleventh session (issue 44, the segment detector): the GPU suites with
# cs_maxima (one kernel: the chained scan of kernels/chain_scan.cuh, shared with the lines
# detector's ch_maxima); seg_ab.py arms (cells per thread, stash, clamped pack loads); seg_profile.py;
# ncu's kernel times of the lean replay (seg_one.py) at 640x480 and 1920x1080; the bench rows.
#   OUT=$OUT bash compat_matrix/raw/session-2026-11-28-eleventh/call_3.sh      (carry .ocv)
set -u
python3 -m pip install -q --no-deps --no-build-isolation -e . > "$OUT/pip.log" 2>&1
T=compat_matrix/raw/session-2026-11-28-eleventh
( timeout 170 python3 -m pytest -q -m gpu tests/cuda tests/hough/test_hough_lines.py tests/test_engine.py \
    tests/test_no_jit.py tests/test_device_ops.py -n 14 -p no:cacheprovider -rfE > "$OUT/pytest-gpu.log" 2>&1
  echo "pytest rc $?" >> "$OUT/rc.txt" )
( SEG_ARMS=${SEG_ARMS:-cur,cur+c4,cur+c2,cur+s16,cur+s32,cur+p1} CVGPU_ENGINE=cuda timeout 150 python3 $T/seg_ab.py \
    > "$OUT/seg-ab.jsonl" 2>> "$OUT/err.txt"; echo "ab rc $?" >> "$OUT/rc.txt" )
( CVGPU_ENGINE=cuda timeout 100 python3 $T/seg_profile.py > "$OUT/seg.jsonl" 2>> "$OUT/err.txt"; echo "seg rc $?" >> "$OUT/rc.txt" )
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -n 1)
for wl in "camera 640x480" "camera 1920x1080"; do
  ( CVGPU_ENGINE=cuda timeout 60 $NCU --clock-control none --kernel-name regex:"^(cs_|ch_coll|ch_vote)" \
      --metrics gpu__time_duration.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size \
      --csv python3 $T/seg_one.py $wl >> "$OUT/ncu.csv" 2>> "$OUT/err.txt"; echo "ncu $wl rc $?" >> "$OUT/rc.txt" )
done
( CVGPU_ENGINE=cuda timeout 60 $NCU --clock-control none --kernel-name cs_walk_count --launch-skip 2 --launch-count 1 \
    --section WarpStateStats --section SchedulerStats --section Occupancy --section SpeedOfLight \
    python3 $T/seg_one.py camera 1920x1080 > "$OUT/ncu-walk.txt" 2>> "$OUT/err.txt"; echo "ncu walk rc $?" >> "$OUT/rc.txt" )
( timeout 150 python3 -m cvgpu bench --only cuda-segments --no-progress --json "$OUT/bench-cuda-segments.json" \
    > "$OUT/bench-cuda-segments.txt" 2>&1; echo "bench rc $?" >> "$OUT/rc.txt" )
cat "$OUT/rc.txt"; tail -n 3 "$OUT/pytest-gpu.log"; cat "$OUT/seg-ab.jsonl"; tail -n 14 "$OUT/bench-cuda-segments.txt"
