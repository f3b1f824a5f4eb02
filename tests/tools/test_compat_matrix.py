"""compat_matrix/: results.json describes the committed code (its source digest must match), and
generate.py refuses any device run that could make an old or failed run look fresh."""
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


needs_git = pytest.mark.skipif(not _in_git_checkout(), reason="the digest covers git-tracked files; no git checkout")


def test_results_schema():
    result = json.loads(RESULTS.read_text())
    for key in ("commit", "source_digest", "device", "cv2_version", "cupy_version", "generated", "rows", "bench"):
        assert key in result
    for row in result["rows"]:
        assert set(row) >= {"function", "variant", "reference", "backend", "cases", "exact", "nontrivial", "empty",
                            "errors"}
        assert 0 <= row["exact"] <= row["cases"]
        assert row["nontrivial"] + row["empty"] + row["errors"] == row["cases"]
        assert row["backend"] in ("cuda", "cv2", "none")
        # an argument error computes nothing: never counted as the GPU's
        assert row["backend"] != "cuda" or row["errors"] == 0
    for b in result["bench"]:
        assert set(b) >= {"function", "workload", "cv2_ms", "cvgpu_ms", "speedup", "io"}
        assert b["io"] in ("numpy", "device")


@needs_git
def test_recorded_digest_matches_committed_sources():
    """The matrix is of the current sources, or it is declared stale: compat_matrix/pending.json
    names the current sources' digest and the commit whose device run is under way, and
    compat_matrix/HISTORY.md tells of both commits (per-commit status stays out of the user README)."""
    recorded = json.loads(RESULTS.read_text())["source_digest"]
    current = generate.source_digest(ROOT)
    if recorded == current:
        return
    pending = ROOT / "compat_matrix" / "pending.json"
    assert pending.is_file(), (
        "compat_matrix/results.json was generated from other sources: run the GPU suite on the device "
        "(compat_matrix/run_device.sh) and regenerate it, or declare the run under way in pending.json")
    p = json.loads(pending.read_text())
    assert p["source_digest"] == current, "pending.json names other sources than the current ones"
    history = (ROOT / "compat_matrix" / "HISTORY.md").read_text()
    assert p["commit"][:7] in history and p["matrix_commit"][:7] in history, \
        "compat_matrix/HISTORY.md must name both the matrix's commit and the pending one"


@needs_git
def test_no_pending_declaration_once_the_matrix_is_fresh():
    if json.loads(RESULTS.read_text())["source_digest"] == generate.source_digest(ROOT):
        assert not (ROOT / "compat_matrix" / "pending.json").is_file(), \
            "the matrix is of the current sources: remove compat_matrix/pending.json"


@needs_git
def test_disk_sources_are_the_tracked_sources():
    # the device computes the digest from the files on disk (no git there): the same set here
    untracked = set(generate.disk_sources(ROOT)) - set(generate.tracked_sources(ROOT))
    ignored = subprocess.run(["git", "check-ignore", "--stdin"], cwd=ROOT, input="\n".join(untracked),
                             capture_output=True, text=True).stdout.split()
    assert untracked - set(ignored) == set(), "untracked files under cvgpu/ or kernels/ would change the digest"


def test_readme_table_is_generated_from_results():
    result = json.loads(RESULTS.read_text())
    assert (ROOT / "compat_matrix" / "README.md").read_text() == generate.readme(result)


def test_user_readme_exactness_table_is_the_matrix():
    """The README's exactness table is rewritten by each generation, never by hand."""
    result = json.loads(RESULTS.read_text())
    text = (ROOT / "README.md").read_text()
    block = text.split(generate.TABLE_BEGIN, 1)[1].split(generate.TABLE_END, 1)[0]
    assert generate.TABLE_BEGIN + block + generate.TABLE_END == "\n".join(generate.exactness_table(result))


