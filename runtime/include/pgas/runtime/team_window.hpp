#pragma once
// The windows containers live in, on their team's communicator. Where their memory comes from
// is decided here, once, for all of them: on one node every image maps every other's part
// (shared memory), and a released window is kept for the next container of the same shape on
// the same communicator.

#include <pgas/runtime/window.hpp>

#include <mpi.h>

#include <cstddef>
#include <vector>

namespace pgas::runtime {

/// Collective over comm (a team's). A window of `bytes` for this image, `every_rank_bytes[r]`
/// for rank r (each image computes the whole list alike, from a distribution), with this
/// disp_unit. Taken from the pool of released windows when one of this shape on comm is kept;
/// else MPI_Win_allocate_shared (each image's part on its own pages) when world_shares_memory(),
/// so mapped_bases() reaches every peer, and MPI_Win_allocate otherwise. Released windows of
/// this kind go back to the pool.
[[nodiscard]] window allocate_team_window(MPI_Comm comm,
                                          std::size_t bytes,
                                          int disp_unit,
                                          const std::vector<std::size_t>& every_rank_bytes);

/// Collective over comm (a team's). A dynamic window for a growable container: its
/// accumulates and atomics are applied by their owners, as on allocate_team_window's windows
/// without shared memory.
[[nodiscard]] window create_team_dynamic_window(MPI_Comm comm);

}  // namespace pgas::runtime
