"""cvgpu/_versions.py's table, checked against the cv2 these tests run beside.

Each row the table holds for the running release is observed on cv2 itself with a call that shows
it, so a table entry that is wrong for an installed wheel fails here, whatever cvgpu does with it.
"""
import cv2
import numpy as np
import pytest

from cvgpu import _errors, _versions

RUNNING = _versions.RUNNING
IMG = np.zeros((20, 30), np.uint8)
IMG[7, :] = 255
IMG[:, 11] = 3


def b(key):
    return _versions.behaviour(key)


class Err:
    """code, err, func, file and line of a cv2.error, copied when it is caught: cv2 stores them on
    the cv2.error class itself, so the next error overwrites what an earlier one shows."""

    def __init__(self, exc):
        self.code, self.err, self.func, self.file, self.line = exc.code, exc.err, exc.func, exc.file, exc.line


def error_of(fn):
    try:
        fn()
    except cv2.error as exc:
        return Err(exc)
    return None


def test_the_running_release_is_known():
    assert RUNNING == _versions.parse(cv2.__version__)
    assert _versions.status() in ("validated", "newer", "older")


def test_steps_are_in_release_order_and_start_at_zero():
    for change in _versions.CHANGES:
        releases = [since for since, _ in change.steps]
        assert releases[0] == (0, 0, 0) and releases == sorted(releases), change.key
        assert change.cause and change.handling, change.key


def test_use_edgeval_keyword():
    for fn in ("HoughLines", "HoughLinesWithAccumulator"):
        accepted = error_of(lambda: getattr(cv2, fn)(IMG, 1, 0.1, 5, use_edgeval=True)) is None
        assert accepted == (fn in b("hough.use_edgeval")), fn


def test_accumulator_shape():
    acc = cv2.HoughLinesWithAccumulator(IMG, 1, np.pi / 180, 5)
    assert acc.shape[1:] == ({"n13": (1, 3), "n3": (3,)}[b("hough.accumulator_shape")])


def test_hough_p_lines_shape():
    lines = cv2.HoughLinesP(IMG, 1, np.pi / 180, 5)
    assert lines.dtype == np.int32 and lines.shape[1:] == ({"n14": (1, 4), "n4": (4,)}[b("hough_p.lines_shape")])


def test_rho_output():
    img = np.zeros((30, 51), np.uint8)  # numrho = round(163 / 2) = 82: even, the two rules differ
    img[7, :] = 1
    rhos = set(cv2.HoughLines(img, 2.0, np.pi / 180, 5)[:, 0, 0].tolist())
    half_bin = any(r % 2 != 0 for r in rhos)  # (r - 81 * 0.5) * 2 is odd; (r - 40) * 2 even
    assert half_bin == (b("hough.rho_output") == "half_bin")


def test_numangle_rule():
    # theta = 10 over [0, pi]: cvRound(pi / 10) = 0 angles (no lines); cvFloor + 1 = 1 angle.
    lines = cv2.HoughLines(IMG, 1, 10.0, 0)
    assert (lines is None) == (b("hough.numangle") == "round")


def test_empty_output():
    lines = cv2.HoughLines(np.zeros((5, 5), np.uint8), 1, 0.1, 5)
    if b("binding.empty_output") == "none":
        assert lines is None
    else:
        assert lines.shape == (0, 1, 2) and lines.dtype == np.float32


def test_one_d_arrays():
    col = cv2.transpose(np.ones(3, np.float32)).shape  # N x 1 transposed is 1 x N, and back
    assert col == {"column": (1, 3), "row": (3, 1)}[b("binding.one_d")]


@pytest.mark.parametrize("name", ["bool", "uint32", "float16", "int64", "uint64", "int8"])
def test_binding_dtypes(name):
    exc = error_of(lambda: cv2.transpose(np.zeros((2, 2), np.dtype(name))))
    converts = exc is None or exc.code != -5
    assert converts == (name in b("binding.dtypes"))
    if not converts:
        typenum_text = "data type = %d is not supported" % np.dtype(name).num
        named = b("binding.dtype_error_text") == "name"
        assert ("data type = %s is not supported" % name in exc.err) == named
        assert (typenum_text in exc.err) == (not named)


def test_channel_limit():
    cn_max = b("binding.cn_max")
    at = error_of(lambda: cv2.HoughLines(np.ones((4, 4, cn_max), np.uint8), 1, 0.1, 5))
    over = error_of(lambda: cv2.HoughLines(np.ones((4, 4, cn_max + 1), np.uint8), 1, 0.1, 5))
    assert at.err == "img.type() == CV_8UC1"  # up to cn_max the trailing axis is channels
    if b("binding.too_many_channels") == "error":
        assert over.code == -5 and "invalid count (%d, must be in [1, %d])" % (cn_max + 1, cn_max) in over.err
    else:
        assert over.err != "img.type() == CV_8UC1"  # an n-d Mat: rows = cols = -1, a size error


