#!/usr/bin/env bash
# cvgpu.dask on a machine with 2 GPUs (issue 45), from the repository root, with the Dask wheels in
# ${WHEELS:-.whl}/ (dask, distributed and what the device image lacks of their needs, for its Python:
#   pip download --python-version 3.12 --only-binary=:all: -d .whldask dask distributed):
#   bash examples/dask_device_run.sh
# Installs the wheels into /tmp/site, runs tests/dask (the 2-GPU tests included), the example on
# every GPU and on one, then `python -m cvgpu.bench.dask_scaling`. Writes to ${OUT:-./device-out}:
# env.log, tests.log, example-2gpu.log, example-1gpu.log, bench.log, dask_scaling.json.
# Sized for 9 minutes on 2 x H100 with 32 cores (each step has its own time limit; the sum is 8.5
# minutes). IMAGES (default 2000) images per benchmark pass, LAYOUTS (default "1x4 2x4") the GPU
# workers x threads per GPU, REPEAT (default 3) timed passes per row. MPS_LAYOUTS (default none):
# layouts run again with an MPS server started for them (the processes of one GPU then share it;
# their rows say "MPS"), into dask_scaling_mps.json / bench-mps.log. BENCH_ONLY=1 skips the tests and
# the example; BENCH_ARGS: more arguments of the benchmark (e.g. --batch 32).
set -u
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1
SITE=${SITE:-/tmp/site}
mkdir -p "$SITE"
# As examples/device_report.sh: a carried opencv-contrib build, when there is one.
if [ -f .whl/cv5contrib.tar.xz ]; then tar -xJf .whl/cv5contrib.tar.xz -C "$SITE"; fi
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" "${WHEELS:-.whl}"/*.whl \
  > "$OUT/pip.log" 2>&1 || { cat "$OUT/pip.log"; exit 1; }
# (The CPU row's workers warn once each that cvgpu computes with cv2, as asked: CVGPU_BACKEND=cv2;
# the warnings and the source lines Python prints with them are dropped from the benchmark's log.)
# Byte-compile once: each Dask worker is a new interpreter that imports distributed (seconds from source).
python3 -m compileall -q -j 0 "$SITE" > /dev/null 2>&1
export PYTHONPATH=$SITE:$PWD

python3 - <<'EOF' 2>&1 | tee "$OUT/env.log"
import os, platform
import cv2, dask, distributed, numpy, cvgpu
from cvgpu.dask import visible_gpus
print("python", platform.python_version(), "dask", dask.__version__, "distributed", distributed.__version__,
      "numpy", numpy.__version__, "cv2", cv2.__version__, "cores", os.cpu_count())
print("cvgpu backend", cvgpu.backend(), "| visible GPUs", visible_gpus())
EOF
nvidia-smi -L 2>&1 | tee -a "$OUT/env.log"

if [ "${BENCH_ONLY:-0}" != 1 ]; then  # BENCH_ONLY=1: the benchmark alone
echo "== tests/dask"
timeout -s INT "${TEST_TIMEOUT:-170}" python3 -m pytest -q -p no:cacheprovider -rs --durations=12 tests/dask 2>&1 \
  | tee "$OUT/tests.log"

echo "== examples/dask_contours.py: every GPU, then one"
rm -rf /tmp/dask_demo && mkdir -p /tmp/dask_demo && printf 'not an image' > /tmp/dask_demo/zz_corrupt.png
timeout -s INT "${EXAMPLE_TIMEOUT:-40}" python3 examples/dask_contours.py /tmp/dask_demo --demo "${DEMO:-300}" \
  --csv "$OUT/contours-2gpu.csv" > "$OUT/example-2gpu.log" 2>&1
echo "exit $? (1 expected: one corrupt file)"; grep -v '^cvgpu.dask: ' "$OUT/example-2gpu.log" | tail -4
timeout -s INT "${EXAMPLE_TIMEOUT:-40}" python3 examples/dask_contours.py /tmp/dask_demo --gpus 1 \
  --csv /tmp/contours-1gpu.csv > "$OUT/example-1gpu.log" 2>&1
echo "exit $?"; grep -v '^cvgpu.dask: ' "$OUT/example-1gpu.log" | tail -4
cmp -s "$OUT/contours-2gpu.csv" /tmp/contours-1gpu.csv && echo "1-GPU CSV == 2-GPU CSV" || echo "CSV DIFFER"
gzip -f "$OUT/contours-2gpu.csv"
fi

echo "== python -m cvgpu.bench.dask_scaling"
# shellcheck disable=SC2086
timeout -s INT "${BENCH_TIMEOUT:-260}" python3 -m cvgpu.bench.dask_scaling --images "${IMAGES:-2000}" \
  --layouts ${LAYOUTS:-1x4 2x4} --repeat "${REPEAT:-3}" ${BENCH_ARGS:-} --json "$OUT/dask_scaling.json" 2>&1 \
  | grep -v -e 'CvgpuFallbackWarning' -e 'findContoursPacked(mask' -e 'self.func(.new_argspec)' | tee "$OUT/bench.log"

if [ -n "${MPS_LAYOUTS:-}" ] && command -v nvidia-cuda-mps-control > /dev/null; then
  echo "== python -m cvgpu.bench.dask_scaling under MPS (no CPU row)"
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/cvgpu-dask-mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/cvgpu-dask-mps/log
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  if nvidia-cuda-mps-control -d; then
    # shellcheck disable=SC2086
    timeout -s INT "${MPS_BENCH_TIMEOUT:-260}" python3 -m cvgpu.bench.dask_scaling --images "${IMAGES:-2000}" \
      --layouts ${MPS_LAYOUTS} --repeat "${REPEAT:-3}" --no-cpu ${BENCH_ARGS:-} --json "$OUT/dask_scaling_mps.json" 2>&1 \
      | grep -v -e 'CvgpuFallbackWarning' -e 'findContoursPacked(mask' -e 'self.func(.new_argspec)' | tee "$OUT/bench-mps.log"
    echo quit | nvidia-cuda-mps-control; sleep 1
    cp "$CUDA_MPS_LOG_DIRECTORY"/control.log "$OUT/mps-control.log" 2>/dev/null
  else
    echo "MPS: the daemon did not start" | tee "$OUT/bench-mps.log"
  fi
fi
