#pragma once
/// \file
/// \brief parprim_bench::keep(value): makes a benchmark's result observable, so the work that
/// produced it is neither dropped nor hoisted out of the timed loop.
///
/// Not benchmark::DoNotOptimize: in Google Benchmark 1.7 its non-const overload's "+m,r"
/// constraint makes GCC 12 hand back garbage for float and double results at -O1 and above,
/// and 1.8 deprecates the const overload (an error under -Werror). This is the input-only
/// barrier the const overload used.

namespace parprim_bench {

template <class T>
inline void keep(const T& value) {
#if defined(__GNUC__) || defined(__clang__)
  asm volatile("" : : "r,m"(value) : "memory");
#else
  static_cast<void>(value);
#endif
}

}  // namespace parprim_bench
