"""Local A/B of cvgpu.dask.map_images submitting its tasks in one client.map message (arm "onemsg",
the working tree) or one client.submit each (arm "submit", the tree before): 12 worker processes
of one thread, 2,000 items of 3 ms (time.sleep), median pass of 5 at 16, 32 and 64 items a task.
Run each arm in turn from the repository root: python dask_submit_ab.py ARM."""
import time, distributed, statistics, sys, json
from cvgpu import dask as cd
def f(x):
    t = time.time(); time.sleep(0.003); return t
if __name__ == "__main__":
    cl = distributed.LocalCluster(n_workers=12, threads_per_worker=1, processes=True, dashboard_address=None)
    c = distributed.Client(cl)
    items = list(range(2000))
    cd.map_images(f, items[:64], client=c, read=cd._identity, batch_size=8, progress=False, families=())
    out = {}
    for bs in (16, 32, 64):
        walls = []
        for rep in range(5):
            t = time.perf_counter()
            cd.map_images(f, items, client=c, read=cd._identity, batch_size=bs, progress=False, families=())
            walls.append(time.perf_counter() - t)
        out[bs] = round(statistics.median(walls) * 1e3)
    print(sys.argv[1], json.dumps(out))
    c.close(); cl.close()
