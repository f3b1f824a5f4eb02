"""The one input-conversion helper: host arrays are uploaded once, device arrays (CuPy,
``__cuda_array_interface__``, DLPack on a CUDA device) stay where they are. Nothing here writes to
the caller's memory."""
import numpy as np

from ._backend import cupy_module

_DLPACK_CUDA = 2


def as_device_array(value):
    """A CuPy view of ``value`` if it lives on a CUDA device, else None."""
    if value is None or isinstance(value, (np.ndarray, np.generic)):
        return None
    # Every device array (CuPy's included) has one of these. Without them the value is host data
    # (a flag, a tuple, a list): no reason to start the GPU, which probing CuPy would do (~0.5 s in
    # the caller's thread, on the first cv2-computed call of auto mode). The type is asked first, so
    # that a CuPy array's interface property is not built for the question.
    cls = type(value)
    if not (hasattr(cls, "__cuda_array_interface__") or hasattr(cls, "__dlpack__")
            or hasattr(value, "__cuda_array_interface__")):
        return None
    cp = cupy_module()
    if cp is None:
        return None
    if isinstance(value, cp.ndarray):
        return value
    if hasattr(value, "__cuda_array_interface__"):
        return cp.asarray(value)
    dl_device = getattr(value, "__dlpack_device__", None)
    if dl_device is not None and hasattr(value, "__dlpack__"):
        try:
            kind = dl_device()[0]
        except Exception:
            return None
        if int(kind) == _DLPACK_CUDA:
            return cp.from_dlpack(value)
    return None


def upload_2d(array):
    """A 2-D device array with unit column stride, from host or device input (copies only if needed,
    with cvgpu._device_ops: nothing compiled)."""
    cp = cupy_module()
    if isinstance(array, cp.ndarray):
        if array.ndim == 2 and array.strides[1] == array.itemsize and array.strides[0] >= array.shape[1]:
            return array
        from ._device_ops import ops
        return ops(cp).contiguous(array)
    return cp.asarray(np.ascontiguousarray(array))


def on_input_device(position, name):
    """Decorator: run the call on the device that holds its array argument (``args[position]`` or
    ``kwargs[name]``) when that is not the current device, so a CuPy array made under
    ``cupy.cuda.Device(1)`` is computed on device 1 (with device 1's current stream and its own
    compiled kernels and scratch) and its result stays there. Host input runs on the current device."""
    import functools

    def wrap(fn):
        @functools.wraps(fn)
        def call(*args, **kwargs):
            value = args[position] if len(args) > position else kwargs.get(name)
            if value is not None and type(value) is not np.ndarray:
                device = _device_of(value)
                if device is not None:
                    with device:
                        return fn(*args, **kwargs)
            return fn(*args, **kwargs)
        return call
    return wrap


def _device_of(value):
    """The cupy.cuda.Device holding ``value`` when it is not the current one, else None."""
    cp = cupy_module()
    if cp is None or isinstance(value, np.generic):
        return None
    try:
        if isinstance(value, cp.ndarray):
            arr = value
        elif hasattr(value, "_cvgpu_device_array"):  # cvgpu.cuda.GpuMat: its CuPy array, no conversion
            arr = value._cvgpu_device_array
        else:
            arr = as_device_array(value)
    except Exception:
        return None  # the function's own conversion reports it as cv2 would
    if arr is None:
        return None
    # (The memory pointer's device id: ndarray.device builds a Device object on every call.)
    device_id = arr.data.device_id
    return cp.cuda.Device(device_id) if device_id != cp.cuda.runtime.getDevice() else None
