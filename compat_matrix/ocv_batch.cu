// Batch driver of OpenCV-CUDA's own Hough kernels: the seeded corpus's recorder.
//
// Runs OpenCV's cudaimgproc kernel files (build_point_list.cu, hough_lines.cu, hough_segments.cu,
// fetched into the git-ignored .ocv/ as ../shared/ocv_harness/README.md says; never committed) the
// way cv::cuda::HoughLinesDetector::detect and cv::cuda::HoughSegmentDetector::detect drive them,
// with the stand-in headers of ../shared/ocv_harness, on many cases in one process (the harness
// runs one case per process). Not timed: compat_matrix/record_golden_seeded.py feeds it and stores
// digests of what it writes.
//
// Each case runs both detectors twice: with the case's maxLines (what a caller gets) and with room
// for every candidate (maxLines above any count the kernels can reach), so that a truncated output,
// which OpenCV fills in an arbitrary order, can be checked against an exactly comparable full set.
//
// Build (device):  nvcc -O3 -arch=sm_90 -I.ocv -o /tmp/ocv_batch compat_matrix/ocv_batch.cu
// Run:             ocv_batch OUT.bin < CASES.bin
// CASES.bin: records of int32 W, H, lines_threshold, lines_doSort, lines_maxLines, seg_minLineLength,
//   seg_maxLineGap, seg_maxLines, seg_threshold; float32 lines_rho, lines_theta, seg_rho, seg_theta;
//   then W*H uint8 pixels, row-major. End of input ends the run.
// OUT.bin, per case: int32 n_lines, n_lines_full, then n_lines float2 (rho, theta) and n_lines int32
//   votes, the same for the full set; then int32 n_segments, n_segments_full, then int4 segments of
//   each.
#include "build_point_list.cu"
#include "hough_lines.cu"
#include "hough_segments.cu"
#include <vector>
#include <algorithm>
#include <cstdint>
using namespace cv::cuda;
using namespace cv::cuda::device;

static const int SEG_FULL = 1 << 22;  // above any segment count of the corpus's images (checked)

struct Case {
  int32_t W, H, lthr, lsort, lmax, sminlen, smaxgap, smax, sthr;
  float lrho, ltheta, srho, stheta;
};

