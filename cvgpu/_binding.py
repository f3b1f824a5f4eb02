"""Argument handling that mirrors cv2's generated Python bindings.

cv2 parses ``(*args, **kwargs)`` against the C++ signature, converts each argument in declaration
order and, when no overload accepts them, raises ``cv2.error`` code -5 listing every overload's
complaint. A function with a single overload (no array argument, so no Mat/UMat pair) raises the
complaint itself instead: CPython's TypeError for the argument binding, the converter's TypeError,
ValueError or OverflowError for a value (``parse(..., overloads=1)``). cvgpu's public functions run their arguments through :func:`parse` so that a call cv2
rejects is rejected here with the same message, and a call cv2 accepts is read the same way
(``None`` for a number is 0, ``rho`` is a double, ``threshold`` a C int, and so on).
"""
import operator

import cv2
import numpy as np

from . import _errors, _versions
from ._arrays import as_device_array

REQUIRED = object()

_INT_MIN, _INT_MAX = -(1 << 31), (1 << 31) - 1
# Largest trailing dimension that cv2 reads as channels rather than as a third axis (_versions).
CN_MAX = _versions.behaviour("binding.cn_max")
# A longer one: an n-d Mat, or the binding's own error (5.1).
_TOO_MANY_CHANNELS = _versions.behaviour("binding.too_many_channels")
_ONE_D = _versions.behaviour("binding.one_d")
_DTYPE_TEXT = _versions.behaviour("binding.dtype_error_text")
_READONLY_OUTPUT = _versions.behaviour("binding.readonly_output")
_CV_MAX_DIM = 32


class Param:
    __slots__ = ("name", "kind", "default")

    def __init__(self, name, kind, default=REQUIRED):
        self.name, self.kind, self.default = name, kind, default


class ConversionError(Exception):
    """An argument cv2's binding rejects, with its message; ``python_type`` is the Python exception
    that carries the message out of a binding with a single overload."""

    def __init__(self, message, python_type=TypeError):
        super().__init__(message)
        self.python_type = python_type


# CPython's OverflowError text of PyLong_AsLong (numpy's npy_intp is a C long on LP64).
LONG_OVERFLOW = "Python int too large to convert to C long"
_LONG_MIN, _LONG_MAX = -(1 << 63), (1 << 63) - 1


def _is_bool(value):
    return isinstance(value, (bool, np.bool_))


def _to_double(name, value):
    # cv2's pyopencv_to(double): Python numbers through PyLong_AsDouble / PyFloat_AsDouble (their
    # Python errors become the message), numpy scalars only when numpy casts them safely to double.
    if value is None:
        return 0.0
    if _is_bool(value):
        raise ConversionError("Argument '%s' must be double, not bool" % name)
    if isinstance(value, int):
        try:
            return float(value)
        except OverflowError:
            raise ConversionError("int too large to convert to float", OverflowError) from None
    if isinstance(value, float):
        return float(value)
    if isinstance(value, complex):
        # PyFloat_AsDouble: a type with __float__ (numpy's complex128, with its ComplexWarning) is
        # read through it; Python's complex has none.
        to_float = getattr(type(value), "__float__", None)
        if to_float is None:
            raise ConversionError("must be real number, not %s" % type(value).__name__)
        return float(to_float(value))
    if _is_numpy_scalar(value):
        return _numpy_scalar_as(name, value, np.float64, "double")
    raise ConversionError("Argument '%s' can not be treated as a double" % name)


def _is_numpy_scalar(value):
    return isinstance(value, np.generic) or (isinstance(value, np.ndarray) and value.ndim == 0)


def _numpy_scalar_as(name, value, dtype, c_type):
    # cv2's parseNumpyScalar: a numpy scalar that numpy casts safely to the C type; never a 0-d array.
    if isinstance(value, np.generic) and np.can_cast(value.dtype, dtype):
        return float(value)
    raise ConversionError("Argument '%s' can not be safely parsed to '%s'" % (name, c_type))


def _to_float(name, value):
    # cv2's pyopencv_to(float): Python numbers (np.float64 and np.complex128 are ones) read as for a
    # double, then narrowed; numpy scalars only when numpy casts them safely to float32 (so int32 and
    # float64 scalars of numpy's own types are refused, float16 accepted); 0-d arrays never.
    if value is None:
        return 0.0
    if _is_bool(value):
        raise ConversionError("Argument '%s' must be float, not bool" % name)
    if isinstance(value, (int, float, complex)):
        return _to_double(name, value)
    if _is_numpy_scalar(value):
        return _numpy_scalar_as(name, value, np.float32, "float")
    raise ConversionError("Argument '%s' can't be treated as a float" % name)


