/// \file
/// \brief The CUDA backend inside pipelines: `nosync()` calls return before their work is done
/// and give the right results after a synchronisation; synchronous calls (which wait for a word
/// their kernel writes, not for the stream) are complete for every stream when they return;
/// reduce_into and transform_reduce_into (synchronous and not); temporaries from a user memory
/// resource (balanced, errors reach the caller before anything is written; reductions, scans and
/// the per-segment calls); CUDA graph capture and replay with new inputs, with the stream-ordered
/// allocator and with the pre-sized cache; releasing the cache.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <new>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <parprim/parprim.hpp>

#include "cuda_test_support.hpp"

namespace parprim_cuda_test {
namespace {

/// Spins until the host writes 1 to `*open` (mapped pinned memory), or about 10 s have passed
/// (so a test that fails cannot hang).
__global__ void gate_kernel(volatile int* open) {
  const long long start = clock64();
  while (*open == 0 && clock64() - start < 20'000'000'000LL) {
  }
}

/// A stream that a gate kernel can hold until `release()`: work enqueued behind the gate cannot
/// finish before that, so a call that returns while the gate holds did not wait for its work.
class gated_stream {
 public:
  gated_stream() {
    scans::cuda_ok(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    scans::cuda_ok(
        cudaHostAlloc(reinterpret_cast<void**>(&open_), sizeof(int), cudaHostAllocMapped),
        "cudaHostAlloc");
    set(1);
  }
  ~gated_stream() {
    release();
    (void)cudaStreamSynchronize(stream_);
    (void)cudaStreamDestroy(stream_);
    (void)cudaFreeHost(open_);
  }
  cudaStream_t get() const { return stream_; }
  /// Enqueues the gate: the stream stops there until `release()`.
  void hold() {
    set(0);
    int* device_open = nullptr;
    scans::cuda_ok(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_open), open_, 0),
                   "cudaHostGetDevicePointer");
    gate_kernel<<<1, 1, 0, stream_>>>(device_open);
    scans::cuda_ok(cudaGetLastError(), "gate launch");
  }
  /// Whether the work enqueued so far is still pending.
  bool pending() const { return cudaStreamQuery(stream_) == cudaErrorNotReady; }
  void release() { set(1); }
  void sync() const { scans::cuda_ok(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }

 private:
  void set(int v) { *static_cast<volatile int*>(open_) = v; }
  cudaStream_t stream_ = nullptr;
  int* open_ = nullptr;
};

/// A memory resource that counts what it hands out (and can be told to fail).
class counting_resource final : public parprim::cuda_memory_resource {
 public:
  void* allocate(std::size_t bytes, CUstream_st* stream) override {
    if (fail) throw std::bad_alloc();
    void* p = upstream.allocate(bytes, stream);
    ++allocations;
    live += bytes;
    return p;
  }
  void deallocate(void* p, std::size_t bytes, CUstream_st* stream) noexcept override {
    upstream.deallocate(p, bytes, stream);
    ++deallocations;
    live -= bytes;
  }
  parprim::cuda_async_memory_resource upstream;
  bool fail = false;
  int allocations = 0;
  int deallocations = 0;
  std::size_t live = 0;
};

struct square {
  __host__ __device__ std::int64_t operator()(std::int32_t x) const { return std::int64_t{x} * x; }
};

std::vector<std::int32_t> random_ints(std::mt19937_64& rng, std::size_t n) {
  return random_vector<std::int32_t>(rng, n, -1000, 1000);
}

struct times_wide {
  __host__ __device__ std::int64_t operator()(std::int32_t a, std::int32_t b) const {
    return std::int64_t{a} * b;
  }
};

/// Runs every nosync call on a gated stream, with the cache (warmed by the same calls
/// synchronously first: growing it would wait for the device) and with a memory resource: each
/// returns while the gate holds (so it did not wait), and after the release every output equals
/// the sequential one.
TEST(CudaPipeline, NosyncCallsReturnBeforeTheirWorkAndAreRight) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = make_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937_64 rng(seed);
  parprim::cuda_async_memory_resource pool;
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(33), std::size_t(7169),
                        std::size_t(1) << 20, (std::size_t(1) << 22) + 3}) {
    if (n > scans::scan_max_n()) continue;
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto x = random_ints(rng, n);
    std::vector<std::uint8_t> flags(n);
    for (auto& f : flags) f = rng() % 97 == 0;
    const parprim::device_buffer<std::int32_t> dx(x);
    const parprim::device_buffer<std::uint8_t> dflags(flags);
    parprim::device_buffer<std::int32_t> incl(n), excl(n), seg(n), results(3);
    parprim::device_buffer<std::int64_t> sums(2), tincl(n);

    std::vector<std::int32_t> want_incl(n), want_excl(n), want_seg(n);
    parprim::inclusive_scan(parprim::seq, x, want_incl, parprim::plus{});
    parprim::exclusive_scan(parprim::seq, x, want_excl, 5, parprim::plus{});
    parprim::segmented_inclusive_scan(parprim::seq, x, flags, want_seg, parprim::plus{});
    std::vector<std::int64_t> want_t(n);
    parprim::transform_inclusive_scan(parprim::seq, x, want_t, parprim::plus{}, square{});

    gated_stream s;
    const auto run = [&](const auto& p) {
      parprim::inclusive_scan(p, dx.span(), incl.span(), parprim::plus{});
      parprim::exclusive_scan(p, dx.span(), excl.span(), 5, parprim::plus{});
      parprim::segmented_inclusive_scan(p, dx.span(), dflags.span(), seg.span(), parprim::plus{});
      // the scan's output feeds a reduction in stream order, no host wait in between
      parprim::reduce_into(p, std::as_const(incl).span(), results.span().subspan(0, 1), 0,
                           parprim::maximum{});
      parprim::reduce_into(p, dx.span(), results.span().subspan(1, 1), 0, parprim::plus{});
      parprim::reduce_into(p.reduce_kernel(parprim::cuda_reduce::k3_sequential_addressing),
                           dx.span(), results.span().subspan(2, 1), 0, parprim::plus{});
      parprim::transform_reduce_into(p, dx.span(), sums.span().subspan(0, 1), std::int64_t{7},
                                     parprim::plus{}, square{});
      parprim::transform_reduce_into(p, dx.span(), dx.span(), sums.span().subspan(1, 1),
                                     std::int64_t{0}, parprim::plus{}, times_wide{});
      parprim::transform_inclusive_scan(p, dx.span(), tincl.span(), parprim::plus{}, square{});
    };
    const auto check = [&](const char* what) {
      SCOPED_TRACE(what);
      EXPECT_EQ(incl.to_host(), want_incl);
      EXPECT_EQ(excl.to_host(), want_excl);
      EXPECT_EQ(seg.to_host(), want_seg);
      EXPECT_EQ(tincl.to_host(), want_t);
      const auto r = results.to_host();
      EXPECT_EQ(r[0], parprim::reduce(parprim::seq, want_incl, 0, parprim::maximum{}));
      EXPECT_EQ(r[1], parprim::reduce(parprim::seq, x, 0, parprim::plus{}));
      EXPECT_EQ(r[2], r[1]);
      const auto t = sums.to_host();
      EXPECT_EQ(t[0], parprim::transform_reduce(parprim::seq, x, std::int64_t{7}, parprim::plus{},
                                                square{}));
      EXPECT_EQ(t[1], parprim::transform_reduce(parprim::seq, x, std::int64_t{0}, parprim::plus{},
                                                square{}));
    };
    run(parprim::cuda.on(s.get()));  // synchronous: warms the cache of this stream
    check("synchronous");
    for (int with_pool = 0; with_pool < 2; ++with_pool) {
      SCOPED_TRACE(with_pool ? "memory resource" : "cache");
      incl.copy_from_host(std::vector<std::int32_t>(n, -1));
      s.hold();
      if (with_pool)
        run(parprim::cuda.on(s.get()).nosync().memory(pool));
      else
        run(parprim::cuda.on(s.get()).nosync());
      EXPECT_TRUE(s.pending()) << "a nosync call waited for its work";
      s.release();
      s.sync();
      check("nosync");
    }
  }
}

