/// \file
/// \brief `parprim::mpi(comm).local(parprim::cuda)`: each rank's block in its GPU's memory.
/// The checks of the host-local suites (every split: uneven, empty ranks first, last, odd;
/// reduce delivered everywhere and with root(r); inclusive and exclusive scans and segmented
/// scans, out of place and in place; compared with parprim::seq on the gathered global
/// sequence, floating point with the long double bound and bitwise agreement of the ranks)
/// for the combinations a plain C++ file can use (int32, uint32, int64, uint64, float,
/// double x plus, minimum, maximum), with the default kernels and with other rungs. Plus:
/// which GPU a rank gets, the segmented scans' search for a block's last head (misaligned
/// flags, the GPU probes), larger blocks, and errors raised on every rank.
///
/// Without a GPU every test skips ("no GPU: ..."), on every rank alike. With one GPU all ranks
/// share it.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "../support/exact_reference.hpp"
#include "../support/exact_values.hpp"
#include "support.hpp"

namespace parprim_mpi_test {
namespace {

// --- GPU presence ---------------------------------------------------------------------------

/// \brief Why the tests cannot run here, or "" when a GPU is present.
std::string no_gpu_reason() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return std::string("no GPU: cudaGetDeviceCount failed with ") + cudaGetErrorName(e);
  }
  if (count == 0) return "no GPU: cudaGetDeviceCount returned 0";
  return "";
}

int gpu_count() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

// Every rank sees the same machine, so every rank skips or none does.
#define PARPRIM_SKIP_WITHOUT_GPU()                                 \
  do {                                                             \
    const std::string parprim_reason_ = no_gpu_reason();           \
    if (!parprim_reason_.empty()) GTEST_SKIP() << parprim_reason_; \
  } while (false)

/// \brief Makes the rank's GPU (as the policy picks it) current, so that device_buffers are
/// allocated there.
template <class Policy>
void use_rank_gpu(const Policy& policy) {
  ASSERT_EQ(cudaSetDevice(parprim::mpi_local_device(policy)), cudaSuccess);
}

/// \brief A host block copied to the current GPU.
template <class T>
parprim::device_buffer<T> upload(std::span<const T> host) {
  parprim::device_buffer<T> d(host.size());
  d.copy_from_host(host);
  return d;
}

// --- cases and local policies ---------------------------------------------------------------

#define PARPRIM_CUDA_CASE(Name, T, Op, ...)        \
  struct Name : exact_case<T, T, Op> {             \
    static constexpr const char* name = #Name;     \
    static T gen(rng_t& r) { return __VA_ARGS__; } \
  }
PARPRIM_CUDA_CASE(u64_plus, std::uint64_t, parprim::plus,
                  uniform_int<std::uint64_t>(r, 0, ~std::uint64_t{0}));
PARPRIM_CUDA_CASE(u64_min, std::uint64_t, parprim::minimum,
                  uniform_int<std::uint64_t>(r, 0, ~std::uint64_t{0}));
PARPRIM_CUDA_CASE(u64_max, std::uint64_t, parprim::maximum,
                  uniform_int<std::uint64_t>(r, 0, ~std::uint64_t{0}));
#undef PARPRIM_CUDA_CASE

struct cuda_local {
  static constexpr const char* name = "cuda";
  static parprim::cuda_policy policy() { return parprim::cuda; }
};
/// Other rungs of both ladders: the policy's kernels must be the ones that run.
struct cuda_rungs_local {
  static constexpr const char* name = "cuda_k3_k2";
  static auto policy() {
    return parprim::cuda.reduce_kernel(parprim::cuda_reduce::k3_sequential_addressing)
        .scan_kernel(parprim::cuda_scan::k2_brent_kung);
  }
};

using cuda_combos = ::testing::Types<
    combo<cuda_local, i32_plus>, combo<cuda_local, i32_min>, combo<cuda_local, i32_max>,
    combo<cuda_local, u32_plus>, combo<cuda_local, u32_min>, combo<cuda_local, u32_max>,
    combo<cuda_local, i64_plus>, combo<cuda_local, i64_min>, combo<cuda_local, i64_max>,
    combo<cuda_local, u64_plus>, combo<cuda_local, u64_min>, combo<cuda_local, u64_max>,
    combo<cuda_local, f32_plus>, combo<cuda_local, f32_min>, combo<cuda_local, f32_max>,
    combo<cuda_local, f64_plus>, combo<cuda_local, f64_min>, combo<cuda_local, f64_max>,
    combo<cuda_rungs_local, i32_plus>, combo<cuda_rungs_local, u64_max>,
    combo<cuda_rungs_local, f32_plus>, combo<cuda_rungs_local, f64_min>>;

