"""Three detects + downloadResults of cuda.HoughLinesDetector on one photograph's Canny edges, for ncu
(call 6, issue 42's weakest rows at 3168434):
    python3 det_one.py camera 3840x2160 42     (photo, frame size, threshold; rho 1, 1 degree)"""
import math
import sys

from cvgpu.bench.workloads import frame_edges
from cvgpu.cuda import GpuMat, createHoughLinesDetector

w, h = map(int, sys.argv[2].split("x"))
d = GpuMat(frame_edges(sys.argv[1], (w, h)))
det = createHoughLinesDetector(1.0, math.pi / 180, int(sys.argv[3]), False, 4096)
for _ in range(3):
    det.downloadResults(det.detect(d))
