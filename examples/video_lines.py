"""Straight-line detection over a dash-camera clip: blur, Canny and cv2.HoughLines on every frame.

    python examples/video_lines.py [--frames 200] [--threshold 160] [--output last.png] [--quick]

The clip is synthetic and generated frame by frame from a fixed seed (1280x720, a street between
buildings: lane markings that move towards the camera, lamp posts that pass by, window grids, asphalt
texture and sensor noise; the camera sways a little). Each frame's lines are sorted into lane
markings, verticals and horizontals, and the two strongest lane markings give the vanishing point.
Prints one line with the totals; ``--output`` writes the last frame with its lines drawn.
``--quick`` processes 6 frames. Runs unchanged under `cvgpu compare examples/video_lines.py`.
"""
import argparse

import cv2
import numpy as np

W, H = 1280, 720
HORIZON = 300
PAN = 80  # the scene is wider than a frame by 2*PAN: the camera sways within it


def street_scene(seed):
    """The static part of the street, 2*PAN wider than a frame: sky, buildings, asphalt."""
    rng = np.random.default_rng(seed)
    w = W + 2 * PAN
    img = np.empty((H, w), np.uint8)
    img[:HORIZON] = np.linspace(200, 160, HORIZON, dtype=np.float32)[:, None].astype(np.uint8)  # sky
    img[HORIZON:] = 95  # asphalt
    # Buildings on both sides, each with a grid of windows.
    for x0, x1 in ((0, 470), (w - 470, w)):
        x = x0
        while x < x1 - 60:
            bw = int(rng.integers(120, 220))
            top = int(rng.integers(40, 160))
            shade = int(rng.integers(110, 150))
            right = min(x + bw, x1)
            cv2.rectangle(img, (x, top), (right, HORIZON + 40), shade, -1)
            for wy in range(top + 20, HORIZON, 44):
                for wx in range(x + 14, right - 30, 36):
                    cv2.rectangle(img, (wx, wy), (wx + 20, wy + 26), int(rng.integers(40, 80)), -1)
            x = right + int(rng.integers(6, 30))
    # Trees along the pavement: crowns of leaves, a texture full of short edges and no long lines.
    # (Staggered in height: a row of crowns across the frame would add up to a horizontal "line".)
    for cx in list(range(40, 420, 95)) + list(range(w - 420, w - 40, 95)):
        cx += int(rng.integers(-20, 20))
        cy, r = int(rng.integers(150, 290)), int(rng.integers(40, 60))
        cv2.line(img, (cx, cy), (cx, HORIZON + 50), 45, 10)  # trunk
        for _ in range(700):
            a, d = rng.uniform(0, 2 * np.pi), r * np.sqrt(rng.uniform(0, 1))
            cv2.ellipse(img, (int(cx + d * np.cos(a)), int(cy + d * np.sin(a))),
                        (int(rng.integers(3, 8)), int(rng.integers(2, 5))), float(rng.integers(0, 180)),
                        0, 360, int(rng.integers(25, 110)), -1)
    # Asphalt: fine grain plus gravel specks and patches, larger nearer the camera.
    tex = cv2.GaussianBlur(rng.normal(0, 14, (H - HORIZON, w)).astype(np.float32), (0, 0), 2.0)
    img[HORIZON:] = np.clip(img[HORIZON:] + tex, 0, 255).astype(np.uint8)
    for _ in range(3000):
        y = int(HORIZON + (H - HORIZON) * rng.uniform(0.05, 1.0) ** 1.4)
        size = 1 + 3.5 * (y - HORIZON) / (H - HORIZON)
        axes = (int(size * rng.uniform(0.6, 1.6)), int(size * rng.uniform(0.4, 1.0)))
        cv2.ellipse(img, (int(rng.integers(0, w)), y), axes, float(rng.integers(0, 180)), 0, 360,
                    int(rng.choice([50, 60, 135, 145])), -1)
    return img


def depth_to_y(z):
    return HORIZON + 420.0 / z