template <class C>
class MpiLocalCuda : public ::testing::Test {};
TYPED_TEST_SUITE(MpiLocalCuda, cuda_combos, combo_names);

/// for_each_mpi_problem with the rank's GPU current; skipped without a GPU.
template <class Combo, class Body>
void for_each_gpu_problem(std::uint64_t salt, Body body) {
  PARPRIM_SKIP_WITHOUT_GPU();
  use_rank_gpu(parprim::mpi(MPI_COMM_WORLD).local(Combo::local::policy()));
  for_each_mpi_problem<Combo>(salt, body);
}

// --- reduce ----------------------------------------------------------------------------------

TYPED_TEST(MpiLocalCuda, Reduce) {
  using Case = typename TypeParam::value_case;
  using T = typename Case::acc_t;
  const typename Case::op_t op{};
  for_each_gpu_problem<TypeParam>(11, [&](const auto& policy, const problem<Case>& p) {
    const auto in = upload<T>(p.my_in());
    expect_reduce_matches(parprim::reduce(policy, in.span(), p.init, op), p);
  });
}

TYPED_TEST(MpiLocalCuda, ReduceRoot) {
  PARPRIM_SKIP_WITHOUT_GPU();
  using Case = typename TypeParam::value_case;
  using T = typename Case::acc_t;
  SCOPED_TRACE(seed_trace());
  const world w = comm_world();
  const typename Case::op_t op{};
  const int root = w.size - 1;
  const auto policy = parprim::mpi(MPI_COMM_WORLD).local(TypeParam::local::policy()).root(root);
  use_rank_gpu(policy);
  for_each_problem<Case>(12, [&](const problem<Case>& p) {
    const auto in = upload<T>(p.my_in());
    const T got = parprim::reduce(policy, in.span(), p.init, op);
    const T again = parprim::reduce(policy, in.span(), p.init, op);
    if (w.rank != root) {
      EXPECT_TRUE(same_result<Case>(got, p.init)) << "non-root rank must get init back";
    } else if constexpr (Case::exact) {
      EXPECT_TRUE(exact_equal(got, parprim::reduce(parprim::seq, p.global_in, p.init, op)));
    }
    EXPECT_TRUE(same_result<Case>(got, again)) << "must repeat bit for bit";
  });
}

// --- scans -------------------------------------------------------------------------------------

/// Runs `scan(in, out)` on device blocks, out of place and in place, gathers and checks.
template <class Case, class Scan>
void check_scan_on_gpu(const problem<Case>& p, const std::vector<typename Case::acc_t>& expected,
                       bool inclusive, const std::uint8_t* flags, Scan scan) {
  using T = typename Case::acc_t;
  {
    SCOPED_TRACE("out of place");
    const auto in = upload<T>(p.my_in());
    parprim::device_buffer<T> out(in.size());
    scan(in.span(), out.span());
    expect_scan_matches(allgather_blocks<T>(out.to_host(), p.blocks), expected, p, inclusive,
                        flags);
  }
  {
    SCOPED_TRACE("in place");
    auto data = upload<T>(p.my_in());
    scan(parprim::device_span<const T>(data.span()), data.span());
    expect_scan_matches(allgather_blocks<T>(data.to_host(), p.blocks), expected, p, inclusive,
                        flags);
  }
}

TYPED_TEST(MpiLocalCuda, InclusiveScan) {
  using Case = typename TypeParam::value_case;
  using T = typename Case::acc_t;
  const typename Case::op_t op{};
  for_each_gpu_problem<TypeParam>(13, [&](const auto& policy, const problem<Case>& p) {
    std::vector<T> expected(p.n);
    parprim::inclusive_scan(parprim::seq, p.global_in, expected, op);
    check_scan_on_gpu(p, expected, true, nullptr,
                      [&](auto in, auto out) { parprim::inclusive_scan(policy, in, out, op); });
  });
}