/// Synchronous calls learn that their kernel is done from a word it writes into mapped host
/// memory, not from a stream synchronisation: when one returns, its results must be complete for
/// every reader. Each output is filled with a pattern first; a device output is read back right
/// after the call through another stream, which waits for nothing on the call's, and a pinned
/// host output is read by the host at once, its last element first (the last tile waits for the
/// longest look-back: a signal that came before every tile was written would show there). Sizes
/// of one tile to a few hundred tiles (the signalled calls) and one of more (a stream
/// synchronisation), calls in a row (each kernel leaves its count of finished blocks zero for
/// the next: a count left over would signal a later call before its last tiles are written).
TEST(CudaPipeline, SynchronousCallsAreCompleteWhenTheyReturn) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = make_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937_64 rng(seed);
  cudaStream_t stream = nullptr;
  cudaStream_t other = nullptr;
  scans::cuda_ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  scans::cuda_ok(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking), "other stream");
  const auto policy = parprim::cuda.on(stream);
  // Read through `other` (pageable destination: the copy is done when it returns).
  auto read = [&](const parprim::device_buffer<std::int32_t>& b) {
    std::vector<std::int32_t> h(b.size());
    scans::cuda_ok(cudaMemcpyAsync(h.data(), std::as_const(b).span().data(),
                                   h.size() * sizeof(std::int32_t), cudaMemcpyDeviceToHost, other),
                   "copy on the other stream");
    scans::cuda_ok(cudaStreamSynchronize(other), "other stream");
    return h;
  };
  auto fill = [&](parprim::device_buffer<std::int32_t>& b) {
    scans::cuda_ok(cudaMemsetAsync(b.span().data(), 0x5a, b.size() * sizeof(std::int32_t), stream),
                   "pattern");
  };
  const std::int32_t pattern = 0x5a5a5a5a;  // what `fill` writes, and the pinned output's filling
  const std::size_t max_n = std::min(scans::scan_max_n(), (std::size_t(1) << 23) + 1);
  std::int32_t* pinned = nullptr;
  scans::cuda_ok(cudaMallocHost(reinterpret_cast<void**>(&pinned), max_n * sizeof(std::int32_t)),
                 "cudaMallocHost");
  for (const std::size_t n :
       {std::size_t(1), std::size_t(2), std::size_t(33), std::size_t(7167), std::size_t(7169),
        std::size_t(65537), (std::size_t(1) << 21) + 3, (std::size_t(1) << 23) + 1}) {
    if (n > max_n) continue;
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto x = random_ints(rng, n);
    const parprim::device_buffer<std::int32_t> in(x);
    parprim::device_buffer<std::int32_t> out(n);
    std::vector<std::int32_t> inclusive(n), exclusive(n);
    parprim::inclusive_scan(parprim::seq, x, inclusive, parprim::plus{});
    parprim::exclusive_scan(parprim::seq, x, exclusive, std::int32_t{-9}, parprim::plus{});
    const std::int64_t sum = parprim::reduce(parprim::seq, x, std::int64_t{5}, parprim::plus{});
    const parprim::device_span<std::int32_t> host_out(pinned, n);
    const volatile std::int32_t* const seen = pinned;
    for (int round = 0; round < 3; ++round) {
      fill(out);
      parprim::inclusive_scan(policy, in.span(), out.span(), parprim::plus{});
      EXPECT_EQ(read(out), inclusive) << "inclusive scan, call " << round;
      fill(out);
      parprim::exclusive_scan(policy, in.span(), out.span(), std::int32_t{-9}, parprim::plus{});
      EXPECT_EQ(read(out), exclusive) << "exclusive scan, call " << round;
      EXPECT_EQ(parprim::reduce(policy, in.span(), std::int64_t{5}, parprim::plus{}), sum)
          << "reduce, call " << round;
      // into pinned memory: the last element read the moment the call returns, then the rest
      auto check_pinned = [&](const char* what, const std::vector<std::int32_t>& want,
                              auto&& call) {
        std::fill(pinned, pinned + n, pattern);
        call();
        const std::int32_t last = seen[n - 1];
        EXPECT_EQ(last, want[n - 1]) << what << " into pinned memory, call " << round;
        EXPECT_TRUE(std::equal(want.begin(), want.end(), pinned))
            << what << " into pinned memory, call " << round;
      };
      check_pinned("inclusive scan", inclusive,
                   [&] { parprim::inclusive_scan(policy, in.span(), host_out, parprim::plus{}); });
      check_pinned("exclusive scan", exclusive, [&] {
        parprim::exclusive_scan(policy, in.span(), host_out, std::int32_t{-9}, parprim::plus{});
      });
    }
  }
  scans::cuda_ok(cudaStreamSynchronize(stream), "stream");
  (void)cudaFreeHost(pinned);
  (void)cudaStreamDestroy(stream);
  (void)cudaStreamDestroy(other);
}

