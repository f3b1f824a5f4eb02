#!/usr/bin/env bash
# Second device call of the eleventh session (issue 44, the segment detector): the GPU suites
# (ci profile) with the batched walk, the pinned host copy and the hot replay; seg_ab.py (walk
# batch 1 / 4 / 8 / 16, and batch 1 with every call cold: the detector as it was); seg_profile.py;
# the cuda-segments bench rows (OpenCV-CUDA's kernels in the same job).
#   OUT=$OUT bash compat_matrix/raw/session-2026-11-28-eleventh/call_2.sh      (carry .dev .ocv)
set -u
python3 -m pip install -q --no-deps --no-build-isolation -e . > "$OUT/pip.log" 2>&1
T=compat_matrix/raw/session-2026-11-28-eleventh
( timeout 150 python3 -m pytest -q -m gpu tests/cuda tests/test_engine.py tests/test_no_jit.py \
    tests/test_device_ops.py -n 14 -p no:cacheprovider -rfE > "$OUT/pytest-gpu.log" 2>&1; echo "pytest rc $?" >> "$OUT/rc.txt" )
( SEG_ARMS=${SEG_ARMS:-cur@1+cold,cur@1,cur@4,cur,cur@16} CVGPU_ENGINE=cuda timeout 150 python3 $T/seg_ab.py \
    > "$OUT/seg-ab.jsonl" 2>> "$OUT/err.txt"; echo "ab rc $?" >> "$OUT/rc.txt" )
( CVGPU_ENGINE=cuda timeout 100 python3 $T/seg_profile.py > "$OUT/seg.jsonl" 2>> "$OUT/err.txt"; echo "seg rc $?" >> "$OUT/rc.txt" )
( timeout 150 python3 -m cvgpu bench --only cuda-segments --no-progress --json "$OUT/bench-cuda-segments.json" \
    > "$OUT/bench-cuda-segments.txt" 2>&1; echo "bench rc $?" >> "$OUT/rc.txt" )
cat "$OUT/rc.txt"; tail -n 3 "$OUT/pytest-gpu.log"; cat "$OUT/seg-ab.jsonl"; cat "$OUT/bench-cuda-segments.txt" | tail -n 15
