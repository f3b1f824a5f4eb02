"""cv2.cuda.GpuMat and cv2.cuda.Stream for cvgpu, backed by CuPy memory and streams.

A ``GpuMat`` is a 2-D matrix of ``rows x cols`` elements of ``channels()`` channels, with a row
pitch (``step``, bytes) that may exceed ``cols * elemSize()``, as OpenCV's. It wraps a CuPy array
(``cupy.asarray(gpumat)`` works through ``__cuda_array_interface__``, no copy) and can wrap any
CUDA array without copying: ``GpuMat(cupy_array)``.

Without a usable GPU (``host_mode()``) a GpuMat is host-backed: a numpy array of ``rows x cols x
channels()`` with the row pitch a host Mat has (``step == cols * elemSize()`` when continuous), and
every method works with OpenCV's GpuMat semantics, computed by numpy (upload, download, create,
copyTo and setTo with masks, views, ...). A Stream is then a no-op stream: work is done when the
call returns (``queryIfComplete()`` is True, ``waitForCompletion()`` returns at once). What is a
device concept only, ``GpuMat.cudaPtr()`` of a non-empty host-backed GpuMat, its
``__cuda_array_interface__`` and ``Stream.cudaPtr()``, raises the ``cv2.error`` that OpenCV builds
without CUDA raise (code -216, "The library is compiled without CUDA support"); so does wrapping a
device array. With a GPU nothing of this applies: GpuMat and Stream are CuPy memory and streams.
Masks (copyTo, setTo) are taken on host-backed GpuMats only; on the GPU they raise -213.
"""
import cv2
import numpy as np

from .. import _backend, _device_ops, _errors

# OpenCV's type encoding: depth + ((channels - 1) << CN_SHIFT); CN_SHIFT is 3 in 4.x, 5 in 5.x.
CN_SHIFT = int(cv2.CV_8UC2).bit_length() - 1
DEPTH_MASK = (1 << CN_SHIFT) - 1
_DEPTHS = [(np.uint8, "CV_8U"), (np.int8, "CV_8S"), (np.uint16, "CV_16U"), (np.int16, "CV_16S"),
           (np.int32, "CV_32S"), (np.float32, "CV_32F"), (np.float64, "CV_64F"), (np.float16, "CV_16F"),
           (np.bool_, "CV_Bool"), (np.uint64, "CV_64U"), (np.int64, "CV_64S"), (np.uint32, "CV_32U")]
DEPTH_OF_DTYPE = {}
DTYPE_OF_DEPTH = {}
for _dt, _name in _DEPTHS:
    if hasattr(cv2, _name):
        DEPTH_OF_DTYPE[np.dtype(_dt)] = int(getattr(cv2, _name))
        DTYPE_OF_DEPTH[int(getattr(cv2, _name))] = np.dtype(_dt)
MAX_CHANNELS = 1 << (31 - CN_SHIFT) if CN_SHIFT >= 5 else 512


def make_type(depth, cn):
    return depth + ((cn - 1) << CN_SHIFT)


def split_type(cv_type):
    """(numpy dtype, channels) of an OpenCV type number."""
    cv_type = int(cv_type)
    depth = cv_type & DEPTH_MASK
    cn = (cv_type >> CN_SHIFT) + 1
    if depth not in DTYPE_OF_DEPTH:
        raise _errors.cv_error(_errors.UNSUPPORTED_FORMAT, "Unsupported depth %d" % depth, "create")
    return DTYPE_OF_DEPTH[depth], cn


def no_cuda():
    """cv2.error as OpenCV without CUDA raises it (cvgpu: no usable GPU)."""
    func, err = "throw_no_cuda", "The library is compiled without CUDA support"
    exc = _errors.cv_error(-216, err, func, "cuda_stubs.hpp", 16)
    exc.msg = "OpenCV(%s) cuda_stubs.hpp:16: error: (-216:No CUDA support) %s in function '%s'\n" % (
        cv2.__version__, err, func)
    exc.args = (exc.msg,)
    return exc


