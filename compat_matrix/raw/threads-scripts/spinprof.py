import os, sys, time, threading, statistics, ctypes
os.environ.setdefault("CVGPU_ENGINE", "cuda")
import numpy as np, cupy as cp
import cvgpu
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import throughput  # noqa: E402
from cvgpu import _native
from cvgpu.bench.workloads import frame_edges
lib = _native.load_library()[0]
_native.helpers()
def tput(fn, items, T, reps=5):
    return throughput(lambda s: fn, items, T, reps=reps, warm=3)
HL = lambda img: cvgpu.HoughLines(img, 1, np.pi / 180, 150)
print("switchinterval", sys.getswitchinterval(), "cpus", os.cpu_count(), "affinity", len(os.sched_getaffinity(0)))
for size, n in (((640, 480), 2048), ((1920, 1080), 512)):
    edges = [frame_edges(p, size) for p in ("camera", "coins", "page", "astronaut")]
    fe = [edges[i % 4] for i in range(n)]
    for spin in (1 << 30, 4096, 512, 64, 0):
        lib.cvg_set_spin(ctypes.c_uint(spin))
        out = [tput(HL, fe, T) for T in (1, 2, 4, 8)]
        print("spin %10d %dx%d " % (spin, *size) + " ".join("T%d %7.0f" % (T, v) for T, v in zip((1, 2, 4, 8), out)), flush=True)
    lib.cvg_set_spin(ctypes.c_uint(1 << 30))
    sys.setswitchinterval(1e-4)
    out = [tput(HL, fe, T) for T in (1, 2, 4, 8)]
    print("switch 1e-4      %dx%d " % size + " ".join("T%d %7.0f" % (T, v) for T, v in zip((1, 2, 4, 8), out)), flush=True)
    sys.setswitchinterval(5e-3)
