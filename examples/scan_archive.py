"""Layout statistics over an archive of scanned book spreads: Otsu, then cv2.findContours (RETR_TREE).

    python examples/scan_archive.py [--pages 500] [--csv pages.csv] [--quick]

Each scan is a 1920x1080 two-page spread: headings, paragraphs, tables and the odd ink stamp, with
the gutter's shadow and scanner noise. The archive is synthetic and deterministic: the blocks are
rendered once (OpenCV's Hershey fonts) and each spread is composed from them with its own layout
and shifts, so making a page costs little next to reading it. Each page is binarized with Otsu's
threshold and its contours found with their full hierarchy; from the tree the script counts the
glyphs (top-level shapes of text size), their holes (the counters of o, e, a...), the table cells (the
4-point holes of a table's outline) and the stamps (large round rings). ``--csv`` writes one row per
page. Prints one line with the archive's totals. ``--quick`` reads 4 pages.
Runs unchanged under `cvgpu compare examples/scan_archive.py`.
"""
import argparse
import csv

import cv2
import numpy as np

W, H = 1920, 1080
WORDS = ("the of and to in archive record volume page letter council minutes meeting report year "
         "shall be said town mill river street house land rent paid received from by with for "
         "account sum total note copy entered clerk order sealed dated witness hereby").split()


def render_paragraph(rng, width, lines, scale=0.55, thickness=1, indent=40):
    line_h = int(27 * scale / 0.55)
    tile = np.full((lines * line_h + 12, width), 255, np.uint8)
    for i in range(lines):
        x = indent if i == 0 else 0
        words = []
        while True:
            word = str(rng.choice(WORDS))
            (tw, _), _ = cv2.getTextSize(" ".join(words + [word]), cv2.FONT_HERSHEY_SIMPLEX, scale, thickness)
            if x + tw > width - 10 or (i == lines - 1 and len(words) > 4):
                break
            words.append(word)
        cv2.putText(tile, " ".join(words), (x, (i + 1) * line_h - 8), cv2.FONT_HERSHEY_SIMPLEX, scale, 0,
                    thickness, cv2.LINE_8)
    return tile


def render_table(rng, rows, cols, cell_w=120, cell_h=34):
    tile = np.full((rows * cell_h + 3, cols * cell_w + 3), 255, np.uint8)
    for r in range(rows + 1):
        cv2.line(tile, (1, 1 + r * cell_h), (1 + cols * cell_w, 1 + r * cell_h), 0, 2)
    for c in range(cols + 1):
        cv2.line(tile, (1 + c * cell_w, 1), (1 + c * cell_w, 1 + rows * cell_h), 0, 2)
    for r in range(rows):
        for c in range(cols):
            text = str(rng.choice(WORDS))[:7] if c == 0 else "%d.%02d" % (rng.integers(1, 999), rng.integers(0, 99))
            cv2.putText(tile, text, (8 + c * cell_w, (r + 1) * cell_h - 10), cv2.FONT_HERSHEY_SIMPLEX, 0.5, 0, 1)
    return tile


