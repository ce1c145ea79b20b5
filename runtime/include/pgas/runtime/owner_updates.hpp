#pragma once
// Accumulates and atomics that the image owning the memory applies itself, with plain loads and
// stores, on container windows that are not updated in place (no shared memory: through MPI, or
// between nodes). What the fastest hand-written codes do (HPCC RandomAccess, PRK, bale's
// exstack): hand the owner its batch instead of asking MPI to apply it element by element.
//
// Why it is sound: on such a window (window::owner_applies_updates) every accumulate and atomic
// the runtime issues, from every image, goes this way while the window is in its passive epoch,
// and an image runs the handlers that apply them one at a time, between its own pgas calls: so
// they are atomic per element with respect to each other, as MPI's are (MPI-4.1 §12.7.1).
// On a window every image shares (one node) only batches come this way, beside element atomics
// applied in place by any image; the owner applies a batch with plain stores only while no
// image has announced such atomics on the window, and with processor atomics after
// (window::begin_plain_updates; runtime/src/update_exclusion.hpp).
// Updates without a result travel as batches of the owner-side engine (messages.hpp), at most
// one message per owner per batch; the sender's window orders a batch after its earlier writes
// to the owner and before its later ones, and its flushes and sync points wait until the engine
// says the owner handled the message (window::sending_to_owner). Atomics with a result are a round
// trip: the caller makes progress until the owner's answer has arrived.

#include <pgas/runtime/combine.hpp>
#include <pgas/runtime/element_runs.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/in_place_updates.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/reduce_op.hpp>
#include <pgas/runtime/stats.hpp>
#include <pgas/runtime/window.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace pgas::runtime::owner_updates {

