"""The OpenCV releases cvgpu follows, and what changed in each: the one table the layers consult.

cvgpu reproduces whichever cv2 it is imported beside. Where cv2's observable behaviour (values,
shapes, dtypes, None vs empty, error codes and texts, what the binding accepts) differs between
releases, the difference is one row of ``CHANGES``: a key, the value in each release range, the
cause (the OpenCV pull request, or the wheel build) and what cvgpu does about it. The argument
and output layers ask ``behaviour(key)``; no other module parses ``cv2.__version__``.
docs/opencv-versions.md is this table for readers, with the measurements behind each row.

Error sites' file paths and line numbers are not here: they move with every release and depend on
the build host's source path, so ``_errors`` measures them from the installed cv2 (one cheap call
that fails the same way, once per site and process) instead of tabulating them.

Validated: the newest wheel of every minor release from 4.5.5 to 5.1 (opencv-python, -headless,
-contrib; ``VALIDATED``). Beside a newer cv2 cvgpu keeps the newest validated behaviour, warns once
(``CvgpuVersionWarning``), and ``python -m cvgpu selftest`` says what still matches.
"""
import re
from collections import namedtuple

import cv2

# The newest wheel of each minor release the test suite was run against (see docs/opencv-versions.md).
VALIDATED = ((4, 5, 5), (4, 6, 0), (4, 7, 0), (4, 8, 1), (4, 9, 0), (4, 10, 0), (4, 11, 0), (4, 12, 0),
             (4, 13, 0), (4, 14, 0), (5, 0, 0), (5, 1, 0))

Change = namedtuple("Change", "key steps cause handling")


def _c(key, steps, cause, handling):
    return Change(key, tuple(steps), cause, handling)


