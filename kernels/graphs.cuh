// The device side of cvgpu/_graphs.py: kernels of a family's launch plan replayed as one captured
// CUDA graph.
//
// A replayed graph takes no new kernel arguments. The values that change per call (the plan's
// "call words": an image pointer, a threshold, an output pointer ...) are 64-bit words the host
// writes to pinned memory before each replay; the graph's first node, graph_load_call, copies
// them to device memory (`call`), and every kernel after it reads them from there. Launched
// directly (no graph), a kernel gets call == nullptr and uses its own arguments.
//
// A lean graph has no load node. It is replayed only while `call` still holds the words that
// describe the image (the same image as the launch before), and its first kernel copies the
// other words, those that change per call, itself (fresh_word_load / fresh_word_store).
//
// Every kernel after the first is launched as a programmatic dependent of the one before
// (cvgpu._graphs.launch_dependent): it must call await_previous_kernel() before its first global
// memory access.

// PDL (sm_90 and later): a dependent kernel's blocks are scheduled while the previous kernel's
// last blocks finish, and wait here until that kernel has completed and its writes are visible.
// No kernel of a voting chain triggers its dependents early (griddepcontrol.launch_dependents):
// a kernel two steps on could then start before the first had finished (a wrong vote count was
// seen). Launched without the attribute (direct launches), the wait returns at once.
__device__ __forceinline__ void await_previous_kernel()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// The load node: one thread per word. A kernel node rather than a host-to-device copy node, so
// that the next kernel launches as its programmatic dependent. It triggers that kernel at once
// (launch_dependents before its PCIe read), so work that needs no call word (HoughLines'
// collection zeroes the accumulator) overlaps the read. Safe where the early triggers of a voting
// chain are not: the kernel it triggers triggers nothing early itself, so the kernels after it
// still start only once it, and with it this node, have completed. The words are read once here
// rather than by every block of the first kernel: the blocks' system-memory reads of one address
// complete one after another.
extern "C" __global__ void graph_load_call(const long long* __restrict__ pinned, long long* __restrict__ call,
                                           int words)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
    if ((int)threadIdx.x < words)
        call[threadIdx.x] = pinned[threadIdx.x];
}

// A lean graph's first kernel: words [first, words) come from pinned `fresh`, one thread per word
// in block 0, loaded before the kernel's other work and stored after it, so the PCIe read overlaps
// that work (every block reading pinned memory would serialise, see graph_load_call). The kernels
// after it read those words once it has completed. Kernels that are not a lean graph's first pass
// fresh == nullptr, which compiles the copy out.
__device__ __forceinline__ bool fresh_word_thread(const long long* fresh, int first, int words)
{
    return fresh != nullptr && blockIdx.x == 0 && (int)threadIdx.x < words - first;
}

__device__ __forceinline__ long long fresh_word_load(const long long* fresh, int first, int words)
{
    long long v = 0;
    if (fresh_word_thread(fresh, first, words))  // (asm volatile: issued here, waited for at its use)
        asm volatile("ld.global.cv.s64 %0, [%1];" : "=l"(v) : "l"(fresh + first + threadIdx.x));
    return v;
}

__device__ __forceinline__ void fresh_word_store(const long long* fresh, const long long* call, int first, int words,
                                                 long long v)
{
    if (fresh_word_thread(fresh, first, words))
        const_cast<long long*>(call)[first + threadIdx.x] = v;
}
