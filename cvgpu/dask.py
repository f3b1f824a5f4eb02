"""More images than one GPU: map a per-image function that uses cvgpu over many images with Dask.

Optional: ``pip install "cvgpu[dask]"`` (dask and distributed). One worker process per GPU on this
machine, or any ``distributed`` cluster::

    from cvgpu.dask import gpu_cluster, map_images
    from distributed import Client

    with gpu_cluster() as cluster, Client(cluster) as client:   # or Client("tcp://scheduler:8786")
        results = map_images(measure, paths, client=client)     # measure(image) -> anything small
    for r in results:                                           # input order, one Result per item
        print(r.item, r.value if r.ok else r.error)

What it guarantees:

- **Order and completeness**: one ``Result`` per input item, in input order. An item whose image
  cannot be read, or whose function raises, is a ``Result`` with ``ok`` False and an ``error``
  naming the item (the file's path); the other items go on. An item whose task keeps killing its
  worker (a crash in native code) is an error entry too, after Dask's allowed failures, and the
  other items of its batch are run again one at a time.
- **Workers**: ``gpu_cluster`` starts one worker process per visible GPU, each seeing only its own
  GPU (``CUDA_VISIBLE_DEVICES``), through dask-cuda's ``LocalCUDACluster`` when it is installed and
  distributed's ``SpecCluster`` of Nannies otherwise; without a GPU it starts a CPU cluster, where
  cvgpu computes with cv2. ``map_images`` registers ``CvgpuWorkerPlugin`` on every worker (those
  that join later and those Dask restarts too): it imports cvgpu and compiles the named families'
  kernels once per worker process, so no task compiles anything.
- **Threads**: a worker thread computes on a CUDA stream of its own (cvgpu follows CuPy's current
  stream), so the threads of one GPU worker overlap their transfers and kernels.
- **numpy in, numpy out**: images are read on the workers (paths travel, pixels do not); results
  are brought to the host on the worker (CuPy arrays become numpy), so the client needs no GPU.
  Return small things (measurements, not images): every result travels to the client.
- **Dead workers**: Dask re-runs the tasks of a worker that dies on another worker; batches of
  numpy items the dead worker held (scattered data, which Dask cannot recompute) are sent again
  from the client. cvgpu's results are deterministic, so a re-run gives identical results; the
  per-image function must be too (no hidden state between images).

Items: paths (``str`` / ``os.PathLike``, read with ``cv2.imread(path, cv2.IMREAD_UNCHANGED)`` on the
worker, or by ``read``), numpy arrays (scattered to the workers), any small picklable object that
``read`` turns into an image on the worker (a frame number, a tile's coordinates), or a
``dask.array`` of frames (N, H, W[, C]), each chunk along axis 0 computed and mapped on one worker.
"""
import itertools
import logging
import os
import pickle
import sys
import threading
import time
import traceback
import uuid
import warnings

import numpy as np

try:
    import dask
    import distributed
    from distributed import KilledWorker, WorkerPlugin
    from distributed.client import CancelledError
except ImportError as exc:  # pragma: no cover - the message is the point
    raise ImportError("cvgpu.dask needs dask and distributed: pip install \"cvgpu[dask]\" (%s)" % exc) from exc

__all__ = ["map_images", "Result", "ImageReadError", "read_image", "gpu_cluster", "cpu_cluster",
           "prepare_workers", "CvgpuWorkerPlugin", "worker_info", "warm_up", "visible_gpus", "plan_affinity",
           "physical_cores", "CpuAffinity"]

# Families whose kernels a worker compiles when it starts (see warm_up).
DEFAULT_FAMILIES = ("contours",)


class ImageReadError(OSError):
    """An item's image could not be read (missing, unreadable or not an image file)."""


class Result:
    """One item's outcome. ``index``: its position in the input; ``item``: the path (or, for other
    items, the item itself; the frame number for arrays); ``value``: what the function returned,
    None on failure; ``error``: None, or one line naming the item and the exception;
    ``traceback``: the worker's traceback text, when there is one."""

    __slots__ = ("index", "item", "value", "error", "traceback")

    def __init__(self, index, item, value=None, error=None, traceback=None):
        self.index, self.item, self.value, self.error, self.traceback = index, item, value, error, traceback

    @property
    def ok(self):
        return self.error is None

    def __repr__(self):
        if self.ok:
            return "Result(%d, %r, ok)" % (self.index, self.item)
        return "Result(%d, %r, error=%r)" % (self.index, self.item, self.error)


def _label(item, index):
    """What a Result names: the path of a path, the frame number of an array, else the item."""
    if isinstance(item, (str, os.PathLike)):
        return os.fspath(item)
    if isinstance(item, np.ndarray):
        return index
    return item


def _describe(exc):
    cls = type(exc)
    module = cls.__module__
    name = cls.__qualname__ if module in ("builtins", "__main__") else "%s.%s" % (module, cls.__qualname__)
    return "%s: %s" % (name, exc) if str(exc) else name


def _error_line(label, exc):
    text = repr(label)
    if len(text) > 200:
        text = text[:197] + "..."
    return "%s: %s" % (text, _describe(exc))


# ---------------------------------------------------------------- worker side

def read_image(item):
    """The default reader: numpy arrays as they are, paths through ``cv2.imread(path,
    cv2.IMREAD_UNCHANGED)``; ``ImageReadError`` naming the file where cv2 reads nothing."""
    if isinstance(item, np.ndarray):
        return item
    if not isinstance(item, (str, os.PathLike)):
        raise TypeError("read_image reads paths and numpy arrays, not %s: pass read= for such items"
                        % type(item).__name__)
    import cv2
    path = os.fspath(item)
    image = cv2.imread(path, cv2.IMREAD_UNCHANGED)
    if image is None:
        reason = "no such file" if not os.path.exists(path) else "not a readable image"
        raise ImageReadError("cannot read image file %r (%s)" % (path, reason))
    return image


