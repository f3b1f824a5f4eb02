"""Shared test machinery: the ``gpu`` marker, hypothesis profiles, compat-matrix recording.

Profiles: ``ci`` (default, short) and ``device`` (>= 10,000 examples per property), chosen with
``--hypothesis-profile=device`` or ``HYPOTHESIS_PROFILE=device``. ``CVGPU_PROPERTY_SHARDS=N`` splits
every hypothesis property into N pytest items of ceil(max_examples / N) examples each, so that
pytest-xdist spreads one property's 10,000 examples over N workers (a property is otherwise one
item, and the slowest one alone outlasts a device call). When ``CVGPU_COMPAT_LOG`` names
a file, every equality check is appended to it as one JSON line; compat_matrix/generate.py turns
those lines into compat_matrix/results.json.
"""
import json
import os
import sys

import numpy as np
import pytest
from hypothesis import Phase, settings
from hypothesis.internal.conjecture import engine as _hypothesis_engine

import cvgpu
from cvgpu import _versions

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "models"))  # tests/models: the CPU models

# Examples of a property in the device profile: the compat matrix's rows that the README calls exact
# need at least 10,000 cases each whose reference answer is non-empty (see ``examples``).
DEVICE_EXAMPLES = 10_000

# Health checks are on in every profile; a test that needs one off says why beside its settings.
settings.register_profile("ci", max_examples=40, deadline=None, derandomize=True)
settings.register_profile("device", max_examples=DEVICE_EXAMPLES, deadline=None)
# Triage of a slow device run: the device profile without shrinking (a failure is reported at once).
settings.register_profile("device-noshrink", parent=settings.get_profile("device"),
                          phases=[Phase.explicit, Phase.reuse, Phase.generate])
# Profiles without shrinking, for surveys of many cv2 releases (a failure reported at once).
settings.register_profile("ci-noshrink", parent=settings.get_profile("ci"), database=None,
                          phases=[Phase.explicit, Phase.generate])
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
settings.load_profile(PROFILE)

# Bounded shrinking: hypothesis shrinks a failure for up to 300 s (and 500 shrinks) per test, which
# let one failing property on a new cv2 run past half an hour. Seconds of shrinking per failing test,
# per profile; hypothesis keeps the limit in its engine module (tests/test_versions-style guard: a
# hypothesis that renames it fails here, loudly, rather than shrinking unbounded).
SHRINK_SECONDS = {"ci": 10, "device": 60}


def _bound_shrinking(seconds):
    from hypothesis.internal.conjecture import engine
    if not hasattr(engine, "MAX_SHRINKING_SECONDS"):
        raise RuntimeError("hypothesis no longer has engine.MAX_SHRINKING_SECONDS: bound shrinking "
                           "another way in tests/conftest.py")
    engine.MAX_SHRINKING_SECONDS = seconds


_bound_shrinking(SHRINK_SECONDS.get(PROFILE, 10))

# The cv2 these tests run against: tests that depend on a release's behaviour ask _versions (the
# table checked against cv2 by tests/test_versions.py). CVGPU_EXPECT_CV2=5.0 makes a run that imported
# another cv2 stop at once (the CI matrix sets it per row).
EXPECT_CV2 = os.environ.get("CVGPU_EXPECT_CV2")


def pytest_report_header(config):
    import cv2
    return ["cv2 %s from %s; cvgpu follows OpenCV %s (%s); hypothesis profile %s, shrinking <= %d s" % (
        cv2.__version__, os.path.dirname(cv2.__file__ or "?"), _versions.version_text(_versions.effective()),
        _versions.status(), PROFILE, SHRINK_SECONDS.get(PROFILE, 10))]


def pytest_sessionstart(session):
    import cv2
    if EXPECT_CV2 and not (cv2.__version__ + ".").startswith(EXPECT_CV2.rstrip(".") + "."):
        pytest.exit("CVGPU_EXPECT_CV2=%s but the cv2 imported is %s (%s)" % (EXPECT_CV2, cv2.__version__,
                                                                           cv2.__file__), returncode=3)
    # A device run (compat_matrix/run_device.sh sets it): without a usable GPU every GPU test would
    # skip and the run would look clean; stop instead, with the reason.
    if os.environ.get("CVGPU_REQUIRE_GPU") == "1" and not HAS_GPU:
        pytest.exit("CVGPU_REQUIRE_GPU=1 but there is no usable GPU: %s" % cvgpu.fallback_reason(), returncode=3)

# Bounded shrinking: a failing property reports its (partly shrunk) example after at most this many
# seconds of shrinking (hypothesis' own cap is 300 s, and 500 successful shrinks; both are documented
# as settable). The device run's properties take up to tens of milliseconds an example, so a minute
# of shrinking is thousands of tries; a device call is 10 minutes in all.
SHRINK_SECONDS = int(os.environ.get("CVGPU_SHRINK_SECONDS", "60"))
_hypothesis_engine.MAX_SHRINKING_SECONDS = SHRINK_SECONDS


