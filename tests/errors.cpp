/// \file
/// \brief Bad input, on every backend and policy: each raises parprim::invalid_argument (a
/// parprim::error, a std::runtime_error) before anything is written, so the output (and the
/// memory around it) is compared with its poisoned copy after the throw. Also: the policy
/// options that must throw, and the empty inputs that must not.

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <parprim/parprim.hpp>

#include "support/backends.hpp"
#include "support/harness.hpp"

namespace parprim_test {
namespace {

/// Runs `call`, expects parprim::invalid_argument, and checks that `memory` is unchanged.
template <class T>
void expect_invalid(const std::string& what, const std::vector<T>& memory,
                    const std::function<void()>& call) {
  SCOPED_TRACE(what);
  const std::vector<T> before = memory;
  bool thrown = false;
  try {
    call();
  } catch (const parprim::invalid_argument& e) {
    thrown = true;
    EXPECT_NE(std::string(e.what()), "") << "empty message";
    // it is also a parprim::error and a std::runtime_error
    const parprim::error* as_error = &e;
    const std::runtime_error* as_runtime = &e;
    EXPECT_NE(as_error, nullptr);
    EXPECT_NE(as_runtime, nullptr);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw something other than parprim::invalid_argument: " << e.what();
    return;
  }
  EXPECT_TRUE(thrown) << "no exception";
  EXPECT_TRUE(bitwise_equal(memory, before)) << "memory changed although the call threw";
}

/// Expects both segmented scans of `in` with `flags` into `out` to raise, `memory` unchanged.
template <class Policy, class In, class Flags, class T>
void expect_segmented_scans_invalid(const Policy& policy, const In& in, const Flags& flags,
                                    std::span<T> out, T init, const auto& memory) {
  expect_invalid("segmented_inclusive_scan", memory, [&] {
    parprim::segmented_inclusive_scan(policy, in, flags, out, parprim::plus{});
  });
  expect_invalid("segmented_exclusive_scan", memory, [&] {
    parprim::segmented_exclusive_scan(policy, in, flags, out, init, parprim::plus{});
  });
}

/// Expects all four scans (plain and segmented, inclusive and exclusive) to raise, `memory`
/// unchanged.
template <class Policy, class In, class Flags, class T>
void expect_scans_invalid(const Policy& policy, const In& in, const Flags& flags, std::span<T> out,
                          T init, const auto& memory) {
  expect_invalid("inclusive_scan", memory, [&] { parprim::inclusive_scan(policy, in, out); });
  expect_invalid("exclusive_scan", memory,
                 [&] { parprim::exclusive_scan(policy, in, out, init, parprim::plus{}); });
  expect_segmented_scans_invalid(policy, in, flags, out, init, memory);
}

/// The visible elements of a vector made by poisoned<T>(n) (without its guards).
template <class T>
std::span<T> visible(std::vector<T>& poisoned_vector) {
  return std::span<T>(poisoned_vector).subspan(guard, poisoned_vector.size() - 2 * guard);
}

// Sizes: tiny, and large enough that the default policies run in parallel.
constexpr std::size_t error_sizes[] = {1, 5, 1000, 100003};

/// for_each_policy over `B::policies()`, each policy at each of error_sizes:
/// `body(policy, n)`.
template <class B, class Body>
void for_each_policy_and_error_size(Body body) {
  for_each_policy<B>([&](const auto& p) {
    for (std::size_t n : error_sizes) {
      SCOPED_TRACE("n = " + std::to_string(n));
      body(p, n);
    }
  });
}

template <class B>
class Errors : public ::testing::Test {};
TYPED_TEST_SUITE(Errors, backends);

TYPED_TEST(Errors, SizeMismatch) {
  for_each_policy<TypeParam>([](const auto& p) {
    for (std::size_t n : error_sizes) {
      SCOPED_TRACE("n = " + std::to_string(n));
      std::vector<int> in(n);
      for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<int>(i % 7) - 3;
      const std::vector<std::uint8_t> flags(n, 1);
      const std::vector<std::uint8_t> flags_short(n - 1, 1), flags_long(n + 1, 1);
      for (std::size_t m : {n - 1, n + 1}) {
        SCOPED_TRACE("output of " + std::to_string(m) + " elements");
        std::vector<long> out = poisoned<long>(m);
        expect_scans_invalid(p.policy, in, flags, visible(out), 5L, out);
      }
      for (const auto* f : {&flags_short, &flags_long}) {
        SCOPED_TRACE("flags of " + std::to_string(f->size()) + " elements");
        std::vector<long> out = poisoned<long>(n);
        expect_segmented_scans_invalid(p.policy, in, *f, visible(out), 5L, out);
        std::vector<int> io = in;  // in place, flags wrong
        expect_invalid("segmented_inclusive_scan in place", io, [&] {
          parprim::segmented_inclusive_scan(p.policy, io, *f, io, parprim::plus{});
        });
      }
    }
    // empty input, non-empty output
    const std::vector<int> empty;
    std::vector<int> one(1, 77);
    expect_invalid("inclusive_scan, n = 0, out of 1", one,
                   [&] { parprim::inclusive_scan(p.policy, empty, one); });
    const std::vector<std::uint8_t> no_flags;
    expect_invalid("segmented_exclusive_scan, n = 0, out of 1", one, [&] {
      parprim::segmented_exclusive_scan(p.policy, empty, no_flags, one, 0, parprim::plus{});
    });
  });
}

TYPED_TEST(Errors, NullDataWithNonZeroSize) {
  for_each_policy_and_error_size<TypeParam>([](const auto& p, std::size_t n) {
    const std::span<const int> null_in(static_cast<const int*>(nullptr), n);
    const std::span<int> null_out(static_cast<int*>(nullptr), n);
    const std::span<const std::uint8_t> null_flags(static_cast<const std::uint8_t*>(nullptr), n);
    std::vector<int> in(n, 3);
    const std::vector<std::uint8_t> flags(n, 0);
    std::vector<int> out = poisoned<int>(n);
    const std::span<int> o = visible(out);
    const std::vector<int> nothing;
    expect_invalid("reduce, null input", nothing,
                   [&] { (void)parprim::reduce(p.policy, null_in, 0, parprim::plus{}); });
    expect_invalid("inclusive_scan, null input", out,
                   [&] { parprim::inclusive_scan(p.policy, null_in, o); });
    expect_invalid("exclusive_scan, null input", out,
                   [&] { parprim::exclusive_scan(p.policy, null_in, o, 0, parprim::plus{}); });
    expect_invalid("inclusive_scan, null output", in,
                   [&] { parprim::inclusive_scan(p.policy, in, null_out); });
    expect_invalid("exclusive_scan, null output", in,
                   [&] { parprim::exclusive_scan(p.policy, in, null_out, 0, parprim::plus{}); });
    expect_invalid("segmented_inclusive_scan, null input", out, [&] {
      parprim::segmented_inclusive_scan(p.policy, null_in, flags, o, parprim::plus{});
    });
    expect_invalid("segmented_inclusive_scan, null flags", out, [&] {
      parprim::segmented_inclusive_scan(p.policy, in, null_flags, o, parprim::plus{});
    });
    expect_invalid("segmented_exclusive_scan, null flags", out, [&] {
      parprim::segmented_exclusive_scan(p.policy, in, null_flags, o, 0, parprim::plus{});
    });
    expect_invalid("segmented_exclusive_scan, null output", in, [&] {
      parprim::segmented_exclusive_scan(p.policy, in, flags, null_out, 0, parprim::plus{});
    });
  });
}

TYPED_TEST(Errors, PartialOverlap) {
  for_each_policy_and_error_size<TypeParam>([](const auto& p, std::size_t n) {
    // one buffer of 3n + 2 elements; input at [n/2 + 1, n/2 + 1 + n), outputs shifted
    std::vector<int> buf(3 * n + 2);
    for (std::size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<int>(i * 7 % 13) - 6;
    const std::size_t in_at = n / 2 + 1;
    const std::span<const int> in(buf.data() + in_at, n);
    const std::vector<std::uint8_t> flags(n, 0);
    const std::ptrdiff_t sn = static_cast<std::ptrdiff_t>(n);
    for (std::ptrdiff_t shift : {std::ptrdiff_t{-1}, std::ptrdiff_t{1}, -sn / 2 - 1, sn - 1}) {
      // only shifts with 0 < |shift| < n overlap partially
      if (shift == 0 || std::abs(shift) >= static_cast<std::ptrdiff_t>(n)) continue;
      SCOPED_TRACE("output shifted by " + std::to_string(shift) + " elements");
      const std::span<int> out(buf.data() + static_cast<std::ptrdiff_t>(in_at) + shift, n);
      expect_scans_invalid(p.policy, in, flags, out, 1, buf);
    }
    // same address, different element widths: int32 input, int64 output over its bytes
    std::vector<std::int64_t> wide(n);
    for (std::size_t i = 0; i < n; ++i) wide[i] = static_cast<std::int64_t>(i) - 2;
    const std::span<const std::int32_t> narrow_in(
        reinterpret_cast<const std::int32_t*>(wide.data()), n);
    expect_invalid("inclusive_scan, int32 in, int64 out at the same address", wide,
                   [&] { parprim::inclusive_scan(p.policy, narrow_in, wide); });
  });
}

TYPED_TEST(Errors, FlagsOverlapOutput) {
  for_each_policy_and_error_size<TypeParam>([](const auto& p, std::size_t n) {
    std::vector<int> in(n);
    for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<int>(i % 5);
    std::vector<int> out(2 * n + 1, 0x01010101);  // room for flags starting in its last byte
    const std::span<int> o(out.data(), n);
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(out.data());
    for (std::size_t offset : {std::size_t{0}, std::size_t{3}, n * sizeof(int) - 1}) {
      SCOPED_TRACE("flags at byte " + std::to_string(offset) + " of the output");
      const std::span<const std::uint8_t> f(bytes + offset, n);
      expect_segmented_scans_invalid(p.policy, in, f, o, 2, out);
    }
    // in place, flags inside the in/out range
    std::vector<int> io = in;
    const std::span<const std::uint8_t> f(reinterpret_cast<const std::uint8_t*>(io.data()), n);
    expect_invalid("segmented_inclusive_scan in place, flags inside it", io, [&] {
      parprim::segmented_inclusive_scan(p.policy, io, f, io, parprim::plus{});
    });
  });
}

// n == 0 is valid, with or without data: nothing is written and nothing throws.
TYPED_TEST(Errors, EmptyIsValid) {
  for_each_policy<TypeParam>([](const auto& p) {
    const std::span<const int> null_in(static_cast<const int*>(nullptr), 0);
    const std::span<int> null_out(static_cast<int*>(nullptr), 0);
    const std::span<const std::uint8_t> null_flags(static_cast<const std::uint8_t*>(nullptr), 0);
    EXPECT_NO_THROW(parprim::inclusive_scan(p.policy, null_in, null_out));
    EXPECT_NO_THROW(parprim::exclusive_scan(p.policy, null_in, null_out, 1, parprim::plus{}));
    EXPECT_NO_THROW(parprim::segmented_inclusive_scan(p.policy, null_in, null_flags, null_out,
                                                      parprim::plus{}));
    EXPECT_NO_THROW(parprim::segmented_exclusive_scan(p.policy, null_in, null_flags, null_out, 1,
                                                      parprim::plus{}));
    EXPECT_EQ(parprim::reduce(p.policy, null_in, 9, parprim::plus{}), 9);
  });
}

// The per-segment results: every bad input raises before anything is written (outputs
// poisoned and compared after the throw).
TYPED_TEST(Errors, PerSegmentResults) {
  for_each_policy_and_error_size<TypeParam>([](const auto& p, std::size_t n) {
    const parprim::plus op;
    std::vector<int> in(n);
    std::vector<std::uint8_t> flags(n, 0);
    std::vector<int> keys(n);
    for (std::size_t i = 0; i < n; ++i) {
      in[i] = static_cast<int>(i % 7) - 3;
      flags[i] = i % 3 == 0 ? 1 : 0;
      keys[i] = static_cast<int>(i / 3 % 2);
    }
    const std::size_t k = (n + 2) / 3;  // segments, and key runs
    std::vector<long> small = poisoned<long>(k - 1);
    const std::span<long> o_small = visible(small);
    expect_invalid("segmented_reduce, out of k - 1", small,
                   [&] { (void)parprim::segmented_reduce(p.policy, in, flags, o_small, 0L, op); });
    std::vector<long> big = poisoned<long>(n);
    const std::span<long> o_big = visible(big);
    for (std::size_t m : {n - 1, n + 1}) {
      const std::vector<std::uint8_t> f(m, 1);
      expect_invalid("segmented_reduce, flags of " + std::to_string(m), big,
                     [&] { (void)parprim::segmented_reduce(p.policy, in, f, o_big, 0L, op); });
      const std::vector<int> kk(m, 0);
      std::vector<int> scan_out = poisoned<int>(n);
      const std::span<int> so = visible(scan_out);
      expect_invalid("inclusive_scan_by_key, keys of " + std::to_string(m), scan_out,
                     [&] { parprim::inclusive_scan_by_key(p.policy, kk, in, so, op); });
      expect_invalid("exclusive_scan_by_key, keys of " + std::to_string(m), scan_out,
                     [&] { parprim::exclusive_scan_by_key(p.policy, kk, in, so, 0, op); });
      std::vector<int> keys_out = poisoned<int>(n);
      const std::span<int> ko = visible(keys_out);
      expect_invalid("reduce_by_key, keys of " + std::to_string(m), big,
                     [&] { (void)parprim::reduce_by_key(p.policy, kk, in, ko, o_big, op); });
    }
    std::vector<int> io = in;  // no in-place reduction
    expect_invalid("segmented_reduce, out over the input", io,
                   [&] { (void)parprim::segmented_reduce(p.policy, io, flags, io, 0, op); });
    const std::span<const std::uint8_t> flags_in_out(
        reinterpret_cast<const std::uint8_t*>(big.data() + guard), n);
    expect_invalid("segmented_reduce, flags inside out", big, [&] {
      (void)parprim::segmented_reduce(p.policy, in, flags_in_out, o_big, 0L, op);
    });

    // CSR offsets
    std::vector<long> offsets;
    for (std::size_t i = 0; i < n; i += 3) offsets.push_back(static_cast<long>(i));
    offsets.push_back(static_cast<long>(n));
    std::vector<long> out_k = poisoned<long>(k);
    const std::span<long> ok = visible(out_k);
    const auto bad_offsets = [&](const std::string& what, std::vector<long> off) {
      expect_invalid("segmented_reduce, " + what, out_k, [&] {
        parprim::segmented_reduce(p.policy, in, parprim::offsets(off), ok, 0L, op);
      });
    };
    auto off = offsets;
    off[0] = 1;
    bad_offsets("first offset 1", off);
    off = offsets;
    off.back() = static_cast<long>(n) - 1;
    bad_offsets("last offset n - 1", off);
    off.back() = static_cast<long>(n) + 1;
    bad_offsets("last offset n + 1", off);
    if (k >= 2) {
      off = offsets;
      std::swap(off[k / 2], off[k / 2 + 1]);
      bad_offsets("offsets decreasing in the middle", off);
      off = offsets;
      off[k - 1] = static_cast<long>(n) + 5;  // then back to n: decreasing at the end
      bad_offsets("offsets decreasing at the end", off);
    }
    off = offsets;
    off[0] = -1;
    bad_offsets("negative first offset", off);
    expect_invalid("segmented_reduce, out of k - 1 for k segments", small, [&] {
      parprim::segmented_reduce(p.policy, in, parprim::offsets(offsets), o_small, 0L, op);
    });
    expect_invalid("segmented_reduce, out of n + 1 for k segments", big, [&] {
      parprim::segmented_reduce(p.policy, in, parprim::offsets(offsets),
                                std::span<long>(big).subspan(guard - 1, n + 1), 0L, op);
    });
    const std::vector<long> no_offsets;
    expect_invalid("segmented_reduce, no offsets", out_k, [&] {
      parprim::segmented_reduce(p.policy, in, parprim::offsets(no_offsets), ok, 0L, op);
    });
    const std::span<const long> null_offsets(static_cast<const long*>(nullptr), k + 1);
    expect_invalid("segmented_reduce, null offsets", out_k, [&] {
      parprim::segmented_reduce(p.policy, in, parprim::offsets(null_offsets), ok, 0L, op);
    });
    const std::span<const long> offsets_in_out(out_k.data() + guard, k);
    expect_invalid("segmented_reduce, offsets inside out", out_k, [&] {
      parprim::segmented_reduce(p.policy, in, parprim::offsets(offsets_in_out),
                                std::span<long>(out_k).subspan(guard, k - 1), 0L, op);
    });

    // reduce_by_key
    std::vector<int> keys_small = poisoned<int>(k - 1);
    const std::span<int> kos = visible(keys_small);
    std::vector<int> keys_big = poisoned<int>(n);
    const std::span<int> kob = visible(keys_big);
    expect_invalid("reduce_by_key, keys_out of k - 1", keys_small,
                   [&] { (void)parprim::reduce_by_key(p.policy, keys, in, kos, o_big, op); });
    expect_invalid("reduce_by_key, out of k - 1", small,
                   [&] { (void)parprim::reduce_by_key(p.policy, keys, in, kob, o_small, op); });
    expect_invalid("reduce_by_key, out over the input", io,
                   [&] { (void)parprim::reduce_by_key(p.policy, keys, io, kob, io, op); });
    std::vector<int> kio = keys;
    expect_invalid("reduce_by_key, keys_out over the keys", kio,
                   [&] { (void)parprim::reduce_by_key(p.policy, kio, in, kio, o_big, op); });

    // scans by key
    std::vector<int> both = keys;  // out over the keys
    expect_invalid("inclusive_scan_by_key, out over the keys", both,
                   [&] { parprim::inclusive_scan_by_key(p.policy, both, in, both, op); });
    if (n > 1) {
      std::vector<int> buf(2 * n);
      const std::span<const int> shifted_in(buf.data(), n);
      const std::span<int> shifted_out(buf.data() + 1, n);
      expect_invalid("exclusive_scan_by_key, out shifted over the input", buf, [&] {
        parprim::exclusive_scan_by_key(p.policy, keys, shifted_in, shifted_out, 0, op);
      });
    }
  });
}

// n == 0 is valid for the per-segment results: no segments (CSR: k empty segments get init).
TYPED_TEST(Errors, PerSegmentEmptyIsValid) {
  for_each_policy<TypeParam>([](const auto& p) {
    const std::span<const int> null_in(static_cast<const int*>(nullptr), 0);
    const std::span<int> null_out(static_cast<int*>(nullptr), 0);
    const std::span<const std::uint8_t> null_flags(static_cast<const std::uint8_t*>(nullptr), 0);
    EXPECT_EQ(
        parprim::segmented_reduce(p.policy, null_in, null_flags, null_out, 1, parprim::plus{}), 0u);
    const std::vector<int> zero = {0};
    EXPECT_NO_THROW(parprim::segmented_reduce(p.policy, null_in, parprim::offsets(zero), null_out,
                                              1, parprim::plus{}));
    const std::vector<std::size_t> empties = {0, 0, 0};
    std::vector<int> two(2, -1);
    parprim::segmented_reduce(p.policy, null_in, parprim::offsets(empties), two, 7,
                              parprim::plus{});
    EXPECT_EQ(two, (std::vector<int>{7, 7}));
    EXPECT_EQ(parprim::reduce_by_key(p.policy, null_in, null_in, null_out, null_out), 0u);
    EXPECT_NO_THROW(parprim::inclusive_scan_by_key(p.policy, null_in, null_in, null_out));
    EXPECT_NO_THROW(parprim::exclusive_scan_by_key(p.policy, null_in, null_in, null_out, 0));
  });
}

TEST(OmpPolicy, InvalidOptionsThrow) {
  EXPECT_THROW((void)parprim::omp.threads(0), parprim::invalid_argument);
  EXPECT_THROW((void)parprim::omp.threads(-3), parprim::invalid_argument);
  EXPECT_THROW((void)parprim::omp.grain(0), parprim::invalid_argument);
  EXPECT_THROW((void)parprim::omp.threads(4).grain(0), parprim::invalid_argument);
  EXPECT_THROW((void)parprim::omp.grain(8).threads(0), parprim::invalid_argument);
  try {
    (void)parprim::omp.threads(0);
  } catch (const parprim::error& e) {  // catchable as the base
    EXPECT_NE(std::string(e.what()).find("threads"), std::string::npos) << e.what();
  }
}

TEST(OmpPolicy, OptionsReturnModifiedCopies) {
  const auto p = parprim::omp.threads(3).grain(17);
  EXPECT_EQ(p.thread_count(), 3);
  EXPECT_EQ(p.grain_size(), 17u);
  EXPECT_EQ(parprim::omp.thread_count(), 0);
  EXPECT_EQ(parprim::omp.grain_size(), parprim::omp_policy::default_grain);
  const auto q = p.threads(1);
  EXPECT_EQ(q.thread_count(), 1);
  EXPECT_EQ(q.grain_size(), 17u);
  EXPECT_EQ(p.thread_count(), 3);
}

}  // namespace
}  // namespace parprim_test
