"""The host-side twin of kernels/hough/voting.cuh, for both Hough line families (cvgpu.hough.lines:
cv2.HoughLines; cvgpu.cuda.hough: OpenCV-CUDA's detector): the call words their graphs begin with,
the grids and shared-memory windows the voting kernels assume, and the families' tuned values.

The voting kernels take K consecutive angles and a slice of the point list per block and vote into
K shared-memory rows, each only as wide as the block's votes can reach (vote_window); a row too long
for shared memory votes with global atomics instead. One wave of blocks is the rule (a short second
wave costs as much as the first); within it, a point is loaded once per K angles and every slice
adds a flush of its rows, which vote_config and one_wave_vote_config weigh.
"""
import contextlib

import numpy as np

from .. import _kernels, _tuning
from .._cvmath import cdiv


class _HoughTuning(_tuning.Tuning):
    """A Tuning whose override also drops what was built under the values before it (launch
    plans, buffers, hot calls): a forced path applies from the very next call. ``generation``
    changes at each override's start and end; plan keys include it."""

    def __init__(self, family, **values):
        super().__init__(family, **values)
        object.__setattr__(self, "generation", 0)
        object.__setattr__(self, "_on_change", [])

    def on_change(self, forget):
        """Call ``forget()`` whenever an override starts or ends."""
        self._on_change.append(forget)

    def _changed(self):
        object.__setattr__(self, "generation", self.generation + 1)
        for forget in self._on_change:
            forget()

    @contextlib.contextmanager
    def override(self, **values):
        try:
            with super().override(**values):
                self._changed()
                yield self
        finally:
            self._changed()


# Paths counted (TUNING.ran): lines.direct, lines.graph, lines.lean-graph, lines.hot, lines.host-hot, lines.vote-shared,
# lines.vote-global, lines.vote-grid, lines.sort-host; detector.direct,
# detector.graph, detector.lean-graph, detector.hot, detector.vote-shared, detector.vote-global,
# detector.vote-grid, detector.sort-host. Each is counted where the decision is made (a plan's build,
# a capture, a call made hot), never on a replay.
TUNING = _HoughTuning(
    "hough",
    # Voting in shared-memory rows ("auto": where a row fits a block's shared memory, else global
    # atomics); "shared" or "global" forces one (bench rows: HoughLines[vote-shared], [vote-global]).
    vote="auto",
    # (angles per block, point slices) of the shared-memory voting grid, forced; None: the rules below.
    # Angles per block: 1, 2 or 4 for HoughLines, 1 to 4 for the detector (the kernels that exist).
    vote_grid=None,
    # A slice of the point list votes at least this many points: fewer flush rows that carry few
    # votes (bench row: HoughLines segments 1024x1024 10k pts).
    vote_min_points=4096,
    # Slices per angle group at most, where the groups fill the GPU; below it one wave decides (bench
    # row: HoughLines segments 1024x1024 164k pts, where one wave gives 4 angles x 8 slices).
    vote_max_splits=16,
    # Four angles per voting block where this many such blocks fit one SM's shared memory, else one
    # (bench row: HoughLines segments 1024x1024 164k pts: 4 angles a block beat 2 and 1).
    vote4_resident=3,
    # HoughLines' hough_zero_after blocks per SM at most (the grid that zeroed the accumulator in the
    # collection, bench row HoughLines segments 512x512 82k pts; the zeroing is now off the path to
    # the count).
    zero_blocks_per_sm=8,
    # HoughLines' maxima blocks (1024 threads) per SM at most: one wave (bench row: HoughLines segments
    # 8192x8192 82k pts).
    maxima_blocks_per_sm=2,
    # HoughLines' maxima scan only the accumulator columns each row's votes can reach (as the
    # detector's), where every vote stays in its row; False: every interior cell (bench rows:
    # HoughLines device on photographs' Canny edges, beside the detector).
    lines_windowed=True,
    # ... with this many of its 1024-thread blocks per SM at most (the windowed scan's 56 registers a
    # thread leave room for one; as detector_maxima_blocks_per_sm).
    lines_windowed_blocks_per_sm=1,
    # The detector's ch_maxima blocks (1024 threads) per SM: one. Its last block waits for every
    # block's ticket, and half the blocks finish sooner on photographs' edge maps, where the
    # scan is short (bench rows: cuda.HoughLinesDetector, photo coffee 640x480 and 1280x720 Canny).
    detector_maxima_blocks_per_sm=1,
    # Without doSort, the detector's ch_maxima blocks each write their own lines at their final
    # places (kernels/cuda/hough.cu, "the direct write") instead of the last block ranking and
    # writing them all; False: the last block does (bench rows: cuda.HoughLinesDetector, "up to
    # 2,000 lines").
    detector_direct_write=True,
    # ... once the detector's last detect found at least this many lines: the direct write puts a
    # chained scan and a second system fence on the path to the count (+0.5-4 us at 20-500 lines),
    # and takes the last block's ranking of ~1,900 lines off it (-6 to -7 us) (bench rows:
    # cuda.HoughLinesDetector, photo camera ... "up to 2,000 lines" and the rows of 20-500 lines;
    # compat_matrix/HISTORY.md, "The detector's direct write").
    detector_direct_min_lines=1024,
    # ... keeping at most this many keys a block in shared memory (a block with more leaves the
    # writing to the last block); each block ranks its keys pairwise, so this bounds that work (no
    # bench row: the photographs' blocks hold tens of keys; tests force a small value).
    detector_direct_own_cap=2048,
    # HoughLines' global-atomics voting: blocks per SM along the points, angles per block (bench
    # row: HoughLines[vote-global], segments 1024x1024 164k pts).
    global_blocks_per_sm=4,
    global_angles=8,
    # The detector's global-atomics voting: blocks per SM over all angles, one angle per block (no
    # bench row: every benchmark image's rows fit shared memory; rows of over ~58k bins, images of
    # over ~29k pixels a side at rho 1, vote so).
    detector_global_blocks_per_sm=8,
    # HoughLines on a numpy image sends it up as one bit a pixel (hostcall.c's bit image, read by
    # hough_collect_bits) where cvgpu._native's helpers load; False sends the bytes (bench rows:
    # HoughLines numpy, photo ... Canny; compat_matrix/HISTORY.md, "HoughLines sends bits").
    host_bits=True,
)

