"""A/B of the engine's GPU start threshold (``_engine.TUNING.start_after_ms``) on the examples.

Each run is a fresh process timed whole: cv2 as cv2, or cvgpu as cv2 (its families imported first,
then ``sys.modules["cv2"]`` aliased, as ``cvgpu compare`` does, without compare's recording) with the
threshold set to T ms. Settings alternate order each round. Prints one line per run (the engine's
start-up state at exit, after its exit join; the accelerable cv2 time; calls per engine) and the
medians. On the device, from the repository root, cvgpu installed (pip install -e .), with the contrib
wheel on PYTHONPATH for ct_sinogram (compat_matrix/run_device.sh shows how):

    python3 compat_matrix/engine_start_ab.py examples/photo_lines.py,examples/video_lines.py cv2,300,600 3

A script's arguments follow it, colon-separated (``examples/detect_lines.py:--pages:20``).
Not part of the package: a measurement for compat_matrix/HISTORY.md.
"""
import json, os, subprocess, sys, time, statistics

CHILD = r'''
import sys, time, json, atexit, runpy
mode, script = sys.argv[1], sys.argv[2]
sys.argv = [script] + sys.argv[3:]
if mode != "cv2":
    import cvgpu, importlib, pkgutil
    for info in pkgutil.walk_packages(cvgpu.__path__, "cvgpu."):
        if info.name.split(".")[1] in ("hough", "contours", "ximgproc", "cuda", "lms", "_engine", "_backend"):
            try:
                importlib.import_module(info.name)
            except Exception:
                pass
    from cvgpu import _engine
    # For the whole process: the context manager is kept (dropped, its generator's close would
    # restore the value at once, as happened in the run of 3cae902: HISTORY).
    _threshold = _engine.TUNING.override(start_after_ms=float(mode))
    _threshold.__enter__()
    sys.modules["cv2"] = cvgpu
    t0 = time.perf_counter()
    def report():
        snap = _engine.model_snapshot()
        n = {"cv2": sum(v["cv2_n"] for v in snap.values()), "cuda": sum(v["gpu_n"] for v in snap.values())}
        st = _engine._startup
        sys.stderr.write("AB " + json.dumps({"threshold_ms": _engine.TUNING.start_after_ms,
                         "state": st.state, "startup_s": st.seconds,
                         "acc_cv2_ms": round(_engine._accelerable_cv2_ms[0], 1), "calls": n}) + "\n")
    atexit.register(report)
runpy.run_path(script, run_name="__main__")
'''
scripts = [s.split(":") for s in sys.argv[1].split(",")]
modes = sys.argv[2].split(",")
reps = int(sys.argv[3])
res = {}
for r in range(reps):
    for spec in scripts:
        script, args = spec[0], spec[1:]
        for m in (modes if r % 2 == 0 else modes[::-1]):
            t0 = time.perf_counter()
            p = subprocess.run([sys.executable, "-c", CHILD, m, script] + args, capture_output=True, text=True)
            wall = time.perf_counter() - t0
            info = next((l[3:] for l in p.stderr.splitlines() if l.startswith("AB ")), "{}")
            res.setdefault((script, m), []).append(wall)
            print("%-28s %-5s rc=%d wall=%.3f %s" % (os.path.basename(script), m, p.returncode, wall, info), flush=True)
            if p.returncode:
                print(p.stderr[-2000:])
print("\nmedian wall (s), speedup vs cv2")
for spec in scripts:
    script = spec[0]
    base = statistics.median(res[(script, "cv2")])
    cells = ["%s %.2f" % (m, statistics.median(res[(script, m)])) + ("" if m == "cv2" else " (%.2fx)" % (base / statistics.median(res[(script, m)]))) for m in modes]
    print("%-24s " % os.path.basename(script) + "  ".join(cells))
