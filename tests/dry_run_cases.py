"""Dry run of the device profile's case generators, without a GPU: what the compat rows will hold.

For each GPU property that feeds a compat row the README calls exact, draws examples from its
strategy the way hypothesis does in a test (generation phase, health checks on), builds the case as
the test does, calls cv2 (the reference) on it and counts: cases whose reference answer is non-empty
("non-trivial"), cases whose long side exceeds 256 pixels, distinct inputs (the recorder's digest),
and the CPU time of building the case and of cv2's calls. Per row, from the properties' device
example counts (conftest.examples), the expected cases, non-trivial cases and share above 256 px,
and an estimate of the file's device time:

    PYTHONPATH=$PWD python tests/dry_run_cases.py [--n 300] [--device-speedup 2.5] [--call-ms 6]
                                                  [--workers FILE=N,...] [row-prefix ...]

The estimate of a case's device worker time is this machine's CPU time for it (building the case,
cv2's calls, the model's where a model is the reference) divided by ``--device-speedup`` (a device
core against one of this machine's), plus ``--call-ms`` for each cvgpu call the test makes (its
numpy in and out, plan building, the comparison, hypothesis and the recorder: 6 ms a call is what
the previous device run of tests/hough took beyond cv2, 249 s on 6 workers for 170,000 calls). A
file's time is its properties' worker time over the workers of its pytest (run_device.sh's TESTS);
the tests that are no properties of a row come on top.
"""
import argparse
import collections
import os
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
for sub in ("", "models", "hough", "contours", "ximgproc", "cuda"):
    sys.path.insert(0, os.path.join(HERE, sub))
os.environ.setdefault("HYPOTHESIS_PROFILE", "device")

import cv2  # noqa: E402
import numpy as np  # noqa: E402
from hypothesis import Phase, given, settings  # noqa: E402

import conftest  # noqa: E402,F401  (profiles, tests/models on sys.path)
from conftest import _input_facts, _trivial  # noqa: E402

warnings.simplefilter("ignore")


class Probe:
    """One property: a strategy, how the test builds a case from a drawn value and what cv2 returns
    (a list of (reference result, inputs) pairs, one per compat row it feeds)."""

    def __init__(self, row, name, strategy, run, device_examples, file):
        self.row, self.name, self.strategy, self.run = row, name, strategy, run
        self.device_examples, self.file = device_examples, file


def probes():
    out = []
    out += hough_probes()
    out += contours_probes()
    out += radon_probes()
    out += detector_probes()
    return out


def detector_probes():
    import test_cuda_hough as t
    from cuda_hough_model import model_detect

    def run(c):
        img, params = t.build_detector_case(c)
        return [(model_detect(img, *params), (img,) + params)]
    return [Probe("cuda.HoughLinesDetector standard (model)", "property_equals_model", t.detector_cases(), run,
                  _examples_of(t.test_property_equals_model), "tests/cuda")]


# ---------------------------------------------------------------- HoughLines

def hough_probes():
    import test_hough_lines as t
    from hough_cases import build, call, cases, inputs

    def both(c):
        img, c = build(c)
        return [(call(cv2, fn, img, c), inputs(img, c)) for fn in ("HoughLines", "HoughLinesWithAccumulator")]

    def edgeval(c):
        return both(dict(c, use_edgeval=True))

    def acc(c):
        img, c = build(c)
        return [(call(cv2, "HoughLinesWithAccumulator", img, c), inputs(img, c))]

    f = "tests/hough"
    n = _examples_of
    return [
        Probe("HoughLines standard", "noise_and_extremes", cases(families=("noise", "empty", "full")), both,
              n(t.test_gpu_noise_and_extremes), f),
        Probe("HoughLines standard", "drawn_lines_and_shapes", cases(families=("lines", "shapes")), both,
              n(t.test_gpu_drawn_lines_and_shapes), f),
        Probe("HoughLines standard", "photo_edges_and_segments", cases(families=("photo", "photo", "segments")),
              both, n(t.test_gpu_photo_edges_and_segments), f),
        Probe("HoughLines standard", "tiny_images", cases(max_side=16), both, n(t.test_gpu_tiny_images), f),
        Probe("HoughLines use_edgeval", "use_edgeval",
              cases(families=("photo", "photo", "lines", "shapes", "segments", "noise", "full")), edgeval,
              n(t.test_gpu_use_edgeval), f),
        Probe("HoughLinesWithAccumulator vote-shared/global (each)", "both_voting_variants",
              cases(families=t.VOTE_FAMILIES, max_side=1024), acc, n(t.test_gpu_both_voting_variants), f),
        Probe("HoughLinesWithAccumulator vote-grid (5 grids)", "forced_voting_grids",
              cases(families=t.VOTE_FAMILIES, max_side=1024), acc, 5 * n(t.test_gpu_forced_voting_grids), f),
    ]