# Tests only: True makes new GpuMats host-backed, Streams no-ops and the lines detector compute on
# the CPU on a GPU machine too (tests/cuda/test_cuda_host.py compares that path with the GPU's).
_FORCE_HOST = [False]


def host_mode():
    """True when GpuMat memory is host memory and the cuda module computes on the CPU: no usable GPU
    (or the tests' switch, _FORCE_HOST)."""
    return _FORCE_HOST[0] or _backend.cupy_module() is None


def _on_host(arr):
    return type(arr) is np.ndarray


def _host_mask(mask, mat, func):
    """A boolean (rows, cols) numpy array of a CV_8UC1 mask (GpuMat or array) of mat's size."""
    if isinstance(mask, GpuMat):
        m_type, m_size = mask.type(), mask.size()
        arr = mask._arr
        arr = None if arr is None else (arr if _on_host(arr) else arr.get())
        arr = None if arr is None else arr[:, :, 0]
    else:
        arr = np.asarray(mask)
        if arr.ndim == 3 and arr.shape[2] == 1:
            arr = arr[:, :, 0]
        m_type = make_type(DEPTH_OF_DTYPE.get(arr.dtype, -1), 1) if arr.ndim == 2 else -1
        m_size = (arr.shape[1], arr.shape[0]) if arr.ndim == 2 else None
    if m_type != 0 or m_size != mat.size():
        raise _errors.cv_error(_errors.ASSERTION_FAILED, "mask.size() == size() && mask.type() == CV_8UC1",
                               func, "cuda_gpu_mat.cpp", 0)
    return np.zeros(mat._arr.shape[:2], bool) if arr is None else arr != 0


def _cupy():
    cp = _backend.cupy_module()
    if cp is None:
        raise no_cuda()
    return cp


def _as_3d(cp, arr):
    """A (rows, cols, cn) view of a 2-D or 3-D device array."""
    if arr.ndim == 2:
        return arr[:, :, None]
    if arr.ndim == 3:
        return arr
    if arr.ndim == 1:
        return arr[:, None, None]
    raise _errors.cv_error(_errors.ASSERTION_FAILED, "dims <= 2", "GpuMat")


