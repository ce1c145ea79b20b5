#pragma once
// How an element type travels through MPI: its datatype, and cached strided (vector) types.

#include <mpi.h>

#include <boost/mpi/datatype.hpp>

#include <cstddef>
#include <type_traits>

namespace pgas::runtime {

/// Element types pgas can move with one-sided operations: bytes copied as they are.
template <class T>
concept transferable = std::is_trivially_copyable_v<T> && !std::is_reference_v<T>;

/// Element types MPI can combine in accumulates (MPI_SUM, MPI_MAX, ...): its predefined types.
template <class T>
concept accumulable = transferable<T> && boost::mpi::is_mpi_builtin_datatype<T>::value;

/// An MPI datatype and how many of it make one element.
struct element_layout {
  MPI_Datatype type;
  int per_element;
};

/// The layout of T: its predefined MPI type where one exists, else sizeof(T) MPI_BYTEs. Local.
template <transferable T>
[[nodiscard]] element_layout layout_of() {
  if constexpr (boost::mpi::is_mpi_builtin_datatype<T>::value) {
    return {boost::mpi::get_mpi_datatype<T>(T{}), 1};
  } else {
    return {MPI_BYTE, static_cast<int>(sizeof(T))};
  }
}

/// A committed MPI_Type_vector of `count` blocks of `block_length` elements of `base`, block
/// starts `stride` elements apart; made once per shape and kept until the environment ends.
/// Local.
[[nodiscard]] MPI_Datatype strided_type(MPI_Datatype base, int count, int block_length,
                                        int stride);

/// Frees every cached type. Called by the environment before MPI is finalised. Local.
void free_cached_datatypes() noexcept;

/// Converts a count to MPI's int, or throws usage_error if it does not fit. Local.
[[nodiscard]] int to_count(std::size_t n);

}  // namespace pgas::runtime
