"""CVGPU_SHARD_SELECT (tests/conftest.py): a device run's calls split every property's shards
between them, and together collect exactly the items of one unsplit run, each once."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Hypothesis properties and plain tests side by side; collection alone needs no GPU.
TARGET = "tests/lms/test_lms_hardening.py"


def _collect(select=None, shards="4", target=TARGET):
    env = dict(os.environ, CVGPU_PROPERTY_SHARDS=shards, HYPOTHESIS_PROFILE="device")
    env.pop("CVGPU_SHARD_SELECT", None)
    if select is not None:
        env["CVGPU_SHARD_SELECT"] = select
    proc = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                           target], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    return proc.returncode, [line for line in proc.stdout.splitlines() if "::" in line], proc.stdout + proc.stderr


def test_calls_together_collect_one_run_each_item_once():
    rc, whole, out = _collect()
    assert rc == 0, out
    rc0, first, out0 = _collect("0:1")
    rc1, rest, out1 = _collect("1:4")
    assert rc0 == 0 and rc1 == 0, out0 + out1
    assert rest and first, (first, rest)
    assert not set(first) & set(rest)
    assert sorted(first + rest) == sorted(whole)
    # The later call holds shards only: three of every property's four.
    rc2, one, _ = _collect("1:2")
    assert len(rest) == 3 * len(one)
    assert len(first) > len(one)     # the call of shard 0 also runs the plain tests


@pytest.mark.parametrize("select", ["2:1", "0:5", "x", "1"])
def test_bad_selection_is_a_usage_error(select):
    rc, _, out = _collect(select)
    assert rc != 0 and "CVGPU_SHARD_SELECT" in out, out


def test_subshards_split_each_shard_into_items():
    """A property marked subshards(4) (test_hough_lines_p.py's cv2 comparison) is four items a shard,
    named shard.sub, and a selection takes all four of each of its shards."""
    rc, items, out = _collect("1:3", target="tests/hough/test_hough_lines_p.py::test_gpu_matches_cv2")
    assert rc == 0, out
    assert sorted(i.rsplit("[", 1)[1].rstrip("]") for i in items) == \
        ["%d.%d" % (s, j) for s in (1, 2) for j in range(4)], items
