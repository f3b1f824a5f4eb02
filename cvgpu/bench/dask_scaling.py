"""Throughput of findContours + per-contour measurements through cvgpu.dask, on 1 and 2 GPUs and on
every CPU core with cv2:

    python -m cvgpu.bench.dask_scaling --images 2000 [--gpus 1,2] [--layouts 1x4 12x1mps] [--cpu-workers N]
        [--repeat 3] [--affinity none,core] [--json PATH]

The images: Otsu masks (1920x1080) of scikit-image's bundled photographs, each photograph cropped four
ways and resized once per worker (``prepare_bases``, the worker plugin's setup), then varied per image
by a flip and a wrap-around shift (``make_mask``): 2,000 different masks, made on the workers from a
spec of five small numbers, so no pixel crosses the network. Per image (``run_spec``): the mask,
``cvgpu.findContoursPacked(mask, RETR_CCOMP, CHAIN_APPROX_SIMPLE)`` with numpy in and out, then every
contour's area (cv2.contourArea's shoelace, exact in int64) and bounding box (cv2.boundingRect's)
with numpy over the packed points. A task returns a few numbers per image (contour and point counts,
the area sum, a CRC of the measurement table, the stage times), never the table: results travel to
the client, and 2,000 tables of thousands of contours would time the network instead.

Rows: a GPU count with a layout ``WxT`` (W worker processes per GPU, T threads each, each thread on
its own CUDA stream), and ``cpu``: one worker process per core (``--cpu-workers``, default all),
one thread each, CVGPU_BACKEND=cv2 (cvgpu computes with cv2), running the same Dask code. Every
worker runs cv2.setNumThreads(1): the workers' own threads already cover the cores, and cv2's pool
in each of them (a thread per core in every process) only competes with them. A GPU row whose
workers are clients of an MPS server says ``MPS``: the processes of one GPU then share it instead
of taking turns. Layout ``WxTmps`` starts the cluster's own daemon (``gpu_cluster(mps=True)``); a
server named in CUDA_MPS_PIPE_DIRECTORY (as examples/dask_device_run.sh's MPS_LAYOUTS start)
serves every row. ``--floor``: each row also times passes of a function that does nothing
(``noop_spec``) over the same items and task sizes: Dask's own time for a pass. ``--gather``: GPU
rows once per way the client fetches results (``gather sched|direct``). ``--affinity``: each row
once per CPU affinity of its workers (``pin core``: each worker thread a physical core of its own
near its GPU; ``pin numa``: its GPU's CPUs); the host's cores, NUMA nodes and GPUs' local CPUs are
printed first. The masks are written into per-thread buffers (``make_mask(reuse=True)``). Each row:
cluster start and warm-up (kernels compiled, photographs loaded) untimed,
one untimed pass over the first images (per-thread buffers), then ``--repeat`` timed passes over all
images; images/s of the best and the median pass, and where time goes per image on the workers
(make the mask, findContours, measure) with the workers' busy share of the wall time, and where
their threads idled in the best pass (``idle_shares``: before their first image, between images,
after their last; percent of threads x wall time). Every row's
results are compared: the CRCs of all images equal across rows, or the row says ``MISMATCH``.
"""
import argparse
import collections
import json
import os
import platform
import sys
import threading
import time
import zlib

import numpy as np

WIDTH, HEIGHT = 1920, 1080
# Bundled with scikit-image (no download); photographs that fail to load are skipped.
PHOTOS = ("camera", "astronaut", "coffee", "coins", "chelsea", "rocket", "immunohistochemistry",
          "hubble_deep_field", "page", "text", "brick", "gravel", "grass", "moon")
# Crops (x, y, width, height) as fractions of the photograph, each resized to WIDTH x HEIGHT.
CROPS = ((0.0, 0.0, 1.0, 1.0), (0.1, 0.05, 0.8, 0.9), (0.25, 0.2, 0.6, 0.6), (0.0, 0.3, 0.7, 0.7))
FLIPS = (None, 0, 1, -1)  # none, vertical, horizontal, both (cv2.flip codes)

_BASES = {}


def _gray_photo(name):
    from skimage import data
    img = np.asarray(getattr(data, name)())
    if img.ndim == 3:
        img = img[..., :3].astype(np.float64) @ np.array([0.2125, 0.7154, 0.0721])  # skimage's rgb2gray weights
    elif img.dtype == bool:
        img = img * 255.0
    return np.clip(img, 0, 255).astype(np.uint8)


