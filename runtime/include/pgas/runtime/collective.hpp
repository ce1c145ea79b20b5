#pragma once
// The few collectives the containers need: agreement checks, reductions, gathers, broadcasts.

#include <pgas/runtime/datatype.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/rma.hpp>

#include <mpi.h>

#include <cstddef>
#include <span>
#include <vector>

namespace pgas::runtime {

/// Collective over comm: true on every process iff every process passed the same values
/// (which must have the same length everywhere). Lets all images throw together on mismatched
/// collective arguments instead of hanging.
[[nodiscard]] bool same_everywhere(std::span<const long long> values, MPI_Comm comm);

/// Collective over comm: true on every process iff `ok` is true on every process.
[[nodiscard]] bool everyone(bool ok, MPI_Comm comm);

/// Collective over comm: every process's `bytes` bytes at `data`, concatenated in rank order.
[[nodiscard]] std::vector<std::byte> allgather_bytes(const void* data, std::size_t bytes,
                                                     MPI_Comm comm);

/// Collective over comm: `bytes` bytes at `data` from `root` copied to every process.
void broadcast_bytes(void* data, std::size_t bytes, int root, MPI_Comm comm);

/// Collective over comm: op over every process's `value`.
template <accumulable T>
[[nodiscard]] T allreduce(const T& value, reduce_op op, MPI_Comm comm) {
  T out{};
  check(MPI_Allreduce(&value, &out, 1, layout_of<T>().type, to_mpi(op), comm), "MPI_Allreduce");
  return out;
}

/// Collective over comm: op over the values of all processes of lower rank (MPI_Exscan); the
/// result on rank 0 is `identity`.
template <accumulable T>
[[nodiscard]] T exclusive_prefix(const T& value, reduce_op op, const T& identity, MPI_Comm comm) {
  T out = identity;
  check(MPI_Exscan(&value, &out, 1, layout_of<T>().type, to_mpi(op), comm), "MPI_Exscan");
  int rank = 0;
  check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  return rank == 0 ? identity : out;
}

}  // namespace pgas::runtime
