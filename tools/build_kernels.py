"""Compile every kernel module ahead of time into kernels/_aot/ (fatbins + manifest.json).

    python3 tools/build_kernels.py            # rebuild the modules whose source or options changed
    python3 tools/build_kernels.py --all      # rebuild everything
    python3 tools/build_kernels.py --check    # exit 1 if a module's binary is missing or stale (no nvcc needed)

Each module (a kernels/**/*.cu file with its headers inlined, exactly as cvgpu/_kernels.py gives it to
NVRTC) is compiled by nvcc with the run-time options of cvgpu/_kernels.py for every architecture in
``AOT_ARCHS``, once per option set in ``AOT_OPTION_SETS``. The manifest records the sha256 of each
module's source + options and of its binary: at run time a binary is used only when its source hash
is the source's, and tests/tools/test_aot_kernels.py fails on any stale or missing one. Commit the
folder with the change of the .cu that needed it.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cvgpu import _kernels  # noqa: E402

OUT = ROOT / "kernels" / _kernels.AOT_DIR


def modules():
    """[(family, options)] of every module and option set to build."""
    out = []
    for path in sorted((ROOT / "kernels").rglob("*.cu")):
        family = path.relative_to(ROOT / "kernels").with_suffix("").as_posix()
        if family.startswith(_kernels.AOT_DIR + "/"):
            continue
        for options in _kernels.AOT_OPTION_SETS.get(family, ((),)):
            out.append((family, tuple(options)))
    return out


def file_name(family, options):
    tag = hashlib.sha256(" ".join(options).encode()).hexdigest()[:8] if options else ""
    return family.replace("/", "__") + ("__" + tag if tag else "") + ".fatbin"


def stale(manifest):
    """[(family, options, why)] of the modules whose binary is missing or out of date."""
    out = []
    mods = manifest.get("modules", {})
    if tuple(manifest.get("archs", ())) != tuple(_kernels.AOT_ARCHS):
        return [(f, o, "architectures changed") for f, o in modules()]
    for family, options in modules():
        entry = mods.get(_kernels.aot_key(family, options))
        if entry is None:
            out.append((family, options, "no binary"))
        elif entry["source_sha256"] != _kernels.source_hash(family, options):
            out.append((family, options, "source or options changed"))
        elif not (OUT / entry["file"]).is_file():
            out.append((family, options, "binary file missing"))
        elif hashlib.sha256((OUT / entry["file"]).read_bytes()).hexdigest() != entry["binary_sha256"]:
            out.append((family, options, "binary file differs from the manifest"))
    return out


def build_one(family, options):
    source = _kernels.kernel_source(family)
    gencode = []
    for arch in _kernels.AOT_ARCHS:
        gencode += ["-gencode", "arch=compute_%d,code=sm_%d" % (arch, arch)]
    name = file_name(family, options)
    with tempfile.TemporaryDirectory() as d:
        cu = pathlib.Path(d) / (family.replace("/", "__") + ".cu")
        cu.write_text(source)
        out = pathlib.Path(d) / name
        subprocess.run(["nvcc", "-fatbin", *_kernels._BASE_OPTIONS, *options, *gencode, "-Xfatbin", "-compress-all",
                        "-o", str(out), str(cu)], check=True)
        data = out.read_bytes()
    (OUT / name).write_bytes(data)
    return {"file": name, "options": list(options), "source_sha256": _kernels.source_hash(family, options),
            "binary_sha256": hashlib.sha256(data).hexdigest()}


def nvcc_version():
    text = subprocess.run(["nvcc", "--version"], capture_output=True, text=True, check=True).stdout
    return text.strip().splitlines()[-1]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--all", action="store_true", help="rebuild every module")
    ap.add_argument("--check", action="store_true", help="only check; exit 1 when a binary is stale or missing")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--archs", help="comma-separated compute capabilities instead of AOT_ARCHS (a quick build "
                    "for one machine; the committed build uses AOT_ARCHS)")
    a = ap.parse_args(argv)
    if a.archs:
        _kernels.AOT_ARCHS = tuple(int(x) for x in a.archs.split(","))
    path = OUT / "manifest.json"
    manifest = json.loads(path.read_text()) if path.is_file() else {}
    todo = stale(manifest)
    if a.check:
        for family, options, why in todo:
            print("stale: %s: %s" % (_kernels.aot_key(family, options), why))
        print("%d of %d modules stale" % (len(todo), len(modules())))
        return 1 if todo else 0
    if a.all or tuple(manifest.get("archs", ())) != tuple(_kernels.AOT_ARCHS):
        todo = [(f, o, "rebuild") for f, o in modules()]
    OUT.mkdir(parents=True, exist_ok=True)
    mods = {k: v for k, v in manifest.get("modules", {}).items()
            if k in {_kernels.aot_key(f, o) for f, o in modules()}}
    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as pool:
        built = {(f, o): pool.submit(build_one, f, o) for f, o, _ in todo}
        for (family, options), fut in built.items():
            mods[_kernels.aot_key(family, options)] = fut.result()
            print("built %s" % _kernels.aot_key(family, options))
    keep = {m["file"] for m in mods.values()}
    for old in OUT.glob("*.fatbin"):
        if old.name not in keep:
            old.unlink()
    manifest = {"archs": list(_kernels.AOT_ARCHS), "nvcc": nvcc_version() if todo else manifest.get("nvcc"),
                "modules": dict(sorted(mods.items()))}
    path.write_text(json.dumps(manifest, indent=1) + "\n")
    print("%d modules built, %d in the manifest" % (len(todo), len(mods)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
