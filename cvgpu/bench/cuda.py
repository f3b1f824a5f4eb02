"""Benchmark rows of cvgpu.cuda.createHoughLinesDetector beside OpenCV-CUDA's own kernels.

Workload (as in the spec issue): square images of horizontal 1-px segments (512 px long, so each
segment gives one line at theta = pi/2 above threshold 400), rho 1, theta pi/180, threshold 400.
cvgpu_ms: CUDA events around detect + downloadResults on a device-resident GpuMat, after warm-up,
median per call (_timing.time_device: calls in back-to-back batches). cv2_ms:
cv2.HoughLines (CPU) on the same image in the same run, median.
reference_ms: OpenCV-CUDA's detector, timed in the same job through bench/ocv.py when its harness is
built (reference_kind "side-by-side"), else the figures recorded in the spec issue ("recorded").
"""
import math

import cv2
import numpy as np

from .. import _backend
from . import ocv
from ._timing import time_device, time_host, timing_row
from .workloads import FRAME_PHOTOS, FRAMES, frame_edges

# (image side, edge points) -> OpenCV-CUDA milliseconds
REFERENCE_MS = {
    (1024, 10240): 0.069, (1024, 20480): 0.073, (1024, 40960): 0.070, (1024, 81920): 0.076,
    (1024, 163840): 0.093,
    (512, 81920): 0.077, (2048, 81920): 0.102, (4096, 81920): 0.205, (8192, 81920): 0.282,
}
RHO, THETA, THRESHOLD = 1.0, math.pi / 180, 400
SEGMENT = 512


