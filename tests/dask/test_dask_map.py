"""cvgpu.dask (issue 45): the map over many images, its workers, its failures, the example and the
benchmark's measurements.

CPU part (everywhere dask and distributed are installed): one LocalCluster of two worker processes
per module, where cvgpu computes with cv2 (CVGPU_BACKEND=cv2), with Dask's allowed failures at 1 (a
task is given up on after its second worker death) and no task queued on a worker beyond its thread
(worker-saturation 1.0), so that a killed worker takes down only the task it runs.
GPU part (marker ``gpu``, and 2 GPUs or skipped with the reason): the same properties on a
two-GPU cluster made by cvgpu.dask.gpu_cluster, on 1920x1080 masks of photographs.
"""
import csv
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

distributed = pytest.importorskip("distributed", reason="cvgpu.dask needs dask and distributed "
                                  "(pip install -e '.[dask]')")
import cloudpickle  # noqa: E402  (comes with distributed)
import dask  # noqa: E402
import dask.array as da  # noqa: E402
from distributed import Client  # noqa: E402

import cvgpu  # noqa: E402
from cvgpu import dask as cvdask  # noqa: E402
from cvgpu.bench import dask_scaling as bench  # noqa: E402

# The workers cannot import this file (tests/ is no package on their path): its functions travel by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])

ROOT = Path(__file__).resolve().parents[2]
# lost-worker-timeout: a cluster closes a worker's Nanny when no worker of that name is back this long
# after a worker's death; a worker that dies again while restarting can be caught by the timer of
# its previous death (seen on a loaded 2-core host), so the tests that kill workers leave it long.
CLUSTER_CONFIG = {"distributed.scheduler.allowed-failures": 1, "distributed.scheduler.worker-saturation": 1.0,
                  "distributed.deploy.lost-worker-timeout": "600s"}


def blobs(seed, h=90, w=120):
    """A small 8-bit image of filled circles, some with holes, on a noisy background."""
    rng = np.random.default_rng(seed)
    img = rng.integers(0, 60, (h, w)).astype(np.uint8)
    for _ in range(6):
        cx, cy, r = int(rng.integers(10, w - 10)), int(rng.integers(10, h - 10)), int(rng.integers(3, 14))
        cv2.circle(img, (cx, cy), r, int(rng.integers(150, 255)), -1)
        if rng.random() < 0.4:
            cv2.circle(img, (cx, cy), r // 3, 20, -1)
    return img


def otsu(image):
    return cv2.threshold(image, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)[1]


def measure_otsu(image):
    """The per-image function of the CPU tests: cvgpu's contours of the image's Otsu mask, measured."""
    return bench.measure(otsu(image))


def same_table(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def read_indexed(item):
    """(index, image) of an (index, path) item: the function then knows which item it runs."""
    return item[0], cvdask.read_image(item[1])


@pytest.fixture(scope="module")
def cluster_config():
    """CLUSTER_CONFIG while the module's clusters live (read by the scheduler when it starts, by the
    cluster when a worker dies)."""
    config = dask.config.set(CLUSTER_CONFIG)
    yield
    config.__exit__(None, None, None)


@pytest.fixture(scope="module")
def cpu_client(cluster_config):
    cluster = cvdask.cpu_cluster(2, threads_per_worker=1)
    client = Client(cluster)
    yield client
    client.close()
    cluster.close()


@pytest.fixture
def client(cpu_client):
    cpu_client.wait_for_workers(2, timeout=60)  # a test before may have killed one
    return cpu_client


@pytest.fixture(scope="module")
def image_dir(tmp_path_factory):
    """12 PNGs (the 7th all black), in name order."""
    folder = tmp_path_factory.mktemp("images")
    for i in range(12):
        img = np.zeros((90, 120), np.uint8) if i == 6 else blobs(i)
        cv2.imwrite(str(folder / ("img_%02d.png" % i)), img)
    return folder


def good_paths(folder):
    return sorted(str(p) for p in folder.glob("img_*.png"))


def write_corrupt(folder, name="corrupt.png"):
    path = folder / name
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 40)  # a PNG signature, then nothing readable
    return str(path)


# ---------------------------------------------------------------- the measurements themselves

def cv2_loop_table(mask):
    """Per contour, cv2's own contourArea and boundingRect: what the vectorised table must equal."""
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    table = np.zeros(len(contours), bench.TABLE)
    for i, c in enumerate(contours):
        table[i] = (hierarchy[0, i, 3], cv2.contourArea(c)) + tuple(cv2.boundingRect(c))
    return table


@given(hnp.arrays(np.bool_, st.tuples(st.integers(1, 40), st.integers(1, 40))))
def test_contour_table_equals_cv2_contour_area_and_bounding_rect(bits):
    mask = bits.astype(np.uint8) * 255
    assert same_table(bench.cv2_table(mask), cv2_loop_table(mask))


def test_contour_table_on_photograph_masks():
    for spec in bench.image_specs(3):
        mask = bench.make_mask(spec)
        assert same_table(bench.cv2_table(mask), cv2_loop_table(mask))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 3), st.integers(-2 * bench.HEIGHT, 2 * bench.HEIGHT), st.integers(-2 * bench.WIDTH, 2 * bench.WIDTH))
def test_make_mask_into_the_threads_buffers_equals_flip_then_roll(flip, dy, dx):
    """run_spec's masks (written into per-thread buffers) equal cv2.flip then np.roll's."""
    spec = ("camera", 1, flip, dy, dx)
    base = bench.base_mask("camera", 1)
    want = base if bench.FLIPS[flip] is None else cv2.flip(base, bench.FLIPS[flip])
    want = np.roll(want, (dy, dx), axis=(0, 1))
    assert np.array_equal(bench.make_mask(spec, reuse=True), want)
    assert np.array_equal(bench.make_mask(spec), want)