TYPED_TEST(MpiLocalCuda, ExclusiveScan) {
  using Case = typename TypeParam::value_case;
  using T = typename Case::acc_t;
  const typename Case::op_t op{};
  for_each_gpu_problem<TypeParam>(14, [&](const auto& policy, const problem<Case>& p) {
    std::vector<T> expected(p.n);
    parprim::exclusive_scan(parprim::seq, p.global_in, expected, p.init, op);
    check_scan_on_gpu(p, expected, false, nullptr, [&](auto in, auto out) {
      parprim::exclusive_scan(policy, in, out, p.init, op);
    });
  });
}

// --- segmented scans ---------------------------------------------------------------------------

template <class Case, class Scan>
void check_segmented_on_gpu(const problem<Case>& p,
                            const std::vector<typename Case::acc_t>& expected, bool inclusive,
                            Scan scan) {
  const auto flags = upload<std::uint8_t>(p.my_flags());
  check_scan_on_gpu(p, expected, inclusive, p.global_flags.data(),
                    [&](auto in, auto out) { scan(in, flags.span(), out); });
}

TYPED_TEST(MpiLocalCuda, SegmentedInclusiveScan) {
  using Case = typename TypeParam::value_case;
  using T = typename Case::acc_t;
  const typename Case::op_t op{};
  for_each_gpu_problem<TypeParam>(15, [&](const auto& policy, const problem<Case>& p) {
    std::vector<T> expected(p.n);
    parprim::segmented_inclusive_scan(parprim::seq, p.global_in, p.global_flags, expected, op);
    check_segmented_on_gpu(p, expected, true, [&](auto in, auto flags, auto out) {
      parprim::segmented_inclusive_scan(policy, in, flags, out, op);
    });
  });
}

TYPED_TEST(MpiLocalCuda, SegmentedExclusiveScan) {
  using Case = typename TypeParam::value_case;
  using T = typename Case::acc_t;
  const typename Case::op_t op{};
  for_each_gpu_problem<TypeParam>(16, [&](const auto& policy, const problem<Case>& p) {
    std::vector<T> expected(p.n);
    parprim::segmented_exclusive_scan(parprim::seq, p.global_in, p.global_flags, expected, p.init,
                                      op);
    check_segmented_on_gpu(p, expected, false, [&](auto in, auto flags, auto out) {
      parprim::segmented_exclusive_scan(policy, in, flags, out, p.init, op);
    });
  });
}

// --- the search for a block's last head --------------------------------------------------------

/// Lowers the host window of the last-head search for a scope, so that small blocks go through
/// the GPU probes and the bisection.
class search_window {
 public:
  explicit search_window(std::size_t bytes) : saved_(parprim::mpi_detail::segmented_search_window) {
    parprim::mpi_detail::segmented_search_window = bytes;
  }
  ~search_window() { parprim::mpi_detail::segmented_search_window = saved_; }
  search_window(const search_window&) = delete;
  search_window& operator=(const search_window&) = delete;

 private:
  std::size_t saved_;
};

enum class heads { none, block_starts, one_early, one_late, sparse };
const char* heads_name(heads h) {
  switch (h) {
    case heads::none:
      return "no heads";
    case heads::block_starts:
      return "a head at each block's first element";
    case heads::one_early:
      return "one head near each block's start";
    case heads::one_late:
      return "one head in each block's second half";
    case heads::sparse:
      return "random heads, 1 in 3000";
  }
  return "?";
}

