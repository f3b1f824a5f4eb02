"""The Hough families' launch plans on the CPU: the call words and kernel arguments that
cvgpu._graphs declares by name against the kernel sources, and the plans run end to end on a
host-memory stand-in for CuPy (tools/fake_cupy.py), where every collection and maxima kernel must
read its own call's image, threshold and output pointer. The GPU tests check the results."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cvgpu import _kernels
from cvgpu.cuda import hough as detector
from cvgpu.hough import _voting, lines

ROOT = Path(__file__).resolve().parents[2]


def _defines(family):
    return {name: int(value) for name, value in
            re.findall(r"^#define (\w+) (\d+)\s*$", _kernels.kernel_source(family), re.M)}


@pytest.mark.parametrize("module,prefix", [(lines, "LINES"), (detector, "CH")])
def test_call_words_match_the_kernel_file(module, prefix):
    """Each word the Python plan declares is the index the kernels read it at (HOUGH_WORD_* for the
    image's words both families share, then the family's own), and the lean graph keeps exactly the
    image's words."""
    defines = _defines(module.FAMILY)
    words = module.WORDS
    assert words.names[:3] == tuple(name for name, _ in _voting.IMAGE_WORDS)
    for i, name in enumerate(words.names):
        macro = ("HOUGH" if i < len(_voting.IMAGE_WORDS) else prefix) + "_WORD_" + name.upper()
        assert defines[macro] == i, macro
    assert defines[prefix + "_WORDS"] == words.count
    assert defines["HOUGH_IMAGE_WORDS"] == words.lean_keeps == len(_voting.IMAGE_WORDS)


def test_plans_run_on_a_host_stand_in_for_cupy():
    """tools/hot_path_ops.py: every path of both families (fast, hot, full argument layer, direct
    launches, forced voting variants and grids, streams, output arguments) on fake CuPy; it fails
    when a kernel reads another call's words or a launch's arguments are not the kernel's
    parameters in order."""
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "hot_path_ops.py")], capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 wrong" in run.stdout, run.stdout
