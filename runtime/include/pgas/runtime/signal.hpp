#pragma once
// A signal that follows the signaller's writes: what an event post is. Through MPI it would
// take two round trips (complete every write, then an atomic that returns); where the owner
// applies updates it takes none to the image signalled, since the signal is a message handled
// after this process's earlier messages to it, its writes among them.

#include <pgas/runtime/owner_updates.hpp>
#include <pgas/runtime/reduce_op.hpp>
#include <pgas/runtime/rma.hpp>
#include <pgas/runtime/sync.hpp>
#include <pgas/runtime/window.hpp>

#include <cstddef>
#include <cstdint>
#include <span>

namespace pgas::runtime {

/// Adds `value` to the integer at `disp` on `target`, atomically with respect to other
/// accumulates, once every write this process made before the call is complete (as
/// sync_memory() does): whoever sees the sum sees those writes. Local; returns without waiting
/// for the target where the target applies the addition itself.
inline void add_after_writes(window& w, int target, MPI_Aint disp, std::int64_t value) {
  if (w.owner_applies_updates() && target != w.rank()) {
    const auto destination = static_cast<std::size_t>(w.world_rank_of(target));
    sync_memory_before_message_to(destination);
    owner_updates::update(w, std::span<const std::int64_t>(&value, 1), target, disp,
                          reduce_op::sum);
    messages::flush(destination);  // the target may be waiting for it now
    return;
  }
  // On a shared window the sum is a processor atomic, whose barrier orders the writes before it.
  if (w.updates_in_place()) {
    sync_memory_before_atomic_in_place();
  } else {
    sync_memory();
  }
  (void)fetch_and_op(w, value, target, disp, reduce_op::sum);  // done when it returns
}

}  // namespace pgas::runtime
