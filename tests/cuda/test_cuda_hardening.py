"""Hardening of cuda.createHoughLinesDetector and its detector (issue 10). cvgpu's own
createHoughLinesDetector has no cv2 counterpart without CUDA: it must give a detector or the Python
error of a one-overload cv2 binding, never another exception. It and the detector's setters are
bound with one overload, as OpenCV-CUDA binds them: their errors are the Python errors of cv2's
one-overload bindings, checked against cv2's own (test_one_overload_binding_matches_cv2s). Without a
GPU, detect is a cv2.error; with one, the detector follows its stream argument. The shared rules
and builders are tests/hardening_support.py's; cv2.cuda's GpuMat and Stream without a GPU are in
tests/test_hardening_common.py.
"""
import warnings

import cv2
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import cvgpu
from conftest import spin
from hardening_support import (HAS_GPU, INF, NAN, _cupy, _gpu_calls, _quiet_fallback, _same_tree,  # noqa: F401
                               _to_host, array_specs, assert_unchanged, build, outcome)


# ================================================================ cuda: createHoughLinesDetector

@given(args=st.lists(st.sampled_from([1, 1.0, 0.5, 0, -1, NAN, INF, None, True, "x", 2**31, 2**70, np.float32(0.1),
                                      np.int64(5), [1]]), min_size=0, max_size=7),
       kw=st.sampled_from([{}, {"doSort": True}, {"maxLines": 10}, {"maxlines": 10}, {"rho": 1.0}, {"doSort": 2.5}]))
def test_create_hough_lines_detector_bad_arguments(args, kw):
    """cv2 without CUDA has no createHoughLinesDetector: the binding must give a detector or the
    Python error of a one-overload cv2 binding (TypeError, ValueError, OverflowError), never
    another exception (the messages are checked against cv2's own bindings below)."""
    binding_errors = {"TypeError", "ValueError", "OverflowError"}
    res = outcome(lambda: cvgpu.cuda.createHoughLinesDetector(*args, **kw))
    assert res[0] == "ok" or res[1] in binding_errors, res
    if res[0] == "ok":
        det = cvgpu.cuda.createHoughLinesDetector(*args, **kw)
        for setter, value in (("setRho", NAN), ("setTheta", -1.0), ("setThreshold", -5), ("setDoSort", None),
                              ("setMaxLines", 0), ("setRho", "x"), ("setTheta", 1 + 0j), ("setThreshold", 1.5),
                              ("setThreshold", 2**40), ("setMaxLines", 2**70), ("setDoSort", 1.5), ("setDoSort", "x")):
            r = outcome(lambda: getattr(det, setter)(value))
            assert r[0] == "ok" or r[1] in binding_errors, (setter, r)


# cv2 functions bound with one overload whose parameters have the kinds of createHoughLinesDetector's
# and its setters' (float, int, bool; required and defaulted): their bindings are the reference for
# cvgpu._binding.parse(..., overloads=1). Each: (function, name, params, read back the converted
# values from cv2 after a successful call, or None).
_P = cvgpu._binding.Param
_ORB_PARAMS = [_P("nfeatures", "int", 500), _P("scaleFactor", "float", 1.2), _P("nlevels", "int", 8),
               _P("edgeThreshold", "int", 31), _P("firstLevel", "int", 0), _P("WTA_K", "int", 2),
               _P("scoreType", "int", 0), _P("patchSize", "int", 31), _P("fastThreshold", "int", 20)]
_ORB_GETTERS = ("getMaxFeatures", "getScaleFactor", "getNLevels", "getEdgeThreshold", "getFirstLevel", "getWTA_K",
                "getScoreType", "getPatchSize", "getFastThreshold")
_ONE_OVERLOAD_TWINS = {
    "ORB_create": (cv2.ORB_create, _ORB_PARAMS, lambda orb: [getattr(orb, g)() for g in _ORB_GETTERS]),
    "getGaussianKernel": (cv2.getGaussianKernel, [_P("ksize", "int"), _P("sigma", "double"), _P("ktype", "int", 6)],
                          None),
    "setUseOptimized": (cv2.setUseOptimized, [_P("onoff", "bool")], lambda _: [cv2.useOptimized()]),
}


# Small ints only: getGaussianKernel really allocates ksize doubles.
_BINDING_VALUES = [0, 1, 3, -1, 2.5, 1e300, NAN, INF, None, True, False, "x", 2**40, 2**70, 10**400, 1j, [1],
                   np.float16(1.5), np.float32(0.5), np.float64(2.5), np.longdouble(2), np.int8(2), np.uint16(3),
                   np.int32(2), np.int64(3), np.uint64(1), np.complex64(1), np.complex128(2), np.bool_(True),
                   np.array(2.0), np.array([1])]


@given(twin=st.sampled_from(sorted(_ONE_OVERLOAD_TWINS)),
       args=st.lists(st.sampled_from(_BINDING_VALUES), max_size=10),
       kwargs=st.dictionaries(st.sampled_from(["nfeatures", "scaleFactor", "nlevels", "scoreType", "ksize", "sigma",
                                               "ktype", "onoff", "bogus"]),
                              st.sampled_from(_BINDING_VALUES), max_size=3))
def test_one_overload_binding_matches_cv2s(twin, args, kwargs):
    """The binding of one-overload functions (createHoughLinesDetector, the detector's setters)
    against cv2's own: the same exception type and message, or, where cv2 accepts the arguments,
    the same converted values (a float parameter narrowed to float32, as cv2 reads it back)."""
    _compare_one_overload(twin, args, kwargs)


