#!/usr/bin/env bash
# The git-ignored files that device calls carry, rebuilt in a new checkout (a new session's checkout has
# none of them), from the repository root on the CPU sandbox:
#
#   bash compat_matrix/carry_setup.sh [OPENCV_CONTRIB_GIT_DIR]
#
# OPENCV_CONTRIB_GIT_DIR: a git directory of opencv/opencv_contrib (the search tool's `fetch
# github:opencv/opencv_contrib` gives /work/.mirror/opencv+opencv_contrib/repo); without it .ocv/ gets
# only our harness sources, and the bench falls back to recorded OpenCV-CUDA figures.
#
# Makes (each skipped when present):
#   .whl/cv5contrib.tar.xz   opencv-contrib-python-headless 5.0.0.93, the manylinux2014 (GCC 10) build
#   .whl410/cv410.tar.xz     opencv-contrib-python-headless 4.10.0.84 (compat_matrix/run_version.sh)
#   .whl51a/, .whl51b/       opencv-contrib-python 5.1's tarball in two parts (one call carries at most
#                            64 MiB with the checkout; run_version.sh's header says how to use them)
#   .gl51/                   the libGL and X libraries that 5.1's non-headless cv2 loads
#   .ocv/                    ../shared/ocv_harness's sources + OpenCV's three cudaimgproc kernel files
#                            (never committed); device_report.sh builds the binaries with nvcc
#   shared/golden            a copy of ../shared/golden (tests/cuda find it there on the device)
# and lists them in .git/info/exclude, so that git ignores them and they travel only when carried.
# Needs pip (PyPI), xz and, for .gl51, the sandbox's /lib/x86_64-linux-gnu libraries.
set -eu
cd "$(dirname "$0")/.."
contrib_git=${1:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for p in .ocv/ .whl/ .whl410/ .whl51a/ .whl51b/ .gl51/ .dev/ /shared/; do
  grep -qxF "$p" .git/info/exclude 2>/dev/null || echo "$p" >> .git/info/exclude
done

wheel_tarball() {  # wheel_tarball OUT.tar.xz PIP-SPEC PLATFORM: the wheel's folders, xz-packed
  local out=$1 spec=$2 platform=$3
  [ -f "$out" ] && return 0
  mkdir -p "$(dirname "$out")" "$tmp/dl" "$tmp/site"
  rm -rf "$tmp/dl"/* "$tmp/site"/*
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
    --platform "$platform" "$spec" -d "$tmp/dl"
  python3 -m zipfile -e "$tmp"/dl/*.whl "$tmp/site"
  tar -C "$tmp/site" -cf - . | xz -T2 -6 > "$out"
  echo "made $out ($(du -h "$out" | cut -f1))"
}

# The GCC 10 build of 5.0.0.93: its CV_Check funcs print cv::InputArray (HISTORY.md, "fcac027's run
# stopped by cv2's build"); the GCC 14 build is what CI's rows and a current pip install test.
wheel_tarball .whl/cv5contrib.tar.xz "opencv-contrib-python-headless==5.0.0.93" manylinux2014_x86_64
wheel_tarball .whl410/cv410.tar.xz "opencv-contrib-python-headless==4.10.0.84" manylinux2014_x86_64
if [ ! -d .whl51a ] || [ ! -d .whl51b ]; then
  wheel_tarball "$tmp/cv51.tar.xz" "opencv-contrib-python==5.1.0.95" manylinux_2_28_x86_64
  mkdir -p .whl51a .whl51b
  split -n 2 -d -a 2 "$tmp/cv51.tar.xz" "$tmp/cv51.part."
  mv "$tmp/cv51.part.00" .whl51a/cv51.part.aa && mv "$tmp/cv51.part.01" .whl51b/cv51.part.ab
  echo "made .whl51a/cv51.part.aa, .whl51b/cv51.part.ab"
fi
if [ ! -d .gl51 ]; then
  mkdir -p .gl51
  for lib in libGL.so.1 libGLX.so.0 libGLdispatch.so.0 libX11.so.6 libxcb.so.1 libXau.so.6 libXdmcp.so.6 \
      libbsd.so.0 libmd.so.0 libglib-2.0.so.0 libgthread-2.0.so.0 libpcre2-8.so.0; do
    cp -L "/lib/x86_64-linux-gnu/$lib" .gl51/ 2>/dev/null || echo "missing /lib/x86_64-linux-gnu/$lib"
  done
fi

mkdir -p .ocv
cp -rn ../shared/ocv_harness/harness.cu ../shared/ocv_harness/harness_seg.cu ../shared/ocv_harness/opencv2 .ocv/
if [ -n "$contrib_git" ]; then
  for f in hough_lines.cu build_point_list.cu hough_segments.cu; do
    [ -f ".ocv/$f" ] || git --git-dir="$contrib_git" show "HEAD:modules/cudaimgproc/src/cuda/$f" > ".ocv/$f"
  done
fi
[ -d shared/golden ] || { mkdir -p shared && cp -r ../shared/golden shared/; }
git status --short --ignored .ocv .whl .whl410 .whl51a .whl51b .gl51 shared | head -20
