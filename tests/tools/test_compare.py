"""`cvgpu compare script.py [args...]`: argument parsing, discovery of the calls cvgpu computes, hashing,
the call-by-call verdict, and real runs of the examples/ scripts (CPU backend here: cvgpu's cv2
fallback computes, so every output must be identical)."""
import json
import pathlib
import sys
import types

import cv2
import numpy as np
import pytest

import cvgpu
from cvgpu import _compare as compare
from cvgpu.__main__ import main as cli

ROOT = pathlib.Path(__file__).resolve().parents[2]  # tests/tools/ -> the repository
EXAMPLES = ROOT / "examples"


# ---------------------------------------------------------------- parsing

def test_parser_passes_everything_after_the_script_to_it():
    args = compare.build_parser().parse_args(["--json", "r.json", "s.py", "-v", "--json", "x", "in.png"])
    assert args.json == "r.json"
    assert args.script == "s.py"
    assert args.args == ["-v", "--json", "x", "in.png"]


def test_parser_requires_a_script():
    with pytest.raises(SystemExit) as exc:
        compare.build_parser().parse_args([])
    assert exc.value.code == 2


def test_missing_script(tmp_path, capsys):
    assert cli(["compare", str(tmp_path / "nope.py")]) == 2
    assert "no such script" in capsys.readouterr().err


def test_cli_usage_lists_both_commands(capsys):
    assert cli([]) == 2  # no command: usage on stderr, exit 2
    err = capsys.readouterr().err
    assert "bench" in err and "compare" in err and "selftest" in err
    assert cli(["--help"]) == 0 and "usage: cvgpu" in capsys.readouterr().out
    assert cli(["frobnicate"]) == 2


def test_version_names_every_part(capsys):
    assert cli(["--version"]) == 0
    out = capsys.readouterr().out
    assert "cvgpu %s" % cvgpu.cvgpu_version in out and "cv2 %s" % cv2.__version__ in out
    assert "cupy" in out and "device:" in out


def test_selftest_matches_the_installed_cv2(capsys):
    assert cli(["selftest", "--scale", "1", "--show", "3"]) == 0, capsys.readouterr().out
    assert "calls match cv2" in capsys.readouterr().out


def test_command_module_does_not_shadow_cv2_compare():
    # cvgpu forwards unknown names to cv2; a submodule named `compare` would replace cv2.compare.
    import importlib
    importlib.import_module("cvgpu._compare")
    assert cvgpu.compare is cv2.compare


# ---------------------------------------------------------------- discovery

def test_accelerated_names_are_what_cvgpu_computes():
    names = compare.accelerated_names()
    for name in ("HoughLines", "HoughLinesP", "HoughLinesWithAccumulator", "ximgproc.RadonTransform",
                 "cuda.createHoughLinesDetector"):
        assert name in names
    for name in ("backend", "fallback_reason", "last_call_backend", "cuda.getCudaEnabledDeviceCount",
                 "cuda.Stream_Null", "cuda.GpuMat", "cuda_GpuMat", "cvgpu_version"):
        assert name not in names
    if callable(getattr(cvgpu, "findContours", None)) and "findContours" in getattr(cvgpu, "_OWN", ()):
        assert "findContours" in names


def test_a_new_family_function_is_picked_up(monkeypatch):
    fake = types.ModuleType("cvgpu.fakefamily")

    def fakeFilter(src):
        return src

    fakeFilter.__module__ = "cvgpu.fakefamily"
    fake.fakeFilter = fakeFilter
    monkeypatch.setitem(sys.modules, "cvgpu.fakefamily", fake)
    monkeypatch.setattr(cvgpu, "fakeFilter", fakeFilter, raising=False)
    monkeypatch.setattr(cvgpu, "_OWN", set(cvgpu._OWN) | {"fakeFilter"})
    assert "fakeFilter" in compare.accelerated_names()


def test_factories():
    assert compare.is_factory("cuda.createHoughLinesDetector")
    assert not compare.is_factory("HoughLines")
    assert not compare.is_factory("cuda.created")


# ---------------------------------------------------------------- hashing

