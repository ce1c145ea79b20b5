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
// What the caller does right after completing the windows, which decides what must order this
// process's own loads and stores against other processes' RMA on its memory.
enum class then {
  // Anything: MPI_Win_sync on every window that needs it.
  anything,
  // A processor atomic, itself a full memory barrier, which MPI-4.1 §12.2.3 accepts in place
  // of MPI_Win_sync on a shared window: those skip it.
  atomic_in_place,
  // A message that tells another process these writes are done (an event post), after which
  // it may read this process's memory. Where that memory is one copy — a shared window, or
  // any window in the unified model — what the message needs is that the stores are performed
  // before it leaves: a processor memory barrier, the "compiler- and hardware-specific" means
  // MPI-4.1 §12.7's example of a store, a barrier and a remote MPI_GET names (§12.2.3 for a
  // shared window). MPI_Win_sync does that and more: between nodes over TCP, Open MPI's polls
  // every socket, a system call per post. A window in the separate model still needs it.
  message,
};

[[nodiscard]] bool barrier_serves(const window_state& s, then next) noexcept {
  switch (next) {
    case then::atomic_in_place:
      return s.flavor == window_flavor::shared;
    case then::message:
      return s.flavor == window_flavor::shared || s.unified_model;
    case then::anything:
      break;
  }
  return false;
}

// Completes what MPI carries on every window in the passive epoch and orders its memory for
// what the caller does `next`; with `await_batches`, also waits until owners have applied the
// batches sent to them.
void complete_windows(bool await_batches, then next) {
  issue_deferred_writes();  // an aggregator's held updates complete with everything else
  bool barrier = false;
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
    if (!s->needs_memory_sync())
      continue;
    if (barrier_serves(*s, next)) {
      barrier = true;
    } else {
      check(MPI_Win_sync(s->win), "MPI_Win_sync");
    }
  }
  // The atomic that follows is the barrier itself.
  if (barrier && next == then::message)
    std::atomic_thread_fence(std::memory_order_seq_cst);
}
}  // namespace

void complete_all_windows() {
  complete_windows(true, then::anything);
}

void complete_windows_before_message() {
  complete_windows(false, then::message);
}

void complete_all_windows_before_atomic_in_place() {
  complete_windows(true, then::atomic_in_place);
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