def test_zero_channels():
    exc = error_of(lambda: cv2.transpose(np.ones((3, 4, 0), np.uint8)))
    refused = exc.code == -5 and "invalid count (0, must be in [1, " in exc.err
    assert refused == (b("binding.zero_channels") == "error")


def test_readonly_output():
    out = np.zeros((1, 1, 2), np.float32)
    out.setflags(write=False)
    exc = error_of(lambda: cv2.HoughLines(IMG, 1, 0.1, 5, out))
    assert (exc is not None and "marked as readonly" in exc.err) == (b("binding.readonly_output") == "error")


def test_cvround_out_of_range():
    # numrho = cvRound(float 101 / rho) = 5e9: INT_MIN (setSize / negative size), wraps to 705032704
    # (an allocation of about 93 GB fails), or saturates at the largest float32 below 2**31.
    exc = error_of(lambda: cv2.HoughLines(IMG, 101 / 5e9, 0.1, 5))
    rule = b("cvround.out_of_range")
    if rule == "wrap":
        assert exc.code == -4 and "93064317192 bytes" in exc.err
    elif rule == "saturate":
        assert exc.code == -4 and "%d bytes" % (33 * (2147483520 + 2) * 4) in exc.err
    else:
        assert exc.code in (-215, -4) and "93064317192" not in exc.err


def test_hough_argument_checks():
    exc = error_of(lambda: cv2.HoughLines(IMG.astype(np.float32), 0, 0.1, 5))
    if b("hough.arg_checks") == "hough_lines":
        assert exc.code == -2 and "rho must be positive" in exc.err and "cv::HoughLines(" in exc.func
    else:
        assert exc.code == -215 and exc.err == "img.type() == CV_8UC1"


def test_hough_p_argument_checks_and_no_segments():
    img = np.zeros((8, 8), np.uint8)
    f32 = np.zeros((8, 8), np.float32)
    if b("hough_p.arg_checks") == "hough_lines_p":
        with pytest.raises(cv2.error, match="rho must be positive"):
            cv2.HoughLinesP(f32, 0, 1, 1)
        with pytest.raises(cv2.error, match="minLineLength out of range"):
            cv2.HoughLinesP(img, 1, 1, 1, None, -1, 0)
        assert cv2.HoughLinesP(np.zeros((0, 3), np.float32), 1, 1, 1) is None
    else:
        with pytest.raises(cv2.error, match="CV_8UC1"):
            cv2.HoughLinesP(f32, 0, 1, 1)
        assert cv2.HoughLinesP(img, 1, 1, 1, None, -1, -1) is None
    found = cv2.HoughLinesP(img, 1, 1, 1)
    if b("hough_p.no_segments") == "empty_n4":
        assert found.shape == (0, 4) and found.dtype == np.int32
    else:
        assert found is None


@pytest.mark.skipif(not hasattr(cv2, "findContoursLinkRuns"), reason="findContoursLinkRuns exists from OpenCV 4.10")
def test_int64_depth():
    wide = np.full((2, 3), 1 << 31, np.int64)
    exc = error_of(lambda: cv2.findContoursLinkRuns(wide))
    expect = "11 (CV_64SC1)" if b("binding.int64_depth") == "CV_64S_when_wide" else "4 (CV_32SC1)"
    assert expect in exc.err
    assert "4 (CV_32SC1)" in error_of(lambda: cv2.findContoursLinkRuns(np.ones((2, 3), np.int64))).err


def test_check_func_namespace():
    exc = error_of(lambda: cv2.HoughLines(IMG, 1, 0.1, 5, min_theta=1.0, max_theta=0.5))
    assert ("cv::InputArray" in exc.func) == (_errors.array_namespace() == "cv::")
    if not hasattr(cv2, "findContoursLinkRuns"):
        # Before 4.10 the release table is the only source: it must agree with this cv2's build.
        assert _errors.array_namespace() == b("cvcheck.namespace")