def test_digest_is_about_shape_dtype_and_bytes():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert compare.digest(a) == compare.digest(np.asfortranarray(a))  # layout does not matter
    assert compare.digest(a) != compare.digest(a.astype(np.float64))
    assert compare.digest(a) != compare.digest(a.reshape(4, 3))
    b = a.copy()
    b[2, 3] = np.nextafter(b[2, 3], np.float32(100))
    assert compare.digest(a) != compare.digest(b)
    assert compare.digest((a, None)) != compare.digest((a,))
    assert compare.digest(None) != compare.digest(())
    assert compare.digest(np.float32(1.5)) == compare.digest(1.5)
    assert compare.digest(np.zeros((0, 1, 2), np.float32)) != compare.digest(np.zeros((0, 2), np.float32))


def test_digest_downloads_device_results():
    class FakeGpuMat:
        def __init__(self, host):
            self.host = host

        def download(self):
            return self.host

    a = np.arange(6, dtype=np.int32).reshape(1, 3, 2)
    assert compare.digest(FakeGpuMat(a)) == compare.digest(a)


def test_describe():
    assert compare.describe(np.zeros((4, 5), np.uint8)) == "uint8[4, 5]"
    assert compare.describe(3) == "3"
    assert compare.describe((np.zeros(2, np.int32), 1.5)) == "(int32[2], 1.5)"
    assert compare.describe("x" * 100).endswith("...")


# ---------------------------------------------------------------- the verdict

def _rec(name, digest, seq, args=("uint8[8, 8]",), ms=1.0, engine=None, error=None):
    return {"name": name, "digest": digest, "seq": seq, "args": list(args), "kwargs": {}, "ms": ms,
            "engine": engine, "error": error}


RUNS = {"script": "s.py", "args": [], "cv2": {"exit": 0, "seconds": 1.0},
        "cvgpu": {"exit": 0, "seconds": 0.5, "backend": "cuda"}}


def test_summarize_identical_and_different(capsys):
    logs = {"cv2": [_rec("HoughLines", "a", 0, ms=10), _rec("findContours", "c", 1, ms=4),
                    _rec("HoughLines", "b", 2, ms=30)],
            "cvgpu": [_rec("HoughLines", "a", 0, ms=1, engine="cuda"),
                      _rec("findContours", "X", 1, args=("uint8[9, 9]",), engine="cuda"),
                      _rec("HoughLines", "b", 2, ms=2, engine="cuda")]}
    result = compare.summarize(logs, RUNS)
    by = {f["function"]: f for f in result["functions"]}
    assert by["HoughLines"]["identical"] is True
    assert by["HoughLines"]["cv2"] == {"calls": 2, "total_ms": 40, "median_ms": 20, "first_ms": 10}
    assert by["HoughLines"]["speedup"] == pytest.approx(20 / 1.5)
    assert by["findContours"]["identical"] is False
    assert result["identical"] is False
    assert result["first_difference"]["function"] == "findContours"
    assert result["first_difference"]["call"] == 1
    assert result["first_difference"]["cvgpu_args"]["args"] == ["uint8[9, 9]"]
    compare.print_summary(result)
    out = capsys.readouterr().out
    assert "OUTPUTS DIFFER" in out and "first difference: call 1 of findContours" in out
    assert "uint8[9, 9]" in out


def test_summarize_counts_and_one_sided_calls():
    logs = {"cv2": [_rec("HoughLines", "a", 0), _rec("HoughLines", "a", 1)],
            "cvgpu": [_rec("HoughLines", "a", 0), _rec("cuda.createHoughLinesDetector().detect", "d", 1)]}
    result = compare.summarize(logs, RUNS)
    by = {f["function"]: f for f in result["functions"]}
    assert by["HoughLines"]["identical"] is False
    assert by["HoughLines"]["first_difference"]["reason"] == "call counts differ"
    assert by["cuda.createHoughLinesDetector().detect"]["identical"] is None
    assert "only in the cvgpu run" in by["cuda.createHoughLinesDetector().detect"]["note"]


def test_summarize_nothing_called():
    result = compare.summarize({"cv2": [], "cvgpu": []}, RUNS)
    assert result["functions"] == [] and result["identical"] is None


# ---------------------------------------------------------------- real runs

def _compare(args, tmp_path, monkeypatch, *options):
    monkeypatch.chdir(tmp_path)
    report = tmp_path / "compare.json"
    rc = cli(["compare", "--json", str(report)] + list(options) + [str(a) for a in args])
    return rc, json.loads(report.read_text())