FIND_CONTOURS = "tests/contours/test_find_contours.py"
LABELS = "tests/contours/test_find_contours_labels.py"
LINKRUNS = "tests/contours/test_find_contours_linkruns.py"


def contours_probes():
    import test_find_contours as t
    import test_find_contours_labels as tl
    import test_find_contours_linkruns as tr
    from hypothesis import strategies as st

    probes = []
    for mode_name, mode in t.MODES.items():
        for method_name, method in t.METHODS.items():
            def run(value, mode=mode, method=method):
                case, offset = value
                img = case.build()
                kw = {} if offset is None else {"offset": offset}
                ref = cv2.findContours(img, mode, method, **kw)
                t.signature(ref)  # (the test builds it twice: ours and cv2's)
                return [(ref, (img, mode, method, offset))]
            probes.append(Probe("findContours %s/%s" % (mode_name, method_name), "matches_cv2",
                                st.tuples(t.images(), t.offsets), run, _examples_of(t.test_matches_cv2),
                                FIND_CONTOURS))
    for mode_name, mode in tl.MODES.items():
        for method_name, method in t.METHODS.items():
            def run(case, mode=mode, method=method):
                img, offset = case.build()
                if img.size <= 64 * 64 and not tl.defined(img, offset or (0, 0)):
                    return [(None, ("undefined",))]
                kw = {} if offset is None else {"offset": offset}
                ref = cv2.findContours(img, mode, method, **kw)
                t.signature(ref)
                return [(ref, (img, mode, method, offset))]
            probes.append(Probe("findContours labels-%s-%s" % (mode_name, method_name), "labels matches_cv2",
                                tl.label_cases(), run, _examples_of(tl.test_matches_cv2),
                                LABELS))
    for signed in (False, True):
        def run(case, signed=signed):
            img = case.build()
            img = img.view(np.int8) if signed else img
            ref = cv2.findContoursLinkRuns(img)
            t.signature(ref)
            return [(ref, (img, "host"))]
        probes.append(Probe("findContoursLinkRuns %s" % ("CV_8SC1" if signed else "CV_8UC1"), "linkruns matches_cv2",
                            t.images(), run, _examples_of(tr.test_matches_cv2), LINKRUNS))

    def device(value):
        case, view = value
        views = [lambda a: a, lambda a: a[::2, ::3], lambda a: a[:, :, None], lambda a: a.view(np.int8),
                 lambda a: a[::-1]]
        img = views[view](case.build())
        ref = cv2.findContoursLinkRuns(img)
        t.signature(ref)
        return [(ref, (img, "device"))]
    probes.append(Probe("findContoursLinkRuns device input", "linkruns device_input",
                        st.tuples(t.images(), st.integers(0, 4)), device,
                        _examples_of(tr.test_device_input_matches_cv2), LINKRUNS))
    return probes