def _to_host(value):
    """``value`` with every CuPy array (also inside tuples, lists and dicts) copied to numpy."""
    if isinstance(value, np.ndarray) or value is None:
        return value
    if type(value).__module__.startswith("cupy") and hasattr(value, "get"):
        return value.get()
    if isinstance(value, tuple):
        items = [_to_host(v) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    if isinstance(value, list):
        return [_to_host(v) for v in value]
    if isinstance(value, dict):
        return {k: _to_host(v) for k, v in value.items()}
    return value


_thread = threading.local()


def _thread_stream():
    """This worker thread's own non-blocking CuPy stream when cvgpu computes on the GPU, else None.
    The threads of one worker then overlap their copies and kernels, while the calls of one thread
    stay in order on its stream (cvgpu makes each call wait for the thread's previous one)."""
    stream = getattr(_thread, "stream", False)
    if stream is False:
        stream = None
        from . import _backend
        cp = _backend.cupy_module()
        if cp is not None:
            stream = cp.cuda.Stream(non_blocking=True)
        _thread.stream = stream
    return stream


class _Pairs:
    """A task's (label, payload) pairs as one object. A list or tuple argument is walked item by
    item by the scheduler (looking for other tasks' keys) when it takes the graph in: 2,000
    items in 32 tasks took it 14-17 ms a map on a 2-core machine before any task could start
    (HISTORY, "Dask: a pass's fixed cost is Dask's"); an object of its own is passed on as it is."""

    __slots__ = ("pairs",)

    def __init__(self, pairs):
        self.pairs = pairs


def _run_items(func, read, pairs, push=None):
    """The worker's task: ``func(read(payload))`` for each (label, payload), each item's failure
    caught and described. Returns [(value, error, traceback)] in the order given; ``push``: a
    client's topic, to which they are also sent ahead of the task's completion (_push_rows)."""
    if isinstance(pairs, _Pairs):
        pairs = pairs.pairs
    stream = _thread_stream()
    out = []
    for label, payload in pairs:
        try:
            if stream is None:
                value = _to_host(func(read(payload)))
            else:
                with stream:
                    value = _to_host(func(read(payload)))
            out.append((value, None, None))
        except Exception as exc:  # an item's failure is its Result, never the batch's
            out.append((None, _error_line(label, exc), traceback.format_exc()))
    if push:
        _push_rows(out, push)
    return out


# A task's rows, sent to its client as an event of the client's topic ahead of the task's end: the
# worker's message stream to the scheduler carries the event before the task's end, and the
# scheduler's stream to the client carries it on before the key's completion, so the client has
# the rows when it sees the future finish and needs no gather for them (a gather asks the
# scheduler where the key is, then fetches it: two more round trips after the last task;
# compat_matrix/raw/session-2026-11-28g/dask_tail_split.py). Only rows that pickle to _PUSH_MAX
# bytes or fewer travel this way (they pass through the scheduler, which keeps a topic's last
# 1,000 events); the others, and any the client did not receive, are gathered as before. One topic
# a client: every subscriber of a topic receives all its events.
_PUSH_TOPIC = "cvgpu-map-rows-%s"
_PUSH_MAX = 1 << 14
_pushed = {}   # task key -> pickled rows, filled by the client's event handler (_take_pushed)


def _push_rows(out, topic):
    try:
        worker = distributed.get_worker()
        data = pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL)
        if len(data) <= _PUSH_MAX:
            worker.log_event(topic, [str(worker.get_current_task()), data])
    except Exception:  # no worker (called directly), a message Dask refuses: the rows go as the result
        pass


def _take_pushed(event):
    """The client's handler of its topic's events: (timestamp, [key, pickled rows])."""
    try:
        key, data = event[1]
        _pushed[key] = data
    except Exception:
        pass


def _subscribe_pushes(client):
    """``client``'s topic for pushed rows (subscribed once), or None where it cannot subscribe."""
    try:
        topic = _PUSH_TOPIC % client.id
        if topic not in client._event_handlers:
            client.subscribe_topic(topic, _take_pushed)
        return topic
    except Exception:
        return None


def _run_frames(func, block, start, push=None):
    """The worker's task for a chunk of a dask array: ``func`` of each frame along axis 0."""
    return _run_items(func, _identity, [(start + i, block[i]) for i in range(len(block))], push)


def _identity(x):
    return x


# ---------------------------------------------------------------- warming workers

def _warm_contours(cv):
    rng = np.random.default_rng(0)
    images = [np.zeros((64, 64), np.uint8)]
    images[0][8:40, 8:40] = 255
    images[0][16:24, 16:24] = 0
    images.append(((rng.random((512, 512)) < 0.45) * 255).astype(np.uint8))   # ~10k contours
    big = np.zeros((1024, 1024), np.uint8)
    big[1:-1, 1:-1] = 255                                                    # one long border
    images.append(big)
    for img in images:
        for mode in (cv.RETR_EXTERNAL, cv.RETR_LIST, cv.RETR_CCOMP, cv.RETR_TREE):
            for method in (cv.CHAIN_APPROX_NONE, cv.CHAIN_APPROX_SIMPLE, cv.CHAIN_APPROX_TC89_L1,
                           cv.CHAIN_APPROX_TC89_KCOS):
                cv.findContours(img, mode, method)
                cv.findContoursPacked(img, mode, method)
    labels = np.zeros((64, 64), np.int32)
    labels[4:20, 4:20], labels[30:60, 10:50] = 1, 2
    cv.findContours(labels, cv.RETR_FLOODFILL, cv.CHAIN_APPROX_SIMPLE)
    cv.findContoursLinkRuns(images[0])


def _warm_hough(cv):
    edges = np.zeros((128, 128), np.uint8)
    edges[64, 10:120] = 255
    edges[10:120, 40] = 255
    cv.HoughLines(edges, 1, np.pi / 180, 20)
    cv.HoughLinesWithAccumulator(edges, 1, np.pi / 180, 20)


def _warm_radon(cv):
    img = np.zeros((64, 64), np.uint8)
    img[20:40, 20:40] = 200
    cv.ximgproc.RadonTransform(img)
    cv.ximgproc.RadonTransform(img.astype(np.float32))


def _warm_lms(cv):
    pts = np.stack([np.arange(50, dtype=np.float32), 2 * np.arange(50, dtype=np.float32) + 1], axis=1)
    cv.fitLineLMS(pts)