class GpuMat:
    """GpuMat() | GpuMat(rows, cols, type[, s]) | GpuMat(size, type[, s]) | GpuMat(arr) | GpuMat(m)

    ``arr`` a numpy array is uploaded; a CuPy array (or any ``__cuda_array_interface__`` /
    CUDA DLPack object) is wrapped without a copy; ``m`` a GpuMat shares m's memory.
    """

    __slots__ = ("_arr", "_type", "_host_mirror", "__weakref__")

    def __init__(self, *args):
        self._arr = None          # CuPy array (rows, cols, cn), or None when empty
        self._type = 0            # CV type number (empty GpuMat: CV_8UC1)
        # The pinned host copy of a detector's result, dropped by every write and by anything that
        # shares the memory (views, the device pointer): HoughLinesDetector.detect's (cuda/hough.py,
        # read by downloadResults) or HoughSegmentDetector.detect's (cuda/segments.py: a 3-tuple,
        # read by download).
        self._host_mirror = None
        if not args:
            return
        first = args[0]
        if isinstance(first, GpuMat) and len(args) == 1:
            self._arr, self._type = first._arr, first._type
            first._host_mirror = None  # (the memory is shared from here on: see _view)
            return
        if isinstance(first, np.ndarray) and len(args) == 1:
            self.upload(first)
            return
        if len(args) == 1:
            self._wrap(first)
            return
        if isinstance(first, (tuple, list)):  # (size, type[, s]); size is (width, height)
            cols, rows = int(first[0]), int(first[1])
            rest = args[1:]
        else:
            rows, cols = int(args[0]), int(args[1])
            rest = args[2:]
        if not rest:
            raise TypeError("GpuMat: type is required")
        self.create(rows, cols, int(rest[0]))
        if len(rest) > 1:
            self.setTo(rest[1])

    # ------------------------------------------------------------------ construction
    def _wrap(self, value):
        from .._arrays import as_device_array
        dev = as_device_array(value)
        if dev is None:
            if _backend.cupy_module() is None and (hasattr(value, "__cuda_array_interface__")
                                                    or hasattr(value, "__dlpack__")):
                raise no_cuda()
            raise TypeError("GpuMat: expected a numpy array, a CUDA array or a GpuMat, got %s"
                            % type(value).__name__)
        self._set_array(dev)

    def _set_array(self, arr):
        cp = _cupy()
        arr3 = _as_3d(cp, arr)
        depth = DEPTH_OF_DTYPE.get(arr3.dtype)
        if depth is None:
            raise _errors.cv_error(_errors.UNSUPPORTED_FORMAT, "Unsupported data type %s" % arr3.dtype,
                                   "GpuMat")
        if arr3.strides[2] != arr3.itemsize or (arr3.shape[1] > 1 and
                                                arr3.strides[1] != arr3.itemsize * arr3.shape[2]):
            arr3 = _device_ops.ops(cp).contiguous(arr3)
        self._arr = arr3 if arr3.size else None
        self._type = make_type(depth, arr3.shape[2])
        self._host_mirror = None

    @classmethod
    def _from_array(cls, arr):
        m = cls()
        m._set_array(arr)
        return m

    def create(self, *args):
        """create(rows, cols, type) | create(size, type): reallocates unless already that size/type."""
        if isinstance(args[0], (tuple, list)):
            cols, rows = int(args[0][0]), int(args[0][1])
            cv_type = int(args[1])
        else:
            rows, cols, cv_type = int(args[0]), int(args[1]), int(args[2])
        dtype, cn = split_type(cv_type)
        self._host_mirror = None
        host = host_mode()
        if self._arr is not None and self._type == cv_type and self._arr.shape[:2] == (rows, cols) and \
                _on_host(self._arr) == host:
            return
        self._type = cv_type
        if rows <= 0 or cols <= 0:
            self._arr = None
            return
        if host:
            self._arr = np.empty((rows, cols, cn), dtype=dtype)
            return
        cp = _cupy()
        self._arr = cp.empty((rows, cols, cn), dtype=dtype)

    def release(self):
        """Drop the data; the type is kept, as OpenCV's release keeps the flags."""
        self._arr = None
        self._host_mirror = None

    def _cvgpu_take(self, result):
        """cvgpu._binding.deliver: OpenCV writes a GpuMat output argument in place (its create()
        reallocates as needed), released when the result is empty."""
        if result.empty():
            self.release()
        else:
            self._arr, self._type, self._host_mirror = result._arr, result._type, result._host_mirror
        return self

    # ------------------------------------------------------------------ header
    def size(self):
        """(cols, rows), as cv2 returns a cv::Size."""
        if self._arr is None:
            return (0, 0)
        return (int(self._arr.shape[1]), int(self._arr.shape[0]))

    def type(self):
        return self._type

    def depth(self):
        return self._type & DEPTH_MASK

    def channels(self):
        return (self._type >> CN_SHIFT) + 1

    def elemSize(self):
        dtype, cn = split_type(self._type)
        return dtype.itemsize * cn

    def elemSize1(self):
        return split_type(self._type)[0].itemsize

    def empty(self):
        return self._arr is None

    @property
    def step(self):
        """Bytes from one row to the next (0 for an empty GpuMat)."""
        if self._arr is None:
            return 0
        if self._arr.shape[0] <= 1:
            return int(self._arr.shape[1] * self._arr.strides[1]) if self._arr.shape[1] > 1 else \
                int(self._arr.itemsize * self._arr.shape[2])
        return int(self._arr.strides[0])

    def step1(self):
        return self.step // self.elemSize1() if self._arr is not None else 0

    def isContinuous(self):
        if self._arr is None:
            return True
        return self._arr.shape[0] <= 1 or self.step == self._arr.shape[1] * self.elemSize()

    def cudaPtr(self):
        """The device pointer (0 when empty); a host-backed GpuMat has none: -216 (no CUDA)."""
        if self._arr is None:
            return 0
        if _on_host(self._arr):
            raise no_cuda()
        self._host_mirror = None  # (the memory may be written through the pointer)
        return int(self._arr.data.ptr)

    @property
    def _cvgpu_device_array(self):
        """The CuPy array behind this GpuMat (None when empty or host-backed), for cvgpu's own dispatch."""
        arr = self._arr
        return None if _on_host(arr) else arr

    @property
    def __cuda_array_interface__(self):
        """The CuPy array's interface; AttributeError when empty, -216 (no CUDA) when host-backed."""
        if self._arr is None:
            raise AttributeError("an empty GpuMat has no device memory")
        if _on_host(self._arr):
            raise no_cuda()
        self._host_mirror = None  # (the memory may be written through the interface)
        arr = self._arr if self.channels() > 1 else self._arr[:, :, 0]
        return arr.__cuda_array_interface__

    def __repr__(self):
        return "<cvgpu.cuda.GpuMat %dx%d type=%d>" % (self.size()[1], self.size()[0], self._type)

    # ------------------------------------------------------------------ data movement
    def _current(self):
        return self._arr if self.channels() > 1 or self._arr is None else self._arr[:, :, 0]

    def upload(self, arr, stream=None):
        """upload(arr[, stream]): copy a host array into this GpuMat (reallocating as needed)."""
        if not host_mode():
            _cupy()
        if isinstance(arr, GpuMat):
            raise TypeError("upload expects a host array")
        host = np.asarray(arr)
        if host.ndim > 3:
            raise _errors.cv_error(_errors.ASSERTION_FAILED, "dims <= 2", "upload")
        depth = DEPTH_OF_DTYPE.get(host.dtype)
        if depth is None:
            raise _errors.cv_error(_errors.UNSUPPORTED_FORMAT, "Unsupported data type %s" % host.dtype, "upload")
        h3 = host.reshape(host.shape[0], host.shape[1] if host.ndim > 1 else 1, host.shape[2] if host.ndim > 2 else 1)
        self.create(h3.shape[0], h3.shape[1], make_type(depth, h3.shape[2]))
        if self._arr is None:
            return
        if _on_host(self._arr):
            self._arr[...] = h3
            return
        with _stream_context(stream):
            self._arr.set(np.ascontiguousarray(h3), stream=_cupy_stream(stream))

    def download(self, dst=None, stream=None):
        """download([dst[, stream]]) -> host array (None when empty, as cv2 returns an empty Mat)."""
        if self._arr is None:
            return None
        mirror = self._host_mirror
        if mirror is not None and len(mirror) == 3 and mirror[1] == mirror[0].launched:
            # HoughSegmentDetector.detect's result, its pinned host copy still current (cuda/segments.py)
            host = mirror[2].copy()
        else:
            host = self._download_device(stream)
        if dst is not None and isinstance(dst, np.ndarray) and dst.shape == host.shape and dst.dtype == host.dtype:
            dst[...] = host
            return dst
        return host

    def _download_device(self, stream):
        cur = self._current()
        if _on_host(cur):
            host = np.array(cur)  # a contiguous copy, as a download is
        else:
            cp = _cupy()
            with _stream_context(stream):
                host = _device_ops.ops(cp).to_host(cur)
        return host

    def copyTo(self, dst=None, mask=None, stream=None):
        """copyTo([dst[, mask[, stream]]]) -> dst, a deep copy. A mask (CV_8UC1, this size; host-backed
        GpuMats only) copies the elements where it is nonzero into dst, whose other elements are kept
        when dst already has this size and type, zeros when dst is (re)allocated (as Mat::copyTo)."""
        if mask is not None and not isinstance(mask, (GpuMat,)) and _is_stream(mask):
            stream, mask = mask, None
        if _on_host(self._arr) or (self._arr is None and host_mode()):
            return self._copy_to_numpy(dst, mask)
        if mask is not None:
            raise _errors.cv_error(_errors.NOT_IMPLEMENTED, "copyTo with a mask", "copyTo")
        out = dst if isinstance(dst, GpuMat) else GpuMat()
        if self._arr is None:
            out.release()
            out._type = self._type
            return out
        cp = _cupy()
        with _stream_context(stream):
            copy = _device_ops.ops(cp).copy(self._arr)
        out._arr, out._type, out._host_mirror = copy, self._type, None
        return out

    def _copy_to_numpy(self, dst, mask):
        out = dst if isinstance(dst, GpuMat) else GpuMat()
        if self._arr is None:
            out.release()
            out._type = self._type
            return out
        if mask is None:
            out._arr, out._type, out._host_mirror = self._arr.copy(), self._type, None
            return out
        keep = _host_mask(mask, self, "copyTo")
        arr = out._arr
        if not (_on_host(arr) and out._type == self._type and arr.shape == self._arr.shape):
            arr = np.zeros_like(self._arr)
        elif np.shares_memory(arr, self._arr):
            arr = arr.copy()
        arr[keep] = self._arr[keep]
        out._arr, out._type, out._host_mirror = arr, self._type, None
        return out

    def clone(self):
        return self.copyTo()

    def setTo(self, s, mask=None, stream=None):
        """setTo(s[, mask[, stream]]): every element (channel-wise from cv::Scalar s); with a mask
        (CV_8UC1, this size; host-backed GpuMats only), the elements where it is nonzero."""
        if self._arr is None:
            return self
        if mask is not None and _is_stream(mask):
            stream, mask = mask, None
        host = _on_host(self._arr)
        if mask is not None and not host:
            raise _errors.cv_error(_errors.NOT_IMPLEMENTED, "setTo with a mask", "setTo")
        # cv::Scalar from Python: a number v is Scalar(v, 0, 0, 0), a shorter sequence is padded with
        # zeros (not repeated).
        values = np.zeros(4, np.float64)
        given = np.asarray(s if isinstance(s, (tuple, list, np.ndarray)) else (s,), dtype=np.float64).ravel()[:4]
        values[:given.size] = given
        values = values[:self.channels()]
        dtype = self._arr.dtype
        if np.issubdtype(dtype, np.integer):
            info = np.iinfo(dtype)
            values = np.clip(np.rint(values), info.min, info.max)
        if host:
            if mask is None:
                self._arr[...] = values.astype(dtype)
            else:
                self._arr[_host_mask(mask, self, "setTo")] = values.astype(dtype)
            self._host_mirror = None
            return self
        cp = _cupy()
        with _stream_context(stream):
            # Every element's channels set to values: one element's bytes repeated along each row.
            _device_ops.ops(cp).fill_rows(self._arr, values.astype(dtype))
        self._host_mirror = None
        return self

    def swap(self, other):
        self._arr, other._arr = other._arr, self._arr
        self._type, other._type = other._type, self._type
        self._host_mirror, other._host_mirror = other._host_mirror, self._host_mirror

    # ------------------------------------------------------------------ views (share memory)
    def _view(self, arr):
        # A view shares this GpuMat's memory: a write through it (setTo, upload into it, the
        # device pointer) would leave this one's pinned host copy stale, so the copy is dropped
        # and downloadResults reads the device memory (as OpenCV always does).
        self._host_mirror = None
        m = GpuMat()
        m._type = self._type
        m._arr = arr if arr is not None and arr.size else None
        return m

    def rowRange(self, start, end=None):
        if isinstance(start, (tuple, list)):
            start, end = start
        return self._view(None if self._arr is None else self._arr[int(start):int(end)])

    def colRange(self, start, end=None):
        if isinstance(start, (tuple, list)):
            start, end = start
        return self._view(None if self._arr is None else self._arr[:, int(start):int(end)])

    def row(self, y):
        return self.rowRange(y, y + 1)

    def col(self, x):
        return self.colRange(x, x + 1)


