"""cuda.HoughLinesDetector against OpenCV-CUDA's own outputs (OpenCV's pip wheels have no CUDA).

The golden corpus, ``opencv_cuda_houghlines_golden.npz`` (240 cases run through OpenCV's cudaimgproc
kernels on an H100, all voting in shared memory), is read from ``CVGPU_GOLDEN_DIR``, by default
``../shared/golden`` beside the checkout, else ``shared/golden`` inside it. Without it these tests skip
and say why; under the device profile they fail (the device run is the matrix's evidence).
``tests/golden/opencv_cuda_houghlines_global.npz`` holds OpenCV's outputs for cases above its
shared-memory limit (global-memory voting; compat_matrix/record_golden_global.py): its test skips
while the file has not been recorded.

The comparison rules are the corpus README's. A case with fewer lines than maxLines is complete: its
set of (rho, theta, votes) is exact, and ours must equal it (compat row ``golden-complete``; an empty
golden case is recorded with kind "empty"). A case with maxLines lines is truncated: OpenCV kept an
arbitrary subset of its candidates, so only consistency can be checked: the golden lines are a subset
of our full candidate set (the same detector with room for every line), and ours are maxLines of
that set (row ``golden-truncated``: never counted as an exact comparison). With doSort the votes
must not increase.
"""
import os
from pathlib import Path

import numpy as np
import pytest

import cvgpu
import cvgpu.cuda as cuda
from cvgpu.cuda import hough as chough
from conftest import device_profile
from cuda_hough_model import model_detect

ROOT = Path(__file__).resolve().parents[2]
GOLDEN_NAME = "opencv_cuda_houghlines_golden.npz"
GLOBAL_GOLDEN = ROOT / "tests" / "golden" / "opencv_cuda_houghlines_global.npz"


def golden_dir():
    """CVGPU_GOLDEN_DIR, else ../shared/golden beside the checkout, else shared/golden inside it."""
    if os.environ.get("CVGPU_GOLDEN_DIR"):
        return Path(os.environ["CVGPU_GOLDEN_DIR"])
    for base in (ROOT.parent / "shared" / "golden", ROOT / "shared" / "golden"):
        if base.is_dir():
            return base
    return ROOT.parent / "shared" / "golden"


def load_cases(path):
    data = np.load(path)
    return [(data["img_%d" % i], data["lines_%d" % i], data["votes_%d" % i], data["params"][i])
            for i in range(len(data["params"]))]


def golden_file(name):
    """The corpus file ``name`` in golden_dir(); skips the test without it (fails it in the device
    profile, whose evidence needs it)."""
    path = golden_dir() / name
    if not path.is_file():
        message = ("%s not found: set CVGPU_GOLDEN_DIR, or put shared/golden beside the checkout or inside it"
                   % path)
        if device_profile():
            pytest.fail(message + " (the device profile's evidence needs it)")
        pytest.skip(message)
    return path


@pytest.fixture(scope="module")
def golden():
    return load_cases(golden_file(GOLDEN_NAME))


@pytest.fixture(scope="module")
def golden_global():
    if not GLOBAL_GOLDEN.is_file():
        pytest.skip("%s not recorded yet (compat_matrix/record_golden_global.py, on a GPU with OpenCV's "
                    "kernels)" % GLOBAL_GOLDEN.relative_to(ROOT))
    return load_cases(GLOBAL_GOLDEN)


def _as_set(lines, votes):
    lines = np.asarray(lines, np.float32).reshape(-1, 2)
    return set(zip(lines[:, 0].view(np.uint32).tolist(), lines[:, 1].view(np.uint32).tolist(),
                   np.asarray(votes).reshape(-1).tolist()))


def _sorted_by_votes(votes):
    return len(votes) < 2 or bool(np.all(np.diff(np.asarray(votes, np.int64).reshape(-1)) <= 0))


def golden_agrees(g_lines, g_votes, params, full_lines, full_votes):
    """The corpus README's rules, golden against a full candidate set: equal when complete, a subset
    of it (and the full set at least maxLines) when truncated; non-increasing votes with doSort."""
    _, _, _, do_sort, max_lines = params
    g = _as_set(g_lines, g_votes)
    full = _as_set(full_lines, full_votes) if full_lines is not None else set()
    ok = g == full if len(g_lines) < max_lines else (g <= full and len(full) >= max_lines)
    return ok and (not do_sort or _sorted_by_votes(g_votes))


def model_full(img, params, fused="x"):
    rho, theta, threshold, _, _ = params
    res = model_detect(img, rho, theta, int(threshold), False, 1 << 30, fused)
    return (None, None) if res is None else res


