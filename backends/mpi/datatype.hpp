#pragma once
/// \file
/// \brief How values travel between ranks: C++ types mapped to MPI datatypes.
///
/// - Built-in arithmetic types (and enums, through their underlying type) map to MPI's
///   predefined types: fixed-width integers to `MPI_INT8_T` ... `MPI_UINT64_T` (whatever their
///   spelling: `char`, `long`, ...), `float`/`double`/`long double` to `MPI_FLOAT`/`MPI_DOUBLE`/
///   `MPI_LONG_DOUBLE`, `bool` to `MPI_CXX_BOOL`.
/// - A user struct is described once, at global namespace scope, by naming its fields:
///   \code
///     struct particle { double x[3]; float mass; std::int64_t id; };
///     PARPRIM_MPI_STRUCT(particle, x, mass, id);
///   \endcode
///   or, equivalently, by specialising `parprim::mpi_struct`:
///   \code
///     template <> struct parprim::mpi_struct<particle> {
///       template <class Visit> static void fields(Visit&& visit) {
///         visit(&particle::x); visit(&particle::mass); visit(&particle::id);
///       }
///     };
///   \endcode
///   It becomes a committed derived datatype (`MPI_Type_create_struct` over the fields,
///   `MPI_Type_create_resized` to `sizeof(T)` so arrays of T have the right stride), created
///   once per type on first use and freed in `MPI_Finalize`. Fields may be arithmetic, enums,
///   C arrays of those, or other described structs. Padding is not transferred.
/// - An undescribed trivially copyable type travels as `sizeof(T)` contiguous `MPI_BYTE`s.
///   That works on any homogeneous cluster, but MPI cannot convert representations between
///   ranks of different architectures, tools cannot see its fields, and padding bytes travel
///   too. Describe the type if any of that matters.
///
/// Types passed to the MPI backend must be trivially copyable and default-constructible.

#include <mpi.h>

#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

#include <parprim/backends/mpi/detail/error.hpp>
#include <parprim/backends/mpi/detail/finalize.hpp>
#include <parprim/detail/dispatch.hpp>

