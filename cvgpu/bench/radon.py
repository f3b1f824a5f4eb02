"""Benchmark rows of ximgproc.RadonTransform."""
import inspect
import re

import cv2
import numpy as np

from .. import _backend
from ._timing import same as _same


def bench_radon(quick=False, progress=None):
    if _backend.cupy_module() is None and not hasattr(cv2, "ximgproc"):
        return []  # neither side can run: cv2 here has no contrib modules, and there is no GPU
    from .. import radon
    params = inspect.signature(radon.bench_rows).parameters
    if "quick" in params:
        rows = radon.bench_rows(quick=quick)
    else:
        sizes = (512,) if quick else (512, 1024, 2048)
        rows = radon.bench_rows(sizes=sizes, steps=(1.0,) if quick else (1.0, 0.25), reps=7,
                                 cv2_reps=1 if quick else 3)
    out, checked = [], {}
    for r in rows:
        r = dict(r)
        r.setdefault("family", "radon")
        if r.get("exact") is None:
            r["exact"] = _radon_exact(r.get("workload", ""), checked)
        out.append(r)
    return out


def _radon_exact(workload, checked):
    """cvgpu's RadonTransform == cv2.ximgproc's on a random image of the row's size and angle step
    (None without a GPU, without cv2.ximgproc, or when the workload text does not say)."""
    m = re.match(r"(\d+)x(\d+) uint8, \d+ angles \(([\d.]+) deg steps\)", workload)
    if m is None or _backend.cupy_module() is None or not hasattr(cv2, "ximgproc"):
        return None
    key = (int(m.group(1)), int(m.group(2)), float(m.group(3)))
    if key not in checked:
        from ..radon import RadonTransform
        img = np.random.default_rng(1).integers(0, 256, key[:2][::-1], dtype=np.uint8)
        ref = cv2.ximgproc.RadonTransform(img.copy(), None, key[2], 0.0, 180.0)  # cv2 may transpose src
        checked[key] = _same(RadonTransform(img, theta=key[2]), ref)
    return checked[key]
