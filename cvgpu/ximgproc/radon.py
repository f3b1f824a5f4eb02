"""cv2.ximgproc.RadonTransform on the GPU, bit-exact with opencv-contrib 5.0 on x86-64.

All angles run in one launch of ``kernels/ximgproc/radon.cu``: a warp per (angle, output row) computes the
rotated samples of that row on the fly (OpenCV's warpAffine arithmetic: float32 coordinates with
its fused multiply-adds for 8U/32F, the fixed-point path for 64F) and sums them in the order OpenCV's
reduce does. The host works out only cv2's sizes, the circle mask's row widths and the per-angle
inverse rotation matrices (computed with libm's cos/sin, as cv2 does).

8-bit input (the common case) goes through the texture unit: the caller's src is copied straight
into a gather-capable CUDA array, and one tld4 per sample fetches its 2x2 neighbourhood, the zero
padding and the transpose being done by the addressing. Results up to 64 MiB come back through
pinned memory. Float input and images wider than a gather texture use plain global loads. The
path choices and their limits are ``TUNING`` (cvgpu/_tuning.py); each call counts the path it took
(``TUNING.paths()``): "texture" or "global" for the transform, "pinned" or "pageable" for a numpy
result.

What the installed cv2 warps with is ``WARP`` (cvgpu/_versions.py, ``radon.warp``): beside 4.x
(fixed-point 8-bit and float32 warps) cv2.ximgproc computes every call, and beside 5.1 it computes
8-bit and float32 input while ``cv2.ipp.useIPP()`` is on (IPP's warpAffine; with IPP off 5.1 equals
5.0); both are reported as backend "cv2". From 5.1 no angles give an (n, 0) array, not None.

Unlike cv2 5.0, cvgpu never writes to ``src``: cv2.ximgproc.RadonTransform transposes a square
``src`` array in place as a side effect (its result is unaffected).
"""
import functools
import math
import os
import threading

import cv2
import numpy as np

from .. import _backend, _binding, _device_ops, _engine, _errors, _kernels, _versions
from .._arrays import on_input_device, upload_2d
from .._cvmath import cdiv, cv_ceil, cv_round
from .._tuning import Tuning

_FUNC = "RadonTransform"
_FILE = "radon_transform.cpp"
_KERNELS = "ximgproc/radon"  # kernels/ximgproc/radon.cu

TUNING = Tuning(
    "radon",
    # 8-bit sources through tld4 texture gathers where they fit (bench rows "ximgproc.RadonTransform").
    use_texture=True,
    # The largest side tld4 reads: maxTexture2DGather on sm_60 .. sm_90, a hardware limit (not tuned).
    gather_max=32768,
    # Texture arrays kept per thread; freeing them waits for the whole device, so few (not tuned).
    textures_per_thread=4,
    # numpy results up to this size come back through pinned memory (bench rows "ximgproc.RadonTransform").
    pinned_max=64 << 20,
    # Smaller needs skip the free-memory query of the out-of-memory check (not tuned: a rare failure).
    memory_query_min=256 << 20,
)

_PARAMS = [
    _binding.Param("src", "mat"),
    _binding.Param("dst", "outmat", None),
    _binding.Param("theta", "double", 1.0),
    _binding.Param("start_angle", "double", 0.0),
    _binding.Param("end_angle", "double", 180.0),
    _binding.Param("crop", "bool", False),
    _binding.Param("norm", "bool", False),
]

# Types warpAffine and reduce(CV_32S / CV_64F) both accept; 16U/16S pass warpAffine only.
_COMPUTED = (np.dtype(np.uint8), np.dtype(np.float32), np.dtype(np.float64))
_WARP_ONLY = (np.dtype(np.uint16), np.dtype(np.int16))


# ---------------------------------------------------------------- cv2's sizes