namespace parprim {

/// \brief The field list of a user struct; see the file comment. Left undefined: a type without
/// a specialisation travels as bytes.
template <class T>
struct mpi_struct;

namespace mpi_detail {

template <class T>
concept described = detail::complete_type<mpi_struct<T>>;

template <class T>
inline constexpr bool predefined_v = std::is_arithmetic_v<T> || std::is_enum_v<T>;

/// \brief The predefined datatype of an arithmetic or enum type.
template <class T>
requires predefined_v<T> MPI_Datatype predefined_datatype() {
  if constexpr (std::is_enum_v<T>) {
    return predefined_datatype<std::underlying_type_t<T>>();
  } else if constexpr (std::is_same_v<T, bool>) {
    return MPI_CXX_BOOL;
  } else if constexpr (std::is_integral_v<T>) {
    constexpr bool s = std::is_signed_v<T>;
    if constexpr (sizeof(T) == 1)
      return s ? MPI_INT8_T : MPI_UINT8_T;
    else if constexpr (sizeof(T) == 2)
      return s ? MPI_INT16_T : MPI_UINT16_T;
    else if constexpr (sizeof(T) == 4)
      return s ? MPI_INT32_T : MPI_UINT32_T;
    else if constexpr (sizeof(T) == 8)
      return s ? MPI_INT64_T : MPI_UINT64_T;
    else
      static_assert(sizeof(T) == 0, "parprim::mpi: no MPI datatype for this integer width");
  } else if constexpr (std::is_same_v<T, float>) {
    return MPI_FLOAT;
  } else if constexpr (std::is_same_v<T, double>) {
    return MPI_DOUBLE;
  } else {
    static_assert(std::is_same_v<T, long double>, "parprim::mpi: unsupported arithmetic type");
    return MPI_LONG_DOUBLE;
  }
}

template <class P>
struct member_pointer;
template <class C, class M>
struct member_pointer<M C::*> {
  using type = M;
};

/// \brief A committed datatype, whether values of the type combine exactly (integers only: then
/// any combination order gives the same bits, see collectives.hpp), and the bytes of one value
/// the datatype describes: `[true_lb, true_lb + true_extent)`. MPI sizes its temporary buffers
/// by those (a described struct's trailing padding is not in them), so a user operation
/// touches exactly those bytes of each element (detail/op.hpp).
struct type_entry {
  MPI_Datatype type;
  bool exact;
  MPI_Aint true_lb = 0;
  MPI_Aint true_extent = 0;
};

template <class T>
const type_entry& type_of();

/// \brief Commits `t`, registers it to be freed at MPI_Finalize.
inline MPI_Datatype commit_owned(MPI_Datatype t) {
  const int rc = MPI_Type_commit(&t);
  if (rc != MPI_SUCCESS) {
    MPI_Type_free(&t);
    PARPRIM_MPI_CHECK(rc);
  }
  finalizer::instance().at_finalize([t]() mutable { MPI_Type_free(&t); });
  return t;
}

/// \brief The struct datatype of a described type.
template <class T>
type_entry build_struct() {
  std::vector<int> lengths;
  std::vector<MPI_Aint> displacements;
  std::vector<MPI_Datatype> types;
  bool exact = true;
  const T probe{};
  MPI_Aint base = 0;
  PARPRIM_MPI_CHECK(MPI_Get_address(&probe, &base));
  mpi_struct<T>::fields([&](auto member) {
    using M = typename member_pointer<decltype(member)>::type;
    using E = std::remove_cv_t<std::remove_all_extents_t<M>>;
    const type_entry field = type_of<E>();
    MPI_Aint address = 0;
    PARPRIM_MPI_CHECK(MPI_Get_address(&(probe.*member), &address));
    lengths.push_back(static_cast<int>(sizeof(M) / sizeof(E)));
    displacements.push_back(MPI_Aint_diff(address, base));
    types.push_back(field.type);
    exact = exact && field.exact;
  });
  MPI_Datatype raw = MPI_DATATYPE_NULL;
  MPI_Datatype resized = MPI_DATATYPE_NULL;
  PARPRIM_MPI_CHECK(MPI_Type_create_struct(static_cast<int>(lengths.size()), lengths.data(),
                                           displacements.data(), types.data(), &raw));
  const int rc = MPI_Type_create_resized(raw, 0, static_cast<MPI_Aint>(sizeof(T)), &resized);
  MPI_Type_free(&raw);
  PARPRIM_MPI_CHECK(rc);
  return {commit_owned(resized), exact};
}

/// \brief `sizeof(T)` contiguous bytes.
template <class T>
type_entry build_bytes() {
  MPI_Datatype t = MPI_DATATYPE_NULL;
  PARPRIM_MPI_CHECK(MPI_Type_contiguous(static_cast<int>(sizeof(T)), MPI_BYTE, &t));
  return {commit_owned(t), false};
}

/// \brief `e` with its true bounds filled in. The extent of every parprim datatype of `T` is
/// `sizeof(T)`, so element i of an array of them starts at byte `i * sizeof(T)`.
template <class T>
type_entry with_true_bounds(type_entry e) {
  MPI_Aint extent = 0;
  MPI_Aint lb = 0;
  PARPRIM_MPI_CHECK(MPI_Type_get_true_extent(e.type, &e.true_lb, &e.true_extent));
  PARPRIM_MPI_CHECK(MPI_Type_get_extent(e.type, &lb, &extent));
  if (lb != 0 || extent != static_cast<MPI_Aint>(sizeof(T)) || e.true_lb < 0 ||
      e.true_lb + e.true_extent > static_cast<MPI_Aint>(sizeof(T)))
    throw mpi_error(MPI_ERR_TYPE, "parprim::mpi: the datatype of a " + std::to_string(sizeof(T)) +
                                      "-byte type has extent " + std::to_string(extent) +
                                      " and lower bound " + std::to_string(lb));
  return e;
}

/// \brief The datatype of `T`: predefined, described struct or bytes; built (derived ones) and
/// measured once per type (thread-safe); derived ones are freed at MPI_Finalize.
template <class T>
const type_entry& type_of() {
  static_assert(std::is_trivially_copyable_v<T>,
                "parprim::mpi: values sent between ranks must be trivially copyable");
  static_assert(std::is_default_constructible_v<T>,
                "parprim::mpi: values sent between ranks must be default-constructible");
  static const type_entry entry = [] {
    if constexpr (predefined_v<T>)
      return with_true_bounds<T>(
          {predefined_datatype<T>(), std::is_integral_v<T> || std::is_enum_v<T>});
    else if constexpr (described<T>)
      return with_true_bounds<T>(build_struct<T>());
    else
      return with_true_bounds<T>(build_bytes<T>());
  }();
  return entry;
}

}  // namespace mpi_detail

/// \brief The committed MPI datatype parprim uses for `T` (see the file comment). Owned by
/// parprim: do not free it. Call only between MPI_Init and MPI_Finalize.
template <class T>
MPI_Datatype mpi_datatype() {
  return mpi_detail::type_of<T>().type;
}

}  // namespace parprim

