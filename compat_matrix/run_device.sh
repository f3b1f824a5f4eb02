#!/usr/bin/env bash
# One device call: install, GPU suite (device hypothesis profile), benchmark, compat matrix.
# Usage on the GPU machine, from the repository root:  bash compat_matrix/run_device.sh [ci|device]
# Writes pytest.log, bench.log, bench.json, compat.jsonl, env.json to $OUT (or ./device-out).
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
CVGPU_COMPAT_LOG=$LOG HYPOTHESIS_PROFILE=$PROFILE timeout -s INT -k 30 ${SUITE_TIMEOUT:-420} \
  python3 -m pytest -q -n ${WORKERS:-16} -p no:cacheprovider -p no:benchmark ${TESTS:-tests} 2>&1 | tee "$OUT/pytest.log" | tail -40
timeout 150 python3 -m cvgpu bench --variants --json "$OUT/bench.json" 2>&1 | tee "$OUT/bench.log"
cat "$LOG".* > "$OUT/compat.jsonl" 2>/dev/null
python3 -c "import json, cv2, cupy; print(json.dumps({'device': cupy.cuda.runtime.getDeviceProperties(0)['name'].decode(),
  'cv2_version': cv2.__version__, 'cupy_version': cupy.__version__}))" > "$OUT/env.json"
# The table itself is generated where git is (the source digest covers git-tracked files):
#   python3 compat_matrix/generate.py --from-device <folder with compat.jsonl env.json bench.json pytest.log>
