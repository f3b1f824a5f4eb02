#!/usr/bin/env bash
# Seventh device call of the eleventh session: det_ab.py (the lines detector's collection with 1, 2
# or 4 chunks a warp and tile; issue 42), then the segment detector's property and golden files at
# the device profile for P_TIMEOUT seconds (2e89a28's walk: rows only, loads batched).
#   OUT=$OUT bash compat_matrix/raw/session-2026-11-28-eleventh/call_7.sh
set -u
python3 -m pip install -q --no-deps --no-build-isolation -e . > /tmp/pip.log 2>&1
T=compat_matrix/raw/session-2026-11-28-eleventh
( DET_ARMS=${DET_ARMS:-i1,i2,i4} CVGPU_ENGINE=cuda timeout 150 python3 $T/det_ab.py > "$OUT/det-ab.jsonl" \
    2>> "$OUT/err.txt"; echo "det-ab rc $?" >> "$OUT/rc.txt" )
( HYPOTHESIS_PROFILE=device CVGPU_PROPERTY_SHARDS=32 timeout ${P_TIMEOUT:-150} python3 -m pytest -q -m gpu -rfE \
    tests/cuda/test_cuda_segments.py tests/cuda/test_cuda_segments_golden.py -n 14 -p no:cacheprovider \
    > "$OUT/pytest-segments-device.log" 2>&1; echo "pytest-device rc $?" >> "$OUT/rc.txt" )
cat "$OUT/rc.txt"; cat "$OUT/det-ab.jsonl"; grep -c "F" "$OUT/pytest-segments-device.log"; tail -c 600 "$OUT/pytest-segments-device.log"
