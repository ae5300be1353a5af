#pragma once
// Scratch (dev/ only): the median of `reps` timed runs of f() with CUDA events, after 3 warm-ups;
// and the device time of a call enqueued on a stream, through a CUDA graph.
#include <algorithm>
#include <cstdio>
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

/// Device time of one call f() that enqueues its work on `stream` (us): f() once (its scratch is
/// allocated outside the capture), then 20 calls captured into a graph, the graph launched
/// `reps` times after 2 warm-ups; the median launch over 20.
template <class F>
float graph_us(F f, cudaStream_t stream, int reps) {
  f();
  cudaStreamSynchronize(stream);
  cudaGraph_t g;
  cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
  for (int i = 0; i < 20; ++i) f();
  cudaStreamEndCapture(stream, &g);
  cudaGraphExec_t e;
  cudaGraphInstantiate(&e, g, 0);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> t;
  for (int r = 0; r < reps + 2; ++r) {
    cudaEventRecord(a, stream);
    cudaGraphLaunch(e, stream);
    cudaEventRecord(b, stream);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    if (r >= 2) t.push_back(ms * 1e3f / 20);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  cudaGraphExecDestroy(e);
  cudaGraphDestroy(g);
  std::sort(t.begin(), t.end());
  if (cudaGetLastError() != cudaSuccess) std::printf("(cuda error) ");
  return t[t.size() / 2];
}