// --- PARPRIM_MPI_STRUCT: a field list without repeating the type name -----------------------
#define PARPRIM_MPI_DETAIL_PARENS ()
#define PARPRIM_MPI_DETAIL_EXPAND(...) \
  PARPRIM_MPI_DETAIL_EXPAND3(PARPRIM_MPI_DETAIL_EXPAND3(PARPRIM_MPI_DETAIL_EXPAND3(__VA_ARGS__)))
#define PARPRIM_MPI_DETAIL_EXPAND3(...) \
  PARPRIM_MPI_DETAIL_EXPAND2(PARPRIM_MPI_DETAIL_EXPAND2(PARPRIM_MPI_DETAIL_EXPAND2(__VA_ARGS__)))
#define PARPRIM_MPI_DETAIL_EXPAND2(...) \
  PARPRIM_MPI_DETAIL_EXPAND1(PARPRIM_MPI_DETAIL_EXPAND1(PARPRIM_MPI_DETAIL_EXPAND1(__VA_ARGS__)))
#define PARPRIM_MPI_DETAIL_EXPAND1(...) __VA_ARGS__
#define PARPRIM_MPI_DETAIL_FIELDS(Type, ...) \
  __VA_OPT__(PARPRIM_MPI_DETAIL_EXPAND(PARPRIM_MPI_DETAIL_FIELD(Type, __VA_ARGS__)))
#define PARPRIM_MPI_DETAIL_FIELD(Type, field, ...) \
  visit(&Type::field);                             \
  __VA_OPT__(PARPRIM_MPI_DETAIL_FIELD_AGAIN PARPRIM_MPI_DETAIL_PARENS(Type, __VA_ARGS__))
#define PARPRIM_MPI_DETAIL_FIELD_AGAIN() PARPRIM_MPI_DETAIL_FIELD

/// \brief Describes a struct's fields for MPI: `PARPRIM_MPI_STRUCT(Type, field, ...)`.
/// Use at global namespace scope, after the type's definition, with the type's fully qualified
/// name (no template arguments with commas: use an alias). Up to 40 fields (more is a compile
/// error); list every field that carries data (unlisted fields are not transferred).
#define PARPRIM_MPI_STRUCT(Type, ...)              \
  template <>                                      \
  struct parprim::mpi_struct<Type> {               \
    template <class Visit>                         \
    static void fields(Visit&& visit) {            \
      PARPRIM_MPI_DETAIL_FIELDS(Type, __VA_ARGS__) \
    }                                              \
  }