_WARMERS = {"contours": _warm_contours, "hough": _warm_hough, "radon": _warm_radon, "lms": _warm_lms}

# What this process's CvgpuWorkerPlugin did (read by worker_info).
_WORKER = {"warmed": (), "warm_s": None, "warm_errors": {}, "setup_s": None}


def warm_up(families=DEFAULT_FAMILIES):
    """Compile (or load from CuPy's kernel cache) the named families' kernels in this process by
    calling cvgpu on small images that take their code paths: "contours", "hough", "radon", "lms".
    Does nothing where cvgpu computes with cv2 (there is nothing to compile). Returns
    ({family: error text} for families whose warm-up raised, seconds)."""
    import cvgpu
    t0 = time.perf_counter()
    errors = {}
    if cvgpu.backend() == "cuda":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for family in families:
                try:
                    _WARMERS[family](cvgpu)
                except KeyError:
                    errors[family] = "unknown family (known: %s)" % ", ".join(sorted(_WARMERS))
                except Exception as exc:
                    errors[family] = _describe(exc)
        cvgpu._backend.cupy_module().cuda.get_current_stream().synchronize()
    return errors, time.perf_counter() - t0


class CvgpuWorkerPlugin(WorkerPlugin):
    """Runs once in every worker process (also in workers that join later or that Dask restarts):
    imports cvgpu, compiles the families' kernels (``warm_up``), sets cv2's thread count
    (``cv2_threads``: 1 where a cluster already has a worker per core), then calls ``setup()`` (a
    picklable function without arguments, e.g. one that loads a model or a lookup table).

    ``engine``: the engine of a worker that has a GPU (``cvgpu.set_engine``). The default "cuda"
    pins its GPU: the worker exists to compute there, and "auto"'s cost model would first measure
    every new image size or mode on cv2 in every worker process. None keeps the process's setting
    (``CVGPU_ENGINE``). Workers without a GPU compute with cv2 whatever this says."""

    idempotent = True

    def __init__(self, families=DEFAULT_FAMILIES, setup=None, cv2_threads=None, engine="cuda"):
        self.families = tuple(families)
        self.setup_fn = setup
        self.cv2_threads = cv2_threads
        self.engine = engine
        self.name = "cvgpu-%s-%s-%s-%s" % ("+".join(self.families) or "none",
                                           getattr(setup, "__qualname__", "none"), cv2_threads, engine)

    def setup(self, worker=None):
        import cv2
        if self.cv2_threads is not None:
            cv2.setNumThreads(int(self.cv2_threads))
        if self.engine is not None:
            import cvgpu
            if cvgpu.backend() == "cuda":
                cvgpu.set_engine(self.engine)
        errors, seconds = warm_up(self.families)
        _WORKER["warmed"] = tuple(sorted(set(_WORKER["warmed"]) | set(self.families) - set(errors)))
        _WORKER["warm_s"], _WORKER["warm_errors"] = seconds, errors
        if self.setup_fn is not None:
            t0 = time.perf_counter()
            self.setup_fn()
            _WORKER["setup_s"] = time.perf_counter() - t0


def worker_info():
    """This worker's facts (run it on every worker with ``client.run(worker_info)``): pid,
    CUDA_VISIBLE_DEVICES, cvgpu's backend and fallback reason, the GPU's PCI bus id, the
    families warmed and how long that took, and how many kernel modules this process has loaded
    (unchanged by tasks when the warm-up covered them)."""
    import cvgpu
    from . import _backend, _kernels
    info = {"pid": os.getpid(), "CUDA_VISIBLE_DEVICES": os.environ.get("CUDA_VISIBLE_DEVICES"),
            "CVGPU_BACKEND": os.environ.get("CVGPU_BACKEND"), "backend": cvgpu.backend(),
            "fallback_reason": cvgpu.fallback_reason(), "device": None, "warmed": _WORKER["warmed"],
            "warm_s": _WORKER["warm_s"], "warm_errors": dict(_WORKER["warm_errors"]),
            "setup_s": _WORKER["setup_s"], "kernel_modules": len(_kernels._modules),
            "cpus": sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None}
    cp = _backend.cupy_module()
    if cp is not None:
        info["device"] = cp.cuda.Device().pci_bus_id
    return info


def prepare_workers(client, families=DEFAULT_FAMILIES, setup=None, cv2_threads=None, engine="cuda"):
    """Register ``CvgpuWorkerPlugin`` on ``client``'s cluster (once per distinct configuration;
    ``map_images`` does this itself) and wait until it ran on the workers there now."""
    plugin = CvgpuWorkerPlugin(families, setup, cv2_threads, engine)
    client.register_plugin(plugin)
    return plugin


# ---------------------------------------------------------------- clusters

def visible_gpus():
    """The GPUs a local cluster may use, as CUDA_VISIBLE_DEVICES entries (["0", "1"], or UUIDs),
    found without creating a CUDA context in this process. [] without a usable CUDA runtime or
    with CVGPU_BACKEND=cv2."""
    if os.environ.get("CVGPU_BACKEND", "").lower() == "cv2":
        return []
    listed = os.environ.get("CUDA_VISIBLE_DEVICES")
    try:
        import cupy
        count = cupy.cuda.runtime.getDeviceCount()  # initialises the driver; no context, no memory
    except Exception:
        return []
    if listed is not None:
        entries = [e.strip() for e in listed.split(",") if e.strip()]
        # CUDA stops at the first invalid entry; the runtime's count says how many it accepted.
        return entries[:count]
    return [str(i) for i in range(count)]