def radon_probes():
    if not hasattr(cv2, "ximgproc"):
        return []
    import test_radon as t

    def run(case):
        img, kw = case
        return [(t.cv2_radon(img, **kw), (img, "host") + tuple(sorted(kw.items())))]

    f = "tests/ximgproc"
    n = _examples_of
    return [
        Probe("RadonTransform uint8", "uint8", t.radon_case(dtypes=(np.uint8,), crop=False, norm=False), run,
              n(t.test_gpu_uint8), f),
        Probe("RadonTransform uint8", "uint8_plain_kernel_and_cutover", t.radon_case(dtypes=(np.uint8,), max_side=40),
              run, n(t.test_gpu_uint8_plain_kernel_and_cutover), f),
        Probe("RadonTransform float32", "float32", t.radon_case(dtypes=(np.float32,), crop=False, norm=False), run,
              n(t.test_gpu_float32), f),
        Probe("RadonTransform float64", "float64", t.radon_case(dtypes=(np.float64,), crop=False, norm=False), run,
              n(t.test_gpu_float64), f),
        Probe("RadonTransform crop", "crop", t.radon_case(crop=True, norm=False), run, n(t.test_gpu_crop), f),
        Probe("RadonTransform norm", "norm", t.radon_case(norm=True), run, n(t.test_gpu_norm), f),
        Probe("RadonTransform cupy-io", "device_io", t.radon_case(max_side=24, max_angles=60), run,
              n(t.test_gpu_device_io), f),
    ]


def _examples_of(test):
    return test._hypothesis_internal_use_settings.max_examples


# ---------------------------------------------------------------- the run

def measure(probe, n):
    stats = collections.Counter()
    digests, sides = set(), []

    @settings(max_examples=n, database=None, phases=[Phase.generate], deadline=None)
    @given(probe.strategy)
    def draw(value):
        t0 = time.process_time()
        pairs = probe.run(value)
        stats["cpu"] += time.process_time() - t0
        stats["cases"] += 1
        stats["calls"] += len(pairs)
        result, inputs = pairs[0]
        digest, side = _input_facts(inputs)
        digests.add(digest)
        sides.append(side or 0)
        stats["nontrivial"] += not _trivial(result)

    draw()
    stats["distinct"] = len(digests)
    stats["big"] = sum(s > 256 for s in sides)
    stats["side_max"] = max(sides) if sides else 0
    return stats


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=300, help="examples drawn per property")
    ap.add_argument("--device-speedup", type=float, default=2.5)
    ap.add_argument("--call-ms", type=float, default=6.0, help="device time of a cvgpu call beyond cv2's (ms)")
    ap.add_argument("--workers", default="tests/hough=6,tests/cuda=2,tests/ximgproc=3,%s=8,%s=8,%s=8"
                    % (FIND_CONTOURS, LABELS, LINKRUNS))
    ap.add_argument("rows", nargs="*")
    a = ap.parse_args(argv)
    workers = dict((k, int(v)) for k, v in (kv.split("=") for kv in a.workers.split(",")))
    rows = collections.defaultdict(lambda: collections.Counter())
    files = collections.Counter()
    print("%-52s %-28s %6s %6s %6s %6s %7s %9s" % ("row", "property", "drawn", "nontr", ">256", "dist",
                                                  "dev ms", "device n"))
    for p in probes():
        if a.rows and not any(p.row.startswith(r) for r in a.rows):
            continue
        s = measure(p, a.n)
        k = s["cases"]
        ms = 1e3 * s["cpu"] / k / a.device_speedup + a.call_ms * s["calls"] / k
        print("%-52s %-28s %6d %5.0f%% %5.0f%% %6d %7.2f %9d" % (p.row, p.name, k, 100 * s["nontrivial"] / k,
                                                               100 * s["big"] / k, s["distinct"], ms,
                                                               p.device_examples))
        r = rows[p.row]
        r["cases"] += p.device_examples
        r["nontrivial"] += p.device_examples * s["nontrivial"] / k
        r["big"] += p.device_examples * s["big"] / k
        files[p.file] += p.device_examples * ms / 1e3
    print()
    print("%-52s %9s %12s %7s" % ("row (device profile, expected)", "cases", "non-trivial", ">256"))
    for name, r in rows.items():
        print("%-52s %9d %12d %6.0f%%" % (name, r["cases"], r["nontrivial"], 100 * r["big"] / r["cases"]))
    print()
    for f, worker_s in files.items():
        w = workers.get(f, 1)
        print("%s: these properties ~%.0f s of device worker time: ~%.0f s with %d workers"
              % (f, worker_s, worker_s / w, w))


if __name__ == "__main__":
    main()
