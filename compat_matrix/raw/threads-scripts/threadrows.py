import os, sys
sys.argv = ["x"]
from cvgpu.bench import threads
import cvgpu.bench.threads as T
rows = T.bench_threads(quick=False)
for r in rows:
    print("%-48s cv2 %8.0f fps  cvgpu %8.0f fps (default stream %8.0f)" % (r["workload"], r["cv2_fps"], r.get("cvgpu_fps") or 0, r.get("cvgpu_fps_default_stream") or 0), flush=True)
