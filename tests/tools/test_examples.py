"""The examples/ scripts of issue 40 section 3, each run through `cvgpu compare` in its quick mode.

Each script runs twice (cv2, then cvgpu as cv2); both runs must exit 0, make the same accelerated
calls with identical outputs, and print the same result line. On a machine without a GPU cvgpu
computes with cv2, so this checks the scripts and the plumbing; on the GPU machine the same test
compares cvgpu's kernels with cv2 on realistic inputs.
"""
import json
import pathlib
import re

import cv2
import numpy as np
import pytest

from cvgpu import _compare as compare, _versions
from cvgpu.ximgproc import radon
from cvgpu.__main__ import main as cli

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"

# script, its quick arguments, the accelerated calls it makes, its result line (one per run), the
# files it writes (with the first line of a CSV)
CASES = [
    ("document_scanner.py", ["--quick", "--synthetic", "--output-dir", "scans"], ["findContours"],
     r"^3 photos 1280x960: page found in 3 ", {"scans/scan_003.png": None}),
    ("measure_parts.py", ["--quick", "--csv", "parts.csv"], ["findContours"],
     r"^3 frames 1280x1024: \d+ parts measured of \d+ placed ",
     {"parts.csv": "frame,part,area,perimeter,x,y,w,h,rect_w,rect_h,angle,holes,ok"}),
    ("photo_lines.py", ["--quick", "--synthetic", "--output-dir", "lines"], ["HoughLines"],
     r"^synthetic photos, 4 images x 1: \d+ edge points, \d+ lines ", {"lines/facade_512x512.png": None}),
    ("video_lines.py", ["--quick", "--output", "last.png"], ["HoughLines"],
     r"^6 frames 1280x720, threshold 160: \d+ edge points/frame, \d+ lines ", {"last.png": None}),
    ("scan_archive.py", ["--quick", "--csv", "pages.csv"], ["findContours"],
     r"^4 spreads 1920x1080: \d+ contours, \d+ glyphs ",
     {"pages.csv": "page,contours,glyphs,holes,cells,tables,stamps"}),
    ("cell_count.py", ["--quick"], ["findContours"], r"^1 field\(s\) 1024x1024: \d+ objects, ", {}),
    ("ct_sinogram.py", ["--quick", "--synthetic", "--output", "sino.png"], ["ximgproc.RadonTransform"],
     r"^2 slices 256x256, 180 angles: sinograms 363x180, ", {"sino.png": None}),
    ("lane_lines.py", ["--quick", "--synthetic", "--output", "lanes.png"], ["HoughLinesP"],
     r"^3 frames 1280x720 \(synthetic\): \d+ segments, \d+ left, \d+ right", {"lanes.png": None}),
]


def _compare(script, args, tmp_path, monkeypatch, capfd, gpu=False):
    if script == "ct_sinogram.py" and not hasattr(cv2, "ximgproc"):
        pytest.skip("cv2 has no ximgproc (opencv-contrib)")
    if script == "ct_sinogram.py" and gpu and _versions.behaviour("radon.warp") == "fixed_point":
        pytest.skip("beside 4.x cv2 computes RadonTransform (its fixed-point warp)")
    monkeypatch.chdir(tmp_path)
    rc = cli(["compare", "--json", "compare.json", str(EXAMPLES / script)] + args)
    out = capfd.readouterr().out
    return rc, out, json.loads((tmp_path / "compare.json").read_text())


@pytest.mark.parametrize("script,args,calls,result,files", CASES, ids=[c[0] for c in CASES])
def test_example_under_compare(script, args, calls, result, files, tmp_path, monkeypatch, capfd):
    rc, out, report = _compare(script, args, tmp_path, monkeypatch, capfd)
    assert rc == 0, out
    assert report["runs"]["cv2"]["exit"] == 0 and report["runs"]["cvgpu"]["exit"] == 0
    assert report["identical"] is True

    by = {f["function"]: f for f in report["functions"]}
    for f in report["functions"]:
        assert f["identical"] is True, f
        assert f["cv2"]["calls"] == f["cvgpu"]["calls"]
    accelerated = compare.accelerated_names()
    for name in calls:
        if name in accelerated:
            assert by[name]["cv2"]["calls"] > 0, name
        else:  # not computed by cvgpu in this build: nothing to time
            assert name not in by

    lines = [line for line in out.splitlines() if re.search(result, line)]
    assert len(lines) == 2 and lines[0] == lines[1], out  # the script's own result, from both runs
    for path, header in files.items():
        data = (tmp_path / path).read_bytes()
        if header is None:
            assert data[:8] == b"\x89PNG\r\n\x1a\n", path
        else:
            assert data.decode().splitlines()[0] == header and len(data.decode().splitlines()) > 2, path



@pytest.mark.gpu
@pytest.mark.parametrize("script,args,calls", [c[:3] for c in CASES], ids=[c[0] for c in CASES])
def test_example_on_the_gpu(script, args, calls, tmp_path, monkeypatch, capfd):
    """With the engine pinned to the GPU every accelerated call of the script runs in cvgpu's kernels
    (the quick modes are too short for ``auto`` to start the GPU), and still gives cv2's outputs."""
    monkeypatch.setenv("CVGPU_ENGINE", "cuda")  # the child runs inherit it
    rc, out, report = _compare(script, args, tmp_path, monkeypatch, capfd, gpu=True)
    assert rc == 0, out
    assert report["runs"]["cvgpu"]["backend"] == "cuda"
    by = {f["function"]: f for f in report["functions"]}
    for name in calls:
        assert by[name]["identical"] is True
        engine = "cuda"
        if name == "ximgproc.RadonTransform" and radon.cv2_warps_differently(np.float32):
            engine = "cv2"  # 5.1 warps float32 through IPP while it is on (the default): cv2 computes, reported
        assert by[name]["engines"] == {engine: by[name]["cvgpu"]["calls"]}, by[name]