def photos():
    """The photographs this scikit-image has, in PHOTOS' order."""
    names = []
    for name in PHOTOS:
        try:
            _gray_photo(name)
        except Exception:
            continue
        names.append(name)
    return tuple(names)


def base_mask(photo, crop):
    """The Otsu mask of photograph ``photo`` cropped by CROPS[crop] and resized to WIDTH x HEIGHT
    (cached per process)."""
    key = (photo, crop)
    mask = _BASES.get(key)
    if mask is None:
        import cv2
        gray = _gray_photo(photo)
        h, w = gray.shape
        fx, fy, fw, fh = CROPS[crop]
        part = gray[int(fy * h):int((fy + fh) * h), int(fx * w):int((fx + fw) * w)]
        resized = cv2.resize(part, (WIDTH, HEIGHT), interpolation=cv2.INTER_LINEAR)
        _, mask = cv2.threshold(resized, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        _BASES[key] = mask
    return mask


def prepare_bases():
    """Every base mask of this process, made once (the worker plugin's setup)."""
    for photo in photos():
        for crop in range(len(CROPS)):
            base_mask(photo, crop)


def image_specs(n, seed=0, names=None):
    """n image specs (photo, crop, flip, dy, dx): every photograph and crop in turn, a flip and a
    shift drawn per image, so that no two masks are equal."""
    names = names or photos()
    rng = np.random.default_rng(seed)
    specs = []
    for i in range(n):
        photo = names[i % len(names)]
        crop = (i // len(names)) % len(CROPS)
        flip = int(rng.integers(len(FLIPS)))
        specs.append((photo, crop, flip, int(rng.integers(HEIGHT)), int(rng.integers(WIDTH))))
    return specs


_BUFFERS = threading.local()


def make_mask(spec, reuse=False):
    """The 1920x1080 uint8 mask of one spec: the base mask flipped, then rolled by (dy, dx) with
    wrap-around (np.roll's result). ``reuse``: written into this thread's own buffers, which the
    next call overwrites (run_spec's tasks: the mask is only the benchmark's source, and a fresh
    2 MB array per image cost both engines' rows its page faults: make_ms 1.6-2.8 on the 2 x H200
    hosts against 0.3 on a 2-core machine)."""
    import cv2
    photo, crop, flip, dy, dx = spec
    mask = base_mask(photo, crop)
    if not reuse:
        if FLIPS[flip] is not None:
            mask = cv2.flip(mask, FLIPS[flip])
        return np.roll(mask, (dy, dx), axis=(0, 1))
    bufs = getattr(_BUFFERS, "masks", None)
    if bufs is None:
        bufs = _BUFFERS.masks = (np.empty((HEIGHT, WIDTH), np.uint8), np.empty((HEIGHT, WIDTH), np.uint8))
    flipped, out = bufs
    if FLIPS[flip] is not None:
        mask = cv2.flip(mask, FLIPS[flip], dst=flipped)
    h, w = mask.shape
    dy, dx = dy % h, dx % w
    out[dy:, dx:] = mask[:h - dy, :w - dx]
    out[dy:, :dx] = mask[:h - dy, w - dx:]
    out[:dy, dx:] = mask[h - dy:, :w - dx]
    out[:dy, :dx] = mask[h - dy:, w - dx:]
    return out


TABLE = np.dtype([("parent", "<i4"), ("area", "<f8"), ("x", "<i4"), ("y", "<i4"), ("w", "<i4"), ("h", "<i4")])


def contour_table(points, offsets, hierarchy):
    """Per contour of a packed findContours result: parent (hierarchy[:, 3]), area equal to
    cv2.contourArea's, and x, y, w, h equal to cv2.boundingRect's. contourArea sums
    prev.x * p.y - prev.y * p.x in double over the closed polygon; the terms are integers, so the
    int64 sum here is the same number, halved exactly."""
    points, offsets = np.asarray(points), np.asarray(offsets, dtype=np.int64)
    m = len(offsets) - 1
    table = np.zeros(m, TABLE)
    if m == 0:
        return table
    x = points[:, 0].astype(np.int64)
    y = points[:, 1].astype(np.int64)
    starts, ends = offsets[:-1], offsets[1:]
    prev = np.arange(-1, len(x) - 1)
    prev[starts] = ends - 1  # each contour's first point follows its last
    cross = x[prev] * y - y[prev] * x
    twice = np.add.reduceat(cross, starts)
    table["parent"] = np.asarray(hierarchy)[:, 3]
    table["area"] = np.abs(twice) * 0.5
    x0, y0 = np.minimum.reduceat(x, starts), np.minimum.reduceat(y, starts)
    table["x"], table["y"] = x0, y0
    table["w"] = np.maximum.reduceat(x, starts) - x0 + 1
    table["h"] = np.maximum.reduceat(y, starts) - y0 + 1
    return table


def cv2_table(mask):
    """contour_table of cv2's own findContours (the reference the tests compare against)."""
    import cv2
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    offsets = np.zeros(len(contours) + 1, np.int64)
    np.cumsum([len(c) for c in contours], out=offsets[1:])
    points = np.concatenate([c.reshape(-1, 2) for c in contours]) if contours else np.zeros((0, 2), np.int32)
    return contour_table(points, offsets, np.asarray(hierarchy).reshape(-1, 4) if contours else np.zeros((0, 4)))


def measure(mask):
    """The measurement table of every contour of ``mask`` (RETR_CCOMP, CHAIN_APPROX_SIMPLE)."""
    import cvgpu
    points, offsets, hierarchy = cvgpu.findContoursPacked(mask, cvgpu.RETR_CCOMP, cvgpu.CHAIN_APPROX_SIMPLE)
    return contour_table(points, offsets, hierarchy)


def run_spec(spec):
    """A task's per-image work: make the mask, find and measure its contours; returns the summary
    (counts, area sum, the table's CRC, the stage times in ms, the engine)."""
    import cvgpu
    start = time.time()  # (wall clock: the idle shares compare the workers' times with the client's)
    t0 = time.perf_counter()
    mask = make_mask(spec, reuse=True)
    t1 = time.perf_counter()
    points, offsets, hierarchy = cvgpu.findContoursPacked(mask, cvgpu.RETR_CCOMP, cvgpu.CHAIN_APPROX_SIMPLE)
    t2 = time.perf_counter()
    table = contour_table(points, offsets, hierarchy)
    t3 = time.perf_counter()
    return {"contours": len(table), "points": int(len(points)), "area": float(table["area"].sum()),
            "crc": zlib.crc32(table.tobytes()), "make_ms": (t1 - t0) * 1e3, "find_ms": (t2 - t1) * 1e3,
            "measure_ms": (t3 - t2) * 1e3, "backend": cvgpu.last_call_backend(),
            "thread": (os.getpid(), threading.get_ident()), "start": start, "end": time.time()}


def _spec(item):
    return item


def noop_spec(spec):
    """The floor rows' per-image work: none (a pass is then Dask's own cost for the items: the
    tasks' dispatch, their results' return and the client's gather)."""
    return None


def timed_passes(client, specs, repeat=3, batch_size=None, cv2_threads=None, warm_items=None, setup=prepare_bases,
                 floor=False):
    """Run ``specs`` through map_images on ``client``: plugin (its ``setup`` makes every base mask;
    None: each is made when first needed) and an untimed pass first, then ``repeat`` timed passes.
    ``floor``: then ``repeat`` passes of ``noop_spec`` over the same items and task sizes
    (``floor_s``: the fastest). Returns the row's numbers (without the configuration)."""
    from cvgpu.dask import map_images, prepare_workers, worker_info
    threads = sum(client.nthreads().values())
    t0 = time.perf_counter()
    prepare_workers(client, setup=setup, cv2_threads=cv2_threads)
    warm_s = time.perf_counter() - t0
    kw = dict(client=client, read=_spec, batch_size=batch_size, progress=False, setup=setup,
              cv2_threads=cv2_threads)
    map_images(run_spec, specs[:warm_items or 4 * threads], **kw)
    walls, results, idle, spread = [], None, None, None
    for _ in range(repeat):
        t, wall0 = time.perf_counter(), time.time()
        results = map_images(run_spec, specs, **kw)
        walls.append(time.perf_counter() - t)
        pass_values = [r.value for r in results if r.ok]
        pass_idle = idle_shares(pass_values, wall0, time.time(), threads)
        if idle is None or walls[-1] == min(walls):
            idle = pass_idle  # the best pass's, as images_per_s
            spread = images_per_thread(pass_values, threads)
    floor_walls = []
    for _ in range(repeat if floor else 0):
        t = time.perf_counter()
        map_images(noop_spec, specs, **kw)
        floor_walls.append(time.perf_counter() - t)
    failed = [r.error for r in results if not r.ok]
    values = [r.value for r in results if r.ok]
    n = len(specs)
    best, median = min(walls), float(np.median(walls))
    stage = {k: float(np.mean([v[k] for v in values])) if values else None for k in ("make_ms", "find_ms", "measure_ms")}
    busy = sum(v["make_ms"] + v["find_ms"] + v["measure_ms"] for v in values) / 1e3
    info = client.run(worker_info)
    return {"images": n, "threads": threads, "workers": len(info), "best_s": best, "median_s": median,
            "images_per_s": n / best, "images_per_s_median": n / median, "walls_s": walls, "warm_s": warm_s,
            "busy_share": busy / (median * threads), "failed": failed[:5], "n_failed": len(failed),
            "backends": sorted({v["backend"] for v in values}), "contours": sum(v["contours"] for v in values),
            "checksum": zlib.crc32(np.array([v["crc"] for v in values], np.uint32).tobytes()) if not failed else None,
            "devices": sorted({str(i["device"]) for i in info.values()}), "idle": idle,
            "images_per_thread": spread, "floor_s": min(floor_walls) if floor_walls else None, **stage}


def images_per_thread(values, threads):
    """[fewest, most] images one of the ``threads`` worker threads ran in a pass (0 for a thread
    that ran none): a wide spread is the scheduler's uneven share (threads idle at the end because
    others had more), a narrow one with a large "end" idle share is time after the work (results
    on their way to the client)."""
    counts = collections.Counter(tuple(v["thread"]) for v in values)
    if not counts:
        return None
    return [min(counts.values()) if len(counts) >= threads else 0, max(counts.values())]


def idle_shares(values, wall0, wall1, threads):
    """Where a pass's worker threads did not run images, as shares of threads x the pass's wall
    time (run_spec's start and end per image, per worker thread): "start" before a thread's first
    image, "gaps" between its images (the tasks' dispatch, results and Dask's own work), "end"
    after its last image; threads that ran no image count whole in "start"."""
    spans = {}
    for v in values:
        spans.setdefault(tuple(v["thread"]), []).append((v["start"], v["end"]))
    total = max(1e-9, (wall1 - wall0) * max(threads, len(spans)))
    start = gaps = end = 0.0
    for runs in spans.values():
        runs.sort()
        start += max(0.0, runs[0][0] - wall0)
        end += max(0.0, wall1 - max(e for _, e in runs))
        gaps += sum(max(0.0, b[0] - a[1]) for a, b in zip(runs, runs[1:]))
    start += (wall1 - wall0) * max(0, threads - len(spans))
    return {"start": start / total, "gaps": gaps / total, "end": end / total}


def _batches(text):
    """--batch: images per task, comma-separated; 0 is cvgpu.dask.auto_batch's choice."""
    try:
        values = [int(v) for v in str(text).split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError("--batch takes integers, e.g. 0,16,64") from None
    if not values or any(v < 0 for v in values):
        raise argparse.ArgumentTypeError("--batch takes integers >= 0, e.g. 0,16,64")
    return values


def _best_batch(client, specs, args):
    """timed_passes at each of --batch's sizes on one cluster; the fastest one's row, with every
    size's best images/s (`by_batch`). Each engine is compared at its own best size: with few images
    a task, the CPU row's 32 workers spent half a pass idle after their last image (2 x H200 run of
    2026-11-28: cv2 950 images/s at auto_batch's 7 images a task, 2,240 at 64)."""
    rows = {}
    for batch in args.batch:
        rows[batch] = timed_passes(client, specs, args.repeat, batch or None, cv2_threads=1,
                                   floor=getattr(args, "floor", False))
    from cvgpu.dask import auto_batch
    auto = auto_batch(len(specs), sum(client.nthreads().values()))
    best = max(rows, key=lambda b: rows[b]["images_per_s"])
    row = rows[best]
    row["batch"] = best or auto
    row["by_batch"] = {str(b or auto): r["images_per_s"] for b, r in rows.items()}
    row["idle_by_batch"] = {str(b or auto): dict(r.get("idle") or {}, images_per_thread=r.get("images_per_thread"))
                            for b, r in rows.items()}
    return row


def _row_gpu(n_gpus, layout, specs, args, affinity=None, gather=None):
    from distributed import Client

    from cvgpu import dask as cvdask
    per_gpu, threads, own_mps = layout
    cvdask.GATHER_DIRECT = gather
    t0 = time.perf_counter()
    try:
        with cvdask.gpu_cluster(n_gpus, threads_per_worker=threads, workers_per_gpu=per_gpu, mps=own_mps,
                                use_dask_cuda=True if args.dask_cuda else False, cpu_fallback=False,
                                cpu_affinity=affinity) as cluster, Client(cluster) as client:
            client.wait_for_workers(n_gpus * per_gpu)
            start_s = time.perf_counter() - t0
            row = _best_batch(client, specs, args)
    finally:
        cvdask.GATHER_DIRECT = None
    mps = own_mps or _mps()
    way = "" if gather is None else " gather %s" % ("direct" if gather else "sched")
    return dict(config="%d GPU %dx%d%s%s%s" % (n_gpus, per_gpu, threads, " MPS" if mps else "", _pinned(affinity), way),
                gpus=n_gpus, layout="%dx%d" % (per_gpu, threads), mps=mps, affinity=affinity,
                variant=way.strip() or None, start_s=start_s, **row)


def _pinned(affinity):
    return " pin %s" % affinity if affinity else ""


def _mps():
    """Whether this run's GPU workers are clients of an MPS server that the run's script started
    (it names its pipe in CUDA_MPS_PIPE_DIRECTORY, which the workers inherit); a layout ending in
    "mps" runs under the cluster's own daemon instead (gpu_cluster(mps=True))."""
    return bool(os.environ.get("CUDA_MPS_PIPE_DIRECTORY"))


def _row_cpu(specs, args, affinity=None):
    from distributed import Client

    from cvgpu.dask import cpu_cluster
    n = args.cpu_workers or os.cpu_count() or 1
    t0 = time.perf_counter()
    with cpu_cluster(n, threads_per_worker=1, backend="cv2", cpu_affinity=affinity) as cluster, \
            Client(cluster) as client:
        client.wait_for_workers(n)
        start_s = time.perf_counter() - t0
        row = _best_batch(client, specs, args)
    return dict(config="cv2 %d CPU workers%s" % (n, _pinned(affinity)), gpus=0, layout="%dx1" % n,
                affinity=affinity, start_s=start_s, **row)


def print_rows(rows, file=sys.stdout):
    ref = {(r["layout"], r.get("mps"), r.get("affinity"), r.get("variant")): r["images_per_s"]
           for r in rows if r["gpus"] == 1}
    cpu = {r.get("affinity"): r["images_per_s"] for r in rows if r["gpus"] == 0}
    sums = {r["checksum"] for r in rows if r["checksum"] is not None}
    head = ("config", "img/s best", "img/s med", "vs 1 GPU", "vs CPU", "make ms", "find ms", "meas ms", "busy",
            "idle s/g/e %", "batch", "floor ms", "start s", "check")
    print("%-40s %10s %10s %8s %7s %8s %8s %8s %5s %13s %5s %8s %7s %s" % head, file=file)
    for r in rows:
        key = (r["layout"], r.get("mps"), r.get("affinity"), r.get("variant"))
        scale = r["images_per_s"] / ref[key] if r["gpus"] > 1 and key in ref else None
        # (against the CPU row pinned the same way; the only CPU row where there is one)
        base = cpu.get(r.get("affinity"), next(iter(cpu.values())) if len(cpu) == 1 else None)
        vs_cpu = r["images_per_s"] / base if base and r["gpus"] else None
        check = "failed %d" % r["n_failed"] if r["n_failed"] else ("ok" if len(sums) == 1 else "MISMATCH")
        idle = r.get("idle") or {}
        shares = "/".join("%d" % round(100 * idle[k]) for k in ("start", "gaps", "end")) if idle else "-"
        floor = r.get("floor_s")
        print("%-40s %10.1f %10.1f %8s %7s %8.2f %8.2f %8.2f %5.2f %13s %5s %8s %7.1f %s" % (
            r["config"], r["images_per_s"], r["images_per_s_median"], "%.2fx" % scale if scale else "-",
            "%.2fx" % vs_cpu if vs_cpu else "-", r["make_ms"] or 0, r["find_ms"] or 0, r["measure_ms"] or 0,
            r["busy_share"], shares, r.get("batch", "-"), "%.1f" % (1e3 * floor) if floor else "-", r["start_s"],
            check), file=file)
    swept = [r for r in rows if len(r.get("by_batch") or {}) > 1]
    if swept:
        print("images/s by images a task (the row keeps its fastest):", file=file)
        for r in swept:
            print("  %-40s %s" % (r["config"], "  ".join(
                "%s: %.1f%s" % (size, speed, _idle_text((r.get("idle_by_batch") or {}).get(size)))
                for size, speed in r["by_batch"].items())),
                  file=file)


def _idle_text(idle):
    """" (idle s/g/e %, images a thread fewest-most)" for the --batch lines, "" without figures."""
    if not idle or "end" not in idle:
        return ""
    spread = idle.get("images_per_thread")
    return " (%d/%d/%d%s)" % (round(100 * idle["start"]), round(100 * idle["gaps"]), round(100 * idle["end"]),
                              ", %d-%d a thread" % tuple(spread) if spread else "")


def topology():
    """The host's CPUs as the affinity plans see them: physical cores, CPUs a core, NUMA nodes'
    CPU lists, and each visible GPU's PCI bus id with its local CPUs."""
    import glob

    from cvgpu import dask as cvdask
    cores = cvdask.physical_cores()
    nodes = {}
    for path in sorted(glob.glob("/sys/devices/system/node/node*/cpulist")):
        cpus = cvdask._read_cpu_list(path)
        if cpus:
            nodes[path.split("/")[-2]] = _ranges(cpus)
    gpus = {}
    for gpu, bus in cvdask._gpu_buses(cvdask.visible_gpus()).items():
        local = cvdask.local_cpus(bus)
        gpus[gpu] = {"bus": bus, "local_cpus": _ranges(local) if local else None}
    return {"physical_cores": len(cores), "cpus_a_core": sorted({len(c) for c in cores}), "numa_nodes": nodes,
            "gpus": gpus}


def _ranges(cpus):
    """A CPU set in Linux's list syntax."""
    runs = []
    for c in sorted(cpus):
        if runs and c == runs[-1][1] + 1:
            runs[-1][1] = c
        else:
            runs.append([c, c])
    return ",".join("%d-%d" % (a, b) if b > a else str(a) for a, b in runs)


def _environment():
    import cv2
    env = {"python": platform.python_version(), "cv2": cv2.__version__, "numpy": np.__version__,
           "cpu_count": os.cpu_count(), "machine": platform.machine(), "mps": _mps()}
    try:
        env["topology"] = topology()
    except Exception as exc:  # (a host without sysfs)
        env["topology"] = {"error": repr(exc)}
    for name in ("dask", "distributed", "cupy"):
        try:
            env[name] = __import__(name).__version__
        except Exception:
            env[name] = None
    return env


def _layout(text):
    """WxT, or WxTmps for the cluster's own MPS daemon: (W, T, mps)."""
    text = text.strip().lower()
    mps = text.endswith("mps")
    try:
        w, t = (int(v) for v in text[:-3 if mps else None].split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError("a layout is WORKERSxTHREADS per GPU, e.g. 1x4 or 12x1mps") from None
    if w < 1 or t < 1:
        raise argparse.ArgumentTypeError("a layout needs at least one worker and one thread, e.g. 1x4")
    return w, t, mps


def _gathers(text):
    ways = {"auto": None, "sched": False, "direct": True}
    try:
        return [ways[w.strip().lower()] for w in str(text).split(",")]
    except KeyError:
        raise argparse.ArgumentTypeError("--gather takes auto, sched and direct, comma-separated") from None


def _affinities(text):
    modes = [None if m.strip().lower() in ("none", "") else m.strip().lower() for m in str(text).split(",")]
    if any(m not in (None, "core", "numa") for m in modes):
        raise argparse.ArgumentTypeError("--affinity takes none, core and numa, comma-separated")
    return modes


def build_parser():
    ap = argparse.ArgumentParser(prog="python -m cvgpu.bench.dask_scaling", description=__doc__.splitlines()[0])
    ap.add_argument("--images", type=int, default=2000, help="images per pass (default 2000)")
    ap.add_argument("--gpus", default="1,2", help="GPU counts to run, comma-separated (default 1,2; "
                    "counts above the visible GPUs are skipped)")
    ap.add_argument("--layouts", type=_layout, nargs="+", default=[(1, 4, False)], metavar="WxT[mps]",
                    help="worker processes x threads per GPU (default 1x4); a trailing mps runs the row "
                    "under the cluster's own MPS daemon (cvgpu.dask.gpu_cluster(mps=True))")
    ap.add_argument("--cpu-workers", type=int, default=0, help="CPU row's worker processes (default: all cores)")
    ap.add_argument("--no-cpu", action="store_true", help="skip the cv2 CPU row")
    ap.add_argument("--cpu-images", type=int, default=0, help="images for the CPU row (default --images)")
    ap.add_argument("--repeat", type=int, default=3, help="timed passes per row (default 3)")
    ap.add_argument("--batch", type=_batches, default=[0, 64], metavar="N[,N...]",
                    help="images per task, comma-separated: each row runs every size and keeps its fastest "
                    "(0: cvgpu.dask.auto_batch; default 0,64)")
    ap.add_argument("--affinity", type=_affinities, default=[None], metavar="MODE[,MODE...]",
                    help="CPU affinity of the workers, comma-separated: none, core, numa (cvgpu.dask.gpu_cluster's "
                    "cpu_affinity); every row runs once per mode, the CPU row with none and core only "
                    "(default none)")
    ap.add_argument("--floor", action="store_true", help="after each row's passes, as many of a function that "
                    "does nothing, over the same items and task sizes: the pass time Dask itself takes "
                    "(column floor ms)")
    ap.add_argument("--gather", type=_gathers, default=[None], metavar="WAY[,WAY...]",
                    help="how the client fetches results, comma-separated: auto (cvgpu.dask's choice), sched "
                    "(through the scheduler), direct (from the workers); GPU rows run once per way")
    ap.add_argument("--dask-cuda", action="store_true", help="GPU rows through dask-cuda's LocalCUDACluster")
    ap.add_argument("--json", metavar="PATH", help="write the rows and the environment as JSON")
    return ap


def main(argv=None):
    args = build_parser().parse_args(argv)
    from cvgpu.dask import visible_gpus
    names = photos()
    if not names:
        sys.exit("dask_scaling: scikit-image's photographs are needed (pip install scikit-image)")
    specs = image_specs(args.images, names=names)
    visible = len(visible_gpus())
    print("dask_scaling: %d images %dx%d from %d photographs x %d crops; %d GPU(s) visible, %d cores"
          % (args.images, WIDTH, HEIGHT, len(names), len(CROPS), visible, os.cpu_count() or 1), flush=True)
    rows = []
    env = _environment()
    print("  host: %s" % json.dumps(env["topology"]), flush=True)

    def add(row):
        rows.append(row)
        print("  %s: %.1f images/s" % (row["config"], row["images_per_s"]), flush=True)
        if args.json:  # after every row: a run stopped by its time limit keeps the rows it made
            with open(args.json, "w") as f:
                json.dump({"environment": env, "width": WIDTH, "height": HEIGHT, "photos": names,
                           "rows": rows}, f, indent=1)

    for layout in args.layouts:
        for affinity in args.affinity:
            for gather in args.gather:
                for n in (int(v) for v in args.gpus.split(",") if v.strip()):
                    if n > visible:
                        print("  %d GPU %dx%d%s: skipped (%d visible)" % (n, layout[0], layout[1],
                                                                         " MPS" * layout[2], visible), flush=True)
                        continue
                    add(_row_gpu(n, layout, specs, args, affinity, gather))
    if not args.no_cpu:
        # ("numa" is the GPU rows' own: a CPU worker has no GPU to be near.)
        for affinity in dict.fromkeys(None if a == "numa" else a for a in args.affinity):
            row = _row_cpu(image_specs(args.cpu_images or args.images, names=names), args, affinity)
            if args.cpu_images and args.cpu_images != args.images:
                row["checksum"] = None  # other images: not comparable
            add(row)
    print()
    print_rows(rows)
    return 0 if all(r["n_failed"] == 0 for r in rows) and len({r["checksum"] for r in rows} - {None}) <= 1 else 1


if __name__ == "__main__":
    # Through the module's importable name: functions of __main__ would travel to the workers by
    # value, each task with globals of its own (the base masks' cache among them).
    from cvgpu.bench.dask_scaling import main as _main
    sys.exit(_main())
