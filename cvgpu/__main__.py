"""``python -m cvgpu <command>`` (also the ``cvgpu`` console script)."""
import importlib
import sys

USAGE = """usage: cvgpu <command> [options]
       cvgpu --version

commands:
  bench     time cvgpu against cv2 on built-in images (cv2 only when there is no GPU)
            cvgpu bench [--quick] [--only FAMILY] [--variants] [--json PATH] [--report DIR]
  compare   run an unmodified OpenCV script with cv2, then with cvgpu as cv2; compare time and outputs
            cvgpu compare [--json PATH] [--markdown PATH] script.py [args...]
  selftest  a few hundred generated calls through cvgpu and the installed cv2: what matches
            cvgpu selftest [--scale N] [--seed N] [--show N]

'cvgpu <command> --help' describes a command's options."""


def _cv2_distribution():
    """Which pip package provides the installed cv2 (opencv-python, -headless, -contrib, ...)."""
    import os
    from importlib import metadata

    import cv2
    here = os.path.realpath(cv2.__file__ or "")
    found = []
    for name in ("opencv-contrib-python-headless", "opencv-contrib-python", "opencv-python-headless",
                 "opencv-python"):
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        # The one whose files hold the cv2 that was imported (several may be installed).
        if os.path.realpath(str(dist.locate_file("cv2/__init__.py"))) == here:
            return "%s %s" % (name, dist.version)
        found.append("%s %s" % (name, dist.version))
    return "not from these pip packages: %s" % ", ".join(found) if found else "not installed by pip"


def version_text():
    """cvgpu's, cv2's and CuPy's versions and the device cvgpu computes on."""
    import cv2
    from . import _backend, _versions
    from . import cvgpu_version
    status = _versions.status()
    lines = ["cvgpu %s" % cvgpu_version,
             "cv2 %s (%s)%s" % (cv2.__version__, _cv2_distribution(),
                                "" if status == "validated" else "; outside the validated releases %s-%s: %s"
                                % (_versions.version_text(_versions.VALIDATED[0]),
                                   _versions.version_text(_versions.VALIDATED[-1]), status))]
    try:
        import cupy
        lines.append("cupy %s" % cupy.__version__)
    except Exception:
        lines.append("cupy: not installed")
    cp = _backend.cupy_module()
    if cp is None:
        lines.append("device: none, cv2 computes on the CPU (%s)" % _backend.fallback_reason())
    else:
        props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
        name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
        lines.append("device: %s (%d of %d)" % (name, cp.cuda.Device().id, _backend.device_count()))
    return "\n".join(lines)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        print(USAGE, file=sys.stderr)
        return 2
    if argv[0] in ("-h", "--help", "help"):
        print(USAGE)
        return 0
    if argv[0] in ("--version", "-V", "version"):
        print(version_text())
        return 0
    command, rest = argv[0], argv[1:]
    if command == "selftest":
        return importlib.import_module("cvgpu._selftest").main(rest)
    if command == "bench":
        # importlib, not `from . import`: cvgpu forwards unknown names to cv2 (cv2.compare exists).
        return importlib.import_module("cvgpu.bench").main(rest)
    if command == "compare":
        return importlib.import_module("cvgpu._compare").main(rest)
    print("cvgpu: unknown command %r (commands: bench, compare, selftest)" % command, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
