#pragma once
// A signal that follows the signaller's writes: what an event post is. Through MPI it would
// take two round trips (complete every write, then an atomic that returns); where the owner
// applies updates it takes none to the image signalled, since the signal is a message handled
// after this process's earlier messages to it, its writes among them.
//
// Each image keeps a row of signal counters. Where every image's memory is mapped (one node),
// each signaller has a counter of its own in the row and stores its running total there with a
// release store: no atomic read-modify-write of a line the waiting image keeps reading, which
// on one node held every post until that line came back (`examples/synch_p2p --cols 4 --rows
// 100000`, two images on the AMD VM: 250 ns a row with the locked add, about 200 ns with the
// store; MPI_Send's pipeline 105 ns). Elsewhere the row is one counter that the owner, or MPI,
// adds to.

#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/owner_updates.hpp>
#include <pgas/runtime/reduce_op.hpp>
#include <pgas/runtime/rma.hpp>
#include <pgas/runtime/sync.hpp>
#include <pgas/runtime/window.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>

namespace pgas::runtime {

/// The counters a signal row takes on every image for `signallers` images: one each where they
/// store into the row themselves (every image's memory mapped by the windows of one node), one
/// to add to otherwise. The same on every image. Local.
[[nodiscard]] inline std::size_t signal_row_length(std::size_t signallers) {
  return world_shares_memory() ? signallers : 1;
}

/// True when a row of `length` counters gives each of `signallers` one of its own, into which
/// it stores its running total (so it keeps one per image it signals); otherwise each adds 1 to
/// the row's first counter. Local.
[[nodiscard]] inline bool each_signaller_counts_alone(std::size_t length,
                                                      std::size_t signallers) noexcept {
  return length == signallers;
}

/// Where a row of signal counters (std::int64_t, consecutive in memory) is on every image.
struct signal_row {
  MPI_Aint first = 0;      // the first counter's displacement
  MPI_Aint step = 1;       // displacement units from one counter to the next
  std::size_t length = 1;  // counters, as signal_row_length gave
  // This process's own row where nothing but this process changes it through MPI — the owner
  // applies the signals (its handlers add to it) or they come in place — found once by
  // find_own_row: a wait then reads its counters with no window looked up at each poll (a
  // wait's window queries missed the cache, one each, after a row's computation). Null
  // elsewhere.
  std::int64_t* own = nullptr;
  bool added_by_handlers = false;  // the owner applies them: a read alone makes progress first
  [[nodiscard]] MPI_Aint counter(std::size_t k) const noexcept {
    return first + static_cast<MPI_Aint>(k) * step;
  }
};

/// Signals `target`: this process, signaller number `signaller` of `row`, has now signalled
/// `total` times, one more than at its last call — once every write this process made before
/// the call is complete (as sync_memory() does): whoever reads the signal sees those writes.
/// Local; returns without waiting for the target where the target applies the addition itself.
inline void signal_after_writes(
    window& w, int target, const signal_row& row, std::size_t signaller, std::int64_t total) {
  if (w.owner_applies_updates() && target != w.rank()) {
    const auto destination = static_cast<std::size_t>(w.world_rank_of(target));
    sync_memory_before_message_to(destination);
    owner_updates::signal(w, target, row.first);
    messages::flush(destination);  // the target may be waiting for it now
    return;
  }
  if (!w.updates_in_place()) {
    sync_memory();
  } else {
    sync_memory_before_signal_in_place();
    if (each_signaller_counts_alone(row.length, static_cast<std::size_t>(w.ranks()))) {
      // The release store orders every earlier load and store of this process before the count
      // (C++ [atomics.order]); a waiter reading it with an acquire load sees them — the
      // ordering MPI-4.1 §12.2.3 leaves to the processes for loads and stores on a shared window.
      auto* mine = static_cast<std::int64_t*>(
          w.mapped_for_update(target, row.counter(signaller), sizeof(std::int64_t)));
      std::atomic_ref<std::int64_t>(*mine).store(total, std::memory_order_release);
      return;
    }
  }
  // One counter that every signaller adds to, through MPI or with the processor's atomic (a
  // full barrier, which orders the writes before it).
  (void)fetch_and_op(w, std::int64_t{1}, target, row.first, reduce_op::sum);  // done on return
}

/// Sets row.own (this process's copy of `row` of `w`) where signals reach it without MPI's
/// atomics. Call once, with the window in its passive epoch for good. Local.
inline void find_own_row(window& w, signal_row& row) {
  const bool in_place = w.updates_in_place();
  if (!in_place && !w.owner_applies_updates())
    return;
  row.own = static_cast<std::int64_t*>(
      w.own_memory_for_update(row.first, row.length * sizeof(std::int64_t)));
  row.added_by_handlers = !in_place;
}

/// Where the owner applies signals (its handlers add them): whether a read of its row first
/// runs the handlers of every message that has arrived (a query, which sees them so), or reads
/// what they have added so far (a wait's first look). Why a wait looks first: progress, having
/// run the handlers, tests for one more message, and between hosts over TCP a test that finds
/// none polls every socket, a system call. Where the poster runs ahead, one wait's progress
/// handles many posts, and the waits after it need no call to MPI, as MPI_Recv of a message
/// already read needs none (strace of a scratch pipeline between the two hosts: one poll per
/// wait before, one per 60 messages for MPI_Recv).
enum class arrived_signals { handled_first, as_added };

/// How many signals this process's `row` has received in all: where the owner applies them,
/// those added by the handlers that `arrived` says. What the signallers wrote before the
/// signals read is visible to this process's loads after it where they came in place;
/// elsewhere the caller orders its memory (the sync points' way). Local.
[[nodiscard]] inline std::int64_t signals_received(
    window& w, const signal_row& row, arrived_signals arrived = arrived_signals::handled_first) {
  if (row.own == nullptr)
    return fetch_and_op(w, std::int64_t{0}, w.rank(), row.first, reduce_op::no_op);
  if (row.added_by_handlers && arrived == arrived_signals::handled_first)
    (void)messages::progress();
  std::int64_t sum = 0;
  for (std::size_t k = 0; k < row.length; ++k)
    sum += std::atomic_ref<std::int64_t>(row.own[k]).load(std::memory_order_acquire);
  return sum;
}

}  // namespace pgas::runtime
