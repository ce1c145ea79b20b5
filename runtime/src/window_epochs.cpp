// Epochs and completion on one window: flushes in the passive epoch, and the fence and
// neighbourhood phases that leave it for a while (MPI-4.1 §12.5).
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/held_write.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/race_check.hpp>
#include <pgas/runtime/window.hpp>

#include "window_state.hpp"
#include <string>

namespace pgas::runtime {

void window::flush(int target) {
  release_held_write();
  window_state& s = state();
  require_passive("flush");
  require_rank(s, target);
  check(MPI_Win_flush(target, s.win), "MPI_Win_flush");
  await_owners(s, target);
  s.pending.clear(target);
}

void window::flush_all() {
  release_held_write();
  window_state& s = state();
  require_passive("flush_all");
  check(MPI_Win_flush_all(s.win), "MPI_Win_flush_all");
  await_owners(s);
  s.completed();
}

void window::flush_local(int target) {
  release_held_write();
  window_state& s = state();
  require_passive("flush_local");
  require_rank(s, target);
  check(MPI_Win_flush_local(target, s.win), "MPI_Win_flush_local");
}

void window::flush_local_all() {
  release_held_write();
  window_state& s = state();
  require_passive("flush_local_all");
  check(MPI_Win_flush_local_all(s.win), "MPI_Win_flush_local_all");
  s.staging.reset();
}

void window::sync_memory() {
  release_held_write();
  window_state& s = state();
  // MPI_Win_sync is only valid inside a passive-target epoch.
  if (s.mode == epoch::passive)
    check(MPI_Win_sync(s.win), "MPI_Win_sync");
}

namespace {
// Leaves the passive epoch; what was issued in it completes with the unlock.
void leave_passive(window_state& s) {
  check(MPI_Win_unlock_all(s.win), "MPI_Win_unlock_all");
  s.mode = epoch::none;
  s.completed();
}
// Back to the passive epoch after a phase's last synchronisation.
void return_to_passive(window_state& s) {
  s.mode = epoch::none;
  s.staging.reset();
  check(MPI_Win_lock_all(MPI_MODE_NOCHECK, s.win), "MPI_Win_lock_all");
  s.mode = epoch::passive;
}
}  // namespace

void window::begin_fence_phase() {
  release_held_write();
  window_state& s = state();
  require_passive("begin_fence_phase");
  // Updates sent for owners to apply, from every image, are applied before the phase: inside
  // it MPI carries them, and an image in MPI_Win_fence applies nothing.
  if (s.owner_applies && messages::running())
    messages::quiescent_barrier(s.comm);
  leave_passive(s);
  check(MPI_Win_fence(MPI_MODE_NOPRECEDE, s.win), "MPI_Win_fence");
  s.mode = epoch::fence;
}

void window::fence() {
  window_state& s = state();
  if (s.mode != epoch::fence)
    throw usage_error("fence() outside a fence phase");
  check(MPI_Win_fence(0, s.win), "MPI_Win_fence");
  s.staging.reset();
  race_check::join_clocks(s.comm);  // every image's step is complete everywhere: ordered
}

void window::end_fence_phase() {
  window_state& s = state();
  if (s.mode != epoch::fence)
    throw usage_error("end_fence_phase() outside a fence phase");
  check(MPI_Win_fence(MPI_MODE_NOSUCCEED, s.win), "MPI_Win_fence");
  race_check::join_clocks(s.comm);
  return_to_passive(s);
}

void window::begin_neighbourhood_phase(const std::vector<int>& targets,
                                       const std::vector<int>& origins) {
  release_held_write();
  window_state& s = state();
  require_passive("begin_neighbourhood_phase");
  for (int r : targets) require_rank(s, r);
  for (int r : origins) require_rank(s, r);
  const group all = get_group();
  const group exposure = group::include(all.native(), origins);
  const group accessed = group::include(all.native(), targets);
  // This image's updates sent for owners to apply are applied before the phase (its
  // neighbours serve them while they wait to be posted to).
  await_owners(s);
  leave_passive(s);
  // Post before start: a process waiting in start for its targets' posts must already have
  // posted its own exposure, or two neighbours could wait for each other.
  check(MPI_Win_post(exposure.native(), 0, s.win), "MPI_Win_post");
  check(MPI_Win_start(accessed.native(), 0, s.win), "MPI_Win_start");
  s.mode = epoch::neighbourhood;
  s.access_completed = false;
}

void window::end_neighbourhood_phase() {
  window_state& s = state();
  if (s.messages_in_flight) {
    end_neighbour_messages();
    return;
  }
  if (s.mode != epoch::neighbourhood)
    throw usage_error("end_neighbourhood_phase() outside a neighbourhood phase");
  if (!s.access_completed)
    check(MPI_Win_complete(s.win), "MPI_Win_complete");
  check(MPI_Win_wait(s.win), "MPI_Win_wait");
  return_to_passive(s);
}

bool window::test_neighbourhood_phase() {
  window_state& s = state();
  if (s.messages_in_flight)
    return test_neighbour_messages();
  if (s.mode != epoch::neighbourhood)
    throw usage_error("test_neighbourhood_phase() outside a neighbourhood phase");
  // MPI has no non-blocking MPI_Win_complete; it returns once this process's puts have left
  // (the targets posted when the phase began), and then MPI_Win_test asks for the rest.
  if (!s.access_completed) {
    check(MPI_Win_complete(s.win), "MPI_Win_complete");
    s.access_completed = true;
  }
  int done = 0;
  check(MPI_Win_test(s.win, &done), "MPI_Win_test");
  if (done == 0)
    return false;
  return_to_passive(s);
  return true;
}

bool window::in_passive_epoch() const {
  return state().mode == epoch::passive;
}

void window::require_passive(const char* what) const {
  if (state().mode != epoch::passive) {
    throw usage_error(std::string(what) +
                      " needs the window's passive epoch; it is not available inside a fence or "
                      "neighbourhood phase");
  }
}

}  // namespace pgas::runtime
