"""findContours with numpy input: the mask packed and sent up by cvgpu._native's C helper (bit rows,
pad_init_rows; TUNING.native_upload, the default) against numpy's packbits (the bits stream,
pad_init_bits), interleaved in one process, cv2 beside, engine cuda. Otsu masks of four
photographs at the four camera-frame sizes, EXTERNAL and TREE with CHAIN_APPROX_SIMPLE; medians
(ms a call) over the photographs' calls per round; every result compared with cv2's.

    python3 compat_matrix/raw/contours-native-upload/ab.py
"""
import statistics
import time

import cv2
import numpy as np

import cvgpu
from cvgpu.bench.workloads import FRAMES, frame_mask
from cvgpu.contours import TUNING

PHOTOS = ("camera", "coins", "page", "astronaut")
MODES = {"EXTERNAL": cv2.RETR_EXTERNAL, "TREE": cv2.RETR_TREE}
ROUNDS, CALLS = 3, 20
cvgpu.set_engine("cuda")


def same(a, b):
    return len(a[0]) == len(b[0]) and all(np.array_equal(x, y) for x, y in zip(a[0], b[0])) and (
        (a[1] is None and b[1] is None) or np.array_equal(a[1], b[1]))


def timed(fn, imgs):
    out = []
    for i in range(CALLS * len(imgs)):
        img = imgs[i % len(imgs)]
        t = time.perf_counter()
        fn(img)
        out.append(time.perf_counter() - t)
    return statistics.median(out) * 1e3


print("frame        mode         cv2     C rows   packbits  rounds (C rows / packbits)")
for size in FRAMES:
    imgs = [frame_mask(p, size) for p in PHOTOS]
    for mname, mode in MODES.items():
        refs = [cv2.findContours(i, mode, cv2.CHAIN_APPROX_SIMPLE) for i in imgs]
        ours = lambda img: cvgpu.findContours(img, mode, cv2.CHAIN_APPROX_SIMPLE)  # noqa: E731
        c2 = timed(lambda img: cv2.findContours(img, mode, cv2.CHAIN_APPROX_SIMPLE), imgs)
        ok = True
        rn, rp = [], []
        for _ in range(ROUNDS):
            for img in imgs:
                ours(img)
            rn.append(timed(ours, imgs))
            ok &= all(same(ours(i), r) for i, r in zip(imgs, refs))
            with TUNING.override(native_upload=False):
                for img in imgs:
                    ours(img)
                rp.append(timed(ours, imgs))
                ok &= all(same(ours(i), r) for i, r in zip(imgs, refs))
        print("%-12s %-9s %7.3f %8.3f %8.3f   %s / %s%s" % (
            "%dx%d" % size, mname, c2, statistics.median(rn), statistics.median(rp),
            " ".join("%.3f" % v for v in rn), " ".join("%.3f" % v for v in rp), "" if ok else "  NOT EXACT"),
            flush=True)
print("paths:", {k: v for k, v in TUNING.paths().items() if k.startswith("upload")})
