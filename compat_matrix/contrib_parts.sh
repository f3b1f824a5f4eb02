#!/usr/bin/env bash
# The carried, git-ignored inputs of a device run, remade in a new checkout (as in the run of
# 3168434; ~5 minutes on the CPU machine):
#   .whl/cv5contrib.tar.xz  opencv-contrib for the device's Python 3.12, unpacked and packed again:
#     pip download -d /tmp/cv --no-deps --only-binary=:all: --python-version 3.12 \
#       --platform manylinux_2_28_x86_64 "opencv-contrib-python-headless==5.0.0.*"
#     mkdir /tmp/site && (cd /tmp/site && python3 -m zipfile -e /tmp/cv/*.whl .)
#     mkdir -p .whl && tar -cJf .whl/cv5contrib.tar.xz -C /tmp/site .
#   .whldask/  pip download -d .whldask --only-binary=:all: --python-version 3.12 \
#       --platform manylinux_2_28_x86_64 --platform manylinux2014_x86_64 dask distributed
#   .ocv/  ../shared/ocv_harness's files and OpenCV's three kernel files (its README), built here
#       with nvcc (sm_90) so that no call spends device time on it; shared/ is ../shared copied in.
# opencv-contrib for the device run when it does not fit one call's carry (64 MiB with the tracked
# tree, shared/ and .ocv/: the 47 MB archive passed it in the run of 3168434). Here, once:
#   split -n 2 -d .whl/cv5contrib.tar.xz part && mkdir -p .whla .whlb && mv part00 .whla/ && mv part01 .whlb/
# (both folders git-ignored, e.g. in .git/info/exclude). Then carry .whla in one call and .whlb in a
# later call on the same warm machine; run_device.sh and run_profile.sh call this script first, which
# keeps each half in /tmp/cvparts (kept while the machine stays warm), joins them once both have come,
# and puts the archive at .whl/cv5contrib.tar.xz for every later call. Prints what it has.
set -u
mkdir -p /tmp/cvparts
for d in .whla .whlb; do
  [ -d "$d" ] && cp -f "$d"/part* /tmp/cvparts/ 2>/dev/null
done
if [ ! -f /tmp/cvparts/full.tar.xz ] && [ -f /tmp/cvparts/part00 ] && [ -f /tmp/cvparts/part01 ]; then
  cat /tmp/cvparts/part00 /tmp/cvparts/part01 > /tmp/cvparts/full.tar.xz.tmp && mv /tmp/cvparts/full.tar.xz.tmp /tmp/cvparts/full.tar.xz
fi
if [ ! -f .whl/cv5contrib.tar.xz ] && [ -f /tmp/cvparts/full.tar.xz ]; then
  mkdir -p .whl && cp /tmp/cvparts/full.tar.xz .whl/cv5contrib.tar.xz
fi
if [ -f .whl/cv5contrib.tar.xz ]; then echo "contrib_parts: .whl/cv5contrib.tar.xz present"
else echo "contrib_parts: no contrib archive yet ($(ls /tmp/cvparts | tr '\n' ' '))"; fi
