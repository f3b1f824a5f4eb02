"""cuda.HoughSegmentDetector against OpenCV-CUDA's own outputs (OpenCV's pip wheels have no CUDA).

The golden corpus, ``opencv_cuda_houghsegments_golden.npz`` (240 cases run through OpenCV's
cudaimgproc kernels on an H100, 16 of them voting in global memory), is found as the lines corpus is
(test_cuda_hough_golden.golden_dir: ``CVGPU_GOLDEN_DIR``, ``../shared/golden``, ``shared/golden``);
without it these tests skip and say why (under the device profile they fail).

The comparison rules are the corpus README's: OpenCV never orders its segments, so they compare as
multisets. A case with fewer segments than maxLines is complete and must be equal; a case with
maxLines segments is an arbitrary subset of OpenCV's candidates, so the golden segments must be a
sub-multiset of the full candidate set and there must be at least maxLines candidates.

On the CPU: the model (tests/models/cuda_segments_model.py) against all 240 cases, the proof that
the semantics are understood. On the GPU: the detector against all 240, and equal to the model.
"""
from collections import Counter

import numpy as np
import pytest

import cvgpu
import cvgpu.cuda as cuda
from cuda_segments_model import model_all_segments
from test_cuda_hough_golden import golden_file

GOLDEN_NAME = "opencv_cuda_houghsegments_golden.npz"
SHARDS = 8  # the model's cases in this many items (xdist spreads them; the large ones cost seconds)


def _load():
    data = np.load(golden_file(GOLDEN_NAME))
    return [(data["img_%d" % i], data["segments_%d" % i].reshape(-1, 4), data["params"][i])
            for i in range(len(data["params"]))]


@pytest.fixture(scope="module")
def golden():
    return _load()


def case_params(p):
    """(rho, theta, minLineLength, maxLineGap, maxLines, threshold) of a corpus row."""
    return float(p[0]), float(p[1]), int(p[2]), int(p[3]), int(p[4]), int(p[5])


def _bag(segs):
    return Counter(map(tuple, np.asarray(segs, np.int64).reshape(-1, 4).tolist()))


def golden_agrees(g, full, max_lines):
    """The README's rules: complete cases equal (as multisets); truncated ones a sub-multiset of the
    full candidate set, which holds at least maxLines segments."""
    gb, fb = _bag(g), _bag(full)
    if len(g) < max_lines:
        return gb == fb
    return len(g) == max_lines and not (gb - fb) and len(full) >= max_lines


@pytest.mark.parametrize("shard", range(SHARDS))
def test_model_matches_golden(golden, shard):
    bad = []
    for i in range(shard, len(golden), SHARDS):
        img, g, p = golden[i]
        rho, theta, min_len, max_gap, max_lines, threshold = case_params(p)
        full = model_all_segments(img, rho, theta, min_len, max_gap, threshold)
        if not golden_agrees(g, full, max_lines):
            bad.append(i)
    assert bad == [], "model disagrees with OpenCV-CUDA on cases %s" % bad


# Cases where the other contractions of the walk's start differ (found by running them on all 240).
_DISCRIMINATING = [50, 61, 125, 138, 152, 170, 206, 214, 232, 239]


@pytest.mark.parametrize("fused", ["none", "p", "a+sub"])
def test_other_contractions_disagree_with_golden(golden, fused):
    """No FMA, fmaf(sin, radius, a * dir) and a fused cols - 1 - p0.x each fail some golden cases."""
    bad = []
    for i in _DISCRIMINATING:
        img, g, p = golden[i]
        rho, theta, min_len, max_gap, max_lines, threshold = case_params(p)
        if not golden_agrees(g, model_all_segments(img, rho, theta, min_len, max_gap, threshold, fused), max_lines):
            bad.append(i)
    assert bad, "fused=%r unexpectedly matches every discriminating case" % fused


def test_corpus_kinds(golden):
    """Complete, truncated, empty and global-memory cases are all there."""
    from cvgpu.cuda import hough as chough
    kinds = Counter()
    for img, g, p in golden:
        rho, theta, _, _, max_lines, _ = case_params(p)
        kinds["empty" if len(g) == 0 else "truncated" if len(g) == max_lines else "complete"] += 1
        numrho = chough.accumulator_size(img.shape[0], img.shape[1], np.float32(rho), np.float32(theta))[1]
        kinds["global"] += not chough.shared_vote_semantics(numrho)
    assert kinds["empty"] and kinds["truncated"] and kinds["complete"] and kinds["global"] >= 1, kinds


@pytest.mark.gpu
@pytest.mark.parametrize("shard", range(SHARDS))
def test_golden_all_cases(golden, compat, shard):
    """The detector against OpenCV-CUDA's output, and equal to the model (order included)."""
    bad = []
    for i in range(shard, len(golden), SHARDS):
        img, g, p = golden[i]
        rho, theta, min_len, max_gap, max_lines, threshold = case_params(p)
        d = cuda.createHoughSegmentDetector(rho, theta, min_len, max_gap, max_lines, threshold).detect(
            cuda.GpuMat(img))
        assert cvgpu.last_call_backend() == "cuda"
        ours = np.zeros((0, 4), np.int32) if d.empty() else d.download().reshape(-1, 4)
        full_d = cuda.createHoughSegmentDetector(rho, theta, min_len, max_gap, 1 << 30, threshold).detect(img)
        full = np.zeros((0, 4), np.int32) if full_d.empty() else full_d.download().reshape(-1, 4)
        model = model_all_segments(img, rho, theta, min_len, max_gap, threshold)
        complete = len(g) < max_lines
        exact = (golden_agrees(g, full, max_lines) and full.tobytes() == model.tobytes() and
                 ours.tobytes() == model[:max_lines].tobytes())
        compat.record("cuda.HoughSegmentDetector", "golden-complete" if complete else "golden-truncated", exact,
                      reference="opencv-cuda-golden", kind="empty" if len(g) == 0 else "result",
                      inputs=(img, rho, theta, min_len, max_gap, max_lines, threshold))
        if not exact:
            bad.append(i)
    assert bad == [], "cases differing from OpenCV-CUDA: %s" % bad
