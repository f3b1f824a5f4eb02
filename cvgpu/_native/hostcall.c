/* cvgpu's host-side call helpers: the parts of a GPU call that would otherwise release and retake
 * Python's GIL several times, done in one foreign call (ctypes releases the GIL around it).
 *
 * Why: a call with numpy input copies the image into pinned memory, starts its upload, launches a
 * graph and waits for the flag the graph's last kernel publishes. Made from Python, each of those
 * steps is a GIL release and retake (numpy's copy, CuPy's memcpyAsync, the launch, the wait), and
 * with several threads calling at once every retake waits for the other threads' Python work: eight
 * threads ran slower than one (compat_matrix/HISTORY.md, "threads"). Here the whole sequence runs
 * without the GIL, so the Python work of one thread overlaps the copies and waits of the others.
 *
 * Rules:
 * - No link-time dependency: the CUDA driver entry points are handed in once (cvg_init) as
 *   addresses that cvgpu/_native resolves from libcuda with ctypes, so this library loads on any
 *   machine and is only used where a driver exists.
 * - The wait polls a pinned int32 flag that the last kernel writes after everything the host will
 *   read, fenced with __threadfence_system: an acquire load of a changed flag makes the results
 *   visible. Every 4096 polls the stream is queried: a stream that finished with the flag still
 *   unset (a launch that failed or never wrote it) ends the wait, and the caller synchronises the
 *   stream to raise its error.
 * - Return values: >= the flag's value range for a result; CVG_ERROR - code for a CUDA driver error
 *   code of a call made here (codes are positive).
 */
#include <stdint.h>
#include <string.h>

#define CVG_ERROR (-(1LL << 40))
#define CUDA_ERROR_NOT_READY 600

typedef int (*htod_fn)(uint64_t dst, const void *src, size_t bytes, void *stream);
typedef int (*launch_fn)(void *exec, void *stream);
typedef int (*query_fn)(void *stream);

static htod_fn memcpy_htod;
static launch_fn graph_launch;
static query_fn stream_query;

int cvg_version(void) { return 1; }

int cvg_init(void *htod, void *launch, void *query) {
    memcpy_htod = (htod_fn)htod;
    graph_launch = (launch_fn)launch;
    stream_query = (query_fn)query;
    return memcpy_htod && graph_launch && stream_query ? 0 : -1;
}

static inline void relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Poll the flag until it differs from unset (its value), or the stream finished without it
 * (the flag's value: still unset), or a query failed (CVG_ERROR - code). */
static long long wait_flag(const int32_t *flag, int32_t unset, void *stream) {
    unsigned polls = 0;
    for (;;) {
        int32_t v = __atomic_load_n(flag, __ATOMIC_ACQUIRE);
        if (v != unset) return v;
        if ((++polls & 4095u) == 0) {
            int rc = stream_query(stream);
            if (rc == 0) return __atomic_load_n(flag, __ATOMIC_ACQUIRE);
            if (rc != CUDA_ERROR_NOT_READY) return CVG_ERROR - rc;
        }
        relax();
    }
}

long long cvg_wait(const int32_t *flag, int32_t unset, void *stream) {
    return wait_flag(flag, unset, stream);
}

/* Bytes of one piece of an upload: each piece's copy up starts as soon as it is in the staging
 * buffer, and runs while the next piece is copied there (bench rows: HoughLines numpy io on the
 * photographs' edge maps at 1280x720 to 3840x2160; compat_matrix/HISTORY.md). */
#ifndef CVG_PIECE
#define CVG_PIECE (1024 * 1024)
#endif

/* A host image's call: copy the rows x cols uint8 image (row step `step` bytes, elements contiguous)
 * into pinned `staging` as one contiguous block, upload it to `dev` on `stream` (in pieces of whole
 * rows, each sent up once copied), set the flag to `unset`, launch the graph `exec` on `stream` and
 * wait for the flag. The staging buffer is the calling thread's own: its previous call ended with
 * this wait, after the kernels had read the previous image. */
long long cvg_upload_replay(const uint8_t *src, long long rows, long long cols, long long step, uint8_t *staging,
                            uint64_t dev, void *exec, void *stream, int32_t *flag, int32_t unset) {
    long long piece_rows = cols > 0 ? (long long)CVG_PIECE / cols : rows;
    if (piece_rows < 1) piece_rows = 1;
    int rc = 0;
    for (long long r0 = 0; r0 < rows; r0 += piece_rows) {
        long long n = rows - r0 < piece_rows ? rows - r0 : piece_rows;
        uint8_t *dst = staging + r0 * cols;
        if (step == cols) {
            memcpy(dst, src + r0 * cols, (size_t)(n * cols));
        } else {
            for (long long r = 0; r < n; r++) memcpy(dst + r * cols, src + (r0 + r) * step, (size_t)cols);
        }
        rc = memcpy_htod(dev + (uint64_t)(r0 * cols), dst, (size_t)(n * cols), stream);
        if (rc) return CVG_ERROR - rc;
    }
    __atomic_store_n(flag, unset, __ATOMIC_RELEASE);
    rc = graph_launch(exec, stream);
    if (rc) return CVG_ERROR - rc;
    return wait_flag(flag, unset, stream);
}