TEST(CudaPipeline, ReduceIntoSynchronousAndItsErrors) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = make_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937_64 rng(seed);
  const auto x = random_ints(rng, 100003);
  const parprim::device_buffer<std::int32_t> dx(x);
  parprim::device_buffer<std::int32_t> r(2);
  const std::vector<std::int32_t> poison = {-77, -77};
  r.copy_from_host(poison);

  // synchronous: the value is there when the call returns
  parprim::reduce_into(parprim::cuda, dx.span(), r.span().first(1), 3, parprim::plus{});
  EXPECT_EQ(r.to_host()[0], parprim::reduce(parprim::seq, x, 3, parprim::plus{}));
  parprim::reduce_into(parprim::cuda, dx.span().first(0), r.span().first(1), 42, parprim::plus{});
  EXPECT_EQ(r.to_host()[0], 42) << "n = 0 writes init";

  r.copy_from_host(poison);
  EXPECT_THROW(parprim::reduce_into(parprim::cuda, dx.span(), r.span(), 0, parprim::plus{}),
               parprim::invalid_argument)
      << "two result elements";
  EXPECT_THROW(
      parprim::reduce_into(parprim::cuda, dx.span(), r.span().first(0), 0, parprim::plus{}),
      parprim::invalid_argument)
      << "no result element";
  std::int32_t host_slot = -77;
  EXPECT_THROW(
      parprim::reduce_into(parprim::cuda, dx.span(),
                           parprim::device_span<std::int32_t>(&host_slot, 1), 0, parprim::plus{}),
      parprim::invalid_argument)
      << "host memory as the result";
  parprim::device_buffer<std::int32_t> inout(x);
  EXPECT_THROW(parprim::reduce_into(parprim::cuda, std::as_const(inout).span(),
                                    inout.span().subspan(5, 1), 0, parprim::plus{}),
               parprim::invalid_argument)
      << "the result inside the input";
  // the transforms: int64 results read through an int32 view of the same memory
  const std::vector<std::int64_t> wide_host(64, 5);
  parprim::device_buffer<std::int64_t> wide(wide_host);
  const parprim::device_span<const std::int32_t> narrow(
      reinterpret_cast<const std::int32_t*>(std::as_const(wide).span().data()), 128);
  EXPECT_THROW(parprim::transform_reduce_into(parprim::cuda, narrow, wide.span().subspan(3, 1),
                                              std::int64_t{0}, parprim::plus{}, square{}),
               parprim::invalid_argument)
      << "a transform's result inside its input";
  EXPECT_THROW(parprim::transform_reduce_into(parprim::cuda, dx.span().first(128), narrow,
                                              wide.span().subspan(60, 1), std::int64_t{0},
                                              parprim::plus{}, times_wide{}),
               parprim::invalid_argument)
      << "a transform's result inside its second input";
  EXPECT_EQ(r.to_host(), poison) << "nothing written by a rejected call";
  EXPECT_EQ(inout.to_host(), x) << "nothing written by a rejected call";
  EXPECT_EQ(wide.to_host(), wide_host) << "nothing written by a rejected call";
  EXPECT_EQ(host_slot, -77);
}

