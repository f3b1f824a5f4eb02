"""Can rank_jump_inplace (a cooperative launch) be captured into a CUDA graph on this stack, and does
the replay rank as the direct launch does? The risk issue 41's one-graph-a-shape design names
(HISTORY, "The host side of a camera-frame findContours call"). Prints what each step gave."""
import time

import cupy as cp
import numpy as np

from cvgpu.contours import _common

gpu = _common.current_gpu()
fn, resident = gpu.cooperative("ranking_block", "rank_jump_inplace", 1024)
print("resident blocks", resident)
rng = np.random.default_rng(1)
n = 160_000                       # ~ the walk states of a 640x480 mask
perm = rng.permutation(n)
succ = np.full(n, -1, np.int64)
succ[perm[:-1]] = perm[1:]        # one chain in a random order
rec_h = ((np.ones(n, np.int64) << 32) | (succ & 0xffffffff)).astype(np.uint64)
rounds = n.bit_length()


def buffers():
    return (cp.asarray(rec_h), cp.zeros(-(-n // 32), cp.uint32), cp.zeros(64, cp.uint32), cp.zeros(2, cp.uint32))


def launch(rec, open_, cnt, bar):
    fn((max(1, min(resident, -(-n // 1024))),), (1024,),
       (np.int32(n), np.int32(0), np.uint64(0), np.int32(rounds), rec, open_, cnt, bar))


direct = buffers()
launch(*direct)
cp.cuda.runtime.deviceSynchronize()
ref = direct[0].get()
print("direct: the head record's weight", int(ref[perm[0]] >> 32), "(n = %d)" % n)
s = cp.cuda.Stream(non_blocking=True)
cap = buffers()
try:
    with s:
        s.begin_capture()
        launch(*cap)
        g = s.end_capture()
    print("captured")
    for rep in range(3):
        cap[0].set(rec_h, stream=s)
        t = time.perf_counter()
        g.launch(s)
        s.synchronize()
        dt = (time.perf_counter() - t) * 1e6
        print("replay %d: %.1f us, equal to the direct launch: %s" % (rep, dt, bool((cap[0].get() == ref).all())))
except Exception as e:  # noqa: BLE001 (the probe reports whatever the stack says)
    print("capture failed:", type(e).__name__, e)
    try:
        s.end_capture()
    except Exception:  # noqa: BLE001
        pass