def test_detect_lines_example(tmp_path, monkeypatch, capfd):
    out_png = tmp_path / "lines.png"
    rc, result = _compare([EXAMPLES / "detect_lines.py", out_png, "--synthetic", "--pages", "2"], tmp_path,
                          monkeypatch)
    assert rc == 0
    printed = capfd.readouterr().out
    assert printed.count("2 scan(s)") == 2  # the script's own prints, from both runs
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    by = {f["function"]: f for f in result["functions"]}
    assert by["HoughLines"]["cv2"]["calls"] >= 2
    assert by["HoughLines"]["cv2"]["calls"] == by["HoughLines"]["cvgpu"]["calls"]
    assert by["HoughLines"]["identical"] is True
    assert result["identical"] is True
    assert result["runs"]["cv2"]["exit"] == 0 and result["runs"]["cvgpu"]["exit"] == 0
    assert result["runs"]["cvgpu"]["backend"] == cvgpu.backend()
    md = compare.summary_lines(result, markdown=True)
    assert any(line.startswith("| HoughLines | ") and "| yes |" in line for line in md)
    if cvgpu.backend() == "cv2":
        assert set(by["HoughLines"]["engines"]) == {"cv2"}


def test_cuda_hough_example(tmp_path, monkeypatch):
    rc, result = _compare([EXAMPLES / "cuda_hough.py", "--frames", "3"], tmp_path, monkeypatch)
    assert rc == (0 if cvgpu.backend() == "cv2" else 4)
    by = {f["function"]: f for f in result["functions"]}
    # No OpenCV-CUDA in pip's cv2: the first run takes the script's cv2.HoughLines fallback.
    assert by["HoughLines"]["cv2"]["calls"] == 3
    if cvgpu.backend() == "cv2":
        assert by["HoughLines"]["cvgpu"]["calls"] == 3
        assert result["identical"] is True
    else:
        assert by["cuda.createHoughLinesDetector().detect"]["cvgpu"]["calls"] == 3


def test_count_objects_example(tmp_path, monkeypatch, capfd):
    rc, result = _compare([EXAMPLES / "count_objects.py", "--synthetic", "--frames", "2"], tmp_path, monkeypatch)
    assert rc == 0
    counts = [line for line in capfd.readouterr().out.splitlines() if " objects (of " in line]
    assert len(counts) == 2 and counts[0] == counts[1]
    by = {f["function"]: f for f in result["functions"]}
    if "findContours" in compare.accelerated_names():
        assert by["findContours"]["cv2"]["calls"] == 4 and by["findContours"]["identical"] is True
    else:  # cvgpu does not compute findContours in this build: nothing to time
        assert "findContours" not in by


def test_script_environment_exit_code_and_errors(tmp_path, monkeypatch, capfd):
    script = tmp_path / "pipeline.py"
    script.write_text(
        "import os, sys\n"
        "import cv2\n"
        "from cv2 import HoughLines\n"
        "import numpy as np\n"
        "import helper\n"  # a module beside the script, as `python pipeline.py` would find it
        "img = np.zeros((64, 64), np.uint8); img[10, :] = 255\n"
        "print('lines', HoughLines(img, 1, np.pi / 180, 30).shape, sys.argv[1:], helper.X)\n"
        "try:\n"
        "    cv2.HoughLines(np.zeros((4, 4, 3), np.float64), 1, 0.1, 1)\n"
        "except cv2.error as e:\n"
        "    print('error', e.code)\n"
        "print('compare', int(cv2.compare(img, img, cv2.CMP_EQ).sum()))\n"
        "open('written.txt', 'w').write(os.getcwd())\n"
        "sys.exit(5)\n")
    (tmp_path / "helper.py").write_text("X = 42\n")
    work = tmp_path / "work"
    work.mkdir()
    rc, result = _compare([script, "a", "--b"], work, monkeypatch)
    assert rc == 3  # the script's own exit status 5, in both runs
    assert result["runs"]["cv2"]["exit"] == 5 and result["runs"]["cvgpu"]["exit"] == 5
    out = capfd.readouterr().out
    assert out.count("lines (3, 1, 2) ['a', '--b'] 42") == 2
    assert out.count("error -215") == 2
    assert out.count("compare %d" % (64 * 64 * 255)) == 2
    assert (work / "written.txt").read_text() == str(work)
    by = {f["function"]: f for f in result["functions"]}
    assert by["HoughLines"]["cv2"]["calls"] == 2 and by["HoughLines"]["identical"] is True
    assert by["HoughLines"]["raised"] == {"cv2": 1, "cvgpu": 1}


