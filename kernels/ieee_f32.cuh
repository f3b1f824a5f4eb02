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
