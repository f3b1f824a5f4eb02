"""cvgpu.cuda.createHoughLinesDetector: OpenCV-CUDA semantics.

OpenCV's pip wheels have no CUDA: the references are OpenCV's own outputs recorded on a GPU
(tests/cuda/test_cuda_hough_golden.py) and tests/models/cuda_hough_model.py, an exact CPU model of the
CUDA arithmetic checked against all of them without a GPU. Here: the model's arithmetic (fma, CUDA's
sincosf), the API and its errors, and on the GPU the detector against the model bit for bit on
hypothesis images (the compat row "cuda.HoughLinesDetector / standard", reference
"cpu-model-of-opencv-cuda"), its paths, streams and buffers.
"""
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

import cv2
import cvgpu
import cvgpu.cuda as cuda
from cvgpu.cuda import hough as chough
from cvgpu.hough import TUNING, _voting
import hough_cases
import photo_cases
from conftest import examples
from cuda_hough_model import (_fma32_exact, f32, fma32, model_accumulator, model_detect, model_line_values, model_maxima,
                              model_sincosf, model_trig)

HAS_GPU = cvgpu.backend() == "cuda"


# ================================================================ CPU: the model's arithmetic

def _fraction_f32(fr):
    x = np.float32(float(fr))
    cands = [np.nextafter(x, f32(-np.inf)), x, np.nextafter(x, f32(np.inf))]
    return min(cands, key=lambda v: (abs(Fraction(float(v)) - fr), int(np.array(v).view(np.int32)) & 1))


@given(st.integers(0, 70000), st.floats(-4, 4, width=32, allow_subnormal=False),
       st.floats(-70000, 70000, width=32, allow_subnormal=False), st.booleans())
def test_fma32_is_exact(a, b, c, near_tie):
    if near_tie:  # a sum near a float32 rounding boundary
        c = float(np.float32(-(a * b) + 0.5))
    a, b, c = f32(a), f32(b), f32(c)
    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    assert fma32(a, b, c) == _fraction_f32(exact)