/// Segmented scans of int64 sums with flags at every misalignment (the flags view starts 0..7
/// bytes into its allocation), several head patterns, host windows of 16 bytes (GPU probes and
/// bisection at every scale) and the default (64 KiB) with blocks larger than it.
TEST(MpiLocalCudaSegmented, LastHeadSearch) {
  PARPRIM_SKIP_WITHOUT_GPU();
  SCOPED_TRACE(seed_trace());
  using Case = i64_plus;
  using T = std::int64_t;
  const world w = comm_world();
  const auto policy = parprim::mpi(MPI_COMM_WORLD).local(parprim::cuda);
  use_rank_gpu(policy);
  const parprim::plus op{};
  struct setting {
    std::size_t window;
    std::size_t n;
  };
  for (const setting s : {setting{16, 20011}, setting{100, 6007}, setting{65536, 400009}}) {
    const search_window scoped(s.window);
    for (heads h :
         {heads::none, heads::block_starts, heads::one_early, heads::one_late, heads::sparse}) {
      for (std::size_t misalign : {0, 1, 3, 7}) {
        SCOPED_TRACE("window " + std::to_string(s.window) + ", n = " + std::to_string(s.n) + ", " +
                     heads_name(h) + ", flags misaligned by " + std::to_string(misalign));
        rng_t r = make_rng(17, s.n, static_cast<std::uint64_t>(h) * 8 + misalign);
        problem<Case> p{s.n, split::uneven, make_layout(split::uneven, s.n, w.size, r), {}, {},
                        0,   w.rank};
        for (std::size_t i = 0; i < s.n; ++i) p.global_in.push_back(Case::gen(r));
        p.global_flags.assign(s.n, 0);
        for (std::size_t b = 0; b < p.blocks.count.size(); ++b) {
          const std::size_t off = p.blocks.offset[b];
          const std::size_t cnt = p.blocks.count[b];
          if (cnt == 0) continue;
          if (h == heads::block_starts) p.global_flags[off] = 1;
          if (h == heads::one_early) p.global_flags[off + std::min<std::size_t>(cnt - 1, 9)] = 1;
          if (h == heads::one_late)
            p.global_flags[off + cnt / 2 + uniform_int<std::size_t>(r, 0, (cnt - 1) / 2)] = 1;
        }
        if (h == heads::sparse)
          for (auto& f : p.global_flags) f = uniform_int<int>(r, 0, 2999) == 0 ? 1 : 0;
        p.init = Case::gen(r);

        // The flags at the wanted misalignment inside a larger allocation.
        const auto mine = p.my_flags();
        std::vector<std::uint8_t> padded(mine.size() + 8, 0xff);
        std::copy(mine.begin(), mine.end(), padded.begin() + static_cast<std::ptrdiff_t>(misalign));
        const auto flags_alloc = upload<std::uint8_t>(padded);
        const auto flags = flags_alloc.span().subspan(misalign, mine.size());

        std::vector<T> incl(s.n);
        std::vector<T> excl(s.n);
        parprim::segmented_inclusive_scan(parprim::seq, p.global_in, p.global_flags, incl, op);
        parprim::segmented_exclusive_scan(parprim::seq, p.global_in, p.global_flags, excl, p.init,
                                          op);
        check_scan_on_gpu(p, incl, true, p.global_flags.data(), [&](auto in, auto out) {
          parprim::segmented_inclusive_scan(policy, in, flags, out, op);
        });
        check_scan_on_gpu(p, excl, false, p.global_flags.data(), [&](auto in, auto out) {
          parprim::segmented_exclusive_scan(policy, in, flags, out, p.init, op);
        });
      }
    }
  }
}

// --- larger blocks -------------------------------------------------------------------------------

// --- exact_plus ------------------------------------------------------------------------------

/// exact_plus on device blocks: reduce and both scans (in place too) bitwise equal to the
/// independent exact reference of the global sequence, for every rank split (empty blocks
/// included): the ranks' superaccumulators cross the network, the GPU rounds.
template <class F>
void exact_on_gpu() {
  PARPRIM_SKIP_WITHOUT_GPU();
  using parprim_test::exact_expected;
  using parprim_test::exact_mix;
  using parprim_test::same_bits;
  SCOPED_TRACE(seed_trace());
  const world w = comm_world();
  const auto policy = parprim::mpi(MPI_COMM_WORLD).local(parprim::cuda);
  use_rank_gpu(policy);
  const parprim::exact_plus op{};
  std::uint64_t k = 0;
  for (const exact_mix mix :
       {exact_mix::uniform, exact_mix::cancellation, exact_mix::wide, exact_mix::special,
        exact_mix::signed_zeros, exact_mix::zero_prefixes}) {
    SCOPED_TRACE(std::string("input: ") + parprim_test::exact_mix_name(mix));
    for (const std::size_t n :
         {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{1025}, std::size_t{20011}}) {
      for (const split s : all_splits) {
        rng_t r = make_rng(static_cast<std::uint64_t>(mix) + 201, n, ++k);
        const std::vector<F> in = parprim_test::exact_input<F>(mix, r, n);
        const F init = parprim_test::exact_input<F>(mix, r, 1)[0];
        const layout l = make_layout(s, n, w.size, r);
        SCOPED_TRACE("n = " + std::to_string(n) + ", split: " + split_name(s));
        const auto mine = std::span<const F>(in).subspan(l.offset[w.rank], l.count[w.rank]);
        auto data = upload<F>(mine);
        const parprim::device_span<const F> d(data.span());
        parprim::device_buffer<F> out(mine.size());
        const F sum = parprim::reduce(policy, d, init, op);
        EXPECT_TRUE(same_bits(std::vector<F>{sum}, {exact_expected<F>::reduce(in, init)}))
            << "reduce";
        parprim::inclusive_scan(policy, d, out.span(), op);
        EXPECT_TRUE(same_bits(allgather_blocks<F>(out.to_host(), l),
                              exact_expected<F>::scan(in, nullptr, false, init)))
            << "inclusive_scan";
        parprim::exclusive_scan(policy, d, out.span(), init, op);
        EXPECT_TRUE(same_bits(allgather_blocks<F>(out.to_host(), l),
                              exact_expected<F>::scan(in, nullptr, true, init)))
            << "exclusive_scan";
        parprim::inclusive_scan(policy, d, data.span(), op);
        EXPECT_TRUE(same_bits(allgather_blocks<F>(data.to_host(), l),
                              exact_expected<F>::scan(in, nullptr, false, init)))
            << "inclusive_scan in place";
      }
    }
  }
}