def geometry(rows, cols, crop):
    """(n, oy, ox): the n x n warp source is img[yy][xx] = src[xx + ox][yy + oy] (0 outside)."""
    tr, tc = cols, rows  # the transposed source
    if crop:
        n = min(tr, tc)
        return n, tr // 2 - n // 2, tc // 2 - n // 2
    n = cv_ceil(math.sqrt(tr * tr + tc * tc))
    return n, -((n - tr) // 2), -((n - tc) // 2)


@functools.lru_cache(maxsize=32)
def circle_halfwidths(n):
    """Per-row half-width of cv::circle(n x n, (n/2, n/2), n/2, FILLED, LINE_8); -1: row empty.
    OpenCV's integer midpoint circle, reduced to the span it fills on each row."""
    c = r = n // 2
    hw = np.full(n, -1, np.int32)
    err, dx, dy, plus, minus = 0, r, 0, 1, (r << 1) - 1
    while dx >= dy:
        for yy, d in ((c - dy, dx), (c + dy, dx), (c - dx, dy), (c + dx, dy)):
            if 0 <= yy < n and d > hw[yy]:
                hw[yy] = d
        dy += 1
        err += plus
        plus += 2
        mask = -1 if err > 0 else 0
        err -= minus & mask
        dx += mask
        minus -= mask & 2
    return hw


@functools.lru_cache(maxsize=32)
def inverse_matrices(n, start_angle, theta, col_num):
    """(col_num, 6) float64: getRotationMatrix2D((n/2, n/2), start + col*theta, 1) inverted the way
    warpAffine inverts it. cos/sin are libm's (Python's math module), as cv2's std::cos/std::sin."""
    c = float(n // 2)
    out = np.empty((col_num, 6), np.float64)
    for col in range(col_num):
        a = (start_angle + col * theta) * (math.pi / 180)
        alpha = math.cos(a)
        beta = math.sin(a)
        m0, m1, m2 = alpha, beta, (1 - alpha) * c - beta * c
        m3, m4, m5 = -beta, alpha, beta * c + (1 - alpha) * c
        d = m0 * m4 - m1 * m3
        d = 1.0 / d if d != 0 else 0.0
        a11, a22 = m4 * d, m0 * d
        m0, m1, m3, m4 = a11, m1 * -d, m3 * -d, a22
        out[col] = (m0, m1, -m0 * m2 - m1 * m5, m3, m4, -m3 * m2 - m4 * m5)
    out.flags.writeable = False
    return out


# ---------------------------------------------------------------- argument layer

_DeviceMat = _binding.DeviceMat


def _host_scalar_data(value):
    """The data of the CV_64F column cv2 makes of a number or a tuple of numbers."""
    if isinstance(value, tuple):
        return np.array([float(v) for v in value], np.float64).reshape(-1, 1)
    return np.array([float(value), 0.0, 0.0, 0.0], np.float64).reshape(4, 1)


def _host_array(name, value):
    """A host argument as cv2's binding reads it; numbers become the CV_64F column cv2 makes."""
    mat = _binding.host_mat(name, value)
    if isinstance(mat, _binding.Pending):
        # An int beyond a C long: PyLong_AsLong gave -1 (its error pending), and cv2 goes on with it.
        def as_long(v):
            return -1 if isinstance(v, int) and not -(1 << 63) <= v < (1 << 63) else v
        mat.value.array = _host_scalar_data(tuple(as_long(v) for v in value) if isinstance(value, tuple)
                                            else as_long(value))
        return mat
    if mat.array is None and value is not None:
        mat.array = _host_scalar_data(value)
    return mat


_convert_array = _binding.array_converter("dst", _host_array)


def _ndim(mat):
    return None if mat.array is None else mat.array.ndim


def _parse(args, kwargs):
    # (cv2's binding keeps an optional argument's default when it is given as None: parse does too.)
    return _binding.parse(_FUNC, _PARAMS, args, kwargs, _convert_array)


def _physical_memory():
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 1 << 46


# cv2 allocates the sinogram before it warps: an allocation larger than the machine's memory fails
# there (a saturated column count from 5.1 on is a real, failing 10-100 GB request; before, a
# negative size). A heuristic of the host's allocator, which refuses such requests at once.
_HOST_ALLOC_LIMIT = min(1 << 46, _physical_memory())


def _r(*args):
    return lambda: cv2.ximgproc.RadonTransform(*args)


# Error sites, measured from the installed cv2 (_errors.site; cv2 without ximgproc: file names, line 0).
_AT_DIMS = _errors.site("radon_transform.cpp:dims", _r(np.ones((2, 2, 2, 2), np.uint8)), _errors.ASSERTION_FAILED,
                        _FUNC, _FILE)
_AT_CHANNELS = _errors.site("radon_transform.cpp:channels", _r(np.ones((5, 5, 3), np.uint8)),
                            _errors.ASSERTION_FAILED, _FUNC, _FILE)
_AT_ANGLES = _errors.site("radon_transform.cpp:angles", _r(np.ones((5, 5), np.uint8), None, 1.0, 0.0, 0.0),
                          _errors.ASSERTION_FAILED, _FUNC, _FILE)
_AT_RELEASE = _errors.site("matrix_wrap.cpp:release", _r(np.zeros((0, 0), np.uint8)), _errors.ASSERTION_FAILED,
                           "release", "matrix_wrap.cpp")
_AT_WARP = _errors.site("imgwarp.cpp:warpAffine", _r(np.zeros((0, 5), np.uint8), None, 1.0, 0.0, 180.0, True),
                        _errors.ASSERTION_FAILED, "warpAffine", "imgwarp.cpp")
_AT_REDUCE = _errors.site("matrix_operations.cpp:reduce", _r(np.zeros((3, 3), np.int16)), _errors.UNSUPPORTED_FORMAT,
                          "reduce", "matrix_operations.cpp")
_AT_REMAP = _errors.site("imgwarp.cpp:remap", _r(np.zeros((3, 3), np.int8)), _errors.ASSERTION_FAILED, "remap",
                         "imgwarp.cpp")
_AT = {"src.dims() == 2": _AT_DIMS, "src.channels() == 1": _AT_CHANNELS,
       "(end_angle - start_angle) * theta > 0": _AT_ANGLES}


def _assert(cond, expr):
    if not cond:
        raise _errors.cv_error(_errors.ASSERTION_FAILED, expr, _FUNC, at=_AT[expr])


class _Plan:
    __slots__ = ("image", "dtype", "rows", "cols", "n", "oy", "ox", "col_num", "out_dtype")


class _NoAngles:
    """No angle to compute: the empty result's shape and dtype (None before 5.1)."""
    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape, self.dtype = shape, dtype


# How the installed cv2 warps (cvgpu/_versions.py): the kernels reproduce "float" (5.0's
# warpAffine: float32 coordinates and interpolation with its fused multiply-adds).
WARP = _versions.behaviour("radon.warp")
_NO_ANGLES = _versions.behaviour("radon.no_angles")
_IPP_DTYPES = (np.dtype(np.uint8), np.dtype(np.float32))


def cv2_warps_differently(dtype):
    """Whether cv2's result for ``dtype`` input comes from a warp the kernels do not reproduce: 4.x's
    fixed point, or 5.1's IPP warpAffine (8-bit and float32, while cv2.ipp.useIPP())."""
    if WARP == "fixed_point":
        return True
    return WARP == "float_or_ipp" and np.dtype(dtype) in _IPP_DTYPES and cv2.ipp.useIPP()


def _plan(a):
    """cv2's checks, in cv2's order, and the sizes of the transform (or None: cv2 returns None)."""
    mat = a["src"]
    ndim = _ndim(mat)
    is_array = isinstance(mat.array, np.ndarray) or isinstance(mat, _DeviceMat)
    # A 0-d or 1-d array is not a 2-D Mat in OpenCV 5; neither is a true n-d one (rows == -1).
    dims_ok = mat.array is not None and mat.rows != -1 and not (is_array and ndim is not None and ndim < 2)
    _assert(dims_ok, "src.dims() == 2")
    _assert(mat.channels == 1, "src.channels() == 1")
    theta, start, end = a["theta"], a["start_angle"], a["end_angle"]
    _assert((end - start) * theta > 0, "(end_angle - start_angle) * theta > 0")
    col_num = cv_round((end - start) / theta)
    rows, cols = mat.rows, mat.cols
    crop = a["crop"]
    empty = rows * cols == 0
    if empty and not crop:
        # copyTo of the empty transposed source into a fixed-size ROI of the padded square.
        raise _errors.cv_error(_errors.ASSERTION_FAILED, "!fixedSize()", "release", at=_AT_RELEASE)
    dtype = np.dtype(mat.dtype)
    floating = dtype in (np.dtype(np.float32), np.dtype(np.float64))
    n, oy, ox = geometry(rows, cols, crop) if not empty else (0, 0, 0)
    elem = 8 if floating else 4
    nbytes = n * col_num * elem
    if nbytes < 0 or nbytes >= _HOST_ALLOC_LIMIT:
        raise _errors.out_of_memory(nbytes)
    if col_num > 0:
        if empty:
            raise _errors.cv_error(_errors.ASSERTION_FAILED, "src.cols > 0 && src.rows > 0", "warpAffine",
                                   at=_AT_WARP)
        if dtype in _WARP_ONLY:
            raise _errors.cv_error(_errors.UNSUPPORTED_FORMAT,
                                   "Unsupported combination of input and output array formats", "reduce",
                                   at=_AT_REDUCE)
        if dtype not in _COMPUTED:
            raise _errors.cv_error(_errors.ASSERTION_FAILED, "ifunc != 0", "remap", at=_AT_REMAP)
    if col_num <= 0:
        if _NO_ANGLES == "shaped":  # 5.1 (#29524): the (n, 0) result cv2 created
            return _NoAngles((n, 0), np.dtype(np.uint8) if a["norm"] else
                             np.dtype(np.float64) if floating else np.dtype(np.int32))
        return None
    p = _Plan()
    p.image, p.dtype, p.rows, p.cols = mat.array, dtype, rows, cols
    p.n, p.oy, p.ox, p.col_num = n, oy, ox, col_num
    p.out_dtype = np.dtype(np.float64) if floating else np.dtype(np.int32)
    return p


_deliver = _binding.deliver  # cv2 writes into dst when it already has the result's shape and type


# ---------------------------------------------------------------- GPU pipeline

_SUFFIX = {np.dtype(np.uint8): "u8", np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}
_device_cache = {}


def _device_consts(cp, key, make):
    # Per device and stream, as hough._device_trig: uploaded, read and freed in one stream's order.
    full = (cp.cuda.Device().id, cp.cuda.get_current_stream().ptr) + key
    v = _device_cache.get(full)
    if v is None:
        if len(_device_cache) > 64:
            _device_cache.clear()
        v = make()
        _device_cache[full] = v
    return v


_ARRAY_TEXTURE_GATHER = 0x08  # cudaArrayTextureGather
_tls = threading.local()


def _gather_texture(cp, h, w):
    """(CUDA array, texture object, event recorded after its last use): an h x w uint8 array that
    tld4 may read, zero outside.
    Kept per thread, device and size, and shared by the thread's streams: the current stream first
    waits for the event of the array's last use (on whatever stream), so the array is only
    rewritten after the kernels that read it. Not keyed by stream: a call on a new stream would
    allocate an array and evict the others, and freeing a CUDA array waits for the whole device
    (tests/test_hardening_common.py: the no-device-sync test guards this)."""
    cache = getattr(_tls, "textures", None)
    if cache is None:
        cache = _tls.textures = {}
    key = (cp.cuda.Device().id, h, w)
    entry = cache.get(key)
    if entry is not None:
        cp.cuda.get_current_stream().wait_event(entry[2])
    else:
        if len(cache) >= TUNING.textures_per_thread:
            # Kernels still queued may read these arrays: wait for the last use of each (its own
            # stream's event, not the whole device) before freeing.
            for entry in cache.values():
                entry[2].synchronize()
            cache.clear()
        tx, rt = cp.cuda.texture, cp.cuda.runtime
        desc = tx.ChannelFormatDescriptor(8, 0, 0, 0, rt.cudaChannelFormatKindUnsigned)
        arr = tx.CUDAarray(desc, w, h, 0, _ARRAY_TEXTURE_GATHER)
        res = tx.ResourceDescriptor(rt.cudaResourceTypeArray, cuArr=arr)
        tdesc = tx.TextureDescriptor((rt.cudaAddressModeBorder, rt.cudaAddressModeBorder),
                                     rt.cudaFilterModePoint, rt.cudaReadModeElementType,
                                     borderColors=(0, 0, 0, 0), normalizedCoords=0)
        entry = (arr, tx.TextureObject(res, tdesc), cp.cuda.Event(block=False, disable_timing=True))
        cache[key] = entry
    return entry


def _host_result(cp, out):
    """``out`` on the host. Results up to ``TUNING.pinned_max`` bytes land in pinned memory from
    CuPy's pool (a plain numpy array to the caller; the block returns to the pool with it): a
    pageable download runs at a fraction of the link's speed."""
    if out.nbytes > TUNING.pinned_max:
        TUNING.ran("pageable")
        return out.get()
    TUNING.ran("pinned")
    import cupyx
    host = cupyx.empty_pinned(out.shape, out.dtype)
    out.get(out=host)
    return host


def _gpu_radon_u8_tex(cp, plan, theta, start, crop):
    """8-bit transform through the texture unit; None where the texture limits do not allow it."""
    image, n, a_count = plan.image, plan.n, plan.col_num
    if not TUNING.use_texture or max(plan.rows, plan.cols, n if crop else 0) > TUNING.gather_max:
        return None
    TUNING.ran("texture")
    if image.ndim == 3:
        image = image.reshape(image.shape[0], image.shape[1])
    if crop:
        # The circle mask needs the prepared square; it goes to the array device to device.
        d_src = upload_2d(image)
        img = cp.empty((n, n), dtype=np.uint8)
        hw = _device_consts(cp, ("hw", n), lambda: cp.asarray(circle_halfwidths(n)))
        _kernels.get_function(_KERNELS, "radon_prepare_u8")(
            (cdiv(n, 32), cdiv(n, 32)), (32, 8),
            (d_src, np.int64(d_src.strides[0] // d_src.itemsize), np.int32(plan.rows), np.int32(plan.cols),
             img, np.int32(n), np.int32(plan.oy), np.int32(plan.ox), hw))
        arr, tex, used = _gather_texture(cp, n, n)
        arr.copy_from(img, stream=cp.cuda.get_current_stream())
        name, ou, ov = "radon_u8_tex", 1.0, 1.0
        # Where a sample's 2x2 gather can touch the n x n texture: sx with ou, sy with ov.
        box = (-ou, n - ou + 1.0, -ov, n - ov + 1.0)
    else:
        # The caller's src itself, transposed and padded by the addressing alone.
        arr, tex, used = _gather_texture(cp, plan.rows, plan.cols)
        # On the caller's stream, explicitly: the copy must be ordered with the kernels around it.
        if isinstance(image, np.ndarray):
            arr.copy_from(np.ascontiguousarray(image), stream=cp.cuda.get_current_stream())
        else:
            arr.copy_from(_device_ops.ops(cp).contiguous(image), stream=cp.cuda.get_current_stream())
        name, ou, ov = "radon_u8_tex_t", float(plan.oy + 1), float(plan.ox + 1)
        # Transposed: sample x runs along the src rows (ov), sample y along its columns (ou).
        box = (-ov, plan.rows - ov + 1.0, -ou, plan.cols - ou + 1.0)
    mats = _device_consts(cp, ("m", n, start, theta, a_count, "f"),
                          lambda: cp.asarray(inverse_matrices(n, start, theta, a_count).astype(np.float32)))
    out = cp.empty((n, a_count), dtype=np.int32)
    nvec = n - n % 16
    _kernels.get_function(_KERNELS, name)(
        (a_count, cdiv(n, 8)), (256,),
        (tex, np.int32(n), np.int32(nvec), np.int32(a_count), mats, np.float32(ou), np.float32(ov),
         *(np.float32(v) for v in box), out))
    used.record()
    return out


def _check_memory(cp, need):
    # cv2 fails its allocation of the result when memory is short; so does cvgpu, before it works
    # out one matrix per angle for an output that cannot exist. (Small needs skip the query.)
    if need > TUNING.memory_query_min and need > (cp.cuda.runtime.memGetInfo()[0]
                                                  + cp.get_default_memory_pool().free_bytes()):
        raise cp.cuda.memory.OutOfMemoryError(need, 0)


def _gpu_radon(cp, plan, theta, start, crop, norm):
    """The transform of ``plan.image`` (numpy or CuPy): a CuPy array, and for float input a device
    flag set where the sinogram holds a NaN (None for 8-bit input, whose sums are integers)."""
    n, a_count, dtype = plan.n, plan.col_num, plan.dtype
    _check_memory(cp, n * a_count * (plan.out_dtype.itemsize + (1 if norm else 0)) + n * n * dtype.itemsize
                  + a_count * 48)
    out = _gpu_radon_u8_tex(cp, plan, theta, start, crop) if dtype == np.uint8 else None
    if out is None:
        out = _gpu_radon_plain(cp, plan, theta, start, crop)
    nan_flag = _any_nan(cp, out) if plan.out_dtype == np.float64 else None
    if norm:
        out = _normalize(cp, out, plan)
    return out, nan_flag


def _any_nan(cp, out):
    flag = cp.zeros(1, dtype=cp.int32)
    count = out.size
    _kernels.get_function(_KERNELS, "radon_any_nan")(
        (max(1, min(cdiv(count, 256), 1024)),), (256,), (out, np.int64(count), flag))
    return flag


def _gpu_radon_plain(cp, plan, theta, start, crop):
    TUNING.ran("global")
    image = plan.image
    if image.ndim == 3:
        image = image.reshape(image.shape[0], image.shape[1])
    d_src = upload_2d(image)
    if d_src.strides[0] % d_src.itemsize:
        d_src = _device_ops.ops(cp).contiguous(d_src)
    n, a_count, dtype = plan.n, plan.col_num, plan.dtype
    suffix = _SUFFIX[dtype]
    img = cp.empty((n, n), dtype=dtype)
    hw = _device_consts(cp, ("hw", n), lambda: cp.asarray(circle_halfwidths(n))) if crop else None
    _kernels.get_function(_KERNELS, "radon_prepare_" + suffix)(
        (cdiv(n, 32), cdiv(n, 32)), (32, 8),
        (d_src, np.int64(d_src.strides[0] // d_src.itemsize), np.int32(plan.rows), np.int32(plan.cols),
         img, np.int32(n), np.int32(plan.oy), np.int32(plan.ox), hw if hw is not None else np.uint64(0)))

    mat_type = np.float64 if dtype == np.float64 else np.float32
    mats = _device_consts(cp, ("m", n, start, theta, a_count, np.dtype(mat_type).char),
                          lambda: cp.asarray(inverse_matrices(n, start, theta, a_count).astype(mat_type)))
    out = cp.empty((n, a_count), dtype=plan.out_dtype)
    grid = (a_count, cdiv(n, 8))
    fn = _kernels.get_function(_KERNELS, "radon_" + suffix)
    if dtype == np.float64:
        fn(grid, (256,), (img, np.int32(n), np.int32(a_count), mats, out))
    else:
        nvec = n - n % 16  # OpenCV's AVX2 loop: 16 pixels a step, then a scalar tail
        fn(grid, (256,), (img, np.int32(n), np.int32(nvec), np.int32(a_count), mats, out))
    return out


def _normalize(cp, out, plan):
    n, a_count = plan.n, plan.col_num
    minmax = _device_ops.ops(cp).minmax(out)   # out.min(), out.max(), on the device
    vmin, vmax = minmax[0:1], minmax[1:2]
    res = cp.empty((n, a_count), dtype=cp.uint8)
    count = n * a_count
    name = "radon_norm_i32" if plan.out_dtype == np.int32 else "radon_norm_f64"
    _kernels.get_function(_KERNELS, name)(
        (max(1, min(cdiv(count, 256), 4096)),), (256,), (out, np.int64(count), vmin, vmax, res))
    return res


def _fallback(plan, a, src_value):
    """No GPU: cv2 computes (on a copy: cv2 5.0 transposes a square src in place)."""
    ximgproc = getattr(cv2, "ximgproc", None)
    if ximgproc is None:
        raise _errors.cv_error(_errors.NOT_IMPLEMENTED,
                               "cvgpu.ximgproc.RadonTransform needs a CUDA GPU or opencv-contrib-python",
                               _FUNC)
    _backend.warn_fallback()
    _backend.record("cv2")
    src = np.array(plan.image, copy=True) if plan is not None else src_value
    return ximgproc.RadonTransform(src, None, a["theta"], a["start_angle"], a["end_angle"], a["crop"],
                                   a["norm"])


def _cv2_computes(a):
    """cv2.ximgproc.RadonTransform itself (on a copy of src; device input goes through the host
    and comes back as CuPy)."""
    ximgproc = getattr(cv2, "ximgproc", None)
    if ximgproc is None:   # (4.x's fixed-point warps, 5.1's IPP warps, NaN sinograms: cv2's to compute)
        raise _errors.cv_error(_errors.NOT_IMPLEMENTED,
                               "cvgpu.ximgproc.RadonTransform: cv2 computes this call, and this cv2 has no "
                               "ximgproc (opencv-contrib-python)", _FUNC)
    _backend.record("cv2")
    mat = a["src"]
    on_device = isinstance(mat, _DeviceMat)
    src = mat.array
    if on_device:
        src = _device_ops.ops(_backend.cupy_module()).to_host(src)
    elif isinstance(src, np.ndarray):
        src = src.copy()
    result = ximgproc.RadonTransform(src, None, a["theta"], a["start_angle"], a["end_angle"], a["crop"],
                                     a["norm"])
    if on_device and result is not None:
        result = _backend.cupy_module().asarray(result)
    return result


@on_input_device(0, "src")
def RadonTransform(*args, **kwargs):
    """RadonTransform(src[, dst[, theta[, start_angle[, end_angle[, crop[, norm]]]]]]) -> dst

    cv2.ximgproc.RadonTransform on the GPU, bit-exact: CV_32S output for 8-bit input, CV_64F for
    float input, CV_8U with ``norm``. ``src`` may be numpy (numpy out) or a CuPy /
    CUDA-array-interface / DLPack device array (CuPy out). ``src`` is never modified.

    Where the installed cv2 warps otherwise than 5.0 (``cv2_warps_differently``: 4.x, and 5.1's IPP
    for 8-bit and float32) cv2.ximgproc computes instead and ``cvgpu.last_call_backend()`` says
    ``"cv2"``: cvgpu's kernels follow 5.0's warp arithmetic.
    """
    _backend.record(None)
    a = _parse(args, kwargs)
    pending = a.pop(_binding.PENDING, None)
    result = _radon(a)
    if pending is not None:  # cv2 ran the call with an error pending (its own error would replace it)
        raise _binding.returned_with_error(_FUNC, pending)
    return result


def _radon(a):
    if WARP == "fixed_point":
        return _deliver(_cv2_computes(a), a["dst"])
    plan = _plan(a)
    if plan is None or isinstance(plan, _NoAngles):
        # Nothing to compute (no angle): cv2's None, or the empty sinogram of releases that return one.
        _backend.record("none")
        if plan is None:
            return None
        on_device = isinstance(a["src"], _DeviceMat)
        return _deliver((_backend.cupy_module() if on_device else np).zeros(plan.shape, plan.dtype), a["dst"])
    if cv2_warps_differently(plan.dtype):
        return _deliver(_cv2_computes(a), a["dst"])
    # Without contrib (opencv-python 5.x) cv2 has no RadonTransform: the GPU is the only engine, also
    # while auto mode's start-up runs (cv2 would otherwise compute those calls).
    if isinstance(a["src"], _DeviceMat) or _engine.get_engine() == _engine.CUDA or not hasattr(cv2, "ximgproc"):
        return _radon_gpu(a, plan)
    key = (_engine.size_bucket(plan.n * plan.n), str(plan.out_dtype), _engine.size_bucket(plan.col_num),
           bool(a["crop"]), bool(a["norm"]))
    return _engine.run("RadonTransform", key, False, lambda: _radon_gpu(a, plan),
                       lambda: _deliver(_cv2_computes(a), a["dst"]))


def _radon_gpu(a, plan):
    cp = _backend.cupy_module()
    if cp is None:
        return _deliver(_fallback(plan, a, None), a["dst"])
    _backend.record("cuda")
    on_device = isinstance(a["src"], _DeviceMat)
    try:
        result, nan_flag = _gpu_radon(cp, plan, a["theta"], a["start_angle"], a["crop"], a["norm"])
    except cp.cuda.memory.OutOfMemoryError:
        raise _errors.out_of_memory(plan.n * plan.col_num * (8 if plan.out_dtype == np.float64 else 4)) from None
    except cp.cuda.runtime.CUDARuntimeError as exc:
        if exc.status != 2:  # cudaErrorMemoryAllocation: a CUDA array is allocated outside CuPy's pool
            raise
        raise _errors.out_of_memory(plan.n * plan.col_num * (8 if plan.out_dtype == np.float64 else 4)) from None
    # A float sinogram with NaN: cv2's answer depends on its CPU's SIMD path (kernels/ximgproc/radon.cu,
    # radon_any_nan), so cv2 computes it. Reading the flag is this call's one wait for the GPU.
    if nan_flag is not None and int(nan_flag.get()[0]):
        return _deliver(_cv2_computes(a), a["dst"])
    if not on_device:
        result = _host_result(cp, result)
    return _deliver(result, a["dst"])


def uses_gpu():
    return _backend.backend() == "cuda"


def _warm(cp):
    """The engine's start-up: the family's kernels loaded before its first GPU call."""
    _kernels.preload(_KERNELS)


_engine.register_warmup("radon", _warm)
