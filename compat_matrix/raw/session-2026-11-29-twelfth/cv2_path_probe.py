"""Why document_scanner's findContours calls took 2.62 ms under `cvgpu compare`'s cvgpu run against
1.92 under its cv2 run, cv2 computing both (call 5). One process per arm, the scanner's own 24 edge
maps (examples/document_scanner.py: photos, find_page's blur, Canny and dilation), each arm timing
findContours (RETR_LIST, SIMPLE) over them 5 times, median ms a call, and the cyclic GC's collections
and time during the timed calls:

    python3 cv2_path_probe.py ARM      ARM: cv2 (no cvgpu), cv2+import (cv2's call after import
                                       cvgpu), cvgpu (cvgpu.findContours, engine auto: cv2 computes),
                                       cvgpu-gcfreeze (the same after gc.freeze())
"""
import gc, json, os, statistics, sys, time
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "examples"))
arm = sys.argv[1]
import cv2
import numpy as np
if arm != "cv2":
    import cvgpu
import document_scanner as ds

edges = []
for photo, _ in ds.photos(24, False):
    gray = cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY)
    e = cv2.Canny(cv2.GaussianBlur(gray, (5, 5), 0), 75, 200)
    edges.append(cv2.dilate(e, np.ones((3, 3), np.uint8)))
fn = cvgpu.findContours if arm.startswith("cvgpu") else cv2.findContours
if arm == "cvgpu-gcfreeze":
    gc.freeze()
gc_ms, gc_n = [0.0], [0]
start = [0.0]


def cb(phase, info):
    if phase == "start":
        start[0] = time.perf_counter()
    else:
        gc_ms[0] += (time.perf_counter() - start[0]) * 1e3
        gc_n[0] += 1


times = []
kept = []
gc.callbacks.append(cb)
for r in range(5):
    for e in edges:
        t0 = time.perf_counter()
        out = fn(e, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        times.append((time.perf_counter() - t0) * 1e3)
        kept.append(out)   # (the script keeps each result a while: its loop variable)
        if len(kept) > 2:
            kept.pop(0)
gc.callbacks.remove(cb)
engine = cvgpu.last_call_backend() if arm.startswith("cvgpu") else "cv2"
print(json.dumps({"arm": arm, "median_ms": statistics.median(times), "mean_ms": statistics.mean(times),
                  "gc_collections": gc_n[0], "gc_ms": gc_ms[0], "engine": engine,
                  "contours": len(out[0]), "gc_tracked": len(gc.get_objects())}), flush=True)
