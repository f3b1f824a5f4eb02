import os, sys, time, threading, statistics, ctypes
os.environ.setdefault("CVGPU_ENGINE", "cuda")
import numpy as np, cupy as cp
import cvgpu
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import throughput  # noqa: E402
from cvgpu.bench.workloads import frame_edges, frame_mask
import cv2
def tput(fn, items, T, reps=5):
    return throughput(lambda s: fn, items, T, reps=reps, warm=3)
HL = lambda img: cvgpu.HoughLines(img, 1, np.pi / 180, 150)
FC = lambda img: cvgpu.findContours(img, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)
def limited(fn, k):
    sem = threading.Semaphore(k)
    def f(x):
        with sem:
            return fn(x)
    return f
for name, fn, make in (("HoughLines", HL, frame_edges), ("findContours", FC, frame_mask)):
    for size, n in (((640, 480), 2048), ((1920, 1080), 512)):
        imgs = [make(p, size) for p in ("camera", "coins", "page", "astronaut")]
        fe = [imgs[i % 4] for i in range(n if name == "HoughLines" else n // 4)]
        for k in (None, 1, 2, 3, 4):
            f = fn if k is None else limited(fn, k)
            out = [tput(f, fe, T) for T in (1, 2, 4, 8)]
            print("%-12s sem %-4s %dx%d " % (name, k, *size) + " ".join("T%d %7.0f" % (T, v) for T, v in zip((1, 2, 4, 8), out)), flush=True)
