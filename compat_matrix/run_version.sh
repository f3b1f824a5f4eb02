#!/usr/bin/env bash
# GPU suite (ci profile) beside another cv2 release, on the device: bash compat_matrix/run_version.sh TARBALL [PART ...]
# (an xz tar of a wheel's cv2/ and *.libs/ folders, or its split parts in order, carried in a git-ignored folder).
# COMMIT=<sha> OUT=... ; writes $OUT/tests (run_device.sh tests ci) with the env.json of that cv2.
set -u
rm -rf /tmp/site && mkdir -p /tmp/site
cat "$@" | tar -xJf - -C /tmp/site || { echo "extract failed"; exit 1; }
export PYTHONPATH=/tmp/site
python3 -c "import cv2, numpy; print('cv2', cv2.__version__, 'numpy', numpy.__version__, 'ximgproc', hasattr(cv2, 'ximgproc'))"
export CVGPU_COMMIT=$COMMIT SUITE_TIMEOUT=${SUITE_TIMEOUT:-420}
OUT=$OUT/tests bash compat_matrix/run_device.sh tests ci
