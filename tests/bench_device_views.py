"""Timing study (not a test): ways to build cv2's tuple of per-contour arrays as CuPy views of one
device array, for findContoursLinkRuns / findContours device io. Run on a GPU machine:
python3 tests/bench_device_views.py

H100 host, 8,388 contours (noisy 1232x1028): numpy slices 2.8 ms, CuPy slices 27.4, CuPy
ndarray(memptr) 17.9, CuPy grouped iteration 27.7 (so findContoursLinkRuns' device path
constructs)."""
import time

import cupy as cp
import numpy as np

from cvgpu import contours as cc


def best(fn, reps=5):
    fn()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(ts))


def main():
    for s, noise in ((1, 0.01), (4, 0.01)):
        img = cc.blobs_image(1028 * s, 1232 * s, seed=s, noise=noise)
        pts, off, hier = cc.pack(*__import__("cv2").findContoursLinkRuns(img))
        m = len(off) - 1
        d_pts = cp.asarray(pts)
        p3 = d_pts.reshape(-1, 1, 2)
        bounds = off.tolist()
        lengths = np.diff(off)

        def sliced():
            return tuple([p3[a:b] for a, b in zip(bounds[:-1], bounds[1:])])

        base = d_pts.data
        nbytes = [8 * a for a in bounds[:-1]]
        lens = lengths.tolist()

        def constructed():
            return tuple([cp.ndarray((n, 1, 2), cp.int32, base + o) for n, o in zip(lens, nbytes)])

        order = np.argsort(lengths, kind="stable")
        glen = lengths[order]
        cut = np.flatnonzero(glen[1:] != glen[:-1]) + 1
        gb = np.concatenate(([0], cut, [m]))
        gstart = np.zeros(m + 1, np.int64)
        np.cumsum(glen, out=gstart[1:])

        def grouped_iter():
            objs = np.empty(m, dtype=object)
            for a, b in zip(gb[:-1].tolist(), gb[1:].tolist()):
                L = int(glen[a])
                blk = d_pts[int(gstart[a]):int(gstart[b])].reshape(b - a, L, 1, 2)
                objs[order[a:b]] = np.fromiter(iter(blk), dtype=object, count=b - a)
            return tuple(objs.tolist())

        h_p3 = pts.reshape(-1, 1, 2)
        print("m=%d" % m)
        for name, fn in (("numpy slices", lambda: tuple([h_p3[a:b] for a, b in zip(bounds[:-1], bounds[1:])])),
                         ("cupy slices", sliced), ("cupy ndarray(memptr)", constructed),
                         ("cupy grouped iter", grouped_iter)):
            print("  %-22s %8.2f ms" % (name, best(fn)))
        r = constructed()
        assert all(np.array_equal(a.get(), b.get()) for a, b in zip(r[:50], sliced()[:50]))


if __name__ == "__main__":
    main()
