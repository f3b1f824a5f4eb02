#!/usr/bin/env bash
# Fifth device call of the eleventh session (issue 44, the segment detector): the GPU suites with
# cs_collect (the point list and the rows as bits in one kernel: cs_pack and the column copy gone;
# the walks read rows only); hough too (kernels/hough/voting.cuh's collection changed);
# seg_ab.py (batch 8 / 4); seg_profile.py; the bench rows.
#   OUT=$OUT bash compat_matrix/raw/session-2026-11-28-eleventh/call_5.sh      (carry .ocv)
set -u
python3 -m pip install -q --no-deps --no-build-isolation -e . > /tmp/pip.log 2>&1
T=compat_matrix/raw/session-2026-11-28-eleventh
( timeout 200 python3 -m pytest -q -m gpu tests/cuda tests/hough tests/test_engine.py tests/test_no_jit.py \
    tests/test_device_ops.py -n 14 -p no:cacheprovider -rfE > "$OUT/pytest-gpu.log" 2>&1; echo "pytest rc $?" >> "$OUT/rc.txt" )
( SEG_ARMS=${SEG_ARMS:-cur,cur@4} CVGPU_ENGINE=cuda timeout 150 python3 $T/seg_ab.py \
    > "$OUT/seg-ab.jsonl" 2>> "$OUT/err.txt"; echo "ab rc $?" >> "$OUT/rc.txt" )
( CVGPU_ENGINE=cuda timeout 100 python3 $T/seg_profile.py > "$OUT/seg.jsonl" 2>> "$OUT/err.txt"; echo "seg rc $?" >> "$OUT/rc.txt" )
( timeout 150 python3 -m cvgpu bench --only cuda-segments --no-progress --json "$OUT/bench-cuda-segments.json" \
    > "$OUT/bench-cuda-segments.txt" 2>&1; echo "bench rc $?" >> "$OUT/rc.txt" )
cat "$OUT/rc.txt"; tail -n 3 "$OUT/pytest-gpu.log"; cat "$OUT/seg-ab.jsonl"; tail -n 14 "$OUT/bench-cuda-segments.txt"
