"""Measure every contour of every image in a folder (area, bounding box) on all GPUs, into one CSV.

    python examples/dask_contours.py FOLDER [--csv contours.csv]               # every GPU here
    python examples/dask_contours.py FOLDER --gpus 1                            # one GPU
    python examples/dask_contours.py FOLDER --workers-per-gpu 4                 # 4 processes a GPU (MPS)
    python examples/dask_contours.py FOLDER --scheduler tcp://host:8786         # a running cluster
    python examples/dask_contours.py FOLDER --cpu 8                             # 8 CPU workers, cv2
    python examples/dask_contours.py FOLDER --demo 200                          # write 200 demo images first

Each image is read on a worker, thresholded (Otsu), and its contours found (RETR_CCOMP, so holes
have a parent) with ``import cvgpu as cv2``: the GPU where there is one, cv2 on the CPU where there
is none (this script then starts a CPU cluster; the results are the same). One CSV row per contour:
file, contour, parent, area, x, y, w, h; a file that cannot be read or measured is one row with
its error, and the other files go on. Exit status 1 when any file failed.

For a remote cluster (``--scheduler``), the workers need cvgpu installed (``pip install
"cvgpu[dask]"``) and must see FOLDER at the same path (a shared file system).
"""
import argparse
import csv
import glob
import os
import sys

import numpy as np

import cvgpu as cv2

PATTERNS = ("*.png", "*.jpg", "*.jpeg", "*.tif", "*.tiff", "*.bmp")
COLUMNS = ("file", "contour", "parent", "area", "x", "y", "w", "h", "error")


def measure(image):
    """[(contour, parent, area, x, y, w, h)] for every contour of the image's Otsu mask."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    if gray.dtype != np.uint8:
        gray = cv2.normalize(gray, None, 0, 255, cv2.NORM_MINMAX, cv2.CV_8U)
    _, mask = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    rows = []
    for i, contour in enumerate(contours):
        x, y, w, h = cv2.boundingRect(contour)
        rows.append((i, int(hierarchy[0, i, 3]), cv2.contourArea(contour), x, y, w, h))
    return rows


def write_demo_images(folder, n):
    """n PNGs of scikit-image's photographs, flipped and shifted so that they differ."""
    from skimage import data
    os.makedirs(folder, exist_ok=True)
    photos = [data.camera(), data.coins(), data.moon(), data.page(), data.text()]
    for i in range(n):
        img = np.roll(photos[i % len(photos)], (7 * i, 13 * i), axis=(0, 1))
        if i % 3 == 1:
            img = img[:, ::-1]
        cv2.imwrite(os.path.join(folder, "demo_%04d.png" % i), img)


def list_images(folder):
    return sorted({p for pattern in PATTERNS for p in glob.glob(os.path.join(folder, pattern))})


def write_csv(path, results):
    failed = 0
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(COLUMNS)
        for r in results:
            if not r.ok:
                failed += 1
                out.writerow([r.item, "", "", "", "", "", "", "", r.error])
                continue
            for contour, parent, area, x, y, w, h in r.value:
                out.writerow([r.item, contour, parent, repr(float(area)), x, y, w, h, ""])
    return failed


def connect(args):
    """(client, cluster or None) as the flags say."""
    from distributed import Client

    from cvgpu.dask import cpu_cluster, gpu_cluster
    if args.scheduler:
        return Client(args.scheduler), None
    if args.cpu:
        cluster = cpu_cluster(args.cpu, threads_per_worker=1)
    else:
        cluster = gpu_cluster(args.gpus, threads_per_worker=args.threads, workers_per_gpu=args.workers_per_gpu)
    return Client(cluster), cluster


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    ap.add_argument("--csv", default="contours.csv", help="output CSV (default contours.csv)")
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--gpus", type=int, help="GPUs to use on this machine (default: all; none: CPU)")
    where.add_argument("--scheduler", metavar="ADDRESS", help="a running Dask scheduler, e.g. tcp://host:8786")
    where.add_argument("--cpu", type=int, metavar="N", help="N CPU worker processes computing with cv2")
    ap.add_argument("--threads", type=int, default=2, help="threads per GPU worker (default 2)")
    ap.add_argument("--workers-per-gpu", type=int, default=1, metavar="W",
                    help="worker processes per GPU (default 1; several want an MPS server, see the README)")
    ap.add_argument("--demo", type=int, metavar="N", help="first write N demo images into FOLDER")
    args = ap.parse_args(argv)

    if args.demo:
        write_demo_images(args.folder, args.demo)
    paths = list_images(args.folder)
    if not paths:
        ap.error("no images (%s) in %s" % (", ".join(PATTERNS), args.folder))

    from cvgpu.dask import map_images
    client, cluster = connect(args)
    try:
        client.wait_for_workers(1)
        results = map_images(measure, [os.path.abspath(p) for p in paths], client=client)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    failed = write_csv(args.csv, results)
    contours = sum(len(r.value) for r in results if r.ok)
    print("%d images, %d contours -> %s; %d failed" % (len(paths), contours, args.csv, failed))
    for r in results:
        if not r.ok:
            print("  " + r.error, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
