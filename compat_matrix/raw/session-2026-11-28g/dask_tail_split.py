"""Where the tail of a no-op cvgpu.dask.map_images pass goes (issue 45), on a local cluster:
the last task's compute stop (task stream), the scheduler's memory transition, the client's batch
of completions, its gather. Output on the 2-core CPU machine (2 workers, medians of 6 passes):
"total 147.4 | task stop -> scheduler memory -0.1 | -> client batch 5.0 | gather 8.4 | then return 0.4"."""
import os, statistics, threading, time, sys
from distributed import Client, get_task_stream
import cvgpu.dask as cd
from cvgpu.bench.dask_scaling import _spec, image_specs

def stamp(spec):
    return time.time()

def main():
    specs = image_specs(2000)
    orig_completed = cd._completed
    marks = {}
    def timed_completed(client, running, direct=False):
        marks["batches"] = []
        for done in running.batches():
            tb = time.time()
            finished = [f for f in done if f.status == "finished"]
            values = dict(zip(finished, client.gather(finished, direct=direct)))
            marks["batches"].append((tb, time.time(), [f.key for f in done]))
            for f in done:
                yield f, values.get(f, cd._NOT_FETCHED)
    cd._completed = timed_completed
    nw = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    with cd.cpu_cluster(nw) as cluster, Client(cluster) as client:
        client.wait_for_workers(nw)
        rows = []
        for i in range(8):
            with get_task_stream(client) as ts:
                w0 = time.time()
                res = cd.map_images(stamp, specs, client=client, read=_spec, progress=False, families=())
                w1 = time.time()
            stops = {}
            for t in ts.data:
                for ss in t["startstops"]:
                    if ss["action"] == "compute":
                        stops[t["key"]] = ss["stop"]
            def tlog(dask_scheduler):
                out = {}
                for rec in list(dask_scheduler.transition_log)[-400:]:
                    key, start, finish = rec[0], rec[1], rec[2]
                    if finish == "memory":
                        out[str(key)] = rec[-1]
                return out
            mem = client.run_on_scheduler(tlog)
            last_b = marks["batches"][-1]
            lastkey = max(last_b[2], key=lambda k: stops.get(k, 0))
            st = stops[lastkey]; sm = mem.get(str(lastkey), float("nan"))
            rows.append(((w1 - w0) * 1e3, (sm - st) * 1e3, (last_b[0] - sm) * 1e3, (last_b[1] - last_b[0]) * 1e3, (w1 - last_b[1]) * 1e3))
        rows = rows[2:]
        med = [statistics.median(c) for c in zip(*rows)]
        print("%d workers: total %.1f | task stop -> scheduler memory %.1f | -> client batch %.1f | gather %.1f | then return %.1f" % (nw, *med))

if __name__ == "__main__":
    main()
