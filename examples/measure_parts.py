"""Inspection of machined parts on a conveyor: Otsu, cv2.findContours (RETR_TREE), measurements to CSV.

    python examples/measure_parts.py [--frames 60] [--csv parts.csv] [--quick]

Each frame (1280x1024, an industrial camera) shows a tray of bright metal parts on a dark belt:
brackets (two holes), plates (four holes and a notch), flanges (a bore and six bolt holes) and
washers, each turned at random, with the odd one missing a hole, and metal chips on the belt. The
frames are synthetic, from a fixed seed. For every part the script measures its area (holes
subtracted), perimeter, bounding box and minimum-area rectangle, counts its holes, names the part
from its shape and size and rejects it when a hole is missing; one CSV row per part (to ``--csv``,
else only the summary). Prints one line with the totals. ``--quick`` inspects 3 frames.
Runs unchanged under `cvgpu compare examples/measure_parts.py`.
"""
import argparse
import csv
import math

import cv2
import numpy as np

W, H = 1280, 1024
EXPECTED_HOLES = {"washer": 1, "bracket": 2, "plate": 4, "flange": 7}
MIN_PART_AREA = 3000  # px; smaller shapes are debris on the belt


def part_drawing(kind):
    """(outline polygon, holes as (centre, radius) circles) in the part's own coordinates, px."""
    if kind == "bracket":
        outline = [(-110, -60), (110, -60), (110, 60), (-110, 60)]
        holes = [((-70, 0), 14), ((70, 0), 14)]
    elif kind == "plate":  # a notch cut into one long side
        outline = [(-130, -90), (-30, -90), (-30, -50), (30, -50), (30, -90), (130, -90), (130, 90), (-130, 90)]
        holes = [((x, y), 12) for x in (-100, 100) for y in (-60, 60)]
    elif kind == "flange":
        outline = [(110 * math.cos(a), 110 * math.sin(a)) for a in np.linspace(0, 2 * math.pi, 72, endpoint=False)]
        holes = [((0, 0), 35)] + [((75 * math.cos(a), 75 * math.sin(a)), 10)
                                  for a in np.linspace(0, 2 * math.pi, 6, endpoint=False)]
    else:  # washer
        outline = [(50 * math.cos(a), 50 * math.sin(a)) for a in np.linspace(0, 2 * math.pi, 48, endpoint=False)]
        holes = [((0, 0), 22)]
    return np.array(outline, np.float64), holes


def make_frames(n, seed=17):
    rng = np.random.default_rng(seed)
    # The belt: dark rubber with a fine diagonal weave, rendered once.
    yy, xx = np.mgrid[0:H, 0:W]
    belt = (38 + 6 * np.sin((xx + yy) * 0.9) + rng.normal(0, 3, (H, W))).clip(0, 255).astype(np.uint8)
    noise = [rng.integers(0, 10, (H, W), dtype=np.uint8) for _ in range(3)]
    kinds = ["bracket", "plate", "flange", "washer"]
    for i in range(n):
        frame = belt.copy()
        placed = []
        for row in range(3):
            for col in range(3):
                if rng.random() < 0.2:
                    continue  # an empty slot on the tray
                kind = kinds[int(rng.integers(len(kinds)))]
                outline, holes = part_drawing(kind)
                if rng.random() < 0.08:  # a drilling was skipped
                    holes = [h for j, h in enumerate(holes) if j != int(rng.integers(len(holes)))]
                a = rng.uniform(0, 2 * math.pi)
                rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
                centre = np.array([215 + 425 * col + rng.uniform(-20, 20), 175 + 337 * row + rng.uniform(-12, 12)])
                shade = int(rng.integers(175, 225))
                pts = np.round((outline @ rot.T + centre) * 16).astype(np.int32)  # 4 fractional bits
                cv2.fillPoly(frame, [pts], shade, cv2.LINE_AA, shift=4)
                for (hx, hy), r in holes:
                    c = np.round((np.array([hx, hy]) @ rot.T + centre) * 16).astype(int)
                    cv2.circle(frame, (int(c[0]), int(c[1])), r * 16, 40, -1, cv2.LINE_AA, shift=4)
                placed.append(kind)
        for _ in range(int(rng.integers(0, 6))):  # metal chips from the machining, lying on the belt
            c = (int(rng.integers(0, W)), int(rng.integers(0, H)))
            cv2.ellipse(frame, c, (int(rng.integers(2, 9)), int(rng.integers(1, 4))), float(rng.integers(0, 180)),
                        0, 360, int(rng.integers(150, 210)), -1)
        frame = cv2.add(frame, noise[i % 3])
        yield frame, placed


def name_part(area, outer, rect):
    (_, _), r = cv2.minEnclosingCircle(outer)
    round_part = cv2.contourArea(outer) > 0.9 * math.pi * r * r
    if round_part:
        return "flange" if r > 80 else "washer"
    w, h = rect[1]
    return "plate" if w * h > 40000 else "bracket"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=60)
    ap.add_argument("--csv", help="one row per measured part")
    ap.add_argument("--quick", action="store_true", help="3 frames (for tests)")
    args = ap.parse_args()
    n = 3 if args.quick else args.frames

    rows, debris, truth = [], 0, 0
    for f, (frame, placed) in enumerate(make_frames(n)):
        truth += len(placed)
        blurred = cv2.GaussianBlur(frame, (5, 5), 0)
        _, mask = cv2.threshold(blurred, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
        contours, hierarchy = cv2.findContours(mask, cv2.RETR_TREE, cv2.CHAIN_APPROX_NONE)
        if hierarchy is None:
            continue
        hier = hierarchy[0]
        for k in np.flatnonzero(hier[:, 3] < 0):
            outer = contours[k]
            outer_area = cv2.contourArea(outer)
            if outer_area < MIN_PART_AREA:
                debris += 1
                continue
            holes, hole_area = 0, 0.0
            child = hier[k, 2]
            while child >= 0:  # the part's holes: its children in the tree, linked by "next"
                a = cv2.contourArea(contours[child])
                if a >= 30:
                    holes += 1
                    hole_area += a
                child = hier[child, 0]
            rect = cv2.minAreaRect(outer)
            x, y, w, h = cv2.boundingRect(outer)
            kind = name_part(outer_area, outer, rect)
            rows.append({"frame": f + 1, "part": kind, "area": round(outer_area - hole_area, 1),
                         "perimeter": round(cv2.arcLength(outer, True), 2), "x": x, "y": y, "w": w, "h": h,
                         "rect_w": round(rect[1][0], 2), "rect_h": round(rect[1][1], 2),
                         "angle": round(rect[2], 2), "holes": holes,
                         "ok": holes == EXPECTED_HOLES[kind]})

    if args.csv:
        with open(args.csv, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]) if rows else ["frame"])
            writer.writeheader()
            writer.writerows(rows)
    kinds = {k: sum(1 for r in rows if r["part"] == k) for k in EXPECTED_HOLES}
    rejected = sum(1 for r in rows if not r["ok"])
    plates = [r["area"] for r in rows if r["part"] == "plate" and r["ok"]]
    print("%d frames %dx%d: %d parts measured of %d placed (%s), %d rejected for a missing hole, "
          "%d debris; good plates %.1f px^2 on average%s"
          % (n, W, H, len(rows), truth, ", ".join("%s %d" % kv for kv in kinds.items()), rejected, debris,
             float(np.mean(plates)) if plates else 0.0, " -> %s" % args.csv if args.csv else ""))


if __name__ == "__main__":
    main()