def segments_image(side, points, seed=0):
    """side x side uint8 image with `points` edge pixels in horizontal 1-px segments of SEGMENT px
    (shorter only for the last), on distinct, evenly spread rows."""
    rng = np.random.default_rng(seed)
    img = np.zeros((side, side), np.uint8)
    seg = min(SEGMENT, side)
    nseg = -(-points // seg)
    if nseg > side:
        raise ValueError("too many points for %d rows" % side)
    rows = np.linspace(0, side - 1, nseg).astype(np.int64)
    left = points
    for y in rows:
        length = min(seg, left)
        x0 = int(rng.integers(0, side - length + 1))
        img[y, x0:x0 + length] = 255
        left -= length
    return img


def _threshold_for(det_factory, d_img, lo_lines=10, hi_lines=2000):
    """A threshold at which the detector finds between lo_lines and hi_lines lines (bisection over the
    detector's own counts; the photographs' rows ask for 10-2,000 lines)."""
    lo, hi = 1, 4096
    best = None
    while lo <= hi:
        mid = (lo + hi) // 2
        det = det_factory(mid)
        _, votes = det.downloadResults(det.detect(d_img))
        n = 0 if votes is None else votes.shape[1]
        if n > hi_lines:
            lo = mid + 1
        elif n < lo_lines:
            hi = mid - 1
        else:
            best = mid
            if n > (lo_lines + hi_lines) // 4:
                lo = mid + 1
            else:
                break
    return best


def _threshold_for_many(det_factory, d_img, cap=2000):
    """The lowest threshold at which the detector finds at most ``cap`` lines (the top of the
    10-2,000 lines the photographs' rows ask for), or None."""
    lo, hi, best = 1, 4096, None
    while lo <= hi:
        mid = (lo + hi) // 2
        det = det_factory(mid)
        _, votes = det.downloadResults(det.detect(d_img))
        if (0 if votes is None else votes.shape[1]) <= cap:
            best, hi = mid, mid - 1
        else:
            lo = mid + 1
    return best


def _workloads(quick):
    """(name, image, threshold or None, doSort, maxLines, points label) of the detector rows: the
    seed rows (horizontal segments), then Canny edges of photographs at camera-frame sizes, then the
    truncated (maxLines reached) and sorted settings on one frame per size."""
    out = []
    sizes = list(REFERENCE_MS)[:2] if quick else list(REFERENCE_MS)
    for side, points in sizes:
        out.append(("%dx%d horizontal segments, %d pts" % (side, side, points), lambda s=side, p=points:
                    segments_image(s, p), THRESHOLD, False, 4096, (side, points)))
    photos = FRAME_PHOTOS[:2] if quick else FRAME_PHOTOS
    frames = FRAMES[:1] if quick else FRAMES
    for w, h in frames:
        for name in photos:
            out.append(("photo %s %dx%d Canny" % (name, w, h), lambda n=name, s=(w, h): frame_edges(n, s),
                        None, False, 4096, None))
        out.append(("photo %s %dx%d Canny, maxLines 64" % (photos[0], w, h),
                    lambda n=photos[0], s=(w, h): frame_edges(n, s), None, False, 64, None))
        out.append(("photo %s %dx%d Canny, doSort" % (photos[0], w, h),
                    lambda n=photos[0], s=(w, h): frame_edges(n, s), None, True, 4096, None))
        # The other rows' thresholds keep at most ~500 lines; this one up to 2,000.
        out.append(("photo %s %dx%d Canny, up to 2,000 lines" % (photos[0], w, h),
                    lambda n=photos[0], s=(w, h): frame_edges(n, s), "many", False, 4096, None))
    return out


def bench_cuda_hough(quick=False, progress=None):
    """cvgpu.cuda.HoughLinesDetector (detect + downloadResults on a device-resident GpuMat, CUDA
    events) beside OpenCV-CUDA's own kernels timed in the same job (ocv.py; recorded figures where
    the harness is not built), on the seed rows and on photographs' edge maps."""
    cp = _backend.cupy_module()
    if cp is None:
        return []
    from ..cuda import GpuMat, createHoughLinesDetector
    harness = ocv.find_harness()
    work = _workloads(quick)
    progress = progress or (lambda label: None)
    if hasattr(progress, "expect"):
        progress.expect(len(work))
    rows = []
    for name, build, threshold, do_sort, max_lines, seed_key in work:
        img = build()
        if img is None:
            progress("cuda: %s (scikit-image missing)" % name)
            continue
        progress("cuda: " + name)
        d_img = GpuMat(img)
        if threshold in (None, "many"):
            search = _threshold_for if threshold is None else _threshold_for_many
            threshold = search(lambda t: createHoughLinesDetector(RHO, THETA, t, do_sort, 4096), d_img)
            if threshold is None:
                continue
        det = createHoughLinesDetector(RHO, THETA, threshold, do_sort, max_lines)
        reps = 50 if quick else 200
        ref_before = ocv.run(harness, img, RHO, THETA, threshold, do_sort, max_lines, reps) if harness else None
        t = time_device(cp, lambda: det.downloadResults(det.detect(d_img)), reps, warmup=20)
        t_one = time_device(cp, lambda: det.downloadResults(det.detect(d_img)), 50, warmup=0, batch=1)
        ref_after = ocv.run(harness, img, RHO, THETA, threshold, do_sort, max_lines, reps) if harness else None
        lines = det.downloadResults(det.detect(d_img))[1]
        cv2_t = time_host(lambda: cv2.HoughLines(img, RHO, THETA, threshold), 3 if img.size > 4e6 else 7,
                          warmup=0)
        base = dict(family="cuda", function="cuda.HoughLinesDetector", workload=name,
                    points=int(np.count_nonzero(img)), width=int(img.shape[1]), height=int(img.shape[0]),
                    threshold=int(threshold), do_sort=bool(do_sort), max_lines=int(max_lines),
                    lines=0 if lines is None else int(lines.shape[1]))
        if ref_before is not None:
            base.update(reference_ms=min(ref_before[0], ref_after[0]), reference_kind="side-by-side",
                        reference_spread_ms=abs(ref_before[0] - ref_after[0]), reference_lines=ref_before[1])
        elif seed_key is not None:
            base.update(reference_ms=REFERENCE_MS.get(seed_key), reference_kind="recorded")
        row = timing_row(base, cv2_t, t, "device", None, single_call_ms=t_one["median"])
        if row.get("reference_ms"):
            row["vs_reference"] = row["reference_ms"] / row["cvgpu_ms"]
        rows.append(row)
        if seed_key is None and not do_sort and max_lines == 4096:
            # (With the "up to 2,000 lines" rows: HoughLines' ordering of over 1,024 lines.)
            rows += _hough_lines_rows(cp, img, name, int(threshold), cv2_t, row)
    return rows


def _hough_lines_rows(cp, img, name, threshold, cv2_t, detector_row):
    """cvgpu.HoughLines (cv2's semantics) on a photograph row's edge map at the detector row's
    threshold, numpy and device io, with the detector's time beside it (``detector_ms``): the two
    share the voting design, so HoughLines' device time should not exceed the detector's. HoughLines
    orders its lines by votes, as the detector does with doSort (``detector_sorted_ms``, timed here
    on the same device image)."""
    import cvgpu
    from ..cuda import GpuMat, createHoughLinesDetector
    from ._timing import same
    ref = cv2.HoughLines(img, RHO, THETA, threshold)
    sorted_det = createHoughLinesDetector(RHO, THETA, threshold, True, 4096)
    g_img = GpuMat(img)
    t_sorted = time_device(cp, lambda: sorted_det.downloadResults(sorted_det.detect(g_img)), 100, warmup=10)
    base = dict(family="hough", function="HoughLines", workload=name + " (detector's threshold)",
                points=detector_row["points"], width=detector_row["width"], height=detector_row["height"],
                threshold=threshold, lines=0 if ref is None else int(ref.shape[0]),
                detector_ms=detector_row["cvgpu_ms"], detector_sorted_ms=t_sorted["median"])
    exact = same(cvgpu.HoughLines(img, RHO, THETA, threshold), ref)
    t = time_host(lambda: cvgpu.HoughLines(img, RHO, THETA, threshold), 20 if img.size > 4e6 else 50, warmup=3)
    d_img = cp.asarray(img)
    exact_d = same(cvgpu.HoughLines(d_img, RHO, THETA, threshold), ref)
    t_d = time_device(cp, lambda: cvgpu.HoughLines(d_img, RHO, THETA, threshold), 100, warmup=10)
    numpy_row = timing_row(base, cv2_t, t, "numpy", exact)
    upload = _upload_floor_ms(cp, img)
    if upload is not None:
        # What a numpy call cannot avoid: its image's upload in the cheapest form (hostcall.c's bit
        # rows, to a stream sync) plus the device call's time; cv2 over that bounds the speedup.
        numpy_row.update(upload_ms=upload, floor_ms=upload + t_d["median"],
                         floor_speedup=cv2_t["median"] / (upload + t_d["median"]))
    return [numpy_row, timing_row(base, cv2_t, t_d, "device", exact_d)]


def _upload_floor_ms(cp, img):
    """The median ms of sending ``img`` up as bit rows through cvgpu._native (pack + copy + stream
    sync), or None where the helpers do not load."""
    from .. import _native
    helpers = _native.helpers()
    if helpers is None:
        return None
    src = _native.rows_contiguous(img)
    nbytes = src.shape[0] * _native.bit_row_bytes(src.shape[1])
    host = np.frombuffer(cp.cuda.alloc_pinned_memory(nbytes), np.uint8, nbytes)
    dev = cp.empty(nbytes, cp.uint8)
    stream = cp.cuda.get_current_stream()

    def send():
        _native.send_bit_rows(helpers, src, host.ctypes.data, dev.data.ptr, stream.ptr, "floor", "cuda.py")
        stream.synchronize()
    return time_host(send, 20 if img.size > 4e6 else 50, warmup=3)["median"]


# ---------------------------------------------------------------- cuda.HoughSegmentDetector

SEG_PARAMS = dict(rho=1.0, theta=math.pi / 180, minLineLength=50, maxLineGap=10)


def bench_cuda_segments(quick=False, progress=None):
    """cvgpu.cuda.HoughSegmentDetector (detect + download on a device-resident GpuMat, CUDA events)
    beside OpenCV-CUDA's own kernels timed in the same job (ocv.py: harness_seg, before and after,
    the lower kept), on photographs' Canny edges at camera-frame sizes and a 1024^2 seed segment
    image; rho 1, theta 1 degree, minLineLength 50, maxLineGap 10. Without the harness the rows say
    it is missing (reference_kind "missing")."""
    cp = _backend.cupy_module()
    if cp is None:
        return []
    from ..cuda import GpuMat, createHoughSegmentDetector
    harness = ocv.find_segments_harness()
    photos = FRAME_PHOTOS[:1] if quick else FRAME_PHOTOS[:2]
    frames = FRAMES[:1] if quick else FRAMES
    work = [("1024x1024 horizontal segments, 81920 pts", lambda: segments_image(1024, 81920))]
    work += [("photo %s %dx%d Canny" % (n, w, h), lambda n=n, s=(w, h): frame_edges(n, s))
             for w, h in frames for n in photos]
    progress = progress or (lambda label: None)
    if hasattr(progress, "expect"):
        progress.expect(len(work))
    p = SEG_PARAMS
    rows = []
    for name, build in work:
        img = build()
        if img is None:
            progress("cuda-segments: %s (scikit-image missing)" % name)
            continue
        progress("cuda-segments: " + name)
        d_img = GpuMat(img)
        det = createHoughSegmentDetector(p["rho"], p["theta"], p["minLineLength"], p["maxLineGap"])
        reps = 20 if quick else 100

        def ref():
            return ocv.run_segments(harness, img, p["rho"], p["theta"], p["minLineLength"], p["maxLineGap"],
                                    4096, -1, reps) if harness else None
        ref_before = ref()
        t = time_device(cp, lambda: det.detect(d_img).download(), reps, warmup=10)
        t_one = time_device(cp, lambda: det.detect(d_img).download(), 20, warmup=0, batch=1)
        ref_after = ref()
        segs = det.detect(d_img)
        cv2_t = time_host(lambda: cv2.HoughLinesP(img, p["rho"], p["theta"], p["minLineLength"],
                                                  minLineLength=p["minLineLength"], maxLineGap=p["maxLineGap"]),
                          3 if img.size > 4e6 else 5, warmup=0)
        base = dict(family="cuda", function="cuda.HoughSegmentDetector", workload=name,
                    points=int(np.count_nonzero(img)), width=int(img.shape[1]), height=int(img.shape[0]),
                    min_line_length=p["minLineLength"], max_line_gap=p["maxLineGap"], max_lines=4096,
                    segments=0 if segs.empty() else int(segs.size()[0]))
        if ref_before is not None:
            base.update(reference_ms=min(ref_before[0], ref_after[0]), reference_kind="side-by-side",
                        reference_spread_ms=abs(ref_before[0] - ref_after[0]), reference_segments=ref_before[1])
        else:
            base.update(reference_ms=None, reference_kind="missing",
                        reference_note="OpenCV-CUDA harness_seg not built (../shared/ocv_harness/README.md)")
        # cv2_ms: cv2.HoughLinesP (CPU, a different, randomised algorithm) for scale only.
        row = timing_row(base, cv2_t, t, "device", None, single_call_ms=t_one["median"])
        if row.get("reference_ms"):
            row["vs_reference"] = row["reference_ms"] / row["cvgpu_ms"]
        rows.append(row)
    return rows