def device_profile():
    """Whether the loaded hypothesis profile is the device run's (at least DEVICE_EXAMPLES examples)."""
    return settings.default.max_examples >= DEVICE_EXAMPLES


# Triage or timing of a device run: CVGPU_EXAMPLES_SCALE=0.1 runs a tenth of every property's
# device-profile examples (the rows then miss their 10,000 cases).
EXAMPLES_SCALE = float(os.environ.get("CVGPU_EXAMPLES_SCALE", "1"))


def examples(device_count):
    """``max_examples`` of a property whose device-profile count is set by its compat row:
    ``device_count`` (times CVGPU_EXAMPLES_SCALE) under a profile of at least DEVICE_EXAMPLES examples,
    the profile's own count (ci: 40) when that is fewer. Read when the test module is imported (after
    the profile is loaded)."""
    if device_profile():
        return max(1, int(device_count * EXAMPLES_SCALE))
    return min(settings.default.max_examples, device_count)


# The suite tests the GPU path: every call goes to the GPU (where there is one), as CVGPU_ENGINE=cuda
# does; tests/test_engine.py switches the engine itself. CVGPU_TEST_ENGINE=auto runs it as users do.
cvgpu.set_engine(os.environ.get("CVGPU_TEST_ENGINE", "cuda"))
HAS_GPU = cvgpu.backend() == "cuda"
if HAS_GPU and os.environ.get("CVGPU_TEST_NO_MEMORY_POOL"):
    # Under compute-sanitizer: one cudaMalloc per array, so memcheck sees each array's own bounds
    # (inside a pooled chunk an overrun would land in a neighbour and go unseen).
    import cupy
    cupy.cuda.set_allocator(None)
    cupy.cuda.set_pinned_memory_allocator(None)
PROPERTY_SHARDS = max(1, int(os.environ.get("CVGPU_PROPERTY_SHARDS", "1")))


def shard_selection(text, shards):
    """The shards ``A:B`` (CVGPU_SHARD_SELECT) of every sharded property that this pytest runs:
    range(A, B); every shard when ``text`` is empty. One device run can so spread its properties
    over several calls, each the same share of every property (the first call's time tells the
    others'); the items that are not shards run once, in the call that holds shard 0."""
    if not text:
        return range(shards)
    try:
        first, end = (int(v) for v in text.split(":"))
    except ValueError:
        raise pytest.UsageError("CVGPU_SHARD_SELECT=%r: expected A:B" % text)
    if not 0 <= first < end <= shards:
        raise pytest.UsageError("CVGPU_SHARD_SELECT=%r: needs 0 <= A < B <= CVGPU_PROPERTY_SHARDS (%d)"
                                % (text, shards))
    return range(first, end)


SHARD_SELECT = shard_selection(os.environ.get("CVGPU_SHARD_SELECT", ""), PROPERTY_SHARDS)


