"""Build compat_matrix/results.json and compat_matrix/README.md from ONE device run of the code.

Inputs: the folders of the calls of one device run (compat_matrix/run_device.sh writes each): the
JSON lines the GPU suite appends when CVGPU_COMPAT_LOG is set (one per compared case, aggregated on
the device into compat-rows.json), env.json (commit, source digest, device, versions), the pytest
logs and the bench rows of ``python -m cvgpu bench --json``.

Provenance rules, so that no row older than the code can appear fresh:
- every folder's env.json names the same source digest, and it equals the digest of this checkout's
  sources; ``source_digest`` is sha256 over the git-tracked files under ``kernels/`` and ``cvgpu/``,
  sorted by path, feeding path, NUL, bytes, NUL for each (on the device, where there is no git, the
  same files as found on disk: run_device.sh refuses a tree with stray files there);
- a pytest log with a failure, an error, or a run stopped before its end (time limit, interrupt) is
  refused, and so is a folder without a finished pytest summary;
- the matrix states the one commit the run was made at.

Several cv2 releases: the folders of one run may hold the GPU suite beside other cv2 wheels (the same
commit, digest, device and CuPy; env.json's cv2_version tells them apart). The release of the folder
with the bench (else of the first folder) is the matrix's main release; the rows of every release are
in one table with a cv2 column, and each release's pytest summary is listed.

Per row (function, variant, reference, backend, kind of case): cases, exact, the reference's kind
of answer (non-trivial result, empty, argument error), distinct inputs and the size distribution of
the inputs' long side, where the test passed its inputs.

Written when the output is compat_matrix/ itself: the user README's exactness table (the block
between TABLE_BEGIN and TABLE_END), summed per function over the main release's GPU rows.
"""
import argparse
import collections
import datetime
import hashlib
import json
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
SOURCE_DIRS = ("kernels", "cvgpu")
SIDE_BINS = (("<=48", 48), ("49-256", 256), ("257-1024", 1024), (">1024", None))


class RunRefused(Exception):
    """The device run cannot make a matrix of this checkout's code."""


def tracked_sources(root=ROOT):
    out = subprocess.run(["git", "ls-files", *SOURCE_DIRS], cwd=root, capture_output=True,
                         text=True, check=True).stdout.split()
    return sorted(out)


def disk_sources(root=ROOT):
    """The files under kernels/ and cvgpu/ as found on disk, less Python's caches: on the device,
    where the working tree arrives without git, these are the tracked files."""
    out = []
    for top in SOURCE_DIRS:
        for dirpath, dirnames, filenames in os.walk(pathlib.Path(root) / top):
            dirnames[:] = [d for d in dirnames if d != "__pycache__" and not d.endswith(".egg-info")]
            out += [os.path.relpath(os.path.join(dirpath, f), root) for f in filenames if not f.endswith(".pyc")]
    return sorted(out)


def source_digest(root=ROOT, files=None):
    h = hashlib.sha256()
    for path in sorted(files if files is not None else tracked_sources(root)):
        h.update(path.encode() + b"\0" + (pathlib.Path(root) / path).read_bytes() + b"\0")
    return h.hexdigest()


def side_bin(side):
    for name, top in SIDE_BINS:
        if top is None or side <= top:
            return name
    return SIDE_BINS[-1][0]


def aggregate(log_paths):
    """Rows of the CVGPU_COMPAT_LOG files (each JSON line is one case), with the distinct inputs of
    each row counted here, where every line of the run is seen."""
    acc = collections.OrderedDict()
    for path in sorted(log_paths):
        for line in open(path):
            r = json.loads(line)
            kind = r.get("kind", "result")
            key = (r["function"], r["variant"], r["reference"], r["backend"])
            row = acc.get(key)
            if row is None:
                row = acc[key] = {"cases": 0, "exact": 0, "nontrivial": 0, "empty": 0, "errors": 0,
                                  "inputs": set(), "sides": collections.Counter(), "unknown_input": 0}
            row["cases"] += 1
            row["exact"] += 1 if r["exact"] else 0
            row[{"result": "nontrivial", "empty": "empty", "error": "errors"}[kind]] += 1
            if r.get("input") is None:
                row["unknown_input"] += 1
            else:
                row["inputs"].add(r["input"])
                if r.get("side") is not None:
                    row["sides"][side_bin(r["side"])] += 1
    out = []
    for (function, variant, reference, backend), v in sorted(acc.items()):
        out.append(dict(function=function, variant=variant, reference=reference, backend=backend,
                        cases=v["cases"], exact=v["exact"], nontrivial=v["nontrivial"], empty=v["empty"],
                        errors=v["errors"], distinct=len(v["inputs"]) if not v["unknown_input"] else None,
                        sides={name: v["sides"][name] for name, _ in SIDE_BINS} if v["sides"] else None))
    return out


