// IEEE float32 arithmetic as the CPU does it, shared by every kernel family (cvgpu._kernels puts
// this in front of each kernels/<family>.cu before compiling).
//
// Round-to-nearest add/sub/mul/fma that keep subnormals. They are PTX instructions because
// NVRTC's __fadd_rn/__fmul_rn/__fmaf_rn flushed subnormals to zero under CuPy 14 on the H100,
// even with --ftz=false (measured: __fadd_rn(1.386e-42f, 0.0f) gave 0), while x86 SSE (cv2) and
// nvcc's default build (OpenCV-CUDA) keep them. Explicit instructions are never contracted either.

__device__ __forceinline__ float f32_add(float a, float b)
{
    float d;
    asm("add.rn.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
    return d;
}

__device__ __forceinline__ float f32_sub(float a, float b)
{
    float d;
    asm("sub.rn.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
    return d;
}

__device__ __forceinline__ float f32_mul(float a, float b)
{
    float d;
    asm("mul.rn.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
    return d;
}

__device__ __forceinline__ float f32_fma(float a, float b, float c)
{
    float d;
    asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(d) : "f"(a), "f"(b), "f"(c));
    return d;
}

// floor that sees subnormals: floorf(-1e-40f) must be -1 as on the CPU; under the flushing mode
// NVRTC compiles in here, floorf treats the input as -0 and returns -0.
__device__ __forceinline__ float f32_floor(float a)
{
    float d;
    asm("cvt.rmi.f32.f32 %0, %1;" : "=f"(d) : "f"(a));
    return d;
}

// float -> double keeping a subnormal float (the flushing mode would turn it into 0).
__device__ __forceinline__ double f32_to_f64(float a)
{
    double d;
    asm("cvt.f64.f32 %0, %1;" : "=d"(d) : "f"(a));
    return d;
}

// Round half to even of a float known to lie in [-2^22, 2^22], as __float2int_rn, plus
// F32_ROUND_MAGIC_BITS (mod 2^32). Adding 1.5 * 2^23 lands in [2^23, 2^24), where the ulp is 1, so
// the add itself rounds to the nearest integer (ties to even) and the integer sits in the low
// mantissa bits; a caller folding the bias into an address constant spends no instruction on it.
// One full-rate add instead of F2I (a quarter of the FP32 rate on sm_80/sm_90): 37.3 -> 35.3 us for
// the 1024^2 / 164k vote kernel on the H100. Callers must prove the range; outside it the result
// is meaningless.
#define F32_ROUND_MAGIC 12582912.0f
#define F32_ROUND_MAGIC_BITS 0x4B400000
#define F32_ROUND_MAGIC_LIMIT 4194304.0f
__device__ __forceinline__ unsigned f32_round_small_biased(float a)
{
    return (unsigned)__float_as_int(f32_add(a, F32_ROUND_MAGIC));
}
