"""The kernels shipped compiled ahead of time (kernels/_aot/) are those of the sources: a .cu or
header that changed without its fatbin being rebuilt (python3 tools/build_kernels.py) fails here,
on any machine, without nvcc or a GPU."""
import json
import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import build_kernels  # noqa: E402

from cvgpu import _kernels  # noqa: E402

MANIFEST = ROOT / "kernels" / _kernels.AOT_DIR / "manifest.json"


def test_every_module_has_a_fresh_binary():
    manifest = json.loads(MANIFEST.read_text())
    stale = build_kernels.stale(manifest)
    assert stale == [], "rebuild with `python3 tools/build_kernels.py`: %s" % stale


def test_the_manifest_covers_the_shipped_architectures():
    manifest = json.loads(MANIFEST.read_text())
    assert tuple(manifest["archs"]) == _kernels.AOT_ARCHS
    assert 90 in manifest["archs"]


def test_a_stale_binary_is_never_loaded(monkeypatch):
    family, options = build_kernels.modules()[0]
    manifest = dict(json.loads(MANIFEST.read_text()), dir=str(MANIFEST.parent))
    monkeypatch.setattr(_kernels, "_manifest", [manifest])
    assert _kernels._aot_path(family, options, 90) is not None
    entry = manifest["modules"][_kernels.aot_key(family, options)]
    monkeypatch.setitem(entry, "source_sha256", "0" * 64)
    assert _kernels._aot_path(family, options, 90) is None
    monkeypatch.setitem(entry, "source_sha256", _kernels.source_hash(family, options))
    assert _kernels._aot_path(family, options, 75) is None           # an architecture not built
    monkeypatch.setenv("CVGPU_KERNELS", "nvrtc")
    assert _kernels._aot_path(family, options, 90) is None           # run-time compilation forced


@pytest.mark.gpu
def test_gpu_modules_load_from_the_shipped_binaries():
    if os.environ.get("CVGPU_KERNELS") == "nvrtc":
        pytest.skip("run-time compilation forced")
    import numpy as np

    import cvgpu
    if _kernels.compute_capability() not in _kernels.AOT_ARCHS:
        pytest.skip("no shipped binary for this architecture: NVRTC by design")
    img = np.zeros((64, 64), np.uint8)
    img[10, :] = 255
    cvgpu.HoughLines(img, 1, np.pi / 180, 20)
    cvgpu.findContours(img, 3, 2)
    origins = _kernels.module_origins()
    assert origins and set(origins.values()) == {"aot"}, origins