def test_fma32_fast_path_equals_exact_on_ties():
    """fma32 rounds s = fl64(a * b + c) once more to float32 and sends only the ties of that rounding
    (and subnormal or non-finite results) to _fma32_exact: sums constructed a hair off a float32
    midpoint, where the plain double rounding is wrong, and random bit patterns."""
    rng = np.random.default_rng(0)
    n = 200_000
    r = rng.uniform(1, 1e4, n).astype(f32)
    mid = (r.astype(np.float64) + np.nextafter(r, f32(np.inf)).astype(np.float64)) / 2
    c = (rng.choice([-1.0, 1.0], n) * 2.0 ** rng.integers(-60, -20, n)).astype(f32)
    a = rng.integers(1, 4096, n).astype(f32)
    b = ((mid - c.astype(np.float64)) / a).astype(f32)
    bits = rng.integers(0, 2**32, (3, n), dtype=np.uint64).astype(np.uint32).view(f32)
    for x, y, z in ((a, b, c), tuple(bits)):
        with np.errstate(all="ignore"):
            want = _fma32_exact(x.astype(np.float64), y.astype(np.float64), z.astype(np.float64))
            got = fma32(x, y, z)
        nan = np.isnan(want)
        assert np.array_equal(np.isnan(got), nan)
        assert np.array_equal(got[~nan].view(np.uint32), want[~nan].view(np.uint32))
    naive = (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(f32)
    assert np.count_nonzero(naive != fma32(a, b, c)) > 100  # the ties were met (281 of them)


def test_model_sincosf_is_close_to_sin_cos():
    a = np.arange(0, 3600, dtype=np.float32) * f32(math.pi / 1800)
    s, c = model_sincosf(a)
    assert np.max(np.abs(s - np.sin(a.astype(np.float64))) / np.spacing(np.abs(s) + 1e-30)) < 2
    assert np.max(np.abs(c - np.cos(a.astype(np.float64))) / np.spacing(np.abs(c) + 1e-30)) < 2


# ================================================================ CPU: API shape and errors

def test_exports():
    assert cuda.createHoughLinesDetector is chough.createHoughLinesDetector
    for name in ("GpuMat", "Stream", "Stream_Null", "createHoughLinesDetector"):
        assert name in dir(cuda)
    assert "GpuMat" in cuda._OWN and "Stream" in cuda._OWN


def test_parameters_are_stored_as_opencv_does():
    det = cuda.createHoughLinesDetector(1.1, math.pi / 180, 50)
    assert det.getRho() == float(f32(1.1))
    assert det.getTheta() == float(f32(math.pi / 180))
    assert (det.getThreshold(), det.getDoSort(), det.getMaxLines()) == (50, False, 4096)
    det.setRho(2.5)
    det.setTheta(0.05)
    det.setThreshold(7)
    det.setDoSort(True)
    det.setMaxLines(10)
    assert (det.getRho(), det.getTheta(), det.getThreshold(), det.getDoSort(), det.getMaxLines()) == \
        (2.5, float(f32(0.05)), 7, True, 10)
    det = cuda.createHoughLinesDetector(rho=1, theta=0.1, threshold=3, doSort=True, maxLines=5)
    assert (det.getDoSort(), det.getMaxLines()) == (True, 5)
    assert det.empty() is False
    assert det.getDefaultName() == "my_object"
    det.clear()


def test_binding_errors():
    # One C++ overload, no array: OpenCV's binding raises the Python error itself (as cv2's
    # one-overload functions do, checked in test_hardening.test_one_overload_binding_matches_cv2s).
    with pytest.raises(TypeError, match=r"^createHoughLinesDetector\(\) missing required argument 'threshold' \(pos 3\)$"):
        cuda.createHoughLinesDetector(1, 0.1)
    with pytest.raises(TypeError, match=r"^Argument 'rho' can't be treated as a float$"):
        cuda.createHoughLinesDetector("a", 0.1, 3)
    with pytest.raises(TypeError, match=r"^Argument 'threshold' is required to be an integer$"):
        cuda.createHoughLinesDetector(1, 0.1, 3.5)
    with pytest.raises(TypeError, match=r"^'maxlines' is an invalid keyword argument for createHoughLinesDetector\(\)$"):
        cuda.createHoughLinesDetector(1, 0.1, 3, maxlines=4)
    with pytest.raises(ValueError, match=r"^integer won't fit into a C int$"):
        cuda.createHoughLinesDetector(1, 0.1, 2**40)


def test_accumulator_size_rules():
    # numangle = cvRound(pi / theta) in double; numrho = cvRound(float(2 * (w + h) + 1) / rho) in float
    assert chough.accumulator_size(100, 200, f32(1), f32(math.pi / 180)) == (180, 601)
    assert chough.accumulator_size(10, 10, f32(1), f32(0.05)) == (63, 41)
    assert chough.accumulator_size(10, 10, f32(0), f32(0.05))[1] < 0
    assert chough.accumulator_size(10, 10, f32(1), f32(0))[0] < 0
    assert chough.accumulator_size(10, 10, f32(1), f32(-1))[0] < 0
    assert chough.shared_vote_semantics(12036) and not chough.shared_vote_semantics(12037)


def test_one_wave_vote_config_rule():
    """The detector's voting grid: at most one block per SM, the least K / slices (votes per SM),
    the smaller K on a tie; a K skipped where its shared rows do not fit; None where even K = 4
    gives more groups than SMs."""
    def window(k):
        return 1500
    big = 1024 * 1024
    assert _voting.one_wave_vote_config(180, big, 132, 232448, window) == (3, 2)    # 60 x 2 blocks
    assert _voting.one_wave_vote_config(360, big, 132, 232448, window) == (3, 1)    # 120 blocks
    assert _voting.one_wave_vote_config(90, big, 132, 232448, window) == (3, 4)     # 3/4 < 4/5 < 1/1 = 2/2
    assert _voting.one_wave_vote_config(12, big, 132, 232448, window) == (1, 11)    # 1/11 ties 2/22
    assert _voting.one_wave_vote_config(12, 3 * 4096, 132, 232448, window) == (1, 3)  # >= 4096 points a slice
    assert _voting.one_wave_vote_config(529, big, 132, 232448, window) is None
    assert _voting.one_wave_vote_config(180, big, 132, 232448, lambda k: 20000) == (2, 1)  # 3 rows: 240 KB


def test_wrong_type_is_minus_215():
    det = cuda.createHoughLinesDetector(1, 0.1, 3)
    for bad in (np.zeros((4, 4), np.float32), np.zeros((4, 4, 3), np.uint8)):
        with pytest.raises(cv2.error) as e:
            det.detect(bad)
        assert e.value.code == -215 and e.value.err == "src.type() == CV_8UC1"


def test_empty_input_and_empty_results():
    det = cuda.createHoughLinesDetector(1, 0.1, 3)
    out = det.detect(cuda.GpuMat())
    assert isinstance(out, cuda.GpuMat) and out.empty()
    assert cvgpu.last_call_backend() == "none"  # (no pixel work)
    assert det.downloadResults(out) == (None, None)
    given_out = cuda.GpuMat()
    assert det.detect(cuda.GpuMat(), given_out) is given_out


def test_empty_gpumat_header():
    m = cuda.GpuMat()
    assert (m.size(), m.type(), m.empty(), m.channels(), m.step, m.cudaPtr(), m.depth()) == \
        ((0, 0), 0, True, 1, 0, 0, 0)
    assert m.download() is None
    assert cvgpu.cuda.GpuMat is cuda.GpuMat


# ================================================================ GPU

gpu = pytest.mark.gpu


def _detect(det, img, stream=None):
    d_lines = det.detect(cuda.GpuMat(img), None, stream)
    return d_lines, det.downloadResults(d_lines)


def _same_as_model(det_args, img, out, expected=False):
    """The detector's downloaded (lines, votes) equal the model's (``expected`` when already computed)."""
    rho, theta, threshold, do_sort, max_lines = det_args
    if expected is False:
        expected = model_detect(img, rho, theta, threshold, do_sort, max_lines)
    h_lines, h_votes = out
    if expected is None:
        return h_lines is None and h_votes is None
    if h_lines is None:
        return False
    return (h_lines.shape == (1, len(expected[1]), 2) and h_lines.dtype == np.float32 and
            h_votes.shape == (1, len(expected[1])) and h_votes.dtype == np.int32 and
            h_lines.tobytes() == expected[0].tobytes() and h_votes.tobytes() == expected[1].tobytes())


@gpu
def test_device_trig_table_equals_model():
    import cupy as cp
    for theta, rho in ((math.pi / 180, 1.0), (math.pi / 360, 0.5), (0.0123, 3.7), (0.05, 1.5), (1e-3, 0.3)):
        theta32, irho = f32(theta), f32(1) / f32(rho)
        numangle = chough.accumulator_size(100, 100, f32(rho), theta32)[0]
        out = cp.empty(2 * numangle, dtype=cp.float32)
        fn = cvgpu._kernels.get_function("cuda/hough", "ch_trig_table")
        fn((-(-numangle // 128),), (128,), (np.int32(numangle), theta32, irho, out))
        c, s = model_trig(numangle, theta32, irho)
        got = out.get().reshape(-1, 2)
        assert got[:, 0].tobytes() == c.tobytes() and got[:, 1].tobytes() == s.tobytes()


def _random_image(rng, rows, cols, kind):
    img = np.zeros((rows, cols), np.uint8)
    if kind == 0:
        img[rng.random((rows, cols)) < rng.uniform(0.01, 0.3)] = 255
    else:
        for _ in range(rng.integers(1, 6)):
            p0 = (int(rng.integers(0, cols)), int(rng.integers(0, rows)))
            p1 = (int(rng.integers(0, cols)), int(rng.integers(0, rows)))
            cv2.line(img, p0, p1, 255, 1)
        img[rng.random((rows, cols)) < 0.02] = 1
    return img


_RHOS = st.sampled_from([0.5, 1.0, 1.5, 2.0, 3.7, 0.7, 5.0])
_THETAS = st.sampled_from([math.pi / 180, math.pi / 360, math.pi / 90, 0.0123, 0.05, 0.3])
_MAX_LINES = st.sampled_from([1, 3, 16, 100, 4096])
_params = st.tuples(_RHOS, _THETAS, st.integers(0, 40), st.booleans(), _MAX_LINES)


# The detector's compat row ("standard", reference: the CPU model): tests/hough_cases.py's images
# (photographs' Canny edges, lines, shapes, segments, noise; the long side above 256 px in about half
# of them, up to 1024) and this file's random ones, thresholds drawn relative to the votes (the
# rules of tests/hough_cases.py: cases with lines most of the time). The model costs ~100 ns of CPU a
# vote here, so edge points are thinned to MODEL_VOTES votes a case.
MODEL_VOTES = 1_000_000
DETECTOR_FAMILIES = ("photo", "photo", "lines", "shapes", "segments", "noise", "random")


@st.composite
def detector_cases(draw):
    family = draw(st.sampled_from(DETECTOR_FAMILIES))
    rows, cols = draw(hough_cases.image_sizes(max_side=1024))
    photo = (draw(photo_cases.specs), draw(photo_cases.canny_params)) if family == "photo" else None
    # (Only choices the case uses: hypothesis varies one choice at a time at times, and an ignored one
    # makes a duplicate case.)
    return dict(family=family, seed=draw(st.integers(0, 2**32 - 1)) if family != "photo" else 0, h=rows, w=cols,
                photo=photo, rho=draw(_RHOS), theta=draw(_THETAS),
                rule=draw(hough_cases.THRESHOLD_RULES), do_sort=draw(st.booleans()), max_lines=draw(_MAX_LINES),
                use_edgeval=False)


def build_detector_case(c):
    """(image, (rho, theta, threshold, doSort, maxLines)) of a drawn case."""
    numangle = max(1, chough.accumulator_size(c["h"], c["w"], f32(c["rho"]), f32(c["theta"]))[0])
    max_points = min(hough_cases.MAX_POINTS, MODEL_VOTES // numangle)
    if c["family"] == "random":
        img = _random_image(np.random.default_rng(c["seed"]), c["h"], c["w"], c["seed"] % 2)
        nz = np.flatnonzero(img)
        if len(nz) > max_points:
            img.flat[np.random.default_rng(c["seed"]).choice(nz, len(nz) - max_points, replace=False)] = 0
    else:
        img = hough_cases.make_image(c["family"], c["seed"], c["h"], c["w"], c["photo"], max_points=max_points)
    threshold = hough_cases.resolve_threshold(img, c)
    return img, (c["rho"], c["theta"], threshold, c["do_sort"], c["max_lines"])


# ~85 % of the cases have lines (tests/dry_run_cases.py): 14,000 device examples make the row's
# 10,000 non-trivial cases.
@gpu
@settings(max_examples=examples(14_000))
@given(detector_cases())
def test_property_equals_model(compat, c):
    img, params = build_detector_case(c)
    note("image %dx%d, params %r" % (img.shape[1], img.shape[0], params))
    expected = model_detect(img, *params)
    out = _detect(cuda.createHoughLinesDetector(*params), img)[1]
    assert cvgpu.last_call_backend() == "cuda"
    exact = _same_as_model(params, img, out, expected)
    compat.record("cuda.HoughLinesDetector", "standard", exact, reference="cpu-model-of-opencv-cuda",
                  kind="empty" if expected is None else "result", inputs=(img,) + params)
    assert exact


@gpu
@given(st.integers(0, 2**32 - 1), st.integers(8, 96), st.integers(8, 128), _params)
def test_property_deterministic(seed, rows, cols, params):
    img = _random_image(np.random.default_rng(seed), rows, cols, seed % 2)
    det = cuda.createHoughLinesDetector(*params)
    first = _detect(det, img)[1]
    second = _detect(cuda.createHoughLinesDetector(*params), img)[1]
    third = _detect(det, img)[1]
    for a, b in ((first, second), (first, third)):
        assert (a[0] is None and b[0] is None) or (a[0].tobytes() == b[0].tobytes() and a[1].tobytes() == b[1].tobytes())


@gpu
@pytest.mark.parametrize("rows,cols", [(96, 128), (512, 512), (700, 1024)])
def test_graph_replays_on_changing_images(rows, cols):
    """One detector over many images of one size: from its second detect on, the kernels replay as
    a captured graph of programmatic-dependent launches (kernels/graphs.cuh). Each result must
    equal the model for its own image, whatever the image before it held."""
    rng = np.random.default_rng(rows * 31 + cols)
    for params in ((1.0, math.pi / 180, 20, True, 4096), (2.0, math.pi / 90, 5, False, 100)):
        det = cuda.createHoughLinesDetector(*params)
        for i in range(16):
            img = _random_image(rng, rows, cols, i % 2)
            assert _same_as_model(params, img, _detect(det, img)[1]), (params, i)


@gpu
@given(st.integers(0, 2**32 - 1), st.integers(8, 96), st.integers(8, 128), _params)
def test_property_lines_are_local_maxima_and_order_rules(seed, rows, cols, params):
    rho, theta, threshold, do_sort, max_lines = params
    img = _random_image(np.random.default_rng(seed), rows, cols, seed % 2)
    h_lines, h_votes = _detect(cuda.createHoughLinesDetector(*params), img)[1]
    acc, numangle, numrho = model_accumulator(img, rho, theta)
    if h_lines is None:
        assert acc is None or len(model_maxima(acc, threshold)[0]) == 0
        return
    lines, votes = h_lines.reshape(-1, 2), h_votes.reshape(-1)
    n_all, r_all, v_all = model_maxima(acc, threshold)
    assert len(votes) == min(len(v_all), max_lines)
    flat = []
    for (radius, angle), v in zip(lines, votes):
        n = int(round(float(angle) / float(f32(theta))))
        r = int(round(float(radius) / float(f32(rho)) + (numrho - 1) * 0.5))
        assert model_line_values(np.array([n]), np.array([r]), numrho, rho, theta)[0][0] == radius
        a = acc[n + 1, r + 1]
        assert v == a and a > threshold and a > acc[n + 1, r] and a >= acc[n + 1, r + 2] and \
            a > acc[n, r + 1] and a >= acc[n + 2, r + 1]
        flat.append((n + 1) * (numrho + 2) + r + 1)
    keys = list(zip((-votes.astype(np.int64)).tolist(), flat))
    if do_sort:
        assert keys == sorted(keys)
    else:
        assert flat == sorted(flat)
    if len(v_all) > max_lines:  # the strongest are kept
        assert min(votes) >= np.sort(v_all)[::-1][max_lines - 1]


@gpu
def test_gpumat_and_stream_roundtrip():
    import cupy as cp
    a = (np.arange(24, dtype=np.uint8).reshape(4, 6))
    m = cuda.GpuMat()
    m.upload(a)
    assert (m.size(), m.type(), m.channels(), m.step, m.empty()) == ((6, 4), 0, 1, 6, False)
    assert np.array_equal(m.download(), a)
    assert np.array_equal(cp.asarray(m).get(), a)  # __cuda_array_interface__, no copy
    assert cp.asarray(m).data.ptr == m.cudaPtr()
    c = cp.arange(12, dtype=cp.float32).reshape(2, 3, 2)
    w = cuda.GpuMat(c)
    assert (w.size(), w.type(), w.cudaPtr()) == ((3, 2), cv2.CV_32FC2, c.data.ptr)
    z = cuda.GpuMat(3, 5, cv2.CV_32FC2)
    assert (z.size(), z.type(), z.elemSize(), z.step) == ((5, 3), cv2.CV_32FC2, 8, 40)
    s = cuda.Stream()
    d = cuda.GpuMat()
    d.upload(a, s)
    s.waitForCompletion()
    assert s.queryIfComplete() and np.array_equal(d.download(None, s), a)
    assert cuda.Stream.Null().cudaPtr() == 0


@gpu
def test_detect_on_a_stream_and_inputs():
    import cupy as cp
    img = _random_image(np.random.default_rng(3), 60, 80, 1)
    det = cuda.createHoughLinesDetector(1, math.pi / 180, 10, True, 100)
    ref = det.downloadResults(det.detect(cuda.GpuMat(img)))
    s = cuda.Stream()
    for src in (cuda.GpuMat(img), cp.asarray(img), img):
        out = det.downloadResults(det.detect(src, None, s), None, None, s)
        assert out[0].tobytes() == ref[0].tobytes() and out[1].tobytes() == ref[1].tobytes()
    # The lines argument is filled in place and returned.
    given_out = cuda.GpuMat()
    assert det.detect(cuda.GpuMat(img), given_out) is given_out
    # downloadResults without the pinned mirror (a copy of the result) gives the same.
    d_lines = det.detect(cuda.GpuMat(img))
    copy = d_lines.clone()
    assert copy._host_mirror is None
    out = det.downloadResults(copy)
    assert out[0].tobytes() == ref[0].tobytes() and out[1].tobytes() == ref[1].tobytes()
    # Row 1: votes in the first half of the bytes, zeros after.
    row1 = cp.asnumpy(cp.asarray(d_lines)[1]).reshape(-1).view(np.int32)
    n = ref[1].shape[1]
    assert np.array_equal(row1[:n], ref[1][0]) and not row1[n:].any()


@gpu
def test_repeated_detects_on_one_gpumat():
    """detect on the same GpuMat again (the benchmark's call, a video loop's) replays the previous
    graph directly (HoughLinesDetector._replay) and downloadResults takes its short path: each
    result must equal the model for the image the GpuMat holds then, across in-place uploads,
    setters, clear(), other inputs, streams and output arguments between the calls. The paths are
    counted where they are decided (TUNING.paths(); a replay itself counts nothing): a changed
    setting or new buffers launch directly first (7), and each graph-replayed detect on a GpuMat
    with no output or stream argument makes it hot (11: steps 1, 5, 7 twice (other, then gm), 10,
    12, 14, 16, 18, 20, 22); of these, the repeats at steps 2, 3, 6, 8, 23, 24 and 25 replay hot."""
    rng = np.random.default_rng(5)
    params = [1.0, math.pi / 180, 20, True, 4096]
    det = cuda.createHoughLinesDetector(*params)
    img = _random_image(rng, 96, 128, 1)
    gm = cuda.GpuMat(img)
    other = cuda.GpuMat(_random_image(rng, 96, 128, 0))
    stream = cuda.Stream()
    steps = ["same", "same", "upload", "same", "threshold", "same", "same", "other", "same", "clear", "same",
             "sort", "same", "stream", "same", "given", "same", "maxlines", "same", "rho", "same", "theta", "same",
             "upload", "same", "same"]
    before = TUNING.paths()
    for i, step in enumerate(steps):
        if step == "upload":
            img = _random_image(rng, 96, 128, i % 2)
            gm.upload(img)  # same size: the same device array, new pixels
        elif step == "threshold":
            params[2] = 12
            det.setThreshold(12)
        elif step == "sort":
            params[3] = False
            det.setDoSort(False)
        elif step == "maxlines":
            params[4] = 3
            det.setMaxLines(3)
        elif step == "rho":
            params[0] = 2.0
            det.setRho(2.0)
        elif step == "theta":
            params[1] = math.pi / 90
            det.setTheta(math.pi / 90)
        elif step == "clear":
            det.clear()
        elif step == "other":
            det.detect(other)
        if step == "stream":
            d_lines = det.detect(gm, None, stream)
            stream.waitForCompletion()
        elif step == "given":
            d_lines = cuda.GpuMat()
            assert det.detect(gm, d_lines) is d_lines
        else:
            d_lines = det.detect(gm)
        assert _same_as_model(tuple(params), img, det.downloadResults(d_lines)), (i, step)
    after = TUNING.paths()
    ran = {path: after[path] - before[path] for path in ("detector.direct", "detector.hot")}
    assert ran == {"detector.direct": 7, "detector.hot": 11}, ran


@gpu
def test_writes_through_shared_memory_reach_download_results():
    """A result written through memory it shares (a row view's setTo, a GpuMat made from it, CuPy
    over its __cuda_array_interface__) downloads what was written, as OpenCV's downloadResults
    copies the device memory: the detector's pinned host copy is not used once the memory is
    shared."""
    import cupy as cp
    img = np.zeros((48, 64), np.uint8)
    img[10, :] = 255
    img[:, 20] = 255
    img[40, 5:60] = 255
    det = cuda.createHoughLinesDetector(1, math.pi / 180, 20, True, 4096)
    writes = (lambda d: d.row(0).setTo((7.0, 9.0)),
              lambda d: cuda.GpuMat(d).setTo((7.0, 9.0)),
              lambda d: cp.asarray(d).__setitem__((0, 0), cp.float32(7.0)))
    for write in writes:
        d_lines = det.detect(cuda.GpuMat(img))
        before = det.downloadResults(d_lines)
        write(d_lines)
        want = d_lines.download()          # (2, N) CV_32FC2: lines, then the votes' bits
        n = want.shape[1]
        lines, votes = det.downloadResults(d_lines)
        assert lines.tobytes() == np.ascontiguousarray(want[0]).reshape(1, n, 2).tobytes()
        assert votes.tobytes() == np.ascontiguousarray(want[1]).reshape(-1).view(np.int32)[:n].tobytes()
        assert lines.tobytes() != before[0].tobytes()


@gpu
def test_earlier_results_download_their_own_lines():
    """downloadResults reads a result's lines from the detector's pinned buffer only while no later
    detect has overwritten it; an earlier result (kept across later detects of other images, with
    the same and with different line counts) still downloads its own lines."""
    rng = np.random.default_rng(11)
    det = cuda.createHoughLinesDetector(1, math.pi / 180, 12, True, 4096)
    images = [_random_image(rng, 64, 96, i % 2) for i in range(5)]
    images.append(images[0].copy())  # the same count as the first, other memory
    kept = [det.detect(cuda.GpuMat(img)) for img in images]
    fresh = cuda.createHoughLinesDetector(1, math.pi / 180, 12, True, 4096)
    for img, d_lines in zip(images, kept):
        want = fresh.downloadResults(fresh.detect(cuda.GpuMat(img)))
        got = det.downloadResults(d_lines)
        assert (want[0] is None) == (got[0] is None)
        if want[0] is not None:
            assert want[0].tobytes() == got[0].tobytes() and want[1].tobytes() == got[1].tobytes()
    assert len({0 if d.empty() else d.size()[0] for d in kept}) > 2  # the counts differ


@gpu
def test_errors_on_gpu():
    det = cuda.createHoughLinesDetector(1, 0.1, 3)
    with pytest.raises(cv2.error) as e:
        det.detect(cuda.GpuMat(np.zeros((4, 4), np.float32)))
    assert e.value.code == -215
    with pytest.raises(cv2.error) as e:
        det.downloadResults(cuda.GpuMat(np.zeros((3, 4, 2), np.float32)))
    assert e.value.code == -215
    # Bad sizes are checked only once points are found (as OpenCV).
    bad = cuda.createHoughLinesDetector(0, 0.1, 3)
    assert bad.detect(cuda.GpuMat(np.zeros((4, 4), np.uint8))).empty()
    with pytest.raises(cv2.error) as e:
        bad.detect(cuda.GpuMat(np.full((4, 4), 255, np.uint8)))
    assert e.value.code == -215 and e.value.err == "numangle > 0 && numrho > 0"


@gpu
def test_many_maxima_host_path_and_wide_images():
    rng = np.random.default_rng(7)
    img = (rng.random((200, 300)) < 0.3).astype(np.uint8)
    for do_sort, max_lines in ((False, 1 << 20), (True, 1 << 20), (False, 9000), (True, 9000), (False, 50)):
        det = cuda.createHoughLinesDetector(1, math.pi / 360, 0, do_sort, max_lines)
        assert _same_as_model((1, math.pi / 360, 0, do_sort, max_lines), img, _detect(det, img)[1])
    wide = np.zeros((2, 70000), np.uint8)
    wide[0, ::7] = 255
    wide[1, 69990:] = 255
    det = cuda.createHoughLinesDetector(4, math.pi / 90, 2, True, 4096)
    assert _same_as_model((4, math.pi / 90, 2, True, 4096), wide, _detect(det, wide)[1])


@gpu
@given(st.integers(0, 2**32 - 1), st.integers(1, 96), st.integers(1, 128), st.integers(0, 2),
       st.sampled_from([0.5, 1.0, 1.5, 3.7, 50.0, 200.0]),
       st.sampled_from([math.pi / 180, math.pi / 90, 0.0123, 0.3, 1.0]))
def test_row_bounds_hold_every_vote(seed, rows, cols, kind, rho, theta):
    """ch_row_bounds: each accumulator row's votes land in its [lo, hi] columns, and a detect zeroes
    and scans only those. Alternate detects use alternate accumulators, each detect's ch_maxima
    zeroing the other's windows for the next. After two detects of another image of the same size
    (the same buffers, both accumulators used), the last detect's accumulator must equal the model's
    whole accumulator and the other must be all zero: nothing left outside the windows."""
    numangle, numrho = chough.accumulator_size(rows, cols, f32(rho), f32(theta))
    if numangle <= 0 or numrho <= 0:  # detect raises cv2.error once it finds points
        return
    rng = np.random.default_rng(seed)
    img = np.full((rows, cols), 255, np.uint8) if kind == 2 else _random_image(rng, rows, cols, kind)
    det = cuda.createHoughLinesDetector(rho, theta, 0)
    _detect(det, 255 - img)
    _detect(det, 255 - img)
    _detect(det, img)
    acc, numangle, numrho = model_accumulator(img, rho, theta)
    if acc is None:
        return
    buf = det._buf
    bounds = buf.bounds.get()
    lo, hi = bounds[1::2].astype(np.int64), bounds[2::2].astype(np.int64)
    column = np.arange(numrho + 2)[None, :]
    outside = (column < lo[:, None]) | (column > hi[:, None])
    assert not acc[1:-1][outside].any()
    assert bounds[0] == max(0, int((hi - lo + 1).max()))
    assert np.array_equal(buf.accum_pair[1 - buf.parity].get().reshape(acc.shape), acc)
    assert not buf.accum_pair[buf.parity].get().any()  # the next detect's
    if kind == 2:  # every pixel votes, the corners too: the windows are tight where not clamped
        hi_col = numrho if chough.shared_vote_semantics(numrho) else numrho + 1
        for n in range(numangle):
            if 0 < lo[n] and hi[n] < hi_col:
                nonzero = np.flatnonzero(acc[n + 1])
                assert (nonzero[0], nonzero[-1]) == (lo[n], hi[n]), n


@gpu
@pytest.mark.parametrize("direct", [True, False])
def test_every_ordering_path_of_the_maxima_tail(direct):
    """ch_maxima's last block orders up to 1024 keys by rank (by pairs up to 128, by buckets above:
    hough_rank), up to SMEM_CAP by bitonic networks, and leaves more to the host: each with doSort
    on and off, maxLines below, at and above the count. Without doSort the blocks write their own
    lines (the direct write, here from the first detect on; maxLines below the count: the last
    block writes them again), or with TUNING.detector_direct_write off the last block does."""
    rng = np.random.default_rng(5)
    img = (rng.random((160, 240)) < 0.08).astype(np.uint8)
    acc, _, _ = model_accumulator(img, 1.0, math.pi / 180)
    counts = {t: len(model_maxima(acc, t)[0]) for t in range(0, 40)}
    picks = {}
    for t, k in sorted(counts.items()):
        band = (3 if 40 <= k <= 128 else 0 if 129 <= k <= 1024 else 1 if 1100 <= k <= chough.SMEM_CAP else
                2 if k > chough.SMEM_CAP else None)
        if band is not None:
            picks.setdefault(band, (t, k))
    assert sorted(picks) == [0, 1, 2, 3], counts
    # More of 1025..SMEM_CAP, where raster order with every key kept is ranked by buckets (up to 8
    # keys a thread) and the rest by bitonic networks: the counts nearest 1025 and SMEM_CAP too.
    band1 = [(t, k) for t, k in counts.items() if 1025 <= k <= chough.SMEM_CAP]
    picks[4] = min(band1, key=lambda tk: tk[1])
    picks[5] = max(band1, key=lambda tk: tk[1])
    before = TUNING.paths()
    with TUNING.override(detector_direct_write=direct, detector_direct_min_lines=0):
        for t, k in picks.values():
            for do_sort in (False, True):
                for max_lines in (k // 3, k, k + 5):
                    params = (1.0, math.pi / 180, t, do_sort, max_lines)
                    det = cuda.createHoughLinesDetector(*params)
                    assert _same_as_model(params, img, _detect(det, img)[1]), (t, k, do_sort, max_lines)
    path = "detector.maxima-direct" if direct else "detector.maxima-last-block"
    assert TUNING.paths()[path] > before[path]


@gpu
@pytest.mark.parametrize("own_cap", [1, 4, 64])
def test_direct_write_blocks_over_their_slots_fall_back(own_cap):
    """A block that finds more keys than its shared slots (TUNING.detector_direct_own_cap) leaves
    the writing to the last block, which orders every line as without the direct write: the
    results still equal the model, with maxLines below, at and above the count."""
    rng = np.random.default_rng(11)
    img = (rng.random((160, 240)) < 0.08).astype(np.uint8)
    acc, _, _ = model_accumulator(img, 1.0, math.pi / 180)
    counts = {t: len(model_maxima(acc, t)[0]) for t in range(0, 40)}
    for t in sorted({min(counts, key=lambda t: abs(counts[t] - k)) for k in (60, 600, 3000)}):
        k = counts[t]
        with TUNING.override(detector_direct_min_lines=0, detector_direct_own_cap=own_cap):
            for max_lines in (k // 2, k, k + 5):
                params = (1.0, math.pi / 180, t, False, max_lines)
                det = cuda.createHoughLinesDetector(*params)
                assert _same_as_model(params, img, _detect(det, img)[1]), (own_cap, t, k, max_lines)


@gpu
def test_direct_write_follows_the_last_count():
    """The detector takes the direct write once its last detect found detector_direct_min_lines
    lines, and the last block's tail again below that: a detector's detects switch both ways, every
    result equal to the model."""
    rng = np.random.default_rng(5)
    img = (rng.random((160, 240)) < 0.08).astype(np.uint8)
    acc, _, _ = model_accumulator(img, 1.0, math.pi / 180)
    counts = {t: len(model_maxima(acc, t)[0]) for t in range(0, 40)}
    many = min((t for t, k in counts.items() if 1100 <= k <= chough.SMEM_CAP), key=lambda t: counts[t])
    few = min((t for t, k in counts.items() if 20 <= k <= 200), key=lambda t: counts[t])
    before = TUNING.paths()
    det = cuda.createHoughLinesDetector(1.0, math.pi / 180, many, False, 4096)
    d_img = cuda.GpuMat(img)
    for threshold in (many, many, many, many, few, few, few, many, many):
        det.setThreshold(threshold)
        params = (1.0, math.pi / 180, threshold, False, 4096)
        assert _same_as_model(params, img, det.downloadResults(det.detect(d_img))), threshold
    after = TUNING.paths()
    assert after["detector.maxima-direct"] > before["detector.maxima-direct"]
    assert after["detector.maxima-last-block"] > before["detector.maxima-last-block"]


@gpu
@pytest.mark.parametrize("force", [dict(vote="global"), dict(vote_grid=(1, 1)), dict(vote_grid=(2, 5)),
                                   dict(vote_grid=(3, 2)), dict(vote_grid=(4, 16))])
@given(st.integers(0, 2**32 - 1), st.integers(1, 96), st.integers(1, 128), st.integers(0, 1), _params)
def test_forced_voting_paths_equal_model(force, seed, rows, cols, kind, params):
    """ch_vote_global (otherwise only for rows too long for shared memory) and every shared-memory
    voting kernel (1 to 4 angles per block) with few and many point slices, forced through
    TUNING: the grid never changes a vote."""
    img = _random_image(np.random.default_rng(seed), rows, cols, kind)
    path = "detector.vote-global" if "vote" in force else "detector.vote-grid"
    before = TUNING.paths()
    with TUNING.override(**force):
        det = cuda.createHoughLinesDetector(*params)
        out = _detect(det, img)[1]
    assert cvgpu.last_call_backend() == "cuda"
    assert _same_as_model(params, img, out)
    if chough.accumulator_size(rows, cols, f32(params[0]), f32(params[1]))[0] > 0:
        assert TUNING.paths()[path] == before[path] + 1


@gpu
def test_bench_rows_shape():
    from cvgpu.bench.cuda import bench_cuda_hough
    rows = bench_cuda_hough(quick=True)
    assert rows and {"function", "workload", "cv2_ms", "cvgpu_ms", "reference_ms", "io"} <= set(rows[0])
