#pragma once
// How an element type travels through MPI: its datatype, and cached strided (vector) types.

#include <pgas/runtime/unique_handle.hpp>

#include <mpi.h>

#include <climits>
#include <complex>
#include <concepts>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace pgas::runtime {

/// The predefined MPI datatype of T, for the C++ types that have one; other types have none.
/// Our own table, not Boost.MPI's: Debian builds libboost-mpi against Open MPI only, and the
/// runtime must build against MPICH too.
template <class T>
struct predefined_datatype {};

namespace detail {
template <class T>
concept has_predefined_datatype = requires {
  { predefined_datatype<T>::get() } -> std::same_as<MPI_Datatype>;
};
}  // namespace detail

// A function, not a constant: MPICH's handles are constants but Open MPI's are addresses of
// library objects, known only at run time.
#define PGAS_PREDEFINED_DATATYPE(cxx_type, mpi_type)        \
  template <>                                               \
  struct predefined_datatype<cxx_type> {                    \
    static MPI_Datatype get() noexcept { return mpi_type; } \
  }

// char's signedness is the platform's; MPI reduces only the explicitly signed/unsigned types.
PGAS_PREDEFINED_DATATYPE(char, std::is_signed_v<char> ? MPI_SIGNED_CHAR : MPI_UNSIGNED_CHAR);
PGAS_PREDEFINED_DATATYPE(signed char, MPI_SIGNED_CHAR);
PGAS_PREDEFINED_DATATYPE(unsigned char, MPI_UNSIGNED_CHAR);
PGAS_PREDEFINED_DATATYPE(wchar_t, MPI_WCHAR);
PGAS_PREDEFINED_DATATYPE(short, MPI_SHORT);
PGAS_PREDEFINED_DATATYPE(unsigned short, MPI_UNSIGNED_SHORT);
PGAS_PREDEFINED_DATATYPE(int, MPI_INT);
PGAS_PREDEFINED_DATATYPE(unsigned, MPI_UNSIGNED);
PGAS_PREDEFINED_DATATYPE(long, MPI_LONG);
PGAS_PREDEFINED_DATATYPE(unsigned long, MPI_UNSIGNED_LONG);
PGAS_PREDEFINED_DATATYPE(long long, MPI_LONG_LONG);
PGAS_PREDEFINED_DATATYPE(unsigned long long, MPI_UNSIGNED_LONG_LONG);
PGAS_PREDEFINED_DATATYPE(float, MPI_FLOAT);
PGAS_PREDEFINED_DATATYPE(double, MPI_DOUBLE);
PGAS_PREDEFINED_DATATYPE(long double, MPI_LONG_DOUBLE);
PGAS_PREDEFINED_DATATYPE(bool, MPI_CXX_BOOL);
PGAS_PREDEFINED_DATATYPE(std::complex<float>, MPI_CXX_FLOAT_COMPLEX);
PGAS_PREDEFINED_DATATYPE(std::complex<double>, MPI_CXX_DOUBLE_COMPLEX);
#undef PGAS_PREDEFINED_DATATYPE

/// Element types pgas can move with one-sided operations: bytes copied as they are.
template <class T>
concept transferable = std::is_trivially_copyable_v<T> && !std::is_reference_v<T>;

/// Element types MPI can combine in accumulates (MPI_SUM, MPI_MAX, ...): its predefined types.
template <class T>
concept accumulable = transferable<T> && detail::has_predefined_datatype<T>;

/// An MPI datatype and how many of it make one element.
struct element_layout {
  MPI_Datatype type;
  int per_element;
};

/// The layout of T: its predefined MPI type where one exists, else sizeof(T) MPI_BYTEs. Local.
template <transferable T>
[[nodiscard]] element_layout layout_of() {
  if constexpr (detail::has_predefined_datatype<T>) {
    return {predefined_datatype<T>::get(), 1};
  } else {
    return {MPI_BYTE, static_cast<int>(sizeof(T))};
  }
}

struct datatype_traits {
  using native_type = MPI_Datatype;
  static MPI_Datatype null() noexcept { return MPI_DATATYPE_NULL; }
  static void free(MPI_Datatype& t) noexcept { MPI_Type_free(&t); }
};
/// A derived datatype this code made and must free, on every path out.
using owned_datatype = unique_handle<datatype_traits>;

/// A committed MPI_Type_vector of `count` blocks of `block_length` elements of `base`, block
/// starts `stride` elements apart; made once per shape and kept until the environment ends.
/// Local.
[[nodiscard]] MPI_Datatype strided_type(MPI_Datatype base, int count, int block_length, int stride);

/// Frees every cached type. Called by the environment before MPI is finalised. Local.
void free_cached_datatypes() noexcept;

/// Throws usage_error for a count of `n` elements that MPI's int cannot hold. Local.
[[noreturn]] void throw_count_too_large(std::size_t n);

/// Converts a count to MPI's int, or throws usage_error if it does not fit. Local. Inline: a
/// wait tests its requests with it at every poll.
[[nodiscard]] inline int to_count(std::size_t n) {
  if (n > static_cast<std::size_t>(INT_MAX)) [[unlikely]]
    throw_count_too_large(n);
  return static_cast<int>(n);
}

/// `n` elements of `type` as MPI counts them: (type, n) while n fits MPI's int, and beyond that
/// one derived datatype spanning all n with a count of 1 — int-counted contiguous blocks and
/// the rest, in a struct (MPI-4.1 §5.1) — so no transfer is refused for its length. Built from
/// one predefined type, it is valid in accumulates too (MPI-4.1 §12.3.4). The derived type
/// goes with this object; MPI lets operations still pending on it finish (MPI-4.1 §5.1.9).
class mpi_count {
 public:
  mpi_count(MPI_Datatype type, std::size_t n);
  [[nodiscard]] MPI_Datatype type() const noexcept { return type_; }
  [[nodiscard]] int count() const noexcept { return count_; }
  /// Hands the derived type (if any) to a caller that keeps it longer; type() stays valid.
  [[nodiscard]] owned_datatype take_derived() noexcept { return std::move(derived_); }

 private:
  owned_datatype derived_;
  MPI_Datatype type_;
  int count_;
};

/// The largest count a transfer passes to MPI as it is (INT_MAX, unless a test lowered it). Local.
[[nodiscard]] std::size_t largest_count() noexcept;

namespace testing {
/// The largest count mpi_count passes to MPI as it is (INT_MAX): a test lowers it to send
/// small transfers through the path of huge ones, and puts it back. Local.
void set_largest_count(int n) noexcept;
}  // namespace testing

}  // namespace pgas::runtime
