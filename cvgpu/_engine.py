"""Which engine computes each call: cvgpu's GPU kernels or cv2 itself.

The promise is "the same results, faster": a call is never made slower by going to the GPU. Both
engines give identical results (cvgpu's kernels are bit-exact with cv2), so the choice is about time
alone, made per call:

1. Device input (CuPy, ``__cuda_array_interface__``, DLPack) always stays on the GPU.
2. ``CVGPU_ENGINE=cuda`` (or ``set_engine("cuda")``) sends every call to the GPU, starting it on the
   first call as cvgpu always did; ``CVGPU_ENGINE=cv2`` sends every call to cv2. Benchmarks and the
   GPU test suite pin ``cuda``. The default is ``auto``.
3. In ``auto``, ``import cvgpu`` starts nothing. The GPU (CuPy's import, the CUDA context, the memory
   pool, the kernels of the families called so far) is started in a background thread once calls
   that would gain from it (cv2 took at least ``qualify_ms`` on each) have taken ``start_after_ms``
   of cv2 time: a script that makes only small calls never pays for a GPU start-up it cannot win
   back. Until the GPU is ready, calls are computed by cv2.
4. Once the GPU is ready, each call's engine is chosen by a cost model measured in this process:
   per family and per key (image size in half-octaves of pixels and the settings that change the
   work, e.g. mode and method), the median-like running estimate of each engine's wall time for a
   call (numpy in, numpy out: upload, kernels, download and the result's arrays included). A key is
   first measured on cv2; the GPU is tried on it once the cv2 time spent on that key covers
   ``EXPLORE_FACTOR`` times the GPU's first-use cost (plans, captured graphs, allocations for a new
   size), then its steady time is measured, and from then on the faster engine computes, the slower
   being measured again so that the choice follows the machine: after at least ``REPROBE_EVERY``
   calls, and once the key's calls since the last measurement took ``REPROBE_RATIO`` times the
   slower engine's estimate, so re-measuring costs at most about 1/REPROBE_RATIO of a key's time
   however far apart the engines are.

``cvgpu.last_call_backend()`` says which engine computed each call. Forked children of a process
whose GPU had started cannot use CUDA: they compute with cv2 (``auto``) or fall back with a warning.
Exiting while the background start-up runs is clean: the start-up stops at its next step and is
waited for (a CUDA call cannot be abandoned half-way without risking a crash at exit).
"""
import atexit
import math
import os
import threading
import time

from . import _backend
from ._tuning import Tuning

CUDA, CV2 = "cuda", "cv2"
MODES = ("auto", CUDA, CV2)

TUNING = Tuning(
    "engine",
    # A call "would gain from the GPU" when cv2 took at least qualify_ms on it (below, the GPU's fixed
    # costs of a call are not won back); the GPU is started once such calls have taken start_after_ms
    # of cv2 time. Ski rental: the start-up costs the script about what it lasts (the driver's
    # initialisation and CuPy's import, during which cv2's calls wait for the GIL and run about twice
    # as long), so it is bought once as much cv2 time has been spent (HISTORY, "GPU start
    # threshold": scripts with less never start it, long ones lose a few frames). 600 ms: at 300,
    # photo_lines (25 calls, 185-431 ms of cv2 time a run) started it in its last calls and waited
    # for it at exit, slower than cv2; at 600 it is not, and video_lines stays faster than cv2
    # (HISTORY, "Dask: a pass's fixed cost is Dask's": the A/B of 300 against 600).
    qualify_ms=1.0,
    start_after_ms=600.0,
    # the GPU is first tried on a key once cv2 time on that key reaches this multiple of the GPU's
    # expected first-use cost for the family (ski rental: at most 1/EXPLORE_FACTOR lost on a key
    # that ends right after the switch).
    explore_factor=2.0,
    # the slower engine of a key is measured again after at least this many calls, and once the
    # calls since its last measurement took reprobe_ratio times its estimate. A count alone cost a
    # VGA HoughLines stream a cv2 call (9 ms) every 64 GPU calls (0.07 ms): 3,200 frames/s instead
    # of 14,000 (compat_matrix/HISTORY.md, "The engine's re-measurements").
    reprobe_every=64,
    reprobe_ratio=20.0,
    # first-use cost (ms) assumed for a family before one has been measured in this process (plans,
    # captured graphs and allocations of a new size; kernels ship compiled)
    first_use_ms=10.0,
    # weight of a new measurement in an engine's running estimate
    ewma=0.25,
)

_lock = threading.Lock()
_mode = [os.environ.get("CVGPU_ENGINE", "auto").strip().lower() or "auto"]
if _mode[0] not in MODES:
    _mode[0] = "auto"