static int accumulate(PtrStepSzb src, unsigned int* d_list, int* d_counter, float rho, float theta,
                      const cudaDeviceProp& prop, int** d_accum, PtrStepSzi* accum) {
  const int W = src.cols, H = src.rows;
  const int numangle = (int)lrint(M_PI / theta);          // cvRound(CV_PI / theta)
  const int numrho = (int)lrint(((W + H) * 2 + 1) / rho);  // cvRound(((cols + rows) * 2 + 1) / rho)
  int pts = hough::buildPointList_gpu(src, d_list, d_counter, 0);
  size_t apitch;
  cudaSafeCall(cudaMallocPitch((void**)d_accum, &apitch, (numrho + 2) * sizeof(int), numangle + 2));
  accum->data = *d_accum; accum->step = apitch; accum->cols = numrho + 2; accum->rows = numangle + 2;
  if (pts == 0) return 0;
  cudaSafeCall(cudaMemset2DAsync(*d_accum, apitch, 0, (numrho + 2) * sizeof(int), numangle + 2, 0));
  hough_lines::linesAccum_gpu(d_list, pts, *accum, rho, theta, prop.sharedMemPerBlock, true, 0);
  return pts;
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: ocv_batch OUT.bin < CASES.bin\n"); return 2; }
  FILE* o = fopen(argv[1], "wb");
  if (!o) { fprintf(stderr, "cannot write %s\n", argv[1]); return 2; }
  cudaDeviceProp prop; cudaGetDeviceProperties(&prop, 0);
  int* d_counter; cudaSafeCall(cudaMalloc(&d_counter, sizeof(int)));
  Case c; long cases = 0;
  std::vector<unsigned char> img;
  while (fread(&c, sizeof(Case), 1, stdin) == 1) {
    const size_t n = (size_t)c.W * c.H;
    img.resize(n);
    if (fread(img.data(), 1, n, stdin) != n) { fprintf(stderr, "short image in case %ld\n", cases); return 2; }
    uchar* d_src; size_t spitch; cudaSafeCall(cudaMallocPitch(&d_src, &spitch, c.W, c.H));
    cudaSafeCall(cudaMemcpy2D(d_src, spitch, img.data(), c.W, c.W, c.H, cudaMemcpyHostToDevice));
    GpuMat gsrc; gsrc.data = gsrc.datastart = d_src; gsrc.step = spitch; gsrc.cols = c.W; gsrc.rows = c.H;
    PtrStepSzb src = gsrc;
    unsigned int* d_list; cudaSafeCall(cudaMalloc(&d_list, n * sizeof(unsigned int) + 4));

    // Lines: the case's maxLines, then room for every bin of the accumulator.
    {
      int* d_accum; PtrStepSzi accum;
      int pts = accumulate(src, d_list, d_counter, c.lrho, c.ltheta, prop, &d_accum, &accum);
      const int full_max = std::max(1, accum.cols * accum.rows);
      int maxes[2] = {c.lmax, full_max};
      int counts[2] = {0, 0};
      std::vector<float2> lines[2]; std::vector<int> votes[2];
      for (int k = 0; k < 2; ++k) {
        if (pts == 0 || maxes[k] <= 0) continue;
        float2* d_out; int* d_votes;
        cudaSafeCall(cudaMalloc(&d_out, maxes[k] * sizeof(float2))); cudaSafeCall(cudaMalloc(&d_votes, maxes[k] * sizeof(int)));
        counts[k] = hough_lines::linesGetResult_gpu(accum, d_out, d_votes, maxes[k], c.lrho, c.ltheta, c.lthr,
                                                    c.lsort != 0, d_counter, 0);
        lines[k].resize(counts[k]); votes[k].resize(counts[k]);
        if (counts[k] > 0) {
          cudaSafeCall(cudaMemcpy(lines[k].data(), d_out, counts[k] * sizeof(float2), cudaMemcpyDeviceToHost));
          cudaSafeCall(cudaMemcpy(votes[k].data(), d_votes, counts[k] * sizeof(int), cudaMemcpyDeviceToHost));
        }
        cudaFree(d_out); cudaFree(d_votes);
      }
      fwrite(counts, 4, 2, o);
      for (int k = 0; k < 2; ++k) { fwrite(lines[k].data(), sizeof(float2), counts[k], o); fwrite(votes[k].data(), 4, counts[k], o); }
      cudaFree(d_accum);
    }
    // Segments: the case's maxLines, then SEG_FULL.
    {
      int* d_accum; PtrStepSzi accum;
      int pts = accumulate(src, d_list, d_counter, c.srho, c.stheta, prop, &d_accum, &accum);
      int maxes[2] = {c.smax, SEG_FULL};
      int counts[2] = {0, 0};
      std::vector<int4> segs[2];
      for (int k = 0; k < 2; ++k) {
        if (pts == 0 || maxes[k] <= 0) continue;
        int4* d_out; cudaSafeCall(cudaMalloc(&d_out, maxes[k] * sizeof(int4)));
        counts[k] = hough_segments::houghLinesProbabilistic_gpu(gsrc, accum, d_out, maxes[k], c.srho, c.stheta,
                                                                c.smaxgap, c.sminlen, c.sthr, d_counter, 0);
        segs[k].resize(counts[k]);
        if (counts[k] > 0)
          cudaSafeCall(cudaMemcpy(segs[k].data(), d_out, counts[k] * sizeof(int4), cudaMemcpyDeviceToHost));
        cudaFree(d_out);
      }
      if (counts[1] >= SEG_FULL) { fprintf(stderr, "case %ld: segment count reached %d\n", cases, SEG_FULL); return 3; }
      fwrite(counts, 4, 2, o);
      for (int k = 0; k < 2; ++k) fwrite(segs[k].data(), sizeof(int4), counts[k], o);
      cudaFree(d_accum);
    }
    cudaFree(d_list); cudaFree(d_src);
    ++cases;
  }
  fclose(o);
  cudaSafeCall(cudaDeviceSynchronize());
  printf("cases=%ld\n", cases);
  return 0;
}
