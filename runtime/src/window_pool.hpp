#pragma once
// Windows of destroyed containers, kept for the next container of the same shape.
// MPI_Win_allocate + MPI_Win_free cost ~150 µs per window on Open MPI (a shared-memory segment
// is created, mapped and unlinked each time); taking a kept window costs nothing, keeping one
// a flush and a barrier. Only container windows (team_window.hpp: every process's size known,
// so all processes agree on the shape without communication) are kept, by communicator: the
// processes of one communicator make the same calls on it in the same order (window creation
// and destruction are collective), so they keep, take and evict the same windows of it.

#include <pgas/runtime/window.hpp>

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <vector>

namespace pgas::runtime::window_pool {

/// Collective over world: agrees on the bytes each process's pool may keep (budget_per_process).
/// With every image on one node (`node_images` == `world_images`), a sixteenth of the memory
/// each image has there (at least 16 MiB), the least any image finds; across nodes, 16 MiB
/// summed over the images.
void start(MPI_Comm world, int node_images, int world_images);
/// What each process of a communicator may keep for it: its kept windows' bytes, summed over
/// its processes, stay within this times their number. Local.
[[nodiscard]] std::size_t budget_per_process() noexcept;
/// Sets it (tests: a small budget shows eviction without large windows). Every process must set
/// the same value at the same point of the program. Local.
void set_budget_per_process(std::size_t bytes) noexcept;

/// A kept window of exactly this shape, removed from the pool, or null. Without one, frees the
/// oldest kept windows of comm that a new window of this shape would take past the budget.
/// Local, but in step with every other process (see above).
[[nodiscard]] std::unique_ptr<window_state> take(MPI_Comm comm,
                                                 const std::vector<std::size_t>& every_rank_bytes,
                                                 int disp_unit);

/// Keeps the window of a released handle for reuse, if it qualifies, after completing every
/// process's operations on it (this process's flush, then a barrier, as MPI_Win_free would).
/// Returns false, leaving `s` alone, if it does not qualify. Collective when it returns true.
[[nodiscard]] bool keep(std::unique_ptr<window_state>& s) noexcept;

/// How many windows the pool keeps now. Local.
[[nodiscard]] std::size_t kept_count() noexcept;

/// Frees every kept window. Collective; the environment calls it before MPI_Finalize.
void drain() noexcept;
/// Frees the kept windows of one communicator. Collective over it; a team calls it before it
/// frees its communicator.
void drain(MPI_Comm comm) noexcept;

}  // namespace pgas::runtime::window_pool