def cpu_cluster(n_workers=None, threads_per_worker=1, backend="cv2", cpu_affinity=None, **kwargs):
    """A ``distributed.LocalCluster`` of worker processes on this machine's cores (one per core by
    default). ``backend="cv2"`` sets CVGPU_BACKEND=cv2 in the workers: cvgpu computes with cv2
    there, also where a GPU exists (the CPU baseline of cvgpu.bench.dask_scaling).
    ``cpu_affinity``: None, or "core" (each worker thread a physical core of its own, shared once
    there are more threads than cores; ``plan_affinity``)."""
    env = dict(kwargs.pop("env", None) or {})
    if backend == "cv2":
        env["CVGPU_BACKEND"] = "cv2"
    kwargs.setdefault("dashboard_address", None)
    n_workers = n_workers or os.cpu_count() or 1
    if cpu_affinity is not None:
        plan = plan_affinity([(i, None) for i in range(n_workers)], threads_per_worker, cpu_affinity)
        kwargs["plugins"] = set(kwargs.get("plugins") or ()) | {CpuAffinity(plan)}
    return distributed.LocalCluster(n_workers=n_workers, threads_per_worker=threads_per_worker,
                                    processes=True, env=env, **kwargs)


def gpu_cluster(gpus=None, threads_per_worker=1, workers_per_gpu=1, use_dask_cuda=None, cpu_fallback=True,
                mps=False, cpu_affinity=None, **kwargs):
    """A local cluster of one worker process per GPU (``workers_per_gpu`` processes each with
    ``threads_per_worker`` threads), each worker seeing only its own GPU as device 0.

    ``mps=True``: the cluster starts a private MPS control daemon (``nvidia-cuda-mps-control``, with
    pipe and log folders of its own) that only its workers use, so that the processes of one GPU
    run on it at once instead of taking turns, and quits it when the cluster closes
    (compat_matrix/report/dask.md: 12 processes a GPU ran 3,031 images/s under MPS against 2,368
    without, on 2 x H200). Each worker then names its GPU by UUID (the daemon renumbers the
    devices it sees). Not with dask-cuda's cluster; RuntimeError where the daemon cannot start.

    ``gpus``: None for every visible GPU, a count (the first n), or CUDA_VISIBLE_DEVICES entries.
    ``use_dask_cuda``: None takes dask-cuda's ``LocalCUDACluster`` when it is importable (and
    ``workers_per_gpu`` is 1), True requires it, False never uses it. Without any visible GPU, a
    ``cpu_cluster`` (cvgpu computes with cv2; a warning says so) unless ``cpu_fallback`` is False;
    so a script asking for one GPU also runs on a machine without one.
    ``cpu_affinity`` (cvgpu's own cluster): None leaves the workers' threads to the operating
    system; "numa" pins each worker to the CPUs local to its GPU (what dask-cuda's cluster does);
    "core" gives each worker thread a physical core of its own among those, the least used first
    (``plan_affinity``).
    Other keyword arguments go to the cluster (e.g. ``dashboard_address=":8787"``, which needs bokeh)."""
    available = visible_gpus()
    if gpus is None or (not available and cpu_fallback):
        ids = available
    elif isinstance(gpus, int):
        if gpus > len(available):
            raise ValueError("%d GPUs asked for, %d visible" % (gpus, len(available)))
        ids = available[:gpus]
    else:
        ids = [str(g) for g in gpus]
    if not ids:
        if not cpu_fallback:
            raise RuntimeError("no visible GPU for gpu_cluster")
        from ._backend import CvgpuFallbackWarning
        warnings.warn("cvgpu.dask.gpu_cluster: no usable GPU; starting a CPU cluster where cvgpu computes with cv2",
                      CvgpuFallbackWarning, stacklevel=2)
        return cpu_cluster(threads_per_worker=1, cpu_affinity=cpu_affinity, **kwargs)  # a process per core
    if use_dask_cuda is None:
        use_dask_cuda = workers_per_gpu == 1 and _has_dask_cuda() and not mps and cpu_affinity is None
    if cpu_affinity is not None and use_dask_cuda:
        raise ValueError("gpu_cluster(cpu_affinity=...) is cvgpu's own cluster's (dask-cuda's pins each worker "
                         "to its GPU's CPUs itself): use_dask_cuda must not be True")
    if mps:
        if use_dask_cuda:
            raise ValueError("gpu_cluster(mps=True) runs cvgpu's own cluster: use_dask_cuda must not be True")
        daemon = _MpsDaemon(_gpu_uuids(ids))
        try:
            env = dict(kwargs.pop("env", None) or {})
            env.update(daemon.worker_env)
            cluster = _spec_gpu_cluster(daemon.uuids, threads_per_worker, workers_per_gpu, env=env,
                                        cpu_affinity=cpu_affinity, **kwargs)
        except BaseException:
            daemon.stop()
            raise
        daemon.attach(cluster)
        return cluster
    if use_dask_cuda:
        if workers_per_gpu != 1:
            raise ValueError("LocalCUDACluster runs one worker per GPU; use use_dask_cuda=False for more")
        from dask_cuda import LocalCUDACluster
        kwargs.setdefault("dashboard_address", None)
        return LocalCUDACluster(CUDA_VISIBLE_DEVICES=",".join(ids), threads_per_worker=threads_per_worker, **kwargs)
    return _spec_gpu_cluster(ids, threads_per_worker, workers_per_gpu, cpu_affinity=cpu_affinity, **kwargs)


def _gpu_uuids(entries):
    """CUDA_VISIBLE_DEVICES entries as GPU UUIDs; MIG entries are refused (MPS on MIG is set up by
    the administrator). Indices are looked up in nvidia-smi's list, which numbers the GPUs by PCI
    bus: CUDA's own order where the GPUs are alike (fastest first, then by PCI bus) or with
    CUDA_DEVICE_ORDER=PCI_BUS_ID; on a machine of mixed GPUs pass UUIDs."""
    import subprocess
    if any(e.startswith("MIG-") for e in entries):
        raise ValueError("gpu_cluster(mps=True) does not take MIG devices")
    if all(e.startswith("GPU-") for e in entries):
        return list(entries)
    try:
        by_index = dict(_smi_gpus("index", "uuid"))
    except (OSError, subprocess.SubprocessError) as exc:
        raise RuntimeError("gpu_cluster(mps=True): nvidia-smi could not list the GPUs' UUIDs (%s)" % exc) from None
    uuids = []
    for e in entries:
        if e.startswith("GPU-"):
            uuids.append(e)
        elif e in by_index:
            uuids.append(by_index[e])
        else:
            raise RuntimeError("gpu_cluster(mps=True): no GPU %r in nvidia-smi's list" % e)
    return uuids


