#pragma once
// The combining operations of accumulates and atomics, and the MPI op each one is.

#include <mpi.h>

namespace pgas::runtime {

/// The combining operations of accumulates, each an MPI predefined op.
enum class reduce_op { sum, prod, min, max, band, bor, bxor, land, lor, replace, no_op };

/// The MPI_Op for `op`. Local.
[[nodiscard]] inline MPI_Op to_mpi(reduce_op op) noexcept {
  switch (op) {
    case reduce_op::sum:
      return MPI_SUM;
    case reduce_op::prod:
      return MPI_PROD;
    case reduce_op::min:
      return MPI_MIN;
    case reduce_op::max:
      return MPI_MAX;
    case reduce_op::band:
      return MPI_BAND;
    case reduce_op::bor:
      return MPI_BOR;
    case reduce_op::bxor:
      return MPI_BXOR;
    case reduce_op::land:
      return MPI_LAND;
    case reduce_op::lor:
      return MPI_LOR;
    case reduce_op::replace:
      return MPI_REPLACE;
    case reduce_op::no_op:
      return MPI_NO_OP;
  }
  return MPI_NO_OP;
}

}  // namespace pgas::runtime