def _to_int(name, value):
    # cv2's pyopencv_to(int): Python ints and numpy integer scalars through numpy's
    # PyArray_PyIntAsInt (operator.index, then a C long, then a C int).
    if value is None:
        return 0
    if _is_bool(value):
        raise ConversionError("Argument '%s' must be integer, not bool" % name)
    if isinstance(value, (int, np.integer)):
        try:
            value = operator.index(value)
        except TypeError as exc:
            raise ConversionError(str(exc)) from None
        if not _LONG_MIN <= value <= _LONG_MAX:
            raise ConversionError(LONG_OVERFLOW, OverflowError)
        if not _INT_MIN <= value <= _INT_MAX:
            raise ConversionError("integer won't fit into a C int", ValueError)
        return value
    raise ConversionError("Argument '%s' is required to be an integer" % name)


def _to_bool(name, value):
    if value is None:
        return False
    if isinstance(value, (bool, np.bool_, int, np.integer)):
        return bool(value)
    raise ConversionError("Argument '%s' is not convertable to bool" % name)


_CONVERTERS = {"double": _to_double, "float": _to_float, "int": _to_int, "bool": _to_bool}


PENDING = "_pending"  # key of parse's result: the message of a Python error left pending, if any


def parse(func_name, params, args, kwargs, convert_array, order=None, overloads=2):
    """Bind and convert like cv2's binding; ``convert_array(name, value)`` handles array params.
    ``overloads``: 2 for a function cv2 binds as a Mat and a UMat overload (its errors are cv2.error
    -5 listing both), 1 for one overload (the Python exception itself, see the module docstring).

    cv2 converts in the C++ signature's order (``order``: parameter names; by default the Python
    order), so the first argument it rejects in that order names the error: HoughLines' ``lines``
    before ``rho``. An int beyond a C long given for an array leaves its Python error pending (see
    Pending): the next given double (or an int read as -1) fails with it; if none does, the result
    carries it under PENDING and the caller raises what cv2 raises once the call has run."""
    def binding_error(msg):
        return TypeError(msg) if overloads == 1 else _errors.bad_argument(func_name, msg, msg)

    n_params = len(params)
    if len(args) + len(kwargs) > n_params:
        # CPython's PyArg_ParseTupleAndKeywords wording: "keyword " when no argument is positional.
        msg = "%s() takes at most %d %sargument%s (%d given)" % (
            func_name, n_params, "" if args else "keyword ", "" if n_params == 1 else "s", len(args) + len(kwargs))
        raise binding_error(msg)
    raw = {}
    remaining = dict(kwargs)
    given = set()
    for i, p in enumerate(params):
        if i < len(args):
            raw[p.name] = args[i]
            given.add(p.name)
        elif p.name in remaining:
            raw[p.name] = remaining.pop(p.name)
            given.add(p.name)
        elif p.default is REQUIRED:
            msg = "%s() missing required argument '%s' (pos %d)" % (func_name, p.name, i + 1)
            raise binding_error(msg)
        else:
            raw[p.name] = p.default
    for i, p in enumerate(params[: len(args)]):
        if p.name in remaining:
            msg = "argument for %s() given by name ('%s') and position (%d)" % (func_name, p.name, i + 1)
            raise binding_error(msg)
    if remaining:
        msg = "'%s' is an invalid keyword argument for %s()" % (next(iter(remaining)), func_name)
        raise binding_error(msg)
    out = {}
    pending = None
    by_name = {p.name: p for p in params}
    for p in (params if order is None else [by_name[n] for n in order]):
        try:
            if p.kind in _CONVERTERS:
                if raw[p.name] is None and p.default is not REQUIRED:
                    # cv2 leaves an argument given as None at its initial value: the default.
                    out[p.name] = p.default
                    continue
                value = out[p.name] = _CONVERTERS[p.kind](p.name, raw[p.name])
                # cv2's double converter returns !PyErr_Occurred(), its int converter fails on -1 with
                # an error set: either reports a pending error (a given, non-None value only).
                if pending is not None and p.name in given and raw[p.name] is not None and (
                        p.kind == "double" or (p.kind == "int" and value == -1)):
                    raise _errors.bad_argument(func_name, pending, pending)
            else:
                value = convert_array(p.name, raw[p.name])
                if isinstance(value, Pending):
                    pending = pending or value.message
                    value = value.value
                out[p.name] = value
        except ConversionError as exc:
            if overloads == 1:
                raise exc.python_type(str(exc)) from None
            first = str(exc)
            # The UMat overload fails at the first array argument that is not a UMat-convertible array.
            second = "Expected Ptr<cv::UMat> for argument '%s'" % p.name if p.kind in ("mat", "outmat") else first
            raise _errors.bad_argument(func_name, first, second) from None
    if pending is not None:
        out[PENDING] = pending
    return out


