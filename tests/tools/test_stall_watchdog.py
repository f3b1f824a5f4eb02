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
