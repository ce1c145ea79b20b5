// Completion across every window of the process: what the sync points do.
#include <pgas/runtime/deferred_writes.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/window.hpp>

#include "window_pool.hpp"
#include "window_state.hpp"
#include <atomic>

namespace pgas::runtime {

std::vector<window_state*>& live_windows() {
  static std::vector<window_state*> windows;
  return windows;
}

namespace {
// Where a window's memory is one copy — a shared window, or any window in MPI's unified model —
// MPI_Win_sync is a processor memory barrier (MPI-4.1 §12.5.4: it orders this process's loads
// and stores with other processes' accesses to that memory; §12.2.3 for a shared window), and
// one barrier serves every such window. A window in the separate model still needs the call.
// The barrier is also cheaper: between nodes over TCP, Open MPI's MPI_Win_sync runs its progress
// engine and polls every socket, a system call per window per sync.
[[nodiscard]] bool memory_is_one_copy(const window_state& s) noexcept {
  return s.flavor == window_flavor::shared || s.unified_model;
}

// Orders the memory of windows for this process's next accesses as each is added: MPI_Win_sync
// at once for a window in the separate model, one processor barrier for all the others at the
// end (barrier_owed), which the caller issues or leaves to an atomic that follows.
class memory_sync {
 public:
  void add(const window_state& s) {
    if (!s.needs_memory_sync())
      return;
    if (memory_is_one_copy(s)) {
      barrier_owed_ = true;
    } else {
      check(MPI_Win_sync(s.win), "MPI_Win_sync");
    }
  }
  [[nodiscard]] bool barrier_owed() const noexcept { return barrier_owed_; }

 private:
  bool barrier_owed_ = false;
};

// Completes what MPI carries on every window in the passive epoch and orders its memory; with
// `await_batches`, also waits until owners have applied the batches sent to them. With
// `ordered_by_signal` the caller's next step is a signal written in place — a processor atomic,
// itself a full memory barrier, or a release store read with an acquire load — which stands in
// for the barrier owed here (sync.hpp).
void complete_windows(bool await_batches, bool ordered_by_signal) {
  issue_deferred_writes();  // an aggregator's held updates complete with everything else
  memory_sync sync;
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
    sync.add(*s);
  }
  if (sync.barrier_owed() && !ordered_by_signal)
    std::atomic_thread_fence(std::memory_order_seq_cst);
}
}  // namespace

void complete_all_windows() {
  complete_windows(true, false);
}

void complete_windows_before_message() {
  complete_windows(false, false);
}

void complete_all_windows_before_signal_in_place() {
  complete_windows(true, true);
}

void sync_all_window_memory() {
  memory_sync sync;
  for (window_state* s : live_windows()) {
    if (s->mode == epoch::passive)
      sync.add(*s);
  }
  if (sync.barrier_owed())
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

std::size_t open_windows() {
  return live_windows().size() + window_pool::kept_count();
}

}  // namespace pgas::runtime