def render_stamp(rng, text):
    size = 190
    tile = np.full((size, size), 255, np.uint8)
    c = (size // 2, size // 2)
    cv2.circle(tile, c, 86, 0, 4)
    cv2.circle(tile, c, 66, 0, 2)
    cv2.putText(tile, text, (c[0] - 52, c[1] + 8), cv2.FONT_HERSHEY_DUPLEX, 0.75, 0, 2)
    rot = cv2.getRotationMatrix2D(c, float(rng.integers(-30, 30)), 1.0)
    return cv2.warpAffine(tile, rot, (size, size), borderValue=255)


class Archive:
    """The building blocks, rendered once; page(i) composes spread i from them."""

    def __init__(self, seed=2024):
        rng = np.random.default_rng(seed)
        self.seed = seed
        self.col_w = 820
        self.headings = [render_paragraph(rng, self.col_w, 1, scale=1.1, thickness=2, indent=0) for _ in range(4)]
        self.paragraphs = [render_paragraph(rng, self.col_w, int(n)) for n in (5, 8, 9, 11, 6, 10, 4, 7, 9, 6, 10, 5)]
        self.tables = [render_table(rng, 8, 6), render_table(rng, 5, 5, cell_w=150)]
        self.stamps = [render_stamp(rng, t) for t in ("PAID", "FILED")]
        # The spread's background: paper tone falling off into the gutter's shadow.
        x = np.abs(np.arange(W, dtype=np.float32) - W / 2) / (W / 2)
        tone = 236 - 70 * np.exp(-(x * 14) ** 2)
        self.background = np.repeat(tone[None, :], H, axis=0).astype(np.uint8)
        self.noise = [rng.integers(0, 26, (H, W), dtype=np.uint8) for _ in range(3)]

    def page(self, i):
        rng = np.random.default_rng((self.seed, i))
        page = cv2.subtract(self.background, self.noise[i % len(self.noise)])  # paper grain, scanner noise
        for left in (60, W // 2 + 60):
            x0 = left + int(rng.integers(-12, 12))
            y = 70 + int(rng.integers(-10, 10))
            blocks = [self.headings[int(rng.integers(len(self.headings)))]] if rng.random() < 0.5 else []
            while True:
                roll = rng.random()
                if roll < 0.12:
                    block = self.tables[int(rng.integers(2))]
                else:
                    block = self.paragraphs[int(rng.integers(len(self.paragraphs)))]
                if y + sum(b.shape[0] + 18 for b in blocks) + block.shape[0] > H - 60:
                    break
                blocks.append(block)
            for block in blocks:
                h, w = block.shape
                region = page[y:y + h, x0:x0 + w]
                np.minimum(region, block, out=region)
                y += h + 18
            if rng.random() < 0.25:
                stamp = self.stamps[int(rng.integers(2))]
                sy, sx = int(rng.integers(H - 420, H - 200)), x0 + int(rng.integers(300, 600))
                region = page[sy:sy + stamp.shape[0], sx:sx + stamp.shape[1]]
                np.minimum(region, stamp, out=region)
        return page


def layout_counts(contours, hierarchy):
    """Counts from one page's contour tree (cv2's [next, previous, first_child, parent] rows)."""
    if hierarchy is None:
        return {"contours": 0, "glyphs": 0, "holes": 0, "cells": 0, "tables": 0, "stamps": 0}
    hier = hierarchy[0]
    parent = hier[:, 3]
    top = parent < 0
    # A table is a shape with many holes (a glyph has at most two) that are cells: boxes that
    # CHAIN_APPROX_SIMPLE reduced to a few corners (a hole's border cuts its corners: up to 8 points).
    # The cells' text lies inside the cells, a level further down.
    lengths = np.fromiter(map(len, contours), np.int64, len(contours))
    children = np.bincount(parent[~top], minlength=len(contours))
    tables, cells, not_glyphs = 0, 0, []
    for k in np.flatnonzero(top & (children >= 12)):
        boxes = 0
        for c in np.flatnonzero(parent == k):
            if lengths[c] <= 8:
                x, y, w, h = cv2.boundingRect(contours[c])
                boxes += w >= 30 and h >= 20 and cv2.contourArea(contours[c]) > 0.9 * w * h
        if boxes >= 12:
            tables += 1
            cells += boxes
            not_glyphs.append(k)
    stamps = 0
    for k in np.flatnonzero(top & (lengths > 60)):  # a stamp's outer ring: a large, round top-level border
        (cx, cy), r = cv2.minEnclosingCircle(contours[k])
        if r > 60 and cv2.contourArea(contours[k]) > 0.8 * np.pi * r * r:
            stamps += 1
            not_glyphs.append(k)
    glyph = top.copy()
    glyph[not_glyphs] = False
    glyphs = int(np.count_nonzero(glyph))
    holes = int(np.count_nonzero(glyph[parent[~top]]))  # the counters of o, e, a...
    return {"contours": len(contours), "glyphs": glyphs, "holes": holes, "cells": cells, "tables": tables,
            "stamps": stamps}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=500)
    ap.add_argument("--csv", help="per-page counts to write")
    ap.add_argument("--quick", action="store_true", help="4 pages (for tests)")
    args = ap.parse_args()
    n_pages = 4 if args.quick else args.pages
    if n_pages < 1:
        ap.error("--pages must be at least 1")

    archive = Archive()
    rows, totals = [], {}
    for i in range(n_pages):
        scan = archive.page(i)
        _, ink = cv2.threshold(scan, 0, 255, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
        contours, hierarchy = cv2.findContours(ink, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)
        counts = layout_counts(contours, hierarchy)
        rows.append(dict(page=i + 1, **counts))
        for k, v in counts.items():
            totals[k] = totals.get(k, 0) + v
    if args.csv:
        with open(args.csv, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    print("%d spreads %dx%d: %d contours, %d glyphs with %d holes, %d tables with %d cells, %d stamps"
          % (n_pages, W, H, totals.get("contours", 0), totals.get("glyphs", 0), totals.get("holes", 0),
             totals.get("tables", 0), totals.get("cells", 0), totals.get("stamps", 0)))


if __name__ == "__main__":
    main()
