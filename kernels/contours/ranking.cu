// List ranking by pointer jumping, and the contour tree's output order computed with it
// (cvgpu/contours/_ranking.py). One thread per record or node, one launch per round; the same
// rounds inside one block or one cooperative grid are in ranking_block.cu.
//
// List ranking: every record holds (successor, weight) (ranking.cuh); a round replaces each
// record's successor by its successor's and adds its weight, so after ceil(log2(L)) rounds each
// record of a chain of length L knows its weighted distance to the chain's end. The family ranks
// three kinds of lists with it: the border walks' states (suzuki.cu, labels.cu) or their rulers,
// and the Euler tour of the contour tree below.
//
// Tree order (RETR_TREE / RETR_CCOMP, and label images): cv2 lists the contours in pre-order with
// the children of a node newest first, and its hierarchy rows are [next, previous, first_child,
// parent] in that order. From parent[] alone: a stable sort by (parent, discovery descending)
// gives the sibling lists (tree_sort_keys*, sibling_links); the Euler tour of the tree (enter and
// exit of every node, weight 1 on entering) ranked by pointer jumping gives each node the number
// of nodes entered from it on, i.e. its pre-order position counted from the end (euler_init,
// rank_jump, tree_output).
//
// Host builds: tests/contours/kernel_host.py compiles this file as C++ (every kernel here runs
// its threads independently).

#include "ranking.cuh"

extern "C" __global__ void rank_jump(int n, const int2* __restrict__ src, int2* __restrict__ dst)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) jump_step(i, src, dst);
}

// rank_jump over the first k + *live records, a count known only on the device (the walk's
// rulers: suzuki.cu, ruler_walk).
extern "C" __global__ void rank_jump_n(int k, const int* __restrict__ live, const int2* __restrict__ src,
                                       int2* __restrict__ dst)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < k + *live) jump_step(i, src, dst);
}

// Sibling links from the nodes sorted by (parent, descending discovery). Node m is the frame.
extern "C" __global__ void sibling_links(const long long* __restrict__ sorted, int m,
                                         const int* __restrict__ parent, int* __restrict__ first_child,
                                         int* __restrict__ next_sib, int* __restrict__ prev_sib)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m) return;
    // sorted[j] indexes the keys, whose j-th entry is node m - 1 - j (see tree_sort_keys).
    int v = m - 1 - (int)sorted[j];
    int pv = parent[v] < 0 ? m : parent[v];
    int pprev = -2, pnext = -2, uprev = -1, unext = -1;
    if (j > 0) { uprev = m - 1 - (int)sorted[j - 1]; pprev = parent[uprev] < 0 ? m : parent[uprev]; }
    if (j + 1 < m) { unext = m - 1 - (int)sorted[j + 1]; pnext = parent[unext] < 0 ? m : parent[unext]; }
    if (pprev != pv) first_child[pv] = v;
    next_sib[v] = (pnext == pv) ? unext : -1;
    prev_sib[v] = (pprev == pv) ? uprev : -1;
}

// Sort keys of the tree order, (parent, then discovery descending): key[j] is the parent of node
// m - 1 - j (the frame's children under m), and a stable sort (CuPy's argsort) keeps equal parents
// in j order, i.e. discovery descending. 16-bit keys where m < 65536: CuPy's radix sort then makes
// 2 passes over them, where one int64 key (parent * (m + 1) + m - 1 - j) would take 8.
__device__ __forceinline__ int tree_sort_key(int m, const int* __restrict__ parent, int j)
{
    const int p = parent[m - 1 - j];
    return p < 0 ? m : p;
}

extern "C" __global__ void tree_sort_keys16(int m, const int* __restrict__ parent, unsigned short* __restrict__ key)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < m) key[j] = (unsigned short)tree_sort_key(m, parent, j);
}

extern "C" __global__ void tree_sort_keys32(int m, const int* __restrict__ parent, unsigned* __restrict__ key)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < m) key[j] = (unsigned)tree_sort_key(m, parent, j);
}

// Euler tour of the border tree (enter v = v, exit v = v + m + 1) with weight 1 on entering a
// border: suffix sums by pointer jumping give each border's pre-order index.
extern "C" __global__ void euler_init(int m, const int* __restrict__ parent, const int* __restrict__ first_child,
                                      const int* __restrict__ next_sib, int2* __restrict__ et)
{
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    int nn = m + 1;
    if (e >= 2 * nn) return;
    if (e < nn) {
        int v = e;
        int fc = first_child[v];
        et[e] = make_int2(fc >= 0 ? fc : v + nn, v < m ? 1 : 0);
    } else {
        int v = e - nn;
        int s;
        if (v == m) s = -1;
        else if (next_sib[v] >= 0) s = next_sib[v];
        else s = (parent[v] < 0 ? m : parent[v]) + nn;
        et[e] = make_int2(s, 0);
    }
}

// Output order and hierarchy for TREE/CCOMP: pos(v) = m - (borders entered from v on).
extern "C" __global__ void tree_output(int m, const int2* __restrict__ et, const int* __restrict__ parent,
                                       const int* __restrict__ first_child, const int* __restrict__ next_sib,
                                       const int* __restrict__ prev_sib, int* __restrict__ out_node,
                                       int* __restrict__ hier)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= m) return;
    int pos = m - et[v].y;
    out_node[pos] = v;
    int nx = next_sib[v], pv = prev_sib[v], fc = first_child[v], pa = parent[v];
    hier[4 * pos + 0] = nx >= 0 ? m - et[nx].y : -1;
    hier[4 * pos + 1] = pv >= 0 ? m - et[pv].y : -1;
    hier[4 * pos + 2] = fc >= 0 ? m - et[fc].y : -1;
    hier[4 * pos + 3] = pa >= 0 ? m - et[pa].y : -1;
}