def test_exactness_table_sums_the_gpu_rows_of_the_main_release(tmp_path):
    rows = [dict(function="HoughLines", variant=v, reference="cv2-cpu", backend=b, cases=n, exact=e,
                 nontrivial=t, empty=n - t, errors=0, sides={"<=48": n - big, "257-1024": big}, cv2=c)
            for v, b, n, e, t, big, c in (("a", "cuda", 10, 10, 6, 5, "5.0.0"), ("b", "cuda", 30, 29, 20, 15, "5.0.0"),
                                          ("c", "none", 7, 7, 0, 0, "5.0.0"), ("a", "cuda", 4, 4, 4, 0, "4.10.0"))]
    lines = generate.exactness_table({"cv2_version": "5.0.0", "rows": rows})
    assert lines[3] == "| HoughLines | cv2 5.0.0 | 40 | 26 | 50% | 39 |"   # summed; not all equal
    assert lines[-2] == "Beside cv2 4.10.0: 4 GPU cases, all equal."
    readme = tmp_path / "README.md"
    readme.write_text("intro\n%s\nold table\n%s\nrest\n" % (generate.TABLE_BEGIN, generate.TABLE_END))
    assert generate.update_user_readme({"cv2_version": "5.0.0", "rows": rows}, readme)
    assert readme.read_text() == "intro\n" + "\n".join(lines) + "\nrest\n"
    readme.write_text("no table here\n")
    assert not generate.update_user_readme({"cv2_version": "5.0.0", "rows": rows}, readme)


def test_user_readme_is_short():
    assert len((ROOT / "README.md").read_text()) < 10_000


# ---------------------------------------------------------------- generate.py's refusals

def _case(**kw):
    row = {"function": "HoughLines", "variant": "standard", "reference": "cv2-cpu", "backend": "cuda",
           "exact": True, "kind": "result", "input": "a", "side": 300}
    row.update(kw)
    return row


def _run_dir(tmp_path, name, digest, cases, log="10 passed in 1.0s", commit="abc", cv2_version="5.0.0"):
    d = tmp_path / name
    d.mkdir()
    (d / "env.json").write_text(json.dumps({"commit": commit, "source_digest": digest, "device": "GPU",
                                            "cv2_version": cv2_version, "cupy_version": "14"}))
    lines = tmp_path / (name + ".jsonl")
    lines.write_text("".join(json.dumps(c) + "\n" for c in cases))
    (d / "compat-rows.json").write_text(json.dumps(generate.aggregate([str(lines)])))
    (d / "pytest-x.log").write_text("...\n==== %s ====\n" % log)
    return d


@pytest.fixture
def here(monkeypatch):
    monkeypatch.setattr(generate, "source_digest", lambda root=None, files=None: "d" * 64)
    return "d" * 64


def test_aggregate_counts_kinds_inputs_and_sizes(tmp_path):
    lines = tmp_path / "log.jsonl"
    cases = [_case(), _case(input="b", side=20), _case(kind="empty", input="b", side=20),
             _case(kind="error", backend="none", input="c", side=2000)]
    lines.write_text("".join(json.dumps(c) + "\n" for c in cases))
    rows = {r["backend"]: r for r in generate.aggregate([str(lines)])}
    assert rows["cuda"]["cases"] == 3 and rows["cuda"]["nontrivial"] == 2 and rows["cuda"]["empty"] == 1
    assert rows["cuda"]["distinct"] == 2 and rows["cuda"]["sides"]["257-1024"] == 1
    assert rows["cuda"]["sides"]["<=48"] == 2
    assert rows["none"]["errors"] == 1 and rows["none"]["sides"][">1024"] == 1


def test_run_of_this_code_is_taken(tmp_path, here):
    d = _run_dir(tmp_path, "a", here, [_case()])
    assert generate.main(["--from-device", str(d), "--out", str(tmp_path / "out")]) == 0
    result = json.loads((tmp_path / "out" / "results.json").read_text())
    assert result["commit"] == "abc" and result["rows"][0]["nontrivial"] == 1


def test_run_of_other_sources_is_refused(tmp_path, here):
    d = _run_dir(tmp_path, "a", "e" * 64, [_case()])
    assert generate.main(["--from-device", str(d), "--out", str(tmp_path / "out")]) == 2
    assert not (tmp_path / "out").exists()