# Fixed by the kernels, not tuned: threads of a voting block (__launch_bounds__(512)), pixels of a
# collection chunk (a warp's 32 lanes x 16) and chunks per collection tile (8 warps of 256 threads).
VOTE_THREADS = 512
COLLECT_CHUNK = 512
COLLECT_TILE_CHUNKS = 8

# The call words both families' graphs begin with: the image's (kernels/hough/voting.cuh:
# HOUGH_WORD_*); a lean graph keeps them. (name, the kernel parameter's type in a direct launch)
IMAGE_WORDS = (("image_ptr", np.uint64), ("row_step", np.int64), ("load_width", np.int32))


def collect_grid(rows, cols):
    """Blocks of the collection kernels: one per tile (8 chunks of 512 pixels of a row, one per
    warp)."""
    return max(cdiv(rows * cdiv(cols, COLLECT_CHUNK), COLLECT_TILE_CHUNKS), 1)


def load_width(ptr, step, cols):
    """The widest load (16, 4 or 1 bytes) hough_collect may use for an 8-bit image at ``ptr``: every
    row starts on a boundary of that many bytes and holds whole words of it."""
    if ptr % 16 == 0 and step % 16 == 0 and cols % 16 == 0:
        return 16
    return 4 if ptr % 4 == 0 and step % 4 == 0 and cols % 4 == 0 else 1


def vote_variant(row_bytes, limit):
    """"shared" when an accumulator row of ``row_bytes`` fits in ``limit`` bytes of a block's shared
    memory, else "global"; TUNING.vote forces either."""
    forced = TUNING.vote
    if forced != "auto":
        return forced
    return "shared" if row_bytes <= limit else "global"


def vote_window(tab_cos, tab_sin, rows, cols, per_block, row_cells):
    """Shared-memory columns per accumulator row of a voting block of ``per_block`` consecutive
    angles (kernels/hough/voting.cuh: hough_window_lo, hough_in_window), enough for the block that
    needs most, at most ``row_cells``. The votes of angle (c, s) lie between the extremes of
    x * c + y * s over the image's corners: about (cols - 1)|c| + (rows - 1)|s| bins of a row of
    2 (rows + cols) + 1. Generous by a few columns: a block whose votes do not fit is still exact,
    only slower (range-checked)."""
    c = np.asarray(tab_cos, dtype=np.float64)
    s = np.asarray(tab_sin, dtype=np.float64)
    ax, ay = (cols - 1) * c, (rows - 1) * s
    lo = np.minimum(ax, 0) + np.minimum(ay, 0)
    hi = np.maximum(ax, 0) + np.maximum(ay, 0) + (np.abs(ax) + np.abs(ay)) * 1e-6 + 2
    pad = (-len(c)) % per_block
    with np.errstate(invalid="ignore"):
        lo = np.concatenate([lo, np.full(pad, np.inf)]).reshape(-1, per_block).min(axis=1)
        hi = np.concatenate([hi, np.full(pad, -np.inf)]).reshape(-1, per_block).max(axis=1)
        need = np.ceil(hi) - np.floor(lo) + 6  # the device's lo is floor(lowest) - 3
    need = need[np.isfinite(need)]
    if need.size == 0:
        return row_cells
    return int(min(row_cells, max(1, int(need.max()))))


