"""Where do threads serialise? HoughLines / findContours VGA, 1..8 threads, wait variants, floors."""
import os, sys, time, threading, cProfile, pstats, io, statistics
os.environ.setdefault("CVGPU_ENGINE", "cuda")
import numpy as np, cv2, cupy as cp
import cvgpu
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import throughput  # noqa: E402
from cvgpu.bench.workloads import frame_edges, frame_mask
from cvgpu import _graphs
import cvgpu.hough.lines as hl

PH = ("camera", "coins", "page", "astronaut")
size = (640, 480)
edges = [frame_edges(p, size) for p in PH]
masks = [frame_mask(p, size, "otsu") for p in PH]

def tput(fn, frames, T, own=True, reps=3):
    return throughput(lambda s: fn, frames, T, reps=reps, own_stream=own)

def row(label, fn, frames, Ts=(1, 2, 4, 8), own=True):
    for f in frames[:4]: fn(f)
    out = [tput(fn, frames, T, own) for T in Ts]
    print("%-46s " % label + " ".join("T%d %8.0f" % (T, v) for T, v in zip(Ts, out)), flush=True)

HL = lambda img: cvgpu.HoughLines(img, 1, np.pi / 180, 150)
FC = lambda img: cvgpu.findContours(img, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)
CVHL = lambda img: cv2.HoughLines(img, 1, np.pi / 180, 150)
CVFC = lambda img: cv2.findContours(img, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)
fe = [edges[i % 4] for i in range(1024)]
fm = [masks[i % 4] for i in range(512)]
print("device", cp.cuda.runtime.getDeviceProperties(0)["name"], "cpus", os.cpu_count(), "py", sys.version.split()[0])

# GIL released during stream.synchronize?  spin kernel ~20 ms, count python iterations meanwhile
spin = cp.RawKernel(r'''extern "C" __global__ void spin(long long n){ long long t=clock64(); while(clock64()-t<n){} }''', "spin")
def gil_probe(waiter):
    stop = [False]; cnt = [0]
    def counter():
        while not stop[0]: cnt[0] += 1
    s = cp.cuda.Stream(non_blocking=True)
    spin((1,), (1,), (np.int64(40_000_000),), stream=s)
    t = threading.Thread(target=counter); t.start()
    t0 = time.perf_counter(); waiter(s); dt = time.perf_counter() - t0
    stop[0] = True; t.join()
    return dt, cnt[0]
spin((1,), (1,), (np.int64(1000),)); cp.cuda.Device().synchronize()
print("gil probe stream.synchronize: %.1f ms, counter %d" % tuple(x * (1e3 if i == 0 else 1) for i, x in enumerate(gil_probe(lambda s: s.synchronize()))))
ev = lambda s: (lambda e: (e.record(s), e.synchronize()))(cp.cuda.Event(disable_timing=True))
print("gil probe event.synchronize: %.1f ms, counter %d" % tuple(x * (1e3 if i == 0 else 1) for i, x in enumerate(gil_probe(ev))))

row("cv2 HoughLines", CVHL, fe[:256])
row("cv2 findContours", CVFC, fm[:256])
orig = hl.await_published
row("HoughLines current (own streams)", HL, fe)
row("HoughLines current (default stream)", HL, fe, own=False)
def w_sync(flag, unset, stream):
    if flag[0] != unset: return
    stream.synchronize()
hl.await_published = w_sync
row("HoughLines wait=stream.synchronize", HL, fe)
def w_sleep(flag, unset, stream):
    polls = 0
    while flag[0] == unset:
        polls += 1
        time.sleep(0)
        if polls & 4095 == 0 and stream.done:
            stream.synchronize(); return
hl.await_published = w_sleep
row("HoughLines wait=sleep(0) every poll", HL, fe)
hl.await_published = orig
sys.setswitchinterval(1e-4)
row("HoughLines current, switchinterval 0.1ms", HL, fe)
hl.await_published = w_sync
row("HoughLines sync, switchinterval 0.1ms", HL, fe)
hl.await_published = orig
sys.setswitchinterval(5e-3)
row("findContours current", FC, fm)
row("findContours current (default stream)", FC, fm, own=False)
sys.setswitchinterval(1e-4)
row("findContours switchinterval 0.1ms", FC, fm)
sys.setswitchinterval(5e-3)

# floors: pinned copy + H2D + tiny D2H + sync per frame
ws = threading.local()
def floor(img):
    st = getattr(ws, "st", None)
    if st is None:
        n = img.size
        pin = cp.cuda.alloc_pinned_memory(n); host = np.frombuffer(pin, np.uint8, n)
        dev = cp.empty(n, cp.uint8); pout = cp.cuda.alloc_pinned_memory(64)
        st = ws.st = (host, dev, pout)
    host, dev, pout = st
    np.copyto(host.reshape(img.shape), img)
    s = cp.cuda.get_current_stream()
    cp.cuda.runtime.memcpyAsync(dev.data.ptr, host.ctypes.data, img.size, 1, s.ptr)
    cp.cuda.runtime.memcpyAsync(pout.ptr, dev.data.ptr, 64, 2, s.ptr)
    s.synchronize()
row("floor: copyto pinned + H2D + D2H64 + sync", floor, fe)
def floor2(img):
    floor(img); time.sleep(0)
def npfloor(img):
    return np.count_nonzero(img)
row("floor: numpy count_nonzero", npfloor, fe)

# where one thread's time goes
for label, fn, frames in (("HoughLines", HL, fe[:400]), ("findContours", FC, fm[:200])):
    for f in frames[:8]: fn(f)
    pr = cProfile.Profile(); pr.enable()
    for f in frames: fn(f)
    pr.disable()
    s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(22)
    print("== profile", label, len(frames), "calls"); print(s.getvalue()[-5000:])
