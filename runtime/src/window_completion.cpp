// Completion across every window of the process: what the sync points do.
#include <pgas/runtime/deferred_writes.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/window.hpp>

#include "window_pool.hpp"
#include "window_state.hpp"

namespace pgas::runtime {

std::vector<window_state*>& live_windows() {
  static std::vector<window_state*> windows;
  return windows;
}

namespace {
// Completes what MPI carries on every window in the passive epoch and syncs its memory; with
// `await_batches`, also waits until owners have applied the batches sent to them. With
// `atomic_follows`, the caller issues a processor atomic (a full memory barrier) next, which
// MPI-4.1 §12.2.3 accepts in place of MPI_Win_sync on a shared window: those skip it.
void complete_windows(bool await_batches, bool atomic_follows) {
  issue_deferred_writes();  // an aggregator's held updates complete with everything else
  for (window_state* s : live_windows()) {
    if (s->mode != epoch::passive)
      continue;
    // Only writes need completing here (reads completed when they returned); one target is
    // cheaper to flush alone than all of them.
    const std::vector<int>& targets = s->pending.targets();
    if (targets.size() == 1) {
      check(MPI_Win_flush(targets.front(), s->win), "MPI_Win_flush");
    } else if (!targets.empty()) {
      check(MPI_Win_flush_all(s->win), "MPI_Win_flush_all");
    }
    if (await_batches)
      await_owners(*s);
    s->completed();
    if (s->needs_memory_sync() && !(atomic_follows && s->flavor == window_flavor::shared))
      check(MPI_Win_sync(s->win), "MPI_Win_sync");
  }
}
}  // namespace

void complete_all_windows() {
  complete_windows(true, false);
}

void complete_windows_but_batches() {
  complete_windows(false, false);
}

void complete_all_windows_before_atomic_in_place() {
  complete_windows(true, true);
}

void sync_all_window_memory() {
  for (window_state* s : live_windows()) {
    if (s->mode == epoch::passive && s->needs_memory_sync())
      check(MPI_Win_sync(s->win), "MPI_Win_sync");
  }
}

std::size_t open_windows() {
  return live_windows().size() + window_pool::kept_count();
}

}  // namespace pgas::runtime
