"""`cvgpu bench`: argument parsing, the family registry, progress, the table, --json, --from-json and
--report (markdown + real PNG plots, and the markdown alone without matplotlib). The end-to-end run is
the CPU one (cv2 timed alone); GPU-shaped rows are synthetic."""
import json
import struct
import sys
import types

import cv2
import pytest

from cvgpu.bench import _timing, cli as bench_cli, radon as bench_radon, report, table
from cvgpu.__main__ import main as cli

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _png_size(path):
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    width, height = struct.unpack(">II", data[16:24])
    return len(data), width, height


def _t(median):
    return {"median": median, "p10": median * 0.9, "p90": median * 1.2, "reps": 7}


def gpu_like_rows():
    """Rows shaped as a GPU run makes them: Hough sweeps (numpy + device io), cuda rows, contours rows
    (one family with keys, one with the facts only in the workload text), an lms row."""
    rows = []
    for pts, cv2_ms in ((10_000, 8.5), (20_000, 15.0), (41_000, 30.0), (82_000, 55.0), (164_000, 99.0)):
        base = dict(family="hough", function="HoughLines", workload="segments 1024x1024 %dk pts" % (pts // 1000),
                    points=pts, width=1024, height=1024)
        rows.append(_timing.timing_row(base, _t(cv2_ms), _t(0.38), "numpy", True))
        rows.append(_timing.timing_row(base, _t(cv2_ms), _t(0.2), "device", True))
    for side, cv2_ms in ((512, 40.0), (2048, 70.0), (4096, 120.0), (8192, 178.0)):
        base = dict(family="hough", function="HoughLines", workload="segments %dx%d 82k pts" % (side, side),
                    points=82_000, width=side, height=side)
        rows.append(_timing.timing_row(base, _t(cv2_ms), _t(side / 600), "numpy", True))
        rows.append(_timing.timing_row(base, _t(cv2_ms), _t(0.3), "device", True))
    rows.append(_timing.timing_row(dict(family="hough", function="HoughLines", workload="photo camera 512x512 Canny",
                                      points=20_000, width=512, height=512), _t(17.9), _t(0.28), "numpy", False))
    for side, pts in ((1024, 10240), (1024, 163840), (512, 81920), (8192, 81920)):
        rows.append(_timing.timing_row(dict(family="cuda", function="cuda.HoughLinesDetector",
                                          workload="%dx%d horizontal segments, %d pts" % (side, side, pts),
                                          points=pts, width=side, height=side, reference_ms=0.08),
                                     _t(50.0), _t(0.17), "device", None))
    for scale, (w, h), n in ((1, (1232, 1028), 2_000), (2, (2464, 2056), 8_000), (4, (4928, 4112), 32_000)):
        for mode, cv2_ms in (("TREE", 3.2 * scale ** 2), ("EXTERNAL", 1.1 * scale ** 2)):
            base = dict(family="contours", function="findContours", mode=mode, contours=n, width=w, height=h,
                        workload="blobs %dx %dx%d %s" % (scale, w, h, mode))
            rows.append(_timing.timing_row(base, _t(cv2_ms), _t(cv2_ms / 20), "numpy", True))
            rows.append(_timing.timing_row(base, _t(cv2_ms), _t(cv2_ms / 60), "device", True))
        # keys absent: everything from the text
        rows.append(dict(family="contours", function="findContours",
                         workload="noisy %dx %dx%d RETR_LIST, %s contours" % (scale, w, h, format(n * 6, ",")),
                         cv2_ms=16.1 * scale ** 2, cvgpu_ms=0.5 * scale ** 2, speedup=32.2, io="numpy", exact=True,
                         reference_ms=None))
    rows.append(dict(family="lms", function="fitLineLMS", workload="512 points", cv2_ms=None, cvgpu_ms=0.9,
                     speedup=None, io="numpy", exact=None, reference_ms=None))
    return rows


ENV = {"generated": "2026-01-01 00:00 UTC", "cv2_version": "5.0.0", "cv2_threads": 16, "cpu_count": 16,
       "cpu": "x86_64", "python": "3.12.0", "numpy_version": "2.1", "cvgpu_version": "0.1.0",
       "gpu": "NVIDIA H100 80GB HBM3", "cupy_version": "14.2", "cuda_runtime": "13.0", "backend": "cuda",
       "no_gpu_reason": None}


# ---------------------------------------------------------------- parsing and registry

def test_parser():
    args = bench_cli.build_parser().parse_args(["--quick", "--only", "hough", "--only", "contours", "--json", "a.json",
                                            "--report", "rep", "--no-progress"])
    assert args.quick and args.only == ["hough", "contours"] and args.json == "a.json" and args.report == "rep"
    assert not args.variants and args.from_json is None
    for family in ("hough", "cuda", "radon", "contours", "lms"):
        assert bench_cli.build_parser().parse_args(["--only", family]).only == [family]
    with pytest.raises(SystemExit):
        bench_cli.build_parser().parse_args(["--only", "nosuchfamily"])
    with pytest.raises(SystemExit) as exc:
        cli(["bench", "--help"])
    assert exc.value.code == 0


def test_registry_and_missing_families(monkeypatch):
    assert list(bench_cli.FAMILIES)[:5] == ["hough", "cuda", "radon", "contours", "lms"]
    fn, why = bench_cli.Family("x", "cvgpu.no_such_module_here").load()
    assert fn is None and "not in this build" in why
    fn, why = bench_cli.Family("x", "cvgpu.bench", "no_such_function").load()
    assert fn is None and "no_such_function" in why
    # contours / lms: skipped before their modules land, run after
    for name in ("contours", "lms"):
        fn, why = bench_cli.FAMILIES[name].load()
        assert (fn is None) == (why is not None)


def test_a_registered_family_runs(monkeypatch):
    fake = types.ModuleType("cvgpu_fake_family")
    fake.bench_rows = lambda quick=False: [dict(function="fakeFilter", workload="quick" if quick else "full",
                                               cv2_ms=4.0, cvgpu_ms=0.5, io="device", exact=True)]

    def broken(quick=False):
        raise RuntimeError("kernel exploded")

    fake.broken_rows = broken
    monkeypatch.setitem(sys.modules, "cvgpu_fake_family", fake)
    monkeypatch.setattr(bench_cli, "FAMILIES", dict(bench_cli.FAMILIES))
    bench_cli.register("fake", "cvgpu_fake_family")
    bench_cli.register("broken", "cvgpu_fake_family", "broken_rows")
    bench_cli.register("absent", "cvgpu.absent_family")
    rows, notes, failed = bench_cli.run_families(["fake", "broken", "absent"], quick=True, show_progress=False)
    assert rows == [dict(function="fakeFilter", workload="quick", cv2_ms=4.0, cvgpu_ms=0.5, io="device",
                         exact=True, family="fake", speedup=8.0, reference_ms=None)]
    assert failed == ["broken"]
    assert any("broken failed: RuntimeError: kernel exploded" in n for n in notes)
    assert any("absent skipped" in n for n in notes)


def test_progress_without_tqdm(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    p = bench_cli.Progress(2)
    p("hough: a")
    p.expect(3)
    p("hough: b")
    p("cuda")
    p.close()
    err = capsys.readouterr().err.splitlines()
    assert err == ["[1/2] hough: a", "[2/4] hough: b", "[3/4] cuda"]


def test_summarize_spread():
    s = _timing.summarize([1.0, 2.0, 3.0, 4.0, 100.0])
    assert s["median"] == 3.0 and s["reps"] == 5
    assert s["p10"] == pytest.approx(1.4) and s["p90"] == pytest.approx(61.6)


def test_row_text_parsing():
    assert report.points({"workload": "segments 1024x1024 10k pts"}) == 10_000
    assert report.points({"workload": "x", "points": 5}) == 5
    assert report.size({"workload": "noisy 4x 4928x4112 TREE"}) == (4928, 4112)
    assert report.size({"workload": "photo", "width": 3, "height": 2}) == (3, 2)
    assert report.contour_count({"workload": "noisy 4x, 191,678 contours"}) == 191_678
    assert report.contour_series({"workload": "noisy 1232x1028 RETR_TREE"}) == "TREE noisy"
    assert report.contour_series({"workload": "blobs", "mode": "EXTERNAL"}) == "EXTERNAL blobs"
    assert report.contour_series({"workload": "snake 4096x4096 TREE SIMPLE"}) == "TREE SIMPLE snake"
    assert report.contour_series({"workload": "noisy 1232x1028 LIST SIMPLE"}) == "LIST SIMPLE noisy"
    assert report.contour_series({"workload": "x", "series": "mine"}) == "mine"


# ---------------------------------------------------------------- table and report

def test_table(capsys):
    rows = gpu_like_rows()
    table.print_table(rows, ENV, notes=["a note"])
    out = capsys.readouterr().out
    assert "GPU: NVIDIA H100 80GB HBM3" in out and "16 threads" in out
    # Within 100 columns: the p10-p90 ranges give way (the markdown report keeps them).
    assert "0.3800" in out and max(len(line) for line in out.splitlines()) <= table.TABLE_WIDTH
    assert " yes " in out and " NO " in out
    assert "note: a note" in out


def test_table_without_gpu_drops_empty_columns_and_names_baselines(capsys):
    rows = [dict(workload="exact LMS of 512 points", function="fitLineLMS", io="numpy", cv2_ms=0.004,
                 cvgpu_ms=None, speedup=None, exact=None, cv2_baseline="cv2.fitLine(DIST_L2), least squares"),
            dict(workload="segments 1024x1024 10k pts, a long workload name to be cut", function="HoughLines",
                 io="numpy", cv2_ms=57.5, cv2_p10=47.0, cv2_p90=65.1, cvgpu_ms=None, speedup=None, exact=None)]
    env = dict(ENV, gpu=None, no_gpu_reason="no NVIDIA GPU/driver found")
    table.print_table(rows, env)
    out = capsys.readouterr().out
    assert out.startswith("No usable GPU (no NVIDIA GPU/driver found)")
    header = out.splitlines()[2]
    assert "cvgpu ms" not in header and "speedup" not in header and "ocv-cuda" not in header
    assert "57.500 [47.000-65.100]" in out and "0.004 *" in out
    assert "* fitLineLMS rows: the cv2 column times cv2.fitLine(DIST_L2), least squares" in out
    assert max(len(line) for line in out.splitlines()) <= table.TABLE_WIDTH


def test_report_with_plots(tmp_path):
    pytest.importorskip("matplotlib")
    rows = gpu_like_rows()
    written = report.write_report(str(tmp_path), rows, ENV, ["a note"], command="cvgpu bench --report x")
    assert written["warnings"] == []
    md = (tmp_path / "report.md").read_text()
    assert "NVIDIA H100 80GB HBM3" in md and "cv2 5.0.0, 16 threads" in md
    assert md.count("| segments 1024x1024") == 10
    for name in ("hough_points.png", "hough_resolution.png", "contours_size.png", "contours_count.png",
                 "speedup.png"):
        assert "](%s)" % name in md
        nbytes, width, height = _png_size(tmp_path / name)
        assert nbytes > 10_000 and width >= 400 and height >= 300
        img = cv2.imread(str(tmp_path / name))
        assert img is not None and img.shape[:2] == (height, width)
        assert int(img.std()) > 0  # something drawn, not a blank canvas
    saved = json.loads((tmp_path / "bench.json").read_text())
    assert saved["environment"]["gpu"] == ENV["gpu"] and len(saved["rows"]) == len(rows)


def test_report_without_matplotlib(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    written = report.write_report(str(tmp_path), gpu_like_rows(), ENV)
    assert written["plots"] == [] and "matplotlib is not installed" in written["warnings"][0]
    md = (tmp_path / "report.md").read_text()
    assert "No plots: matplotlib is not installed" in md and "| segments 1024x1024 10k pts" in md
    assert not list(tmp_path.glob("*.png"))


def test_bench_end_to_end_cpu(tmp_path, capsys):
    """The quick Hough family for real, with --json and --report; then --from-json re-renders it."""
    rep, js = tmp_path / "rep", tmp_path / "rows.json"
    rc = cli(["bench", "--quick", "--only", "hough", "--no-progress", "--json", str(js), "--report", str(rep)])
    assert rc == 0
    out = capsys.readouterr().out
    rows = json.loads(js.read_text())
    assert rows and all(r["function"] == "HoughLines" and r["cv2_ms"] > 0 for r in rows)
    assert all(r["cv2_p10"] <= r["cv2_ms"] <= r["cv2_p90"] for r in rows)
    assert "cv2 %s, %d threads" % (cv2.__version__, cv2.getNumThreads()) in out
    md = (rep / "report.md").read_text()
    import cvgpu
    if cvgpu.backend() == "cv2":
        assert all(r["cvgpu_ms"] is None and r["exact"] is None for r in rows)
        assert "No usable GPU" in out and "Only cv2 ran" in md
    else:
        assert all(r["exact"] is True for r in rows)
    try:
        import matplotlib  # noqa: F401
        assert _png_size(rep / "hough_points.png")[0] > 5_000
    except ImportError:
        assert "No plots" in md
    rep2 = tmp_path / "rep2"
    assert cli(["bench", "--from-json", str(rep / "bench.json"), "--report", str(rep2)]) == 0
    assert (rep2 / "report.md").read_text().count("| segments") == md.count("| segments")


def test_radon_exact_column(monkeypatch):
    """The radon rows' exact column compares cvgpu with cv2.ximgproc once per size and step (here cvgpu
    falls back to cv2 when there is no GPU, so the check runs as if there were one)."""
    if not hasattr(cv2, "ximgproc"):
        pytest.skip("cv2 has no ximgproc (opencv-contrib-python)")
    monkeypatch.setattr(bench_radon, "_backend", types.SimpleNamespace(cupy_module=lambda: object()))
    checked = {}
    assert bench_radon._radon_exact("300x200 uint8, 180 angles (1 deg steps)", checked) is True
    assert list(checked) == [(300, 200, 1.0)]
    assert bench_radon._radon_exact("something else", checked) is None


@pytest.mark.gpu
def test_bench_quick_on_gpu(tmp_path, capsys):
    rep, js = tmp_path / "rep", tmp_path / "rows.json"
    rc = cli(["bench", "--quick", "--only", "hough", "--only", "cuda", "--no-progress", "--json", str(js),
              "--report", str(rep)])
    assert rc == 0
    assert "GPU: " in capsys.readouterr().out
    rows = json.loads(js.read_text())
    hough = [r for r in rows if r["function"] == "HoughLines"]
    assert {r["io"] for r in hough} == {"numpy", "device"}
    for r in hough:
        assert r["exact"] is True
        assert 0 < r["cvgpu_p10"] <= r["cvgpu_ms"] <= r["cvgpu_p90"]
        assert r["speedup"] == pytest.approx(r["cv2_ms"] / r["cvgpu_ms"])
    cuda = [r for r in rows if r["family"] == "cuda"]
    seed = [r for r in cuda if "segments" in r["workload"]]
    assert len(seed) == 2 and all(r["reference_ms"] for r in seed) and all(r["cvgpu_ms"] > 0 for r in cuda)
    md = (rep / "report.md").read_text()
    assert "Only cv2 ran" not in md
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return
    for name in ("hough_points.png", "hough_resolution.png", "speedup.png"):
        assert _png_size(rep / name)[0] > 10_000


def test_every_family_gives_rows_in_quick_mode():
    # A family function that falls off its end returns None, which the registry reads as no rows:
    # two did after a merge, and their rows were missing from the device run's table.
    without_gpu_rows = {"cuda", "cuda-segments"}   # OpenCV-CUDA detector rows need the GPU
    for name in bench_cli.FAMILIES:
        if name == "linkruns" and not hasattr(cv2, "findContoursLinkRuns"):
            continue   # (exists from OpenCV 4.10)
        if name == "radon" and not hasattr(cv2, "ximgproc"):
            continue   # (its baseline, cv2.ximgproc, is opencv-contrib-python's: cvgpu's dependency)
        rows, notes, failed = bench_cli.run_families([name], quick=True, show_progress=False)
        assert not failed and not notes, (name, notes)
        if name not in without_gpu_rows or cvgpu_backend() == "cuda":
            assert rows, name


def cvgpu_backend():
    import cvgpu
    return cvgpu.backend()
