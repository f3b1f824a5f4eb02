"""The one place that builds ``cv2.error`` exceptions.

cv2 raises ``cv2.error`` with the attributes ``code``, ``err``, ``func``, ``file``, ``line`` and
``msg``; code written against cv2 catches it and sometimes reads ``code``. cvgpu raises the same
class with the same ``code``, ``err``, ``func``, ``file``, ``line`` and message as cv2 would for
the same input.

File and line are measured, not written down: they are the build host's source path and move in
nearly every release (docs/opencv-versions.md, "Error sites"). Each place cvgpu raises an error
of OpenCV's C++ code is a *site* with one tiny cv2 call that fails there (``site``); the first
time cvgpu raises it, that call runs once and cv2's file and line are kept for the process.
"""
import math
import threading

import cv2

from . import _versions

# OpenCV's cv::Error::Code names, as cv2 prints them inside the message.
_CODE_NAMES = {
    -1: "Unknown error code -1",
    -2: "Unspecified error",
    -4: "Insufficient memory",
    -5: "Bad argument",
    -6: "Bad parameter or structure field",
    -201: "Incorrect size of input array",
    -209: "Sizes of input arguments do not match",
    -210: "Unsupported format or combination of formats",
    -211: "Input parameters are out of range",
    -213: "The function/feature is not implemented",
    -215: "Assertion failed",
    -217: "Gpu API call",
}

ASSERTION_FAILED = -215
UNSPECIFIED = -2
NO_MEMORY = -4
BAD_ARGUMENT = -5
BAD_SIZE = -201
BAD_VALUE = -211
UNSUPPORTED_FORMAT = -210
NOT_IMPLEMENTED = -213
GPU_API_ERROR = -217


_sites = {}
_where = {}
_sites_lock = threading.Lock()


def site(name, probe, code, func=None, file=None):
    """Register an error site: ``probe()`` makes the installed cv2 raise ``code`` (and ``func``,
    when given) there; ``file`` is what cvgpu prints if the probe does not (line 0). Returns name."""
    _sites[name] = (probe, code, func, file or name)
    return name


def where(name):
    """(file, line) of site ``name`` as the installed cv2 reports them (measured once)."""
    found = _where.get(name)
    if found is None:
        probe, code, func, fallback = _sites[name]
        found = (fallback, 0)
        try:
            probe()
        except cv2.error as exc:
            # cv2 stores the attributes on the class: read them at once.
            if exc.code == code and (func is None or exc.func == func):
                found = (exc.file, exc.line)
        except Exception:
            pass
        with _sites_lock:
            _where[name] = found
    return found


def cv_error(code, err, func, file="cvgpu", line=0, at=None):
    """Return a ``cv2.error`` carrying cv2's attributes (raise it at the call site). ``at``: the
    registered site whose measured file and line the error carries."""
    if at is not None:
        file, line = where(at)
    name = _CODE_NAMES.get(code, "Unknown error code %d" % code)
    if code == -2 and err.startswith(">"):
        # cv2's Check* macros put the whole explanation after the function name.
        msg = "OpenCV(%s) %s:%d: error: (%d:%s) in function '%s'\n%s" % (
            cv2.__version__, file, line, code, name, func, err)
    else:
        msg = "OpenCV(%s) %s:%d: error: (%d:%s) %s in function '%s'\n" % (
            cv2.__version__, file, line, code, name, err, func)
    exc = cv2.error(msg)
    exc.code, exc.err, exc.func, exc.file, exc.line, exc.msg = code, err, func, file, line, msg
    return exc


def bad_argument(func, *overload_messages):
    """cv2's binding error when no overload accepts the arguments (code -5, func = the Python name).
    Messages come in 4.11+'s order, every overload's Mat attempt before the UMat attempts; up to
    4.10 cv2 lists them per overload (Mat, UMat, next overload), ``binding.overload_order``."""
    n = len(overload_messages)
    if n > 2 and n % 2 == 0 and _versions.behaviour("binding.overload_order") == "interleaved":
        half = n // 2
        overload_messages = tuple(m for pair in zip(overload_messages[:half], overload_messages[half:])
                                  for m in pair)
    err = "> Overload resolution failed:\n" + "".join(">  - %s\n" % m for m in overload_messages)
    exc = cv_error(BAD_ARGUMENT, err, func, file="", line=-1)
    exc.msg = "OpenCV(%s) :-1: error: (-5:Bad argument) in function '%s'\n%s" % (cv2.__version__, func, err)
    exc.args = (exc.msg,)
    return exc


