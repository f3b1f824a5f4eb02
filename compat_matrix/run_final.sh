#!/usr/bin/env bash
# A complete device run for the compat matrix, in two device calls at one commit (each fits the
# 600 s limit of a call), from the repository root on the GPU machine:
#
#   call 1:  COMMIT=<sha> OUT=$OUT bash compat_matrix/run_final.sh
#            every GPU suite (run_device.sh's default list, ci hypothesis profile) beside the
#            machine's cv2 (+ contrib when .whl/cv5contrib.tar.xz is carried), into $OUT/tests,
#            then cvgpu compare on every example into $OUT/compare
#   call 2:  CVGPU_COMMIT=<sha> ACCURACY_TIMEOUT=45 BENCH_TIMEOUT=470 NO_COMPARE=1 OUT=$OUT \
#            bash compat_matrix/run_device.sh bench
#
# Carry .ocv (OpenCV-CUDA's harness, for the side-by-side columns), .whl/cv5contrib.tar.xz and
# shared/golden. Then, where git is, extract the three device-run.tar.gz into folders and run
# compat_matrix/generate.py --from-device A B C: it refuses folders of other sources, of another
# device or commit, and any suite that failed or was stopped (SUITE_TIMEOUT). The same machine kind
# for both calls: generate.py refuses folders with different device names.
set -u
export CVGPU_COMMIT=$COMMIT SUITE_TIMEOUT=${SUITE_TIMEOUT:-400}
OUT=$OUT/tests bash compat_matrix/run_device.sh tests ci
OUT=$OUT/compare bash compat_matrix/run_device.sh compare 2>&1 | tail -30