def returned_with_error(func_name, message):
    """What Python raises when cv2's call ran with an error left pending (SystemError, caused by
    the pending OverflowError)."""
    exc = SystemError("<built-in function %s> returned a result with an exception set" % func_name)
    exc.__cause__ = OverflowError(message)
    return exc


class Pending:
    """An array argument converted with a Python error left pending, as cv2 converts an int beyond a
    C long given for a Mat (PyLong_AsLong fails, the converter still succeeds). The next arguments
    are converted: one that fails names the error; a given double (or an int read as -1) fails
    with the pending error (both overloads); else the call runs, and its own cv2.error replaces the
    pending one or Python raises SystemError on return (see parse)."""

    __slots__ = ("value", "message")

    def __init__(self, value, message):
        self.value, self.message = value, message


class HostMat:
    """What cv2's numpy-to-Mat conversion makes of a host array: its header, not its data."""

    __slots__ = ("array", "rows", "cols", "channels", "dtype")

    def __init__(self, array, rows, cols, channels, dtype):
        self.array, self.rows, self.cols, self.channels, self.dtype = array, rows, cols, channels, dtype

    def is_type(self, dtype, channels):
        return self.dtype == np.dtype(dtype) and self.channels == channels


class DeviceMat(HostMat):
    """A device array's header as cv2 would read the array (``array`` stays on the device)."""

    __slots__ = ()


def array_converter(output, host=None):
    """``convert_array`` for parse() of a function whose array arguments may live on the device:
    the output argument named ``output`` (``lines``, ``dst``) is kept as given when it is a device
    array, else checked as cv2 checks an output Mat (out_mat); any other device array becomes a
    DeviceMat; host values go through ``host(name, value)`` (default: host_mat)."""
    host = host or host_mat

    def convert(name, value):
        device = as_device_array(value)
        if name == output:
            return value if device is not None else out_mat(name, value)
        if device is not None:
            header = mat_header(name, device, device.shape, device.dtype)
            return DeviceMat(device, header.rows, header.cols, header.channels, header.dtype)
        return host(name, value)
    return convert


def deliver(result, out, shapes=None):
    """A result delivered as cv2 delivers it through an output argument (``lines``, ``dst``): written
    into the given array ``out``, which is returned, only when its Mat already has the result's size
    and type, else the new ``result`` (cv2 allocates). ``shapes``: the array shapes whose Mat has
    that size and type (default: the result's own shape); ``out`` must also be of the result's array
    type (numpy or CuPy) and dtype. An output of a type that defines ``_cvgpu_take(result)`` (a
    GpuMat, written in place as OpenCV writes GpuMat outputs) takes a result of its own type."""
    if result is None or out is None or type(out) is not type(result):
        return result
    take = getattr(type(out), "_cvgpu_take", None)
    if take is not None:
        return take(out, result)
    if out.dtype == result.dtype and out.shape in (shapes or (result.shape,)):
        if isinstance(out, np.ndarray) and not out.flags.writeable:
            # Before 4.9 cv2 takes a read-only output array and writes into it all the same.
            try:
                out.setflags(write=True)
            except ValueError:
                return result  # (memory numpy cannot write: cvgpu returns a new array)
            try:
                out[...] = result.reshape(out.shape)
            finally:
                out.setflags(write=False)
            return out
        out[...] = result.reshape(out.shape)
        return out
    return result


_SUPPORTED_DTYPES = {np.dtype(t) for t in _versions.behaviour("binding.dtypes")}


def dtype_error(name, dtype):
    """The binding's complaint about an array dtype it does not convert: numpy's type number up to
    4.8, str(dtype) from 4.9 ('<U3', '|S3', '|V2', 'float128', 'datetime64[s]')."""
    shown = str(dtype) if _DTYPE_TEXT == "name" else str(dtype.num)
    return ConversionError("%s data type = %s is not supported" % (name, shown))


