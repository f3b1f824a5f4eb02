import os, sys, time, threading, statistics
os.environ.setdefault("CVGPU_ENGINE", "cuda")
import numpy as np, cupy as cp
import cvgpu
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import throughput  # noqa: E402
from cvgpu import _graphs
from cvgpu.bench.workloads import frame_edges
mode = sys.argv[1]
if mode == "nopdl":
    def plain(fn, grid, block, args, shared_mem=0):
        fn(grid, block, args, shared_mem=shared_mem)
    _graphs.launch_dependent = plain

def tput(fn, items, T, reps=5):
    return throughput(lambda s: fn, items, T, reps=reps, warm=3)

HL = lambda img: cvgpu.HoughLines(img, 1, np.pi / 180, 150)
for size, n in (((640, 480), 2048), ((1920, 1080), 512)):
    edges = [frame_edges(p, size) for p in ("camera", "coins", "page", "astronaut")]
    fe = [edges[i % 4] for i in range(n)]
    out = [tput(HL, fe, T) for T in (1, 2, 4, 8)]
    print("%-8s %dx%d " % (mode, *size) + " ".join("T%d %7.0f" % (T, v) for T, v in zip((1, 2, 4, 8), out)), flush=True)