TEST(CudaPipeline, MemoryResourceSuppliesEveryTemporary) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = make_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937_64 rng(seed);
  counting_resource mr;
  const cudaStream_t stream = scans::test_stream();
  for (std::size_t n : {std::size_t(1), std::size_t(4097), std::size_t(3) << 20}) {
    if (n > scans::scan_max_n()) continue;
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto x = random_ints(rng, n);
    std::vector<std::uint8_t> flags(n);
    for (auto& f : flags) f = rng() % 31 == 0;
    const parprim::device_buffer<std::int32_t> dx(x);
    const parprim::device_buffer<std::uint8_t> dflags(flags);
    parprim::device_buffer<std::int32_t> out(n);
    std::vector<std::int32_t> want(n), want_seg(n);
    parprim::inclusive_scan(parprim::seq, x, want, parprim::plus{});
    parprim::segmented_inclusive_scan(parprim::seq, x, flags, want_seg, parprim::plus{});
    const std::int32_t want_sum = parprim::reduce(parprim::seq, x, 0, parprim::plus{});

    const auto p = parprim::cuda.on(stream).memory(mr);
    EXPECT_EQ(parprim::reduce(p, dx.span(), 0, parprim::plus{}), want_sum);
    EXPECT_EQ(
        parprim::reduce(p.reduce_kernel(parprim::cuda_reduce::k6_grid_stride_multiple_elements),
                        dx.span(), 0, parprim::plus{}),
        want_sum);
    // the per-segment calls: head flags and keys counted while reduced (outputs of n), offsets
    // checked (the check's report and the count in the resource's memory, copied back)
    std::vector<std::int32_t> sums(n), run_keys(n), run_sums(n);
    const std::size_t k =
        parprim::segmented_reduce(parprim::seq, x, flags, sums, 3, parprim::plus{});
    std::vector<std::int64_t> begins;
    std::vector<std::int32_t> keys(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (i == 0 || flags[i] != 0) begins.push_back(static_cast<std::int64_t>(i));
      keys[i] = static_cast<std::int32_t>(begins.size());
    }
    begins.push_back(static_cast<std::int64_t>(n));
    const std::size_t runs =
        parprim::reduce_by_key(parprim::seq, keys, x, run_keys, run_sums, parprim::plus{});
    const parprim::device_buffer<std::int64_t> dbegins(begins);
    const parprim::device_buffer<std::int32_t> dkeys(keys);
    parprim::device_buffer<std::int32_t> per(n), rows(k), out_keys(n);
    const auto first = [](const std::vector<std::int32_t>& v, std::size_t count) {
      return std::vector<std::int32_t>(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(count));
    };
    EXPECT_EQ(
        parprim::segmented_reduce(p, dx.span(), dflags.span(), per.span(), 3, parprim::plus{}), k);
    EXPECT_EQ(first(per.to_host(), k), first(sums, k)) << "segmented_reduce (flags)";
    parprim::segmented_reduce(p, dx.span(), parprim::offsets(dbegins.span()), rows.span(), 3,
                              parprim::plus{});
    EXPECT_EQ(rows.to_host(), first(sums, k)) << "segmented_reduce (offsets)";
    EXPECT_EQ(parprim::reduce_by_key(p, dkeys.span(), dx.span(), out_keys.span(), per.span(),
                                     parprim::plus{}),
              runs);
    EXPECT_EQ(first(out_keys.to_host(), runs), first(run_keys, runs)) << "reduce_by_key's keys";
    EXPECT_EQ(first(per.to_host(), runs), first(run_sums, runs)) << "reduce_by_key";
    // outputs of exactly k: at a head in 31 elements the results pass through a temporary of
    // the outputs' size (from the resource too), copied into the poisoned outputs
    parprim::device_buffer<std::int32_t> exact_sums(std::vector<std::int32_t>(k, -7));
    parprim::device_buffer<std::int32_t> exact_keys(std::vector<std::int32_t>(runs, -7));
    parprim::device_buffer<std::int32_t> exact_runs(std::vector<std::int32_t>(runs, -7));
    EXPECT_EQ(parprim::segmented_reduce(p, dx.span(), dflags.span(), exact_sums.span(), 3,
                                        parprim::plus{}),
              k);
    EXPECT_EQ(exact_sums.to_host(), first(sums, k)) << "segmented_reduce (flags), out of k";
    EXPECT_EQ(parprim::reduce_by_key(p, dkeys.span(), dx.span(), exact_keys.span(),
                                     exact_runs.span(), parprim::plus{}),
              runs);
    EXPECT_EQ(exact_keys.to_host(), first(run_keys, runs)) << "reduce_by_key's keys, out of k";
    EXPECT_EQ(exact_runs.to_host(), first(run_sums, runs)) << "reduce_by_key, out of k";

    scans::for_each_scan_rung([&](const auto& rung, std::size_t) {
      SCOPED_TRACE(scans::scan_rung_name(rung));
      const auto q = rung.on(stream).memory(mr);
      parprim::inclusive_scan(q, dx.span(), out.span(), parprim::plus{});
      EXPECT_EQ(out.to_host(), want);
      parprim::segmented_inclusive_scan(q, dx.span(), dflags.span(), out.span(), parprim::plus{});
      EXPECT_EQ(out.to_host(), want_seg);
      parprim::inclusive_scan(q.nosync(), dx.span(), out.span(), parprim::plus{});
      scans::cuda_ok(cudaStreamSynchronize(stream), "sync");
      EXPECT_EQ(out.to_host(), want) << "nosync";
    });
  }
  scans::cuda_ok(cudaStreamSynchronize(stream), "sync");
  EXPECT_GT(mr.allocations, 0);
  EXPECT_EQ(mr.allocations, mr.deallocations);
  EXPECT_EQ(mr.live, 0u);

  // A resource that throws: the exception reaches the caller, nothing is written.
  const std::vector<std::int32_t> x = random_ints(rng, 5000);
  const parprim::device_buffer<std::int32_t> dx(x);
  const std::vector<std::int32_t> poison(x.size(), -5);
  parprim::device_buffer<std::int32_t> out(poison);
  mr.fail = true;
  EXPECT_THROW(parprim::inclusive_scan(parprim::cuda.on(stream).memory(mr), dx.span(), out.span(),
                                       parprim::plus{}),
               std::bad_alloc);
  EXPECT_THROW(
      (void)parprim::reduce(parprim::cuda.on(stream).memory(mr), dx.span(), 0, parprim::plus{}),
      std::bad_alloc);
  EXPECT_EQ(out.to_host(), poison);
}