def test_runs_of_two_digests_are_refused(tmp_path, here):
    a = _run_dir(tmp_path, "a", here, [_case()])
    b = _run_dir(tmp_path, "b", "e" * 64, [_case()])
    assert generate.main(["--from-device", str(a), str(b), "--out", str(tmp_path / "out")]) == 2


@pytest.mark.parametrize("log", ["1 failed, 9 passed in 2.0s", "9 passed, 1 error in 2.0s"])
def test_failed_runs_are_refused(tmp_path, here, log):
    d = _run_dir(tmp_path, "a", here, [_case()], log=log)
    assert generate.main(["--from-device", str(d), "--out", str(tmp_path / "out")]) == 2


def test_interrupted_run_is_refused(tmp_path, here):
    d = _run_dir(tmp_path, "a", here, [_case()])
    (d / "pytest-y.log").write_text("KeyboardInterrupt\n==== 5 passed in 420.0s ====\n")
    assert generate.main(["--from-device", str(d), "--out", str(tmp_path / "out")]) == 2


def test_run_without_summary_is_refused(tmp_path, here):
    d = _run_dir(tmp_path, "a", here, [_case()])
    (d / "pytest-y.log").write_text("tests/x.py ....\n")
    assert generate.main(["--from-device", str(d), "--out", str(tmp_path / "out")]) == 2


def test_runs_beside_several_releases_make_one_table(tmp_path, here):
    a = _run_dir(tmp_path, "a", here, [_case()], cv2_version="4.10.0")
    b = _run_dir(tmp_path, "b", here, [_case(), _case(input="b")])
    (b / "bench.json").write_text("[]")
    c = _run_dir(tmp_path, "c", here, [_case()], cv2_version="4.10.0", commit="other")
    assert generate.main(["--from-device", str(a), str(c), "--out", str(tmp_path / "x")]) == 2  # two commits
    assert generate.main(["--from-device", str(a), str(b), "--out", str(tmp_path / "out")]) == 0
    result = json.loads((tmp_path / "out" / "results.json").read_text())
    assert result["cv2_version"] == "5.0.0"  # the release of the folder with the bench comes first
    assert [(r["cv2"], r["cases"]) for r in result["rows"]] == [("5.0.0", 2), ("4.10.0", 1)]
    assert result["pytest"].startswith("cv2 5.0.0: ") and "cv2 4.10.0: " in result["pytest"]
    text = (tmp_path / "out" / "README.md").read_text()
    assert "| 4.10.0 | HoughLines |" in text and "also ran beside 4.10.0" in text


def test_truncated_golden_cases_are_counted_apart(tmp_path):
    """A golden corpus's truncated cases are consistency checks: never in the table's equal counts.
    The seeded corpus's truncated cases compare the full candidate set exactly: in the table."""
    def row(variant, n):
        return dict(function="cuda.HoughLinesDetector", variant=variant, reference="opencv-cuda-golden",
                    backend="cuda", cases=n, exact=n, nontrivial=n, empty=0, errors=0, sides={"257-1024": n},
                    cv2="5.0.0")
    rows = [row("golden-complete", 10), row("golden-truncated", 3), row("golden-global-truncated", 2),
            row("seeded-complete", 100), row("seeded-truncated", 7)]
    lines = generate.exactness_table({"cv2_version": "5.0.0", "rows": rows})
    assert lines[3] == "| cuda.HoughLinesDetector | OpenCV-CUDA's recorded outputs | 117 | 117 | 100% | all |"
    assert lines[-2] == "Consistency only (truncated golden cases): cuda.HoughLinesDetector 5; all consistent."


def test_run_device_needs_the_commit(tmp_path):
    """run_device.sh stops before any work when the caller does not name the commit: on the device
    the tree has no history of its own (a git fallback there named an older commit once)."""
    import os
    import subprocess
    env = {k: v for k, v in os.environ.items() if k != "CVGPU_COMMIT"}
    env["OUT"] = str(tmp_path / "out")
    r = subprocess.run(["bash", str(ROOT / "compat_matrix" / "run_device.sh"), "tests"], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "CVGPU_COMMIT=<sha>" in r.stderr
    assert not (tmp_path / "out").exists()
