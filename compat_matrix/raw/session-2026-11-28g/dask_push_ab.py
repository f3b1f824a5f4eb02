"""The A/B of e1e0e9b (cvgpu.dask pushes small rows with the task's end) on a local cluster; output:
dask-push-ab-cpu.txt."""
"""A/B on a local cluster: map_images with pushed rows against gathered ones (no-op items)."""
import statistics, sys, time
from distributed import Client
import cvgpu.dask as cd
from cvgpu.bench.dask_scaling import _spec, image_specs

def stamp(spec):
    return time.time()

def main():
    specs = image_specs(2000)
    orig = cd._subscribe_pushes
    nw = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    with cd.cpu_cluster(nw) as cluster, Client(cluster) as client:
        client.wait_for_workers(nw)
        times = {"push": [], "gather": []}
        for r in range(24):
            mode = ("push", "gather")[r % 2] if (r // 2) % 2 == 0 else ("gather", "push")[r % 2]
            cd._subscribe_pushes = orig if mode == "push" else (lambda c: None)
            w0 = time.time()
            res = cd.map_images(stamp, specs, client=client, read=_spec, progress=False, families=())
            w1 = time.time()
            last = max(x.value for x in res)
            if r >= 4:
                times[mode].append(((w1 - w0) * 1e3, (w1 - last) * 1e3))
        for m, v in times.items():
            print("%s: pass median %.1f ms (p25 %.1f), last item -> return median %.1f ms, n=%d" % (
                m, statistics.median(x[0] for x in v), sorted(x[0] for x in v)[len(v) // 4],
                statistics.median(x[1] for x in v), len(v)))

if __name__ == "__main__":
    main()