def vote_config(numangle, numrho, npix, num_sms, max_shared, resident=None, window=None):
    """(angles per block: 1, 2 or 4, most point slices) of the shared-memory voting kernels: one wave
    of blocks. ``resident(k)``: how many blocks of the k-angle kernel fit on one SM at once (the
    CUDA occupancy calculator; 0 when unknown, then shared memory and threads decide).
    ``window(k)``: the shared columns a row of a k-angle block takes (vote_window; default the
    whole row, numrho + 2). The slices actually used shrink on the device to at least
    TUNING.vote_min_points points each (hough_vote_slice).

    Where the angle groups are few (at most half the SMs), as many slices as give every SM one
    block: the blocks are equal, so the slowest SM's share is what counts, and every slice adds a
    flush of its rows. Otherwise as many slices as fill the SMs' resident blocks once."""
    def row_bytes(k):
        return (window(k) if window is not None else numrho + 2) * 4
    min_points = TUNING.vote_min_points
    # The kernels exist for 1, 2 and 4 angles per block (a partial last group is allowed).
    per_block = 4 if TUNING.vote4_resident * (4 * row_bytes(4) + 1024) <= max_shared and numangle >= 4 else 1
    groups = cdiv(numangle, per_block)
    per_sm = resident(per_block) if resident is not None else 0
    if per_sm <= 0:
        per_sm = min((max_shared + 1024) // (per_block * row_bytes(per_block) + 1024), 2048 // VOTE_THREADS)
    if 2 * groups <= num_sms:
        return per_block, max(1, min(num_sms // groups, cdiv(npix, min_points)))
    splits = max(1, min(TUNING.vote_max_splits, (num_sms * max(1, per_sm)) // groups, cdiv(npix, min_points)))
    return per_block, splits


def one_wave_vote_config(numangle, npix, num_sms, max_optin, window):
    """(angles per block K, point slices) of the detector's ch_vote_shared_K with at most one block
    per SM, or None where even K = 4 makes more angle groups than SMs (then vote_config). Each SM
    votes K angles for a 1/slices share of the points, so the K with the least K / (num_sms //
    groups) wins, the smaller K on a tie (fewer slices: fewer shared rows to flush). ``window(k)``:
    vote_window's shared columns a row; a K whose rows do not fit in shared memory is skipped."""
    best = None
    for k in (1, 2, 3, 4):
        groups = cdiv(numangle, k)
        if groups > num_sms or k * window(k) * 4 > max_optin - 1024:
            continue
        splits = max(1, min(num_sms // groups, cdiv(npix, TUNING.vote_min_points)))
        if best is None or k * best[1] < best[0] * splits:
            best = (k, splits)
    return best


def vote_residency(family, name_format, options, window):
    """``resident`` for vote_config: blocks per SM of ``name_format % k`` with k rows of
    ``window(k)`` shared columns."""
    def resident(k):
        smem = k * window(k) * 4
        fn = _kernels.get_function(family, name_format % k, options, max_dynamic_shared=smem)
        return _kernels.resident_blocks(fn, VOTE_THREADS, smem)
    return resident


def shared_vote_grid(numangle, numrho, npix, num_sms, max_shared, resident, window, one_wave=None):
    """(angles per block, slices): TUNING.vote_grid when forced, else ``one_wave()`` where it
    applies (the detector), else vote_config. Returns (grid, path): path "vote-grid" when forced."""
    forced = TUNING.vote_grid
    if forced is not None:
        return tuple(forced), "vote-grid"
    grid = one_wave() if one_wave is not None else None
    return grid or vote_config(numangle, numrho, npix, num_sms, max_shared, resident, window), None