def merge_rows(row_lists):
    """Rows of the calls of one run as one table. A row measured in two calls has its counts summed;
    its distinct inputs then count each call's own (an upper bound) and ``distinct_summed`` says so."""
    merged = collections.OrderedDict()
    for row_list in row_lists:
        for r in row_list:
            key = (r["function"], r["variant"], r["reference"], r["backend"])
            m = merged.get(key)
            if m is None:
                merged[key] = dict(r, sides=dict(r["sides"]) if r.get("sides") else None)
                continue
            for k in ("cases", "exact", "nontrivial", "empty", "errors"):
                m[k] = m.get(k, 0) + r.get(k, 0)
            m["distinct"] = None if m.get("distinct") is None or r.get("distinct") is None \
                else m["distinct"] + r["distinct"]
            m["distinct_summed"] = True
            if r.get("sides"):
                m["sides"] = {k: (m.get("sides") or {}).get(k, 0) + r["sides"].get(k, 0) for k, _ in SIDE_BINS}
    return [merged[k] for k in sorted(merged)]


_SUMMARY = re.compile(r"\b\d+ (passed|failed|error|errors|skipped)\b")


def pytest_summary(log_path):
    """The final summary line of a pytest log; RunRefused for failures, errors or a stopped run."""
    text = pathlib.Path(log_path).read_text(errors="replace")
    last = ""
    for line in text.splitlines():
        if _SUMMARY.search(line) and " in " in line and "warner" not in line:
            last = line.strip().strip("=").strip()
    name = pathlib.Path(log_path).stem.replace("pytest-", "")
    if "KeyboardInterrupt" in text or "!! STOPPED" in text or "Interrupted:" in text:
        raise RunRefused("%s: the run was stopped before its end" % name)
    if not last:
        raise RunRefused("%s: no pytest summary (the run did not finish)" % name)
    if re.search(r"\b\d+ (failed|error|errors)\b", last):
        raise RunRefused("%s: %s" % (name, last))
    return "%s: %s" % (name, last)


def read_run(dirs, root=ROOT):
    """(env, rows, bench rows, pytest summaries) of one device run's folders, or RunRefused. Folders
    of several cv2 releases: env is the main release's (see the module docstring), every row carries
    its release ("cv2"), and the summaries are prefixed by their release when there are several."""
    envs = []
    for d in dirs:
        path = d / "env.json"
        if not path.exists():
            raise RunRefused("%s has no env.json" % d)
        envs.append(json.loads(path.read_text()))
    digests = {e.get("source_digest") for e in envs}
    if len(digests) != 1 or None in digests:
        raise RunRefused("the folders were run on different sources: %s" % sorted(map(str, digests)))
    digest = digests.pop()
    here = source_digest(root)
    if digest != here:
        raise RunRefused("the run's sources (digest %s, commit %s) are not this checkout's (digest %s): run the "
                         "device suite again at this code" % (digest[:12], envs[0].get("commit"), here[:12]))
    for key in ("device", "cupy_version", "commit"):
        values = {e.get(key) for e in envs}
        if len(values) != 1:
            raise RunRefused("the folders disagree on %s: %s" % (key, sorted(map(str, values))))
    benches = [d / "bench.json" for d in dirs if (d / "bench.json").exists()]
    bench = json.loads(benches[-1].read_text()) if benches else []
    main_env = envs[[d / "bench.json" for d in dirs].index(benches[-1])] if benches else envs[0]
    releases = []
    for e in envs:
        if e["cv2_version"] not in releases:
            releases.append(e["cv2_version"])
    releases.sort(key=lambda v: (v != main_env["cv2_version"], v))
    several = len(releases) > 1
    rows, summaries = [], []
    for release in releases:
        mine = [d for d, e in zip(dirs, envs) if e["cv2_version"] == release]
        summaries += [("cv2 %s: " % release if several else "") + pytest_summary(p)
                      for d in mine for p in sorted(d.glob("pytest-*.log"))]
        for r in merge_rows([json.loads((d / "compat-rows.json").read_text()) for d in mine
                             if (d / "compat-rows.json").exists()]):
            rows.append(dict(r, cv2=release))
    return main_env, rows, bench, summaries