def test_a_fallback_that_imports_cv2_late_does_not_recurse(tmp_path, monkeypatch):
    """A cvgpu function whose cv2 fallback runs `import cv2` inside the call gets the stand-in module:
    the nested call must reach cv2's own function, not cvgpu's again."""
    rec = compare._Recorder(str(tmp_path / "log.jsonl"), "cv2")
    calls = []

    def real(x):
        calls.append("real")
        return x

    timed = {}

    def ours(x):
        calls.append("ours")
        return timed["f"](x)  # as `import cv2; cv2.f(x)` inside cvgpu would, after the swap

    timed["f"] = compare._timed("f", ours, rec, nested=real)
    assert timed["f"](3) == 3
    assert calls == ["ours", "real"]
    lines = (tmp_path / "log.jsonl").read_text().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["name"] == "f"


@pytest.mark.gpu
def test_compare_on_gpu(tmp_path, monkeypatch):
    """On a GPU, with the engine pinned to it, the second run computes in cvgpu's kernels, and every
    output is still cv2's."""
    monkeypatch.setenv("CVGPU_ENGINE", "cuda")
    rc, result = _compare([EXAMPLES / "detect_lines.py", tmp_path / "l.png", "--synthetic", "--pages", "3"],
                          tmp_path, monkeypatch)
    assert rc == 0
    assert result["runs"]["cvgpu"]["backend"] == "cuda" and result["runs"]["cvgpu"]["engine_mode"] == "cuda"
    by = {f["function"]: f for f in result["functions"]}
    assert by["HoughLines"]["identical"] is True
    assert by["HoughLines"]["engines"] == {"cuda": by["HoughLines"]["cvgpu"]["calls"]}
    rc, result = _compare([EXAMPLES / "cuda_hough.py", "--frames", "3"], tmp_path, monkeypatch)
    assert rc == 4  # nothing compared: pip's cv2 has no CUDA module, the first run took HoughLines
    detect = {f["function"]: f for f in result["functions"]}["cuda.createHoughLinesDetector().detect"]
    assert detect["cvgpu"]["calls"] == 3 and detect["engines"] == {"cuda": 3}
    assert detect["identical"] is None


@pytest.mark.gpu
def test_compare_on_gpu_in_auto_mode_keeps_every_output(tmp_path, monkeypatch):
    """The engine as users get it: whichever engine computes each call, the outputs are cv2's."""
    monkeypatch.setenv("CVGPU_ENGINE", "auto")
    rc, result = _compare([EXAMPLES / "detect_lines.py", tmp_path / "l.png", "--synthetic", "--pages", "12"],
                          tmp_path, monkeypatch)
    assert rc == 0 and result["identical"] is True
    assert result["runs"]["cvgpu"]["engine_mode"] == "auto"


def test_factory_objects_get_their_compute_methods_timed(tmp_path):
    rec = compare._Recorder(str(tmp_path / "log.jsonl"), "cv2")
    det = cvgpu.cuda.createHoughLinesDetector(1, np.pi / 180, 10)
    compare._instrument_object(det, "cuda.createHoughLinesDetector()", rec)
    assert sorted(vars(det).keys() & set(dir(type(det)))) == ["detect"]
    assert det.getThreshold() == 10  # accessors left as they are


def test_an_option_after_the_script_is_refused_not_passed_on(tmp_path, monkeypatch, capsys):
    script = tmp_path / "s.py"
    script.write_text("import sys; print('ran', sys.argv[1:])\n")
    monkeypatch.chdir(tmp_path)
    assert cli(["compare", str(script), "--json", "out.json"]) == 2
    err = capsys.readouterr().err
    assert "--json" in err and "before the script" in err
    assert not (tmp_path / "out.json").exists()


def test_double_dash_passes_look_alike_options_to_the_script(tmp_path, monkeypatch, capfd):
    script = tmp_path / "s.py"
    script.write_text("import sys, cv2, numpy as np\n"
                      "img = np.zeros((32, 32), np.uint8); img[5, :] = 255\n"
                      "print('args', sys.argv[1:]); cv2.HoughLines(img, 1, np.pi / 180, 20)\n")
    monkeypatch.chdir(tmp_path)
    assert cli(["compare", "--json", "r.json", "--", str(script), "--json", "x"]) == 0
    assert capfd.readouterr().out.count("args ['--json', 'x']") == 2


