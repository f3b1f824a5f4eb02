"""tests/conftest.py's stall watchdog: an item past CVGPU_STALL_S gets its stack written to
CVGPU_STALL_DIR and its process ends, so that xdist re-hands the queued items (device runs)."""
import os
import subprocess
import sys
import textwrap


def test_a_stalled_item_is_dumped_and_its_process_ends(tmp_path):
    tests = tmp_path / "t"
    tests.mkdir()
    (tests / "test_slow.py").write_text(textwrap.dedent("""
        import time

        def test_fast():
            pass

        def test_stalls():
            time.sleep(30)
    """))
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    (tests / "conftest.py").write_text(textwrap.dedent("""
        import importlib.util, sys
        sys.path.insert(0, %r)
        spec = importlib.util.spec_from_file_location("cvgpu_tests_conftest", %r)
        root = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(root)
        pytest_runtest_protocol = root.pytest_runtest_protocol
    """ % (os.path.join(root, "models"), os.path.join(root, "conftest.py"))))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "CVGPU_STALL"))}
    env.update(CVGPU_STALL_DIR=str(tmp_path / "stalls"), CVGPU_STALL_S="2")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tests)],
                          capture_output=True, text=True, env=env, cwd=str(tmp_path), timeout=120)
    assert proc.returncode != 0                       # the process ended inside test_stalls
    text = (tmp_path / "stalls" / "stall-main.txt").read_text()
    assert "test_fast: started" in text and "test_stalls: started" in text
    assert "time.sleep(30)" in text or "test_stalls" in text.split("test_stalls: started", 1)[1]
    assert "Timeout" in text                          # faulthandler's dump header


def test_a_device_run_without_a_gpu_stops(tmp_path):
    """CVGPU_REQUIRE_GPU=1 (run_device.sh) and no usable GPU: pytest stops with the reason instead
    of skipping every GPU test (run here where there is no GPU; skipped where there is one)."""
    import pytest
    from conftest import HAS_GPU
    if HAS_GPU:
        pytest.skip("needs a machine without a usable GPU")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["CVGPU_REQUIRE_GPU"] = "1"
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           os.path.join(root, "test_versions.py"), "-k", "nothing_matches_this"],
                          capture_output=True, text=True, env=env, cwd=os.path.dirname(root), timeout=300)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "CVGPU_REQUIRE_GPU=1 but there is no usable GPU" in proc.stdout + proc.stderr
