"""List ranking and output layouts shared by the contours pipelines (kernels/contours/ranking.cu and
ranking_block.cu): pointer jumping in its three forms, the contour tree's order, the output offsets
and the layout of the points by contour length that the numpy path's views want."""
import numpy as np

from . import TUNING
from ._common import BLOCK


def jump_rounds(gpu, n, rounds, a, b, k=0, live=None):
    """List ranking by pointer jumping over the first n records of a, b as (successor, suffix sum)
    int pairs, or over k + live[0] of them (n is then a bound): at most ``rounds`` rounds, enough
    for the longest chain. Returns (result, spare). Up to TUNING.jump_shared_max records (n) that
    fit, one block jumps them in its shared memory (rank_jump_shared; path "jump_shared"); above,
    one cooperative launch jumps the records in place, in rounds that skip finished records and
    stop once only endless cycles are left (rank_jump_inplace; "jump_cooperative"); where the device
    refuses a cooperative launch, one synchronous launch a round (rank_jump; "jump_launches"), all
    ``rounds`` of them. Every record that reaches an end holds the same result either way."""
    cp = gpu.cp
    i32 = np.int32
    shared_max = TUNING.jump_shared_max
    if n <= shared_max:
        # 8 bytes a record. One limit a device, the same for every call: threads raising a kernel's
        # limit to sizes of their own could lower it under another's launch.
        limit = min(8 * shared_max, gpu.shared_memory() - 1024)
        if 8 * n <= limit:
            TUNING.ran("jump_shared")
            gpu.fn("ranking_block", "rank_jump_shared", max_dynamic_shared=limit)(
                (1,), (1024,), (i32(n), i32(k), live if live is not None else np.uint64(0), i32(rounds), a),
                shared_mem=8 * n)
            return a, b
    threads = TUNING.jump_block
    coop = gpu.cooperative("ranking_block", "rank_jump_inplace", threads)
    if coop is not None:
        fn, resident = coop
        ws = gpu.workspace()
        open_words = ws.grown("jump_open", -(-n // 32), cp.uint32)
        try:
            fn((max(1, min(resident, -(-n // threads))),), (threads,),
               (i32(n), i32(k), live if live is not None else np.uint64(0), i32(rounds), a, open_words,
                ws.jump_counts, ws.barrier))
            TUNING.ran("jump_cooperative")
            return a, b
        except cp.cuda.driver.CUDADriverError:  # no cooperative launch here (driver, MPS): launch nothing
            gpu.cooperative_failed()
    TUNING.ran("jump_launches")
    grid = (max(1, -(-n // BLOCK)),)
    for _ in range(rounds):
        if live is None:
            gpu.fn("ranking", "rank_jump")(grid, (BLOCK,), (i32(n), a, b))
        else:
            gpu.fn("ranking", "rank_jump_n")(grid, (BLOCK,), (i32(k), live, a, b))
        a, b = b, a
    return a, b


def tree_sort(gpu, m, parent):
    """The nodes sorted by tree_sort_keys' keys, stably (int64 indices into the keys)."""
    cp = gpu.cp
    i32 = np.int32
    small = TUNING.tree_sort_small_max
    if m <= small:
        TUNING.ran("tree_sort_small")
        order = cp.empty(m, dtype=cp.int64)
        shared = 4 << max(1, (m - 1).bit_length())
        # The kernel's limit is the largest size, the same for every call: threads raising it to
        # sizes of their own could lower it under another's launch.
        gpu.fn("ranking_block", "tree_sort_small", max_dynamic_shared=4 << max(1, (small - 1).bit_length()))(
            (1,), (1024,), (i32(m), parent, order), shared_mem=shared)
        return order
    TUNING.ran("tree_argsort")
    narrow = m < 65536
    key = cp.empty(m, dtype=cp.uint16 if narrow else cp.uint32)
    gpu.fn("ranking", "tree_sort_keys16" if narrow else "tree_sort_keys32")(
        (-(-m // BLOCK),), (BLOCK,), (i32(m), parent, key))
    return cp.argsort(key)  # stable (see tree_sort_keys)


def tree_order(gpu, m, parent):
    """(out_node, hier) of the tree given by parent (-1: top level), in cv2's pre-order with
    siblings newest first (ranking.cu: sibling_links, euler_init, tree_output)."""
    cp = gpu.cp
    i32 = np.int32
    gm = (-(-m // BLOCK),)
    order = tree_sort(gpu, m, parent)
    first_child = cp.full(m + 1, -1, dtype=cp.int32)
    next_sib = cp.empty(m, dtype=cp.int32)
    prev_sib = cp.empty(m, dtype=cp.int32)
    gpu.fn("ranking", "sibling_links")(gm, (BLOCK,), (order, i32(m), parent, first_child, next_sib, prev_sib))
    ne = 2 * (m + 1)
    et = cp.empty((ne, 2), dtype=cp.int32)
    et2 = cp.empty_like(et)
    gpu.fn("ranking", "euler_init")((-(-ne // BLOCK),), (BLOCK,), (i32(m), parent, first_child, next_sib, et))
    et, _ = jump_rounds(gpu, ne, max(1, int(ne - 1).bit_length()), et, et2)
    out_node = cp.empty(m, dtype=cp.int32)
    hier = cp.empty((m, 4), dtype=cp.int32)
    gpu.fn("ranking", "tree_output")(gm, (BLOCK,), (i32(m), et, parent, first_child, next_sib, prev_sib, out_node,
                                                   hier))
    return out_node, hier


def offsets(gpu, counts, k):
    """(k + 1,) int64 device offsets of k contours from their int32 point counts: one block's scan
    up to TUNING.offsets_scan_max contours (offsets_scan), CuPy's cumsum above."""
    cp = gpu.cp
    if k <= TUNING.offsets_scan_max:
        TUNING.ran("offsets_scan")
        out = cp.empty(k + 1, dtype=cp.int64)
        gpu.fn("ranking_block", "offsets_scan")((1,), (1024,), (np.int32(k), counts, out))
    else:
        TUNING.ran("offsets_cumsum")
        out = cp.zeros(k + 1, dtype=cp.int64)
        cp.cumsum(counts, out=out[1:])
    return out


def grouped_layout(gpu, counts, k, ride=None, counts_h=None):
    """The layout of assemble_grouped for the k contours of ``counts`` (int32 lengths in output
    order, on the device): (order, lengths, dst, total, ride_host), order and lengths on the host,
    dst (k,) int64 on the device (each contour's first point), ``total`` the points, and
    ``ride`` (a 1-D int32 device array, e.g. the hierarchy) downloaded in the same transfer. One
    host sync. Ordered on the host up to TUNING.host_sort_max contours (path "host_sort"; numpy's
    radix sort of 16-bit keys), on the device above ("device_sort"). ``counts_h``: the lengths
    already on the host (no download; always the host's sort)."""
    cp = gpu.cp
    if counts_h is not None or k <= TUNING.host_sort_max:
        TUNING.ran("host_sort")
        if counts_h is None:
            host = (counts if ride is None else cp.concatenate((counts, ride))).get()
            counts_h = host[:k]
        else:
            host = counts_h
        # Keys capped at 16 bits keep numpy's radix sort; longer contours share the last key and
        # stay in output order, which is still a valid layout (runs are cut where lengths change).
        order = np.argsort(np.minimum(counts_h, 0xFFFF).astype(np.uint16), kind="stable")
        lengths = counts_h[order]
        starts = np.zeros(k, dtype=np.int64)
        np.cumsum(lengths[:-1], out=starts[1:])
        first = np.empty(k, dtype=np.int64)
        first[order] = starts
        return order, lengths, cp.asarray(first), int(starts[-1]) + int(lengths[-1]), host[k:]
    TUNING.ran("device_sort")
    perm = cp.argsort(counts)  # stable: equal lengths stay in output order
    extra = 0 if ride is None else int(ride.size)
    ps = cp.empty(2 * k + extra, dtype=cp.int32)
    ps[:k] = perm
    ps[k:2 * k] = counts[perm]
    if extra:
        ps[2 * k:] = ride
    goff = offsets(gpu, ps[k:2 * k], k)
    dst = cp.empty(k, dtype=cp.int64)
    dst[perm] = goff[:-1]
    host = ps.get()
    order, lengths = host[:k], host[k:2 * k]
    return order, lengths, dst, int(lengths.sum(dtype=np.int64)), host[2 * k:]