def _count(v):
    return "-" if v is None else "{:,}".format(v)


def _sides_text(sides):
    if not sides:
        return "-"
    total = sum(sides.values())
    big = sides.get("257-1024", 0) + sides.get(">1024", 0)
    return "%d%%" % round(100.0 * big / total) if total else "-"


def _releases_text(result):
    others = sorted({r["cv2"] for r in result["rows"] if r.get("cv2", result["cv2_version"]) != result["cv2_version"]})
    if not others:
        return result["cv2_version"]
    return "%s (main release; the GPU suite also ran beside %s: the cv2 column)" % (
        result["cv2_version"], ", ".join(others))


def readme(result, pytest_summary_text=None):
    lines = ["# Compatibility matrix", "",
             "Generated by `compat_matrix/generate.py` from one device run of the test suite and of "
             "`python -m cvgpu bench` at one commit; do not edit by hand.", "",
             "- commit: `%s`" % result.get("commit"),
             "- device: %s" % result["device"],
             "- cv2: %s, CuPy: %s" % (_releases_text(result), result["cupy_version"]),
             "- generated: %s" % result["generated"], "- source digest: `%s`" % result["source_digest"]]
    summary = result.get("pytest") if pytest_summary_text is None else pytest_summary_text
    if summary:
        lines.append("- test suite: %s" % summary)
    if result.get("note"):
        lines.append("- note: %s" % result["note"])
    lines += ["", "## Equivalence", "",
              "| cv2 | function | variant | reference | backend | cases | non-trivial | empty | argument errors | "
              "distinct inputs | > 256 px | exact |",
              "|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in result["rows"]:
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r.get("cv2", result["cv2_version"]), r["function"], r["variant"], r["reference"], r["backend"],
            _count(r["cases"]),
            _count(r.get("nontrivial")), _count(r.get("empty")), _count(r.get("errors")),
            _count(r.get("distinct")) + ("*" if r.get("distinct_summed") else ""), _sides_text(r.get("sides")),
            _count(r["exact"])))
    lines += ["", "`cv2`: the release installed beside cvgpu in that part of the run (the device's own wheel, or "
              "one carried there); the speed section is of the main release. "
              "`backend` says what computed cvgpu's result: `cuda` is cvgpu's own kernels, `cv2` is OpenCV "
              "itself (cvgpu forwards those calls and does not claim them), `none` a call that computed "
              "nothing: an argument error (cv2 raised too, with the same code and message) or an answer "
              "that needed no pixel work. `non-trivial`: the reference returned something non-empty; "
              "`empty`: it returned None or empty arrays. `distinct inputs`: different input arrays and "
              "parameters among the cases (`-` where the test does not report its inputs; `*` summed over "
              "the calls of the run, an upper bound). `> 256 px`: the share of cases whose image's long "
              "side exceeds 256 pixels.", "",
              "## Speed", ""]
    if not result["bench"]:
        lines.append("No benchmark ran in this device run (see the note above).")
        return "\n".join(lines) + "\n"
    lines += ["| function | workload | io | cv2 ms | cvgpu ms | speedup vs cv2 | OpenCV-CUDA ms |",
              "|---|---|---|---:|---:|---:|---:|"]
    for b in result["bench"]:
        lines.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            b["function"], b["workload"], b["io"], "%.3f" % b["cv2_ms"] if b["cv2_ms"] is not None else "-",
            "%.4f" % b["cvgpu_ms"] if b["cvgpu_ms"] is not None else "-",
            "%.1fx" % b["speedup"] if b["speedup"] is not None else "-",
            "%.3f" % b["reference_ms"] if b.get("reference_ms") is not None else "-"))
    return "\n".join(lines) + "\n"


# The user README's exactness table: rewritten by every generation, between these two lines.
TABLE_BEGIN = "<!-- exactness table: written by compat_matrix/generate.py from results.json -->"
TABLE_END = "<!-- end of the exactness table -->"
_REFERENCES = {"cv2-cpu": "cv2 {cv2}", "opencv-cuda-golden": "OpenCV-CUDA's recorded outputs",
               "cpu-model-of-opencv-cuda": "CPU model of OpenCV-CUDA"}


def consistency_only(row):
    """A golden corpus's truncated cases: OpenCV kept an arbitrary maxLines of its candidates and
    only that subset was recorded, so they are checked for consistency, never equality (the seeded
    corpus's truncated cases also compare the full candidate set exactly: not these)."""
    return row["reference"] == "opencv-cuda-golden" and row["variant"].startswith("golden") and \
        row["variant"].endswith("-truncated")