namespace detail {

// What precedes a batch's element offsets and values in its message.
struct batch_header {
  std::uint64_t window_name;
  std::int64_t first;  // the displacement of the batch's lowest element
  std::uint32_t count;
  std::uint8_t op;
  std::uint8_t offsets;  // how the elements are named: an offset_kind
  std::uint16_t unused;
};
static_assert(sizeof(batch_header) == 24);

// A batch's elements: each by a 4- or 8-byte offset from `first`, or consecutive from one 8-byte
// offset (a bulk accumulate: no offset per element).
enum offset_kind : std::uint8_t { offsets_4, offsets_8, consecutive };
inline std::size_t offsets_bytes(offset_kind kind, std::size_t count) {
  const std::size_t bytes = kind == consecutive ? 8 : count * (kind == offsets_8 ? 8 : 4);
  return (bytes + 7) / 8 * 8;
}

// An atomic with a result: the window, where, how many elements, and where the caller waits.
struct fetch_header {
  std::uint64_t window_name;
  std::int64_t disp;
  std::uint64_t answer;  // the caller's answer_slot
  std::uint32_t count;
  std::uint8_t op;
  std::uint8_t compare;  // compare-and-swap: an expected value follows each value
  std::uint16_t unused;
};
static_assert(sizeof(fetch_header) == 32);

// A write of consecutive bytes at `disp`, which follow it: as many as the message has after it
// (its size says how many). A store and a signal then take 88 bytes, within the size that
// MPICH 4.0's ch4:ucx sends inline over shared memory (96: 255 -> 320 ns one way, EPYC VM).
struct store_header {
  std::uint64_t window_name;
  std::int64_t disp;
};
static_assert(sizeof(store_header) == 16);

// A signal (runtime/signal.hpp): 1 added to the counter at `disp`.
struct signal_header {
  std::uint64_t window_name;
  std::int64_t disp;
};
static_assert(sizeof(signal_header) == 16);
// Where a round trip's answer lands at the caller.
template <class T>
struct answer_slot {
  T* result;
  bool arrived = false;
};

// The window of this image named by a message: one that no longer exists is a library bug.
inline window& named(std::uint64_t name, const char* what = "an update") {
  window* w = window::named(name);
  if (w == nullptr)
    throw usage_error(std::string(what) + " arrived for a container that no longer exists");
  return *w;
}

// Applies a batch to w's memory at its owner, counted in the statistics: with plain loads and
// stores (combine_scattered), or with processor atomics on a shared window that images also
// update in place (window::begin_plain_updates).
template <class T, class Offset, class Value>
void apply(window& w, T* to, std::size_t count, reduce_op op, Offset offset, Value value) {
  if (w.begin_plain_updates()) {
    combine_scattered(to, count, op, offset, value);
    w.end_plain_updates();
    statistics::count_many(&rma_stats::owner_updates, count, count * sizeof(T));
  } else if constexpr (processor_atomic<T>) {
    for (std::size_t k = 0; k < count; ++k)
      (void)fetch_and_combine_in_place(to + offset(k), value(k), op);
    statistics::count_many(&rma_stats::in_place_updates, count, count * sizeof(T));
  } else {
    // Only processor-atomic types go to owners on a shared window (locality.hpp).
    throw usage_error(
        "pgas: a batch of a type the processor cannot update atomically reached "
        "a window updated in place (a library bug)");
  }
}

template <class T>
T read(const std::byte* at) {
  T v;
  std::memcpy(&v, at, sizeof v);
  return v;
}

// At the owner: applies a batch to this image's memory (the engine's acknowledgement of the
// message tells the sender it is applied).
template <class T>
void on_batch(std::size_t, std::span<const std::byte> payload) {
  const auto h = read<batch_header>(payload.data());
  window& w = named(h.window_name);
  const std::byte* offsets = payload.data() + sizeof h;
  const auto kind = static_cast<offset_kind>(h.offsets);
  const std::byte* values = offsets + offsets_bytes(kind, h.count);
  const auto value = [values](std::size_t k) { return read<T>(values + k * sizeof(T)); };
  const auto op = static_cast<reduce_op>(h.op);
  // The sender checked the whole batch against what this image exposes.
  auto* to = static_cast<T*>(w.own_memory_for_update(h.first));
  if (kind == offsets_8) {
    apply(
        w, to, h.count, op,
        [offsets](std::size_t k) { return read<std::uint64_t>(offsets + 8 * k); }, value);
  } else if (kind == offsets_4) {
    apply(
        w, to, h.count, op,
        [offsets](std::size_t k) { return read<std::uint32_t>(offsets + 4 * k); }, value);
  } else {
    apply(
        w, to + read<std::uint64_t>(offsets), h.count, op, [](std::size_t k) { return k; }, value);
  }
}

// At the owner: a write (acknowledged as any message).
inline void on_store(std::size_t, std::span<const std::byte> payload) {
  const auto h = read<store_header>(payload.data());
  window& w = named(h.window_name, "a write");
  const std::size_t bytes = payload.size() - sizeof h;
  std::memcpy(w.own_memory_for_update(h.disp), payload.data() + sizeof h, bytes);
  statistics::count(&rma_stats::owner_updates, bytes);
}

// At the owner: a signal (acknowledged as any message).
inline void on_signal(std::size_t, std::span<const std::byte> payload) {
  const auto h = read<signal_header>(payload.data());
  window& w = named(h.window_name, "a signal");
  ++*static_cast<std::int64_t*>(w.own_memory_for_update(h.disp));
  statistics::count_many(&rma_stats::owner_updates, 1, sizeof(std::int64_t));
}
// At the caller: a round trip's answer.
template <class T>
void on_answer(std::size_t, std::span<const std::byte> payload) {
  const auto at = read<std::uint64_t>(payload.data());
  auto* slot = reinterpret_cast<answer_slot<T>*>(static_cast<std::uintptr_t>(at));
  std::memcpy(static_cast<void*>(slot->result), payload.data() + 8, payload.size() - 8);
  slot->arrived = true;
}

// Applies an atomic with a result to this image's memory: result[k] is what element k held.
template <class T>
void fetch_here(
    T* to, std::size_t count, reduce_op op, const T* values, const T* expected, T* result) {
  for (std::size_t k = 0; k < count; ++k) {
    result[k] = to[k];
    if (expected != nullptr) {
      if (to[k] == expected[k])
        to[k] = values[k];
    } else {
      to[k] = combine(op, to[k], values[k]);
    }
  }
  statistics::count_many(&rma_stats::owner_updates, count, count * sizeof(T));
}

// At the owner: an atomic with a result, answered at once.
template <class T>
void on_fetch(std::size_t source, std::span<const std::byte> payload) {
  const auto h = read<fetch_header>(payload.data());
  window& w = named(h.window_name);
  std::vector<T> values(h.count);
  std::vector<T> expected(h.compare != 0 ? h.count : 0);
  std::memcpy(static_cast<void*>(values.data()), payload.data() + sizeof h, h.count * sizeof(T));
  if (h.compare != 0) {
    std::memcpy(static_cast<void*>(expected.data()),
                payload.data() + sizeof h + h.count * sizeof(T), h.count * sizeof(T));
  }
  std::span<std::byte> answer =
      messages::reserve_reply(source, messages::name_of<&on_answer<T>>(), 8 + h.count * sizeof(T));
  std::memcpy(answer.data(), &h.answer, 8);
  std::vector<T> result(h.count);
  fetch_here(static_cast<T*>(w.own_memory_for_update(h.disp)), h.count,
             static_cast<reduce_op>(h.op), values.data(),
             h.compare != 0 ? expected.data() : nullptr, result.data());
  std::memcpy(answer.data() + 8, static_cast<const void*>(result.data()), h.count * sizeof(T));
}

// Room for one batch message of `count` updates to `target` of w, its header written: where
// its offsets and its values go.
struct batch_room {
  std::byte* offsets;
  std::byte* values;
};
template <class T>
batch_room start_batch(
    window& w, int target, MPI_Aint disp, std::size_t count, reduce_op op, offset_kind kind) {
  const std::size_t offsets = offsets_bytes(kind, count);
  std::byte* at = messages::reserve(static_cast<std::size_t>(w.world_rank_of(target)),
                                    messages::name_of<&on_batch<T>>(),
                                    sizeof(batch_header) + offsets + count * sizeof(T))
                      .data();
  ::new (static_cast<void*>(at)) batch_header{w.name(),
                                              static_cast<std::int64_t>(disp),
                                              static_cast<std::uint32_t>(count),
                                              static_cast<std::uint8_t>(op),
                                              kind,
                                              0};  // in place (messages.hpp: headers)
  return {at + sizeof(batch_header), at + sizeof(batch_header) + offsets};
}

// Updates per message, for offsets of `offset_bytes`: what the engine's largest message holds.
template <class T>
std::size_t per_message(std::size_t offset_bytes) {
  const std::size_t room = messages::max_message_bytes() - sizeof(batch_header) - 16;
  return std::max<std::size_t>(1, room / (offset_bytes + sizeof(T)));
}

}  // namespace detail

