#pragma once
// What a window handle owns, shared by the runtime's window code and the window pool; private
// to runtime/src.

#include <pgas/runtime/window.hpp>

#include <mpi.h>

#include "pending_writes.hpp"
#include "staging_area.hpp"
#include "update_exclusion.hpp"
#include "window_alignment.hpp"
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <unordered_map>
#include <vector>

namespace pgas::runtime {

enum class epoch { none, passive, fence, neighbourhood };

struct window_state {
  MPI_Win win = MPI_WIN_NULL;
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  int ranks = 1;
  window_flavor flavor = window_flavor::allocate;
  // A container window of a team (team_window.hpp): the window pool may keep it for
  // the next window of the same shape instead of freeing it.
  bool poolable = false;
  // Accumulates and atomics are applied by the owner (owner_updates.hpp): a container window
  // without shared memory, while the engine runs.
  bool owner_applies = false;
  // window::reached_only_through_owner: others never reach this memory through MPI RMA — the
  // owner applies their updates, or (a shared window in its passive epoch) every image applies
  // them in place with atomic accesses that order themselves (processor atomics, release
  // stores read with acquire loads), which MPI-4.1 §12.2.3 leaves to the processes on a shared
  // window — so a sync point skips its MPI_Win_sync where windows need one each (MPI's
  // separate model; window_completion.cpp reads this in the passive epoch only).
  bool only_through_owner = false;
  [[nodiscard]] bool needs_memory_sync() const noexcept {
    return !(only_through_owner && (owner_applies || flavor == window_flavor::shared));
  }
  // MPI_WIN_MODEL is MPI_WIN_UNIFIED: the window's memory is one copy, which others' RMA
  // reads and writes (MPI-4.1 §12.4), so MPI_Win_sync is a processor memory barrier, which a
  // sync point issues once for all such windows (window_completion.cpp). Fixed for the MPI
  // window's life.
  bool unified_model = false;
  void* owned_memory = nullptr;  // from MPI_Alloc_mem, for create() without caller memory
  // allocate and allocate_shared (window_alignment.hpp): each process's exposure starts
  // shift.of(rank) of its disp_units past the memory MPI allocated it, so a displacement
  // relative to a target's base() becomes one relative to MPI's base by adding the target's
  // shift. 0 for the other flavors.
  alignment_shift shift;
  // window::base(), found once: MPI_Win_get_attr is a hash-table lookup in Open MPI, and the
  // owner asks for its own memory in every batch, read and post it applies. Fixed for the
  // MPI window's life (a pooled window keeps its memory); null until asked.
  mutable std::byte* exposure_base = nullptr;
  std::vector<std::size_t> sizes;  // bytes each rank exposes (not for dynamic windows)
  std::vector<int> disp_units;
  std::vector<std::byte*> mapped;  // allocate_shared: where each rank's memory is mapped here
  epoch mode = epoch::none;
  // In a neighbourhood phase: this process's access epoch was completed (MPI_Win_complete) by
  // a test, so the phase's end only waits for its exposure.
  bool access_completed = false;
  // An exchange by messages in flight (window::begin_neighbour_messages): its requests, empty
  // when none is, and the tag this window's messages carry (0 until the first exchange).
  bool messages_in_flight = false;
  std::vector<MPI_Request> neighbour_requests;
  int neighbour_tag = 0;
  struct region {
    void* base;
    std::size_t bytes;
  };
  std::vector<region> attached;
  pending_writes pending;
  staging_area staging;
  std::uint64_t name = 0;    // agreed at creation (runtime/names.hpp)
  window* handle = nullptr;  // the handle that owns this state now; null while pooled
  // Batches and writes sent to each target for its owner to apply since they were last awaited.
  std::vector<std::uint32_t> at_owner;
  std::vector<int> world_ranks;     // of every rank of comm, once asked
  std::vector<char> on_other_node;  // by rank of comm: not on this node, once asked
  std::size_t at_owner_total = 0;
  /// Whether something sent to `target` for its owner to apply is not yet acknowledged.
  [[nodiscard]] bool awaited_at_owner(int target) const noexcept {
    return at_owner_total != 0 && at_owner[static_cast<std::size_t>(target)] != 0;
  }
  // In windows_with_work(): this process has issued something on the window that a sync point
  // must complete (writes, batches for owners), so the sync points visit it.
  bool has_work = false;
  // allocate_shared: each rank's line saying who updates its memory how (update_exclusion.hpp),
  // the window's generation there (one more each time the pool hands it to a container; lines
  // start at 0), and whether this process has announced in-place updates in it (whether any
  // image has is read from the lines). Last, so that the fields every operation reads keep their
  // places.
  std::vector<update_exclusion*> exclusion;
  std::uint32_t exclusion_generation = 1;
  bool announced_in_place = false;

  /// Nothing of this process's is in flight any more: no pending writes, staging reusable.
  void completed() noexcept {
    pending.clear_all();
    staging.reset();
  }
};

/// Every window handle alive in this process (not the pool's kept windows), for sync points.
/// A window joins with window_goes_live and leaves with window_leaves (no other change).
std::vector<window_state*>& live_windows();
void window_goes_live(window_state& s);
void window_leaves(window_state& s);
/// The live windows with something for a sync point to complete, which it visits alone: a sync
/// point costs no more with a hundred untouched arrays than with one. A window joins when this
/// process writes to it or sends its owners batches (note_work), and leaves once completed.
std::vector<window_state*>& windows_with_work();
inline void note_work(window_state& s) {
  if (!s.has_work) {
    s.has_work = true;
    windows_with_work().push_back(&s);
  }
}
/// The states of those windows by name, for messages that name a window.
std::unordered_map<std::uint64_t, window_state*>& named_windows();
/// Makes progress until every batch sent to `target` (or to any target) for its owner to apply
/// has been applied.
void await_owners(window_state& s, int target);
void await_owners(window_state& s);

inline bool mpi_running() noexcept {
  int initialized = 0;
  int finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized != 0 && finalized == 0;
}

inline void report(int code, const char* call, int rank) noexcept {
  if (code != MPI_SUCCESS) {
    std::fprintf(stderr, "pgas: %s failed on image %d while releasing a window (code %d)\n", call,
                 rank, code);
  }
}

/// Throws usage_error naming a target outside the window (the cold half of require_rank).
[[noreturn]] void throw_no_such_rank(const window_state& s, int target);
/// Throws usage_error unless 0 <= target < s.ranks. Inline: every operation and every load of a
/// peer's memory asks.
inline void require_rank(const window_state& s, int target) {
  if (target < 0 || target >= s.ranks)
    throw_no_such_rank(s, target);
}

}  // namespace pgas::runtime