def set_engine(mode):
    """Force an engine for the whole process: ``"cuda"``, ``"cv2"`` or ``"auto"`` (the per-call
    choice). Returns the previous mode. Also set by the ``CVGPU_ENGINE`` environment variable."""
    mode = str(mode).strip().lower()
    if mode not in MODES:
        raise ValueError("cvgpu engine must be one of %s, not %r" % (", ".join(MODES), mode))
    old, _mode[0] = _mode[0], mode
    return old


def get_engine():
    """The engine mode of the process: ``"auto"``, ``"cuda"`` or ``"cv2"``."""
    return _mode[0]


# ---------------------------------------------------------------- GPU start-up in the background

class _Startup:
    """The GPU's start-up: cold, starting (a background thread), ready or failed."""

    def __init__(self):
        self.state = "cold"
        self.thread = None
        self.cancel = False
        self.warmers = []          # (family, fn(cp)): kernels to load once the GPU is up
        self.warmed = set()
        self.seconds = None        # how long the start-up took
        self.nothing_known = False  # quick_unusable_reason() said None: not asked again while cold

    def begin(self):
        with _lock:
            if self.state != "cold":
                return
            if _backend.gpu_probed():   # started already (a forced call, device input): nothing to wait for
                self.state = "ready" if _backend.cupy_module() is not None else "failed"
                return
            self.state = "starting"
            self.thread = threading.Thread(target=self._run, name="cvgpu-gpu-start", daemon=True)
            _register_exit()
            self.thread.start()

    def _run(self):
        t0 = time.perf_counter()
        # The driver's initialisation and the primary context (~0.2 s, no GIL needed) run beside
        # CuPy's import (~0.25 s, mostly under the GIL) instead of after it.
        driver = threading.Thread(target=_driver_init, name="cvgpu-cuda-init", daemon=True)
        driver.start()
        try:
            cp = _backend.cupy_module()   # import CuPy, make the context, a first allocation
            if cp is None:
                self.state = "failed"
                return
            self._warm(cp)
            self.state = "ready"
        except BaseException:             # a broken driver must never break the caller
            self.state = "failed"
        finally:
            driver.join()
            self.seconds = time.perf_counter() - t0

    def _warm(self, cp):
        for family, warm in list(self.warmers):
            if self.cancel:
                return
            if family not in self.warmed:
                self.warmed.add(family)
                warm(cp)

    def join(self, timeout=None):
        thread = self.thread
        if thread is not None and thread.is_alive() and thread is not threading.current_thread():
            thread.join(timeout)


def _driver_init():
    """cuInit and device 0's primary context through the driver API (ctypes releases the GIL), so
    that CuPy finds them made. Any failure is left for CuPy's own start to report."""
    import ctypes
    try:
        lib = ctypes.CDLL("libcuda.so.1")
        if lib.cuInit(0) != 0:
            return
        dev, ctx = ctypes.c_int(), ctypes.c_void_p()
        if lib.cuDeviceGet(ctypes.byref(dev), 0) == 0:
            lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev)
    except Exception:
        pass


_startup = _Startup()
_exit_registered = []


def _register_exit():
    if not _exit_registered:
        _exit_registered.append(True)
        atexit.register(_at_exit)


def _at_exit():
    _startup.cancel = True
    _startup.join()


def _after_fork_in_child():
    # The child has the parent's memory but no thread of it. Where the parent had started CUDA (or
    # was starting it), the child cannot use it (CUDA does not survive fork): compute with cv2.
    global _startup, _lock
    _lock = threading.Lock()
    _backend._lock = threading.Lock()   # a lock held by a parent's thread at fork() stays held
    started = _startup.state in ("starting", "ready") or _backend.gpu_probed()
    _startup = _Startup()
    if started:
        _startup.state = "failed"
        _backend.mark_unusable("CUDA was started in the parent process before fork(); a forked child cannot use it")


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def register_warmup(family, fn):
    """``fn(cp)`` loads the family's kernels and makes its scratch; the background start-up calls it
    for every family called before the GPU was ready (and later ones on their first GPU call)."""
    with _lock:
        if all(f != family for f, _ in _startup.warmers):
            _startup.warmers.append((family, fn))


def startup_state():
    """"cold", "starting", "ready" or "failed" (auto mode's background start-up)."""
    return _startup.state


def wait_until_ready(timeout=None):
    """Start the GPU if it is not (auto mode) and wait for it; True when it is ready."""
    _startup.begin()
    _startup.join(timeout)
    return _startup.state == "ready"


# ---------------------------------------------------------------- the cost model

class _Key:
    __slots__ = ("cv2_ms", "cv2_n", "cv2_total", "gpu_ms", "gpu_n", "first_ms", "calls", "last_probe",
                 "since_probe_ms")

    def __init__(self):
        self.cv2_ms = self.gpu_ms = self.first_ms = None
        self.cv2_n = self.gpu_n = self.calls = self.last_probe = 0
        self.cv2_total = self.since_probe_ms = 0.0


_keys = {}
_first_use = {}          # family -> measured first GPU call cost above its steady cost (ms)
_accelerable_cv2_ms = [0.0]


