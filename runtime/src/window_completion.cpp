// Completion across every window of the process: what the sync points do.
#include <pgas/runtime/deferred_writes.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/held_write.hpp>
#include <pgas/runtime/window.hpp>

#include "window_pool.hpp"
#include "window_state.hpp"
#include <algorithm>
#include <atomic>
#include <vector>

namespace pgas::runtime {

std::vector<window_state*>& live_windows() {
  static std::vector<window_state*> windows;
  return windows;
}

std::vector<window_state*>& windows_with_work() {
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

// Live windows in MPI's separate model: while there are none (the usual case), ordering the
// memory of every live window is one processor barrier, and no sync point walks them all.
std::size_t live_in_separate_model = 0;
}  // namespace

void window_goes_live(window_state& s) {
  live_windows().push_back(&s);
  if (!memory_is_one_copy(s))
    ++live_in_separate_model;
}

void window_leaves(window_state& s) {
  auto& live = live_windows();
  const auto it = std::find(live.begin(), live.end(), &s);
  if (it == live.end())
    return;
  live.erase(it);
  if (!memory_is_one_copy(s))
    --live_in_separate_model;
  if (s.has_work) {
    auto& busy = windows_with_work();
    busy.erase(std::find(busy.begin(), busy.end(), &s));
    s.has_work = false;
  }
}

namespace {
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

// Orders the memory of every live window for this process's next accesses. With no window in
// the separate model that is one processor barrier, owed whenever a window is live (a window
// reached only through its owner would not need it, but finding out would walk them all);
// otherwise each window says what it needs. With `ordered_by_signal` the caller's next step is
// a signal written in place — a processor atomic, itself a full memory barrier, or a release
// store read with an acquire load — which stands in for the barrier (sync.hpp).
void order_window_memory(bool ordered_by_signal) {
  bool barrier_owed = !live_windows().empty();
  if (live_in_separate_model != 0) {
    memory_sync sync;
    for (window_state* s : live_windows()) {
      if (s->mode == epoch::passive)
        sync.add(*s);
    }
    barrier_owed = sync.barrier_owed();
  }
  if (barrier_owed && !ordered_by_signal)
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

// Completes what MPI carries on every window in the passive epoch and orders the memory of all;
// with `await_batches`, also waits until owners have applied the batches sent to them. Only
// windows with work are visited.
void complete_windows(bool await_batches, bool ordered_by_signal) {
  release_held_write();
  issue_deferred_writes();  // an aggregator's held updates complete with everything else
  std::vector<window_state*>& busy = windows_with_work();
  // By index: awaiting owners makes progress, whose handlers may write to other windows.
  for (std::size_t k = 0; k < busy.size(); ++k) {
    window_state* s = busy[k];
    if (s->mode != epoch::passive)
      continue;  // its phase's end completes it; it stays listed for after
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
  }
  std::erase_if(busy, [](window_state* s) {
    const bool done =
        s->mode == epoch::passive && s->pending.targets().empty() && s->at_owner_total == 0;
    if (done)
      s->has_work = false;
    return done;
  });
  order_window_memory(ordered_by_signal);
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
  order_window_memory(false);
}

std::size_t open_windows() {
  return live_windows().size() + window_pool::kept_count();
}

}  // namespace pgas::runtime
