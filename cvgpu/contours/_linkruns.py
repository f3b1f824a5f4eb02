"""cv2.findContoursLinkRuns on the GPU (kernels/contours/linkruns.cu; model tests/models/linkruns_model.py).

cv2.findContoursLinkRuns(image[, contours[, hierarchy]]) -> contours, hierarchy (cv2's binding also
lists an overload returning contours alone, but the first one accepts every call the second does,
so Python always gets (contours, hierarchy)). Given output arrays, empty images (cv2 reads memory
outside a 0-row Mat: its result is its own) and non-array inputs are cv2's. As findContours: images
beyond the kernels' int32 indices raise -211 (run end points, 2 per run, number at most
h * (w + 1); the flat pixel index h * w is below that), running out of GPU memory raises cv2's -4
after one retry without the cached scratch (_common.retrying)."""
import cv2
import numpy as np

from .. import _binding, _errors, _versions
from .._arrays import as_device_array
from . import TUNING
from ._common import BLOCK, Forward, by_name, empty
from ._ranking import grouped_layout

FAMILY = "contours-linkruns"   # its scratch, per thread and device, apart from findContours'

_LR_FUNC = _errors.check_func("void cv::findContoursLinkRuns(cv::InputArray, cv::OutputArrayOfArrays, cv::OutputArray)")
_LR_TYPE_ERR = ("> Bad input image type, must be CV_8UC1 or CV_8SC1:\n"
                ">     '_image.type() == CV_8UC1 || _image.type() == CV_8SC1'\n> where\n"
                ">     '_image.type()' is %d (%s)\n")
# cv2's depth codes of the numpy dtypes its binding accepts (int64 arrives as CV_32S; uint64 too
# before 5.1, as CV_64U from 5.1), and the channel shift of its type numbers (3 in 4.x, 5 in 5.x).
_LR_DEPTHS = {"uint8": (0, "8U"), "int8": (1, "8S"), "uint16": (2, "16U"), "int16": (3, "16S"),
              "int32": (4, "32S"), "int64": (4, "32S"), "uint64": (4, "32S"), "float32": (5, "32F"),
              "float64": (6, "64F"), "float16": (7, "16F"), "bool": (9, "Bool"), "uint32": (12, "32U")}
if _versions.behaviour("binding.uint64_depth") == "CV_64U":
    _LR_DEPTHS["uint64"] = (10, "64U")
_INT64_WIDE = _versions.behaviour("binding.int64_depth") == "CV_64S_when_wide"
_CN_SHIFT = _versions.behaviour("binding.cn_shift")
_ZERO_CHANNELS = _versions.behaviour("binding.zero_channels")
_ND_IMAGE = _versions.behaviour("linkruns.nd_image")
_AT_TYPE = _errors.site("contours_link.cpp:type", lambda: cv2.findContoursLinkRuns(np.zeros((2, 2), np.float32)),
                        _errors.UNSPECIFIED, _LR_FUNC, "contours_link.cpp")
_AT_DIMS = _errors.site("mat.inl.hpp:size", lambda: cv2.findContoursLinkRuns(np.zeros((2, 2, 2, 2), np.uint8)),
                        _errors.ASSERTION_FAILED, "operator()", "mat.inl.hpp")
_LR_NAMES = ("image", "contours", "hierarchy")


def _lr_binding_error(msg):
    return _errors.bad_argument("findContoursLinkRuns", msg, msg, "Expected Ptr<cv::UMat> for argument 'image'",
                                "Expected Ptr<cv::UMat> for argument 'image'")


def _outside_int32(arr, on_device):
    """Whether an int64 array holds a value outside int32 (5.1's binding then makes it CV_64S)."""
    values = np.asarray(arr.get() if on_device else arr)   # (an error path: refused either way)
    return bool(values.size) and (int(np.min(values)) < -(1 << 31) or int(np.max(values)) >= (1 << 31))


def image_of(args, kwargs):
    """(2-D uint8 view of the image (host or CuPy), on_device) for the calls cvgpu computes; raises
    cv2's error for images cv2 rejects; Forward for everything that is cv2's."""
    bound = by_name(_LR_NAMES, args, kwargs)
    if "image" not in bound or bound.get("contours") is not None or bound.get("hierarchy") is not None:
        raise Forward
    image = bound["image"]
    device = as_device_array(image)
    arr = device if device is not None else image
    if device is None and not isinstance(arr, np.ndarray):
        raise Forward
    try:
        if arr.ndim == 3 and arr.shape[2] == 0:
            if _ZERO_CHANNELS != "error":
                raise Forward  # (before 4.14 cv2 makes the Mat and fails on its type: cv2's)
            raise _binding.ConversionError("image unable to wrap channels, invalid count (0, must be in [1, %d])"
                                           % _binding.CN_MAX)
        # cv2 reads a non-native byte order by its kind and size (a '>u2' image is CV_16U).
        dtype = arr.dtype.newbyteorder("=") if arr.dtype.byteorder not in "=|" else arr.dtype
        mat = _binding.mat_header("image", arr, arr.shape, dtype)
    except _binding.ConversionError as exc:
        if "hierarchy" in bound:
            raise Forward from None   # the second overload's own complaint about it: cv2 raises it
        raise _lr_binding_error(str(exc)) from None
    if arr.size == 0:
        raise Forward
    depth, name = _LR_DEPTHS[dtype.name]
    if _INT64_WIDE and dtype == np.int64 and _outside_int32(arr, device is not None):
        depth, name = 11, "64S"
    cn = mat.channels
    if depth > 1 or cn != 1:
        raise _errors.cv_error(_errors.UNSPECIFIED,
                               _LR_TYPE_ERR % (depth + ((cn - 1) << _CN_SHIFT), "CV_%sC%d" % (name, cn)),
                               _LR_FUNC, at=_AT_TYPE)
    if mat.rows < 0:  # an n-d Mat: Mat::size() asserts from 5.0; 4.x runs on it (cv2's)
        if _ND_IMAGE == "computed":
            raise Forward
        raise _errors.cv_error(_errors.ASSERTION_FAILED, "dims <= 2", "operator()", at=_AT_DIMS)
    arr = arr.reshape(mat.rows, mat.cols)
    if arr.dtype != np.uint8:
        arr = arr.view(np.uint8)
    return arr, device is not None