/// Captures nosync calls into a graph, replays it over new inputs written into the same
/// buffers, and checks every replay. `policy` decides where the temporaries come from; with
/// `presize` the calls run once before the capture (so that the cache need not grow inside it).
template <class Policy>
void capture_and_replay(const Policy& policy, cudaStream_t stream, std::mt19937_64& rng,
                        std::size_t n, bool presize = false) {
  std::vector<std::uint8_t> flags(n);
  for (auto& f : flags) f = rng() % 101 == 0;
  parprim::device_buffer<std::int32_t> dx{std::vector<std::int32_t>(n)}, incl(n), seg(n), k4(n),
      k1(n), total(1);
  parprim::device_buffer<float> fx{std::vector<float>(n)}, fincl(n);
  const parprim::device_buffer<std::uint8_t> dflags(flags);
  const auto record = [&] {
    parprim::inclusive_scan(policy, std::as_const(dx).span(), incl.span(), parprim::plus{});
    parprim::inclusive_scan(policy.scan_kernel(parprim::cuda_scan::k4_warp_reduce_then_scan),
                            std::as_const(dx).span(), k4.span(), parprim::plus{});
    parprim::exclusive_scan(policy.scan_kernel(parprim::cuda_scan::k1_kogge_stone),
                            std::as_const(dx).span(), k1.span(), 0, parprim::plus{});
    parprim::segmented_inclusive_scan(policy, std::as_const(dx).span(), dflags.span(), seg.span(),
                                      parprim::plus{});
    parprim::inclusive_scan(policy.scan_kernel(parprim::cuda_scan::k5_decoupled_look_back),
                            std::as_const(fx).span(), fincl.span(), parprim::plus{});
    parprim::reduce_into(policy, std::as_const(incl).span(), total.span(), 0, parprim::plus{});
  };
  if (presize) {
    record();
    scans::cuda_ok(cudaStreamSynchronize(stream), "sync");
  }
  cudaGraph_t graph = nullptr;
  scans::cuda_ok(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "begin capture");
  try {
    record();
  } catch (...) {
    (void)cudaStreamEndCapture(stream, &graph);
    if (graph) (void)cudaGraphDestroy(graph);
    throw;
  }
  scans::cuda_ok(cudaStreamEndCapture(stream, &graph), "end capture");
  cudaGraphExec_t exec = nullptr;
  scans::cuda_ok(cudaGraphInstantiate(&exec, graph, 0), "instantiate");
  for (int replay = 0; replay < 3; ++replay) {
    SCOPED_TRACE("replay " + std::to_string(replay));
    const auto x = random_vector<std::int32_t>(rng, n, -50, 50);
    std::vector<float> f(n);
    for (std::size_t i = 0; i < n; ++i) f[i] = static_cast<float>(x[i] % 4);  // exact sums
    dx.copy_from_host(x);
    fx.copy_from_host(f);
    scans::cuda_ok(cudaGraphLaunch(exec, stream), "launch");
    scans::cuda_ok(cudaStreamSynchronize(stream), "sync");
    std::vector<std::int32_t> want(n), want_seg(n), want_excl(n);
    std::vector<float> want_f(n);
    parprim::inclusive_scan(parprim::seq, x, want, parprim::plus{});
    parprim::exclusive_scan(parprim::seq, x, want_excl, 0, parprim::plus{});
    parprim::segmented_inclusive_scan(parprim::seq, x, flags, want_seg, parprim::plus{});
    parprim::inclusive_scan(parprim::seq, f, want_f, parprim::plus{});
    EXPECT_EQ(incl.to_host(), want);
    EXPECT_EQ(k4.to_host(), want);
    EXPECT_EQ(k1.to_host(), want_excl);
    EXPECT_EQ(seg.to_host(), want_seg);
    EXPECT_EQ(fincl.to_host(), want_f);
    EXPECT_EQ(total.to_host()[0], parprim::reduce(parprim::seq, want, 0, parprim::plus{}));
  }
  (void)cudaGraphExecDestroy(exec);
  (void)cudaGraphDestroy(graph);
}

