"""Contour-based object counting: threshold, findContours, keep the contours above an area.

    python examples/count_objects.py [--min-area 60] [--output objects.png] [--synthetic] [--frames N]

Uses scikit-image's `coins` photograph when scikit-image is installed, else a synthetic image of
blobs (some with holes) on an uneven background. Prints the count (of the last frame: ``--frames N``
counts N noisy captures of the scene, as an inspection loop would). Runs unchanged under
`cvgpu compare examples/count_objects.py`.
"""
import argparse

import cv2
import numpy as np


def synthetic_objects(h=600, w=800, n=40, seed=3):
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w]
    img = (40 + 30 * xx / w + 20 * yy / h).astype(np.float64)  # uneven lighting
    for _ in range(n):
        cx, cy = int(rng.integers(30, w - 30)), int(rng.integers(30, h - 30))
        r = int(rng.integers(8, 26))
        cv2.circle(img, (cx, cy), r, float(rng.integers(160, 230)), -1)
        if rng.random() < 0.3:  # a washer: an object with a hole
            cv2.circle(img, (cx, cy), r // 3, 50.0, -1)
    img += rng.normal(0, 8, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def load(synthetic=False):
    if not synthetic:
        try:
            from skimage import data
            return data.coins(), "scikit-image coins"
        except Exception:
            pass
    return synthetic_objects(), "synthetic objects"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--min-area", type=float, default=60.0)
    ap.add_argument("--output", help="annotated PNG to write")
    ap.add_argument("--synthetic", action="store_true")
    ap.add_argument("--frames", type=int, default=1, help="noisy captures of the scene to count")
    args = ap.parse_args()

    scene, source = load(args.synthetic)
    rng = np.random.default_rng(7)
    for i in range(args.frames):
        gray = scene if i == 0 else np.clip(scene + rng.normal(0, 4, scene.shape), 0, 255).astype(np.uint8)
        blurred = cv2.GaussianBlur(gray, (5, 5), 0)
        mask = cv2.adaptiveThreshold(blurred, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, 51, -10)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))

        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        objects = [c for c in contours if cv2.contourArea(c) >= args.min_area]
        # Holes inside the objects, from the full hierarchy.
        all_contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
        holes = 0 if hierarchy is None else int(np.count_nonzero(hierarchy[0, :, 3] >= 0))

    print("%s %dx%d: %d objects (of %d contours, min area %g), %d holes"
          % (source, gray.shape[1], gray.shape[0], len(objects), len(contours), args.min_area, holes))
    if args.output:
        out = cv2.cvtColor(gray, cv2.COLOR_GRAY2BGR)
        cv2.drawContours(out, objects, -1, (0, 255, 0), 2)
        cv2.imwrite(args.output, out)


if __name__ == "__main__":
    main()
