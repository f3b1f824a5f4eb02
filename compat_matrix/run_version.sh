#!/usr/bin/env bash
# GPU suite (ci profile) beside another cv2 release, on the device: bash compat_matrix/run_version.sh TARBALL [PART ...]
# (an xz tar of a wheel's cv2/ and *.libs/ folders, or its split parts in order, carried in a git-ignored folder).
# COMMIT=<sha> OUT=... ; writes $OUT/tests (run_device.sh tests ci) with the env.json of that cv2.
#
# opencv-contrib-python 5.1 (no headless 5.1 wheel here), as run on 2026-11-27 (raw/gpu-suite-cv2-5.1.txt):
# - its cv2 links libGL and X libraries the device machine lacks: carry them (.gl51/, copied from
#   the CPU sandbox's /lib/x86_64-linux-gnu: libGL, libGLX, libGLdispatch, libX11, libxcb, libXau,
#   libXdmcp, libbsd, libmd, libglib-2.0, libgthread-2.0, libpcre2-8) and export
#   LD_LIBRARY_PATH=$PWD/.gl51;
# - its two parts (60 MB) and the checkout exceed a call's 64 MiB: carry .whl51a alone in one call
#   that copies it to /tmp/cv51/, then, while the machine is warm (30 s), .whl51b and .gl51 in the
#   call that runs this script on /tmp/cv51/cv51.part.aa .whl51b/cv51.part.ab (a carried folder
#   that the next call does not name is removed; /tmp stays).
set -u
rm -rf /tmp/site && mkdir -p /tmp/site
cat "$@" | tar -xJf - -C /tmp/site || { echo "extract failed"; exit 1; }
export PYTHONPATH=/tmp/site
python3 -c "import cv2, numpy; print('cv2', cv2.__version__, 'numpy', numpy.__version__, 'ximgproc', hasattr(cv2, 'ximgproc'))"
export CVGPU_COMMIT=$COMMIT SUITE_TIMEOUT=${SUITE_TIMEOUT:-420}
OUT=$OUT/tests bash compat_matrix/run_device.sh tests ci