def test_type_numbers_and_overload_order():
    if not hasattr(cv2, "findContoursLinkRuns"):
        pytest.skip("no findContoursLinkRuns before 4.10")
    exc = error_of(lambda: cv2.findContoursLinkRuns(np.zeros((2, 2, 4), np.uint8)))
    assert "is %d (CV_8UC4)" % ((4 - 1) << b("binding.cn_shift")) in exc.err
    exc = error_of(lambda: cv2.findContoursLinkRuns(np.zeros((2, 2), np.complex64)))
    lines = [line for line in exc.err.split("\n") if line.startswith(">  - ")]
    umat_first_half = "UMat" in lines[1]
    assert umat_first_half == (b("binding.overload_order") == "interleaved")


def test_linkruns_nd_image():
    if not hasattr(cv2, "findContoursLinkRuns"):
        pytest.skip("no findContoursLinkRuns before 4.10")
    exc = error_of(lambda: cv2.findContoursLinkRuns(np.ones((2, 3, 4, 2), np.uint8)))
    assert (exc is None) == (b("linkruns.nd_image") == "computed")


def test_cvgpu_has_what_cv2_has():
    import cvgpu
    assert hasattr(cvgpu, "findContoursLinkRuns") == hasattr(cv2, "findContoursLinkRuns")


def test_contours_implementation():
    exc = error_of(lambda: cv2.findContours(IMG.astype(np.float32), cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE))
    scanner = b("contours.implementation") == "scanner"
    assert ("ContourScanner_::create" in exc.func) == scanner
    assert hasattr(cv2, "findContoursLinkRuns") == scanner
    if scanner:
        assert ("storage_t&" in exc.func) == (b("contours.create_signature") == "storage")


@pytest.mark.skipif(not hasattr(cv2, "ximgproc"), reason="cv2 without contrib: no ximgproc")
def test_radon_one_d_and_no_angles():
    exc = error_of(lambda: cv2.ximgproc.RadonTransform(np.ones(7, np.uint8)))
    assert (exc is not None and "src.dims() == 2" in exc.err) == (b("radon.one_d") == "error")
    r = cv2.ximgproc.RadonTransform(np.ones((5, 5), np.uint8), None, 400.0)
    assert (r is None) == (b("radon.no_angles") == "none")


@pytest.mark.skipif(not hasattr(cv2, "ximgproc"), reason="cv2 without contrib: no ximgproc")
def test_radon_warp_ipp():
    """5.1 with IPP on differs from its own IPP-off result (which is 5.0's), only for 8-bit/float32."""
    if b("radon.warp") != "float_or_ipp":
        pytest.skip("this release has no IPP warp in RadonTransform")
    img = np.random.default_rng(0).integers(0, 256, (31, 50)).astype(np.uint8)
    saved = cv2.ipp.useIPP()
    try:
        cv2.ipp.setUseIPP(True)
        on = cv2.ximgproc.RadonTransform(img.copy())
        cv2.ipp.setUseIPP(False)
        off = cv2.ximgproc.RadonTransform(img.copy())
    finally:
        cv2.ipp.setUseIPP(saved)
    assert not np.array_equal(on, off)


def test_tc89_l1():
    rng = np.random.default_rng(1)
    repeats = False
    for _ in range(60):
        img = (rng.random((int(rng.integers(3, 40)), int(rng.integers(3, 40)))) < 0.4).astype(np.uint8)
        contours = cv2.findContours(img, cv2.RETR_LIST, cv2.CHAIN_APPROX_TC89_L1)[0]
        # The scanner's L1 sometimes ends a contour on its first point again; the legacy code never.
        repeats |= any(len(c) > 1 and (c[0] == c[-1]).all() for c in contours)
    assert repeats == (b("contours.tc89_l1") == "scanner")


def test_cuda_class_names():
    assert hasattr(cv2, "cuda") and (hasattr(cv2.cuda, "GpuMat") == (b("cuda.class_names") == "submodule"))


def test_fitline_module():
    exc = error_of(lambda: cv2.fitLine(np.zeros((0, 2), np.float32), cv2.DIST_L2, 0, 0.01, 0.01))
    assert ("/%s/" % b("fitline.module")) in exc.file.replace("\\", "/")


def test_effective_release_outside_the_validated_range():
    newest, oldest = _versions.VALIDATED[-1], _versions.VALIDATED[0]
    assert _versions.effective((newest[0], newest[1] + 1, 0)) == newest
    assert _versions.effective((4, 0, 0)) == oldest
    assert _versions.status((newest[0], newest[1] + 1, 0)) == "newer"
    assert _versions.status((newest[0], newest[1], newest[2] + 3)) == "validated"


def test_hypothesis_shrinking_is_bounded():
    """A failing property is reported in seconds, not after hypothesis' default 300 s of shrinking."""
    from hypothesis.internal.conjecture import engine
    assert engine.MAX_SHRINKING_SECONDS <= 60