def test_nothing_compared_is_exit_4(tmp_path, monkeypatch, capsys):
    script = tmp_path / "s.py"
    script.write_text("print('no OpenCV call here')\n")
    monkeypatch.chdir(tmp_path)
    assert cli(["compare", str(script)]) == 4
    assert "NOTHING COMPARED" in capsys.readouterr().out


def test_repeat_runs_the_pair_in_alternating_order(tmp_path, monkeypatch):
    script = tmp_path / "s.py"
    order = tmp_path / "order.txt"
    script.write_text("import cv2, numpy as np, sys\n"
                      "open(%r, 'a').write(str(cv2.findContours.__module__).split('.')[0] + '\\n')\n"
                      "m = np.zeros((20, 30), np.uint8); m[5:9, 5:20] = 255\n"
                      "cv2.findContours(m, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)\n" % str(order))
    rc, result = _compare([script], tmp_path, monkeypatch, "--repeat", "2")
    assert rc == 0 and result["identical"] is True
    # (cv2's builtins have no module)
    assert order.read_text().split() == ["None", "cvgpu", "cvgpu", "None"]
    for mode in ("cv2", "cvgpu"):
        run = result["runs"][mode]
        assert len(run["repeat_s"]) == 2 and run["median_s"] == pytest.approx(sum(run["repeat_s"]) / 2)
    assert cli(["compare", "--repeat", "0", str(script)]) == 2


def test_repeated_runs_are_summarized_by_their_medians():
    runs = {"script": "s.py", "args": [], "cv2": {"exit": 0, "seconds": 1.0, "repeat_s": [1.0, 1.4, 1.2],
                                                    "median_s": 1.2},
            "cvgpu": {"exit": 0, "seconds": 0.5, "backend": "cuda", "repeat_s": [0.5, 0.6, 0.4], "median_s": 0.5}}
    logs = {"cv2": [{"name": "HoughLines", "ms": 2.0, "digest": "a", "args": [], "kwargs": {}, "seq": 0}],
            "cvgpu": [{"name": "HoughLines", "ms": 1.0, "digest": "a", "args": [], "kwargs": {}, "seq": 0,
                       "engine": "cuda"}]}
    text = "\n".join(compare.summary_lines(compare.summarize(logs, runs)))
    assert "whole script: 2.00x (cv2 1.00 s / cvgpu 0.50 s)" in text
    assert "median of 3 runs each: 2.40x (cv2 1.20 s, 1.00-1.40 / cvgpu 0.50 s, 0.40-0.60)" in text


def test_repeated_runs_pool_each_functions_median():
    """pool_runs: a function's median is the median of every run's median, not the first run's; the
    totals and first calls stay the first run's; one run leaves the summary as it was."""
    def log(*ms):
        return [{"name": "HoughLines", "ms": m, "digest": "a", "args": [], "kwargs": {}, "seq": i, "engine": "cv2"}
                for i, m in enumerate(ms)]
    runs = {"script": "s.py", "args": [], "cv2": {"exit": 0, "seconds": 1.0},
            "cvgpu": {"exit": 0, "seconds": 1.0, "backend": "cuda"}}
    first = {"cv2": log(2.0, 2.2, 2.4), "cvgpu": log(5.0, 4.6, 4.8)}   # one slow cvgpu process
    result = compare.summarize(first, runs)
    assert result["functions"][0]["cvgpu"]["median_ms"] == 4.8
    pooled = compare.pool_runs(result, {"cv2": [first["cv2"], log(2.5, 2.3), log(2.1, 2.3, 2.2)],
                                        "cvgpu": [first["cvgpu"], log(2.3, 2.5), log(2.2, 2.0, 2.4)]})
    f = pooled["functions"][0]
    assert f["cvgpu"]["run_medians_ms"] == [4.8, 2.4, 2.2] and f["cvgpu"]["median_ms"] == 2.4
    assert f["cv2"]["median_ms"] == 2.2 and f["speedup"] == pytest.approx(2.2 / 2.4)
    assert f["cvgpu"]["total_ms"] == pytest.approx(14.4) and f["cvgpu"]["first_ms"] == 5.0
    assert "medians: of every run's median" in "\n".join(compare.summary_lines(pooled))
    alone = compare.pool_runs(compare.summarize(first, runs), {"cv2": [first["cv2"]], "cvgpu": [first["cvgpu"]]})
    assert "run_medians_ms" not in alone["functions"][0]["cvgpu"] and alone["functions"][0]["cvgpu"]["median_ms"] == 4.8


