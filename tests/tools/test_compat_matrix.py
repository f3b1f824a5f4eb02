"""compat_matrix/results.json describes the committed code: its source digest must match."""
import json
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]  # tests/tools/ -> the repository
sys.path.insert(0, str(ROOT / "compat_matrix"))
import generate  # noqa: E402

RESULTS = ROOT / "compat_matrix" / "results.json"


def _in_git_checkout():
    return shutil.which("git") is not None and subprocess.run(
        ["git", "rev-parse", "--is-inside-work-tree"], cwd=ROOT, capture_output=True).returncode == 0


def test_results_schema():
    result = json.loads(RESULTS.read_text())
    for key in ("source_digest", "device", "cv2_version", "cupy_version", "generated", "rows", "bench"):
        assert key in result
    for row in result["rows"]:
        assert set(row) >= {"function", "variant", "reference", "backend", "cases", "exact"}
        assert 0 <= row["exact"] <= row["cases"]
        assert row["backend"] in ("cuda", "cv2")
    for b in result["bench"]:
        assert set(b) >= {"function", "workload", "cv2_ms", "cvgpu_ms", "speedup", "io"}
        assert b["io"] in ("numpy", "device")


@pytest.mark.skipif(not _in_git_checkout(), reason="the digest covers git-tracked files; no git checkout here")
def test_recorded_digest_matches_committed_sources():
    recorded = json.loads(RESULTS.read_text())["source_digest"]
    assert recorded == generate.source_digest(ROOT), (
        "compat_matrix/results.json was generated from other sources: run the GPU suite on the device "
        "(compat_matrix/run_device.sh) and regenerate it")


def test_readme_table_is_generated_from_results():
    result = json.loads(RESULTS.read_text())
    assert (ROOT / "compat_matrix" / "README.md").read_text() == generate.readme(result, result.get("pytest", ""))
