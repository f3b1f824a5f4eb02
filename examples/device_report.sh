#!/usr/bin/env bash
# The example report, on a GPU machine, from the repository root (cvgpu installed, e.g. pip install -e .):
#   bash examples/device_report.sh
# Writes to ${OUT:-./device-out}: report/ (report.md, the PNG plots, bench.json, and compare.md with
# `cvgpu compare` on every example: commit this folder), bench.json (the rows as
# compat_matrix/generate.py reads them), bench.log, and compare-<name>.json / compare-<name>.log.
# Prints the tables as it goes.
set -u
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT/report"
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
# As compat_matrix/run_device.sh: a carried opencv-contrib build gives cv2.ximgproc (the Radon rows' cv2 side).
if [ -f .whl/cv5contrib.tar.xz ]; then
  mkdir -p /tmp/site && tar -xJf .whl/cv5contrib.tar.xz -C /tmp/site && export PYTHONPATH=/tmp/site
fi
# OpenCV-CUDA's harness (the ocv-cuda column, ../shared/ocv_harness/README.md): built here when its sources
# were carried in .ocv/ without the binaries (nvcc, sm_90); the bench falls back to recorded figures if not.
for h in harness harness_seg; do
  if [ -f ".ocv/$h.cu" ] && [ ! -x ".ocv/$h" ] && command -v nvcc >/dev/null; then
    (cd .ocv && nvcc -O3 -arch=sm_90 -I. -o "$h" "$h.cu") > "$OUT/nvcc-$h.log" 2>&1 || echo "building .ocv/$h failed"
  fi
done
# BENCH_ARGS: extra `cvgpu bench` arguments (e.g. "--only radon --only lms"); NO_COMPARE=1 skips compare,
# ONLY_COMPARE=1 skips the benchmark.
if [ "${ONLY_COMPARE:-0}" != 1 ]; then
  timeout -s INT "${BENCH_TIMEOUT:-480}" python3 -m cvgpu bench --variants --no-progress ${BENCH_ARGS:-} \
    --report "$OUT/report" --json "$OUT/bench.json" 2>&1 | tee "$OUT/bench.log"
fi
[ "${NO_COMPARE:-0}" = 1 ] && exit 0
printf '# cvgpu compare on the examples\n\n`cvgpu compare --repeat %s` runs each script with cv2 and with cvgpu as cv2 (engine\n`auto`, as users get it), in %s pairs of fresh processes in alternating order on the machine\nof the report: the first pair, then the medians.\n\n' "${COMPARE_REPEAT:-3}" "${COMPARE_REPEAT:-3}" \
  > "$OUT/report/compare.md"
run_compare() {
  local name=$1; shift
  # COMPARE_REPEAT pairs of runs (alternating order): the report gives the first pair and the medians
  timeout -s INT "${COMPARE_TIMEOUT:-150}" python3 -m cvgpu compare --repeat "${COMPARE_REPEAT:-3}" \
    --json "$OUT/compare-$name.json" --markdown "$OUT/report/compare.md" "examples/$name.py" "$@" \
    > "$OUT/compare-$name.log" 2>&1
  echo "== compare examples/$name.py $* (exit $?)"
  sed -n '/^cvgpu compare:/,$p' "$OUT/compare-$name.log"
}
{
for spec in ${EXAMPLES:-"detect_lines --pages 20" "count_objects --frames 20" "cuda_hough --frames 20" \
    "document_scanner" "measure_parts" "photo_lines" "cell_count" "ct_sinogram" "lane_lines" \
    "video_lines" "scan_archive"}; do
  [ -f "examples/${spec%% *}.py" ] && run_compare $spec
done
} 2>&1 | tee "$OUT/compare.log"