namespace detail {
// Sends `count` updates to `target` as batches of at most one engine message each, naming
// their elements by `kind`; fill(first, n, room) writes updates first..first+n-1 into a
// batch's room. Each batch is awaited by the window (sending_to_owner: `bytes` from `disp`).
template <class T, class Fill>
void send_batches(window& w,
                  int target,
                  MPI_Aint disp,
                  std::size_t bytes,
                  std::size_t count,
                  reduce_op op,
                  offset_kind kind,
                  Fill fill) {
  const std::size_t most = per_message<T>(kind == offsets_4 ? 4 : 8);
  for (std::size_t first = 0; first < count; first += most) {
    const std::size_t n = std::min(most, count - first);
    w.sending_to_owner(target, disp, bytes);
    fill(first, n, start_batch<T>(w, target, disp, n, op, kind));
  }
}
}  // namespace detail

/// Makes `target`'s elements at `disp` + the `target_runs` take `op` with the `origin` runs of
/// `from` (as many elements), by the owner: applied here at once when this image is the
/// target, else sent as batches of at most one engine message each. Local; `from` may be reused
/// on return; complete at the next flush of `target` or sync point. The window must
/// owner_applies_updates().
template <class T>
void update(window& w,
            const T* from,
            const element_runs& origin,
            int target,
            MPI_Aint disp,
            const element_runs& target_runs,
            reduce_op op) {
  if (origin.empty())
    return;
  const runtime::detail::element_pairs pairs = runtime::detail::pairs_of(origin, target_runs);
  const std::vector<MPI_Aint>& o = pairs.origin;
  const std::vector<MPI_Aint>& t = pairs.target;
  const std::size_t bytes = static_cast<std::size_t>(target_runs.end()) * sizeof(T);
  if (target == w.rank()) {
    detail::apply(
        w, static_cast<T*>(w.own_memory_for_update(disp, bytes)), o.size(), op,
        [&t](std::size_t k) { return t[k]; }, [&](std::size_t k) { return from[o[k]]; });
    return;
  }
  const bool wide =
      static_cast<std::uint64_t>(target_runs.end()) > std::numeric_limits<std::uint32_t>::max();
  detail::send_batches<T>(
      w, target, disp, bytes, o.size(), op, wide ? detail::offsets_8 : detail::offsets_4,
      [&](std::size_t first, std::size_t n, const detail::batch_room& room) {
        for (std::size_t k = 0; k < n; ++k) {
          if (wide) {
            const auto v = static_cast<std::uint64_t>(t[first + k]);
            std::memcpy(room.offsets + 8 * k, &v, 8);
          } else {
            const auto v = static_cast<std::uint32_t>(t[first + k]);
            std::memcpy(room.offsets + 4 * k, &v, 4);
          }
          std::memcpy(room.values + sizeof(T) * k, from + o[first + k], sizeof(T));
        }
      });
}

