"""Three detects of cuda.HoughSegmentDetector on one workload, for ncu (call 3):
    python3 seg_one.py camera 640x480
(the first launches directly, the second captures and replays the full graph, the third replays
the lean graph directly: HoughSegmentDetector._replay)."""
import math
import sys

from cvgpu.bench.workloads import frame_edges
from cvgpu.cuda import GpuMat, createHoughSegmentDetector

w, h = map(int, sys.argv[2].split("x"))
d = GpuMat(frame_edges(sys.argv[1], (w, h)))
det = createHoughSegmentDetector(1.0, math.pi / 180, 50, 10)
for _ in range(3):
    det.detect(d).download()
