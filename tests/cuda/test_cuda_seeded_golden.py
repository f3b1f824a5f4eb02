"""Both detectors against OpenCV-CUDA's own outputs on the seeded corpus (15,500 recorded cases).

``tests/golden/opencv_cuda_seeded.npz`` holds, for each case of tests/cuda/seeded_cases.py, the
digest of its image and the multiset digests of OpenCV-CUDA's outputs, recorded on a GPU by
compat_matrix/record_golden_seeded.py through OpenCV's own kernels (compat_matrix/ocv_batch.cu): for
the lines and for the segment detector, the output at the case's maxLines and the full candidate set.
The images are made again here; a digest that differs fails the test (the input would not be the
one OpenCV saw).

Rules (the shared corpus's, made exact by the recorded full set): the full set must be equal, as a
multiset, to OpenCV's full set. When it fits in maxLines the case's output must equal OpenCV's
output (row ``seeded-complete``); otherwise OpenCV kept an arbitrary maxLines of it, and ours must be
maxLines rows of the full set (row ``seeded-truncated``: the full set is still compared exactly; the
recorder checked that OpenCV's own rows are a subset). With doSort the votes must not increase.

On the CPU, without a GPU: the images reproduce, and the CPU models equal OpenCV on a sample of the
smaller cases. On the GPU: every case, both detectors.
"""
from pathlib import Path

import numpy as np
import pytest

import cvgpu
import cvgpu.cuda as cuda
import seeded_cases
from conftest import device_profile
from cuda_hough_model import model_detect
from cuda_segments_model import model_all_segments

ROOT = Path(__file__).resolve().parents[2]
SEEDED = ROOT / "tests" / "golden" / "opencv_cuda_seeded.npz"
SHARDS = 64        # GPU items (xdist spreads them)
CPU_SHARDS = 16


@pytest.fixture(scope="module")
def corpus():
    if not SEEDED.is_file():
        message = "%s not recorded (compat_matrix/record_golden_seeded.py on a GPU)" % SEEDED.relative_to(ROOT)
        if device_profile():
            pytest.fail(message)
        pytest.skip(message)
    data = np.load(SEEDED)
    return {k: data[k] for k in data.files}


def _image(corpus, i):
    img, _, lp, sp = seeded_cases.case(i)
    assert seeded_cases.image_digest(img).encode() == corpus["image_digest"][i], \
        "case %d: the image is not the one OpenCV saw (generator or photograph changed)" % i
    assert np.allclose(lp, corpus["lines_params"][i], rtol=0, atol=0) and \
        np.allclose(sp, corpus["segments_params"][i], rtol=0, atol=0), "case %d: parameters drifted" % i
    return img


def _lines_params(corpus, i):
    rho, theta, threshold, do_sort, max_lines = corpus["lines_params"][i]
    return float(rho), float(theta), int(threshold), bool(do_sort), int(max_lines)


def _segments_params(corpus, i):
    rho, theta, min_len, max_gap, max_lines, threshold = corpus["segments_params"][i]
    return float(rho), float(theta), int(min_len), int(max_gap), int(max_lines), int(threshold)


def check_lines(corpus, i, case_out, full_out):
    """(exact, complete) of one case's lines detector outputs ((lines, votes) at maxLines and full)."""
    _, _, _, do_sort, max_lines = _lines_params(corpus, i)
    (cl, cv), (fl, fv) = case_out, full_out
    n_case, n_full = (int(x) for x in corpus["lines_count"][i])
    d_case, d_full = (x.decode() for x in corpus["lines_digest"][i])
    exact = seeded_cases.lines_digest(fl, fv) == d_full
    complete = n_full <= max_lines
    ours = seeded_cases.lines_rows(cl, cv)
    if complete:
        exact = exact and seeded_cases.lines_digest(cl, cv) == d_case
    else:
        exact = exact and len(ours) == max(0, max_lines) == n_case and \
            seeded_cases.multiset_le(ours, seeded_cases.lines_rows(fl, fv))
    if do_sort:
        exact = exact and seeded_cases.votes_non_increasing(cv)
    return exact, complete


def check_segments(corpus, i, case_out, full_out):
    """(exact, complete) of one case's segment detector outputs (int32 (N, 4) at maxLines and full)."""
    max_lines = _segments_params(corpus, i)[4]
    n_case, n_full = (int(x) for x in corpus["segments_count"][i])
    d_case, d_full = (x.decode() for x in corpus["segments_digest"][i])
    exact = seeded_cases.segments_digest(full_out) == d_full
    complete = n_full <= max_lines
    if complete:
        exact = exact and seeded_cases.segments_digest(case_out) == d_case
    else:
        exact = exact and len(case_out) == max(0, max_lines) == n_case and \
            seeded_cases.multiset_le(case_out, full_out)
    return exact, complete


# ================================================================ CPU

def _cpu_sample(corpus, shard, step, long_side):
    """Every step-th case no longer than long_side, this shard's share of them."""
    shapes = corpus["shape"]
    return [i for i in range(0, int(corpus["cases"]), step) if shapes[i].max() <= long_side][shard::CPU_SHARDS]


