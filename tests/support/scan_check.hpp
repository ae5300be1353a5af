#pragma once
/// \file
/// \brief The check every scan-shaped test shares (scans, segmented scans, scans by key): one
/// call on backend `B`'s buffers, out of place (output poisoned, input must not change) or in
/// place, its output compared whole with the expectation.

#include <span>
#include <type_traits>

#include <gtest/gtest.h>

#include "harness.hpp"

namespace parprim_test {

/// \brief Runs `call(in, out)` out of place, or in place (`in` and `out` the same buffer; only
/// where the input and accumulator types agree, otherwise nothing runs), and compares the
/// output with `want`.
template <class B, class Case, class Call>
void check_scan_call(std::span<const typename Case::in_t> host_in,
                     const expectation<typename Case::acc_t>& want, bool in_place, Call call) {
  using In = typename Case::in_t;
  using Acc = typename Case::acc_t;
  if (!in_place) {
    typename B::template buffer<In> in(host_in);
    typename B::template buffer<Acc> out(host_in.size(), byte_pattern<Acc>(poison_byte));
    call(std::span<const In>(in.range()), out.range());
    ASSERT_TRUE(matches(want, out.read_all())) << "out of place";
    ASSERT_TRUE(unchanged(in.read_all(), host_in)) << "the input changed";
  } else if constexpr (std::is_same_v<In, Acc>) {
    typename B::template buffer<In> io(host_in);
    call(io.range(), io.range());
    ASSERT_TRUE(matches(want, io.read_all())) << "in place";
  }
}

}  // namespace parprim_test