class _MpsDaemon:
    """A private MPS control daemon: started with pipe and log folders of its own (only processes
    given ``worker_env`` connect to it), quit by ``stop`` (when its cluster closes, or at the
    interpreter's exit), its folders removed then."""

    def __init__(self, uuids):
        import atexit
        import shutil
        import subprocess
        import tempfile
        self.exe = shutil.which("nvidia-cuda-mps-control")
        if self.exe is None:
            raise RuntimeError("gpu_cluster(mps=True): nvidia-cuda-mps-control is not on PATH (it comes with the "
                               "NVIDIA driver)")
        self.uuids = list(uuids)
        self.root = tempfile.mkdtemp(prefix="cvgpu-mps-")
        self.worker_env = {"CUDA_MPS_PIPE_DIRECTORY": os.path.join(self.root, "pipe"),
                           "CUDA_MPS_LOG_DIRECTORY": os.path.join(self.root, "log")}
        for folder in self.worker_env.values():
            os.makedirs(folder)
        # The daemon sees the cluster's GPUs only, named by UUID, so a worker's UUID means the same
        # device to it and to the server (which renumbers what it sees).
        self.env = dict(os.environ, CUDA_VISIBLE_DEVICES=",".join(self.uuids), **self.worker_env)
        self.stopped = False
        try:
            done = subprocess.run([self.exe, "-d"], env=self.env, capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.SubprocessError) as exc:
            self._remove()
            raise RuntimeError("gpu_cluster(mps=True): the MPS daemon did not start (%s)" % exc) from None
        if done.returncode != 0:
            self._remove()
            raise RuntimeError("gpu_cluster(mps=True): the MPS daemon did not start (exit %d: %s)"
                               % (done.returncode, (done.stderr or done.stdout).strip()))
        atexit.register(self.stop)

    def attach(self, cluster):
        """Quit the daemon once ``cluster`` has closed (its workers gone)."""
        close = cluster.close

        def close_then_stop(*args, **kwargs):
            try:
                closing = close(*args, **kwargs)
            except BaseException:
                self.stop()
                raise
            if closing is None:
                self.stop()
                return None

            async def then():  # an asynchronous cluster: quit once its close has been awaited
                try:
                    return await closing
                finally:
                    self.stop()
            return then()
        cluster.close = close_then_stop
        cluster.cvgpu_mps = self

    def stop(self):
        if self.stopped:
            return
        self.stopped = True
        import subprocess
        try:
            subprocess.run([self.exe], input="quit\n", env=self.env, capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.SubprocessError):
            pass
        self._remove()

    def _remove(self):
        import shutil
        shutil.rmtree(self.root, ignore_errors=True)


def _has_dask_cuda():
    try:
        import dask_cuda  # noqa: F401
    except Exception:
        return False
    return True