def pytest_generate_tests(metafunc):
    test = metafunc.function
    if PROPERTY_SHARDS == 1 or not getattr(test, "is_hypothesis_test", False):
        return
    whole = getattr(test, "_hypothesis_internal_use_settings", None) or settings.default
    # subshards(k): each shard is k items, for properties whose examples are long (the watchdog
    # ends an item after CVGPU_STALL_S, and one long item sets a part's wall time).
    marker = metafunc.definition.get_closest_marker("subshards")
    k = int(marker.args[0]) if marker else 1
    if not getattr(test, "_cvgpu_sharded", False):
        # Read by hypothesis when the test runs; every shard draws its own random examples
        # (the device profile is not derandomized), together at least max_examples.
        test._hypothesis_internal_use_settings = settings(
            whole, max_examples=-(-whole.max_examples // (PROPERTY_SHARDS * k)))
        test._cvgpu_sharded = True
    if k == 1:
        metafunc.parametrize("property_shard", SHARD_SELECT, indirect=True)
    else:
        items = [(s, j) for s in SHARD_SELECT for j in range(k)]
        metafunc.parametrize("property_shard", items, indirect=True, ids=["%d.%d" % i for i in items])


@pytest.fixture(autouse=True)
def property_shard(request):
    """Which part of a sharded hypothesis property this item runs (0 when not sharded)."""
    return getattr(request, "param", 0)


def pytest_collection_modifyitems(config, items):
    if SHARD_SELECT.start > 0:
        # Not the call with shard 0: the items that are not shards ran there.
        shard = ["property_shard" in getattr(getattr(i, "callspec", None), "params", {}) for i in items]
        config.hook.pytest_deselected(items=[i for i, s in zip(items, shard) if not s])
        items[:] = [i for i, s in zip(items, shard) if s]
    if HAS_GPU:
        return
    skip = pytest.mark.skip(reason="no usable GPU: %s" % cvgpu.fallback_reason())
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def same(a, b):
    """cv2-exact equality: both None, or same type of container, shape, dtype and bits."""
    if a is None or b is None:
        return a is None and b is None
    a = a.get() if hasattr(a, "get") and not isinstance(a, np.ndarray) else a
    b = b.get() if hasattr(b, "get") and not isinstance(b, np.ndarray) else b
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    return a.tobytes() == b.tobytes()


def spin(cp, stream, seconds):
    """A one-thread kernel on ``stream`` that keeps it busy for about ``seconds`` (GPU tests that
    need work still queued when a call returns)."""
    kernel = cp.RawKernel(r'''
extern "C" __global__ void cvgpu_test_spin(long long cycles) {
    long long start = clock64();
    while (clock64() - start < cycles) { }
}''', "cvgpu_test_spin")
    khz = cp.cuda.Device().attributes["ClockRate"]
    with stream:
        kernel((1,), (1,), (np.int64(khz * 1000 * seconds),))


def _trivial(result):
    """True when a reference result holds nothing: None, an empty array, or a tuple/list of such."""
    if result is None:
        return True
    if isinstance(result, (tuple, list)):
        return all(_trivial(r) for r in result)
    size = getattr(result, "size", None)
    return size == 0 if size is not None else False


def kind_of(result):
    """The recorder's kind of a reference answer: "empty" (None, or only empty arrays: a findContours
    result without contours) or "result"."""
    return "empty" if _trivial(result) else "result"


def _input_facts(inputs):
    """(digest, long side) of a case's inputs: arrays by shape, dtype and bytes, other values by repr;
    the long side is the largest of the arrays' two leading dimensions (None without an array)."""
    import hashlib
    h, side = hashlib.sha256(), None
    for x in inputs if isinstance(inputs, (tuple, list)) else (inputs,):
        if hasattr(x, "__cuda_array_interface__") and hasattr(x, "get"):
            x = x.get()
        if isinstance(x, np.ndarray):
            h.update(repr((x.shape, x.dtype.str)).encode())
            h.update(np.ascontiguousarray(x).tobytes())
            if x.ndim >= 1:
                side = max(side or 0, *x.shape[:2])
        else:
            h.update(repr(x).encode())
    return h.hexdigest()[:20], side


class CompatRecorder:
    """One JSON line per compared case (CVGPU_COMPAT_LOG): function, variant, reference, backend
    (what computed cvgpu's result: ``cvgpu.last_call_backend()``), exact, kind ("result": the
    reference returned something; "empty": it returned None or only empty arrays; "error": it raised,
    an argument error), and, when the test passes ``inputs``, a digest of the inputs (distinct cases)
    and the image's long side (the size distribution). compat_matrix/generate.py counts them."""

    def __init__(self, path):
        self.path = path

    def record(self, function, variant, exact, reference="cv2-cpu", backend=None, kind="result", inputs=None):
        if not self.path:
            return
        if backend is None:
            backend = cvgpu.last_call_backend() or "none"
        row = {"function": function, "variant": variant, "reference": reference,
               "backend": "none" if kind == "error" else backend, "exact": bool(exact), "kind": kind}
        if inputs is not None:
            row["input"], row["side"] = _input_facts(inputs)
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        with open("%s.%s" % (self.path, worker), "a") as fh:
            fh.write(json.dumps(row) + "\n")

    def check(self, function, variant, ours, reference_result, reference="cv2-cpu", backend=None, inputs=None,
              kind=None):
        """Record and assert cv2-exact equality of one case. ``kind``: the reference's kind of answer
        when ``reference_result`` is a digest of it (e.g. findContours' signature array: pass
        ``kind_of`` of cv2's own result); by default the kind of ``reference_result``."""
        exact = same(ours, reference_result)
        self.record(function, variant, exact, reference, backend, kind or kind_of(reference_result), inputs)
        assert exact, "%s/%s differs from %s:\nours=%r\nref=%r" % (function, variant, reference, ours,
                                                                    reference_result)


@pytest.fixture(scope="session")
def compat():
    return CompatRecorder(os.environ.get("CVGPU_COMPAT_LOG"))


# ---------------------------------------------------------------- stalled items (device runs)
# CVGPU_STALL_DIR=DIR and CVGPU_STALL_S=N: an item that runs more than N seconds gets every thread's
# stack written to DIR/stall-<worker>.txt, headed by its node id, and its worker process then ends
# (faulthandler's exit): xdist reports that item as crashed, starts a new worker and hands it the
# items that were queued behind. Two device runs lost a whole pytest to one such item (tests/cuda,
# compat_matrix/raw/device-profile-5de1e23/README.md), and pytest's own faulthandler_timeout wrote
# its dump to the xdist worker's stderr, which no log keeps.
_STALL_DIR = os.environ.get("CVGPU_STALL_DIR")
_STALL_S = float(os.environ.get("CVGPU_STALL_S", "240"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if not _STALL_DIR:
        yield
        return
    import faulthandler
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    os.makedirs(_STALL_DIR, exist_ok=True)
    fh = open(os.path.join(_STALL_DIR, "stall-%s.txt" % worker), "a")
    fh.write("\n== %s: started (stack below if it ran past %g s)\n" % (item.nodeid, _STALL_S))
    fh.flush()
    faulthandler.dump_traceback_later(_STALL_S, repeat=False, file=fh, exit=True)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()
        fh.close()
