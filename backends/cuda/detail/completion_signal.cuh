#pragma once
/// \file
/// \brief How a synchronous call learns that its kernel has written everything without waiting
/// for its stream: the kernel's last block to finish writes the call's number into a word of
/// pinned, mapped host memory, after a system-wide fence, and the host spins on that word.
/// Between a kernel's last store and the host, `cudaStreamSynchronize` costs 2-2.5 us more than
/// such a word (H200 machine, dev/small_call_overhead.cu: a one-block kernel 9.9 us launch and
/// synchronise against 7.8 launch and spin, 64 blocks 10.7 against 8.3). In the library's
/// calls (docs/results/h200/small-calls/completion-signal/): reductions 1.1-1.6 us faster, scans
/// 0.35-0.8 us (each block first waits for its stores to be written). The host asks the stream
/// (`cudaStreamQuery`) every 16,384 spins, so an error raises as a synchronisation would raise
/// it and no call waits for a word that will not come.

#include <atomic>
#include <cstddef>

#include <cuda_runtime.h>

#include <parprim/backends/cuda/detail/bulk_copy.cuh>
#include <parprim/backends/cuda/detail/error.hpp>

namespace parprim::detail::cuda {

/// \brief The kernel's side. Inactive (`word` null) unless the call waits for it.
struct completion_signal {
  unsigned* done = nullptr;  ///< blocks finished; zero between launches (the last block resets it)
  unsigned* word = nullptr;  ///< the device's address of the host word; null: no signal
  unsigned value = 0;        ///< what the host waits for (never 0)

  __device__ bool active() const { return word != nullptr; }

  /// \brief A single writer that has written every result (the last block of a reduction).
  __device__ void write() const { write_word(word, value); }

  /// \brief Every thread of a block, after its last store (`bulk`: thread 0 also stored by bulk
  /// copies): the last of `blocks` blocks writes the word.
  __device__ void block_finished(std::size_t blocks, bool bulk) const {
    signal_block_finished(done, word, value, blocks, bulk);
  }

 private:
  /// Out of line, its arguments in registers: inlined, the few registers it holds moved the
  /// register allocation of the scan kernels' tiles (ptxas: spills in kernels that had none).
  __device__ static __noinline__ void signal_block_finished(unsigned* done, unsigned* word,
                                                            unsigned value, std::size_t blocks,
                                                            bool bulk) {
    if (bulk && threadIdx.x == 0) bulk_store_wait_written();
    __threadfence();  // this thread's stores before the count
    __syncthreads();
    if (threadIdx.x == 0 && atomicAdd(done, 1u) == static_cast<unsigned>(blocks - 1)) {
      *done = 0;  // ready for the next launch on this stream
      write_word(word, value);
    }
  }
  __device__ static void write_word(unsigned* word, unsigned value) {
    __threadfence_system();  // the results before the word, for the host and every stream
    *reinterpret_cast<volatile unsigned*>(word) = value;
  }
};

/// \brief The host's side: the word in the call's mapped host memory, and the value the kernel
/// writes there (one more than the word holds, skipping 0; the call's previous user of the word
/// finished before this call took the memory).
struct completion_wait {
  volatile unsigned* word = nullptr;
  unsigned value = 0;

  /// \brief Until the word holds `value`, or the stream is idle; raises the stream's error.
  void operator()(cudaStream_t stream) const {
    for (unsigned spins = 1; *word != value; ++spins) {
      if (spins % 16384 == 0) {
        const cudaError_t status = cudaStreamQuery(stream);
        if (status == cudaSuccess) break;  // the kernel has ended, so its word was written
        if (status != cudaErrorNotReady) PARPRIM_CUDA_CHECK(status);
      }
    }
    std::atomic_thread_fence(std::memory_order_acquire);  // the results after the word
  }
};

}  // namespace parprim::detail::cuda
