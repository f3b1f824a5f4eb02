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
from hypothesis import HealthCheck, Phase, settings

import cvgpu
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "models"))  # tests/models: the CPU models

settings.register_profile("ci", max_examples=40, deadline=None, derandomize=True,
                          suppress_health_check=list(HealthCheck))
settings.register_profile("device", max_examples=10_000, deadline=None,
                          suppress_health_check=list(HealthCheck))
# Triage of a slow device run: the device profile without shrinking (a failure is reported at once).
settings.register_profile("device-noshrink", parent=settings.get_profile("device"),
                          phases=[Phase.explicit, Phase.reuse, Phase.generate])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

HAS_GPU = cvgpu.backend() == "cuda"
if HAS_GPU and os.environ.get("CVGPU_TEST_NO_MEMORY_POOL"):
    # Under compute-sanitizer: one cudaMalloc per array, so memcheck sees each array's own bounds
    # (inside a pooled chunk an overrun would land in a neighbour and go unseen).
    import cupy
    cupy.cuda.set_allocator(None)
    cupy.cuda.set_pinned_memory_allocator(None)
PROPERTY_SHARDS = max(1, int(os.environ.get("CVGPU_PROPERTY_SHARDS", "1")))


def pytest_generate_tests(metafunc):
    test = metafunc.function
    if PROPERTY_SHARDS == 1 or not getattr(test, "is_hypothesis_test", False):
        return
    whole = getattr(test, "_hypothesis_internal_use_settings", None) or settings.default
    if not getattr(test, "_cvgpu_sharded", False):
        # Read by hypothesis when the test runs; every shard draws its own random examples
        # (the device profile is not derandomized), together at least max_examples.
        test._hypothesis_internal_use_settings = settings(
            whole, max_examples=-(-whole.max_examples // PROPERTY_SHARDS))
        test._cvgpu_sharded = True
    metafunc.parametrize("property_shard", range(PROPERTY_SHARDS), indirect=True)


@pytest.fixture(autouse=True)
def property_shard(request):
    """Which part of a sharded hypothesis property this item runs (0 when not sharded)."""
    return getattr(request, "param", 0)


def pytest_collection_modifyitems(config, items):
    if HAS_GPU:
        return
    skip = pytest.mark.skip(reason="no usable CUDA GPU: %s" % cvgpu.fallback_reason())
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


class CompatRecorder:
    def __init__(self, path):
        self.path = path

    def record(self, function, variant, exact, reference="cv2-cpu", backend=None):
        if not self.path:
            return
        row = {"function": function, "variant": variant, "reference": reference,
               "backend": backend or cvgpu.last_call_backend() or cvgpu.backend(), "exact": bool(exact)}
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        with open("%s.%s" % (self.path, worker), "a") as fh:
            fh.write(json.dumps(row) + "\n")

    def check(self, function, variant, ours, reference_result, reference="cv2-cpu", backend=None):
        """Record and assert cv2-exact equality of one case."""
        exact = same(ours, reference_result)
        self.record(function, variant, exact, reference, backend)
        assert exact, "%s/%s differs from %s:\nours=%r\nref=%r" % (function, variant, reference, ours,
                                                                    reference_result)


@pytest.fixture(scope="session")
def compat():
    return CompatRecorder(os.environ.get("CVGPU_COMPAT_LOG"))
