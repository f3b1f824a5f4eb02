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
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CVG_X86 1
#endif

#define CVG_ERROR (-(1LL << 40))
#define CUDA_ERROR_NOT_READY 600

typedef int (*htod_fn)(uint64_t dst, const void *src, size_t bytes, void *stream);
typedef int (*launch_fn)(void *exec, void *stream);
typedef int (*query_fn)(void *stream);

static htod_fn memcpy_htod;
static launch_fn graph_launch;
static query_fn stream_query;

int cvg_version(void) { return 2; }

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

/* Bytes of a row of the bit image: one bit a pixel, in whole 16-bit words (see pack_row). */
static inline long long bit_row_bytes(long long cols) { return 2 * ((cols + 15) / 16); }

/* One row of `cols` pixels as bits: bit j of the 16-bit little-endian word k is 1 when pixel 16 k + j
 * is nonzero (the Hough kernels' collection reads a lane's 16 pixels as one word: hough_collect);
 * the bits past `cols` in the last word are 0. Three variants, the same bits: AVX2 (32 pixels a
 * compare), SSE2 (16), portable. */
static void pack_row_portable(const uint8_t *s, long long cols, uint8_t *d) {
    for (long long k = 0; 16 * k < cols; k++) {
        unsigned m = 0;
        for (long long j = 0; j < 16 && 16 * k + j < cols; j++) m |= (unsigned)(s[16 * k + j] != 0) << j;
        d[2 * k] = (uint8_t)m;
        d[2 * k + 1] = (uint8_t)(m >> 8);
    }
}

#ifdef CVG_X86
static void pack_row_sse2(const uint8_t *s, long long cols, uint8_t *d) {
    const __m128i zero = _mm_setzero_si128();
    long long k = 0;
    for (; 16 * k + 16 <= cols; k++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(s + 16 * k));
        uint16_t m = (uint16_t)~_mm_movemask_epi8(_mm_cmpeq_epi8(v, zero));
        memcpy(d + 2 * k, &m, 2);
    }
    if (16 * k < cols) pack_row_portable(s + 16 * k, cols - 16 * k, d + 2 * k);
}

__attribute__((target("avx2"))) static void pack_row_avx2(const uint8_t *s, long long cols, uint8_t *d) {
    const __m256i zero = _mm256_setzero_si256();
    long long k = 0;   /* in 32-pixel steps: two 16-bit words a compare, the lower first */
    for (; 32 * k + 32 <= cols; k++) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(s + 32 * k));
        uint32_t m = ~(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, zero));
        memcpy(d + 4 * k, &m, 4);
    }
    if (32 * k < cols) pack_row_sse2(s + 32 * k, cols - 32 * k, d + 4 * k);
}
#endif

typedef void (*pack_row_fn)(const uint8_t *, long long, uint8_t *);

/* isa: 0 the best this CPU has, 1 portable, 2 SSE2, 3 AVX2 (tests compare them); NULL where the
 * asked variant is not built for or not supported by this CPU. */
static pack_row_fn pack_variant(int isa) {
#ifdef CVG_X86
    if (isa == 0) isa = __builtin_cpu_supports("avx2") ? 3 : 2;
    if (isa == 3) return __builtin_cpu_supports("avx2") ? pack_row_avx2 : NULL;
    if (isa == 2) return pack_row_sse2;
#else
    if (isa == 0) isa = 1;
#endif
    return isa == 1 ? pack_row_portable : NULL;
}

static void pack_rows(const uint8_t *src, long long rows, long long cols, long long step, uint8_t *dst,
                      long long row_bytes, pack_row_fn pack);

/* The rows x cols image (row step `step` bytes, may be negative; elements contiguous) as bits, row r
 * at dst + r * bit_row_bytes(cols). Returns 0, or -1 for an unknown isa. */
long long cvg_pack_bits(const uint8_t *src, long long rows, long long cols, long long step, uint8_t *dst, int isa) {
    pack_row_fn pack = pack_variant(isa);
    if (!pack) return -1;
    pack_rows(src, rows, cols, step, dst, bit_row_bytes(cols), pack);
    return 0;
}

/* Source bytes a packing thread takes at least, and the threads of one call at most: one core
 * reads ~13 GB/s once an image is out of its L2. Bench rows (ab.py of compat_matrix/raw/hough-bits,
 * HoughLines numpy io; HISTORY.md, "HoughLines sends bits"): 3840x2160 0.49-0.52 ms a call with one
 * thread, 0.36-0.41 with 4, 0.38-0.44 with 8; 1920x1080 (3 bands) 0.16-0.17 -> 0.15-0.17; 1280x720
 * (one band) unchanged. */