# ================================================================ CPU: the model against OpenCV's output

def test_model_matches_all_golden_cases(golden):
    """The arithmetic choice (x*cos fused, y*sin rounded, CUDA's sincosf) reproduces all 240 cases."""
    bad = [i for i, (img, gl, gv, p) in enumerate(golden) if not golden_agrees(gl, gv, p, *model_full(img, p))]
    assert bad == [], "model disagrees with OpenCV-CUDA on cases %s" % bad


# Cases where the other contractions give different results (found by running them on all 240).
_DISCRIMINATING = [19, 21, 26, 57, 102, 117, 154, 189, 193, 199, 226]


@pytest.mark.parametrize("fused", ["y", None])
def test_other_contractions_disagree_with_golden(golden, fused):
    """fmaf(y, sin, x*cos) and the uncontracted expression each fail some golden cases."""
    bad = [i for i in _DISCRIMINATING
           if not golden_agrees(*golden[i][1:], *model_full(golden[i][0], golden[i][3], fused))]
    assert bad, "fused=%r unexpectedly matches every discriminating case" % (fused,)


def test_corpus_has_complete_truncated_and_empty_cases(golden):
    """The rows' split: both kinds of case are there, and the empty ones are complete."""
    complete = [len(gl) < p[4] for _, gl, _, p in golden]
    assert any(complete) and not all(complete)
    assert all(c for c, (_, gl, _, _) in zip(complete, golden) if len(gl) == 0)


# ================================================================ GPU: the detector against OpenCV's output

def _detect(det, img):
    return det.downloadResults(det.detect(cuda.GpuMat(img)))


def compare_golden(compat, cases, row, with_model):
    """Each case: the detector's lines against the golden ones by the README's rules; rows
    ``row + "-complete"`` and ``row + "-truncated"``. Returns the indices that differ. ``with_model``:
    the detector's lines must also equal the CPU model's, bit for bit and in order."""
    from test_cuda_hough import _same_as_model
    bad = []
    for i, (img, gl, gv, p) in enumerate(cases):
        rho, theta, threshold, do_sort, max_lines = float(p[0]), float(p[1]), int(p[2]), bool(p[3]), int(p[4])
        h_lines, h_votes = _detect(cuda.createHoughLinesDetector(rho, theta, threshold, do_sort, max_lines), img)
        full_lines, full_votes = _detect(cuda.createHoughLinesDetector(rho, theta, threshold, False, 1 << 30), img)
        assert cvgpu.last_call_backend() == "cuda"
        complete = len(gl) < max_lines
        ours = _as_set(h_lines, h_votes) if h_lines is not None else set()
        full = _as_set(full_lines, full_votes) if full_lines is not None else set()
        agrees = golden_agrees(gl, gv, (rho, theta, threshold, do_sort, max_lines), full_lines, full_votes)
        if complete:
            exact = agrees and ours == _as_set(gl, gv)
        else:
            exact = agrees and len(ours) == max_lines and ours <= full
        if do_sort and h_votes is not None:
            exact = exact and _sorted_by_votes(h_votes)
        if with_model:
            exact = exact and _same_as_model((rho, theta, threshold, do_sort, max_lines), img, (h_lines, h_votes))
        compat.record("cuda.HoughLinesDetector", row + ("-complete" if complete else "-truncated"), exact,
                      reference="opencv-cuda-golden", kind="empty" if len(gl) == 0 else "result",
                      inputs=(img, rho, theta, threshold, do_sort, max_lines))
        if not exact:
            bad.append(i)
    return bad


@pytest.mark.gpu
def test_golden_all_cases(golden, compat):
    bad = compare_golden(compat, golden, "golden", with_model=True)
    assert bad == [], "cases differing from OpenCV-CUDA: %s" % bad


@pytest.mark.gpu
def test_golden_global_memory_cases(golden_global, compat):
    """Cases above OpenCV's shared-memory limit (numrho >= 12037: OpenCV votes with global atomics
    and keeps column numrho + 1). Compared with OpenCV's output only: the model on images of
    millions of pixels takes minutes on a CPU."""
    for img, _, _, p in golden_global:
        numrho = chough.accumulator_size(img.shape[0], img.shape[1], np.float32(p[0]), np.float32(p[1]))[1]
        assert not chough.shared_vote_semantics(numrho), "not a global-memory case: %r" % (p,)
    bad = compare_golden(compat, golden_global, "golden-global", with_model=False)
    assert bad == [], "global-memory cases differing from OpenCV-CUDA: %s" % bad
