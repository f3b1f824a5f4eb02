"""The one place that builds ``cv2.error`` exceptions.

cv2 raises ``cv2.error`` with the attributes ``code``, ``err``, ``func``, ``file``, ``line`` and
``msg``; code written against cv2 catches it and sometimes reads ``code``. cvgpu raises the same
class with the same ``code``, ``err`` and ``func`` as cv2 would for the same input.
"""
import cv2

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


def cv_error(code, err, func, file="cvgpu", line=0):
    """Return a ``cv2.error`` carrying cv2's attributes (raise it at the call site)."""
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
    """cv2's binding error when no overload accepts the arguments (code -5, func = the Python name)."""
    err = "> Overload resolution failed:\n" + "".join(">  - %s\n" % m for m in overload_messages)
    exc = cv_error(BAD_ARGUMENT, err, func, file="", line=-1)
    exc.msg = "OpenCV(%s) :-1: error: (-5:Bad argument) in function '%s'\n%s" % (cv2.__version__, func, err)
    exc.args = (exc.msg,)
    return exc


def out_of_memory(nbytes):
    """cv2's allocation failure: the byte count is printed as the unsigned size_t cv2 asked for."""
    return cv_error(NO_MEMORY, "Failed to allocate %d bytes" % (nbytes % (1 << 64)), "OutOfMemoryError")
