"""What a findContours call costs on an image of a shape not met before, against a repeat of the
same image (the compat properties' examples are mostly new shapes; so are a document scanner's
crops). One process, engine pinned to the GPU, the property's own generators (tests/contours).
Prints, per family of cases (8-bit images() TREE SIMPLE, label_cases() CCOMP SIMPLE) and side
tier: cv2, cvgpu first call on the shape, cvgpu repeat (ms sums), then cProfile of the first calls.

    python3 shape_cost.py [N]      (from the repository root)
"""
import cProfile, io, json, os, pstats, sys, time
os.environ["CVGPU_ENGINE"] = "cuda"
sys.path[:0] = ["tests", "tests/contours", "tests/models", "."]
import numpy as np, cv2
from hypothesis import given, settings, HealthCheck
import cvgpu
import test_find_contours as tf
import test_find_contours_labels as tl

N = int(sys.argv[1]) if len(sys.argv) > 1 else 300


def draw(strategy, n, seed):
    out = []

    @settings(max_examples=n, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(case=strategy)
    def collect(case):
        out.append(case)
    collect()
    return out[:n]


def tier(img):
    s = max(img.shape)
    return "<=48" if s <= 48 else "49-256" if s <= 256 else "257-1024" if s <= 1024 else ">1024"


def run(name, cases, mode, method):
    imgs = []
    for c in cases:
        if name == "labels":
            img, off = c.build()
            if not (img.size > 64 * 64 or tl.defined_small(img, off or (0, 0))):
                continue
        else:
            img = c.build()
        imgs.append(img)
    cvgpu.findContours(np.zeros((7, 9), imgs[0].dtype), mode, method)  # the family started
    rows = {}
    first_calls = []
    for img in imgs:
        t0 = time.perf_counter(); cv2.findContours(img, mode, method); t1 = time.perf_counter()
        cvgpu.findContours(img, mode, method); t2 = time.perf_counter()
        assert cvgpu.last_call_backend() == "cuda" or os.environ.get("SHAPE_COST_CPU")
        cvgpu.findContours(img, mode, method); t3 = time.perf_counter()
        r = rows.setdefault(tier(img), [0, 0.0, 0.0, 0.0])
        r[0] += 1; r[1] += t1 - t0; r[2] += t2 - t1; r[3] += t3 - t2
    out = {"family": name, "tiers": {k: {"n": v[0], "cv2_ms": 1e3 * v[1], "first_ms": 1e3 * v[2],
                                         "repeat_ms": 1e3 * v[3]} for k, v in rows.items()}}
    print(json.dumps(out), flush=True)
    # cProfile of first calls on new shapes (each image shifted by one row: a shape not met)
    prof = cProfile.Profile()
    shifted = [np.ascontiguousarray(np.pad(i, ((0, 1), (0, 0)))) for i in imgs]
    prof.enable()
    for img in shifted:
        cvgpu.findContours(img, mode, method)
    prof.disable()
    s = io.StringIO()
    st = pstats.Stats(prof, stream=s).sort_stats("tottime"); st.print_stats(30)
    st.sort_stats("cumtime"); st.print_stats(40)
    print(s.getvalue()[:16000], flush=True)


run("u8", draw(tf.images(), N, 1), cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)
run("labels", draw(tl.label_cases(), N, 2), cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
