"""A document scanner: find the page in a photo, flatten it with a perspective warp, binarize it.

    python examples/document_scanner.py [--pages 24] [--output-dir scans/] [--synthetic] [--quick]

Each photo (1280x960, colour) shows a sheet of paper lying on a speckled desk, turned and seen at an
angle. The classic pipeline: grayscale, Gaussian blur, Canny (dilated to close small gaps),
cv2.findContours (RETR_LIST, CHAIN_APPROX_SIMPLE), the largest contours' approxPolyDP until one has
four corners, then warpPerspective onto an upright 850x1100 scan and an adaptive threshold. The photos are made here,
from a fixed seed: the sheet carries scikit-image's `page` photograph when scikit-image is installed
(else, and with ``--synthetic``, only typed lines), and is placed with a known perspective, so the
script also reports how far the corners it found are from the true ones. ``--output-dir`` writes the
scans as PNG. Prints one line with the results. ``--quick`` processes 3 photos.
Runs unchanged under `cvgpu compare examples/document_scanner.py`.
"""
import argparse
import os

import cv2
import numpy as np

W, H = 1280, 960
SCAN_W, SCAN_H = 850, 1100


def make_sheet(synthetic):
    """The paper: typed lines, and scikit-image's page photograph at the top when available."""
    rng = np.random.default_rng(5)
    sheet = np.full((SCAN_H, SCAN_W), 238, np.uint8)
    y = 90
    if not synthetic:
        try:
            from skimage import data
            photo = cv2.resize(data.page(), (700, 348), interpolation=cv2.INTER_LINEAR)
            sheet[y:y + photo.shape[0], 75:75 + photo.shape[1]] = np.maximum(photo, 60)
            y += photo.shape[0] + 40
        except Exception:
            pass
    words = "invoice total amount due date account number payment received thank you for your order".split()
    while y < SCAN_H - 90:
        text = " ".join(rng.choice(words, size=int(rng.integers(5, 9))))
        cv2.putText(sheet, text, (75, y), cv2.FONT_HERSHEY_SIMPLEX, 0.8, 40, 2, cv2.LINE_AA)
        y += 42
    cv2.rectangle(sheet, (60, 50), (SCAN_W - 60, SCAN_H - 50), 120, 1)
    return cv2.cvtColor(sheet, cv2.COLOR_GRAY2BGR)


def make_desk(rng):
    """A speckled desk top (granite-like), larger than a photo: each photo sees a different part."""
    desk = np.empty((H + 200, W + 200, 3), np.uint8)
    desk[:] = (70, 82, 96)
    for _ in range(18000):
        c = (int(rng.integers(0, W + 200)), int(rng.integers(0, H + 200)))
        tone = int(rng.integers(35, 135))
        cv2.circle(desk, c, int(rng.integers(1, 4)), (tone, tone + 8, tone + 14), -1)
    return cv2.GaussianBlur(desk, (3, 3), 0)


def photos(n, synthetic, seed=8):
    """(photo, true corners) pairs: the sheet warped onto the desk with a random pose."""
    rng = np.random.default_rng(seed)
    sheet = make_sheet(synthetic)
    desk = make_desk(rng)
    # Light falls off across the desk (a gain in 1/255 units, applied by cv2.multiply).
    shadow = np.repeat(np.linspace(255, 190, W)[None, :, None], H, axis=0).repeat(3, axis=2).astype(np.uint8)
    noise = [rng.integers(0, 12, (H, W, 3), dtype=np.uint8) for _ in range(3)]
    src = np.float32([[0, 0], [SCAN_W, 0], [SCAN_W, SCAN_H], [0, SCAN_H]])
    for i in range(n):
        cx, cy = W / 2 + rng.uniform(-150, 150), H / 2 + rng.uniform(-30, 30)
        angle = np.radians(rng.uniform(-18, 18))
        scale = rng.uniform(0.58, 0.68)
        rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
        corners = (src - [SCAN_W / 2, SCAN_H / 2]) * scale @ rot.T + [cx, cy]
        corners += rng.uniform(-30, 30, (4, 2))  # the camera's tilt: a perspective, not a rotation
        m = cv2.getPerspectiveTransform(src, corners.astype(np.float32))
        ox, oy = int(rng.integers(0, 200)), int(rng.integers(0, 200))
        photo = np.ascontiguousarray(desk[oy:oy + H, ox:ox + W])
        cv2.warpPerspective(sheet, m, (W, H), dst=photo, flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_TRANSPARENT)
        photo = cv2.multiply(photo, shadow, scale=1 / 255)
        photo = cv2.add(photo, noise[i % 3])
        yield photo, corners


def order_corners(pts):
    """Top-left, top-right, bottom-right, bottom-left."""
    pts = pts.reshape(4, 2).astype(np.float32)
    s, d = pts.sum(axis=1), np.diff(pts, axis=1)[:, 0]
    return np.float32([pts[np.argmin(s)], pts[np.argmin(d)], pts[np.argmax(s)], pts[np.argmax(d)]])


def find_page(gray):
    blurred = cv2.GaussianBlur(gray, (5, 5), 0)
    edged = cv2.Canny(blurred, 75, 200)
    edged = cv2.dilate(edged, np.ones((3, 3), np.uint8))  # close the small gaps in the page's outline
    contours, _ = cv2.findContours(edged, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    for c in sorted(contours, key=cv2.contourArea, reverse=True)[:5]:
        approx = cv2.approxPolyDP(c, 0.02 * cv2.arcLength(c, True), True)
        if len(approx) == 4:
            return order_corners(approx), len(contours)
    return None, len(contours)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=24, help="photos to scan")
    ap.add_argument("--output-dir", help="folder for the flattened, binarized scans (PNG)")
    ap.add_argument("--synthetic", action="store_true", help="typed lines only, even with scikit-image")
    ap.add_argument("--quick", action="store_true", help="3 photos (for tests)")
    args = ap.parse_args()
    n = 3 if args.quick else args.pages
    if args.output_dir:
        os.makedirs(args.output_dir, exist_ok=True)

    found, contour_count, errors, ink = 0, 0, [], []
    dst = np.float32([[0, 0], [SCAN_W - 1, 0], [SCAN_W - 1, SCAN_H - 1], [0, SCAN_H - 1]])
    for i, (photo, truth) in enumerate(photos(n, args.synthetic)):
        gray = cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY)
        corners, count = find_page(gray)
        contour_count += count
        if corners is None:
            continue
        found += 1
        errors.append(float(np.abs(corners - order_corners(truth)).max()))
        m = cv2.getPerspectiveTransform(corners, dst)
        flat = cv2.warpPerspective(gray, m, (SCAN_W, SCAN_H))
        scan = cv2.adaptiveThreshold(flat, 255, cv2.ADAPTIVE_THRESH_GAUSSIAN_C, cv2.THRESH_BINARY, 21, 10)
        ink.append(1.0 - cv2.countNonZero(scan) / scan.size)
        if args.output_dir:
            cv2.imwrite(os.path.join(args.output_dir, "scan_%03d.png" % (i + 1)), scan)

    print("%d photos %dx%d: page found in %d (%d contours in all), corner error %.1f px on average "
          "(worst %.1f), mean ink %.2f%% of the scan"
          % (n, W, H, found, contour_count, float(np.mean(errors)) if errors else float("nan"),
             max(errors) if errors else float("nan"), 100 * float(np.mean(ink)) if ink else 0.0))


if __name__ == "__main__":
    main()
