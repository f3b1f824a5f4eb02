#!/usr/bin/env bash
# The device run, from the repository root on the GPU machine:
#   bash compat_matrix/run_device.sh tests [ci|device]   GPU suite, one pytest per test file, in parallel
#   bash compat_matrix/run_device.sh bench               cvgpu bench --variants --report (+ compare on examples/)
#   bash compat_matrix/run_device.sh compare             cvgpu compare on every example only
#   bash compat_matrix/run_device.sh all [ci|device]     both, then everything packed into device-run.tar.gz
#   bash compat_matrix/run_device.sh sanitize            compute-sanitizer memcheck + racecheck, GPU tests
# Writes to $OUT (or ./device-out): pytest-*.log, compat-rows.json, env.json, bench.log, bench.json,
# report/ (report.md, plots, compare.md). Give the commit: CVGPU_COMMIT=<sha> (the tree arrives
# without git). Then, where git is, with every call's folder of the one run:
#   tar -xzf device-run.tar.gz -C run1 && python3 compat_matrix/generate.py --from-device run1 run2 ...
# If .whl/cv5contrib.tar.xz is carried (opencv-contrib-python-headless, same version as the
# machine's cv2), it is unpacked and put first on PYTHONPATH so cv2.ximgproc exists.
set -u
# The commit is the caller's to give (env.json below): the tree arrives without its history, and a
# `git rev-parse HEAD` on the device named an older commit in the run of e220e58.
if [ -z "${CVGPU_COMMIT:-}" ]; then
  echo "run_device.sh: give the commit of this tree: CVGPU_COMMIT=<sha> (run_profile.sh: COMMIT=<sha>)" >&2
  exit 2
fi
export CVGPU_COMMIT
MODE=${1:-tests}
PROFILE=${2:-device}
OUT=${OUT:-$PWD/device-out}
FINAL=$OUT
# Every mode keeps its many files out of $OUT (a device call returns at most 8) and packs them into
# $OUT/device-run.tar.gz; the summaries (env.json, per-file.txt, compat-rows.json, bench.log) are
# copied beside it.
# RUN_TMP: another folder, for runs side by side on one machine (run_profile.sh x2).
OUT=${RUN_TMP:-/tmp/cvgpu-device-run} && rm -rf "$OUT"
mkdir -p "$FINAL"
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
# SKIP_INSTALL=1: the caller installed and compiled once (runs side by side would race on it).
if [ "${SKIP_INSTALL:-0}" != 1 ]; then
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1 || echo "pip install -e . failed"
# Byte code compiled once, as pip compiles an installed package (scripts' imports are then timed as
# a user's are), and nothing written during the run.
python3 -m compileall -q cvgpu examples tests >/dev/null 2>&1
fi
export PYTHONDONTWRITEBYTECODE=1
# The shared golden corpus travels inside the checkout as shared/golden (see tests/cuda).
[ -d shared/golden ] && export CVGPU_GOLDEN_DIR=$PWD/shared/golden
# (SKIP_INSTALL=1: the caller extracted it once; two runs extracting at once would rewrite the
# shared libraries one of them is loading.)
# (An archive carried in two halves: compat_matrix/contrib_parts.sh.)
bash compat_matrix/contrib_parts.sh
if [ -f .whl/cv5contrib.tar.xz ]; then
  if [ "${SKIP_INSTALL:-0}" != 1 ]; then mkdir -p /tmp/site && tar -xJf .whl/cv5contrib.tar.xz -C /tmp/site; fi
  export PYTHONPATH=/tmp/site
fi
# What this run is of: the commit (CVGPU_COMMIT, checked at the top), the digest of the sources on
# disk (compat_matrix/generate.py refuses a run whose digest is not the checkout's), the device and
# the versions. Every folder of one run carries the same env.json.
python3 - <<'PY' | tee "$OUT/env.json"
import json, os, sys
sys.path.insert(0, "compat_matrix")
import cv2, cupy, cvgpu, generate
print(json.dumps({"commit": os.environ["CVGPU_COMMIT"],
                  "source_digest": generate.source_digest(files=generate.disk_sources()),
                  "device": cupy.cuda.runtime.getDeviceProperties(0)["name"].decode(),
                  "cv2_version": cv2.__version__, "cupy_version": cupy.__version__,
                  "ximgproc": hasattr(cv2, "ximgproc"), "backend": cvgpu.backend()}))
