// Shared by the contours family's kernel files (kernels/contours/*.cu): the byte type, the
// 8-neighbourhood as cv2's border walk numbers it, and int32 arithmetic that wraps as cv2's does.
//
// Images are flat and padded: the image with a one-pixel zero frame, row length w2 = w + 2, flat
// index p = y * w2 + x (x, y >= 1 inside the frame). A point's output coordinates are x - 1 + ox,
// y - 1 + oy in int32, wrapping as cv2's int arithmetic.

typedef unsigned char u8;

// Neighbour k of a pixel (cv2's chain-code order: 0 right, then counter-clockwise with y down) is
// at (c_dx[k], c_dy[k]).
__constant__ int c_dx[8] = {1, 1, 0, -1, -1, -1, 0, 1};
__constant__ int c_dy[8] = {0, -1, -1, -1, 0, 1, 1, 1};

// cv2 computes coordinates and products in int; these wrap as it does (signed overflow would be
// undefined behaviour in C++, so the arithmetic runs in unsigned).
__device__ __forceinline__ int i32_mul(int a, int b) { return (int)((unsigned)a * (unsigned)b); }
__device__ __forceinline__ int i32_add(int a, int b) { return (int)((unsigned)a + (unsigned)b); }
__device__ __forceinline__ int i32_sub(int a, int b) { return (int)((unsigned)a - (unsigned)b); }
