#!/usr/bin/env bash
# The device run, from the repository root on the GPU machine:
#   bash compat_matrix/run_device.sh tests [ci|device]   GPU suite, one pytest per test file, in parallel
#   bash compat_matrix/run_device.sh bench               python -m cvgpu bench --variants
# Writes to $OUT (or ./device-out): pytest-*.log, compat-rows.json, env.json / bench.log, bench.json.
# Then, where git is:  python3 compat_matrix/generate.py --from-device <folder with both runs' files>
# If .whl/cv5contrib.tar.xz is carried (opencv-contrib-python-headless, same version as the
# machine's cv2), it is unpacked and put first on PYTHONPATH so cv2.ximgproc exists.
set -u
MODE=${1:-tests}
PROFILE=${2:-device}
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1 || echo "pip install -e . failed"
if [ -f .whl/cv5contrib.tar.xz ]; then
  mkdir -p /tmp/site && tar -xJf .whl/cv5contrib.tar.xz -C /tmp/site && export PYTHONPATH=/tmp/site
fi
python3 -c "import json, cv2, cupy, cvgpu; print(json.dumps({'device': cupy.cuda.runtime.getDeviceProperties(0)['name'].decode(),
  'cv2_version': cv2.__version__, 'cupy_version': cupy.__version__, 'ximgproc': hasattr(cv2, 'ximgproc'),
  'backend': cvgpu.backend()}))" | tee "$OUT/env.json"
if [ "$MODE" = bench ]; then
  timeout -s INT 540 python3 -m cvgpu bench --variants --json "$OUT/bench.json" 2>&1 | tee "$OUT/bench.log"
  exit 0
fi
LOG=/tmp/cvgpu-compat.jsonl
rm -f "$LOG".*
pids=()
for t in ${TESTS:-tests/test_hough_lines.py tests/test_cuda_hough.py tests/test_radon.py}; do
  name=$(basename "$t" .py)
  CVGPU_COMPAT_LOG=$LOG HYPOTHESIS_PROFILE=$PROFILE timeout -s INT -k 30 ${SUITE_TIMEOUT:-420} \
    python3 -m pytest -q -n ${WORKERS:-6} -p no:cacheprovider -p no:benchmark --tb=short "$t" \
    > "$OUT/pytest-$name.log" 2>&1 &
  pids+=($!)
done
wait "${pids[@]}"
for f in "$OUT"/pytest-*.log; do
  echo "== $f"; grep -v warner "$f" | grep -E "^FAILED|^ERROR|passed|failed|error" | tail -8
done
# One row per (function, variant, reference, backend) with case counts; the raw lines are too many.
python3 -c "import glob, json, sys; sys.path.insert(0, 'compat_matrix'); import generate
json.dump(generate.aggregate(glob.glob('$LOG.*')), open('$OUT/compat-rows.json', 'w'), indent=1)"
