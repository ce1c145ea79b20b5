#pragma once
// Where a window that MPI allocates starts its exposure: at a cache-line boundary, on every
// process that can get there by whole disp_units. Private to runtime/src.

#include <mpi.h>

#include <cstddef>
#include <vector>

namespace pgas::runtime {

/// What base() of an allocate or allocate_shared window is aligned to, where it can be: a
/// cache line, so a row of doubles starts where a 16-, 32- or 64-byte vector load does not
/// straddle two lines. Open MPI 4.1 hands out window memory 8 bytes past a line
/// (MPI_Win_allocate) or 264 (MPI_Win_allocate_shared), and MPI promises no alignment.
inline constexpr std::size_t window_alignment = 64;

/// What a process asks MPI for to expose `exposed` bytes: room for a shift of whole disp_units
/// to the next window_alignment boundary (none for units larger than a cache line), rounded up
/// to whole cache lines, so an MPI that lays the processes' memory end to end (Open MPI's
/// MPI_Win_allocate on one node) keeps each at the same offset from a line.
[[nodiscard]] std::size_t allocation_bytes(std::size_t exposed, int disp_unit) noexcept;

/// How many of its disp_units past the memory MPI allocated it each process's exposure starts
/// — the fewest that reach a window_alignment boundary, 0 where none does: one number where
/// every process shifts alike (one node's MPI lays the memory out alike), one per process
/// where they differ (processes on other nodes get memory of their own, each at its own offset
/// from a line). Every window keeps one; windows of other flavors keep the zero one.
class alignment_shift {
 public:
  alignment_shift() = default;
  /// Collective over comm (`allocated`: this process's memory from MPI, allocation_bytes
  /// long): one small reduction, and an allgather of the shifts only where they differ.
  alignment_shift(MPI_Comm comm, const void* allocated, int disp_unit);
  /// The shift of the process of rank `rank`.
  [[nodiscard]] MPI_Aint of(int rank) const noexcept {
    return by_rank_.empty() ? same_ : by_rank_[static_cast<std::size_t>(rank)];
  }

 private:
  MPI_Aint same_ = 0;              // this process's: every process's where they agree
  std::vector<MPI_Aint> by_rank_;  // each process's, where they differ; else empty
};

}  // namespace pgas::runtime