# steps: ((first release, value), ...) in release order; the first release is (0, 0, 0).
CHANGES = (
    # ------------------------------------------------------------ binding (numpy -> Mat, Mat -> numpy)
    _c("binding.cn_max", [((0, 0, 0), 512), ((5, 0, 0), 128)],
       "5.0 widened the depth field of the type (CV_CN_SHIFT 3 -> 5, new depths, #23865), so "
       "CV_CN_MAX fell from 512 to 128",
       "a 3-D array's last axis counts as channels up to this many"),
    _c("binding.too_many_channels", [((0, 0, 0), "nd"), ((5, 1, 0), "error")],
       "5.1's pyopencv_to(Mat) rejects a trailing axis over CV_CN_MAX ('unable to wrap channels, "
       "invalid count (N, must be in [1, 128])', code -5) where 4.x/5.0 made an n-d Mat (pull "
       "request not identified; measured on 5.1.0.95)",
       "_binding.mat_header raises the binding error or makes the n-d header"),
    _c("binding.zero_channels", [((0, 0, 0), "accepted"), ((4, 14, 0), "error")],
       "from 4.14 (and in 5.x) the binding refuses a trailing axis of length 0 ('unable to wrap "
       "channels, invalid count (0, must be in [1, CV_CN_MAX])', code -5); before, the Mat was made "
       "and the function failed on it (pull request not identified; measured)",
       "_binding / findContoursLinkRuns' argument check"),
    _c("binding.one_d", [((0, 0, 0), "column"), ((5, 0, 0), "row")],
       "5.0's 0-d/1-d Mat (#23473): a 1-D array is a 1 x N Mat (dims 1), no longer N x 1",
       "_binding.mat_header's rows/cols for ndim 1"),
    _c("binding.dtypes", [((0, 0, 0), frozenset({"uint8", "int8", "uint16", "int16", "int32", "int64",
                                                  "uint64", "float32", "float64"})),
                          ((4, 8, 0), frozenset({"uint8", "int8", "uint16", "int16", "int32", "int64",
                                                  "uint64", "float16", "float32", "float64"})),
                          ((5, 0, 0), frozenset({"uint8", "int8", "uint16", "int16", "int32", "int64",
                                                  "uint64", "float16", "float32", "float64", "bool",
                                                  "uint32"}))],
       "float16 -> CV_16F from 4.8 (issue #23687); CV_Bool and CV_32U from 5.0 (#23865)",
       "numpy dtypes the binding converts; others fail with the binding's 'data type' error"),
    _c("binding.uint64_depth", [((0, 0, 0), "CV_32S"), ((5, 1, 0), "CV_64U")],
       "5.1 maps uint64 arrays to CV_64U; before, uint64 (like int64, still) was copied into CV_32S",
       "the type number and name in type errors (findContoursLinkRuns, HoughLines)"),
    _c("binding.int64_depth", [((0, 0, 0), "CV_32S"), ((5, 1, 0), "CV_64S_when_wide")],
       "5.1's binding keeps an int64 array whose values all fit int32 as CV_32S and makes any other "
       "int64 array CV_64S (type 11); before, every int64 array was copied into CV_32S (pull request "
       "not identified; measured on 5.1.0.95 with 0-d, 1-d and 2-d arrays)",
       "the type number and name in findContoursLinkRuns' type error; findContours leaves int64 "
       "images to cv2"),
    _c("binding.dtype_error_text", [((0, 0, 0), "typenum"), ((4, 9, 0), "name")],
       "#23958 (4.9): 'data type = uint32 is not supported' instead of numpy's type number "
       "('data type = 6')",
       "_binding's unsupported-dtype message"),
    _c("binding.readonly_output", [((0, 0, 0), "accepted"), ((4, 9, 0), "error")],
       "from 4.9 an output argument that is a read-only numpy array is the binding's error ('marked "
       "as output argument, but provided NumPy array marked as readonly'); before, cv2 wrote into it "
       "(pull request not identified; measured)",
       "_binding.out_mat / deliver"),
    _c("binding.empty_output", [((0, 0, 0), "none"), ((5, 1, 0), "shaped")],
       "#29524 (5.1): an output Mat created with a zero-length axis comes back as an empty ndarray "
       "of its shape and dtype (HoughLines (0, 1, 2), HoughLinesWithAccumulator (0, 3), "
       "RadonTransform (n, 0)); an output never created is still None",
       "the output layer returns None or the empty array of the shape cv2 created"),
    _c("binding.cn_shift", [((0, 0, 0), 3), ((5, 0, 0), 5)],
       "5.0's type encoding (#23865): type = depth + ((channels - 1) << CV_CN_SHIFT), CV_CN_SHIFT "
       "3 -> 5, so CV_8UC4 is 24 in 4.x and 96 in 5.x",
       "type numbers printed in type errors"),
    _c("binding.overload_order", [((0, 0, 0), "interleaved"), ((4, 11, 0), "mat_first")],
       "the binding generator lists an overload-resolution failure per C++ overload as Mat then "
       "UMat up to 4.10, and all Mat attempts before all UMat attempts from 4.11 (pull request "
       "not identified; measured on findContoursLinkRuns)",
       "_errors.bad_argument's message order"),
    _c("cvcheck.namespace", [((0, 0, 0), "cv::"), ((4, 13, 0), "")],
       "the func of a CV_Check error is the compiler's __PRETTY_FUNCTION__: GCC 14 builds "
       "(manylinux_2_28 wheels, the first in 4.13) print InputArray/OutputArray without cv::, GCC 10 "
       "builds (manylinux2014) with it; 5.0.0.93 ships both, so this row is only the fallback",
       "_errors.array_namespace measures it from the installed cv2 (4.10+); the func text of every "
       "-2 check (HoughLinesStandard, findContoursLinkRuns, ...)"),
    # ------------------------------------------------------------ integer conversions (fast_math.hpp)
    _c("cvround.out_of_range", [((0, 0, 0), "int_min"), ((4, 7, 0), "wrap"), ((4, 9, 0), "int_min"),
                                ((5, 1, 0), "saturate")],
       "x86 cvtsd2si gives INT_MIN out of range; the 4.7 and 4.8 wheels round through a 64-bit "
       "lrint truncated to int (wraps modulo 2**32, NaN/inf -> 0; wheel build, pull request not "
       "identified); 5.1 saturates at INT_MIN/INT_MAX (#30007)",
       "_cvmath's cvRound/cvFloor model, so sizes and out-of-memory byte counts match"),
    # ------------------------------------------------------------ HoughLines / HoughLinesWithAccumulator
    _c("hough.numangle", [((0, 0, 0), "round"), ((4, 7, 0), "floor_drop_pi")],
       "#22164 (4.7): numangle = cvFloor((max-min)/theta) + 1, less the last angle when it lands "
       "within theta/2 of pi; before, cvRound((max-min)/theta)",
       "hough.accumulator_size"),
    _c("hough.rho_output", [((0, 0, 0), "half_bin"), ((4, 13, 0), "exact")],
       "#27992 (4.13, fixes #25038): rho = (r - (numrho-1)/2) * rho in integers; before, "
       "(r - (numrho-1)*0.5f) * rho put every line half a bin off when numrho is even",
       "the kernels' rho mode"),
    _c("hough.use_edgeval", [((0, 0, 0), ()), ((4, 11, 0), ("HoughLines",)),
                             ((4, 12, 0), ("HoughLines", "HoughLinesWithAccumulator"))],
       "#21407 (4.11) added use_edgeval to HoughLines; #27390 (4.12) to HoughLinesWithAccumulator's binding",
       "the keyword is accepted only by the functions listed"),
    _c("hough.accumulator_shape", [((0, 0, 0), "n13"), ((5, 0, 0), "n3")],
       "5.0's 1-d Mat (#23473): the vector<Vec3f> result is (N, 3); 4.x's was (N, 1, 3)",
       "the output layer's reshape"),
    _c("hough.size_check", [((0, 0, 0), "set_size"), ((5, 0, 0), "product")],
       "4.x's Mat::create asserts each size ('s >= 0' in setSize); 5.0 lets the size_t product "
       "overflow into the out-of-memory error",
       "the order of the accumulator-size errors"),
    _c("hough.arg_checks", [((0, 0, 0), "standard"), ((5, 1, 0), "hough_lines")],
       "5.1 checks rho > 0 and finite, theta likewise, threshold >= 0 and max_theta >= min_theta in "
       "cv::HoughLines (code -2), before the emptiness and type checks; before, only "
       "HoughLinesStandard's max_theta >= min_theta (pull request not identified; measured)",
       "the argument layer's check order and texts"),
    _c("hough.empty_image", [((0, 0, 0), "none"), ((5, 1, 0), "accumulator_empty")],
       "5.1 (#29524 with 5.x's output creation): an empty image gives None from HoughLines but "
       "(0, 3) from HoughLinesWithAccumulator",
       "the output layer"),
    # ------------------------------------------------------------ HoughLinesP
    _c("hough_p.lines_shape", [((0, 0, 0), "n14"), ((5, 0, 0), "n4")],
       "5.0's 1-d Mat (#23473): HoughLinesP's vector<Vec4i> result is (N, 4); 4.x's was (N, 1, 4)",
       "cvgpu.hough.probabilistic's output shape; the lines argument is filled when it is (N, 1, 4) "
       "or (1, N, 4) int32"),
    _c("hough_p.arg_checks", [((0, 0, 0), "none"), ((5, 1, 0), "hough_lines_p")],
       "5.1 checks, in cv::HoughLinesP and in this order, rho and theta > 0 and finite (as float), "
       "threshold >= 0, minLineLength and maxLineGap finite and >= 0 (code -2), then returns None for "
       "an empty image of any type; before, a bad rho or theta reached the accumulator's allocation "
       "and negative lengths were accepted (pull request not identified; measured on 5.1.0.95)",
       "cvgpu.hough.probabilistic's argument checks and empty-image return"),
    _c("hough_p.no_segments", [((0, 0, 0), "none"), ((5, 1, 0), "empty_n4")],
       "#29524 (5.1): finding no segment in a non-empty image gives an empty (0, 4) int32 array "
       "(never the lines argument) instead of None",
       "cvgpu.hough.probabilistic.no_segments"),
    # ------------------------------------------------------------ ximgproc.RadonTransform
    _c("radon.warp", [((0, 0, 0), "fixed_point"), ((5, 0, 0), "float"), ((5, 1, 0), "float_or_ipp")],
       "4.x warps 8-bit and float32 images in fixed point (INTER_BITS tables); 5.0's warpAffine "
       "interpolates in float32 (#25984); 5.1 sends 8-bit and float32 warps through IPP while "
       "cv2.ipp.useIPP() (results equal 5.0's with IPP off)",
       "the kernels reproduce 'float'; for 'fixed_point' and for IPP-on 5.1 cv2 computes (reported)"),
    _c("radon.one_d", [((0, 0, 0), "column"), ((5, 0, 0), "error")],
       "5.0's 1-d Mat (#23473): a 1-D src fails src.dims() == 2",
       "_plan's dims check"),
    _c("radon.no_angles", [((0, 0, 0), "none"), ((5, 1, 0), "shaped")],
       "#29524 (5.1): no angles gives an (n, 0) array instead of None",
       "the output layer"),
    # ------------------------------------------------------------ findContours family
    _c("contours.implementation", [((0, 0, 0), "legacy"), ((4, 10, 0), "scanner")],
       "#25146 (4.10) rewrote findContours in C++ (contours_new.cpp; errors from "
       "ContourScanner_::create, code -2) and added findContoursLinkRuns; before, "
       "cvStartFindContours_Impl (-210, -211)",
       "errors and label images follow the running implementation; link runs exist from 4.10"),
    _c("linkruns.nd_image", [((0, 0, 0), "computed"), ((5, 0, 0), "dims_error")],
       "4.x's findContoursLinkRuns runs on an n-d uint8 array (its first two axes); 5.0 asserts "
       "dims <= 2 in Mat::size() (measured)",
       "before 5.0 cv2 computes such calls"),
    _c("contours.create_signature", [((0, 0, 0), "mat"), ((4, 12, 0), "storage")],
       "4.12 passes the contour storages to ContourScanner_::create, changing the func text of its "
       "checks (pull request not identified; measured)",
       "the func of findContours' -2 checks"),
    _c("contours.tc89_l1", [((0, 0, 0), "legacy"), ((4, 10, 0), "scanner")],
       "#25146's new chain approximation: CHAIN_APPROX_TC89_L1 results differ from the legacy "
       "code's: the new code sometimes starts a contour one point earlier and ends it on that "
       "point again (101 of 800 random binary-image calls in 4.5.5 and 4.9; TC89_KCOS, NONE and "
       "SIMPLE are identical)",
       "before 4.10 cv2 computes TC89_L1 (reported); the kernels and tests/tc89_model follow 'scanner'"),
    _c("cuda.class_names", [((0, 0, 0), "flat"), ((4, 6, 0), "submodule")],
       "up to 4.5 the binding exposed CUDA classes as cv2.cuda_GpuMat (type name 'cuda_GpuMat') "
       "only; from 4.6 as cv2.cuda.GpuMat (binding generator's submodules; pull request not "
       "identified)",
       "cvgpu.cuda's class names and cvgpu.cuda_GpuMat"),
    # ------------------------------------------------------------ fitLine (LMS family's baseline)
    _c("fitline.module", [((0, 0, 0), "imgproc"), ((5, 0, 0), "geometry")],
       "5.0 moved fitLine into the geometry module (modules/geometry/src/linefit.cpp)",
       "measured file of fitLine's errors"),
)

