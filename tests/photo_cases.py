"""Photographs as test inputs, varied by hypothesis-drawn parameters so that no two cases are alike.

scikit-image's bundled photographs (cvgpu.bench.workloads.photo_gray: no download) are turned by a
drawn ``spec`` (which photograph, one of the 8 rotations / mirror images, a crop box, the output
size, the resize interpolation) into an 8-bit grayscale image of any size, and from it into what a
pipeline feeds the functions under test: Canny edge maps (HoughLines) and binary masks
(findContours: Otsu, fixed or adaptive thresholds, Canny edges, optionally dilated or inverted).
Without scikit-image a smooth synthetic field stands in: the cases stay valid, only less real.

This module is no test file (pytest does not collect it); the test files import it (tests/ is on
sys.path).
"""
import functools

import cv2
import numpy as np
from hypothesis import strategies as st

from cvgpu.bench.workloads import photo_gray

# The bench's photographs first (cvgpu.bench.workloads.FRAME_PHOTOS), then other bundled ones.
NAMES = ("camera", "astronaut", "coffee", "page", "chelsea", "rocket", "coins", "moon", "text", "brick",
         "grass", "gravel", "clock", "cell", "hubble_deep_field", "immunohistochemistry", "retina")


@functools.lru_cache(maxsize=None)
def available():
    """The grayscale photographs this machine has (loaded once per process), or one synthetic field."""
    photos = [p for p in (photo_gray(n) for n in NAMES) if p is not None]
    if not photos:
        yy, xx = np.mgrid[0:384, 0:512]
        field = 127 + 60 * np.sin(xx / 9.0) + 60 * np.cos(yy / 13.0 + xx / 31.0)
        photos = [np.clip(field, 0, 255).astype(np.uint8)]
    for p in photos:
        p.setflags(write=False)
    return tuple(photos)


# (photograph index, dihedral transform 0..7, crop x0, y0, width, height as fractions, interpolation)
specs = st.tuples(st.integers(0, 1 << 16), st.integers(0, 7), st.floats(0.0, 0.6), st.floats(0.0, 0.6),
                  st.floats(0.25, 1.0), st.floats(0.25, 1.0), st.sampled_from([cv2.INTER_AREA, cv2.INTER_LINEAR,
                                                                                cv2.INTER_NEAREST, cv2.INTER_CUBIC]))


def gray(spec, h, w):
    """An h x w 8-bit grayscale image from the drawn ``spec``: a crop of a rotated or mirrored
    photograph, resized to the size."""
    index, dihedral, fx, fy, fw, fh, interpolation = spec
    photos = available()
    img = photos[index % len(photos)]
    img = np.rot90(img, dihedral % 4)
    if dihedral >= 4:
        img = img[:, ::-1]
    ph, pw = img.shape
    x0, y0 = int(fx * pw), int(fy * ph)
    cw, ch = max(1, min(pw - x0, int(fw * pw))), max(1, min(ph - y0, int(fh * ph)))
    crop = np.ascontiguousarray(img[y0:y0 + ch, x0:x0 + cw])
    return cv2.resize(crop, (w, h), interpolation=interpolation)


# Canny thresholds: (low, ratio high / low)
canny_params = st.tuples(st.integers(10, 150), st.floats(1.2, 3.5))


def edges(spec, h, w, canny):
    """Canny edges (0 / 255) of the photograph case: what a Hough pipeline feeds HoughLines."""
    low, ratio = canny
    return cv2.Canny(gray(spec, h, w), low, low * ratio)


MASK_KINDS = ("otsu", "threshold", "adaptive", "canny", "canny-dilated")
# (kind, parameter 0..1000 (the threshold level, the adaptive block size and constant), inverted)
mask_params = st.tuples(st.sampled_from(MASK_KINDS), st.integers(0, 1000), st.booleans())


def mask(spec, h, w, params, value=255):
    """A binary mask (0 / value) of the photograph case: what a contour pipeline feeds findContours."""
    kind, p, invert = params
    img = gray(spec, h, w)
    if kind == "otsu":
        m = cv2.threshold(img, 0, 1, cv2.THRESH_BINARY + cv2.THRESH_OTSU)[1]
    elif kind == "threshold":
        m = (img > 40 + p % 176).astype(np.uint8)
    elif kind == "adaptive":
        block = 3 + 2 * (p % 25)
        m = cv2.adaptiveThreshold(img, 1, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, block, p % 11 - 3)
    else:
        m = (cv2.Canny(img, 30 + p % 90, 2.5 * (30 + p % 90)) != 0).astype(np.uint8)
        if kind == "canny-dilated":
            m = cv2.dilate(m, np.ones((3, 3), np.uint8), iterations=1 + p % 2)
    if invert:
        m = 1 - m
    return m * np.uint8(value)
