#!/usr/bin/env bash
# One device call: install, GPU suite (device hypothesis profile), benchmark, compat matrix.
# Usage on the GPU machine, from the repository root:  bash compat_matrix/run_device.sh [ci|device]
# Writes pytest.log, bench.log, bench.json, results.json, README.md to $OUT (or ./device-out).
set -u
PROFILE=${1:-device}
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
python3 -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | tail -2
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
python3 -c "import cupy, cv2, cvgpu; print('cupy', cupy.__version__, 'cv2', cv2.__version__, 'backend', cvgpu.backend())"
LOG=/tmp/cvgpu-compat.jsonl
rm -f "$LOG".*
CVGPU_COMPAT_LOG=$LOG HYPOTHESIS_PROFILE=$PROFILE timeout ${SUITE_TIMEOUT:-420} \
  python3 -m pytest -q -n ${WORKERS:-16} -p no:cacheprovider -p no:benchmark ${TESTS:-tests} 2>&1 | tee "$OUT/pytest.log" | tail -40
timeout 150 python3 -m cvgpu bench --variants --json "$OUT/bench.json" 2>&1 | tee "$OUT/bench.log"
python3 compat_matrix/generate.py --logs "$LOG.*" --bench "$OUT/bench.json" --pytest-log "$OUT/pytest.log" \
  --out "$OUT" > /dev/null && echo "compat matrix written"