def mat_header(name, value, shape, dtype):
    """Rows, cols and channels as cv2 reads an array of this shape (ndim > 2 rules included)."""
    if dtype not in _SUPPORTED_DTYPES:
        raise dtype_error(name, dtype)
    ndim = len(shape)
    if ndim >= _CV_MAX_DIM:
        raise ConversionError("%s dimensionality (=%d) is too high" % (name, ndim))
    if ndim == 0:
        return HostMat(value, 1, 1, 1, dtype)
    if ndim == 1:
        # OpenCV 5 has 1-D Mats (one row); OpenCV 4 makes a column.
        return HostMat(value, 1, shape[0], 1, dtype) if _ONE_D == "row" else HostMat(value, shape[0], 1, 1, dtype)
    if ndim == 2:
        return HostMat(value, shape[0], shape[1], 1, dtype)
    if ndim == 3 and shape[2] <= CN_MAX:
        return HostMat(value, shape[0], shape[1], shape[2], dtype)
    if ndim == 3 and _TOO_MANY_CHANNELS == "error":
        raise ConversionError("%s unable to wrap channels, invalid count (%d, must be in [1, %d])"
                              % (name, shape[2], CN_MAX))
    # A true n-d Mat: cv2 reports rows = cols = -1 for it.
    return HostMat(value, -1, -1, 1, dtype)


def _scalar_rows(name, value):
    """Rows of the CV_64F column cv2 makes of a Python int / float (4) or a tuple of them, and the
    pending error of an int beyond a C long (None)."""
    items = value if isinstance(value, tuple) else (value,)
    message = None
    for v in items:
        if not isinstance(v, (int, float)):
            raise ConversionError("%s is not a numerical tuple" % name)
        if isinstance(v, int) and not _LONG_MIN <= v <= _LONG_MAX:
            message = message or LONG_OVERFLOW
    return (len(value) if isinstance(value, tuple) else 4), message


def host_mat(name, value):
    """Convert a host-side argument the way cv2's ``pyopencv_to(Mat)`` does: None, a Python int or
    float (numpy's float64 is one; other numpy scalars are not), a tuple of them, or an ndarray."""
    if value is None:
        return HostMat(None, 0, 0, 1, np.dtype(np.uint8))
    if isinstance(value, (int, float, tuple)):
        rows, message = _scalar_rows(name, value)
        mat = HostMat(None, rows, 1, 1, np.dtype(np.float64))
        return mat if message is None else Pending(mat, message)
    if isinstance(value, np.ndarray):
        return mat_header(name, value, value.shape, value.dtype)
    raise ConversionError("%s is not a numpy array, neither a scalar" % name)


def needs_copy(shape, strides, itemsize):
    """Whether cv2's numpy-to-Mat conversion copies the array (it cannot wrap its layout): the
    innermost axis not unit-stride, an axis whose stride is below the next one's, or channels
    (3-D, last axis <= CN_MAX) not packed right after one another. Axes of length <= 1 do not count."""
    ndim = len(shape)
    for i in range(ndim - 1, -1, -1):
        if shape[i] > 1 and ((i == ndim - 1 and strides[i] != itemsize) or
                             (i < ndim - 1 and strides[i] < strides[i + 1])):
            return True
    if ndim == 3 and shape[2] <= CN_MAX and strides[1] != itemsize * shape[2]:
        return True
    return False


_CAST_DTYPES = (np.dtype(np.int64), np.dtype(np.uint64))  # cv2 copies these into CV_32S


def out_mat(name, value):
    """Convert an output argument (``lines``, ``dst``) as cv2 does: None, a number or a tuple (cv2
    allocates a new result), or a writeable ndarray that cv2 can wrap without a copy. Returns the
    value itself."""
    if value is None:
        return None
    if isinstance(value, (int, float, tuple)):
        message = _scalar_rows(name, value)[1]
        return value if message is None else Pending(value, message)
    if not isinstance(value, np.ndarray):
        raise ConversionError("%s is not a numpy array, neither a scalar" % name)
    if not value.flags.writeable and _READONLY_OUTPUT == "error":
        raise ConversionError("%s marked as output argument, but provided NumPy array marked as readonly" % name)
    mat_header(name, value, value.shape, value.dtype)
    if value.dtype in _CAST_DTYPES or needs_copy(value.shape, value.strides, value.itemsize):
        raise ConversionError("Layout of the output array %s is incompatible with cv::Mat" % name)
    return value
