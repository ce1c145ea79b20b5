#pragma once
// What one image did through the library, counted when PGAS_STATS=1 is in the environment when
// the pgas::environment starts (Global Arrays' GA_Print_stats, for pgas). The environment
// prints one table of every image's counters when it ends. Off, each count is one predictable
// branch on a flag.

#include <mpi.h>

#include <cstddef>
#include <cstdint>

namespace pgas {

/// Operations and the bytes they carried.
struct transfer_count {
  std::uint64_t operations = 0;
  std::uint64_t bytes = 0;
};

/// One image's counters.
struct rma_stats {
  transfer_count puts;                  ///< MPI puts (plain, request-based, strided, derived types)
  transfer_count gets;                  ///< MPI gets
  transfer_count accumulates;           ///< MPI accumulates
  transfer_count atomics;               ///< MPI fetch-and-op, compare-and-swap, get-accumulate
  transfer_count peer_stores;           ///< plain stores into a same-node peer's memory mapped here
  transfer_count peer_loads;            ///< plain loads from a same-node peer's memory
  transfer_count in_place_updates;      ///< accumulates and atomics applied with processor atomics
                                        ///< (an owner's batch too, on memory also so updated)
  transfer_count owner_updates;         ///< accumulates and atomics applied here, as their owner,
                                        ///< with plain loads and stores
  transfer_count owner_reads;           ///< elements read here for another image, as their owner
  std::uint64_t sync_points = 0;        ///< sync_all, sync_images, sync_memory
  double sync_seconds = 0;              ///< time spent in them
  std::uint64_t windows_created = 0;    ///< MPI windows made
  std::uint64_t windows_from_pool = 0;  ///< container windows reused from the window pool
  std::uint64_t windows_freed = 0;      ///< MPI windows freed (at release, or leaving the pool)
  std::uint64_t transposes_by_gets = 0;   ///< transposes whose blocks through MPI this image got
  std::uint64_t transposes_by_sends = 0;  ///< ... whose blocks through MPI their owners sent
  std::uint64_t transposes_timed = 0;     ///< of those, the calls timed to choose the route
};

/// This image's counters so far: all zero unless PGAS_STATS=1. Local.
[[nodiscard]] const rma_stats& stats() noexcept;

namespace runtime::statistics {

inline bool enabled = false;  // set when the environment starts
inline rma_stats counters;

/// Counts one operation of `bytes` in `which`, when counting.
inline void count(transfer_count rma_stats::*which, std::size_t bytes) noexcept {
  if (enabled) [[unlikely]] {
    transfer_count& c = counters.*which;
    ++c.operations;
    c.bytes += bytes;
  }
}
/// Counts `operations` operations of `bytes` bytes in all, when counting.
inline void count_many(transfer_count rma_stats::*which,
                       std::size_t operations,
                       std::size_t bytes) noexcept {
  if (enabled) [[unlikely]] {
    transfer_count& c = counters.*which;
    c.operations += operations;
    c.bytes += bytes;
  }
}
/// Counts one more in `which`, when counting.
inline void count_one(std::uint64_t rma_stats::*which) noexcept {
  if (enabled) [[unlikely]]
    ++(counters.*which);
}
/// Reads PGAS_STATS and clears the counters. Local; the environment calls it when it starts.
void start_from_environment();
/// Collective over comm: image 0 prints a row per image and the totals to stdout. Does nothing
/// unless counting.
void print_table(MPI_Comm comm);

}  // namespace runtime::statistics

}  // namespace pgas
