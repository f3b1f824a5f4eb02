"""What one grid barrier of the HoughLinesP kernel costs, by variant (issue 44; a probe, not shipped).

hough_p_main runs 5 grid barriers a round (kernels/hough/probabilistic.cu: hp_grid_sync) and the
trace puts ~3 us on a phase with almost no work. Each variant below runs ITERS barriers in one
cooperative launch of one 256-thread block per SM (the kernel's grid), with and without a global
store per thread before each barrier (the phases' writes the release must order); the time per
barrier is (t(ITERS) - t(1)) / (ITERS - 1), CUDA events, median of 5.

  fence_gen   the shipped one: fence, atomicAdd on the count, the last block resets it and bumps
              a generation word, the others spin on it (volatile), fence
  mono_fence  one monotonic count (no reset, no generation): fence, atomicAdd, spin until it
              reaches the barrier's target, fence
  mono_relacq the same with atom.add.release.gpu and ld.acquire.gpu (no separate fences)
  mono_relax  atom.add.release.gpu, a relaxed spin, then fence.acq_rel.gpu
  mono_red    red.release.gpu (no returned value) and ld.acquire.gpu spin

    python3 barrier_probe.py > barrier.jsonl
"""
import json

import cupy as cp

SRC = r"""
__device__ __forceinline__ int ld_acquire(const int* p)
{ int v; asm volatile("ld.acquire.gpu.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory"); return v; }
__device__ __forceinline__ int atom_add_release(int* p, int v)
{ int o; asm volatile("atom.add.release.gpu.s32 %0, [%1], %2;" : "=r"(o) : "l"(p), "r"(v) : "memory"); return o; }
__device__ __forceinline__ void red_add_release(int* p, int v)
{ asm volatile("red.release.gpu.add.s32 [%0], %1;" :: "l"(p), "r"(v) : "memory"); }

__device__ void sync_fence_gen(int* ctl, int&)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        volatile int* gen = ctl + 1;
        const int g = *gen;
        __threadfence();
        if (atomicAdd(ctl, 1) == (int)gridDim.x - 1) {
            ctl[0] = 0;
            __threadfence();
            atomicAdd(ctl + 1, 1);
        } else {
            while (*gen == g) {}
        }
        __threadfence();
    }
    __syncthreads();
}
__device__ void sync_mono_fence(int* ctl, int& target)
{
    __syncthreads();
    target += gridDim.x;
    if (threadIdx.x == 0) {
        volatile int* c = ctl;
        __threadfence();
        atomicAdd(ctl, 1);
        while (*c - target < 0) {}
        __threadfence();
    }
    __syncthreads();
}
__device__ void sync_mono_relacq(int* ctl, int& target)
{
    __syncthreads();
    target += gridDim.x;
    if (threadIdx.x == 0) {
        atom_add_release(ctl, 1);
        while (ld_acquire(ctl) - target < 0) {}
    }
    __syncthreads();
}
__device__ void sync_mono_relax(int* ctl, int& target)
{
    __syncthreads();
    target += gridDim.x;
    if (threadIdx.x == 0) {
        atom_add_release(ctl, 1);
        int v;
        do { asm volatile("ld.relaxed.gpu.s32 %0, [%1];" : "=r"(v) : "l"(ctl) : "memory"); } while (v - target < 0);
        asm volatile("fence.acq_rel.gpu;" ::: "memory");
    }
    __syncthreads();
}
__device__ void sync_mono_red(int* ctl, int& target)
{
    __syncthreads();
    target += gridDim.x;
    if (threadIdx.x == 0) {
        red_add_release(ctl, 1);
        while (ld_acquire(ctl) - target < 0) {}
    }
    __syncthreads();
}
#define PROBE(name)                                                                       \
extern "C" __global__ void __launch_bounds__(256) probe_##name(int* ctl, int iters, int* buf, int store) \
{                                                                                         \
    int target = 0;                                                                       \
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;               \
    for (int i = 0; i < iters; ++i) {                                                     \
        if (store) buf[tid + (long long)(i & 7) * gridDim.x * blockDim.x] = i;            \
        sync_##name(ctl, target);                                                         \
    }                                                                                     \
}
PROBE(fence_gen)
PROBE(mono_fence)
PROBE(mono_relacq)
PROBE(mono_red)
PROBE(mono_relax)
"""

VARIANTS = ["fence_gen", "mono_fence", "mono_relacq", "mono_relax", "mono_red"]


def main():
    mod = cp.RawModule(code=SRC, options=("-std=c++17",), enable_cooperative_groups=True)
    sms = cp.cuda.Device().attributes["MultiProcessorCount"]
    buf = cp.zeros(sms * 256 * 8, dtype=cp.int32)
    ctl = cp.zeros(4, dtype=cp.int32)
    ITERS = 2001
    s, e = cp.cuda.Event(), cp.cuda.Event()

    def run(fn, iters, store):
        ctl.fill(0)
        s.record()
        fn((sms,), (256,), (ctl, cp.int32(iters), buf, cp.int32(store)))
        e.record()
        e.synchronize()
        return cp.cuda.get_elapsed_time(s, e) * 1e3

    for store in (0, 1):
        for name in VARIANTS * 2:   # twice: the second pass is the one kept
            fn = mod.get_function("probe_" + name)
            for _ in range(2):
                run(fn, ITERS, store)
            one = sorted(run(fn, 1, store) for _ in range(5))[2]
            many = sorted(run(fn, ITERS, store) for _ in range(5))[2]
            print(json.dumps(dict(variant=name, store=store, blocks=sms, us_per_barrier=round((many - one) / (ITERS - 1), 3),
                       launch_us=round(one, 1))), flush=True)


if __name__ == "__main__":
    main()
