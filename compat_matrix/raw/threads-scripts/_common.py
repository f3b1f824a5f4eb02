"""The measurement every thread script here shares: the items split round-robin over T threads, each
on a stream of its own (or the default stream), started together at a barrier after ``warm`` items
each; frames per second from the barrier to the last join, the median of ``reps`` runs."""
import statistics
import threading
import time

import cupy as cp


def throughput(make_fn, items, threads, reps=5, warm=0, own_stream=True):
    """``make_fn(stream)`` gives the per-item function of one thread (called on its stream)."""
    out = []
    for _ in range(reps):
        barrier, errors = threading.Barrier(threads + 1), []

        def work(part):
            try:
                stream = cp.cuda.Stream(non_blocking=True) if own_stream else cp.cuda.get_current_stream()
                with stream:
                    fn = make_fn(stream)
                    for x in part[:warm]:
                        fn(x)
                    barrier.wait()
                    for x in part:
                        fn(x)
            except BaseException as exc:  # reported after the join
                errors.append(exc)
                barrier.abort()
        pool = [threading.Thread(target=work, args=(items[i::threads],)) for i in range(threads)]
        for t in pool:
            t.start()
        barrier.wait()
        t0 = time.perf_counter()
        for t in pool:
            t.join()
        seconds = time.perf_counter() - t0
        if errors:
            raise errors[0]
        out.append(len(items) / seconds)
    return statistics.median(out)
