#!/usr/bin/env bash
# The matrix run in the device profile (>= 10,000 examples per property): every GPU suite spread
# over the GPUs of one machine (nvidia-h100-x4: 4 GPUs, 64 cores), three device calls at one commit
# on the same warm machine, from the repository root:
#
#   call 1:  COMMIT=<sha> OUT=$OUT bash compat_matrix/run_profile.sh tests-a   cuda, ximgproc, lms, misc
#   call 2:  COMMIT=<sha> OUT=$OUT bash compat_matrix/run_profile.sh tests-b   contours, hough
#   call 3:  COMMIT=<sha> OUT=$OUT bash compat_matrix/run_profile.sh bench     bench alone, then compare
#
# Each suite runs whole in one call (one pytest, suite i of a call on GPU i mod N, every hypothesis
# property split into $SHARDS items: tests/conftest.py); generate.py refuses a suite that was stopped.
# Carry .ocv (OpenCV-CUDA's harness) and .whl/cv5contrib.tar.xz (or its halves: contrib_parts.sh) in
# every call; shared/ (the golden corpus) travels with the tree by itself, never name it in carry. Then
# extract the device-run.tar.gz of each call's folders (tests-a/, tests-b/, bench/, compare/) and run
# compat_matrix/generate.py --from-device on all four, as for run_final.sh (the ci-profile run).
#
# Worker counts and SHARDS: from the worker-seconds of the device-profile run of 4ea946f
# (raw/device-profile-4ea946f-partial.txt: contours and cuda stopped at 520 s) and the example
# counts and cheaper generators since (HISTORY, "Test generators for the next device-profile run"):
# estimated hough ~11,200 worker-s over 26 workers, contours ~12,000 over 30. The x4 machine's
# start-up held it ~570 s.
#
# On one GPU (nvidia-h100-x1: 16 cores), the same run in calls that each take a share of every
# property's shards (tests/conftest.py, CVGPU_SHARD_SELECT), as the run of e843617 went
# (raw/device-profile-e843617/README.md: the times below are its):
#
#   COMMIT=<sha> OUT=$OUT bash compat_matrix/run_profile.sh part 0:16      ~450 s  hough, contours,
#   ... part 16:32, part 32:48, part 48:64                                 ~310-380 s each  lms, rest
#   COMMIT=<sha> OUT=$OUT bash compat_matrix/run_profile.sh cuda           ~180 s  cuda, ximgproc
#   COMMIT=<sha> OUT=$OUT bash compat_matrix/run_profile.sh segments 0:64  ~130 s  (and 64:128)
#   COMMIT=<sha> OUT=$OUT bash compat_matrix/run_profile.sh bench          ~470 s  bench, compare
#
# A part holding shard 0 also runs every test that is not a shard; the parts of one pytest must
# hold each shard once. The segment detector's property and the seeded OpenCV-CUDA corpus run in
# pytests of their own: with either beside the rest of tests/cuda, one worker stalled for minutes in
# the runs of e843617 and 5de1e23 and its queued items never ran (raw/device-profile-5de1e23/README.md;
# alone they never did; cause not known). tests/conftest.py's watchdog now dumps and stops such an item
# (CVGPU_STALL_DIR, set by run_device.sh). Carry .ocv, .whl/cv5contrib.tar.xz and shared/golden.
# A one-GPU machine goes back after 30 minutes held: about four such calls each.
#
#   COMMIT=<sha> OUT=$OUT bash compat_matrix/run_profile.sh seeded         ~60 s   the seeded corpus
#   COMMIT=<sha> OUT=$OUT bash compat_matrix/run_profile.sh rest           cuda, seeded, segments 0:128
#
# One session's device time (1,800 s, every held second counted, ~35 s to start) holds the four
# parts and `rest` only with run_device.sh's MPS server (raw/device-profile-mps-ab.txt: the GPU
# properties' worker-seconds -35 %): without it the parts took 315-453 s each at 5de1e23 and the
# whole profile ~2,000 s. Launch each call as soon as the last returns (a machine idle 30 s goes back).
# On two GPUs (nvidia-h100-x2: 32 cores), two shard ranges at once, one a GPU, under one MPS daemon.
# The run of 49341fa (2 x H200; raw/device-profile-49341fa/README.md): the two parts calls 312 and
# 261 s, x2-rest 253 s, then `run_device.sh bench` alone 466 s; 1,360 s held with the start.
# `run_device.sh compare` (cvgpu compare --repeat 3 on every example) needs a call of its own: it
# did not finish in the 150 s left after that bench.
#
#   COMMIT=<sha> OUT=$OUT bash compat_matrix/run_profile.sh x2 0:16 16:32      (then 32:48 48:64)
#   COMMIT=<sha> OUT=$OUT bash compat_matrix/run_profile.sh x2-rest
#
# The Dask run (tests/dask with its 2-GPU tests, the example, the benchmark) fits on the same warm
# machine in a call that carries .whldask alone (what earlier calls carried stays there; the four
# paths together pass the carry limit): ~200 s at b6e3274 (raw/session-2026-11-28e):
#   WHEELS=.whldask REPEAT=5 LAYOUTS="8x1mps 10x1mps" BENCH_ARGS="--batch 0,32 --floor" \
#     OUT=$OUT/dask bash examples/dask_device_run.sh
set -u
export CVGPU_COMMIT=$COMMIT
# opencv-contrib carried in two halves (the carry limit): compat_matrix/contrib_parts.sh
bash compat_matrix/contrib_parts.sh
GPUS=${GPUS:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')} && export GPUS
export SUITE_TIMEOUT=${SUITE_TIMEOUT:-530}
misc=tests/test_device_ops.py,tests/test_no_jit.py,tests/test_engine.py,tests/test_hardening_common.py
misc+=,tests/test_versions.py,tests/tools,tests/bench
case "${1:-tests-a}" in
  tests-a)
    SHARDS=${SHARDS:-64} TESTS=${TESTS:-"tests/cuda:40 tests/ximgproc:7 tests/lms:5:gpu $misc:3:gpu"} \
      OUT=$OUT/tests-a bash compat_matrix/run_device.sh tests device
    ;;
  tests-b)
    SHARDS=${SHARDS:-32} TESTS=${TESTS:-"tests/contours:30:gpu tests/hough:26:gpu"} \
      OUT=$OUT/tests-b bash compat_matrix/run_device.sh tests device
    ;;
  part)
    SHARDS=${SHARDS:-64} CVGPU_SHARD_SELECT=$2 TESTS=${TESTS:-"tests/hough,tests/contours,tests/lms,$misc:16:gpu"} \
      OUT=$OUT/tests-${2/:/-} bash compat_matrix/run_device.sh tests device
    ;;
  cuda)
    SHARDS=${SHARDS:-128} CVGPU_SHARD_SELECT=0:${SHARDS:-128} TESTS=${TESTS:-"tests/cuda,tests/ximgproc:16"} \
      PYTEST_ADDOPTS="--deselect tests/cuda/test_cuda_segments.py::test_property_equals_model --ignore=tests/cuda/test_cuda_seeded_golden.py" \
      OUT=$OUT/cuda bash compat_matrix/run_device.sh tests device
    ;;
  seeded)
    SHARDS=${SHARDS:-128} CVGPU_SHARD_SELECT=0:${SHARDS:-128} TESTS=${TESTS:-"tests/cuda/test_cuda_seeded_golden.py:16"} \
      OUT=$OUT/seeded bash compat_matrix/run_device.sh tests device
    ;;
  segments)
    SHARDS=${SHARDS:-128} CVGPU_SHARD_SELECT=$2 TESTS=${TESTS:-"tests/cuda/test_cuda_segments.py:16"} \
      PYTEST_ADDOPTS="-k test_property_equals_model" OUT=$OUT/segments-${2/:/-} \
      bash compat_matrix/run_device.sh tests device
    ;;
  rest)
    # cuda, seeded and the segment property one after another in one call, each its own pytest
    # as above: 8d03728's took 179-198, 76 and 190 s under MPS (raw/device-profile-8d03728); the
    # limits below add up to 550 s, under a call's 600 with the three installs.
    SUITE_TIMEOUT=${CUDA_TIMEOUT:-240} bash "$0" cuda
    SUITE_TIMEOUT=${SEEDED_TIMEOUT:-90} bash "$0" seeded
    SUITE_TIMEOUT=${SEGMENTS_TIMEOUT:-220} bash "$0" segments 0:128
    # Each folder's summaries are inside its device-run.tar.gz too: keep only the tarballs, so that
    # the three folders come back in one call (at most eight files).
    for d in cuda seeded segments-0-128; do
      rm -f "$OUT/$d/compat-rows.json" "$OUT/$d/env.json" "$OUT/$d/per-file.txt"
    done
    ;;
  x2|x2-rest)
    # One install, one MPS daemon that sees both GPUs (each run's pytest then names its GPU with
    # CUDA_VISIBLE_DEVICES, as the Dask benchmark's MPS rows did), two runs side by side.
    python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1 || echo "pip install -e . failed"
    python3 -m compileall -q cvgpu examples tests >/dev/null 2>&1
    if [ -f .whl/cv5contrib.tar.xz ]; then mkdir -p /tmp/site && tar -xJf .whl/cv5contrib.tar.xz -C /tmp/site; fi
    export SKIP_INSTALL=1 GPUS=1
    # (Without the shared daemon the two runs go without MPS: each would start one at the same path.)
    export MPS_SHARED=0
    if [ "${MPS:-1}" != 0 ] && command -v nvidia-cuda-mps-control >/dev/null; then
      export CUDA_MPS_PIPE_DIRECTORY=/tmp/cvgpu-mps-x2/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/cvgpu-mps-x2/log
      mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
      if nvidia-cuda-mps-control -d; then
        export MPS_SHARED=1
      else
        unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
      fi
    fi
    [ "$MPS_SHARED" = 1 ] || export MPS=0
    if [ "$1" = x2 ]; then
      CUDA_VISIBLE_DEVICES=0 RUN_TMP=/tmp/cvgpu-run-0 bash "$0" part "$2" > "$OUT/x2-gpu0.log" 2>&1 &
      CUDA_VISIBLE_DEVICES=1 RUN_TMP=/tmp/cvgpu-run-1 bash "$0" part "$3" > "$OUT/x2-gpu1.log" 2>&1 &
    else
      CUDA_VISIBLE_DEVICES=0 RUN_TMP=/tmp/cvgpu-run-0 SUITE_TIMEOUT=${CUDA_TIMEOUT:-300} bash "$0" cuda \
        > "$OUT/x2-gpu0.log" 2>&1 &
      (export CUDA_VISIBLE_DEVICES=1 RUN_TMP=/tmp/cvgpu-run-1
       SUITE_TIMEOUT=${SEEDED_TIMEOUT:-90} bash "$0" seeded
       SUITE_TIMEOUT=${SEGMENTS_TIMEOUT:-220} bash "$0" segments 0:128) > "$OUT/x2-gpu1.log" 2>&1 &
    fi
    wait
    if [ "${MPS_SHARED:-0}" = 1 ]; then echo quit | nvidia-cuda-mps-control; sleep 1; fi
    tail -n 12 "$OUT"/x2-gpu*.log
    for d in "$OUT"/*/; do rm -f "$d/compat-rows.json" "$d/env.json" "$d/per-file.txt"; done
    ;;
  bench)
    ACCURACY_TIMEOUT=45 BENCH_TIMEOUT=${BENCH_TIMEOUT:-470} NO_COMPARE=1 OUT=$OUT/bench \
      bash compat_matrix/run_device.sh bench 2>&1 | tail -5
    OUT=$OUT/compare bash compat_matrix/run_device.sh compare 2>&1 | tail -5
    ;;
esac