#ifndef CVG_PACK_BAND
#define CVG_PACK_BAND (512 * 1024)
#endif
#define CVG_PACK_THREADS_MAX 8

static int pack_threads = 4;

/* The packing threads of a call at most (1 to CVG_PACK_THREADS_MAX; A/B measurements); returns the
 * value before. */
int cvg_set_pack_threads(int n) {
    int old = pack_threads;
    pack_threads = n < 1 ? 1 : n > CVG_PACK_THREADS_MAX ? CVG_PACK_THREADS_MAX : n;
    return old;
}

typedef struct {
    const uint8_t *src;
    long long r0, r1, cols, step, row_bytes;
    uint8_t *dst;
    pack_row_fn pack;
} pack_band_t;

static void pack_band(const pack_band_t *b) {
    for (long long r = b->r0; r < b->r1; r++) b->pack(b->src + r * b->step, b->cols, b->dst + r * b->row_bytes);
}

/* The packing threads are kept for the process: made on first use (up to CVG_PACK_THREADS_MAX - 1),
 * each waiting for band `index` of the next job. A thread made per call and joined cost more than
 * its band at 1920x1080 (HISTORY.md, "Packing threads kept for the process"). One call at a time
 * uses them: a call that finds them busy (another thread's call) packs all its rows itself, so calls
 * from several threads never wait for each other. fork(): the child has none of the parent's
 * threads, and the parent's lock may be held there; the child forgets the pool (pool_forget) and
 * makes it again on use. */
static struct {
    pthread_mutex_t lock;       /* guards everything below */
    pthread_cond_t work, done;
    int threads;                /* threads made (they take bands 1 .. threads) */
    unsigned long long job;     /* bumped for each job */
    int bands, pending;         /* the job's bands; of bands 1.., those not packed yet */
    pack_band_t band[CVG_PACK_THREADS_MAX];
    unsigned long long made_at[CVG_PACK_THREADS_MAX];  /* `job` when thread i was made: it takes the jobs after */
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, {{0}}, {0}};
static pthread_mutex_t pool_use = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;

static void pool_forget(void) {
    pthread_mutex_init(&pool.lock, NULL);
    pthread_cond_init(&pool.work, NULL);
    pthread_cond_init(&pool.done, NULL);
    pthread_mutex_init(&pool_use, NULL);
    pool.threads = 0;
    pool.job = 0;
    pool.bands = pool.pending = 0;
}

static void pool_register(void) { pthread_atfork(NULL, NULL, pool_forget); }

static void *pool_thread(void *arg) {
    const int index = (int)(intptr_t)arg;
    pthread_mutex_lock(&pool.lock);
    /* Not pool.job now: a job published before this thread got the lock is one of its own. */
    unsigned long long seen = pool.made_at[index];
    for (;;) {
        while (pool.job == seen) pthread_cond_wait(&pool.work, &pool.lock);
        seen = pool.job;
        if (index < pool.bands) {
            const pack_band_t b = pool.band[index];
            pthread_mutex_unlock(&pool.lock);
            pack_band(&b);
            pthread_mutex_lock(&pool.lock);
            if (--pool.pending == 0) pthread_cond_signal(&pool.done);
        }
    }
    return NULL;
}

/* Threads for bands 1 .. want - 1 (made as needed; the caller holds pool_use): how many bands the
 * pool can take now, at least 1 (this thread's). */
static long long pool_bands(long long want) {
    pthread_once(&pool_once, pool_register);
    pthread_mutex_lock(&pool.lock);
    while (pool.threads < want - 1) {
        pthread_t tid;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pool.made_at[pool.threads + 1] = pool.job;
        const int rc = pthread_create(&tid, &attr, pool_thread, (void *)(intptr_t)(pool.threads + 1));
        pthread_attr_destroy(&attr);
        if (rc) break;
        pool.threads++;
    }
    const long long got = pool.threads + 1 < want ? pool.threads + 1 : want;
    pthread_mutex_unlock(&pool.lock);
    return got;
}

/* Rows [0, rows) packed into dst (row r at dst + r * row_bytes), in bands of whole rows over up to
 * pack_threads threads (this one and the pool's) when the image is large. */
