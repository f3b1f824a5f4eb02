"""Images the benchmark families share: the seed study's segment images and photographs' edges."""
import math

import cv2
import numpy as np

THETA = math.pi / 180


def segments(h, w, n_points, seed=0):
    """The seed study's Hough workload: horizontal 1-px segments totalling n_points edge pixels."""
    img = np.zeros((h, w), np.uint8)
    seg = min(w, 64)
    rng = np.random.default_rng(seed)
    placed = 0
    while placed < n_points:
        y = rng.integers(0, h, 4096)
        x = rng.integers(0, w - seg + 1, 4096)
        for yy, xx in zip(y, x):
            row = img[yy, xx:xx + seg]
            placed += seg - int(np.count_nonzero(row))
            row[:] = 255
            if placed >= n_points:
                break
    return img


PHOTOS = ("camera", "astronaut", "coffee", "page")


def photograph(name):
    """Canny edges of one of scikit-image's bundled photographs (None without scikit-image)."""
    try:
        from skimage import color, data
        img = getattr(data, name)()
    except Exception:
        return None
    if img.ndim == 3:
        img = (color.rgb2gray(img) * 255).astype(np.uint8)
    return "photo %s %dx%d Canny" % (name, img.shape[1], img.shape[0]), cv2.Canny(img, 50, 150)


# Camera-frame sizes (w, h) and bundled scikit-image photographs (no download needed) for the rows
# measured on real edge maps and masks.
FRAMES = ((640, 480), (1280, 720), (1920, 1080), (3840, 2160))
FRAME_PHOTOS = ("camera", "astronaut", "coffee", "page", "chelsea", "rocket", "coins", "moon")


def photo_gray(name):
    """One of scikit-image's bundled photographs as uint8 grayscale (None without scikit-image)."""
    try:
        from skimage import color, data
        img = getattr(data, name)()
    except Exception:
        return None
    if img.ndim == 3:
        img = (color.rgb2gray(img[..., :3]) * 255).astype(np.uint8)
    return np.ascontiguousarray(img.astype(np.uint8))


def frame(name, size):
    """The photograph resized to a camera frame ``size`` = (w, h) (None without scikit-image)."""
    gray = photo_gray(name)
    if gray is None:
        return None
    interp = cv2.INTER_AREA if size[0] * size[1] < gray.size else cv2.INTER_LINEAR
    return cv2.resize(gray, size, interpolation=interp)


def frame_edges(name, size):
    """Canny 50/150 edges of the photograph at frame ``size`` (what a Hough pipeline feeds)."""
    img = frame(name, size)
    return None if img is None else cv2.Canny(img, 50, 150)


def frame_mask(name, size, kind="otsu"):
    """A binary mask of the photograph at frame ``size``: "otsu", "adaptive" (mean, 31 px, C 5) or
    "canny" (50/150): what a contour pipeline feeds findContours."""
    img = frame(name, size)
    if img is None:
        return None
    if kind == "otsu":
        return cv2.threshold(img, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)[1]
    if kind == "adaptive":
        return cv2.adaptiveThreshold(img, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, 31, 5)
    return cv2.Canny(img, 50, 150)


def hough_workloads(quick=False):
    """(name, build) pairs, built lazily; ``sweep``: "points" (1024^2) or "resolution" (82k points)."""
    out = []
    counts = (10_000, 20_000, 41_000, 82_000, 164_000)
    for n in counts[:2] if quick else counts:
        out.append(("segments 1024x1024 %dk pts" % (n // 1000), lambda n=n: segments(1024, 1024, n)))
    for side in ((512,) if quick else (512, 2048, 4096, 8192)):
        out.append(("segments %dx%d 82k pts" % (side, side), lambda s=side: segments(s, s, 82_000)))
    for name in PHOTOS[:1] if quick else PHOTOS:
        out.append((None, lambda n=name: photograph(n)))
    return out