def test_corpus_is_what_the_rows_claim(corpus):
    """At least 10,000 non-empty full sets per detector, a quarter of the images above 256 px,
    cases of both kinds, and some voting in global memory."""
    from cvgpu.cuda import hough as chough
    n = int(corpus["cases"])
    assert len(corpus["image_digest"]) == n == len(corpus["lines_count"]) == len(corpus["segments_count"])
    assert (corpus["lines_count"][:, 1] > 0).sum() >= 10_000
    assert (corpus["segments_count"][:, 1] > 0).sum() >= 10_000
    assert (corpus["shape"].max(axis=1) > 256).mean() >= 0.25
    truncated = corpus["lines_count"][:, 1] > corpus["lines_params"][:, 4]
    assert truncated.any() and not truncated.all()
    global_votes = [not chough.shared_vote_semantics(
        chough.accumulator_size(int(h), int(w), np.float32(p[0]), np.float32(p[1]))[1])
        for (h, w), p in zip(corpus["shape"], corpus["lines_params"])]
    assert sum(global_votes) >= 100


@pytest.mark.parametrize("shard", range(CPU_SHARDS))
def test_images_reproduce(corpus, shard):
    """A sample of the images (all of them in the device profile's GPU test) made again, bytes equal."""
    step = 1 if device_profile() else 25
    for i in range(shard, int(corpus["cases"]), CPU_SHARDS * step):
        _image(corpus, i)


@pytest.mark.parametrize("shard", range(CPU_SHARDS))
def test_models_equal_opencv_cuda(corpus, shard):
    """The CPU models of both detectors equal OpenCV-CUDA's recorded outputs on the smaller cases of a
    sample (the models are numpy; images of millions of pixels take them minutes)."""
    step, long_side = (4, 512) if device_profile() else (40, 320)
    bad = []
    for i in _cpu_sample(corpus, shard, step, long_side):
        img = _image(corpus, i)
        rho, theta, threshold, do_sort, max_lines = _lines_params(corpus, i)
        full = model_detect(img, rho, theta, threshold, False, 1 << 30) or (None, None)
        case = model_detect(img, rho, theta, threshold, do_sort, max_lines) or (None, None)
        ok_lines = check_lines(corpus, i, case, full)[0]
        rho, theta, min_len, max_gap, max_lines, threshold = _segments_params(corpus, i)
        segs = model_all_segments(img, rho, theta, min_len, max_gap, threshold)
        ok_segments = check_segments(corpus, i, segs[:max(0, max_lines)], segs)[0]
        if not (ok_lines and ok_segments):
            bad.append((i, ok_lines, ok_segments))
    assert bad == [], "model differs from OpenCV-CUDA (case, lines ok, segments ok): %s" % bad


# ================================================================ GPU

def _lines_out(det, img):
    out = det.downloadResults(det.detect(cuda.GpuMat(img)))
    assert cvgpu.last_call_backend() == "cuda"
    return out if out[0] is not None else (None, None)


def _segments_out(det, img):
    d = det.detect(cuda.GpuMat(img))
    assert cvgpu.last_call_backend() == "cuda"
    return np.zeros((0, 4), np.int32) if d.empty() else d.download().reshape(-1, 4)


@pytest.mark.gpu
@pytest.mark.parametrize("shard", range(SHARDS))
def test_detectors_equal_opencv_cuda(corpus, compat, shard):
    bad = []
    for i in range(shard, int(corpus["cases"]), SHARDS):
        img = _image(corpus, i)
        rho, theta, threshold, do_sort, max_lines = p = _lines_params(corpus, i)
        case = _lines_out(cuda.createHoughLinesDetector(rho, theta, threshold, do_sort, max_lines), img)
        full = _lines_out(cuda.createHoughLinesDetector(rho, theta, threshold, False, 1 << 30), img)
        exact, complete = check_lines(corpus, i, case, full)
        compat.record("cuda.HoughLinesDetector", "seeded-complete" if complete else "seeded-truncated", exact,
                      reference="opencv-cuda-golden", kind="result" if corpus["lines_count"][i][1] else "empty",
                      inputs=(img,) + p)
        rho, theta, min_len, max_gap, max_lines, threshold = q = _segments_params(corpus, i)
        seg_case = _segments_out(cuda.createHoughSegmentDetector(rho, theta, min_len, max_gap, max_lines, threshold), img)
        seg_full = _segments_out(cuda.createHoughSegmentDetector(rho, theta, min_len, max_gap, 1 << 30, threshold), img)
        seg_exact, seg_complete = check_segments(corpus, i, seg_case, seg_full)
        compat.record("cuda.HoughSegmentDetector", "seeded-complete" if seg_complete else "seeded-truncated",
                      seg_exact, reference="opencv-cuda-golden",
                      kind="result" if corpus["segments_count"][i][1] else "empty", inputs=(img,) + q)
        if not (exact and seg_exact):
            bad.append((i, exact, seg_exact))
    assert bad == [], "cases differing from OpenCV-CUDA (case, lines, segments): %s" % bad