TEST(MpiLocalCudaExact, FloatReduceAndScans) {
  exact_on_gpu<float>();
}
TEST(MpiLocalCudaExact, DoubleReduceAndScans) {
  exact_on_gpu<double>();
}

/// A few million elements over uneven blocks: multi-tile kernels, long carries.
TEST(MpiLocalCudaLarge, ScansAndReduce) {
  PARPRIM_SKIP_WITHOUT_GPU();
  SCOPED_TRACE(seed_trace());
  const world w = comm_world();
  const auto policy = parprim::mpi(MPI_COMM_WORLD).local(parprim::cuda);
  use_rank_gpu(policy);
  const std::size_t n = (std::size_t{1} << 22) + 12345;
  rng_t r = make_rng(18);
  problem<i32_plus> p{n, split::uneven, make_layout(split::uneven, n, w.size, r), {}, {},
                      7, w.rank};
  for (std::size_t i = 0; i < n; ++i) p.global_in.push_back(uniform_int<std::int32_t>(r, -9, 9));
  for (std::size_t i = 0; i < n; ++i)
    p.global_flags.push_back(uniform_int<int>(r, 0, 99999) == 0 ? 1 : 0);
  const parprim::plus op{};
  const auto in = upload<std::int32_t>(p.my_in());
  EXPECT_EQ(parprim::reduce(policy, in.span(), 7, op),
            parprim::reduce(parprim::seq, p.global_in, 7, op));
  std::vector<std::int32_t> expected(n);
  parprim::inclusive_scan(parprim::seq, p.global_in, expected, op);
  check_scan_on_gpu(p, expected, true, nullptr,
                    [&](auto i, auto o) { parprim::inclusive_scan(policy, i, o, op); });
  parprim::segmented_exclusive_scan(parprim::seq, p.global_in, p.global_flags, expected, 7, op);
  const auto flags = upload<std::uint8_t>(p.my_flags());
  check_scan_on_gpu(p, expected, false, p.global_flags.data(), [&](auto i, auto o) {
    parprim::segmented_exclusive_scan(policy, i, flags.span(), o, 7, op);
  });
}

// --- which GPU -----------------------------------------------------------------------------------

