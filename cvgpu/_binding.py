"""Argument handling that mirrors cv2's generated Python bindings.

cv2 parses ``(*args, **kwargs)`` against the C++ signature, converts each argument in declaration
order and, when no overload accepts them, raises ``cv2.error`` code -5 listing every overload's
complaint. cvgpu's public functions run their arguments through :func:`parse` so that a call cv2
rejects is rejected here with the same message, and a call cv2 accepts is read the same way
(``None`` for a number is 0, ``rho`` is a double, ``threshold`` a C int, and so on).
"""
import numbers

import cv2
import numpy as np

from . import _errors

REQUIRED = object()

_INT_MIN, _INT_MAX = -(1 << 31), (1 << 31) - 1
_CV2_MAJOR = int(cv2.__version__.split(".")[0])
# Largest trailing dimension that cv2 reads as channels rather than as a third axis.
CN_MAX = 128 if _CV2_MAJOR >= 5 else 512


class Param:
    __slots__ = ("name", "kind", "default")

    def __init__(self, name, kind, default=REQUIRED):
        self.name, self.kind, self.default = name, kind, default


class ConversionError(Exception):
    pass


def _to_double(name, value):
    if value is None:
        return 0.0
    if isinstance(value, (bool, np.bool_)):
        raise ConversionError("Argument '%s' must be double, not bool" % name)
    if isinstance(value, (numbers.Real, np.floating, np.integer)) and not isinstance(value, np.ndarray):
        return float(value)
    raise ConversionError("Argument '%s' can not be treated as a double" % name)


def _to_int(name, value):
    if value is None:
        return 0
    if isinstance(value, (bool, np.bool_)):
        raise ConversionError("Argument '%s' must be integer, not bool" % name)
    if isinstance(value, (int, np.integer)):
        value = int(value)
        if not _INT_MIN <= value <= _INT_MAX:
            raise ConversionError("integer won't fit into a C int")
        return value
    raise ConversionError("Argument '%s' is required to be an integer" % name)


def _to_bool(name, value):
    if value is None:
        return False
    if isinstance(value, (bool, np.bool_, int, np.integer)):
        return bool(value)
    raise ConversionError("Argument '%s' is not convertable to bool" % name)


_CONVERTERS = {"double": _to_double, "int": _to_int, "bool": _to_bool}


def parse(func_name, params, args, kwargs, convert_array):
    """Bind and convert like cv2's binding; ``convert_array(name, value)`` handles array params."""
    n_params = len(params)
    if len(args) + len(kwargs) > n_params:
        msg = "%s() takes at most %d arguments (%d given)" % (func_name, n_params, len(args) + len(kwargs))
        raise _errors.bad_argument(func_name, msg, msg)
    raw = {}
    remaining = dict(kwargs)
    for i, p in enumerate(params):
        if i < len(args):
            raw[p.name] = args[i]
        elif p.name in remaining:
            raw[p.name] = remaining.pop(p.name)
        elif p.default is REQUIRED:
            msg = "%s() missing required argument '%s' (pos %d)" % (func_name, p.name, i + 1)
            raise _errors.bad_argument(func_name, msg, msg)
        else:
            raw[p.name] = p.default
    for i, p in enumerate(params[: len(args)]):
        if p.name in remaining:
            msg = "argument for %s() given by name ('%s') and position (%d)" % (func_name, p.name, i + 1)
            raise _errors.bad_argument(func_name, msg, msg)
    if remaining:
        msg = "'%s' is an invalid keyword argument for %s()" % (next(iter(remaining)), func_name)
        raise _errors.bad_argument(func_name, msg, msg)
    out = {}
    for p in params:
        try:
            if p.kind in _CONVERTERS:
                if raw[p.name] is None and p.default is not REQUIRED:
                    # cv2 leaves an argument given as None at its initial value: the default.
                    out[p.name] = p.default
                    continue
                out[p.name] = _CONVERTERS[p.kind](p.name, raw[p.name])
            else:
                out[p.name] = convert_array(p.name, raw[p.name])
        except ConversionError as exc:
            first = str(exc)
            # The UMat overload fails at the first array argument that is not a UMat-convertible array.
            second = "Expected Ptr<cv::UMat> for argument '%s'" % p.name if p.kind == "mat" else first
            raise _errors.bad_argument(func_name, first, second) from None
    return out


class HostMat:
    """What cv2's numpy-to-Mat conversion makes of a host array: its header, not its data."""

    __slots__ = ("array", "rows", "cols", "channels", "dtype")

    def __init__(self, array, rows, cols, channels, dtype):
        self.array, self.rows, self.cols, self.channels, self.dtype = array, rows, cols, channels, dtype

    def is_type(self, dtype, channels):
        return self.dtype == np.dtype(dtype) and self.channels == channels


_SUPPORTED_DTYPES = {np.dtype(t) for t in (
    np.uint8, np.int8, np.uint16, np.int16, np.int32, np.int64, np.uint64, np.float16, np.float32,
    np.float64)}
if _CV2_MAJOR >= 5:  # OpenCV 5 added CV_Bool and CV_32U
    _SUPPORTED_DTYPES |= {np.dtype(np.bool_), np.dtype(np.uint32)}


def mat_header(name, value, shape, dtype):
    """Rows, cols and channels as cv2 reads an array of this shape (ndim > 2 rules included)."""
    if dtype not in _SUPPORTED_DTYPES:
        raise ConversionError("%s data type = %s is not supported" % (name, dtype.name))
    ndim = len(shape)
    if ndim == 0:
        return HostMat(value, 1, 1, 1, dtype)
    if ndim == 1:
        # OpenCV 5 has 1-D Mats (one row); OpenCV 4 makes a column.
        return HostMat(value, 1, shape[0], 1, dtype) if _CV2_MAJOR >= 5 else HostMat(value, shape[0], 1, 1, dtype)
    if ndim == 2:
        return HostMat(value, shape[0], shape[1], 1, dtype)
    if ndim == 3 and shape[2] <= CN_MAX:
        return HostMat(value, shape[0], shape[1], shape[2], dtype)
    # A true n-d Mat: cv2 reports rows = cols = -1 for it.
    return HostMat(value, -1, -1, 1, dtype)


def host_mat(name, value):
    """Convert a host-side argument the way cv2's ``pyopencv_to(Mat)`` does."""
    if value is None:
        return HostMat(None, 0, 0, 1, np.dtype(np.uint8))
    if isinstance(value, np.ndarray):
        return mat_header(name, value, value.shape, value.dtype)
    if isinstance(value, (bool, numbers.Real, np.generic)) or (
            isinstance(value, tuple) and all(isinstance(v, numbers.Real) for v in value)):
        # Scalars and tuples of numbers become a CV_64F column (4x1 for a scalar).
        n = len(value) if isinstance(value, tuple) else 4
        return HostMat(None, n, 1, 1, np.dtype(np.float64))
    raise ConversionError("%s is not a numpy array, neither a scalar" % name)
