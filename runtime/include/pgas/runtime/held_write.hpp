#pragma once
// One element write to an image reached through MPI on this node, held back until this
// process's next operation shows how it should go. Where the next is a message of the engine to
// the same image — an event post above all — the write goes ahead of it as a store its owner
// applies: one message, nothing to complete first. Anything else issues it as the MPI_Put it
// would have been at once, before that operation does anything.
//
// Why: MPI orders no put before a two-sided message (MPI-4.1 §12.7), so a put followed by a
// signal costs the put, a flush and the message; under MPICH's UCX the put and flush took 1 300
// cycles of a Synch_p2p row whose post took 300 (`PGAS_SHARED_MEMORY=0`). Sending every such
// write as a store message instead makes each completion of one a round trip through the owner
// (bench_micro's element put with sync_memory() 0.90 -> 0.52 of MPI_Put + flush under MPICH,
// 0.58 -> 0.02 under Open MPI). Only the operation after the write can tell which it needs.
// Between nodes every write goes as a message already, and so does one to an image whose store
// or batch is still unacknowledged, which a put would first wait for
// (window::route_of_element_write).

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace pgas::runtime {

class window;

/// The largest write held: one element of any type the library's element writes carry.
inline constexpr std::size_t held_write_bytes = 16;

namespace detail {
/// The write held, while write_is_held: what its put needs. The window by its handle, which a
/// move of the handle carries along (held_write_moved).
struct held_write {
  window* w = nullptr;
  int target = 0;
  MPI_Aint disp = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  int count = 0;
  std::size_t bytes = 0;
  alignas(held_write_bytes) unsigned char value[held_write_bytes] = {};
};
inline held_write held;
/// Whether a write is held: read by every operation first, so a load and a branch.
inline bool write_is_held = false;
void issue_held_write();
}  // namespace detail

/// Issues the held write, if there is one, as the MPI_Put it would have been: every operation
/// on a window, every completion and sync point calls this first, so the write keeps its place
/// in this process's program order. Local.
inline void release_held_write() {
  if (detail::write_is_held)
    detail::issue_held_write();
}

/// Holds the write of `value` to `target` of `w` at `disp`, `count` elements of `type` as MPI
/// would carry them, after issuing any write held before it; returns false, holding nothing,
/// for a value larger than held_write_bytes. The caller has checked the target and the bytes
/// it exposes (window::route_of_element_write), so bad input fails at the write. Inline: it is
/// on every such write's path. Local.
template <class T>
[[nodiscard]] bool hold_write(
    window& w, const T& value, MPI_Datatype type, int count, int target, MPI_Aint disp) {
  if constexpr (sizeof(T) > held_write_bytes) {
    return false;
  } else {
    release_held_write();
    detail::held_write& h = detail::held;
    h.w = &w;
    h.target = target;
    h.disp = disp;
    h.type = type;
    h.count = count;
    h.bytes = sizeof(T);
    std::memcpy(h.value, &value, sizeof(T));
    detail::write_is_held = true;
    return true;
  }
}

/// Before a message of the engine to world rank `destination` that must follow this process's
/// writes: a write held for `destination` goes ahead of it, as a store message its owner
/// applies. A write held for another image stays held (the caller completes this process's
/// writes next, which issues it). Local.
void send_held_write_ahead_of_message_to(std::size_t destination);

/// As the handle `from` moves to `to`: a write held on it follows. Local.
inline void held_write_moved(const window* from, window* to) noexcept {
  if (detail::write_is_held && detail::held.w == from)
    detail::held.w = to;
}

/// As window `w` is released: issues its held write, if it holds one, before its epoch ends;
/// drops it where MPI may no longer be called (`mpi_callable` false: the program ended the
/// environment first). Reports a failure on stderr, as a release does. Local.
void release_held_write_of(const window& w, bool mpi_callable) noexcept;

}  // namespace pgas::runtime
