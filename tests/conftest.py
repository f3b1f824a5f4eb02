"""Shared test machinery: the ``gpu`` marker, hypothesis profiles, compat-matrix recording.

Profiles: ``ci`` (default, short) and ``device`` (>= 10,000 examples per property), chosen with
``--hypothesis-profile=device`` or ``HYPOTHESIS_PROFILE=device``. When ``CVGPU_COMPAT_LOG`` names
a file, every equality check is appended to it as one JSON line; compat_matrix/generate.py turns
those lines into compat_matrix/results.json.
"""
import json
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

import cvgpu

settings.register_profile("ci", max_examples=40, deadline=None, derandomize=True,
                          suppress_health_check=list(HealthCheck))
settings.register_profile("device", max_examples=10_000, deadline=None,
                          suppress_health_check=list(HealthCheck))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

HAS_GPU = cvgpu.backend() == "cuda"


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

    def check(self, function, variant, ours, reference_result, reference="cv2-cpu"):
        """Record and assert cv2-exact equality of one case."""
        exact = same(ours, reference_result)
        self.record(function, variant, exact, reference)
        assert exact, "%s/%s differs from %s:\nours=%r\nref=%r" % (function, variant, reference, ours,
                                                                    reference_result)


@pytest.fixture(scope="session")
def compat():
    return CompatRecorder(os.environ.get("CVGPU_COMPAT_LOG"))