def _spec_gpu_cluster(ids, threads_per_worker, workers_per_gpu, dashboard_address=None, env=None,
                      memory_limit="auto", host="127.0.0.1", cpu_affinity=None, **kwargs):
    from distributed import Nanny, Scheduler, SpecCluster
    n_workers = len(ids) * workers_per_gpu
    if memory_limit == "auto":
        import psutil
        memory_limit = int(psutil.virtual_memory().total // n_workers)
    names = {}
    # Worker k of every GPU before worker k + 1 of any: the plan then shares cores out evenly.
    for k, gpu in itertools.product(range(workers_per_gpu), ids):
        names[(gpu, k)] = "gpu%s" % gpu if workers_per_gpu == 1 else "gpu%s-%d" % (gpu, k)
    plugins = set()
    if cpu_affinity is not None:
        buses = _gpu_buses(ids)
        plan = plan_affinity([(name, buses.get(gpu)) for (gpu, _), name in names.items()], threads_per_worker,
                             cpu_affinity)
        plugins = {CpuAffinity(plan)}
    workers = {}
    for gpu, k in itertools.product(ids, range(workers_per_gpu)):
        name = names[(gpu, k)]
        worker_env = dict(env or {})
        worker_env["CUDA_VISIBLE_DEVICES"] = gpu
        workers[name] = {"cls": Nanny, "options": {"nthreads": threads_per_worker, "env": worker_env, "name": name,
                                                    "memory_limit": memory_limit, "host": host,
                                                    "silence_logs": kwargs.get("silence_logs", logging.WARN)}}
        if plugins:
            workers[name]["options"]["plugins"] = plugins
    # Without a dashboard the scheduler still serves its HTTP routes (health, metrics): on a free port.
    scheduler = {"cls": Scheduler, "options": {"host": host, "port": 0, "dashboard_address": dashboard_address or ":0",
                                               "dashboard": dashboard_address is not None}}
    kwargs.setdefault("silence_logs", logging.WARN)  # as LocalCluster
    return SpecCluster(workers=workers, scheduler=scheduler, name="cvgpu-gpu", **kwargs)


# ---------------------------------------------------------------- CPU affinity

def _cpu_list(text):
    """Linux's CPU list syntax ("0-3,8,10-11") as a set of ints."""
    cpus = set()
    for part in text.strip().split(","):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus


def _read_cpu_list(path):
    try:
        with open(path) as f:
            return _cpu_list(f.read())
    except (OSError, ValueError):
        return None


def physical_cores(cpus=None):
    """The CPUs this process may run on (``os.sched_getaffinity``), grouped by physical core
    (Linux's thread_siblings_list; a CPU whose siblings cannot be read is a core of its own):
    a list of sorted tuples, by their first CPU."""
    allowed = set(cpus if cpus is not None else os.sched_getaffinity(0))
    cores = {}
    for cpu in sorted(allowed):
        siblings = _read_cpu_list("/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list" % cpu)
        cores.setdefault(tuple(sorted((siblings or {cpu}) & allowed)) or (cpu,), None)
    return sorted(cores, key=lambda c: c[0])


def local_cpus(bus_id):
    """The CPUs local to the PCI device ``bus_id`` (nvidia-smi's "00000000:17:00.0" or sysfs's
    "0000:17:00.0"), from /sys/bus/pci/devices/<id>/local_cpulist; None where unknown."""
    parts = (bus_id or "").strip().lower().split(":")
    try:
        if len(parts) == 2:
            parts = ["0"] + parts
        if len(parts) != 3:
            return None
        sysfs = "%04x:%s:%s" % (int(parts[0], 16), parts[1], parts[2])
    except ValueError:
        return None
    return _read_cpu_list("/sys/bus/pci/devices/%s/local_cpulist" % sysfs)


def plan_affinity(workers, threads_per_worker=1, mode="core", cpus=None):
    """{worker name: sorted CPU list} for ``workers`` [(name, GPU PCI bus id or None)].

    "numa": each worker the CPUs local to its GPU (all CPUs where unknown). "core": each worker
    ``threads_per_worker`` physical cores among those, each time the ones fewest workers hold so
    far (then the lowest), and all their CPUs (hyper-threads): workers share a core only once
    every local core has one. Cores are counted across the whole cluster, so the workers of two
    GPUs on one NUMA node split its cores."""
    if mode not in ("core", "numa"):
        raise ValueError("cpu_affinity must be None, 'core' or 'numa', not %r" % (mode,))
    cores = physical_cores(cpus)
    allowed = set(itertools.chain.from_iterable(cores))
    held = {core: 0 for core in cores}
    plan = {}
    for name, bus in workers:
        local = (local_cpus(bus) or allowed) & allowed or allowed
        if mode == "numa":
            plan[name] = sorted(local)
            continue
        near = [c for c in cores if set(c) <= local] or cores
        mine = sorted(near, key=lambda c: (held[c], c[0]))[:max(1, threads_per_worker)]
        for core in mine:
            held[core] += 1
        plan[name] = sorted(itertools.chain.from_iterable(mine))
    return plan


def pin_process(cpus):
    """Every thread of this process (and so every thread it starts later) on ``cpus``."""
    cpus = set(cpus)
    try:
        tids = [int(t) for t in os.listdir("/proc/self/task")]
    except OSError:
        tids = []
    for tid in tids:
        try:
            os.sched_setaffinity(tid, cpus)
        except OSError:  # (a thread that has just ended)
            pass
    os.sched_setaffinity(0, cpus)


class CpuAffinity(WorkerPlugin):
    """Pins each worker process to its CPUs of ``plan`` ({worker name: CPUs}) when it starts
    (given to the workers at construction: a restarted worker is pinned again)."""

    name = "cvgpu-cpu-affinity"

    def __init__(self, plan):
        self.plan = {str(k): list(v) for k, v in plan.items()}

    def setup(self, worker=None):
        cpus = self.plan.get(str(getattr(worker, "name", None)))
        if cpus:
            pin_process(cpus)


def _smi_gpus(*fields):
    """nvidia-smi's list of the GPUs: one tuple of ``fields`` (--query-gpu names) a GPU. Raises
    OSError or subprocess.SubprocessError where nvidia-smi cannot say."""
    import subprocess
    out = subprocess.run(["nvidia-smi", "--query-gpu=" + ",".join(fields), "--format=csv,noheader"],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    rows = (tuple(p.strip() for p in line.split(",")) for line in out.splitlines())
    return [row for row in rows if len(row) == len(fields)]


def _gpu_buses(ids):
    """{CUDA_VISIBLE_DEVICES entry: PCI bus id} by nvidia-smi's list (indices in its order, as
    _gpu_uuids); {} where nvidia-smi cannot say (the plan then uses every CPU)."""
    import subprocess
    try:
        rows = _smi_gpus("index", "uuid", "pci.bus_id")
    except (OSError, subprocess.SubprocessError):
        return {}
    buses = {}
    for index, uuid_, bus in rows:
        buses[index] = buses[uuid_] = bus
    return {gpu: buses[gpu] for gpu in ids if gpu in buses}


# ---------------------------------------------------------------- the map

def _client(client):
    if client is not None:
        return client
    try:
        return distributed.default_client()
    except ValueError:
        raise ValueError("map_images needs a distributed.Client: pass client=, or make one first, e.g. "
                         "Client(cvgpu.dask.gpu_cluster())") from None


def auto_batch(n_items, threads):
    """Items per task: at most 64 (a lost worker re-runs at most one batch a thread), sized so that
    the tasks fill whole waves of the worker threads: w = ceil(n / (64 * threads)) waves, then
    ceil(n / (w * threads)) items a task, so that every thread gets w tasks and none waits for a
    last partial wave (at least 1; a short run still reaches every thread). Every task costs a
    round trip through the scheduler and the client (2,000 1080p masks on 32 cv2 workers: 1,058
    images/s at 7 a task, 1,821-2,890 at 32-64), and a run whose task count is a thread count
    and a bit leaves most threads idle through its last wave (2 x H200, 24 GPU worker threads,
    64 a task: 32 tasks; measured against 64 a task it changed little there: HISTORY, "Dask: MPS
    per cluster and the task sizes")."""
    threads = max(1, threads)
    if n_items <= 0:
        return 1
    waves = -(-n_items // (64 * threads))
    return max(1, -(-n_items // (waves * threads)))


class _Progress:
    """tqdm on a terminal when importable; elsewhere a line on stderr at every tenth of the run;
    a callable ``progress(done, total)`` is called after every batch."""

    def __init__(self, progress, total):
        self.total, self.done, self.callback, self.bar, self.next_line = total, 0, None, None, 0
        if callable(progress):
            self.callback = progress
        elif progress:
            try:
                if sys.stderr.isatty():
                    from tqdm import tqdm
                    self.bar = tqdm(total=total, unit="image", file=sys.stderr)
            except Exception:
                self.bar = None
            if self.bar is None:
                self.callback = self._line
                self.t0 = time.perf_counter()

    def _line(self, done, total):
        if done >= self.next_line or done == total:
            print("cvgpu.dask: %d/%d images (%.1f s)" % (done, total, time.perf_counter() - self.t0),
                  file=sys.stderr, flush=True)
            self.next_line = done + max(1, total // 10)

    def add(self, n):
        self.done += n
        if self.bar is not None:
            self.bar.update(n)
        if self.callback is not None:
            self.callback(self.done, self.total)

    def close(self):
        if self.bar is not None:
            self.bar.close()


def map_images(func, items, client=None, read=None, batch_size=None, progress=True,
               families=DEFAULT_FAMILIES, setup=None, cv2_threads=None, engine="cuda"):
    """``[Result]``: ``func(image)`` for every item, computed on ``client``'s workers, in input order.

    ``func``: a picklable function of one image (numpy, or what ``read`` returns) that uses cvgpu
    (``import cvgpu as cv2``); its return value travels to the client, CuPy arrays as numpy.
    ``items``: paths, numpy arrays, small objects ``read`` understands, or a ``dask.array`` of
    frames (N, H, W[, C]). ``client``: a ``distributed.Client`` (default: the current one).
    ``read``: item -> image on the worker (default ``read_image``: cv2.imread for paths).
    ``batch_size``: items per task (default ``auto_batch``); for a dask array, the chunk length
    along axis 0 (default: its own chunks). ``progress``: True for a progress bar, False for none,
    or ``progress(done, total)``. ``families`` / ``setup`` / ``cv2_threads`` / ``engine``: the worker
    plugin's (see ``CvgpuWorkerPlugin``; ``families=()`` warms nothing). A task's results that
    pickle to 16 KB or less reach the client with the task's completion, through the scheduler
    (which keeps the client's last 1,000 such messages); larger ones are fetched from the workers."""
    client = _client(client)
    prepare_workers(client, families, setup, cv2_threads, engine)
    push = _subscribe_pushes(client)
    token = uuid.uuid4().hex[:12]
    nthreads = client.nthreads()
    if _is_dask_array(items):
        labels, batches = _frame_batches(client, func, items, batch_size, token, push)
    else:
        items = list(items)
        labels = [_label(item, i) for i, item in enumerate(items)]
        size = batch_size or auto_batch(len(items), max(1, sum(nthreads.values())))
        batches = [_ItemBatch(client, func, read or read_image, labels, items, start, min(start + size, len(items)),
                              "cvgpu-map-%s-%d" % (token, b), push)
                   for b, start in enumerate(range(0, len(items), size))]
    results = [None] * len(labels)
    bar = _Progress(progress, len(labels))
    pending = {}
    running = distributed.as_completed()

    def track(batch, future):
        pending[future] = batch
        running.add(future)

    isolate = []
    try:
        for batch, future in zip(batches, _submit_all(client, batches)):
            track(batch, future)
        for future, fetched in _completed(client, running, _gather_direct(nthreads)):
            batch = pending.pop(future)
            start, stop = batch.start, batch.stop
            try:
                rows = fetched if fetched is not _NOT_FETCHED else future.result()
            except KilledWorker as exc:
                if stop - start > 1:
                    isolate.append(batch)
                    continue
                rows = [(None, _error_line(labels[start], exc), None)]
            except CancelledError as exc:
                # The task's input is gone: numpy items scattered to a worker that died (Dask
                # cannot recompute data it was given). The client still has them: again.
                if batch.tries < _RESUBMITS:
                    track(batch, batch.submit())
                    continue
                rows = [(None, _error_line(labels[i], exc), None) for i in range(start, stop)]
            except Exception as exc:  # the task itself failed (e.g. func could not be unpickled there)
                rows = [(None, _error_line(labels[i], exc), None) for i in range(start, stop)]
            _fill(results, labels, start, rows)
            bar.add(stop - start)
            batch.done()
        # Batches of several items whose workers kept dying: each item alone, one at a time, so
        # that an item that kills its worker fails alone and the innocent ones beside it complete.
        # (A batch of one item that Dask gave up on is that item's error entry at once.)
        for batch in isolate:
            for i, single in zip(range(batch.start, batch.stop), batch.singles()):
                future = single.submit()
                try:
                    rows = future.result()
                except Exception as exc:
                    rows = [(None, _error_line(labels[i], exc), None)]
                _fill(results, labels, i, rows)
                bar.add(1)
                single.done()
    finally:
        bar.close()
        if pending:
            client.cancel(list(pending))
        for key in [k for k in list(_pushed) if token in k]:   # rows of tasks whose future was not read
            _pushed.pop(key, None)
    return results


_RESUBMITS = 3  # times a batch whose input was lost is sent again before its items are errors
_NOT_FETCHED = object()
# None: gather results straight from the workers where every worker is on this machine's loopback
# (a local cluster); True / False: always / never (the benchmark's A/B, --gather).
GATHER_DIRECT = None


def _gather_direct(addresses):
    """Whether results are fetched from the workers themselves (``client.gather(direct=True)``)
    rather than through the scheduler, which asks the worker for them and passes them on. Only
    where the client surely reaches the workers: every worker (``addresses``) on loopback."""
    if GATHER_DIRECT is not None:
        return GATHER_DIRECT
    from urllib.parse import urlparse
    try:
        hosts = {urlparse(address).hostname for address in addresses}
    except Exception:
        return False
    return bool(hosts) and hosts <= {"127.0.0.1", "localhost", "::1"}


def _submit_all(client, batches):
    """The batches' futures, in order. Batches of items go to the scheduler in one message
    (``client.map``); one ``client.submit`` each, a message each, kept the threads waiting for
    their first task (CPU machine, 12 workers, 2,000 items of 3 ms at 16 a task: 1.32 s a pass
    against 0.89-0.99 s; HISTORY, "The tasks in one message"). A dask array's chunks go in one
    ``client.compute`` of the array's own blocks (one graph); a compute a chunk, each with its
    slice's graph, took ~11 ms a chunk (HISTORY, "A dask array's chunks in one compute").
    Resubmits, a lone batch and a mix of kinds go one by one (``batch.submit()``)."""
    if len(batches) < 2:
        return [batch.submit() for batch in batches]
    if all(type(b) is _FrameBatch for b in batches):
        futures = client.compute(_FrameBatch.tasks(batches))
    elif all(type(b) is _ItemBatch for b in batches):
        futures = client.map(_run_items, [b.func for b in batches], [b.read for b in batches],
                             [b.arguments() for b in batches], [b.push for b in batches],
                             key=[b.key for b in batches], pure=False)
    else:
        return [batch.submit() for batch in batches]
    for batch, future in zip(batches, futures):
        batch.future = future
    return futures


def _completed(client, running, direct=False):
    """(future, its result or _NOT_FETCHED) for every future of ``running`` as it completes. Rows
    its task pushed (_push_rows) are taken as they arrived; the results of the other futures that
    completed together are fetched in one gather: fetched one by one
    (``future.result()``, a round trip each), the client took the last wave's results in turn
    while the workers idled (2 x H200, 24 worker threads, 2,000 images in 32 tasks: the threads
    idle 34 % of a pass after their last image; HISTORY, "The results in one gather"). A future
    that did not finish, or a gather that fails, is left to ``future.result()``, which raises
    its own error. ``direct``: fetched from the workers themselves (``_gather_direct``)."""
    for done in running.batches():
        values = {}
        finished = []
        for f in done:
            if f.status != "finished":
                continue
            data = _pushed.pop(f.key, None)
            if data is not None:
                try:
                    values[f] = pickle.loads(data)
                    continue
                except Exception:   # (not expected: the worker pickled it) gathered below instead
                    pass
            finished.append(f)
        if finished:
            try:
                values.update(zip(finished, client.gather(finished, direct=direct)))
            except Exception:  # (e.g. a worker lost with the data): each future on its own below
                pass
        for future in done:
            yield future, values.get(future, _NOT_FETCHED)


def _fill(results, labels, start, rows):
    for i, (value, error, tb) in enumerate(rows):
        results[start + i] = Result(start + i, labels[start + i], value, error, tb)


class _ItemBatch:
    """Items [start, stop) as one task. numpy items are scattered to the workers at each submit
    (pixels do not go through the scheduler), and held until the batch is done."""

    def __init__(self, client, func, read, labels, items, start, stop, key, push=None):
        self.client, self.func, self.read, self.labels, self.items = client, func, read, labels, items
        self.start, self.stop, self.key, self.tries, self._held = start, stop, key, 0, None
        self.push = push

    def arguments(self):
        """The task's (label, payload) pairs, numpy payloads scattered first; counts a try. Pairs
        without futures go as one ``_Pairs``, which Dask passes on without looking inside."""
        self.tries += 1
        payloads = self.items[self.start:self.stop]
        if any(isinstance(p, np.ndarray) for p in payloads):
            payloads = self._held = self._scatter(payloads)
        pairs = list(zip(self.labels[self.start:self.stop], payloads))
        if any(isinstance(p, distributed.Future) for p in payloads):
            return pairs  # (Dask must find the futures in the list: they are the task's inputs)
        return _Pairs(pairs)

    def submit(self):
        pairs = self.arguments()
        key = self.key if self.tries == 1 else "%s-try%d" % (self.key, self.tries)
        self.future = self.client.submit(_run_items, self.func, self.read, pairs, self.push, key=key, pure=False)
        return self.future

    def _scatter(self, payloads):
        """The payloads on the workers; inline in the task (through the scheduler) where scattering
        keeps failing, as it can just after a worker died (the scheduler still lists it)."""
        for attempt in range(3):
            try:
                return self.client.scatter(payloads)
            except OSError:  # distributed's CommClosedError and other connection errors
                time.sleep(0.5 * (attempt + 1))
        return payloads

    def done(self):
        self.future.release()
        self._held = None

    def singles(self):
        return [_ItemBatch(self.client, self.func, self.read, self.labels, self.items, i, i + 1,
                           "%s-single-%d" % (self.key, i), self.push) for i in range(self.start, self.stop)]


class _FrameBatch:
    """Frames [start, stop) of a dask array as one task, computed where its chunk is computed."""

    def __init__(self, client, func, frames, start, stop, key, push=None):
        self.client, self.func, self.frames = client, func, frames
        self.start, self.stop, self.key, self.tries, self.push = start, stop, key, 0, push

    def _task(self, block):
        """This batch's next try as a delayed task over ``block``; counts the try."""
        self.tries += 1
        key = self.key if self.tries == 1 else "%s-try%d" % (self.key, self.tries)
        return dask.delayed(_run_frames, pure=False)(self.func, block, self.start, self.push, dask_key_name=key)

    def submit(self):
        self.future = self.client.compute(self._task(self.frames[self.start:self.stop].to_delayed().ravel()[0]))
        return self.future

    @staticmethod
    def tasks(batches):
        """The first tries of ``batches`` (one array's chunks along axis 0, in order, each chunk
        whole along the other axes) as delayed tasks over the array's own blocks."""
        blocks = batches[0].frames.to_delayed().ravel()
        if len(blocks) != len(batches) or any(b.frames is not batches[0].frames for b in batches):
            raise ValueError("the batches are not one array's chunks")
        return [batch._task(block) for batch, block in zip(batches, blocks)]

    def done(self):
        self.future.release()

    def singles(self):
        return [_FrameBatch(self.client, self.func, self.frames, i, i + 1, "%s-single-%d" % (self.key, i), self.push)
                for i in range(self.start, self.stop)]


def _is_dask_array(items):
    try:
        import dask.array as da
    except ImportError:
        return False
    return isinstance(items, da.Array)


def _frame_batches(client, func, frames, batch_size, token, push=None):
    if frames.ndim < 3:
        raise ValueError("a dask array of frames is (N, H, W[, C]); this one has shape %s" % (frames.shape,))
    whole = {axis: -1 for axis in range(1, frames.ndim)}
    if batch_size:
        whole[0] = batch_size
    frames = frames.rechunk(whole)
    starts = np.concatenate([[0], np.cumsum(frames.chunks[0])]).astype(int).tolist()
    labels = list(range(int(frames.shape[0])))
    return labels, [_FrameBatch(client, func, frames, starts[b], starts[b + 1], "cvgpu-frames-%s-%d" % (token, b),
                                push)
                    for b in range(len(starts) - 1)]