PY

run_tests() {
  # OpenCV-CUDA's own outputs for global-memory voting cases (compat_matrix/record_golden_global.py),
  # recorded first where the harness is built and the file does not exist yet; copied out to commit.
  if [ "${RECORD_GOLDEN:-0}" = 1 ] && [ -x .ocv/harness ] && [ ! -f tests/golden/opencv_cuda_houghlines_global.npz ]; then
    python3 compat_matrix/record_golden_global.py --harness .ocv/harness > "$OUT/record-golden.log" 2>&1
    echo "== record_golden_global: exit $?"; tail -3 "$OUT/record-golden.log"
    cp tests/golden/opencv_cuda_houghlines_global.npz "$FINAL"/ 2>/dev/null
  fi
  local LOG=/tmp/cvgpu-compat-$$.jsonl
  export CVGPU_REQUIRE_GPU=1  # (tests/conftest.py: no usable GPU stops pytest instead of skipping)
  rm -f "$LOG"-*
  local pids=() t name files
  # FILES:WORKERS[:MARKER], FILES comma-separated (one pytest, one log); MARKER "gpu" runs only the
  # GPU tests (the CPU ones run in CI). In the device profile every hypothesis property is split
  # into $SHARDS items (tests/conftest.py), so the workers share even one long property.
  [ "$PROFILE" = device ] && export CVGPU_PROPERTY_SHARDS=${SHARDS:-16}
  # The device profile runs ~56 workers on 64 cores: cv2's parallel loops (Canny, resize, warpAffine
  # in the references and the inputs' making) would each start one thread per core in every worker.
  # Their results do not depend on the thread count; the ci profile's few workers keep cv2's default.
  if [ "$PROFILE" = device ]; then
    export OPENCV_FOR_THREADS_NUM=${OPENCV_FOR_THREADS_NUM:-2} OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
  fi
  # A device-profile item that outlasts a few minutes is stalled (the longest shards of e843617's
  # run took ~60 s; stalls of 240-540 s stopped whole pytests: raw/device-profile-e843617 and
  # -5de1e23). tests/conftest.py's watchdog writes its stacks to $OUT/stalls/stall-<worker>.txt
  # and ends its worker; xdist reports the item as crashed and runs the queued items on a new one.
  # (pytest's faulthandler_timeout wrote to the workers' stderr, which no log kept.)
  if [ "$PROFILE" = device ]; then
    export CVGPU_STALL_DIR=$OUT/stalls CVGPU_STALL_S=${STALL_DUMP_S:-240}
  fi
  # Work stealing: an idle worker takes the items queued behind a busy one. Under xdist's default
  # ("load") the items queued behind a stalled worker never ran (5de1e23's tests/cuda: 18 shards);
  # worksteal also evens out the long shards' tails. (pytest-xdist >= 3.2; else the default.)
  local dist=
  python3 -c "import sys, xdist; sys.exit(tuple(map(int, xdist.__version__.split('.')[:2])) < (3, 2))" \
    2>/dev/null && dist="--dist ${XDIST_DIST:-worksteal}"
  # One MPS server for the workers (device profile; MPS=0 leaves it off): with 16 workers as
  # separate contexts the GPU time-slices between them, and every small call's launches and
  # synchronisations wait for its context's slice. Measured on nvidia-h100-x1 at d47e77c
  # (raw/device-profile-mps-ab.txt): the labels and findContours properties' worker-seconds
  # 455 -> 294, the same 116 items passing; 16 workers beat 12 and 24 under MPS. The server is
  # a user process (pipe and log directories under /tmp; the GPU's compute mode stays as it is)
  # and is told to quit when the suites end.
  local mps=
  # MPS_SHARED=1: the caller runs one daemon for several runs side by side (its pipe folder in
  # CUDA_MPS_PIPE_DIRECTORY; run_profile.sh x2) and quits it after them.
  if [ "${MPS_SHARED:-0}" = 1 ]; then
    echo "MPS: shared, started by the caller ($CUDA_MPS_PIPE_DIRECTORY)" > "$OUT/mps.txt"
  elif [ "$PROFILE" = device ] && [ "${MPS:-1}" != 0 ] && command -v nvidia-cuda-mps-control >/dev/null; then
    export CUDA_MPS_PIPE_DIRECTORY=/tmp/cvgpu-mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/cvgpu-mps/log
    mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
    # (a client must get the GPU through it: else the suites would run without a GPU and skip)
    if nvidia-cuda-mps-control -d && python3 -c "import cvgpu, sys; sys.exit(cvgpu.backend() != 'cuda')"; then
      mps=1
      echo "MPS: on" > "$OUT/mps.txt"
    else
      echo quit | nvidia-cuda-mps-control 2>/dev/null; sleep 1
      unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
      echo "MPS: the daemon did not start or gave a client no GPU; time-sliced contexts" > "$OUT/mps.txt"
    fi
    cat "$OUT/mps.txt"
  fi
  # The default is every GPU suite, the list the matrix runs (run_final.sh, run_version.sh) use.
  local all="tests/hough:4:gpu tests/cuda:3 tests/ximgproc:2 tests/lms:1:gpu tests/contours:4:gpu"
  all+=" tests/test_device_ops.py,tests/test_no_jit.py,tests/test_engine.py,tests/test_hardening_common.py"
  all+=",tests/test_versions.py,tests/tools,tests/bench:2:gpu"
  # GPUS=N (a machine of N GPUs): the i-th entry of the list runs on GPU i mod N
  # (CUDA_VISIBLE_DEVICES), so one call spreads the suites over every GPU of the machine.
  local i=0 gpu_env=
  for t in ${TESTS:-$all}; do
    gpu_env=
    [ "${GPUS:-1}" -gt 1 ] && gpu_env="CUDA_VISIBLE_DEVICES=$((i % GPUS))"
    i=$((i + 1))
    files=${t%%:*}
    local rest=${t#*:}
    local workers=${rest%%:*} marker=
    [ "$rest" != "$workers" ] && marker=${rest#*:}
    name=$(for f in ${files//,/ }; do basename "$f" .py; done | paste -sd_)
    # One compat log per pytest (compat-rows-NAME.json beside the combined compat-rows.json), so the
    # rows of a pytest that was stopped can be told from the others'.
    env $gpu_env CVGPU_COMPAT_LOG=$LOG-$name HYPOTHESIS_PROFILE=$PROFILE timeout -s INT -k 30 ${SUITE_TIMEOUT:-420} \
      python3 -m pytest -q -n "$workers" $dist -p no:cacheprovider -p no:benchmark --tb=short -rf \
      --junitxml="$OUT/junit-$name.xml" ${marker:+-m "$marker"} ${files//,/ } > "$OUT/pytest-$name.log" 2>&1 &
    pids+=($!)
  done
  wait "${pids[@]}"
  if [ -n "$mps" ]; then
    echo quit | nvidia-cuda-mps-control
    sleep 1
    for f in "$CUDA_MPS_LOG_DIRECTORY"/*.log; do  # control.log, server.log: the clients it served
      cp "$f" "$OUT/mps-$(basename "$f")" 2>/dev/null
    done
    unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
  fi
  for f in "$OUT"/pytest-*.log; do
    echo "== $f"; grep -v warner "$f" | grep -E "^FAILED|^ERROR|passed|failed|error" | tail -8
    # A run stopped by SUITE_TIMEOUT still prints a summary: say loudly that it is partial.
    grep -q KeyboardInterrupt "$f" && echo "!! STOPPED AT SUITE_TIMEOUT (${SUITE_TIMEOUT:-420} s): not every test ran"
  done
  # The items the watchdog stopped (their stacks: $OUT/stalls/).
  grep -l "^Timeout" "$OUT"/stalls/*.txt 2>/dev/null | while read -r f; do
    echo "!! STALLED ITEM in $(basename "$f"): $(grep -B1 '^Timeout' "$f" | grep '^== ' | tail -1)"
  done
  # Per test file: passed / failed / skipped, from the JUnit files (a stopped run writes none).
  python3 - "$OUT" <<'PY' | tee "$OUT/per-file.txt"
import collections, glob, sys, xml.etree.ElementTree as ET
counts = collections.defaultdict(collections.Counter)
for path in glob.glob(sys.argv[1] + "/junit-*.xml"):
    for case in ET.parse(path).iter("testcase"):
        f = case.get("classname", "").split(".")[-1] or "?"
        kind = next((c.tag for c in case if c.tag in ("failure", "error", "skipped")), "passed")
        counts[f][kind] += 1
for f, c in sorted(counts.items()):
    print("%-24s %s" % (f, ", ".join("%d %s" % (n, k) for k, n in sorted(c.items()))))
PY
  # One row per (function, variant, reference, backend) with case counts; the raw lines are too many.
  python3 -c "import glob, json, sys; sys.path.insert(0, 'compat_matrix'); import generate
json.dump(generate.aggregate(glob.glob('$LOG-*')), open('$OUT/compat-rows.json', 'w'), indent=1)
names = sorted({p[len('$LOG-'):].rsplit('.', 1)[0] for p in glob.glob('$LOG-*')})
for n in names:
    json.dump(generate.aggregate(glob.glob('$LOG-' + n + '.*')), open('$OUT/compat-rows-%s.json' % n, 'w'), indent=1)"
}

run_sanitizer() {
  # compute-sanitizer over GPU tests (ci profile, CuPy's pool off so memcheck sees each array's
  # bounds). Every kernel runs many times slower under the tools: the whole GPU suite does not fit
  # in one 10-minute call, so the default selection is the one of the recorded run
  # (compat_matrix/raw/sanitizer-*.log): every family's stream test plus one property per family.
  # SANITIZER_SELECT: pytest node ids / files; SANITIZER_TOOLS: memcheck racecheck (synccheck too).
  # SANITIZER_WORKLOAD=1: compat_matrix/sanitize_workload.py instead of pytest (the cooperative list
  # ranking and the captured Hough graphs, bounded).
  OUT=$FINAL
  local tool
  local select=${SANITIZER_SELECT:-"tests/test_hardening_common.py::test_gpu_work_follows_the_callers_stream tests/cuda/test_cuda_hardening.py::test_gpu_detector_follows_its_stream_argument tests/hough/test_hough_lines.py::test_gpu_tiny_images tests/contours/test_find_contours.py::test_fixed_extremes tests/lms/test_lms.py::test_gpu_fit_is_exact"}
  local run="python3 -m pytest -q -p no:cacheprovider -p no:benchmark -m gpu $select"
  [ "${SANITIZER_WORKLOAD:-0}" = 1 ] && run="python3 compat_matrix/sanitize_workload.py"
  for tool in ${SANITIZER_TOOLS:-memcheck racecheck}; do
    CVGPU_TEST_NO_MEMORY_POOL=1 HYPOTHESIS_PROFILE=ci timeout -s INT -k 30 ${SANITIZER_TIMEOUT:-240} \
      compute-sanitizer --tool "$tool" --target-processes all --print-limit 20 \
      $run > "$OUT/sanitizer-$tool.log" 2>&1
    echo "== compute-sanitizer $tool: exit $?"
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|passed|failed|bad" "$OUT/sanitizer-$tool.log" | tail -4
  done
}

run_bench() {
  # LMS accuracy study (issue 9), then the benchmark report and `cvgpu compare` on examples/.
  timeout -s INT ${ACCURACY_TIMEOUT:-90} python3 -c "import cvgpu.bench.lms as m; m.print_accuracy(m.accuracy_rows())" \
    > "$OUT/lms-accuracy.log" 2>&1
  OUT="$OUT" BENCH_TIMEOUT=${BENCH_TIMEOUT:-420} bash examples/device_report.sh
}

run_compare() {
  OUT="$OUT" ONLY_COMPARE=1 bash examples/device_report.sh
}

pack() {
  (cd "$OUT" && tar -czf "$FINAL/device-run.tar.gz" .)
  # (The summaries a mode has: bench and compare runs have no per-file.txt or compat-rows.json, and a
  # missing one is not the run's failure; the fourteenth session's calls 2-3 exited 1 from here.)
  cp "$OUT"/bench.log "$OUT"/env.json "$OUT"/per-file.txt "$OUT"/compat-rows.json "$OUT"/compare.log "$FINAL"/ \
    2>/dev/null || true
}

case "$MODE" in
  tests) run_tests; pack ;;
  sanitize) run_sanitizer ;;
  bench) run_bench; pack ;;
  compare) run_compare; pack ;;
  all) run_tests; run_bench; pack ;;
esac