_BY_KEY = {c.key: c for c in CHANGES}


def parse(version):
    """(major, minor, patch) of a cv2 version string such as '4.12.0' or '5.1.0-dev'; None if unreadable."""
    m = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", str(version))
    if m is None:
        return None
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


RUNNING = parse(cv2.__version__)


def effective(version=None):
    """The release whose behaviour cvgpu reproduces for ``version`` (default: the running cv2):
    itself when validated or between validated releases, else the nearest validated one."""
    v = RUNNING if version is None else (parse(version) if isinstance(version, str) else version)
    if v is None or v > VALIDATED[-1]:
        return VALIDATED[-1]
    if v < VALIDATED[0]:
        return VALIDATED[0]
    return v


def behaviour(key, version=None):
    """The value of row ``key`` for ``version`` (default: the running cv2)."""
    v = effective(version)
    value = None
    for since, val in _BY_KEY[key].steps:
        if v >= since:
            value = val
    return value


def status(version=None):
    """'validated', 'newer' (than the newest validated) or 'older', for ``version`` (default: running)."""
    v = RUNNING if version is None else (parse(version) if isinstance(version, str) else version)
    if v is None or v > VALIDATED[-1] and v[:2] != VALIDATED[-1][:2]:
        return "newer"
    if v < VALIDATED[0] and v[:2] != VALIDATED[0][:2]:
        return "older"
    return "validated"


def version_text(v):
    return ".".join(str(x) for x in v)