/// Graphs with the stream-ordered allocator (the graph owns its memory), then with the cache,
/// pre-sized by the same calls before the capture.
TEST(CudaPipeline, GraphCaptureAndReplay) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = make_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937_64 rng(seed);
  cudaStream_t stream = nullptr;
  scans::cuda_ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  parprim::cuda_async_memory_resource pool;
  for (std::size_t n : {std::size_t(1000), (std::size_t(1) << 21) + 5}) {
    if (n > scans::scan_max_n()) continue;
    SCOPED_TRACE("n = " + std::to_string(n));
    {
      SCOPED_TRACE("memory resource");
      capture_and_replay(parprim::cuda.on(stream).nosync().memory(pool), stream, rng, n);
    }
    {
      SCOPED_TRACE("pre-sized cache");
      capture_and_replay(parprim::cuda.on(stream).nosync(), stream, rng, n, true);
    }
  }
  (void)cudaStreamDestroy(stream);
}

TEST(CudaPipeline, ReleaseCachedMemory) {
  PARPRIM_SKIP_WITHOUT_GPU();
  std::vector<std::int32_t> x(1 << 20);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::int32_t>(i % 7) - 3;
  const parprim::device_buffer<std::int32_t> dx(x);
  parprim::device_buffer<std::int32_t> out(x.size());
  parprim::inclusive_scan(parprim::cuda, dx.span(), out.span(), parprim::plus{});
  EXPECT_GT(parprim::cuda_cached_memory_bytes(), 0u);
  parprim::cuda_release_cached_memory();
  EXPECT_EQ(parprim::cuda_cached_memory_bytes(), 0u);
  parprim::inclusive_scan(parprim::cuda, dx.span(), out.span(), parprim::plus{});
  std::vector<std::int32_t> want(x.size());
  parprim::inclusive_scan(parprim::seq, x, want, parprim::plus{});
  EXPECT_EQ(out.to_host(), want) << "calls after a release allocate again";
  EXPECT_EQ(parprim::reduce(parprim::cuda, dx.span(), 0, parprim::plus{}),
            parprim::reduce(parprim::seq, x, 0, parprim::plus{}));
}

}  // namespace
}  // namespace parprim_cuda_test