@pytest.mark.parametrize("twin,param", [("ORB_create", "scaleFactor"), ("ORB_create", "nfeatures"),
                                        ("getGaussianKernel", "sigma"), ("setUseOptimized", "onoff")])
def test_one_overload_converters_match_cv2s(twin, param):
    """Every sample value through each converter kind (float, int, double, bool), by keyword."""
    for value in _BINDING_VALUES:
        _compare_one_overload(twin, (3,) if param == "sigma" else (), {param: value})


def _compare_one_overload(twin, args, kwargs):
    fn, params, read_back = _ONE_OVERLOAD_TWINS[twin]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpy's ComplexWarning, in both
        try:
            made = fn(*args, **kwargs)
            ref = ("ok", read_back(made) if read_back else None)
        except cv2.error:  # the function itself ran (and refused the values): the binding accepted them
            ref = ("ok", None)
        except (TypeError, ValueError, OverflowError) as e:
            ref = (type(e).__name__, str(e))
        finally:
            cv2.setUseOptimized(True)
        try:
            got = cvgpu._binding.parse(twin, params, tuple(args), dict(kwargs), None, overloads=1)
            values = [np.float32(got[p.name]).item() if p.kind == "float" else got[p.name] for p in params]
            mine = ("ok", values if ref[1] is not None else None)
        except (TypeError, ValueError, OverflowError) as e:
            mine = (type(e).__name__, str(e))
    if ref[0] == "ok" and ref[1] is not None:
        assert mine[0] == "ok", (args, kwargs, mine, ref)
        assert np.array_equal(np.array(mine[1], np.float64), np.array(ref[1], np.float64), equal_nan=True), \
            (args, kwargs, mine, ref)
    else:
        assert mine == ref, (args, kwargs)


@pytest.mark.skipif(HAS_GPU, reason="the no-GPU error")
@given(spec=array_specs(shapes=[(1, 1), (8, 6), (8, 6, 1), (8, 6, 3), (0, 0), (7,)]))
def test_cuda_detect_without_gpu_is_a_cv2_error(spec):
    det = cvgpu.cuda.createHoughLinesDetector(1.0, np.pi / 180, 5)
    img = build(spec)
    res = outcome(lambda: det.detect(img))
    assert res[0] == "ok" or res[1] == "cv2.error", res
    assert_unchanged(img, ("array", spec), "detect modified its input")


# -- cvgpu's own detector: the bindings' errors for what its setters reject

@pytest.mark.parametrize("setter,args,error,message", [
    ("setRho", ("x",), TypeError, "Argument 'rho' can't be treated as a float"),
    ("setRho", (np.int32(2),), TypeError, "Argument 'rho' can not be safely parsed to 'float'"),
    ("setTheta", (True,), TypeError, "Argument 'theta' must be float, not bool"),
    ("setTheta", (1 + 0j,), TypeError, "must be real number, not complex"),
    ("setRho", (10**400,), OverflowError, "int too large to convert to float"),
    ("setThreshold", (1.5,), TypeError, "Argument 'threshold' is required to be an integer"),
    ("setThreshold", (2**40,), ValueError, "integer won't fit into a C int"),
    ("setMaxLines", (2**70,), OverflowError, "Python int too large to convert to C long"),
    ("setDoSort", (1.5,), TypeError, "Argument 'doSort' is not convertable to bool"),
    ("setRho", (), TypeError, "cuda_HoughLinesDetector.setRho() missing required argument 'rho' (pos 1)"),
    ("setMaxLines", (1, 2), TypeError, "cuda_HoughLinesDetector.setMaxLines() takes at most 1 argument (2 given)")])
def test_detector_setter_of_wrong_type_is_the_bindings_error(setter, args, error, message):
    """The setters are bound with one overload each, as cv2 binds e.g. CLAHE.setClipLimit: the
    converter's own Python error (see test_one_overload_binding_matches_cv2s); the detector keeps
    its value."""
    det = cvgpu.cuda.createHoughLinesDetector(1.0, np.pi / 180, 5, True, 100)
    before = (det.getRho(), det.getTheta(), det.getThreshold(), det.getDoSort(), det.getMaxLines())
    with pytest.raises(error) as e:
        getattr(det, setter)(*args)
    assert type(e.value) is error and str(e.value) == message
    assert (det.getRho(), det.getTheta(), det.getThreshold(), det.getDoSort(), det.getMaxLines()) == before


def test_detector_setters_take_keywords_and_none_as_cv2():
    det = cvgpu.cuda.createHoughLinesDetector(1.0, np.pi / 180, 5, True, 100)
    det.setRho(rho=2.5)
    det.setThreshold(threshold=None)  # None: the parameter's initial value, 0
    det.setTheta(np.float16(0.25))
    assert (det.getRho(), det.getThreshold(), det.getTheta()) == (2.5, 0, 0.25)


# ================================================================ GPU part

@pytest.mark.gpu
def test_gpu_detector_follows_its_stream_argument():
    cp = _cupy()
    img = _gpu_calls()[0][1]
    det = cvgpu.cuda.createHoughLinesDetector(1.0, np.pi / 180, 20)
    want = det.downloadResults(det.detect(cp.asarray(img)))
    stream = cvgpu.cuda.Stream(cp.cuda.Stream(non_blocking=True))
    device = cp.zeros(img.shape, img.dtype)
    with stream.cupy:
        spin(cp, stream.cupy, 0.3)
        device.set(img)
    got = det.downloadResults(det.detect(device, stream=stream), stream=stream)
    stream.waitForCompletion()
    assert _same_tree(tuple(_to_host(list(got))), tuple(_to_host(list(want))))