def exactness_table(result):
    """Per function and reference, the cases the GPU computed (backend cuda) beside the main cv2
    release, summed over the matrix's variants, consistency-only rows apart (a line below the
    table); then one line per other release."""
    main_cv2 = result["cv2_version"]
    groups = collections.OrderedDict()
    others = collections.OrderedDict()   # other release -> [cases, exact]
    consistent = collections.OrderedDict()   # function -> [cases, consistent]
    for r in result["rows"]:
        if r["backend"] != "cuda":
            continue
        if consistency_only(r) and r.get("cv2", main_cv2) == main_cv2:
            c = consistent.setdefault(r["function"], [0, 0])
            c[0] += r["cases"]
            c[1] += r["exact"]
            continue
        if r.get("cv2", main_cv2) != main_cv2:
            o = others.setdefault(r["cv2"], [0, 0])
            o[0] += r["cases"]
            o[1] += r["exact"]
            continue
        g = groups.setdefault((r["function"], r["reference"]), {"cases": 0, "nontrivial": 0, "exact": 0,
                                                                  "sides": collections.Counter()})
        g["cases"] += r["cases"]
        g["nontrivial"] += r.get("nontrivial") or 0
        g["exact"] += r["exact"]
        g["sides"].update(r.get("sides") or {})
    lines = [TABLE_BEGIN,
             "| function (GPU path) | compared with | cases | non-trivial | > 256 px | equal |",
             "|---|---|---:|---:|---:|---:|"]
    for (function, reference), g in groups.items():
        lines.append("| %s | %s | %s | %s | %s | %s |" % (
            function, _REFERENCES.get(reference, reference).format(cv2=main_cv2), _count(g["cases"]),
            _count(g["nontrivial"]), _sides_text(g["sides"]),
            "all" if g["exact"] == g["cases"] else _count(g["exact"])))
    if consistent:
        total, agree = sum(c for c, _ in consistent.values()), sum(e for _, e in consistent.values())
        lines += ["", "Consistency only (truncated golden cases): " + ", ".join(
            "%s %s" % (f, _count(c)) for f, (c, _) in consistent.items()) + "; " +
            ("all consistent." if agree == total else "%s consistent." % _count(agree))]
    if others:
        lines += ["", "Beside " + "; beside ".join(
            "cv2 %s: %s GPU cases, %s" % (v, _count(c), "all equal" if e == c else "%s equal" % _count(e))
            for v, (c, e) in sorted(others.items())) + "."]
    lines.append(TABLE_END)
    return lines


def update_user_readme(result, path):
    """Rewrite the exactness table of the README at ``path`` (between TABLE_BEGIN and TABLE_END);
    False where the README has no such block."""
    text = pathlib.Path(path).read_text()
    if TABLE_BEGIN not in text or TABLE_END not in text:
        return False
    head, rest = text.split(TABLE_BEGIN, 1)
    tail = rest.split(TABLE_END, 1)[1]
    pathlib.Path(path).write_text(head + "\n".join(exactness_table(result)) + tail)
    return True


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--from-device", metavar="DIR", nargs="+", required=True,
                    help="the folders of one device run's calls (env.json, compat-rows.json, pytest-*.log, bench.json)")
    ap.add_argument("--out", default=str(ROOT / "compat_matrix"))
    ap.add_argument("--note", default="", help="a line on the run (host, what was not run and why)")
    args = ap.parse_args(argv)
    try:
        env, rows, bench, summaries = read_run([pathlib.Path(d) for d in args.from_device])
    except RunRefused as exc:
        print("generate.py: refused: %s" % exc, file=sys.stderr)
        return 2
    result = {
        "commit": env["commit"],
        "source_digest": env["source_digest"],
        "device": env["device"],
        "cv2_version": env["cv2_version"],
        "cupy_version": env["cupy_version"],
        "generated": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "pytest": "; ".join(summaries),
        "note": args.note,
        "rows": rows,
        "bench": [{k: b.get(k) for k in ("function", "workload", "cv2_ms", "cvgpu_ms", "speedup", "io", "exact",
                                          "reference_ms", "reference_kind")}
                  for b in bench],
    }
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(result, indent=1) + "\n")
    (out / "README.md").write_text(readme(result))
    if pathlib.Path(args.out).resolve() == (ROOT / "compat_matrix").resolve():
        update_user_readme(result, ROOT / "README.md")
    print(readme(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
