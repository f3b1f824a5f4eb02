"""Count the Python work of the Hough families' per-call paths, and check what their kernels read,
on a machine without a GPU (CuPy replaced by tools/fake_cupy.py).

For each scenario the steady-state call (after the captures) is traced: the bytecode instructions
executed in cvgpu's own frames, the Python functions of cvgpu entered, and the calls those frames
make into C (builtins, numpy) and into CuPy. Time is not measured here (the GPU machine does
that); the counts say whether a change added host work to a path. Each call's collection and
maxima kernels must have read this call's image pointer, row step, load width, threshold and
output pointer (from the call words in graph mode), which checks the call-word plumbing.

    python tools/hot_path_ops.py
"""
import collections
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)

import fake_cupy  # noqa: E402

fake_cupy.install()

import numpy as np  # noqa: E402

import cvgpu  # noqa: E402

cvgpu.set_engine("cuda")  # the GPU path of every call is what is counted

CVGPU = os.path.join(ROOT, "cvgpu") + os.sep
FAKE = os.path.join(HERE, "fake_cupy.py")


class Counter:
    def __init__(self):
        self.ops = 0
        self.functions = collections.Counter()
        self.c_calls = collections.Counter()
        self.cupy_calls = collections.Counter()

    def trace(self, frame, event, arg):
        if event != "call":
            return None
        name = frame.f_code.co_filename
        if name.startswith(CVGPU):
            self.functions[frame.f_code.co_name] += 1
            frame.f_trace_opcodes = True
            return self.local
        if name == FAKE and frame.f_back is not None and frame.f_back.f_code.co_filename.startswith(CVGPU):
            self.cupy_calls[frame.f_code.co_name] += 1
        return None

    def local(self, frame, event, arg):
        if event == "opcode":
            self.ops += 1
        return self.local

    def profile(self, frame, event, arg):
        if event == "c_call" and frame.f_code.co_filename.startswith(CVGPU):
            self.c_calls[getattr(arg, "__qualname__", getattr(arg, "__name__", repr(arg)))] += 1

    def run(self, fn):
        sys.settrace(self.trace)
        sys.setprofile(self.profile)
        try:
            return fn()
        finally:
            sys.settrace(None)
            sys.setprofile(None)

    def summary(self):
        return "%4d bytecodes, %2d cvgpu functions, %2d C calls, %2d CuPy calls" % (
            self.ops, sum(self.functions.values()), sum(self.c_calls.values()), sum(self.cupy_calls.values()))

    def detail(self):
        return ("    functions: %s\n    C calls: %s\n    CuPy: %s" % (
            dict(self.functions), dict(self.c_calls), dict(self.cupy_calls)))


def _ptr(a):
    return a.data.ptr


def check_lines_call(image, threshold, result, device):
    """The last collection and maxima kernels read this call's words."""
    collect, maxima = [e for e in fake_cupy.LOG if "image" in e][-1], [e for e in fake_cupy.LOG if "out" in e][-1]
    step = image.strides[0]
    if not device:  # a host image is uploaded: its copy's pointer
        image = fake_cupy.ndarray(None, _a=np.empty(image.shape, np.uint8))
        image._a = np.ndarray(image.shape, np.uint8, buffer=(fake_cupy.ctypes.c_char * image.size).from_address(
            collect["image"][0]))
    width = 16 if _ptr(image) % 16 == 0 and step % 16 == 0 and image.shape[1] % 16 == 0 else 4
    assert collect["image"] == (_ptr(image), step, width), (collect, _ptr(image), step)
    assert maxima["threshold"] == threshold, maxima
    if device:
        assert maxima["out"] == _ptr(result), (maxima, _ptr(result))
    else:
        assert maxima["out"] == 0, maxima


def scenario(title, calls, check, verbose):
    """``calls``: a list of thunks, the last one counted (the ones before warm up: captures)."""
    for i, thunk in enumerate(calls[:-1]):
        check(i, thunk())
    counter = Counter()
    out = counter.run(calls[-1])
    check(len(calls) - 1, out)
    print("%-62s %s" % (title, counter.summary()))
    if verbose:
        print(counter.detail())
    return counter


