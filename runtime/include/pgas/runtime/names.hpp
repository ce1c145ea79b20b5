#pragma once
// Names that every process of a communicator gives one object it creates together (a window,
// a dist_object), so that a message from any process can name it to any other.

#include <mpi.h>

#include <cstdint>

namespace pgas::runtime {

/// Bits of a name that count; the bits above them are the MPI_COMM_WORLD rank of the
/// communicator's first process. Communicators with different first processes never share a
/// name, and every communicator with the same first process counts on that process, which
/// takes part in each.
inline constexpr unsigned name_count_bits = 40;

/// Collective over comm: a name no object named by this function on any process of comm has
/// had, the same on every process of comm (one MPI_Iallreduce, serving messages while it waits).
[[nodiscard]] std::uint64_t agree_on_new_name(MPI_Comm comm);

}  // namespace pgas::runtime
