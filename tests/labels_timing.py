"""Device timing of the label-image path (run by hand / by the coordinator on the GPU machine):
the bench rows of cvgpu.contours.labels_bench_rows plus the number of fixed-point rounds
(lab_events launches) per workload. Not a test."""
import json
import sys
import time

import cv2

from cvgpu import contours as cc


def main(quick=False, rounds_only=False):
    real = cc._fn
    count = {"lab_events": 0, "lab_min_jump": 0}

    def counting(name):
        fn = real(name)
        if name not in count:
            return fn

        def launch(*args):
            count[name] += 1
            return fn(*args)
        return launch

    cc._fn = counting
    for s in ((1,) if quick else (1, 4)):
        for noise in (0.0, 0.01):
            img = cc.labels_image(1028 * s, 1232 * s, seed=s, noise=noise)
            count["lab_events"] = 0
            count["lab_min_jump"] = 0
            cc.findContours(img, cv2.RETR_FLOODFILL, cv2.CHAIN_APPROX_SIMPLE)
            row = {"workload": "labels %dx%d noise %g" % (img.shape[1], img.shape[0], noise),
                   "regions": int(img.max()) + 1, "event_rounds": count["lab_events"],
                   "min_jump_rounds": count["lab_min_jump"]}
            cp = cc._backend.cupy_module()
            if cp is not None:
                d_img = cp.asarray(img)
                start, end = cp.cuda.Event(), cp.cuda.Event()
                t = []
                for _ in range(4):
                    start.record()
                    cc.findContoursPacked(d_img, cv2.RETR_FLOODFILL, cv2.CHAIN_APPROX_SIMPLE)
                    end.record()
                    end.synchronize()
                    t.append(cp.cuda.get_elapsed_time(start, end))
                row["packed_device_ms"] = sorted(t)[len(t) // 2]
            print(json.dumps(row), flush=True)
    cc._fn = real
    if rounds_only:
        return
    t0 = time.time()
    for row in cc.labels_bench_rows(quick=quick):
        print(json.dumps(row), flush=True)
    print("bench seconds", round(time.time() - t0, 1))


if __name__ == "__main__":
    main(quick="--quick" in sys.argv, rounds_only="--rounds-only" in sys.argv)
