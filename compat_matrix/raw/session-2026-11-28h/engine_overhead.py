"""cvgpu's own time around a call that cv2 computes (issue 40: never slower than cv2), in the two
states where every call goes to cv2: "failed" (no usable GPU in the process) and "cold" (a GPU
machine before its start-up: CuPy counted as installed, nothing probed). A 16x16 mask, so that the
call's own time is small beside the overhead; the best of 15 rounds of 3,000 calls each, cv2 and
cvgpu interleaved. Run from the repository root: python3 .../engine_overhead.py failed|cold"""
import sys
import timeit
import warnings

import cv2
import numpy as np

warnings.simplefilter("ignore")
import cvgpu  # noqa: E402
from cvgpu import _backend, _engine  # noqa: E402

state = sys.argv[1] if len(sys.argv) > 1 else "failed"
if state == "cold":
    _backend._cupy_found[:] = [True]
    _backend.gpu_probed = lambda: False
    _engine._startup.begin = lambda: None
    _engine._startup.state = "cold"
m = np.zeros((16, 16), np.uint8)
m[4:10, 4:10] = 255
fs = {"cv2.findContours": lambda: cv2.findContours(m, 3, 2), "cvgpu.findContours": lambda: cvgpu.findContours(m, 3, 2),
      "cv2.HoughLines": lambda: cv2.HoughLines(m, 1, np.pi / 180, 3),
      "cvgpu.HoughLines": lambda: cvgpu.HoughLines(m, 1, np.pi / 180, 3)}
best = {k: 1e9 for k in fs}
for _ in range(15):
    for k, f in fs.items():
        best[k] = min(best[k], timeit.timeit(f, number=3000) / 3000 * 1e6)
print("%-6s findContours cv2 %.2f cvgpu %.2f (+%.2f us) | HoughLines cv2 %.2f cvgpu %.2f (+%.2f us) | state %s, %s"
      % (state, best["cv2.findContours"], best["cvgpu.findContours"], best["cvgpu.findContours"] - best["cv2.findContours"],
         best["cv2.HoughLines"], best["cvgpu.HoughLines"], best["cvgpu.HoughLines"] - best["cv2.HoughLines"],
         _engine.startup_state(), cvgpu.last_call_backend()))