def draw_moving_parts(frame, i, vx):
    """Lane markings and lamp posts for frame i (the car moves forward 0.06 depth units a frame)."""
    bottom = H + 40
    for x_bottom in (-140, W + 140):  # solid road edges
        cv2.line(frame, (vx, HORIZON), (vx + (x_bottom - vx) * (bottom - HORIZON) // (H - HORIZON), bottom),
                 225, 9, cv2.LINE_AA)
    phase = (i * 0.06) % 1.0
    for k in range(14):  # centre dashes, 1 depth unit apart
        z0 = 0.55 + k - phase
        z1 = z0 + 0.45
        if z0 <= 0.3:
            continue
        y0, y1 = depth_to_y(z0), depth_to_y(z1)
        half0, half1 = 9 * (y0 - HORIZON) / 420 * 3, 9 * (y1 - HORIZON) / 420 * 3
        xs0 = vx + (W // 2 - vx) * (y0 - HORIZON) / (H - HORIZON)
        xs1 = vx + (W // 2 - vx) * (y1 - HORIZON) / (H - HORIZON)
        poly = np.array([[xs0 - half0, y0], [xs0 + half0, y0], [xs1 + half1, y1], [xs1 - half1, y1]])
        cv2.fillPoly(frame, [np.round(poly).astype(np.int32)], 230, cv2.LINE_AA)
    pphase = (i * 0.06) % 3.0
    for k in range(4):  # lamp posts every 3 depth units on both sides, passing outwards
        z = 1.2 + 3 * k - pphase
        if z <= 0.35:
            continue
        yb = depth_to_y(z)
        height = 1400.0 / z
        for side in (-1, 1):
            xb = int(round(vx + side * (1700.0 / z)))
            cv2.line(frame, (xb, int(yb)), (xb, int(yb - height)), 50, max(2, int(24 / z)))


def make_frames(n, seed=11):
    scene = street_scene(seed)
    rng = np.random.default_rng(seed + 1)
    # Sensor noise: a small bank of noise frames, reused in turn (cheaper than drawing new noise).
    bank = [rng.integers(0, 14, (H, W), dtype=np.uint8) for _ in range(5)]
    for i in range(n):
        sway = int(round(PAN * 0.6 * np.sin(i / 23.0)))
        frame = scene[:, PAN + sway:PAN + sway + W].copy()
        draw_moving_parts(frame, i, W // 2 - sway // 3)
        frame = cv2.add(frame, bank[i % 5])
        frame = cv2.subtract(frame, bank[(i + 2) % 5])
        yield frame


def classify(lines):
    """Lines as (rho, theta) -> lane markings (slanted, left/right), verticals, horizontals."""
    lanes_left, lanes_right, vertical, horizontal = [], [], 0, 0
    for rho, theta in lines:
        deg = np.degrees(theta)
        if deg < 8 or deg > 172:
            vertical += 1
        elif 80 < deg < 100:
            horizontal += 1
        elif 20 < deg < 75:
            lanes_right.append((rho, theta))  # the normal points down-right: a line rising to the left
        elif 105 < deg < 160:
            lanes_left.append((rho, theta))
    return lanes_left, lanes_right, vertical, horizontal


def intersect(l1, l2):
    (r1, t1), (r2, t2) = l1, l2
    a = np.array([[np.cos(t1), np.sin(t1)], [np.cos(t2), np.sin(t2)]])
    if abs(np.linalg.det(a)) < 1e-6:
        return None
    return np.linalg.solve(a, np.array([r1, r2]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=200)
    ap.add_argument("--threshold", type=int, default=160, help="Hough accumulator threshold")
    ap.add_argument("--output", help="PNG of the last frame with its lines drawn")
    ap.add_argument("--quick", action="store_true", help="6 frames (for tests)")
    args = ap.parse_args()
    n_frames = 6 if args.quick else args.frames
    if n_frames < 1:
        ap.error("--frames must be at least 1")

    totals = {"lines": 0, "lane": 0, "vertical": 0, "horizontal": 0, "edges": 0}
    vps, lane_frames = [], 0
    for frame in make_frames(n_frames):
        blurred = cv2.GaussianBlur(frame, (5, 5), 0)
        edges = cv2.Canny(blurred, 60, 160)
        lines = cv2.HoughLines(edges, 1, np.pi / 180, args.threshold)
        lines = np.empty((0, 2), np.float32) if lines is None else lines[:, 0, :]
        left, right, vertical, horizontal = classify(lines)
        totals["lines"] += len(lines)
        totals["lane"] += len(left) + len(right)
        totals["vertical"] += vertical
        totals["horizontal"] += horizontal
        totals["edges"] += int(np.count_nonzero(edges))
        if left and right:  # HoughLines lists the lines by votes: the first of each side is the strongest
            lane_frames += 1
            vp = intersect(left[0], right[0])
            if vp is not None:
                vps.append(vp)

    vp = np.mean(vps, axis=0) if vps else (float("nan"), float("nan"))
    print("%d frames %dx%d, threshold %d: %d edge points/frame, %d lines (lane %d, vertical %d, "
          "horizontal %d), both lanes in %d frames, vanishing point (%.1f, %.1f)"
          % (n_frames, W, H, args.threshold, totals["edges"] // max(n_frames, 1), totals["lines"],
             totals["lane"], totals["vertical"], totals["horizontal"], lane_frames, vp[0], vp[1]))
    if args.output:
        out = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        for rho, theta in lines:
            a, b = np.cos(theta), np.sin(theta)
            x0, y0 = a * rho, b * rho
            cv2.line(out, (int(x0 - 2000 * b), int(y0 + 2000 * a)), (int(x0 + 2000 * b), int(y0 - 2000 * a)),
                     (0, 0, 255), 1, cv2.LINE_AA)
        cv2.imwrite(args.output, out)


if __name__ == "__main__":
    main()