MAX_NODES = (1 << 31) - 1


def check_size(shape):
    h, w = int(shape[0]), int(shape[1])
    if h * (w + 1) >= MAX_NODES:
        raise _errors.cv_error(
            _errors.BAD_VALUE,
            "cvgpu: the %d x %d image can have %d run end points, more than the %d that the GPU kernels "
            "index with int32" % (h, w, h * (w + 1), MAX_NODES - 1), "findContoursLinkRuns")


def linkruns_gpu(gpu, image, grouped=False):
    """(points (2R, 2) int32, offsets (M + 1,) int64, the offsets on the host, hierarchy (M, 4)
    int32), CuPy but for the host offsets. Host syncs: the run count, the contour count, the
    offsets. With ``grouped`` (and enough contours) the points are laid out by length as
    findContours lays them out: offsets is None and the host array is (order, lengths), see
    assemble_grouped."""
    cp = gpu.cp
    fn = gpu.fn
    h, w = image.shape
    if isinstance(image, cp.ndarray):
        src = image if image.strides[1] == 1 else gpu.ops.contiguous(image)
    else:
        src = cp.asarray(np.ascontiguousarray(image))
    pitch = src.strides[0]
    ws = gpu.workspace(FAMILY)
    i32, i64 = np.int32, np.int64
    npix = h * w
    flags = ws.grown("flags", npix, cp.uint8)
    cs = ws.grown("cs", npix, cp.int32)
    fn("linkruns", "lr_flags")(gpu.grid(npix), (BLOCK,), (src, i64(pitch), i32(h), i32(w), flags))
    gpu.ops.inclusive_scan(flags[:npix], cs[:npix])
    runs = int(cs[npix - 1:npix].get()[0])
    if runs == 0:
        return empty(cp)
    x0 = ws.grown("x0", runs, cp.int32)
    x1 = ws.grown("x1", runs, cp.int32)
    ry = ws.grown("ry", runs, cp.int32)
    row_off = ws.grown("row_off", h + 1, cp.int32)
    fn("linkruns", "lr_runs")(gpu.grid(npix), (BLOCK,), (src, i64(pitch), i32(h), i32(w), cs, x0, x1, ry, row_off))
    n = 2 * runs
    gn = gpu.grid(n)
    link = ws.grown("link", n, cp.int32)
    a = ws.grown("nodes_a", 4 * n, cp.int32)      # LrNode records (successor, least key, its distance, pad)
    b = ws.grown("nodes_b", 4 * n, cp.int32)
    fn("linkruns", "lr_link")(gpu.grid(runs), (BLOCK,), (i32(runs), i32(h), x0, x1, ry, row_off, link, a))
    jump = fn("linkruns", "lr_jump")
    for k in range(max(1, (n - 1).bit_length())):
        jump(gn, (BLOCK,), (i32(n), i32(1 << k), a, b))
        a, b = b, a
    nodes = a
    is_head = ws.grown("is_head", n, cp.int32)
    lens = ws.grown("lens", n, cp.int32)
    gpu.ops.fill_i32(is_head[:n], 0)
    gpu.ops.fill_i32(lens[:n], 0)
    fn("linkruns", "lr_heads")(gn, (BLOCK,), (i32(n), i32(runs), link, nodes, is_head, lens))
    order = ws.grown("order", n, cp.int32)
    ends = ws.grown("ends", n, cp.int32)
    gpu.ops.inclusive_scan(is_head[:n], order[:n])
    gpu.ops.inclusive_scan(lens[:n], ends[:n])
    m = int(order[n - 1:n].get()[0])
    offsets = cp.empty(m + 1, dtype=cp.int64)
    hier = cp.empty((m, 4), dtype=cp.int32)
    fn("linkruns", "lr_offsets")(gn, (BLOCK,), (i32(n), i32(m), is_head, order, lens, ends, offsets, hier))
    points = cp.empty((n, 2), dtype=cp.int32)
    if grouped and m >= TUNING.grouped_min:
        TUNING.ran("grouped")
        # Contours ordered by (length, index), as findContours' numpy path (see assemble_grouped).
        by_length, lengths, base, _, _ = grouped_layout(gpu, gpu.ops.lengths(offsets), m)
        layout, offsets = (by_length, lengths), None
    else:
        TUNING.ran("flat")
        base = offsets
        layout = offsets.get()
    fn("linkruns", "lr_emit")(gn, (BLOCK,), (i32(n), x0, x1, ry, nodes, lens, order, base, points))
    return points, offsets, layout, hier
