"""Line detection on a document photo, the way OpenCV tutorials do it: Canny, then HoughLines.

    python examples/detect_lines.py [output.png] [--threshold 120] [--synthetic] [--pages N]

Uses scikit-image's `page` photograph when scikit-image is installed, else a synthetic page (ruled
lines, a table and text, slightly rotated). Draws the detected lines and writes a PNG (to the path given,
else a temporary folder). ``--pages N`` processes a batch of N scans of the page (each turned 1 degree
more), drawing the last. Runs unchanged under `cvgpu compare examples/detect_lines.py`.
"""
import argparse
import os
import tempfile

import cv2
import numpy as np


def synthetic_page(h=768, w=1024, seed=1):
    rng = np.random.default_rng(seed)
    page = np.full((h, w), 235, np.uint8)
    for y in range(90, h - 60, 36):  # ruled lines
        cv2.line(page, (40, y), (w - 40, y), 120, 1)
    for i, y in enumerate(range(100, h - 80, 72)):  # text on every other line
        cv2.putText(page, "line %d: the quick brown fox jumps over the lazy dog" % i, (60, y),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.8, 30, 2)
    for x in (40, 300, 620, w - 40):  # a table's vertical rules
        cv2.line(page, (x, 60), (x, h - 40), 60, 2)
    rot = cv2.getRotationMatrix2D((w / 2, h / 2), 3.0, 1.0)
    page = cv2.warpAffine(page, rot, (w, h), borderValue=200)
    noise = rng.normal(0, 6, page.shape)
    return np.clip(page + noise, 0, 255).astype(np.uint8)


def load_page(synthetic=False):
    if not synthetic:
        try:
            from skimage import data
            return data.page(), "scikit-image page"
        except Exception:
            pass
    return synthetic_page(), "synthetic page"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("output", nargs="?", help="PNG to write (default: a temporary folder)")
    ap.add_argument("--threshold", type=int, default=None, help="Hough accumulator threshold")
    ap.add_argument("--synthetic", action="store_true", help="use the synthetic page even with scikit-image")
    ap.add_argument("--pages", type=int, default=1, help="scans to process (page turned 1 degree more each)")
    args = ap.parse_args()

    page, source = load_page(args.synthetic)
    h, w = page.shape
    for i in range(args.pages):
        rot = cv2.getRotationMatrix2D((w / 2, h / 2), 1.0 * i, 1.0)
        gray = cv2.warpAffine(page, rot, (w, h), borderMode=cv2.BORDER_REPLICATE) if i else page
        blurred = cv2.GaussianBlur(gray, (3, 3), 0)
        edges = cv2.Canny(blurred, 50, 150, apertureSize=3)
        threshold = args.threshold or max(40, gray.shape[1] // 3)
        lines = cv2.HoughLines(edges, 1, np.pi / 180, threshold)
        # Retry with a lower threshold when nothing is found, as interactive scripts often do.
        while lines is None and threshold > 20:
            threshold = threshold * 2 // 3
            lines = cv2.HoughLines(edges, 1, np.pi / 180, threshold)

    out = cv2.cvtColor(gray, cv2.COLOR_GRAY2BGR)
    n = 0 if lines is None else len(lines)
    for rho, theta in ([] if lines is None else lines[:, 0, :]):
        a, b = np.cos(theta), np.sin(theta)
        x0, y0 = a * rho, b * rho
        p1 = (int(x0 + 2000 * (-b)), int(y0 + 2000 * a))
        p2 = (int(x0 - 2000 * (-b)), int(y0 - 2000 * a))
        cv2.line(out, p1, p2, (0, 0, 255), 1, cv2.LINE_AA)

    path = args.output or os.path.join(tempfile.mkdtemp(prefix="detect_lines-"), "lines.png")
    cv2.imwrite(path, out)
    print("%s %dx%d, %d scan(s): last has %d edge points, %d lines at threshold %d -> %s"
          % (source, w, h, args.pages, int(np.count_nonzero(edges)), n, threshold, path))


if __name__ == "__main__":
    main()
