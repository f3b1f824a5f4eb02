"""``python -m cvgpu <command>`` (also the ``cvgpu`` console script)."""
import sys


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: cvgpu bench [--quick] [--variants] [--json PATH]\n\n"
              "  bench   time cvgpu against cv2 on built-in images (cv2 only when there is no GPU)")
        return 0
    command, rest = argv[0], argv[1:]
    if command == "bench":
        from . import bench
        return bench.main(rest)
    print("cvgpu: unknown command %r (try: cvgpu bench)" % command, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
