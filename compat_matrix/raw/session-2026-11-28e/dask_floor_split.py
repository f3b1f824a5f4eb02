"""Where a no-op pass of cvgpu.dask.map_images goes (issue 45): 2,000 benchmark specs through a
function that only stamps the worker's clock, on gpu_cluster(n, workers_per_gpu=8, mps=True), with
the results fetched through the scheduler and directly. Per pass: ms until _submit_all starts, the
submission itself, each thread's first task (mean, max), the last task's end, and from it to
map_images' return. Not part of the package: a measurement for compat_matrix/HISTORY.md.

    PYTHONPATH=<site with dask>:. python3 compat_matrix/raw/session-2026-11-28e/dask_floor_split.py
"""
import os
import statistics
import threading
import time

from distributed import Client

import cvgpu.dask as cd
from cvgpu.bench.dask_scaling import _spec, image_specs


def stamp(spec):
    return time.time(), os.getpid(), threading.get_ident()


def main():
    specs = image_specs(2000)
    orig = cd._submit_all
    marks = {}

    def timed_submit(client, batches):
        marks["pre"] = time.time()
        futures = orig(client, batches)
        marks["post"] = time.time()
        return futures
    cd._submit_all = timed_submit
    for n in (1, 2):
        with cd.gpu_cluster(n, workers_per_gpu=8, mps=True, cpu_fallback=False) as cluster, Client(cluster) as client:
            client.wait_for_workers(8 * n)
            for way in (False, True):
                cd.GATHER_DIRECT = way
                rows = []
                for i in range(8):
                    w0 = time.time()
                    res = cd.map_images(stamp, specs, client=client, read=_spec, progress=False, families=())
                    w1 = time.time()
                    first, last = {}, 0.0
                    for r in res:
                        t, pid, tid = r.value
                        first[(pid, tid)] = min(first.get((pid, tid), 9e18), t)
                        last = max(last, t)
                    rows.append(((w1 - w0) * 1e3, (marks["pre"] - w0) * 1e3, (marks["post"] - marks["pre"]) * 1e3,
                                 (statistics.mean(first.values()) - w0) * 1e3, (max(first.values()) - w0) * 1e3,
                                 (last - w0) * 1e3, (w1 - last) * 1e3))
                rows = rows[2:]  # the first two: warm-up
                med = [statistics.median(c) for c in zip(*rows)]
                print("%d GPU 8x1 MPS gather %-6s median of %d passes: total %.1f | to submit %.1f | submit %.1f | "
                      "first task mean %.1f max %.1f | last task end %.1f | then to return %.1f ms"
                      % (n, "direct" if way else "sched", len(rows), *med), flush=True)
    cd.GATHER_DIRECT = None


if __name__ == "__main__":
    main()
