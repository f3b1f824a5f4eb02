"""Lane markings in road scenes: blur, Canny, a region of interest, cv2.HoughLinesP, then the segments
sorted into left and right lanes by slope and drawn.

    python examples/lane_lines.py [--output lanes.png] [--synthetic] [--frames N] [--quick]

Uses scikit-image's photograph "rocket" (a road-less scene, but with the long straight edges of a
launch tower) and "camera" when scikit-image is installed, else (and with ``--synthetic``) a drawn
road: dashed and solid lane markings in perspective, a horizon, noise. Each frame is the scene at
1280x720 shifted by a few pixels, as a moving dash camera would see it. ``--output`` writes the last
frame with its segments drawn (left lanes blue, right lanes red, others green). Prints one line with
the segment counts. ``--quick``: 3 frames. Runs unchanged under `cvgpu compare examples/lane_lines.py`.
"""
import argparse

import cv2
import numpy as np

FRAME = (1280, 720)


def synthetic_road(rng):
    """A road in perspective: asphalt, a dashed centre line, solid edge lines, sky, noise."""
    w, h = FRAME
    img = np.full((h, w, 3), (170, 150, 120), np.uint8)               # sky
    road = np.array([[0, h], [w, h], [w // 2 + 60, h // 2], [w // 2 - 60, h // 2]], np.int32)
    cv2.fillPoly(img, [road], (70, 70, 75))
    horizon = h // 2
    for x_bottom, dashed in ((int(0.12 * w), False), (w // 2, True), (int(0.88 * w), False)):
        x_top = w // 2 + (x_bottom - w // 2) * 60 // (w // 2)
        steps = 12 if dashed else 1
        for k in range(steps):
            if dashed and k % 2:
                continue
            t0, t1 = k / steps, (k + 1) / steps
            p0 = (int(x_bottom + (x_top - x_bottom) * t0), int(h + (horizon - h) * t0))
            p1 = (int(x_bottom + (x_top - x_bottom) * t1), int(h + (horizon - h) * t1))
            cv2.line(img, p0, p1, (230, 230, 230), max(2, int(10 * (1 - t0))))
    cv2.rectangle(img, (int(0.7 * w), int(0.3 * h)), (int(0.78 * w), horizon), (60, 80, 60), -1)  # a sign
    noise = rng.normal(0, 6, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8)


def load_scenes(synthetic, rng):
    if not synthetic:
        try:
            from skimage import data
            return [("rocket", cv2.cvtColor(data.rocket(), cv2.COLOR_RGB2BGR)),
                    ("camera", cv2.cvtColor(data.camera(), cv2.COLOR_GRAY2BGR))], "scikit-image"
        except Exception:
            pass
    return [("road", synthetic_road(rng))], "synthetic"


def region_of_interest(edges):
    """The lower half trapezoid where lanes are (a dash camera's usual mask)."""
    h, w = edges.shape
    mask = np.zeros_like(edges)
    poly = np.array([[0, h], [w, h], [w * 11 // 20, h * 9 // 20], [w * 9 // 20, h * 9 // 20]], np.int32)
    cv2.fillPoly(mask, [poly], 255)
    return cv2.bitwise_and(edges, mask)


def classify(lines):
    """(left, right, other) segments by slope: lanes lean in from the frame's sides."""
    left, right, other = [], [], []
    for x1, y1, x2, y2 in lines:
        if x1 == x2:
            other.append((x1, y1, x2, y2))
            continue
        slope = (y2 - y1) / float(x2 - x1)
        (left if slope < -0.3 else right if slope > 0.3 else other).append((x1, y1, x2, y2))
    return left, right, other


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--output", help="image file for the last frame with its segments drawn")
    ap.add_argument("--synthetic", action="store_true", help="the drawn road even with scikit-image")
    ap.add_argument("--frames", type=int, default=12, help="frames per scene")
    ap.add_argument("--quick", action="store_true", help="3 frames (for tests)")
    args = ap.parse_args()
    rng = np.random.default_rng(7)
    scenes, source = load_scenes(args.synthetic, rng)
    frames = 3 if args.quick else args.frames

    totals = {"left": 0, "right": 0, "other": 0}
    last = None
    for name, scene in scenes:
        base = cv2.resize(scene, FRAME, interpolation=cv2.INTER_AREA if scene.shape[1] > FRAME[0]
                          else cv2.INTER_LINEAR)
        for f in range(frames):
            shift = np.float32([[1, 0, 3 * (f % 5) - 6], [0, 1, 2 * (f % 3) - 2]])
            frame = cv2.warpAffine(base, shift, FRAME, borderMode=cv2.BORDER_REPLICATE)
            gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
            edges = region_of_interest(cv2.Canny(cv2.GaussianBlur(gray, (5, 5), 0), 50, 150))
            lines = cv2.HoughLinesP(edges, 1, np.pi / 180, 50, minLineLength=40, maxLineGap=20)
            segments = [] if lines is None else [tuple(int(v) for v in s) for s in lines.reshape(-1, 4)]
            left, right, other = classify(segments)
            totals["left"] += len(left)
            totals["right"] += len(right)
            totals["other"] += len(other)
            last = (frame, left, right, other)
    if args.output and last is not None:
        frame, left, right, other = last
        out = frame.copy()
        for group, colour in ((left, (255, 0, 0)), (right, (0, 0, 255)), (other, (0, 200, 0))):
            for x1, y1, x2, y2 in group:
                cv2.line(out, (x1, y1), (x2, y2), colour, 3, cv2.LINE_AA)
        cv2.imwrite(args.output, out)
    print("%d frames %dx%d (%s): %d segments, %d left, %d right, %d other"
          % (frames * len(scenes), FRAME[0], FRAME[1], source, sum(totals.values()), totals["left"],
             totals["right"], totals["other"]))


if __name__ == "__main__":
    main()
