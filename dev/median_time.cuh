#pragma once
// Scratch (dev/ only): the median of `reps` timed runs of f() with CUDA events, after 3 warm-ups.
#include <algorithm>
#include <vector>

template <class F>
float median_ms(F f, int reps) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> t;
  for (int r = 0; r < reps + 3; ++r) {
    cudaEventRecord(a);
    f();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    if (r >= 3) t.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/// The same, in microseconds (15 timed runs unless told).
template <class F>
float time_us(F f, int reps = 15) {
  return median_ms(f, reps) * 1e3f;
}
