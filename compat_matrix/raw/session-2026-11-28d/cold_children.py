"""Why cv2-computed calls ran slower in compare's cvgpu child than in its cv2 child (issue 40).

Each variant runs in a fresh process (alternating order, ROUNDS rounds) and times 20 calls of
cv2.HoughLines on examples/detect_lines.py's 20 edge maps (scikit-image's page, turned 1 degree a
scan, blurred, Canny), printing the median and first call in ms:
  cv2          import cv2; cv2.HoughLines
  cvgpu        import cvgpu as cv2 (engine auto, GPU cold); cv2.HoughLines
  cvgpu_real   import cvgpu, then the real cv2.HoughLines
  cvgpu_cv2    CVGPU_ENGINE=cv2, import cvgpu as cv2
  child_cv2    compare's child instrumentation (cvgpu._compare.install("cv2")) then cv2.HoughLines
  child_cvgpu  the same with install("cvgpu")
and each variant with the pipeline's Canny/warpAffine calls between the HoughLines calls (as the
script makes them) or without (edges made first).
"""
import json
import os
import subprocess
import sys
import tempfile

CHILD = r'''
import os, sys, time, json, tempfile
variant, between = sys.argv[1], sys.argv[2] == "1"
if variant.startswith("child_"):
    import cvgpu._compare as C
    C.install(variant[6:], os.path.join(tempfile.mkdtemp(), "log.jsonl"))
    import cv2
elif variant in ("cvgpu", "cvgpu_cv2"):
    import cvgpu as cv2
elif variant == "cvgpu_real":
    import cvgpu, cv2
else:
    import cv2
import numpy as np
from skimage import data
page = data.page()
h, w = page.shape
def edges_of(i):
    rot = cv2.getRotationMatrix2D((w / 2, h / 2), 1.0 * i, 1.0)
    gray = cv2.warpAffine(page, rot, (w, h), borderMode=cv2.BORDER_REPLICATE) if i else page
    return cv2.Canny(cv2.GaussianBlur(gray, (3, 3), 0), 50, 150, apertureSize=3)
pre = None if between else [edges_of(i) for i in range(20)]
ms = []
for i in range(20):
    e = edges_of(i) if between else pre[i]
    t = time.perf_counter()
    cv2.HoughLines(e, 1, np.pi / 180, 128)
    ms.append((time.perf_counter() - t) * 1e3)
import threading
print(json.dumps({"variant": variant, "between": between, "median_ms": round(sorted(ms)[10], 3),
                  "first_ms": round(ms[0], 3), "threads": threading.active_count(),
                  "cv2_threads": __import__("cv2").getNumThreads()}))
'''


def main():
    rounds = int(os.environ.get("ROUNDS", "3"))
    path = os.path.join(tempfile.mkdtemp(), "child.py")
    open(path, "w").write(CHILD)
    variants = ["cv2", "cvgpu", "cvgpu_real", "cvgpu_cv2", "child_cv2", "child_cvgpu"]
    for r in range(rounds):
        for between in ("1", "0"):
            order = variants if r % 2 == 0 else variants[::-1]
            for v in order:
                env = dict(os.environ)
                if v == "cvgpu_cv2":
                    env["CVGPU_ENGINE"] = "cv2"
                out = subprocess.run([sys.executable, path, v, between], capture_output=True, text=True, env=env)
                line = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else out.stderr[-300:]
                print(line, flush=True)


if __name__ == "__main__":
    main()
