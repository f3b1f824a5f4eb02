"""A/B of how map_images submits a dask array's chunks (CPU machine): one client.compute of the
array's own blocks (cvgpu.dask._submit_all) against one compute a chunk (each batch.submit(), the
earlier way), arms alternating pass by pass on one LocalCluster, 2,000 frames of 32x32 and a function
that reads one pixel. Prints each arm's median and best pass per chunk size.

    PYTHONPATH=. python3 compat_matrix/raw/session-2026-11-28e/frames_submit_ab.py [workers] [rounds]
"""
import statistics
import sys
import time

import dask.array as da
import numpy as np
from distributed import Client, LocalCluster

import cvgpu.dask as cd


def first_pixel(img):
    return int(img[0, 0])


def main():
    workers = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    one_message = cd._submit_all

    def one_each(client, batches):
        return [batch.submit() for batch in batches]
    arr = (np.arange(2000 * 32 * 32) % 251).astype(np.uint8).reshape(2000, 32, 32)
    want = [int(a[0, 0]) for a in arr]
    with LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=None) as c, Client(c) as cl:
        for chunk in (16, 64):
            frames = da.from_array(arr, chunks=(chunk, 32, 32))
            times = {"one compute": [], "a compute a chunk": []}
            arms = [("one compute", one_message), ("a compute a chunk", one_each)]
            for r in range(rounds + 1):
                for name, submit in (arms if r % 2 else arms[::-1]):
                    cd._submit_all = submit
                    t = time.perf_counter()
                    res = cd.map_images(first_pixel, frames, client=cl, progress=False, families=())
                    dt = time.perf_counter() - t
                    assert [x.value for x in res] == want
                    if r:  # round 0: warm-up
                        times[name].append(dt * 1e3)
            cd._submit_all = one_message
            print("chunk %d (%d tasks, %d workers): %s" % (chunk, -(-2000 // chunk), workers, "; ".join(
                "%s median %.0f ms, best %.0f" % (k, statistics.median(v), min(v)) for k, v in times.items())),
                flush=True)


if __name__ == "__main__":
    main()
