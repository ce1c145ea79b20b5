#pragma once
// Batches of updates `element op= value` that travel to the image owning the elements as a
// message of the owner-side engine (runtime/messages.hpp), for the owner to apply, instead of
// as an MPI_Accumulate the target's MPI applies element by element. Between nodes and through
// MPI that is what the fastest hand-written codes do (HPCC RandomAccess, bale's exstack):
// one message per owner, applied where the memory is.
//
// Semantics are those of an accumulate: the owner applies a batch with one MPI_Accumulate into
// its own memory, so it stays atomic per element with every other accumulate on the window
// (MPI-4.1 §12.7.1); the sender's window orders the batch after its earlier writes to the owner
// and before its later ones, and its flushes and sync points wait until the owner says the
// batch is applied (window::sending_to_owner).

#include <pgas/global_ptr.hpp>
#include <pgas/runtime/datatype.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/reduce_op.hpp>
#include <pgas/runtime/rma.hpp>
#include <pgas/runtime/runs.hpp>
#include <pgas/runtime/window.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <vector>

namespace pgas::detail::owner_applied {

// What precedes a batch's element offsets and values in its message.
struct batch_header {
  std::uint64_t window_name;
  std::int64_t first;  // the displacement of the batch's lowest element
  std::uint32_t count;
  std::uint8_t op;
  std::uint8_t wide;  // offsets are 8 bytes (else 4)
  std::uint16_t unused;
};
static_assert(sizeof(batch_header) == 24);

// What a confirmation names: the window, and the sender's target rank in it (the owner's rank).
struct applied_note {
  std::uint64_t window_name;
  std::int64_t owner;
};

inline std::size_t padded(std::size_t bytes) { return (bytes + 7) / 8 * 8; }

// At the sender: the owner has applied one batch.
inline void on_applied(std::size_t, std::span<const std::byte> payload) {
  applied_note note;
  std::memcpy(&note, payload.data(), sizeof note);
  runtime::window* w = runtime::window::named(note.window_name);
  if (w == nullptr) throw usage_error("an owner confirmed updates to a window that no longer exists");
  w->owner_applied(static_cast<int>(note.owner));
}

// At the owner: applies the batch to this image's memory, then confirms it to the sender.
template <class T>
void on_batch(std::size_t source, std::span<const std::byte> payload) {
  batch_header h;
  std::memcpy(&h, payload.data(), sizeof h);
  runtime::window* w = runtime::window::named(h.window_name);
  if (w == nullptr) throw usage_error("updates arrived for a window that no longer exists");
  const std::byte* offsets = payload.data() + sizeof h;
  const std::size_t offset_bytes = h.wide != 0 ? 8 : 4;
  const std::byte* values_at = offsets + padded(h.count * offset_bytes);
  runtime::element_runs target;
  for (std::size_t k = 0; k < h.count; ++k) {
    if (h.wide != 0) {
      std::uint64_t o;
      std::memcpy(&o, offsets + 8 * k, 8);
      target.add(static_cast<MPI_Aint>(o), 1);
    } else {
      std::uint32_t o;
      std::memcpy(&o, offsets + 4 * k, 4);
      target.add(static_cast<MPI_Aint>(o), 1);
    }
  }
  runtime::element_runs origin;
  origin.add(0, h.count);
  const auto op = static_cast<runtime::reduce_op>(h.op);
  const int me = w->rank();
  if (reinterpret_cast<std::uintptr_t>(values_at) % alignof(T) == 0) {
    runtime::accumulate_runs(*w, reinterpret_cast<const T*>(values_at), origin, me, h.first, target, op);
  } else {
    std::vector<T> values(h.count);
    std::memcpy(values.data(), values_at, h.count * sizeof(T));
    runtime::accumulate_runs(*w, values.data(), origin, me, h.first, target, op);
  }
  // An accumulate into this process's own memory is complete when it returns (rma.hpp).
  const applied_note note{h.window_name, me};
  const std::span<std::byte> room =
      runtime::messages::reserve_reply(source, runtime::messages::name_of(&on_applied), sizeof note);
  std::memcpy(room.data(), &note, sizeof note);
}

/// True when a batch of `elements` elements in `runs` runs of a window to its rank `owner`
/// goes to the owner to apply: not into this process's memory or memory it maps (applied here
/// then), not inside a fence or neighbourhood phase (MPI carries those), and only for batches
/// of scattered elements (long runs travel best as one MPI_Accumulate).
inline bool goes_to_owner(runtime::window& w, int owner, std::size_t elements, std::size_t runs) {
  return runtime::messages::running() && owner != w.rank() && !w.updates_in_place() && w.in_passive_epoch() &&
         runs * 4 > elements;
}

/// Sends `owner` (a rank of the window of `first`) the updates `first[t] op= from[o]` for each
/// pair (o, t) of the `origin` and `target` runs, as one or more batches it applies itself.
/// Local; from may be reused on return; complete at the next flush of the owner or sync point.
template <class T>
void send(const global_ptr<T>& first, int owner, const T* from, const runtime::element_runs& origin,
          const runtime::element_runs& target, runtime::reduce_op op) {
  runtime::window& w = *first.window();
  const std::size_t elements = target.elements();
  const MPI_Aint span = target.end();
  const bool wide = static_cast<std::uint64_t>(span) > std::numeric_limits<std::uint32_t>::max();
  const std::size_t offset_bytes = wide ? 8 : 4;
  // Elements per message: what the engine's largest message holds.
  const std::size_t room = runtime::messages::max_message_bytes() - sizeof(batch_header) - 16;
  const std::size_t per_message = std::max<std::size_t>(1, room / (offset_bytes + sizeof(T)));
  w.sending_to_owner(owner, first.displacement(), static_cast<std::size_t>(span) * sizeof(T));
  std::size_t sent = 0;
  std::byte* at = nullptr;
  std::size_t count = 0;
  std::size_t in_message = 0;
  const std::uint64_t handler = runtime::messages::name_of(&on_batch<T>);
  const std::size_t destination = static_cast<std::size_t>(w.world_rank_of(owner));
  runtime::detail::for_each_paired_element(
      origin, target,
      [&](MPI_Aint o, MPI_Aint t) {
        if (count == in_message) {
          in_message = std::min(per_message, elements - sent);
          const std::size_t bytes =
              sizeof(batch_header) + padded(in_message * offset_bytes) + in_message * sizeof(T);
          if (sent > 0) w.sending_to_owner(owner, first.displacement(), static_cast<std::size_t>(span) * sizeof(T));
          at = runtime::messages::reserve(destination, handler, bytes).data();
          const batch_header h{w.name(), static_cast<std::int64_t>(first.displacement()),
                               static_cast<std::uint32_t>(in_message), static_cast<std::uint8_t>(op),
                               static_cast<std::uint8_t>(wide ? 1 : 0), 0};
          std::memcpy(at, &h, sizeof h);
          count = 0;
        }
        std::byte* offsets = at + sizeof(batch_header);
        std::byte* values = offsets + padded(in_message * offset_bytes);
        if (wide) {
          const auto v = static_cast<std::uint64_t>(t);
          std::memcpy(offsets + 8 * count, &v, 8);
        } else {
          const auto v = static_cast<std::uint32_t>(t);
          std::memcpy(offsets + 4 * count, &v, 4);
        }
        std::memcpy(values + sizeof(T) * count, from + o, sizeof(T));
        ++count;
        ++sent;
      },
      [](MPI_Aint) {});
}

}  // namespace pgas::detail::owner_applied
