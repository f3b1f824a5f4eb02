"""Simulated CT projections: cv2.ximgproc.RadonTransform of a head phantom, slice by slice, with checks.

    python examples/ct_sinogram.py [--slices 16] [--size 512] [--angles 180] [--output sino.png]
                                   [--synthetic] [--quick]

The phantom is a 3-D version of the Shepp-Logan head (ellipsoids drawn slice by slice with cv2); with
scikit-image installed (and without ``--synthetic``) the first slice is scikit-image's 2-D
``shepp_logan_phantom`` instead, as a reference scan. Each slice's sinogram comes from
cv2.ximgproc.RadonTransform (one projection per degree over 180 degrees, float input). The script
checks what a scanner's QA would: every projection carries the slice's whole mass (drift in %), the
centre of rotation from the projections' centres of mass, and the head's width across the angles.
``--output`` writes the last sinogram as an 8-bit PNG. Needs opencv-contrib (cv2.ximgproc); says so and
exits when it is missing. Prints one line with the results. ``--quick``: 2 slices of 256x256.
Runs unchanged under `cvgpu compare examples/ct_sinogram.py`.
"""
import argparse
import sys

import cv2
import numpy as np

# Ellipsoids of the head: intensity, semi-axes (x, y, z), centre (x, y, z), turn about z in degrees;
# in units of the half field of view (the modified Shepp-Logan values, given a third axis).
HEAD = [
    (1.0, (0.69, 0.92, 0.81), (0.0, 0.0, 0.0), 0),
    (-0.8, (0.6624, 0.874, 0.78), (0.0, -0.0184, 0.0), 0),
    (-0.2, (0.11, 0.31, 0.22), (0.22, 0.0, 0.0), -18),
    (-0.2, (0.16, 0.41, 0.28), (-0.22, 0.0, -0.25), 18),
    (0.1, (0.21, 0.25, 0.41), (0.0, 0.35, -0.25), 0),
    (0.1, (0.046, 0.046, 0.05), (0.0, 0.1, -0.25), 0),
    (0.1, (0.046, 0.046, 0.05), (0.0, -0.1, -0.25), 0),
    (0.1, (0.046, 0.023, 0.05), (-0.08, -0.605, -0.25), 0),
    (0.1, (0.023, 0.023, 0.02), (0.0, -0.606, -0.25), 0),
    (0.1, (0.023, 0.046, 0.02), (0.06, -0.605, -0.25), 0),
]


def head_slice(z, size):
    """The phantom's cross-section at height z (-1..1) as a float32 size x size image."""
    img = np.zeros((size, size), np.float32)
    layer = np.empty_like(img)
    half = size / 2.0
    for value, (a, b, c), (x0, y0, z0), turn in HEAD:
        t = 1.0 - ((z - z0) / c) ** 2
        if t <= 0:
            continue
        s = np.sqrt(t)
        layer[:] = 0
        centre = (int(round(half + x0 * half)), int(round(half - y0 * half)))
        axes = (max(1, int(round(a * s * half))), max(1, int(round(b * s * half))))
        cv2.ellipse(layer, centre, axes, -turn, 0, 360, value, -1)
        img += layer
    return img


def load_slices(n, size, synthetic):
    zs = np.linspace(-0.5, 0.5, n) if n > 1 else [0.0]
    for i, z in enumerate(zs):
        if i == 0 and not synthetic:
            try:
                from skimage import data
                ref = data.shepp_logan_phantom().astype(np.float32)
                yield "scikit-image shepp_logan_phantom", cv2.resize(ref, (size, size), interpolation=cv2.INTER_AREA)
                continue
            except Exception:
                pass
        yield "z=%+.2f" % z, head_slice(z, size)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--slices", type=int, default=16)
    ap.add_argument("--size", type=int, default=512, help="slice size in pixels (square)")
    ap.add_argument("--angles", type=int, default=180, help="projections over 180 degrees")
    ap.add_argument("--output", help="PNG of the last sinogram")
    ap.add_argument("--synthetic", action="store_true", help="drawn slices only, even with scikit-image")
    ap.add_argument("--quick", action="store_true", help="2 slices of 256x256 (for tests)")
    args = ap.parse_args()
    if not hasattr(cv2, "ximgproc"):
        sys.exit("ct_sinogram: this OpenCV has no cv2.ximgproc (RadonTransform is in opencv-contrib: "
                 "pip install opencv-contrib-python)")
    n, size = (2, 256) if args.quick else (args.slices, args.size)
    if n < 1 or size < 8 or args.angles < 1:
        ap.error("--slices and --angles must be at least 1, --size at least 8")
    step = 180.0 / args.angles

    drifts, centres, widths, sino = [], [], [], None
    for name, img in load_slices(n, size, args.synthetic):
        mass = float(img.sum(dtype=np.float64))
        # (cv2 5.0's RadonTransform transposes a square src in place: the slice is not used afterwards.)
        sino = cv2.ximgproc.RadonTransform(img, theta=step, start_angle=0, end_angle=180)
        sums = sino.sum(axis=0)  # one column per angle: each projection's total
        drifts.append(float(np.abs(sums - mass).max() / abs(mass)) if mass else 0.0)
        bins = np.arange(sino.shape[0], dtype=np.float64)
        com = (sino * bins[:, None]).sum(axis=0) / np.where(sums != 0, sums, 1)  # per angle
        # A point (x, y) about the centre projects to rho(t) = x cos t + y sin t + centre: fit it.
        t = np.radians(np.arange(sino.shape[1]) * step)
        design = np.column_stack([np.cos(t), np.sin(t), np.ones_like(t)])
        (px, py, c), *_ = np.linalg.lstsq(design, com, rcond=None)
        centres.append(c)
        support = sino > 0.02 * sino.max()
        widths.append(float(np.mean(support.sum(axis=0))))
    if args.output and sino is not None:
        cv2.imwrite(args.output, cv2.normalize(sino, None, 0, 255, cv2.NORM_MINMAX, cv2.CV_8U))
    print("%d slices %dx%d, %d angles: sinograms %dx%d, worst mass drift %.4f%%, centre of rotation "
          "%.2f px (spread %.3f), head width %.1f px on average"
          % (n, size, size, sino.shape[1], sino.shape[0], sino.shape[1], 100 * max(drifts),
             float(np.mean(centres)), float(np.ptp(centres)), float(np.mean(widths))))


if __name__ == "__main__":
    main()