def _alloc_probe():
    import numpy as np
    # About 3.8e15 bytes of accumulator in every release (5.1's argument checks pass).
    cv2.HoughLines(np.zeros((1, 1), np.uint8), 1e-7, 1e-7, 5)


ALLOC = site("alloc.cpp", _alloc_probe, NO_MEMORY, "OutOfMemoryError")


def out_of_memory(nbytes):
    """cv2's allocation failure: the byte count is printed as the unsigned size_t cv2 asked for."""
    return cv_error(NO_MEMORY, "Failed to allocate %d bytes" % (nbytes % (1 << 64)), "OutOfMemoryError", at=ALLOC)


def check_func(signature):
    """A CV_Check error's func as the installed cv2 prints it: ``signature`` written with
    ``cv::InputArray``-style types, the cv:: of the array typedefs dropped where this cv2 drops it
    (``array_namespace``)."""
    if array_namespace() == "":
        for t in ("InputArray", "OutputArray", "InputOutputArray", "OutputArrayOfArrays", "InputArrayOfArrays"):
            signature = signature.replace("cv::" + t + ",", t + ",").replace("cv::" + t + ")", t + ")")
    return signature


_namespace = []


def array_namespace():
    """"cv::" or "": how the installed cv2's CV_Check funcs print ``cv::InputArray``.

    The func is the compiler's ``__PRETTY_FUNCTION__``, so it is a property of the build, not of the
    release: 5.0.0.93 ships GCC 10 wheels (manylinux2014, "cv::InputArray") and GCC 14 wheels
    (manylinux_2_28, "InputArray") under one version number. Measured once from findContoursLinkRuns'
    type check where cv2 has it (4.10+); before, the release table (``cvcheck.namespace``)."""
    if not _namespace:
        found = _versions.behaviour("cvcheck.namespace")
        if hasattr(cv2, "findContoursLinkRuns"):
            import numpy as np
            try:
                cv2.findContoursLinkRuns(np.zeros((1, 1), np.float32))
            except cv2.error as exc:
                if "findContoursLinkRuns(" in (exc.func or ""):
                    found = "cv::" if "(cv::InputArray" in exc.func else ""
            except Exception:
                pass
        _namespace.append(found)
    return _namespace[0]


# ---------------------------------------------------------------- CV_Check messages (5.1's Hough checks)

def cv_g(value):
    """A double as CV_Check prints it (an ostream's default: 6 significant digits; inf, nan)."""
    return "%g" % value


def check_positive_finite32(name, value, func, at):
    """``CV_Check(name, std::isfinite((float)name) && (float)name > 0, ...)``: the value narrowed to
    float, so 1e-50 (0 as float) and 1e39 (inf as float) fail."""
    import numpy as np
    with np.errstate(over="ignore"):
        v32 = float(np.float32(value))
    if not (math.isfinite(v32) and v32 > 0):
        raise cv_error(
            UNSPECIFIED, "> %s must be positive and finite:\n>     'std::isfinite((float)%s) && (float)%s > 0'\n"
            "> where\n>     '%s' is %s\n" % (name, name, name, name, cv_g(value)), func, at=at)


def check_threshold_non_negative(threshold, func, at):
    """``CV_CheckGE(threshold, 0, "threshold must be non-negative")``."""
    if threshold < 0:
        raise cv_error(
            UNSPECIFIED, "> threshold must be non-negative (expected: 'threshold >= 0'), where\n"
            ">     'threshold' is %d\n> must be greater than or equal to\n>     '0' is 0\n" % threshold, func, at=at)
