"""Border lengths on the camera-frame masks of issue 41 (design input for a small-image pipeline:
short borders walked one per thread, long ones ranked in parallel). For each frame size and mask kind
of cvgpu.bench.frames (four photographs), every border cv2.findContours(RETR_LIST, CHAIN_APPROX_NONE)
follows: how many there are, and the share of borders and of border pixels in borders of at most
32, 128, 512 and 2,048 pixels, with the longest. Not part of the package.

    PYTHONPATH=. python3 compat_matrix/raw/session-2026-11-28e/border_lengths.py
"""
import cv2
import numpy as np

from cvgpu.bench.frames import MASKS, PHOTOS
from cvgpu.bench.workloads import FRAMES, frame_mask

LIMITS = (32, 128, 512, 2048)


def main():
    print("%-10s %-9s %8s  %s  %8s" % ("frame", "mask", "borders",
                                        "  ".join("<=%-5d b%% px%%" % n for n in LIMITS), "longest"))
    for size in FRAMES:
        for kind in MASKS:
            lengths = []
            for photo in PHOTOS:
                mask = frame_mask(photo, size, kind)
                if mask is None:
                    continue
                contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
                lengths.extend(len(c) for c in contours)
            lengths = np.array(lengths)
            total = lengths.sum()
            cells = ["%5.1f %5.1f" % (100 * (lengths <= n).mean(), 100 * lengths[lengths <= n].sum() / total)
                     for n in LIMITS]
            print("%-10s %-9s %8d  %s  %8d" % ("%dx%d" % size, kind, len(lengths) // len(PHOTOS),
                                                "   ".join(cells), lengths.max()))


if __name__ == "__main__":
    main()
