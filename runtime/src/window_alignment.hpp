#pragma once
// Where a window that MPI allocates starts its exposure: at a cache-line boundary, when every
// process can get there by the same number of disp_units. Private to runtime/src.

#include <mpi.h>

#include <cstddef>

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

/// How many disp_units past `allocated` (this process's memory from MPI, allocation_bytes long)
/// the exposure starts: the same on every process of comm, aligning `allocated` when every
/// process's memory can be aligned alike, else 0. Collective over comm (one small allreduce).
[[nodiscard]] MPI_Aint agreed_alignment_shift(MPI_Comm comm, const void* allocated, int disp_unit);

}  // namespace pgas::runtime
