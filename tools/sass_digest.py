"""Per-kernel machine-code (SASS) digests of every kernels/**/*.cu, compiled here with nvcc for one architecture.

A move of kernel code (a file split, a rename of the file that holds it) must leave each kernel's
machine code unchanged: run this before and after, and compare the two listings (``--diff OLD``).
nvcc is used, not NVRTC, so that no GPU or CuPy is needed; both share the same front end and
back end, so a kernel whose nvcc SASS is unchanged is unchanged for NVRTC too unless its options
differ. Options: the run-time base options of cvgpu/_kernels.py plus each extra option set given
with ``--options`` (repeatable, e.g. ``--options=-DCVGPU_WIDE_POINTS``).

    python3 tools/sass_digest.py > before.txt
    ... move code ...
    python3 tools/sass_digest.py --diff before.txt
"""
import argparse
import hashlib
import pathlib
import struct
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def families():
    return sorted(p.relative_to(ROOT / "kernels").with_suffix("").as_posix() for p in (ROOT / "kernels").rglob("*.cu"))


def sass_by_function(source, options, arch):
    with tempfile.TemporaryDirectory() as d:
        cu, cubin = pathlib.Path(d, "k.cu"), pathlib.Path(d, "k.cubin")
        cu.write_text(source)
        subprocess.run(["nvcc", "-cubin", "-arch=" + arch, *options, "-o", str(cubin), str(cu)], check=True)
        data = cubin.read_bytes()
    return {name: hashlib.sha256(code).hexdigest()[:16] for name, code in _text_sections(data).items()}


def _text_sections(elf):
    """{kernel: machine code} from a cubin's ``.text.<kernel>`` sections (64-bit little-endian ELF):
    the SASS itself, read without cuobjdump."""
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize) for i in range(shnum)]
    names_off = sections[shstrndx][4]
    out = {}
    for name_off, _type, _flags, _addr, offset, size, *_ in sections:
        end = elf.index(b"\0", names_off + name_off)
        name = elf[names_off + name_off:end].decode()
        if name.startswith(".text."):
            out[name[len(".text."):]] = elf[offset:offset + size]
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--options", action="append", default=[])
    ap.add_argument("--diff", metavar="OLD", help="compare with an earlier listing; exit 1 when a kernel differs")
    a = ap.parse_args(argv)
    from cvgpu._kernels import _BASE_OPTIONS, kernel_source
    option_sets = [()] + [tuple(o.split()) for o in a.options]
    rows = {}
    for fam in families():
        for extra in option_sets:
            src = kernel_source(fam)
            for fn, digest in sass_by_function(src, list(_BASE_OPTIONS) + list(extra), a.arch).items():
                rows["%s %s" % (" ".join(extra) or "-", fn)] = (digest, fam)
    if not a.diff:
        for key in sorted(rows):
            print("%s %s %s" % (key, rows[key][0], rows[key][1]))
        return 0
    old = {}
    for line in pathlib.Path(a.diff).read_text().splitlines():
        opt, fn, digest, fam = line.split()
        old["%s %s" % (opt, fn)] = (digest, fam)
    bad = 0
    for key in sorted(set(old) | set(rows)):
        o, n = old.get(key), rows.get(key)
        if o is None or n is None or o[0] != n[0]:
            bad += 1
            print("DIFF %s: %s -> %s" % (key, o, n))
    print("%d kernels compared, %d differ" % (len(set(old) | set(rows)), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
