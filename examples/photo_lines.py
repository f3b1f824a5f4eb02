"""Straight lines in photographs: Canny, then cv2.HoughLines with a threshold set from the edge count.

    python examples/photo_lines.py [--output-dir lines/] [--synthetic] [--repeat N] [--quick]

Uses scikit-image's photographs (camera, astronaut, coffee, page) when scikit-image is installed,
else (and with ``--synthetic``) four synthetic scenes of the same sizes. Each photo is processed at its
own size and resized to 640x480 and to 1920x1080, as a gallery tool that normalizes its inputs would.
Canny's thresholds come from the image's median ("auto Canny"); the Hough threshold from the edge
count: a line must collect several times the votes that the edge points would give a line by chance
(lowered a little, up to three times, while fewer than five lines are found).
``--output-dir`` writes each image with its lines drawn. ``--repeat N`` processes the set N times (a
batch of thumbnails, or a benchmark loop). Prints one line with the line counts. ``--quick``: the
native sizes only. Runs unchanged under `cvgpu compare examples/photo_lines.py`.
"""
import argparse
import os

import cv2
import numpy as np

SIZES = [None, (640, 480), (1920, 1080)]  # None: the photo's own size


def synthetic_photos():
    """Four scenes with straight structure, noise and shading, at the sizes of skimage's photos."""
    rng = np.random.default_rng(21)
    out = []
    # A facade (camera's size): window grid, a drainpipe, a sloped roof line.
    img = np.full((512, 512), 150, np.uint8)
    cv2.line(img, (0, 120), (512, 60), 70, 6)
    for y in range(160, 500, 70):
        for x in range(30, 480, 90):
            cv2.rectangle(img, (x, y), (x + 50, y + 45), int(rng.integers(40, 90)), -1)
    cv2.line(img, (470, 60), (470, 512), 60, 5)
    out.append(("facade", img))
    # A street corner in colour (astronaut's size): kerb, lamp post, zebra crossing.
    img = np.full((512, 512, 3), (120, 130, 140), np.uint8)
    pts = np.array([[0, 330], [512, 280], [512, 512], [0, 512]], np.int32)
    cv2.fillPoly(img, [pts], (80, 80, 85))
    for k in range(6):
        x = 60 + 70 * k
        stripe = np.array([[x, 400], [x + 35, 396], [x + 50, 500], [x + 10, 505]], np.int32)
        cv2.fillPoly(img, [stripe], (230, 230, 230))
    cv2.line(img, (380, 40), (390, 300), (40, 40, 40), 7)
    out.append(("street", img))
    # A desk with a keyboard and papers in colour (coffee's size).
    img = np.full((400, 600, 3), (60, 90, 120), np.uint8)
    cv2.rectangle(img, (60, 220), (420, 340), (35, 35, 35), -1)
    for r in range(5):
        for c in range(14):
            cv2.rectangle(img, (70 + 25 * c, 228 + 22 * r), (88 + 25 * c, 244 + 22 * r), (90, 90, 90), -1)
    rot = cv2.boxPoints(((470, 130), (150, 200), 12.0)).astype(np.int32)
    cv2.fillPoly(img, [rot], (225, 225, 225))
    out.append(("desk", img))
    # A text page (page's size): ruled lines and words.
    img = np.full((191, 384), 210, np.uint8)
    for y in range(20, 191, 22):
        cv2.putText(img, "the quick brown fox jumps over", (10, y), cv2.FONT_HERSHEY_SIMPLEX, 0.55, 40, 1)
        cv2.line(img, (5, y + 4), (378, y + 4), 150, 1)
    out.append(("text", img))
    return [(name, np.clip(im + rng.normal(0, 5, im.shape), 0, 255).astype(np.uint8)) for name, im in out]


def load_photos(synthetic):
    if not synthetic:
        try:
            from skimage import data
            return [("camera", data.camera()), ("astronaut", cv2.cvtColor(data.astronaut(), cv2.COLOR_RGB2BGR)),
                    ("coffee", cv2.cvtColor(data.coffee(), cv2.COLOR_RGB2BGR)), ("page", data.page())], "scikit-image"
        except Exception:
            pass
    return synthetic_photos(), "synthetic"


def auto_canny(gray, sigma=0.33):
    median = float(np.median(gray))
    return cv2.Canny(gray, int(max(0, (1 - sigma) * median)), int(min(255, (1 + sigma) * median)))


def hough_threshold(edges):
    """Several times the votes the edge points give a random line across the image's shorter side."""
    h, w = edges.shape
    density = cv2.countNonZero(edges) / float(h * w)
    return int(max(0.15 * min(h, w), 6.0 * density * min(h, w)))


def draw(image, lines):
    out = image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    reach = 2 * max(out.shape[:2])
    for rho, theta in lines:
        a, b = np.cos(theta), np.sin(theta)
        x0, y0 = a * rho, b * rho
        cv2.line(out, (int(x0 - reach * b), int(y0 + reach * a)), (int(x0 + reach * b), int(y0 - reach * a)),
                 (0, 0, 255), 1, cv2.LINE_AA)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--output-dir", help="folder for the images with their lines drawn")
    ap.add_argument("--synthetic", action="store_true", help="synthetic scenes even with scikit-image")
    ap.add_argument("--repeat", type=int, default=1, help="process the whole set this many times")
    ap.add_argument("--quick", action="store_true", help="native sizes only (for tests)")
    args = ap.parse_args()
    photos, source = load_photos(args.synthetic)
    sizes = SIZES[:1] if args.quick else SIZES
    if args.output_dir:
        os.makedirs(args.output_dir, exist_ok=True)

    counts, edge_points = {}, 0
    for _ in range(args.repeat):
        for name, photo in photos:
            for size in sizes:
                image = photo if size is None else cv2.resize(photo, size, interpolation=cv2.INTER_AREA
                                                              if size[0] < photo.shape[1] else cv2.INTER_LINEAR)
                gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
                edges = auto_canny(cv2.GaussianBlur(gray, (3, 3), 0))
                edge_points += cv2.countNonZero(edges)
                threshold = hough_threshold(edges)
                lines = cv2.HoughLines(edges, 1, np.pi / 180, threshold)
                for _ in range(3):  # too few lines for a photo of buildings or pages: lower the bar a little
                    if lines is not None and len(lines) >= 5:
                        break
                    threshold = threshold * 4 // 5
                    lines = cv2.HoughLines(edges, 1, np.pi / 180, threshold)
                lines = np.empty((0, 2), np.float32) if lines is None else lines[:, 0, :]
                key = "%s %dx%d" % (name, gray.shape[1], gray.shape[0])
                counts[key] = len(lines)
                if args.output_dir:
                    cv2.imwrite(os.path.join(args.output_dir, key.replace(" ", "_") + ".png"), draw(image, lines))

    print("%s photos, %d images x %d: %d edge points, %d lines (%s)"
          % (source, len(counts), args.repeat, edge_points, sum(counts.values()) * args.repeat,
             ", ".join("%s: %d" % kv for kv in counts.items())))


if __name__ == "__main__":
    main()
