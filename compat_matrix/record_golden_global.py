"""Record OpenCV-CUDA's own outputs for HoughLinesDetector cases that vote in global memory.

The shared golden corpus (../shared/golden) holds no case whose numrho is above OpenCV's
shared-memory limit, where OpenCV votes with global atomics and keeps accumulator column numrho+1.
This runs OpenCV's own cudaimgproc kernels through ../shared/ocv_harness's driver (built from a
git-ignored copy in .ocv/, see that README) on such images and writes them in the shared corpus's
layout (img_i, lines_i, votes_i, params rows of rho, theta, threshold, doSort, maxLines) to
tests/golden/opencv_cuda_houghlines_global.npz. Run on a GPU machine, from the repository root:

    python3 compat_matrix/record_golden_global.py --harness .ocv/harness --out tests/golden/opencv_cuda_houghlines_global.npz
"""
import argparse
import math
import os
import pathlib
import subprocess
import sys
import tempfile

import cv2
import numpy as np

# OpenCV's rule (hough_lines.cu): shared-memory voting when (numrho + 1) * 4 < sharedMemPerBlock - 1000,
# sharedMemPerBlock being 48 KiB on every CUDA device: numrho >= 12037 votes in global memory.
GLOBAL_NUMRHO = 12037


def numrho(w, h, rho):
    return int(round(((w + h) * 2 + 1) / np.float32(rho)))


def lines_image(h, w, rng, n, thickness=1):
    img = np.zeros((h, w), np.uint8)
    for _ in range(n):
        p = rng.integers(0, [w, h, w, h])
        cv2.line(img, (int(p[0]), int(p[1])), (int(p[2]), int(p[3])), 255, thickness)
    return img


def photo_edges(h, w, name):
    try:
        from skimage import color, data
        img = getattr(data, name)()
    except Exception:
        return None
    if img.ndim == 3:
        img = (color.rgb2gray(img) * 255).astype(np.uint8)
    return cv2.Canny(cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA), 50, 150)


def cases():
    """(image, rho, theta, threshold, doSort, maxLines) of the recorded cases: every one above the
    shared-memory limit; sparse and dense, sorted and not, complete and truncated."""
    rng = np.random.default_rng(20261126)
    out = []
    shapes = [(1600, 1600, 0.5), (1024, 2048, 0.5), (2048, 4096, 1.0), (3072, 3072, 1.0)]
    for k, (h, w, rho) in enumerate(shapes):
        assert numrho(w, h, rho) >= GLOBAL_NUMRHO, (h, w, rho)
        theta = [math.pi / 180, math.pi / 360, 0.0123, math.pi / 90][k]
        sparse = lines_image(h, w, rng, 40)
        out.append((sparse, rho, theta, 300, k % 2, 4096))
        dense = lines_image(h, w, rng, 400)
        dense[rng.random((h, w)) < 0.002] = 255
        out.append((dense, rho, theta, 200, (k + 1) % 2, 4096))
        out.append((dense, rho, theta, 120, 1, 100))           # maxLines reached: a consistent subset
        photo = photo_edges(h, w, ["camera", "astronaut", "coffee", "page"][k])
        if photo is None:
            photo = lines_image(h, w, rng, 150, 2)
        out.append((photo, rho, theta, 150, k % 2, 4096))
    return out


def run_harness(harness, img, rho, theta, threshold, do_sort, max_lines, reps=3):
    with tempfile.TemporaryDirectory() as d:
        raw, res = os.path.join(d, "img.raw"), os.path.join(d, "out.bin")
        np.ascontiguousarray(img).tofile(raw)
        h, w = img.shape
        text = subprocess.run([harness, raw, str(w), str(h), repr(float(np.float32(rho))), repr(float(np.float32(theta))),
                               str(threshold), str(int(do_sort)), str(max_lines), str(reps), res],
                              check=True, capture_output=True, text=True).stdout
        data = pathlib.Path(res).read_bytes()
    count = int(np.frombuffer(data[:4], np.int32)[0])
    lines = np.frombuffer(data[4:4 + 8 * count], np.float32).reshape(count, 2).copy()
    votes = np.frombuffer(data[4 + 8 * count:4 + 12 * count], np.int32).copy()
    smem = "smem=1" in text
    return lines, votes, smem, text.strip()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--harness", default=".ocv/harness")
    ap.add_argument("--out", default="tests/golden/opencv_cuda_houghlines_global.npz")
    a = ap.parse_args(argv)
    arrays, params = {}, []
    for i, (img, rho, theta, threshold, do_sort, max_lines) in enumerate(cases()):
        lines, votes, smem, text = run_harness(a.harness, img, rho, theta, threshold, do_sort, max_lines)
        if smem:
            print("case %d voted in shared memory: not a global case" % i, file=sys.stderr)
            return 1
        arrays["img_%d" % i], arrays["lines_%d" % i], arrays["votes_%d" % i] = img, lines, votes
        params.append((np.float32(rho), np.float32(theta), threshold, do_sort, max_lines))
        print("case %d: %dx%d rho %g theta %.5f thr %d sort %d max %d -> %d lines (%s)"
              % (i, img.shape[1], img.shape[0], rho, theta, threshold, do_sort, max_lines, len(lines), text))
    arrays["params"] = np.array(params, np.float64)
    pathlib.Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(a.out, **arrays)
    print("wrote %s (%d cases)" % (a.out, len(params)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