TEST(MpiLocalCudaDevice, RankMapsToNodeRankModuloGpuCount) {
  PARPRIM_SKIP_WITHOUT_GPU();
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_rank = 0;
  MPI_Comm_rank(node, &node_rank);
  MPI_Comm_free(&node);
  const int count = gpu_count();
  EXPECT_EQ(parprim::mpi_local_device(parprim::mpi(MPI_COMM_WORLD).local(parprim::cuda)),
            node_rank % count);
  EXPECT_EQ(parprim::mpi_local_device(
                parprim::mpi(MPI_COMM_WORLD).local(parprim::cuda.device(count - 1))),
            count - 1);
  // A stream without a device: the stream's GPU.
  const int dev = count - 1;
  ASSERT_EQ(cudaSetDevice(dev), cudaSuccess);
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  const auto on_stream = parprim::mpi(MPI_COMM_WORLD).local(parprim::cuda.on(s));
  EXPECT_EQ(parprim::mpi_local_device(on_stream), dev);
  // ... and the primitives run there, on that stream.
  std::vector<std::int32_t> h(1000 + 17 * static_cast<std::size_t>(comm_world().rank), 2);
  const auto d = upload<std::int32_t>(h);
  std::int64_t total_n = static_cast<std::int64_t>(h.size());
  MPI_Allreduce(MPI_IN_PLACE, &total_n, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(parprim::reduce(on_stream, d.span(), 0, parprim::plus{}), 2 * total_n);
  cudaStreamDestroy(s);
}

/// The current device is the caller's business: parprim switches for the call and restores it.
TEST(MpiLocalCudaDevice, RestoresCurrentDevice) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const auto policy = parprim::mpi(MPI_COMM_WORLD).local(parprim::cuda);
  use_rank_gpu(policy);
  const auto d = upload<double>(std::vector<double>(100, 0.5));
  const int other = gpu_count() - 1;
  ASSERT_EQ(cudaSetDevice(other), cudaSuccess);
  const int size = comm_world().size;
  EXPECT_EQ(parprim::reduce(policy, d.span(), 0.0, parprim::plus{}), 50.0 * size);
  int now = -1;
  ASSERT_EQ(cudaGetDevice(&now), cudaSuccess);
  EXPECT_EQ(now, other);
}

// --- errors raised on every rank
// ------------------------------------------------------------------

TEST(MpiLocalCudaErrors, HostMemoryOnOneRankRaisesEverywhere) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const world w = comm_world();
  const auto policy = parprim::mpi(MPI_COMM_WORLD).local(parprim::cuda);
  use_rank_gpu(policy);
  std::vector<std::int32_t> host(64, 1);
  auto dev = upload<std::int32_t>(host);
  // The last rank wraps host memory in a device_span.
  const bool liar = w.rank == w.size - 1;
  const parprim::device_span<std::int32_t> in =
      liar ? parprim::device_span<std::int32_t>(host.data(), host.size()) : dev.span();
  EXPECT_THROW(parprim::reduce(policy, in, 0, parprim::plus{}), parprim::invalid_argument);
  EXPECT_THROW(parprim::inclusive_scan(policy, in, dev.span()), parprim::invalid_argument);
  // Nothing was written on the ranks that were fine.
  EXPECT_EQ(dev.to_host(), host);
  // The communicator is still usable.
  EXPECT_EQ(parprim::reduce(policy, dev.span(), 0, parprim::plus{}), 64 * w.size);
}

TEST(MpiLocalCudaErrors, SizeMismatchOnOneRankRaisesEverywhere) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const world w = comm_world();
  const auto policy = parprim::mpi(MPI_COMM_WORLD).local(parprim::cuda);
  use_rank_gpu(policy);
  auto in = upload<float>(std::vector<float>(32, 1.0f));
  parprim::device_buffer<float> out(w.rank == 0 ? 31 : 32);
  EXPECT_THROW(parprim::inclusive_scan(policy, in.span(), out.span()), parprim::invalid_argument);
  auto flags = upload<std::uint8_t>(std::vector<std::uint8_t>(w.rank == 0 ? 30 : 32, 0));
  EXPECT_THROW(parprim::segmented_inclusive_scan(policy, in.span(), flags.span(), in.span()),
               parprim::invalid_argument);
}

TEST(MpiLocalCudaErrors, BlockOnAnotherGpuRaisesEverywhere) {
  PARPRIM_SKIP_WITHOUT_GPU();
  if (gpu_count() < 2) GTEST_SKIP() << "needs 2 GPUs (this machine has 1)";
  const world w = comm_world();
  const auto policy = parprim::mpi(MPI_COMM_WORLD).local(parprim::cuda);
  const int mine = parprim::mpi_local_device(policy);
  // Rank 0 allocates on a GPU that is not its own.
  ASSERT_EQ(cudaSetDevice(w.rank == 0 ? (mine + 1) % gpu_count() : mine), cudaSuccess);
  auto in = upload<std::int64_t>(std::vector<std::int64_t>(10, 3));
  EXPECT_THROW(parprim::reduce(policy, in.span(), std::int64_t{0}, parprim::plus{}),
               parprim::invalid_argument);
}

}  // namespace
}  // namespace parprim_mpi_test