static void pack_rows(const uint8_t *src, long long rows, long long cols, long long step, uint8_t *dst,
                      long long row_bytes, pack_row_fn pack) {
    long long bands = rows * cols / CVG_PACK_BAND;
    if (bands > pack_threads) bands = pack_threads;
    if (bands > rows) bands = rows;
    if (bands < 1) bands = 1;
    if (bands > 1 && pthread_mutex_trylock(&pool_use) == 0) {
        bands = pool_bands(bands);
        if (bands > 1) {
            pthread_mutex_lock(&pool.lock);
            for (long long i = 0; i < bands; i++)
                pool.band[i] = (pack_band_t){src, rows * i / bands, rows * (i + 1) / bands, cols, step, row_bytes, dst,
                                             pack};
            pool.bands = (int)bands;
            pool.pending = (int)bands - 1;
            pool.job++;
            pthread_cond_broadcast(&pool.work);
            const pack_band_t first = pool.band[0];
            pthread_mutex_unlock(&pool.lock);
            pack_band(&first);
            pthread_mutex_lock(&pool.lock);
            while (pool.pending) pthread_cond_wait(&pool.done, &pool.lock);
            pthread_mutex_unlock(&pool.lock);
            pthread_mutex_unlock(&pool_use);
            return;
        }
        pthread_mutex_unlock(&pool_use);
    }
    const pack_band_t all = {src, 0, rows, cols, step, row_bytes, dst, pack};
    pack_band(&all);
}

/* The image into pinned `staging` and up to `dev` on `stream`: the bytes as one contiguous block in
 * pieces of whole rows of about CVG_PIECE bytes, each sent up once it is in the staging buffer
 * (bits == 0); or the bit image of cvg_pack_bits (bits != 0: an eighth of the bytes to send, and
 * the kernels read an eighth), packed by pack_rows and sent in one copy. Returns 0 or CVG_ERROR - a
 * driver error code. */
static long long send_image(const uint8_t *src, long long rows, long long cols, long long step, uint8_t *staging,
                            uint64_t dev, void *stream, int bits) {
    if (bits) {
        const long long row_bytes = bit_row_bytes(cols);
        pack_rows(src, rows, cols, step, staging, row_bytes, pack_variant(0));
        int rc = memcpy_htod(dev, staging, (size_t)(rows * row_bytes), stream);
        return rc ? CVG_ERROR - rc : 0;
    }
    long long piece_rows = cols > 0 ? (long long)CVG_PIECE / cols : rows;
    if (piece_rows < 1) piece_rows = 1;
    const long long row_bytes = cols;
    for (long long r0 = 0; r0 < rows; r0 += piece_rows) {
        long long n = rows - r0 < piece_rows ? rows - r0 : piece_rows;
        uint8_t *dst = staging + r0 * row_bytes;
        if (step == cols) {
            memcpy(dst, src + r0 * cols, (size_t)(n * cols));
        } else {
            for (long long r = 0; r < n; r++) memcpy(dst + r * cols, src + (r0 + r) * step, (size_t)cols);
        }
        int rc = memcpy_htod(dev + (uint64_t)(r0 * row_bytes), dst, (size_t)(n * row_bytes), stream);
        if (rc) return CVG_ERROR - rc;
    }
    return 0;
}

/* A host image's call: send the image (send_image; `bits` as there), set the flag to `unset`,
 * launch the graph `exec` on `stream` and wait for the flag. The staging buffer is the calling
 * thread's own: its previous call ended with this wait, after the kernels had read the previous
 * image. */
long long cvg_upload_replay(const uint8_t *src, long long rows, long long cols, long long step, uint8_t *staging,
                            uint64_t dev, void *exec, void *stream, int32_t *flag, int32_t unset, int bits) {
    long long rc = send_image(src, rows, cols, step, staging, dev, stream, bits);
    if (rc) return rc;
    __atomic_store_n(flag, unset, __ATOMIC_RELEASE);
    int lrc = graph_launch(exec, stream);
    if (lrc) return CVG_ERROR - lrc;
    return wait_flag(flag, unset, stream);
}

/* The sending alone (a call that launches its kernels itself: before its graph is captured). */
long long cvg_upload(const uint8_t *src, long long rows, long long cols, long long step, uint8_t *staging,
                     uint64_t dev, void *stream, int bits) {
    return send_image(src, rows, cols, step, staging, dev, stream, bits);
}