# ---------------------------------------------------------------- CPU cluster

def test_paths_in_input_order_with_unreadable_files(client, image_dir, tmp_path):
    good = good_paths(image_dir)
    corrupt, missing = write_corrupt(tmp_path), str(tmp_path / "missing.png")
    paths = good[:4] + [corrupt] + good[4:9] + [missing] + good[9:]
    results = cvdask.map_images(measure_otsu, paths, client=client, batch_size=3, progress=False)
    assert [r.index for r in results] == list(range(len(paths)))
    assert [r.item for r in results] == paths
    for r in results:
        if r.item in (corrupt, missing):
            assert not r.ok and r.value is None
            assert repr(r.item) in r.error and "ImageReadError" in r.error
        else:
            assert r.ok, r.error
            assert same_table(r.value, measure_otsu(cv2.imread(r.item, cv2.IMREAD_UNCHANGED)))
    assert "no such file" in results[paths.index(missing)].error


def test_dask_array_of_frames(client):
    frames = np.stack([blobs(i) for i in range(11)])
    loop = [measure_otsu(f) for f in frames]
    for array, batch in ((da.from_array(frames, chunks=(4, 45, 60)), None), (da.from_array(frames, chunks=(3, -1, -1)), 5)):
        results = cvdask.map_images(measure_otsu, array, client=client, batch_size=batch, progress=False)
        assert [r.item for r in results] == list(range(11))
        assert all(r.ok for r in results), [r.error for r in results]
        assert all(same_table(r.value, ref) for r, ref in zip(results, loop))


def test_numpy_items_go_out_as_numpy(client):
    frames = [blobs(i + 20, 60 + i, 70) for i in range(5)]
    seen = []
    results = cvdask.map_images(measure_otsu, frames, client=client,
                                progress=lambda done, total: seen.append((done, total)))
    assert [r.item for r in results] == list(range(5))
    assert all(isinstance(r.value, np.ndarray) and same_table(r.value, measure_otsu(f))
               for r, f in zip(results, frames))
    assert seen[-1] == (5, 5) and [d for d, _ in seen] == sorted(d for d, _ in seen)


def fussy(image):
    if not image.any():
        raise ValueError("nothing to measure")
    return measure_otsu(image)


def test_a_raising_function_is_an_error_entry_naming_the_file(client, image_dir):
    paths = good_paths(image_dir)
    results = cvdask.map_images(fussy, paths, client=client, batch_size=4, progress=False)
    black = paths[6]
    assert [r.ok for r in results] == [p != black for p in paths]
    bad = results[6]
    assert bad.error == "%r: ValueError: nothing to measure" % black
    assert "fussy" in bad.traceback
    assert all(same_table(r.value, measure_otsu(cv2.imread(r.item, cv2.IMREAD_UNCHANGED)))
               for r in results if r.ok)


def test_workers_are_warmed_by_the_plugin(client):
    cvdask.prepare_workers(client)  # what map_images registers (once: a second registration is skipped)
    infos = client.run(cvdask.worker_info)
    assert len(infos) == 2 and len({i["pid"] for i in infos.values()}) == 2
    for info in infos.values():
        assert info["backend"] == "cv2" and info["CVGPU_BACKEND"] == "cv2"
        assert "contours" in info["warmed"] and info["warm_s"] is not None and not info["warm_errors"]


def test_a_killed_worker_loses_nothing(client, image_dir, tmp_path):
    """A worker killed (SIGKILL) in the middle of a task, after it finished others: Dask re-runs
    its tasks elsewhere and every item's result equals the plain loop's."""
    paths = good_paths(image_dir) * 2
    victim = next(iter(client.run(os.getpid).values()))
    marks = tmp_path

    def slow(item):
        i, image = item
        pid = os.getpid()
        (marks / ("%d-%d" % (i, pid))).touch()
        if pid == victim and len(list(marks.glob("*-%d" % pid))) >= 3 and not (marks / "killed").exists():
            (marks / "killed").write_text(str(i))
            os.kill(pid, signal.SIGKILL)
        time.sleep(0.02)
        return pid, measure_otsu(image)

    items = list(enumerate(paths))
    results = cvdask.map_images(slow, items, client=client, read=read_indexed, batch_size=2, progress=False)
    assert (marks / "killed").exists(), "the victim worker ran fewer than 3 items"
    killed_at = int((marks / "killed").read_text())
    assert all(r.ok for r in results), [r.error for r in results if not r.ok]
    assert [r.index for r in results] == list(range(len(items)))
    assert results[killed_at].value[0] != victim  # re-run by another worker process
    for r, p in zip(results, paths):
        assert same_table(r.value[1], measure_otsu(cv2.imread(p, cv2.IMREAD_UNCHANGED)))


def test_a_killed_worker_loses_no_numpy_item(client, tmp_path):
    """numpy items are scattered to the workers; Dask cannot recompute those a dead worker held, so
    map_images sends their batches again from the client's arrays."""
    frames = []
    for i in range(16):
        frames.append(blobs(i + 40))
        frames[-1][0, 0] = i  # the item's number, for the function
    victim = next(iter(client.run(os.getpid).values()))
    marks = tmp_path

    def slow(image):
        pid = os.getpid()
        (marks / ("%d-%d" % (image[0, 0], pid))).touch()
        if pid == victim and len(list(marks.glob("*-%d" % pid))) >= 3 and not (marks / "killed").exists():
            (marks / "killed").touch()
            os.kill(pid, signal.SIGKILL)
        time.sleep(0.02)
        return measure_otsu(image)

    results = cvdask.map_images(slow, frames, client=client, batch_size=2, progress=False)
    assert (marks / "killed").exists(), "the victim worker ran fewer than 3 items"
    assert all(r.ok for r in results), [r.error for r in results if not r.ok]
    assert all(same_table(r.value, measure_otsu(f)) for r, f in zip(results, frames))


