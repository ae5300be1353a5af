/// \file
/// \brief The registration of the CUDA-versus-CUB matrix (names and method: matrix_bench.hpp),
/// by loops over types, sizes, operators and primitives. The cells are elsewhere: parprim's in
/// matrix_parprim_builtin.cpp (what libparprim_cuda precompiles, plain C++) and
/// matrix_parprim_user.cu (int8 and the user structs, nvcc), CUB's in matrix_cub_*.cu.
///
/// Registration order is (type, n) outermost; then reduce, inclusive and exclusive scan for each
/// operator; then for each segment length every operator. parprim's row and CUB's row of one
/// cell are registered one after the other, so they run back to back on the same buffers.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>

#include "matrix_bench.hpp"

namespace parprim_bench::cuda {
namespace {

/// \brief One element type of the matrix with its operators.
template <class In, class Out, class... Ops>
struct matrix_type {};

using matrix_types = std::tuple<
    matrix_type<std::int8_t, std::int32_t, parprim::plus, parprim::minimum, parprim::maximum>,
    matrix_type<std::int32_t, std::int32_t, parprim::plus, parprim::minimum, parprim::maximum>,
    matrix_type<std::uint32_t, std::uint32_t, parprim::plus, parprim::minimum, parprim::maximum>,
    matrix_type<std::int64_t, std::int64_t, parprim::plus, parprim::minimum, parprim::maximum>,
    matrix_type<float, float, parprim::plus, parprim::minimum, parprim::maximum>,
    matrix_type<double, double, parprim::plus, parprim::minimum, parprim::maximum>,
    matrix_type<arg_f32_u32, arg_f32_u32, argmin>,
    matrix_type<affine_f64, affine_f64, affine_compose>>;

/// \brief The rows of one cell: parprim's then CUB's synchronous call (matrix/...), then
/// parprim's and CUB's device time (matrix_device/...).
template <class In, class Out, class Op, matrix_primitive P>
void register_cell(const std::string& primitive, std::size_t n, std::size_t length = 0) {
  const std::string cell =
      "/" + primitive + "/" + matrix_type_name<In, Out>() + "/" + matrix_op_name<Op>() + "/";
  using call = Out (*)(const matrix_args<In, Out>&);
  const auto row = [&](bool device, const std::string& competitor, call f) {
    register_one((device ? "matrix_device" : "matrix") + cell + competitor, n,
                 [n, length, f, device](benchmark::State& st) {
                   run_matrix<In, Out, Op, P>(st, n, length, f, device);
                 },
                 matrix_min_time);
  };
  for (const bool device : {false, true}) {
    row(device, "parprim", &parprim_call<In, Out, Op, P>);
    row(device, "cub", &cub_call<In, Out, Op, P>);
  }
}

template <class In, class Out, class Op>
void register_plain(std::size_t n) {
  register_cell<In, Out, Op, matrix_primitive::reduce>("reduce", n);
  register_cell<In, Out, Op, matrix_primitive::inclusive>("inclusive_scan", n);
  register_cell<In, Out, Op, matrix_primitive::exclusive>("exclusive_scan", n);
}

template <class In, class Out, class... Ops>
void register_type(matrix_type<In, Out, Ops...>) {
  // 2^28, or 2^27 for 8- and 16-byte elements
  const int top = std::max(sizeof(In), sizeof(Out)) >= 8 ? 27 : 28;
  for (const int log2 : {16, 20, 24, top}) {
    const std::size_t n = std::size_t(1) << log2;
    (register_plain<In, Out, Ops>(n), ...);
    for (const std::size_t length : matrix_segment_lengths) {
      const bool one = length == one_segment;
      const std::string primitive =
          "segmented_scan_" + (one ? std::string("one") : std::to_string(length));
      (register_cell<In, Out, Ops, matrix_primitive::segmented>(primitive, n, one ? n : length),
       ...);
    }
  }
}

const bool registered = register_benchmarks(
    [] { std::apply([](auto... type) { (register_type(type), ...); }, matrix_types{}); });

}  // namespace
}  // namespace parprim_bench::cuda
