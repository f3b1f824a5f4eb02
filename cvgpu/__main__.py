"""``python -m cvgpu <command>`` (also the ``cvgpu`` console script)."""
import importlib
import sys

USAGE = """usage: cvgpu <command> [options]

commands:
  bench     time cvgpu against cv2 on built-in images (cv2 only when there is no GPU)
            cvgpu bench [--quick] [--only FAMILY] [--variants] [--json PATH] [--report DIR]
  compare   run an unmodified OpenCV script with cv2, then with cvgpu as cv2; compare time and outputs
            cvgpu compare [--json PATH] [--markdown PATH] script.py [args...]

'cvgpu <command> --help' describes a command's options."""


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE)
        return 0
    command, rest = argv[0], argv[1:]
    if command == "bench":
        # importlib, not `from . import`: cvgpu forwards unknown names to cv2 (cv2.compare exists).
        return importlib.import_module("cvgpu.bench").main(rest)
    if command == "compare":
        return importlib.import_module("cvgpu._compare").main(rest)
    print("cvgpu: unknown command %r (commands: bench, compare)" % command, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