_buckets = {}


def size_bucket(pixels):
    """Half-octaves of the pixel count: sizes within ~41% of each other share a bucket. (Memoized
    per pixel count, up to 4,096 counts: every call of every family computes its key.)"""
    b = _buckets.get(pixels)
    if b is None:
        b = int(round(2 * math.log2(pixels))) if pixels > 0 else -1
        if len(_buckets) < 4096:
            _buckets[pixels] = b
    return b


def choose(family, key, on_device=False):
    """The engine for one call of ``family`` whose work is described by ``key`` (hashable)."""
    mode = _mode[0]
    if on_device or mode == CUDA:
        return CUDA
    if mode == CV2:
        return CV2
    state = _startup.state
    if state != "ready":
        if state == "failed":
            _backend.warn_fallback()  # once per process, at the user's line
            return CV2
        if state == "cold":
            if not _startup.nothing_known:
                # Asked once: reading the environment costs ~1.5 us, every cold call paid it (a
                # CVGPU_BACKEND=cv2 set later is still honoured, by the start-up's probe).
                reason = _backend.quick_unusable_reason()
                if reason is not None:   # known without starting anything: cv2 computes, says so once
                    _backend.mark_unusable(reason)
                    _startup.state = "failed"
                    _backend.warn_fallback()
                    return CV2
                _startup.nothing_known = True
            if _backend.gpu_probed():
                _startup.begin()       # the GPU was started by a forced call: ready at once
                state = _startup.state
            elif _accelerable_cv2_ms[0] >= TUNING.start_after_ms:
                _startup.begin()
        if state != "ready":
            return CV2
    k = _keys.get((family, key))
    if k is None or k.cv2_n == 0:
        return CV2
    k.calls += 1
    if k.gpu_n == 0:
        first = _first_use.get(family, TUNING.first_use_ms)
        return CUDA if k.cv2_total >= TUNING.explore_factor * first else CV2
    if k.gpu_n == 1:
        return CUDA                     # the first GPU call paid first-use costs: measure the steady one
    faster = CUDA if k.gpu_ms <= k.cv2_ms else CV2
    if (k.calls - k.last_probe >= TUNING.reprobe_every
            and k.since_probe_ms >= TUNING.reprobe_ratio * max(k.gpu_ms, k.cv2_ms)):
        k.last_probe, k.since_probe_ms = k.calls, 0.0
        return CV2 if faster == CUDA else CUDA
    return faster


def observe(family, key, engine, ms):
    """A call of ``family`` with ``key`` took ``ms`` on ``engine`` (wall time, the caller's view)."""
    fk = (family, key)
    with _lock:
        k = _keys.get(fk)
        if k is None:
            k = _keys[fk] = _Key()
        k.since_probe_ms += ms
        if engine == CV2:   # (the common case, spelt out: it runs around every cv2-computed call)
            if ms >= TUNING.qualify_ms:
                _accelerable_cv2_ms[0] += ms
            k.cv2_total += ms
            est = k.cv2_ms
            k.cv2_ms = ms if est is None else est + TUNING.ewma * ((ms if ms < 4 * est else 4 * est) - est)
            k.cv2_n += 1
        elif engine == CUDA:
            w = TUNING.ewma
            if k.gpu_n == 0:
                k.first_ms = ms
            elif k.gpu_n == 1:
                k.gpu_ms = ms
                _first_use[family] = max(0.0, k.first_ms - ms)
            else:
                k.gpu_ms = k.gpu_ms + w * (min(ms, 4 * k.gpu_ms) - k.gpu_ms)
            k.gpu_n += 1


def run(family, key, on_device, gpu, cv2_call):
    """Compute one call on the chosen engine and learn from its time. ``gpu()`` and ``cv2_call()``
    compute the same result; each records the engine that really computed it
    (``_backend.record``), which is what the time is attributed to."""
    _backend.record(None)
    engine = choose(family, key, on_device)
    if on_device or _mode[0] != "auto":
        return gpu() if engine == CUDA else cv2_call()
    if _startup.state == "failed":
        return cv2_call()   # no GPU for this process, ever: nothing will read the model
    t0 = time.perf_counter()
    result = gpu() if engine == CUDA else cv2_call()
    observe(family, key, _backend.last_call_backend(), (time.perf_counter() - t0) * 1e3)
    return result


def model_snapshot():
    """The cost model as plain data: {(family, key): {engine estimates, counts}} (for `cvgpu compare`
    and tests)."""
    with _lock:
        return {fk: {"cv2_ms": k.cv2_ms, "cv2_n": k.cv2_n, "gpu_ms": k.gpu_ms, "gpu_n": k.gpu_n,
                     "first_ms": k.first_ms} for fk, k in _keys.items()}


def reset_model():
    """Forget every measurement (tests)."""
    with _lock:
        _keys.clear()
        _first_use.clear()
        _accelerable_cv2_ms[0] = 0.0