def test_an_item_that_kills_every_worker_is_an_error_entry(client, image_dir):
    """An image whose processing crashes the worker process each time: after Dask gives up on its
    batch, the batch's items run alone; the crashing one is an error entry, the rest complete."""
    paths = good_paths(image_dir)[:8]
    poison = paths[3]

    def crashing(item):
        i, image = item
        if i == 3:
            os.kill(os.getpid(), signal.SIGKILL)
        return measure_otsu(image)

    results = cvdask.map_images(crashing, list(enumerate(paths)), client=client, read=read_indexed,
                                batch_size=2, progress=False)
    assert [r.ok for r in results] == [p != poison for p in paths]
    assert "KilledWorker" in results[3].error and repr((3, poison)) in results[3].error
    for r, p in zip(results, paths):
        if r.ok:
            assert same_table(r.value, measure_otsu(cv2.imread(p, cv2.IMREAD_UNCHANGED)))


def test_example_writes_one_csv_against_a_scheduler(client, image_dir, tmp_path):
    folder = tmp_path / "folder"
    folder.mkdir()
    for p in good_paths(image_dir)[:5]:
        (folder / Path(p).name).write_bytes(Path(p).read_bytes())
    bad = write_corrupt(folder, "zz_bad.png")
    out = tmp_path / "contours.csv"
    run = subprocess.run([sys.executable, str(ROOT / "examples" / "dask_contours.py"), str(folder), "--csv",
                          str(out), "--scheduler", client.scheduler.address], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 1, run.stdout + run.stderr  # one file failed
    rows = list(csv.DictReader(out.open()))
    example = _load_example()
    expected = []
    for p in sorted(folder.glob("img_*.png")):
        for contour, parent, area, x, y, w, h in example.measure(cv2.imread(str(p), cv2.IMREAD_UNCHANGED)):
            expected.append([str(p), str(contour), str(parent), repr(float(area)), str(x), str(y), str(w), str(h), ""])
    got = [[r[c] for c in ("file", "contour", "parent", "area", "x", "y", "w", "h", "error")] for r in rows]
    assert got[:-1] == expected and len(expected) > 20
    assert got[-1][0] == bad and bad in got[-1][-1] and "ImageReadError" in got[-1][-1]


def _load_example():
    import importlib.util
    spec = importlib.util.spec_from_file_location("dask_contours_example", ROOT / "examples" / "dask_contours.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_benchmark_row_checksum_equals_the_plain_loop(client):
    import zlib
    specs = bench.image_specs(4)
    row = bench.timed_passes(client, specs, repeat=1, warm_items=2, setup=None)
    assert row["n_failed"] == 0 and row["images"] == 4 and row["backends"] == ["cv2"] and row["floor_s"] is None
    floored = bench.timed_passes(client, specs, repeat=2, warm_items=2, setup=None, floor=True)
    assert floored["checksum"] == row["checksum"] and floored["floor_s"] > 0
    loop = [bench.run_spec(s)["crc"] for s in specs]
    assert row["checksum"] == zlib.crc32(np.array(loop, np.uint32).tobytes())
    assert [zlib.crc32(bench.cv2_table(bench.make_mask(s)).tobytes()) for s in specs] == loop
    assert set(row["idle"]) == {"start", "gaps", "end"} and all(0 <= v <= 1 for v in row["idle"].values())


def test_idle_shares_of_a_pass():
    """idle_shares: a pass of 10 s on 3 threads; thread a runs images 1-4 and 5-9, thread b 2-8,
    thread c none: before the first image 1 + 2 + 10, between 1, after 1 + 2, of 30 thread-seconds."""
    values = [{"thread": ("p", "a"), "start": 101.0, "end": 104.0}, {"thread": ("p", "a"), "start": 105.0, "end": 109.0},
              {"thread": ("p", "b"), "start": 102.0, "end": 108.0}]
    shares = bench.idle_shares(values, 100.0, 110.0, 3)
    assert shares == pytest.approx({"start": 13 / 30, "gaps": 1 / 30, "end": 3 / 30})


def test_images_per_thread_and_the_batch_lines():
    """The best pass's fewest and most images a thread (0 for a thread that ran none), and the
    --batch lines giving each size's idle shares and that spread."""
    values = [{"thread": ("p", "a")}] * 3 + [{"thread": ("p", "b")}]
    assert bench.images_per_thread(values, 2) == [1, 3] and bench.images_per_thread(values, 3) == [0, 3]
    assert bench.images_per_thread([], 2) is None
    idle = {"start": 0.1, "gaps": 0.02, "end": 0.345, "images_per_thread": [1, 3]}
    assert bench._idle_text(idle) == " (10/2/34, 1-3 a thread)" and bench._idle_text(None) == ""


def test_auto_batch_sizes():
    """auto_batch: at most 64 items a task, in the fewest whole waves of the threads that allows
    (no last wave of a few tasks), the items spread as evenly as that allows, at least 1."""
    assert cvdask.auto_batch(2000, 24) == 42   # 48 tasks: two waves of 24
    assert cvdask.auto_batch(2000, 12) == 56 and cvdask.auto_batch(2000, 32) == 63
    assert cvdask.auto_batch(100, 32) == 4 and cvdask.auto_batch(3, 2) == 2
    assert cvdask.auto_batch(1, 8) == 1 and cvdask.auto_batch(0, 8) == 1 and cvdask.auto_batch(50, 0) == 50


@given(st.integers(1, 200000), st.integers(1, 256))
def test_auto_batch_fills_whole_waves(n, threads):
    b = cvdask.auto_batch(n, threads)
    waves = -(-n // (64 * threads))          # the fewest waves at 64 a task
    tasks = -(-n // b)
    assert 1 <= b <= 64 and tasks <= waves * threads
    assert b == 1 or -(-n // (b - 1)) > waves * threads   # one item less a task would need another wave


def test_batches_of_items_go_to_the_scheduler_in_one_message():
    """_submit_all: item batches in one client.map (their keys, pairs and functions in order, each
    batch holding its future), a dask array's chunks in one client.compute over the array's own
    blocks; a single batch one submit."""
    class Client:
        def __init__(self):
            self.maps, self.submits, self.computes = [], [], []

        def compute(self, tasks):
            self.computes.append(tasks)
            return ["future-%s" % t.key for t in tasks]

        def map(self, fn, funcs, reads, pairs, pushes, key, pure):
            self.maps.append((fn, funcs, reads, pairs, pushes, key, pure))
            return ["future-%s" % k for k in key]

        def submit(self, fn, func, read, pairs, push, key, pure):
            self.submits.append(key)
            return "future-%s" % key
    client = Client()
    items, labels = ["a", "b", "c", "d", "e"], ["l%d" % i for i in range(5)]
    batches = [cvdask._ItemBatch(client, str.upper, str, labels, items, a, min(a + 2, 5), "k%d" % a)
               for a in range(0, 5, 2)]
    futures = cvdask._submit_all(client, batches)
    assert futures == ["future-k0", "future-k2", "future-k4"] and [b.future for b in batches] == futures
    (fn, funcs, reads, pairs, pushes, keys, pure), = client.maps
    assert fn is cvdask._run_items and funcs == [str.upper] * 3 and reads == [str] * 3 and pure is False
    assert pushes == [None] * 3
    assert all(type(p) is cvdask._Pairs for p in pairs)  # (one object a task: the scheduler does not walk it)
    assert [p.pairs for p in pairs] == [[("l0", "a"), ("l1", "b")], [("l2", "c"), ("l3", "d")], [("l4", "e")]]
    assert keys == ["k0", "k2", "k4"] and client.submits == [] and all(b.tries == 1 for b in batches)
    assert cvdask._submit_all(client, batches[:1]) == ["future-k0-try2"] and client.submits == ["k0-try2"]
    frames = da.from_array(np.arange(5 * 4 * 3, dtype=np.uint8).reshape(5, 4, 3), chunks=(2, -1, -1))
    labels, chunks = cvdask._frame_batches(client, str, frames, None, "t")
    assert labels == list(range(5)) and [(b.start, b.stop) for b in chunks] == [(0, 2), (2, 4), (4, 5)]
    futures = cvdask._submit_all(client, chunks)
    (tasks,) = client.computes
    assert futures == ["future-cvgpu-frames-t-%d" % b for b in range(3)] and [b.future for b in chunks] == futures
    assert [t.compute(scheduler="sync") for t in tasks] == [
        [(str(frames[i].compute()), None, None) for i in range(b.start, b.stop)] for b in chunks]
    assert all(b.tries == 1 for b in chunks) and client.submits == ["k0-try2"]


def test_pairs_go_as_one_object_unless_they_hold_futures(client):
    """A batch's pairs travel as one _Pairs (pickled whole; _run_items takes it or a list); a batch
    whose payloads are futures (scattered numpy items) stays a list, so Dask sees its inputs."""
    import pickle
    pairs = cvdask._Pairs([("l0", ("camera", 1)), ("l1", "x.png")])
    back = pickle.loads(pickle.dumps(pairs))
    assert type(back) is cvdask._Pairs and back.pairs == pairs.pairs
    want = [(len(str(("camera", 1))), None, None), (len("x.png"), None, None)]
    assert cvdask._run_items(len, str, pairs) == cvdask._run_items(len, str, pairs.pairs) == want
    frames = [blobs(0), blobs(1)]
    batch = cvdask._ItemBatch(client, measure_otsu, cvdask.read_image, ["f0", "f1"], frames, 0, 2, "k")
    args = batch.arguments()
    assert type(args) is list and all(isinstance(p, distributed.Future) for _, p in args)
    assert [label for label, _ in args] == ["f0", "f1"]


def test_completed_fetches_each_group_in_one_gather():
    """map_images' _completed: the finished futures of a group come from one client.gather (from
    the workers themselves when asked: direct), but for those whose rows were pushed (taken as they
    came, pickled); an erred or cancelled future, or every gathered future of a group whose gather
    failed, is left to future.result() (_NOT_FETCHED), which raises its own error."""
    import pickle
    from types import SimpleNamespace
    class Fut:
        def __init__(self, status, name):
            self.status, self.name, self.key = status, name, "key-%d" % name
    f = [Fut(s, i) for i, s in enumerate(("finished", "finished", "error", "finished", "finished", "cancelled",
                                          "finished"))]
    gathers = []

    class Client:
        def gather(self, futures, direct=None):
            gathers.append(([x.name for x in futures], direct))
            if any(x.name == 4 for x in futures):
                raise OSError("worker lost")
            return ["r%d" % x.name for x in futures]
    for direct in (False, True):
        gathers.clear()
        running = SimpleNamespace(batches=lambda: iter([f[:3], f[3:6], f[6:]]))
        out = [(fut.name, val) for fut, val in cvdask._completed(Client(), running, direct)]
        nf = cvdask._NOT_FETCHED
        assert out == [(0, "r0"), (1, "r1"), (2, nf), (3, nf), (4, nf), (5, nf), (6, "r6")]
        assert gathers == [([0, 1], direct), ([3, 4], direct), ([6], direct)]
        # pushed rows: f1's and f3's (f3's group's gather fails, f3 keeps its rows); f2 erred, so
        # rows pushed under its key are not taken (and stay for map_images' clean-up)
        gathers.clear()
        cvdask._pushed.update({"key-1": pickle.dumps("p1"), "key-3": pickle.dumps("p3"), "key-2": pickle.dumps("p2")})
        running = SimpleNamespace(batches=lambda: iter([f[:3], f[3:6], f[6:]]))
        out = [(fut.name, val) for fut, val in cvdask._completed(Client(), running, direct)]
        assert out == [(0, "r0"), (1, "p1"), (2, nf), (3, "p3"), (4, nf), (5, nf), (6, "r6")]
        assert gathers == [([0], direct), ([4], direct), ([6], direct)]
        assert cvdask._pushed.pop("key-2") and not cvdask._pushed, list(cvdask._pushed)


def test_results_come_straight_from_workers_on_loopback(monkeypatch):
    """_gather_direct: from the workers themselves only where every worker is on loopback (a local
    cluster: the client surely reaches them); GATHER_DIRECT forces either way."""
    local = {"tcp://127.0.0.1:4001": 1, "tcp://localhost:4002": 2, "tcp://[::1]:4003": 1}
    assert cvdask._gather_direct(local)
    assert not cvdask._gather_direct({"tcp://127.0.0.1:4001": 1, "tcp://10.0.0.7:4002": 1})
    assert not cvdask._gather_direct({}) and not cvdask._gather_direct({"ucx://host-b:4001": 1})
    monkeypatch.setattr(cvdask, "GATHER_DIRECT", False)
    assert not cvdask._gather_direct(local)
    monkeypatch.setattr(cvdask, "GATHER_DIRECT", True)
    assert cvdask._gather_direct({"tcp://10.0.0.7:4002": 1})


def test_batch_sizes_each_row_keeps_its_fastest(monkeypatch):
    """--batch N,N,...: every size runs on the row's cluster and the row keeps the fastest, naming
    it and every size's images/s (0: auto_batch's size, here 1,000 images over 8 threads: 63)."""
    import argparse
    from types import SimpleNamespace
    assert bench._batches("0, 16,64") == [0, 16, 64]
    for bad in ("x", "-1", ""):
        with pytest.raises(argparse.ArgumentTypeError):
            bench._batches(bad)
    assert bench.build_parser().parse_args([]).batch == [0, 64]
    speeds = {None: 100.0, 16: 300.0, 64: 200.0}
    ran = []

    def fake_passes(client, specs, repeat, batch, cv2_threads=None, floor=False):
        ran.append(batch)
        return {"images_per_s": speeds[batch]}
    monkeypatch.setattr(bench, "timed_passes", fake_passes)
    client = SimpleNamespace(nthreads=lambda: {"a": 4, "b": 4})
    row = bench._best_batch(client, list(range(1000)), SimpleNamespace(batch=[0, 16, 64], repeat=1))
    assert ran == [None, 16, 64]
    assert row["batch"] == 16 and row["images_per_s"] == 300.0
    assert row["by_batch"] == {"63": 100.0, "16": 300.0, "64": 200.0}


def test_gpu_cluster_gives_each_worker_one_device(cluster_config):
    """gpu_cluster's own cluster (used where dask-cuda is not installed), with two device entries:
    one Nanny each, CUDA_VISIBLE_DEVICES set to its entry alone (here with cv2 computing)."""
    with cvdask._spec_gpu_cluster(["0", "1"], 1, 1, env={"CVGPU_BACKEND": "cv2"}) as cluster, \
            Client(cluster) as c:
        c.wait_for_workers(2, timeout=60)
        infos = c.run(cvdask.worker_info)
        assert sorted(i["CUDA_VISIBLE_DEVICES"] for i in infos.values()) == ["0", "1"]
        assert sorted(w["name"] for w in c.scheduler_info()["workers"].values()) == ["gpu0", "gpu1"]
        frames = [blobs(i) for i in range(3)]
        results = cvdask.map_images(measure_otsu, frames, client=c, progress=False)
        assert all(same_table(r.value, measure_otsu(f)) for r, f in zip(results, frames))


# ---------------------------------------------------------------- CPU affinity

def fake_topology(monkeypatch, siblings, local):
    """sysfs as a machine with ``siblings`` ({cpu: its core's CPUs}) and PCI devices ``local``
    ({sysfs bus id: CPUs})."""
    def read(path):
        if path.startswith("/sys/devices/system/cpu/cpu"):
            cpu = int(path.split("/")[5][len("cpu"):])  # /sys/devices/system/cpu/cpuN/topology/...
            return set(siblings[cpu]) if cpu in siblings else None
        for bus, cpus in local.items():
            if "/%s/" % bus in path:
                return set(cpus)
        return None
    monkeypatch.setattr(cvdask, "_read_cpu_list", read)


def test_cpu_list_syntax():
    assert cvdask._cpu_list("0-3,8,10-11\n") == {0, 1, 2, 3, 8, 10, 11}
    assert cvdask._cpu_list("") == set()


def test_plan_affinity_spreads_workers_over_their_gpus_cores(monkeypatch):
    """Two NUMA nodes of 4 cores x 2 hyper-threads (CPU i and i + 8 share a core), a GPU on each:
    "core" gives every worker a core of its own near its GPU, whole (both hyper-threads), and
    shares cores only once each has one; "numa" gives each worker its GPU's node."""
    siblings = {c: {c % 8, c % 8 + 8} for c in range(16)}
    node0, node1 = {0, 1, 2, 3, 8, 9, 10, 11}, {4, 5, 6, 7, 12, 13, 14, 15}
    fake_topology(monkeypatch, siblings, {"0000:17:00.0": node0, "0000:b1:00.0": node1})
    assert cvdask.physical_cores(range(16)) == [(c, c + 8) for c in range(8)]
    assert cvdask.local_cpus("00000000:17:00.0") == node0 and cvdask.local_cpus("0000:B1:00.0") == node1
    assert cvdask.local_cpus("00000000:99:00.0") is None and cvdask.local_cpus("garbage") is None
    workers = [("a0", "00000000:17:00.0"), ("b0", "00000000:B1:00.0"), ("a1", "00000000:17:00.0"),
               ("b1", "00000000:B1:00.0")]
    plan = cvdask.plan_affinity(workers, 1, "core", cpus=range(16))
    assert plan == {"a0": [0, 8], "b0": [4, 12], "a1": [1, 9], "b1": [5, 13]}
    five = [("a%d" % i, "00000000:17:00.0") for i in range(5)]
    plan = cvdask.plan_affinity(five, 1, "core", cpus=range(16))
    assert [plan["a%d" % i] for i in range(5)] == [[0, 8], [1, 9], [2, 10], [3, 11], [0, 8]]
    plan = cvdask.plan_affinity(five[:2], 2, "core", cpus=range(16))
    assert plan == {"a0": [0, 1, 8, 9], "a1": [2, 3, 10, 11]}
    assert cvdask.plan_affinity(workers[:2], 1, "numa", cpus=range(16)) == {"a0": sorted(node0), "b0": sorted(node1)}
    # Unknown devices, or a process allowed fewer CPUs: the CPUs it may use.
    plan = cvdask.plan_affinity([(0, None), (1, "x"), (2, None)], 1, "core", cpus=[2, 3, 10])
    assert plan == {0: [2, 10], 1: [3], 2: [2, 10]}
    with pytest.raises(ValueError, match="cpu_affinity"):
        cvdask.plan_affinity(workers, 1, "socket")


def test_pin_process_pins_every_thread():
    """pin_process sets the CPUs of every thread of the process, started before or after it."""
    import threading
    before = os.sched_getaffinity(0)
    one = {sorted(before)[-1]}
    seen, go = {}, threading.Event()

    def later():
        go.wait(10)
        seen["old"] = os.sched_getaffinity(0)
        t = threading.Thread(target=lambda: seen.__setitem__("new", os.sched_getaffinity(0)))
        t.start()
        t.join()
    thread = threading.Thread(target=later)
    thread.start()
    try:
        cvdask.pin_process(one)
        go.set()
        thread.join(10)
        assert os.sched_getaffinity(0) == one and seen == {"old": one, "new": one}
    finally:
        go.set()
        cvdask.pin_process(before)
    assert os.sched_getaffinity(0) == before


def test_cpu_cluster_pins_its_workers(cluster_config):
    """cpu_cluster(cpu_affinity="core"): each worker process on the CPUs of its plan (one core a
    worker here, shared once the workers outnumber the cores), and so is a worker restarted."""
    n = 3
    with cvdask.cpu_cluster(n, threads_per_worker=1, cpu_affinity="core") as cluster, Client(cluster) as c:
        c.wait_for_workers(n, timeout=60)
        plan = cvdask.plan_affinity([(i, None) for i in range(n)], 1, "core")
        infos = c.run(cvdask.worker_info)
        by_name = {w["name"]: infos[address]["cpus"] for address, w in c.scheduler_info()["workers"].items()}
        assert by_name == plan
        c.restart()
        c.wait_for_workers(n, timeout=60)
        infos = c.run(cvdask.worker_info)
        assert sorted(i["cpus"] for i in infos.values()) == sorted(plan.values())


def test_pinned_cluster_is_cvgpus_own(monkeypatch):
    """cpu_affinity with dask-cuda's cluster asked for: refused (dask-cuda pins its workers itself)."""
    monkeypatch.setattr(cvdask, "visible_gpus", lambda: ["0"])
    with pytest.raises(ValueError, match="use_dask_cuda"):
        cvdask.gpu_cluster(cpu_affinity="core", use_dask_cuda=True)


# ---------------------------------------------------------------- two GPUs

def _gpu_count():
    return cvgpu._backend.device_count()


def needs_two_gpus(test):
    n = _gpu_count()
    return pytest.mark.gpu(pytest.mark.skipif(n < 2, reason="needs 2 GPUs, %d visible" % n)(test))


@pytest.fixture(scope="module")
def gpu2_client(cluster_config):
    cluster = cvdask.gpu_cluster(2, threads_per_worker=2, use_dask_cuda=False, cpu_fallback=False)
    client = Client(cluster)
    client.wait_for_workers(2, timeout=120)
    cvdask.prepare_workers(client)  # warm now: the tests read the workers' state before their first map
    yield client
    client.close()
    cluster.close()


@pytest.fixture
def gpu2(gpu2_client):
    gpu2_client.wait_for_workers(2, timeout=120)
    return gpu2_client


def spec_table(spec):
    """The GPU tests' per-image function: a 1920x1080 photograph mask made on the worker, measured."""
    table = bench.measure(bench.make_mask(spec))
    return table, cvgpu.last_call_backend()


def _spec(item):
    return item


@needs_two_gpus
def test_two_gpus_each_worker_on_its_own_warm_gpu(gpu2):
    infos = list(gpu2.run(cvdask.worker_info).values())
    assert len(infos) == 2
    assert {i["backend"] for i in infos} == {"cuda"}
    assert len({i["device"] for i in infos}) == 2 and len({i["CUDA_VISIBLE_DEVICES"] for i in infos}) == 2
    for info in infos:
        assert "contours" in info["warmed"] and not info["warm_errors"] and info["kernel_modules"] > 0


@needs_two_gpus
def test_two_gpus_equal_the_plain_loop_in_order_without_compiling(gpu2):
    specs = bench.image_specs(96, seed=5)
    gpu2.run(bench.prepare_bases)
    before = {k: v["kernel_modules"] for k, v in gpu2.run(cvdask.worker_info).items()}
    results = cvdask.map_images(spec_table, specs, client=gpu2, read=_spec, batch_size=4, progress=False)
    after = {k: v["kernel_modules"] for k, v in gpu2.run(cvdask.worker_info).items()}
    assert after == before  # the plugin's warm-up compiled every kernel these tasks used
    assert [r.item for r in results] == specs
    assert all(r.ok for r in results), [r.error for r in results if not r.ok]
    assert {r.value[1] for r in results} == {"cuda"}
    for r, spec in zip(results, specs):
        assert same_table(r.value[0], bench.cv2_table(bench.make_mask(spec))), spec


@needs_two_gpus
def test_two_gpus_a_killed_worker_loses_nothing(gpu2, tmp_path):
    specs = bench.image_specs(64, seed=7)
    victim = next(iter(gpu2.run(os.getpid).values()))
    marks = tmp_path

    def killing(item):
        i, spec = item
        pid = os.getpid()
        (marks / ("%d-%d" % (i, pid))).touch()
        if pid == victim and len(list(marks.glob("*-%d" % pid))) >= 6 and not (marks / "killed").exists():
            (marks / "killed").write_text(str(i))
            os.kill(pid, signal.SIGKILL)
        table, engine = spec_table(spec)
        return pid, table, engine

    results = cvdask.map_images(killing, list(enumerate(specs)), client=gpu2, read=_spec, batch_size=3,
                                progress=False)
    assert (marks / "killed").exists(), "the victim worker ran fewer than 6 items"
    killed_at = int((marks / "killed").read_text())
    assert all(r.ok for r in results), [r.error for r in results if not r.ok]
    assert results[killed_at].value[0] != victim
    assert {r.value[2] for r in results} == {"cuda"}
    for r, spec in zip(results, specs):
        assert same_table(r.value[1], bench.cv2_table(bench.make_mask(spec))), spec


@needs_two_gpus
def test_two_gpus_a_corrupt_image_is_reported_and_the_rest_complete(gpu2, tmp_path):
    paths = []
    for i, spec in enumerate(bench.image_specs(10, seed=9)):
        paths.append(str(tmp_path / ("mask_%02d.png" % i)))
        cv2.imwrite(paths[-1], bench.make_mask(spec))
    corrupt = write_corrupt(tmp_path)
    paths.insert(4, corrupt)

    def table_and_engine(mask):
        return bench.measure(mask), cvgpu.last_call_backend()

    results = cvdask.map_images(table_and_engine, paths, client=gpu2, batch_size=2, progress=False)
    assert [r.ok for r in results] == [p != corrupt for p in paths]
    assert repr(corrupt) in results[4].error and "ImageReadError" in results[4].error
    for r in results:
        if r.ok:
            assert r.value[1] == "cuda"
            assert same_table(r.value[0], bench.cv2_table(cv2.imread(r.item, cv2.IMREAD_UNCHANGED)))


# ---------------------------------------------------------------- gpu_cluster(mps=True)

class _FakeRun:
    """subprocess.run stand-in for the MPS daemon's commands: records them, answers nvidia-smi."""

    def __init__(self, start_rc=0):
        self.calls, self.start_rc = [], start_rc

    def __call__(self, cmd, **kw):
        import subprocess
        self.calls.append((list(cmd), kw))
        if cmd[0] == "nvidia-smi":
            return subprocess.CompletedProcess(cmd, 0, "0, GPU-aaaa\n1, GPU-bbbb\n2, GPU-cccc\n", "")
        if cmd[-1] == "-d":
            return subprocess.CompletedProcess(cmd, self.start_rc, "", "" if self.start_rc == 0 else "no MPS here")
        return subprocess.CompletedProcess(cmd, 0, "", "")


def test_mps_daemon_is_private_and_quits_with_its_cluster(monkeypatch, tmp_path):
    """gpu_cluster(mps=True): a daemon with its own pipe/log folders sees the cluster's GPUs by
    UUID; each worker gets the folders and its GPU's UUID; closing the cluster quits the daemon and
    removes the folders. (The cluster itself is not started: _spec_gpu_cluster is replaced.)"""
    import shutil
    import subprocess
    import tempfile
    run = _FakeRun()
    monkeypatch.setattr(subprocess, "run", run)
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/" + name)
    monkeypatch.setattr(tempfile, "mkdtemp", lambda prefix: str(tmp_path / "mps"))
    monkeypatch.setattr(cvdask, "visible_gpus", lambda: ["0", "2"])
    made = {}

    class FakeCluster:
        closed = False

        def close(self):
            self.closed = True

    def fake_spec(ids, threads, per_gpu, env=None, **kw):
        made.update(ids=ids, threads=threads, per_gpu=per_gpu, env=env, kw=kw)
        return FakeCluster()
    monkeypatch.setattr(cvdask, "_spec_gpu_cluster", fake_spec)
    cluster = cvdask.gpu_cluster(workers_per_gpu=4, mps=True, env={"X": "1"})
    assert made["ids"] == ["GPU-aaaa", "GPU-cccc"] and made["per_gpu"] == 4
    pipe, log = str(tmp_path / "mps" / "pipe"), str(tmp_path / "mps" / "log")
    assert made["env"] == {"X": "1", "CUDA_MPS_PIPE_DIRECTORY": pipe, "CUDA_MPS_LOG_DIRECTORY": log}
    start = [c for c in run.calls if c[0][-1] == "-d"]
    assert len(start) == 1 and start[0][1]["env"]["CUDA_VISIBLE_DEVICES"] == "GPU-aaaa,GPU-cccc"
    assert start[0][1]["env"]["CUDA_MPS_PIPE_DIRECTORY"] == pipe and (tmp_path / "mps" / "pipe").is_dir()
    cluster.close()
    assert cluster.closed and cluster.cvgpu_mps.stopped
    quits = [c for c in run.calls if c[0] == ["/usr/bin/nvidia-cuda-mps-control"]]
    assert len(quits) == 1 and quits[0][1]["input"] == "quit\n" and quits[0][1]["env"]["CUDA_MPS_PIPE_DIRECTORY"] == pipe
    assert not (tmp_path / "mps").exists()
    cluster.cvgpu_mps.stop()  # (at exit too: once only)
    assert len([c for c in run.calls if c[0] == ["/usr/bin/nvidia-cuda-mps-control"]]) == 1


def test_mps_refusals(monkeypatch, tmp_path):
    """No daemon binary, a daemon that does not start, MIG devices, dask-cuda asked for: errors, and
    nothing left behind."""
    import shutil
    import subprocess
    import tempfile
    monkeypatch.setattr(cvdask, "visible_gpus", lambda: ["0"])
    monkeypatch.setattr(tempfile, "mkdtemp", lambda prefix: str(tmp_path / "mps"))
    monkeypatch.setattr(subprocess, "run", _FakeRun(start_rc=1))
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="not on PATH"):
        cvdask.gpu_cluster(mps=True)
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/" + name)
    with pytest.raises(RuntimeError, match="did not start .*no MPS here"):
        cvdask.gpu_cluster(mps=True)
    assert not (tmp_path / "mps").exists()
    with pytest.raises(ValueError, match="MIG"):
        cvdask.gpu_cluster(gpus=["MIG-1234"], mps=True)
    with pytest.raises(ValueError, match="use_dask_cuda"):
        cvdask.gpu_cluster(mps=True, use_dask_cuda=True)
    assert cvdask._gpu_uuids(["GPU-x", "GPU-y"]) == ["GPU-x", "GPU-y"]  # (no nvidia-smi needed)


@needs_two_gpus
def test_two_gpus_under_a_private_mps_daemon(cluster_config, tmp_path):
    """gpu_cluster(2, workers_per_gpu=2, mps=True): the four workers run on the two GPUs through the
    cluster's own MPS daemon (its pipe folder in their environment), give the plain loop's results
    in order, and the daemon's folders are gone after the cluster closes."""
    specs = bench.image_specs(24, seed=11)
    with cvdask.gpu_cluster(2, threads_per_worker=1, workers_per_gpu=2, mps=True, cpu_fallback=False) as cluster, \
            Client(cluster) as client:
        client.wait_for_workers(4, timeout=120)
        root = cluster.cvgpu_mps.root
        infos = list(client.run(cvdask.worker_info).values())
        assert len(infos) == 4 and {i["backend"] for i in infos} == {"cuda"}
        assert len({i["CUDA_VISIBLE_DEVICES"] for i in infos}) == 2
        pipes = client.run(lambda: os.environ.get("CUDA_MPS_PIPE_DIRECTORY"))
        assert set(pipes.values()) == {os.path.join(root, "pipe")}
        results = cvdask.map_images(spec_table, specs, client=client, read=_spec, batch_size=3, progress=False)
        assert [r.item for r in results] == specs and all(r.ok for r in results)
        for r, spec in zip(results, specs):
            assert same_table(r.value[0], bench.cv2_table(bench.make_mask(spec))), spec
    assert not os.path.exists(root)


def big_rows(image):
    """A result that pickles over _PUSH_MAX: its task's rows go as the task's result."""
    return np.full(cvdask._PUSH_MAX + 1, image.shape[0] % 256, np.uint8)


def test_small_rows_come_with_their_tasks_end(client, image_dir, monkeypatch):
    """Tasks push rows that pickle small to their client's topic ahead of their end (_push_rows):
    map_images takes them as they came, gathers none of them, and returns what a plain loop gives,
    for paths and for a dask array's chunks; rows over _PUSH_MAX are gathered as before, with the
    same results. Nothing is left behind."""
    paths = good_paths(image_dir)
    gathered = []
    real = client.gather

    def counting(futures, *args, **kwargs):
        gathered.extend(futures)
        return real(futures, *args, **kwargs)
    monkeypatch.setattr(client, "gather", counting)
    for func, gathers in ((measure_otsu, 0), (big_rows, len(paths) // 2)):
        want = [func(cv2.imread(p, cv2.IMREAD_UNCHANGED)) for p in paths]
        gathered.clear()
        res = cvdask.map_images(func, paths, client=client, batch_size=2, progress=False, families=())
        assert all(r.ok and same_table(r.value, w) for r, w in zip(res, want)) and len(res) == len(want)
        assert len(gathered) == gathers, (func.__name__, len(gathered))
        assert not cvdask._pushed
    # a dask array's chunks push their rows the same way
    frames = da.from_array(np.stack([cv2.imread(p, cv2.IMREAD_UNCHANGED) for p in paths]), chunks=(3, -1, -1))
    want = [measure_otsu(f) for f in frames.compute()]
    gathered.clear()
    res = cvdask.map_images(measure_otsu, frames, client=client, progress=False, families=())
    assert all(r.ok and same_table(r.value, w) for r, w in zip(res, want)) and len(res) == len(want)
    assert gathered == [] and not cvdask._pushed
