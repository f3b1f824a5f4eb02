"""Record OpenCV-CUDA's own outputs on the seeded corpus (tests/cuda/seeded_cases.py).

For each case ``i`` of ``range(N)`` the image and both detectors' parameters are drawn from the seed,
fed to compat_matrix/ocv_batch.cu (OpenCV's cudaimgproc kernels, built from the git-ignored .ocv/),
and stored as digests: the image's, and for the lines and the segment detector each the multiset
digest of OpenCV's output at the case's maxLines and of its full candidate set, with two checks made
here on OpenCV's own output (the truncated output is a sub-multiset of the full set; with doSort
the votes do not increase). The tests make the images again, check their digests and compare
cvgpu's outputs with these (tests/cuda/test_cuda_seeded_golden.py). Run on a GPU machine from the
repository root:

    nvcc -O3 -arch=sm_90 -I.ocv -o /tmp/ocv_batch compat_matrix/ocv_batch.cu
    python3 compat_matrix/record_golden_seeded.py --driver /tmp/ocv_batch --cases 15500 \\
        --out tests/golden/opencv_cuda_seeded.npz
"""
import argparse
import collections
import hashlib
import multiprocessing
import pathlib
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "cuda"), str(ROOT)]
import seeded_cases  # noqa: E402

CASE = struct.Struct("<9i4f")
OPENCV_FILES = ("build_point_list.cu", "hough_lines.cu", "hough_segments.cu")


def _make(i):
    img, kind, lp, sp = seeded_cases.case(i)
    h, w = img.shape
    header = CASE.pack(w, h, lp[2], lp[3], lp[4], sp[2], sp[3], sp[4], sp[5], lp[0], lp[1], sp[0], sp[1])
    return header + np.ascontiguousarray(img).tobytes(), seeded_cases.image_digest(img), (h, w), kind, lp, sp


def parse(path, n):
    """Per case: lines (counts, digests, subset, sorted), segments (counts, digests, subset)."""
    data = memoryview(pathlib.Path(path).read_bytes())
    pos = 0
    out = []
    for _ in range(n):
        lc = np.frombuffer(data[pos:pos + 8], np.int32); pos += 8
        lines = []
        for k in range(2):
            c = int(lc[k])
            ln = np.frombuffer(data[pos:pos + 8 * c], np.float32).reshape(c, 2); pos += 8 * c
            vt = np.frombuffer(data[pos:pos + 4 * c], np.int32); pos += 4 * c
            lines.append((ln, vt))
        sc = np.frombuffer(data[pos:pos + 8], np.int32); pos += 8
        segs = []
        for k in range(2):
            c = int(sc[k])
            segs.append(np.frombuffer(data[pos:pos + 16 * c], np.int32).reshape(c, 4)); pos += 16 * c
        (l0, v0), (l1, v1) = lines
        out.append(dict(
            l_count=(len(l0), len(l1)),
            l_digest=(seeded_cases.lines_digest(l0, v0), seeded_cases.lines_digest(l1, v1)),
            l_subset=seeded_cases.multiset_le(seeded_cases.lines_rows(l0, v0), seeded_cases.lines_rows(l1, v1)),
            l_sorted=seeded_cases.votes_non_increasing(v0),
            s_count=(len(segs[0]), len(segs[1])),
            s_digest=(seeded_cases.segments_digest(segs[0]), seeded_cases.segments_digest(segs[1])),
            s_subset=seeded_cases.multiset_le(segs[0], segs[1])))
    if pos != len(data):
        raise SystemExit("driver output: %d bytes left after %d cases" % (len(data) - pos, n))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--driver", required=True)
    ap.add_argument("--cases", type=int, default=15500)
    ap.add_argument("--out", default=str(ROOT / "tests" / "golden" / "opencv_cuda_seeded.npz"))
    ap.add_argument("--ocv-dir", default=str(ROOT / ".ocv"))
    ap.add_argument("--workers", type=int, default=multiprocessing.cpu_count())
    args = ap.parse_args(argv)
    t0 = time.time()
    digests, shapes, kinds, lparams, sparams = [], [], [], [], []
    with tempfile.TemporaryDirectory() as d:
        res = pathlib.Path(d) / "out.bin"
        proc = subprocess.Popen([args.driver, str(res)], stdin=subprocess.PIPE)
        with multiprocessing.Pool(args.workers) as pool:
            for blob, digest, shape, kind, lp, sp in pool.imap(_make, range(args.cases), chunksize=4):
                proc.stdin.write(blob)
                digests.append(digest); shapes.append(shape); kinds.append(kind); lparams.append(lp); sparams.append(sp)
        proc.stdin.close()
        if proc.wait() != 0:
            raise SystemExit("ocv_batch failed: rc %d" % proc.returncode)
        t1 = time.time()
        results = parse(res, args.cases)
    bad = [i for i, r in enumerate(results) if not (r["l_subset"] and r["s_subset"])]
    unsorted = [i for i, r in enumerate(results) if lparams[i][3] and not r["l_sorted"]]
    if bad or unsorted:
        raise SystemExit("OpenCV's own outputs fail the corpus rules: subset %s, doSort %s" % (bad[:20], unsorted[:20]))
    import cv2
    try:
        device = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                                text=True).stdout.strip()
    except OSError:
        device = "unknown (no nvidia-smi)"
    ocv = {name: hashlib.sha1((pathlib.Path(args.ocv_dir) / name).read_bytes()).hexdigest() for name in OPENCV_FILES}
    np.savez_compressed(
        args.out, seed=np.int64(seeded_cases.SEED), cases=np.int64(args.cases),
        image_digest=np.array(digests, "S40"), shape=np.array(shapes, np.int64), kind=np.array(kinds, "S16"),
        lines_params=np.array(lparams, np.float64), segments_params=np.array(sparams, np.float64),
        lines_count=np.array([r["l_count"] for r in results], np.int64),
        lines_digest=np.array([r["l_digest"] for r in results], "S40"),
        segments_count=np.array([r["s_count"] for r in results], np.int64),
        segments_digest=np.array([r["s_digest"] for r in results], "S40"),
        provenance=np.array(["device: %s" % device, "cv2 (generation only): %s" % cv2.__version__,
                             "numpy: %s" % np.__version__] +
                            ["%s sha1 %s" % kv for kv in sorted(ocv.items())]))
    lc = np.array([r["l_count"] for r in results]); sc = np.array([r["s_count"] for r in results])
    long_side = np.array(shapes).max(axis=1)
    print("recorded %d cases in %.0f s (driver done at %.0f s) -> %s" % (args.cases, time.time() - t0, t1 - t0, args.out))
    print("lines: non-empty full %d, truncated %d; segments: non-empty full %d, truncated %d; > 256 px %.0f%%"
          % ((lc[:, 1] > 0).sum(), sum(1 for i, r in enumerate(results) if r["l_count"][0] >= lparams[i][4]),
             (sc[:, 1] > 0).sum(), sum(1 for i, r in enumerate(results) if r["s_count"][0] >= sparams[i][4]),
             100.0 * (long_side > 256).mean()))
    print("kinds:", dict(collections.Counter(kinds)))


if __name__ == "__main__":
    main()
