"""Build cvgpu/_native/hostcall.c into the shared library of this platform, and its manifest entry.

    python3 tools/build_native.py            # build for this platform (needs a C compiler: cc)
    python3 tools/build_native.py --check    # exit 1 if a shipped library is missing or older than its source

The manifest (cvgpu/_native/manifest.json) records, per platform tag, the library's file name, the
sha256 of the source it was built from and of the library itself: cvgpu loads a library only when
its source hash is the shipped source's, and tests/tools/test_native.py fails on a stale one. Commit
the library with the change of hostcall.c that needed it. The library links nothing but libc
(the CUDA driver's entry points are handed to it at run time).
"""
import argparse
import hashlib
import json
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cvgpu import _native  # noqa: E402

HERE = pathlib.Path(_native.HERE)
FLAGS = ["-O2", "-shared", "-fPIC", "-pthread", "-std=c11", "-Wall", "-Werror"]


def stale(manifest):
    """[(tag, why)] of the shipped libraries that are older than the source or missing."""
    out = []
    libraries = manifest.get("libraries", {})
    if not libraries:
        return [("(any)", "no library in the manifest")]
    for tag, entry in sorted(libraries.items()):
        path = HERE / entry["file"]
        if entry["source_sha256"] != _native.source_hash():
            out.append((tag, "source changed"))
        elif not path.is_file():
            out.append((tag, "library file missing"))
        elif hashlib.sha256(path.read_bytes()).hexdigest() != entry["library_sha256"]:
            out.append((tag, "library file differs from the manifest"))
    return out


def build():
    tag = _native.platform_tag()
    name = _native.library_name(tag)
    cc = os.environ.get("CC", "cc")
    with tempfile.TemporaryDirectory() as d:
        out = pathlib.Path(d) / name
        subprocess.run([cc, *FLAGS, "-o", str(out), str(HERE / _native.SOURCE)], check=True)
        data = out.read_bytes()
    (HERE / name).write_bytes(data)
    manifest = _native.manifest() or {}
    manifest.setdefault("libraries", {})[tag] = {
        "file": name, "source_sha256": _native.source_hash(),
        "library_sha256": hashlib.sha256(data).hexdigest(), "compiler": cc, "flags": FLAGS}
    (HERE / _native.MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    print("built %s (%d bytes)" % (name, len(data)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    if args.check:
        problems = stale(_native.manifest())
        for tag, why in problems:
            print("%s: %s" % (tag, why))
        sys.exit(1 if problems else 0)
    build()


if __name__ == "__main__":
    main()