def test_a_repeated_run_that_differs_is_a_difference(tmp_path, monkeypatch):
    script = tmp_path / "s.py"
    count = tmp_path / "count.txt"
    # the third run (the second pair's first, cvgpu) draws another image: its outputs differ
    script.write_text("import cv2, numpy as np, os\n"
                      "n = len(open(%r).read()) if os.path.exists(%r) else 0\n"
                      "open(%r, 'a').write('x')\n"
                      "m = np.zeros((20, 30), np.uint8); m[5:9, 5:20 - (n == 2)] = 255\n"
                      "cv2.findContours(m, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)\n"
                      % (str(count), str(count), str(count)))
    rc, result = _compare([script], tmp_path, monkeypatch, "--repeat", "2")
    assert rc == 1 and result["identical"] is False
    assert result["first_difference"]["repeated_run"] == "cvgpu"


def test_a_failing_script_is_reported(tmp_path, monkeypatch, capfd):
    script = tmp_path / "s.py"
    script.write_text("raise RuntimeError('broken script')\n")
    monkeypatch.chdir(tmp_path)
    assert cli(["compare", str(script)]) == 3
    captured = capfd.readouterr()
    assert "broken script" in captured.err and "THE SCRIPT FAILED" in captured.out


def test_the_run_is_labelled_without_starting_the_gpu(monkeypatch):
    """The child labels its cvgpu run after the script. Where the script never started the GPU, the
    label must not start it: CuPy's import and the CUDA context would count as the script's time."""
    from cvgpu import _backend

    def start():
        raise AssertionError("labelling the run started the GPU")

    monkeypatch.setattr(_backend, "cupy_module", start)
    monkeypatch.setattr(_backend, "gpu_probed", lambda: False)
    monkeypatch.setattr(_backend, "quick_unusable_reason", lambda: None)
    monkeypatch.setattr(_backend, "_driver_present", lambda: True)
    assert compare._run_label() == ("cuda", None)
    monkeypatch.setattr(_backend, "_driver_present", lambda: False)
    assert compare._run_label() == ("cv2", _backend.NO_DRIVER)
    monkeypatch.setattr(_backend, "quick_unusable_reason", lambda: "CVGPU_BACKEND=cv2 is set")
    assert compare._run_label() == ("cv2", "CVGPU_BACKEND=cv2 is set")
    # a GPU the script started (or found unusable) is asked as before
    monkeypatch.setattr(_backend, "gpu_probed", lambda: True)
    monkeypatch.setattr(_backend, "cupy_module", lambda: None)
    monkeypatch.setitem(_backend._state, "reason", "no NVIDIA GPU/driver found")
    assert compare._run_label() == ("cv2", "no NVIDIA GPU/driver found")


@pytest.mark.gpu
def test_a_script_that_never_starts_the_gpu_is_timed_without_it(tmp_path, monkeypatch):
    """Auto mode, a script of small calls: the GPU stays cold, and compare's own label after the script
    does not import CuPy either (its import and context were timed as the script's before)."""
    monkeypatch.setenv("CVGPU_ENGINE", "auto")
    script = tmp_path / "small.py"
    script.write_text("import cv2, numpy as np\nm = np.zeros((48, 64), np.uint8); m[10:20, 10:30] = 255\n"
                      "for _ in range(5):\n    cv2.findContours(m, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)\n")
    rc, result = _compare([script], tmp_path, monkeypatch)
    run = result["runs"]["cvgpu"]
    assert rc == 0 and result["identical"] is True
    assert run["gpu_start"] == "cold" and run["cupy_loaded"] is False and run["backend"] == "cuda"


def test_without_gpu_no_speed_is_compared():
    runs = {"script": "s.py", "args": [], "cv2": {"exit": 0, "seconds": 1.0},
            "cvgpu": {"exit": 0, "seconds": 1.1, "backend": "cv2", "no_gpu_reason": "no NVIDIA GPU/driver found"}}
    logs = {"cv2": [{"name": "HoughLines", "ms": 2.0, "digest": "a", "args": [], "kwargs": {}, "seq": 0}],
            "cvgpu": [{"name": "HoughLines", "ms": 1.0, "digest": "a", "args": [], "kwargs": {}, "seq": 0,
                       "engine": "cv2"}]}
    result = compare.summarize(logs, runs)
    text = "\n".join(compare.summary_lines(result))
    assert "no speed compared" in text and "2.0x" not in text and "whole script:" not in text