def _is_stream(value):
    return isinstance(value, Stream) or type(value).__name__ in ("Stream", "ExternalStream")


def _cupy_stream(stream):
    """The CuPy stream for a cvgpu Stream, a CuPy stream, or None (the current CuPy stream)."""
    if stream is None:
        return None
    if isinstance(stream, Stream):
        return stream._stream
    return stream


class _stream_context:
    """``with _stream_context(stream):`` makes CuPy work go to ``stream`` (no-op for None)."""

    __slots__ = ("_cs", "_prev")

    def __init__(self, stream):
        self._cs = _cupy_stream(stream)

    def __enter__(self):
        if self._cs is not None:
            self._cs.__enter__()
        return self._cs

    def __exit__(self, *exc):
        if self._cs is not None:
            self._cs.__exit__(*exc)
        return False


class Stream:
    """cv2.cuda.Stream: Stream() a new CUDA stream, Stream(cudaFlags), or Stream.Null().

    Wraps a ``cupy.cuda.Stream`` (``stream.cupy``); any CuPy stream may also be passed wherever
    cvgpu takes a stream. Without a usable GPU it is a no-op stream (``stream.cupy`` is None): the
    host computes each call before returning, so it is always complete; its ``cudaPtr()`` raises
    -216 (no CUDA).
    """

    __slots__ = ("_stream",)

    def __init__(self, *args):
        if host_mode():
            if args and not isinstance(args[0], (int, np.integer)) and args[0] is not None:
                raise no_cuda()  # a CUDA stream to wrap
            self._stream = None
            return
        cp = _cupy()
        if args and not isinstance(args[0], (int, np.integer)) and args[0] is not None and \
                type(args[0]).__name__ in ("Stream", "ExternalStream"):
            self._stream = args[0]  # wrap a CuPy stream
            return
        flags = int(args[0]) if args and isinstance(args[0], (int, np.integer)) else 0
        self._stream = cp.cuda.Stream(non_blocking=bool(flags & 1))

    @staticmethod
    def Null():
        """The default (legacy NULL) stream."""
        if host_mode():
            return Stream()
        cp = _cupy()
        return Stream(cp.cuda.Stream.null)

    @property
    def cupy(self):
        return self._stream

    def queryIfComplete(self):
        return True if self._stream is None else bool(self._stream.done)

    def waitForCompletion(self):
        if self._stream is not None:
            self._stream.synchronize()

    def waitEvent(self, event):
        if self._stream is not None:
            self._stream.wait_event(getattr(event, "_event", event))

    def cudaPtr(self):
        if self._stream is None:
            raise no_cuda()
        return int(self._stream.ptr)

    def __enter__(self):
        if self._stream is not None:
            self._stream.__enter__()
        return self

    def __exit__(self, *exc):
        return False if self._stream is None else self._stream.__exit__(*exc)


def Stream_Null():
    """cv2.cuda.Stream_Null() -> the default stream."""
    return Stream.Null()


# The class names of the installed cv2's binding, which scripts and error texts see: 4.5.5 names them
# cuda_GpuMat / cuda_Stream (module cv2), later releases GpuMat / Stream (module cv2.cuda).
for _cls, _ref in ((GpuMat, "cuda_GpuMat"), (Stream, "cuda_Stream")):
    _name = getattr(getattr(cv2, _ref, None), "__name__", None)
    if _name:
        _cls.__name__ = _cls.__qualname__ = _name
del _cls, _ref, _name
