#!/usr/bin/env bash
# Fourth device call of the eleventh session (issue 44, the segment detector): the GPU suites with
# cs_place (offsets by a chained scan and the stash's copies in one kernel: cs_scan and cs_gather
# gone), CS_CELLS 4, STASH_PER 16; seg_ab.py arms (the walks on row words only; batch 4; cells 8
# with stash 8 as in call 3); seg_profile.py; the bench rows.
#   OUT=$OUT bash compat_matrix/raw/session-2026-11-28-eleventh/call_4.sh      (carry .ocv)
set -u
python3 -m pip install -q --no-deps --no-build-isolation -e . > /tmp/pip.log 2>&1
T=compat_matrix/raw/session-2026-11-28-eleventh
( timeout 170 python3 -m pytest -q -m gpu tests/cuda tests/test_engine.py tests/test_no_jit.py tests/test_device_ops.py \
    -n 14 -p no:cacheprovider -rfE > "$OUT/pytest-gpu.log" 2>&1; echo "pytest rc $?" >> "$OUT/rc.txt" )
( SEG_ARMS=${SEG_ARMS:-cur,cur+r1,cur@4,cur+c8+s8} CVGPU_ENGINE=cuda timeout 150 python3 $T/seg_ab.py \
    > "$OUT/seg-ab.jsonl" 2>> "$OUT/err.txt"; echo "ab rc $?" >> "$OUT/rc.txt" )
( CVGPU_ENGINE=cuda timeout 100 python3 $T/seg_profile.py > "$OUT/seg.jsonl" 2>> "$OUT/err.txt"; echo "seg rc $?" >> "$OUT/rc.txt" )
( timeout 150 python3 -m cvgpu bench --only cuda-segments --no-progress --json "$OUT/bench-cuda-segments.json" \
    > "$OUT/bench-cuda-segments.txt" 2>&1; echo "bench rc $?" >> "$OUT/rc.txt" )
cat "$OUT/rc.txt"; tail -n 3 "$OUT/pytest-gpu.log"; cat "$OUT/seg-ab.jsonl"; tail -n 14 "$OUT/bench-cuda-segments.txt"