def main(argv):
    verbose = "-v" in argv
    cp = fake_cupy
    theta = math.pi / 180
    img = np.zeros((1024, 1024), np.uint8)
    img[100, 10:600] = 255
    img[700, 300:900] = 255
    d = cp.asarray(img)
    thresholds = [40, 41, 42, 43, 44, 45]

    def lines(fn, arr, device=True, new_arrays=False):
        calls, args = [], []
        for i, t in enumerate(thresholds):
            a = cp.asarray(img.copy()) if new_arrays else arr
            args.append((a, t))
            calls.append(lambda a=a, t=t: getattr(cvgpu, fn)(a, 1, theta, t))

        def check(i, result):
            a, t = args[i]
            assert cvgpu.last_call_backend() == "cuda"
            check_lines_call(a, t, result, device)
        return calls, check

    scenario("HoughLines, one device array (hot, lean graph)", *lines("HoughLines", d), verbose)
    scenario("HoughLinesWithAccumulator, one device array (hot, lean graph)",
             *lines("HoughLinesWithAccumulator", d), verbose)
    scenario("HoughLines, a new device array a call (full graph)", *lines("HoughLines", d, new_arrays=True), verbose)
    scenario("HoughLines, numpy image (full graph, host result)", *lines("HoughLines", img, device=False), verbose)

    det = cvgpu.cuda.createHoughLinesDetector(1, theta, 40, True)
    gm = cvgpu.cuda.GpuMat(d)

    def check_detect(i, result):
        maxima = [e for e in fake_cupy.LOG if "out" in e][-1]
        collect = [e for e in fake_cupy.LOG if "image" in e][-1]
        assert collect["image"][0] == _ptr(d), collect
        assert maxima["out"] == _ptr(result._arr), (maxima, _ptr(result._arr))

    scenario("cuda detect, one GpuMat (hot, lean graphs)", [lambda: det.detect(gm)] * 6, check_detect, verbose)
    out = det.detect(gm)
    check_detect(0, out)
    counter = Counter()
    counter.run(lambda: det.downloadResults(out))
    print("%-62s %s" % ("cuda downloadResults of that result", counter.summary()))
    if verbose:
        print(counter.detail())
    mats = [cvgpu.cuda.GpuMat(d) for _ in range(6)]
    scenario("cuda detect, a new GpuMat a call (full graph)", [lambda m=m: det.detect(m) for m in mats],
             check_detect, verbose)
    print("call words checked on %d kernel runs" % len(fake_cupy.LOG))
    return check_declarations(cp, img, d, theta)


def check_declarations(cp, img, d, theta):
    """Run the other paths (full argument layer, direct launches, forced voting variants and grids,
    a stream, an output argument), then check every launch plan's kernels: each argument declared
    by name (cvgpu._graphs.Kernel) must be the kernel's parameter of that name, in its order."""
    import gc
    from cvgpu import _graphs
    from cvgpu.hough import TUNING
    cvgpu.HoughLines(d, 1, theta, 40, None, 0, 0, 0.0, math.pi)
    cvgpu.HoughLinesWithAccumulator(img, 1, theta, 40, min_theta=0.1)
    # The weighted-vote kernels, where the installed cv2's accumulator binding has use_edgeval (4.12+).
    from cvgpu.hough import lines as hough_lines
    edgeval = {"use_edgeval": True} if "HoughLinesWithAccumulator" in hough_lines.EDGEVAL_FUNCTIONS else {}
    for force in (dict(vote="global"), dict(vote_grid=(1, 3)), dict(vote_grid=(2, 2)), dict(vote_grid=(4, 5))):
        with TUNING.override(**force):
            for _ in range(3):
                cvgpu.HoughLines(d, 1, theta, 40)
                cvgpu.HoughLinesWithAccumulator(img, 1, theta, 40, **edgeval)
                det = cvgpu.cuda.createHoughLinesDetector(1, theta, 40, False, 10)
                det.downloadResults(det.detect(cvgpu.cuda.GpuMat(d)))
    det = cvgpu.cuda.createHoughLinesDetector(2, theta, 30)
    stream = cvgpu.cuda.Stream()
    for _ in range(3):
        det.detect(d, None, stream)
        out = cvgpu.cuda.GpuMat()
        assert det.detect(cvgpu.cuda.GpuMat(d), out) is out
    bad, kernels = [], 0
    for plan in [o for o in gc.get_objects() if isinstance(o, _graphs.GraphPlan)]:
        for k in plan.kernels + (plan.lean_first,):
            kernels += 1
            if list(k.args) != k.fn.params:
                bad.append((k.fn.name, list(k.args), k.fn.params))
    for b in bad:
        print("DECLARATION", b)
    print("kernel declarations checked: %d launches, %d wrong; paths: %s" % (
        kernels, len(bad), dict(sorted(TUNING.paths().items()))))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
