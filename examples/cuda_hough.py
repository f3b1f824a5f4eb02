"""An OpenCV-CUDA style script: GpuMat upload, cv2.cuda.createHoughLinesDetector, detect, download.

    python examples/cuda_hough.py [--threshold 150]

Like real OpenCV-CUDA scripts it falls back to cv2.HoughLines when
``cv2.cuda.getCudaEnabledDeviceCount() == 0`` (pip's opencv-python has no CUDA module; under cvgpu the
CUDA path runs on any NVIDIA GPU). Runs unchanged under `cvgpu compare examples/cuda_hough.py`.
"""
import argparse

import cv2
import numpy as np


def edges_image():
    try:
        from skimage import data
        gray = data.camera()
    except Exception:
        rng = np.random.default_rng(0)
        gray = np.full((512, 512), 90, np.uint8)
        for i in range(12):
            cv2.line(gray, (int(rng.integers(0, 512)), 0), (int(rng.integers(0, 512)), 511), 220, 2)
            cv2.line(gray, (0, int(rng.integers(0, 512))), (511, int(rng.integers(0, 512))), 200, 2)
    return cv2.Canny(gray, 50, 150)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threshold", type=int, default=150)
    ap.add_argument("--frames", type=int, default=3, help="process the image this many times (a video loop)")
    args = ap.parse_args()

    edges = edges_image()
    use_cuda = cv2.cuda.getCudaEnabledDeviceCount() > 0
    if use_cuda:
        detector = cv2.cuda.createHoughLinesDetector(1, np.pi / 180, args.threshold)
        d_edges = cv2.cuda_GpuMat()
    for _ in range(args.frames):
        if use_cuda:
            d_edges.upload(edges)
            d_lines = detector.detect(d_edges)
            lines, votes = detector.downloadResults(d_lines)
        else:
            lines = cv2.HoughLines(edges, 1, np.pi / 180, args.threshold)
    n = 0 if lines is None else lines.reshape(-1, 2).shape[0]
    print("%s: %d lines (threshold %d) in a %dx%d edge image"
          % ("cv2.cuda HoughLinesDetector" if use_cuda else "cv2.HoughLines (no CUDA device)", n,
             args.threshold, edges.shape[1], edges.shape[0]))


if __name__ == "__main__":
    main()