/// The same for `from.size()` consecutive elements at `disp`.
template <class T>
void update(window& w, std::span<const T> from, int target, MPI_Aint disp, reduce_op op) {
  if (from.empty())
    return;
  if (target == w.rank()) {
    detail::apply(
        w, static_cast<T*>(w.own_memory_for_update(disp, from.size_bytes())), from.size(), op,
        [](std::size_t k) { return k; }, [&from](std::size_t k) { return from[k]; });
    return;
  }
  detail::send_batches<T>(
      w, target, disp, from.size_bytes(), from.size(), op, detail::consecutive,
      [&from](std::size_t first, std::size_t n, const detail::batch_room& room) {
        const std::uint64_t start = first;
        std::memcpy(room.offsets, &start, 8);
        std::memcpy(room.values, static_cast<const void*>(from.data() + first), n * sizeof(T));
      });
}

/// True when a write of `bytes` fits in one store message.
[[nodiscard]] inline bool store_fits(std::size_t bytes) noexcept {
  return sizeof(detail::store_header) + bytes <= messages::max_message_bytes();
}

/// Writes the `bytes` bytes at `from` to `target` at `disp`, by the owner: copied here at once
/// when this image is the target, else sent as one engine message that the owner applies with
/// a plain copy. The window orders it with this image's writes through MPI and awaits it as a
/// batch (sending_to_owner). Local; `from` may be reused on return; complete at the next flush
/// of `target` or sync point. The window must owner_applies_updates(); `bytes` must fit in one
/// message (store_fits).
inline void store(window& w, const void* from, std::size_t bytes, int target, MPI_Aint disp) {
  if (target == w.rank()) {
    std::memcpy(w.own_memory_for_update(disp, bytes), from, bytes);
    return;
  }
  w.sending_to_owner(target, disp, bytes);
  std::byte* at = messages::reserve(static_cast<std::size_t>(w.world_rank_of(target)),
                                    messages::name_of<&detail::on_store>(),
                                    sizeof(detail::store_header) + bytes)
                      .data();
  ::new (static_cast<void*>(at)) detail::store_header{
      w.name(), static_cast<std::int64_t>(disp)};  // in place (messages.hpp: headers)
  std::memcpy(at + sizeof(detail::store_header), from, bytes);
}

