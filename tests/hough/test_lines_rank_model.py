"""A CPU model of lines_sampled_rank (kernels/hough/lines.cu): HoughLines' last maxima block orders
1024 < count <= 8192 keys by buckets bounded by a sample of the keys. Step for step as the kernel
(thread t holds keys t + 1024 j; the sample is key t * count // 1024; a key's bucket is the last
sampled key at or below it, found by the same branchless binary search; keys counted, scanned and
placed by bucket, then compared within their bucket), against numpy's ranks, on key sets shaped as
HoughLines' are (votes-major, many lines sharing a vote count)."""
import numpy as np
from hypothesis import given, settings, strategies as st

THREADS, ITEMS = 1024, 8


def key(votes, flat):
    """kernels/hough/voting.cuh, hough_key: ascending keys are votes descending, then flat index."""
    hi = (~(np.asarray(votes, np.int64) ^ np.int64(-(1 << 31)))) & 0xFFFFFFFF
    return (hi.astype(np.uint64) << np.uint64(32)) | np.asarray(flat, np.uint64)


def sampled_rank(keys):
    count = len(keys)
    assert THREADS < count <= THREADS * ITEMS
    sample = keys[np.arange(THREADS, dtype=np.int64) * count // THREADS]
    bounds = np.empty(THREADS, np.uint64)
    bounds[np.argsort(np.argsort(sample))] = sample           # hough_bucket_rank's exact ranks
    buckets = np.empty(count, np.int64)
    for i, v in enumerate(keys.tolist()):
        at = 0
        half = 512
        while half:
            if int(bounds[at + half]) <= v:
                at += half
            half >>= 1
        buckets[i] = at
    counts = np.bincount(buckets, minlength=THREADS)
    first = np.concatenate(([0], np.cumsum(counts)[:-1]))
    slots = np.empty(count, np.uint64)
    fill = first.copy()
    for i in range(count):                                    # (atomics: any order within a bucket)
        slots[fill[buckets[i]]] = keys[i]
        fill[buckets[i]] += 1
    ends = first + counts
    rank = np.empty(count, np.int64)
    for i in range(count):
        b = buckets[i]
        rank[i] = first[b] + int(np.count_nonzero(slots[first[b]:ends[b]] < keys[i]))
    return rank, counts.max()


@settings(max_examples=60, deadline=None)
@given(count=st.integers(THREADS + 1, THREADS * ITEMS), spread=st.integers(1, 5000), seed=st.integers(0, 2**32 - 1))
def test_sampled_ranks_are_exact(count, spread, seed):
    rng = np.random.default_rng(seed)
    flat = rng.choice(1 << 22, size=count, replace=False)
    votes = 100 + rng.geometric(1.0 / spread, size=count)    # most lines near the threshold
    keys = key(votes, flat)
    rng.shuffle(keys)
    rank, crowd = sampled_rank(keys)
    expected = np.empty(count, np.int64)
    expected[np.argsort(keys, kind="stable")] = np.arange(count)
    assert np.array_equal(rank, expected)
    assert crowd < count // 8 + 64   # no bucket holds a crowd of equal votes


def test_a_single_vote_count():
    keys = key(np.full(5000, 7), np.arange(5000) * 3)[::-1].copy()
    rank, crowd = sampled_rank(keys)
    assert np.array_equal(rank, np.arange(5000)[::-1])
    assert crowd <= 16
