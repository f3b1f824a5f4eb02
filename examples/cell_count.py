"""Counting nuclei in fluorescence micrographs: adaptive threshold, morphology, cv2.findContours (RETR_CCOMP).

    python examples/cell_count.py [--fields 8] [--min-area 40] [--quick]

Each field of view is a 2048x2048 frame (an sCMOS camera) of stained nuclei: bright ellipses, some
touching, some with dim nucleoli, under uneven illumination and camera noise, made here from a fixed
seed. The pipeline: Gaussian blur, adaptive mean threshold, an opening to drop noise specks,
cv2.findContours with RETR_CCOMP and CHAIN_APPROX_NONE (outer borders and their holes), then per
object its area (holes subtracted) and circularity 4*pi*A/P^2: single nuclei are round, touching
ones are not, and are counted as clumps. Prints the area and circularity histograms, then one line
with the counts. ``--quick`` analyses one 1024x1024 field.
Runs unchanged under `cvgpu compare examples/cell_count.py`.
"""
import argparse
import math

import cv2
import numpy as np


def make_fields(n, size, seed=31):
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size - 0.5
    background = (18 + 22 * np.exp(-(xx ** 2 + yy ** 2) * 3)).astype(np.uint8)  # vignetting
    gain = (0.55 + 0.45 * np.exp(-(xx ** 2 + yy ** 2) * 2.5) * 255).astype(np.uint8)
    noise = [rng.integers(0, 16, (size, size), dtype=np.uint8) for _ in range(3)]
    per_field = int(1400 * (size / 2048) ** 2)
    for i in range(n):
        field = np.zeros((size, size), np.uint8)
        for _ in range(per_field):
            c = (int(rng.integers(10, size - 10)), int(rng.integers(10, size - 10)))
            a = int(rng.integers(9, 17))
            axes = (a, int(a * rng.uniform(0.65, 1.0)))
            angle = float(rng.integers(0, 180))
            cv2.ellipse(field, c, axes, angle, 0, 360, int(rng.integers(120, 230)), -1, cv2.LINE_AA)
            if rng.random() < 0.3:  # a nucleolus: a dim spot inside
                cv2.circle(field, (c[0] + int(rng.integers(-3, 4)), c[1] + int(rng.integers(-3, 4))),
                           int(rng.integers(2, 4)), 40, -1)
        field = cv2.multiply(field, gain, scale=1 / 255)  # the illumination falls off towards the corners
        field = cv2.add(field, background)
        yield cv2.add(field, noise[i % 3])


def histogram(values, edges, unit=""):
    counts, _ = np.histogram(values, bins=edges)
    top = max(int(counts.max()), 1) if len(counts) else 1
    lines = []
    for lo, hi, c in zip(edges[:-1], edges[1:], counts):
        lines.append("  %7g-%-7g%s %6d %s" % (lo, hi, unit, c, "#" * int(round(40 * c / top))))
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fields", type=int, default=8, help="fields of view to analyse")
    ap.add_argument("--min-area", type=float, default=40.0, help="smaller objects are debris (px)")
    ap.add_argument("--quick", action="store_true", help="one 1024x1024 field (for tests)")
    args = ap.parse_args()
    n, size = (1, 1024) if args.quick else (args.fields, 2048)

    areas, circularities, holes, debris = [], [], 0, 0
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    for field in make_fields(n, size):
        blurred = cv2.GaussianBlur(field, (5, 5), 0)
        mask = cv2.adaptiveThreshold(blurred, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, 61, -12)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)
        contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
        if hierarchy is None:
            continue
        hier = hierarchy[0]
        for k in np.flatnonzero(hier[:, 3] < 0):  # RETR_CCOMP: the outer borders are the top level
            area = cv2.contourArea(contours[k])
            child = hier[k, 2]
            while child >= 0:  # its holes, linked by "next"
                area -= cv2.contourArea(contours[child])
                holes += 1
                child = hier[child, 0]
            if area < args.min_area:
                debris += 1
                continue
            perimeter = cv2.arcLength(contours[k], True)
            areas.append(area)
            circularities.append(4 * math.pi * area / (perimeter * perimeter))

    areas, circularities = np.array(areas), np.array(circularities)
    print("area (px):")
    print("\n".join(histogram(areas, [40, 200, 300, 400, 500, 600, 800, 1200, 5000])))
    print("circularity:")
    print("\n".join(histogram(circularities, [0, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 1.2])))
    single = int(np.count_nonzero(circularities >= 0.8))
    print("%d field(s) %dx%d: %d objects, %d single nuclei (circularity >= 0.8), %d clumps, %d holes, "
          "%d debris; median nucleus area %.1f px"
          % (n, size, size, len(areas), single, len(areas) - single, holes, debris,
             float(np.median(areas[circularities >= 0.8])) if single else 0.0))


if __name__ == "__main__":
    main()
