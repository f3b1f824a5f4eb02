"""The shared step of hp_round_ends.py and hp_fast_forward.py: kernels/hough/probabilistic.cu built
for the host (tests/hough/test_hough_p_kernel_host.py's prelude) with counters added by text
edits, and the counters read back. Run those scripts from the repository root."""
import ctypes
import pathlib
import subprocess
import sys
import tempfile

sys.path[:0] = ['tests', 'tests/models', 'tests/hough']
import test_hough_p_kernel_host as T  # noqa: E402
from cvgpu import _kernels  # noqa: E402


def source():
    return (_kernels._source_dirs()[1] / "hough" / "probabilistic.cu").read_text()


def build(edits, counters_before):
    """(lib, counters): the kernel with each (old, new) of ``edits`` applied once and
    ``long long hp_cnt[16]`` declared before the line ``counters_before``."""
    src = original = source()
    for old, new in edits:
        assert src.count(old) == 1, old
        src = src.replace(old, new)
    at = src.index(counters_before)
    src = src[:at] + 'extern "C" { long long hp_cnt[16]; }\n' + src[at:]
    d = pathlib.Path(tempfile.mkdtemp())
    cpp, so = d / "hp.cpp", d / "hp.so"
    cpp.write_text(T.PRELUDE + src)
    r = subprocess.run(["g++", "-O2", "-std=c++14", "-ffp-contract=off", "-fno-fast-math", "-shared", "-fPIC", "-o",
                        str(so), str(cpp)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    lib = ctypes.CDLL(str(so))
    lib.signatures = T.signatures(original)
    return lib, (ctypes.c_longlong * 16).in_dll(lib, "hp_cnt")
