#!/usr/bin/env bash
# The matrix run in the device profile (>= 10,000 examples per property, compat rows of >= 10,000
# non-trivial cases): every GPU suite spread over the GPUs of one machine, in two device calls at
# one commit on the same warm machine (nvidia-h100-x4: 4 GPUs, 64 cores), from the repository root:
#
#   call 1:  COMMIT=<sha> OUT=$OUT bash compat_matrix/run_profile.sh tests
#            every GPU suite in the device profile, one pytest per suite, suite i on GPU i mod N,
#            every hypothesis property split into $SHARDS items (tests/conftest.py), into $OUT/tests
#   call 2:  COMMIT=<sha> OUT=$OUT bash compat_matrix/run_profile.sh bench
#            the benchmark (alone on the machine: no test shares its CPUs) into $OUT/bench, then
#            cvgpu compare on every example into $OUT/compare
#
# Carry .ocv (OpenCV-CUDA's harness), .whl/cv5contrib.tar.xz and shared/golden in both calls. Then
# extract the three device-run.tar.gz and run compat_matrix/generate.py --from-device on them, as for
# run_final.sh (the ci-profile run on one GPU). Worker counts: the junit times of the last device-
# profile run (compat_matrix/HISTORY.md, "Device profile"), about 12,000 worker-seconds in all.
set -u
export CVGPU_COMMIT=$COMMIT
case "${1:-tests}" in
  tests)
    export SUITE_TIMEOUT=${SUITE_TIMEOUT:-540} SHARDS=${SHARDS:-32}
    GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU') && export GPUS
    misc=tests/test_device_ops.py,tests/test_no_jit.py,tests/test_engine.py,tests/test_hardening_common.py
    misc+=,tests/test_versions.py,tests/tools,tests/bench
    # (the order spreads the heavy suites: hough, contours and cuda on GPUs of their own where N >= 3)
    TESTS=${TESTS:-"tests/hough:16:gpu tests/contours:18:gpu tests/cuda:18 tests/ximgproc:6 tests/lms:3:gpu $misc:3:gpu"} \
      OUT=$OUT/tests bash compat_matrix/run_device.sh tests device
    ;;
  bench)
    ACCURACY_TIMEOUT=45 BENCH_TIMEOUT=${BENCH_TIMEOUT:-470} NO_COMPARE=1 OUT=$OUT/bench \
      bash compat_matrix/run_device.sh bench 2>&1 | tail -5
    OUT=$OUT/compare bash compat_matrix/run_device.sh compare 2>&1 | tail -5
    ;;
esac