/// Adds 1 to the std::int64_t counter at `disp` on `target` (not this image), by the owner: one
/// engine message, which the window does not track as it does batches and stores — nothing
/// but signals reaches a signal's counter, and every sync point (and a window's release, a
/// quiescent barrier) waits for all of this image's messages anyway. Local; complete at the
/// next flush of `target` or sync point. The window must owner_applies_updates().
inline void signal(window& w, int target, MPI_Aint disp) {
  std::byte* at =
      messages::reserve(static_cast<std::size_t>(w.world_rank_of(target)),
                        messages::name_of<&detail::on_signal>(), sizeof(detail::signal_header))
          .data();
  ::new (static_cast<void*>(at)) detail::signal_header{
      w.name(), static_cast<std::int64_t>(disp)};  // in place (messages.hpp: headers)
}

/// Makes element `offsets[k]` of the `part_elements` elements from `disp` on `target` take `op`
/// with values[k], for every k, by the owner: applied here at once when this image is the
/// target, else sent as one engine message per (large) batch. Offsets may repeat (the owner
/// applies the updates in order) and must be below part_elements. Local; complete at the next
/// flush of `target` or sync point. The window must owner_applies_updates().
template <class T>
void update_batch(window& w,
                  int target,
                  MPI_Aint disp,
                  std::size_t part_elements,
                  std::span<const std::uint32_t> offsets,
                  std::span<const T> values,
                  reduce_op op) {
  if (offsets.empty())
    return;
  const std::size_t bytes = part_elements * sizeof(T);
  if (target == w.rank()) {
    detail::apply(
        w, static_cast<T*>(w.own_memory_for_update(disp, bytes)), offsets.size(), op,
        [&offsets](std::size_t k) { return offsets[k]; },
        [&values](std::size_t k) { return values[k]; });
    return;
  }
  detail::send_batches<T>(
      w, target, disp, bytes, offsets.size(), op, detail::offsets_4,
      [&](std::size_t first, std::size_t n, const detail::batch_room& room) {
        std::memcpy(room.offsets, offsets.data() + first, n * 4);
        std::memcpy(room.values, static_cast<const void*>(values.data() + first), n * sizeof(T));
      });
}

/// Atomically, for each k: result[k] = element k at `disp` on `target`, which becomes
/// combine(op, it, from[k]) — or, with `expected`, from[k] if it equals expected[k]. Applied by
/// the owner; returns once `result` holds the answer, having made progress meanwhile. Local.
template <class T>
void fetch(window& w,
           std::span<const T> from,
           std::type_identity_t<const T*> expected,
           std::type_identity_t<T*> result,
           int target,
           MPI_Aint disp,
           reduce_op op) {
  const std::size_t bytes = from.size_bytes();
  if (target == w.rank()) {
    // Others' atomics on this memory are applied here too: an image spinning on its own
    // element (a lock another image releases) must apply them meanwhile.
    (void)messages::progress();
    detail::fetch_here(static_cast<T*>(w.own_memory_for_update(disp, bytes)), from.size(), op,
                       from.data(), expected, result);
    return;
  }
  // Checked, and ordered after this image's earlier writes to the target, as an MPI atomic
  // would be: earlier batches go ahead of it on the engine's ordered channel.
  w.ordering_for_owner(target, disp, bytes);
  detail::answer_slot<T> slot{result};
  const std::size_t count = from.size();
  std::span<std::byte> room = messages::reserve(
      static_cast<std::size_t>(w.world_rank_of(target)), messages::name_of<&detail::on_fetch<T>>(),
      sizeof(detail::fetch_header) + (expected != nullptr ? 2 : 1) * bytes);
  ::new (static_cast<void*>(room.data()))
      detail::fetch_header{w.name(),
                           static_cast<std::int64_t>(disp),
                           static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(&slot)),
                           static_cast<std::uint32_t>(count),
                           static_cast<std::uint8_t>(op),
                           static_cast<std::uint8_t>(expected != nullptr ? 1 : 0),
                           0};  // in place (messages.hpp: headers)
  constexpr std::size_t after = sizeof(detail::fetch_header);
  std::memcpy(room.data() + after, static_cast<const void*>(from.data()), bytes);
  if (expected != nullptr)
    std::memcpy(room.data() + after + bytes, static_cast<const void*>(expected), bytes);
  messages::flush(static_cast<std::size_t>(w.world_rank_of(target)));
  messages::progress_until([&slot] { return slot.arrived; });
}

}  // namespace pgas::runtime::owner_updates
