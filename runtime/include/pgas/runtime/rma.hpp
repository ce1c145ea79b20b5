#pragma once
// One-sided operations on a window: put, get, accumulates, atomics, request-based and strided
// transfers. Displacements are in units of the target's disp_unit; on a dynamic window they are
// the absolute addresses the target published (MPI-4.1 §12.2.4, §12.3.1).

#include <pgas/runtime/datatype.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/held_write.hpp>
#include <pgas/runtime/in_place_updates.hpp>
#include <pgas/runtime/owner_updates.hpp>
#include <pgas/runtime/reduce_op.hpp>
#include <pgas/runtime/request.hpp>
#include <pgas/runtime/stats.hpp>
#include <pgas/runtime/window.hpp>

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <span>

namespace pgas::runtime {

namespace detail {
// Local completion for a target already validated, in the passive epoch already checked.
inline void complete_locally(MPI_Win handle, int target) {
  check(MPI_Win_flush_local(target, handle), "MPI_Win_flush_local");
}
// After an accumulate in the passive epoch: one to this process's own memory is completed at
// once, because the process then reads and writes that memory with plain loads and stores,
// which MPI does not order after its accumulate; otherwise the origin buffer, unless staged,
// is completed so the caller may reuse it.
inline void after_accumulate(window& w, const window::access& a, int target, bool staged) {
  if (!a.passive)
    return;
  if (a.to_self) {
    w.flush(target);
  } else if (!staged) {
    complete_locally(a.handle, target);
  }
}
}  // namespace detail

/// A put at least this long to a process reached through MPI alone (another node, or any peer
/// with PGAS_SHARED_MEMORY=0: where owners apply updates) is completed at the target, not only
/// at the origin, before it returns. Past MPI's eager limits over a network (Open MPI's TCP 64 KiB,
/// MPICH's 128 KiB) local completion waits for the target's answer anyway; waiting for the end of
/// the transfer costs little more and spares the next sync point a round trip of its own
/// (bench_micro's 1 MiB put between hosts: 0.83-0.86 of MPI_Put + flush with local completion).
inline constexpr std::size_t completed_remotely_bytes = std::size_t{64} << 10;

/// Writes `from` to `target` at `disp`. Local. Returns once `from` may be reused (in the passive
/// epoch); completed at the target by the next flush or sync point. Inside a fence or
/// neighbourhood phase `from` must stay unchanged until the phase's next fence or its end.
template <transferable T>
void put(window& w, std::span<const T> from, int target, MPI_Aint disp) {
  if (from.empty())
    return;
  const window::access a = w.writing_to(target, disp, from.size_bytes());
  const element_layout l = layout_of<T>();
  const mpi_count c(l.type, from.size() * static_cast<std::size_t>(l.per_element));
  check(MPI_Put(from.data(), c.count(), c.type(), target, a.disp, c.count(), c.type(), a.handle),
        "MPI_Put");
  statistics::count(&rma_stats::puts, from.size_bytes());
  if (!a.passive)
    return;
  if (from.size_bytes() >= completed_remotely_bytes && !a.to_self && w.owner_applies_updates())
    w.flush(target);  // what the next sync point would do, in the same wait
  else
    detail::complete_locally(a.handle, target);
}

namespace detail {
/// A put of `bytes` at `value`, `count` elements of `type`, from a staged copy. Local.
inline void put_staged(window& w,
                       const void* value,
                       std::size_t bytes,
                       MPI_Datatype type,
                       int count,
                       int target,
                       MPI_Aint disp) {
  const window::access a = w.writing_to(target, disp, bytes);
  // A word, the usual element, is staged with one store (stage() is inline for this).
  constexpr std::size_t word = sizeof(std::uint64_t);
  const void* staged = bytes == word ? w.stage(value, word) : w.stage(value, bytes);
  check(MPI_Put(staged, count, type, target, a.disp, count, type, a.handle), "MPI_Put");
}
}  // namespace detail

/// Writes one value; the value is copied, so the call returns at once. Local; completed at the
/// target by the next flush or sync point. To an owner on another node that applies updates
/// (owner_updates.hpp) the value goes as one message among the others to it, which a later
/// message (an event post) follows without a round trip; MPI's put would need a flush of its
/// own first, a round trip across the network. To one of this node that applies them it is
/// held until the next operation (held_write.hpp): a message to it next carries it the same
/// way, anything else issues it as a put, which MPI carries through shared memory.
template <transferable T>
void put_value(window& w, const T& value, int target, MPI_Aint disp) {
  // Only a value that one message carries goes to its owner or is held (a value no larger than
  // a held one always fits: the engine's messages take kibibytes).
  const bool fits = sizeof(T) <= held_write_bytes || owner_updates::store_fits(sizeof(T));
  const window::write_route route =
      fits ? w.route_of_element_write(target, disp, sizeof(T)) : window::write_route::through_mpi;
  const element_layout l = layout_of<T>();
  if (route == window::write_route::to_owner) {
    owner_updates::store(w, &value, sizeof(T), target, disp);
  } else if (route != window::write_route::held ||
             !hold_write(w, value, l.type, l.per_element, target, disp)) {
    detail::put_staged(w, &value, sizeof(T), l.type, l.per_element, target, disp);
  }
  statistics::count(&rma_stats::puts, sizeof(T));
}

/// Reads from `target` at `disp` into `into`; returns once the data has arrived, and sees this
/// process's own earlier writes to that target. Local; passive epoch only.
template <transferable T>
void get(window& w, std::span<T> into, int target, MPI_Aint disp) {
  if (into.empty())
    return;
  const window::access a = w.reading_from("a blocking get", target, disp, into.size_bytes());
  const element_layout l = layout_of<T>();
  const mpi_count c(l.type, into.size() * static_cast<std::size_t>(l.per_element));
  check(MPI_Get(into.data(), c.count(), c.type(), target, a.disp, c.count(), c.type(), a.handle),
        "MPI_Get");
  statistics::count(&rma_stats::gets, into.size_bytes());
  detail::complete_locally(a.handle, target);
}

namespace detail {
// Calls apply(where) and returns true when an update of `count` T at `disp` on `target` is
// applied in place (in_place_updates.hpp); returns false when MPI must carry it. Either way an
// op MPI does not define on T is refused first, so both paths refuse alike. `apply` is generic
// (auto*): it is instantiated only for types the processor updates.
// `count` elements from `disp` are checked; `updates` (default: count) are counted.
template <accumulable T, class Apply>
bool applied_in_place(window& w,
                      int target,
                      MPI_Aint disp,
                      std::size_t count,
                      reduce_op op,
                      Apply apply,
                      std::size_t updates = SIZE_MAX) {
  require_op_defined<T>(op);
  if constexpr (processor_atomic<T>) {
    if (void* where = w.mapped_for_update(target, disp, count * sizeof(T))) {
      apply(static_cast<T*>(where));
      if (updates == SIZE_MAX)
        updates = count;
      statistics::count_many(&rma_stats::in_place_updates, updates, updates * sizeof(T));
      return true;
    }
  }
  return false;
}
}  // namespace detail

/// Combines `from` into the target elements with `op`, atomically per element with respect to
/// other accumulates (applied in place on a shared-memory window: in_place_updates.hpp). Local;
/// like put, `from` is reusable on return.
template <accumulable T>
void accumulate(window& w, std::span<const T> from, int target, MPI_Aint disp, reduce_op op) {
  if (from.empty())
    return;
  if (detail::applied_in_place<T>(w, target, disp, from.size(), op, [&](auto* to) {
        for (std::size_t k = 0; k < from.size(); ++k)
          (void)fetch_and_combine_in_place(to + k, from[k], op);
      })) {
    return;
  }
  if (w.owner_applies_updates()) {
    owner_updates::update(w, from, target, disp, op);
    return;
  }
  const window::access a = w.writing_to(target, disp, from.size_bytes(), write_kind::accumulate);
  const element_layout l = layout_of<T>();
  const mpi_count c(l.type, from.size());
  check(MPI_Accumulate(from.data(), c.count(), c.type(), target, a.disp, c.count(), c.type(),
                       to_mpi(op), a.handle),
        "MPI_Accumulate");
  statistics::count(&rma_stats::accumulates, from.size_bytes());
  detail::after_accumulate(w, a, target, false);
}

/// Combines one staged value into the target element. Local; returns at once.
template <accumulable T>
void accumulate_value(window& w, const T& value, int target, MPI_Aint disp, reduce_op op) {
  if (detail::applied_in_place<T>(w, target, disp, 1, op, [&](auto* to) {
        (void)fetch_and_combine_in_place(to, value, op);
      })) {
    return;
  }
  if (w.owner_applies_updates()) {
    owner_updates::update(w, std::span<const T>(&value, 1), target, disp, op);
    return;
  }
  const window::access a = w.writing_to(target, disp, sizeof(T), write_kind::accumulate);
  const void* staged = w.stage(&value, sizeof(T));
  const element_layout l = layout_of<T>();
  check(MPI_Accumulate(staged, 1, l.type, target, a.disp, 1, l.type, to_mpi(op), a.handle),
        "MPI_Accumulate");
  statistics::count(&rma_stats::accumulates, sizeof(T));
  detail::after_accumulate(w, a, target, true);
}

/// Combines `from` into the target with `op` and returns the previous target values in
/// `result`, atomically per element. Local; blocks until `result` has arrived.
template <accumulable T>
void get_accumulate(window& w,
                    std::span<const T> from,
                    std::span<T> result,
                    int target,
                    MPI_Aint disp,
                    reduce_op op) {
  if (from.size() != result.size())
    throw usage_error("get_accumulate needs result as long as from");
  if (from.empty())
    return;
  if (detail::applied_in_place<T>(w, target, disp, from.size(), op, [&](auto* to) {
        for (std::size_t k = 0; k < from.size(); ++k)
          result[k] = fetch_and_combine_in_place(to + k, from[k], op);
      })) {
    return;
  }
  if (w.owner_applies_updates()) {
    owner_updates::fetch(w, from, nullptr, result.data(), target, disp, op);
    return;
  }
  const window::access a = w.reading_from("get_accumulate", target, disp, from.size_bytes());
  w.note_write(target);
  const element_layout l = layout_of<T>();
  const mpi_count c(l.type, from.size());
  check(MPI_Get_accumulate(from.data(), c.count(), c.type(), result.data(), c.count(), c.type(),
                           target, a.disp, c.count(), c.type(), to_mpi(op), a.handle),
        "MPI_Get_accumulate");
  statistics::count(&rma_stats::atomics, from.size_bytes());
  detail::complete_locally(a.handle, target);
}

/// Atomically combines `value` into one target element and returns its previous value. Local.
template <accumulable T>
[[nodiscard]] T fetch_and_op(window& w, const T& value, int target, MPI_Aint disp, reduce_op op) {
  T result{};
  if (detail::applied_in_place<T>(w, target, disp, 1, op, [&](auto* at) {
        result = fetch_and_combine_in_place(at, value, op);
      })) {
    return result;
  }
  if (w.owner_applies_updates()) {
    owner_updates::fetch(w, std::span<const T>(&value, 1), nullptr, &result, target, disp, op);
    return result;
  }
  const window::access a = w.reading_from("fetch_and_op", target, disp, sizeof(T));
  w.note_write(target);
  check(
      MPI_Fetch_and_op(&value, &result, layout_of<T>().type, target, a.disp, to_mpi(op), a.handle),
      "MPI_Fetch_and_op");
  statistics::count(&rma_stats::atomics, sizeof(T));
  detail::complete_locally(a.handle, target);
  return result;
}

/// Starts replacing one target element by *desired if it holds *expected, the previous value
/// landing in *result. Returns true when it was applied in place (done); otherwise MPI has it
/// (MPI_Compare_and_swap, which has no request form), and *result is there, and the three
/// buffers may go, once window::flush_local(target) returns. Local; passive epoch only.
template <accumulable T>
[[nodiscard]] bool start_compare_and_swap(window& w,
                                          const T* desired,
                                          const T* expected,
                                          T* result,
                                          int target,
                                          MPI_Aint disp,
                                          const char* what = "an asynchronous compare-and-swap") {
  if (detail::applied_in_place<T>(w, target, disp, 1, reduce_op::replace, [&](auto* at) {
        *result = compare_and_swap_in_place(at, *desired, *expected);
      })) {
    return true;
  }
  if (w.owner_applies_updates()) {  // a round trip: done when it returns
    owner_updates::fetch(w, std::span<const T>(desired, 1), expected, result, target, disp,
                         reduce_op::replace);
    return true;
  }
  const window::access a = w.reading_from(what, target, disp, sizeof(T));
  w.note_write(target);
  check(MPI_Compare_and_swap(desired, expected, result, layout_of<T>().type, target, a.disp,
                             a.handle),
        "MPI_Compare_and_swap");
  statistics::count(&rma_stats::atomics, sizeof(T));
  return false;
}

/// Atomically replaces one target element by `desired` if it equals `expected`; returns the
/// element's previous value either way. Local.
template <accumulable T>
[[nodiscard]] T compare_and_swap(
    window& w, const T& desired, const T& expected, int target, MPI_Aint disp) {
  T result{};
  if (!start_compare_and_swap(w, &desired, &expected, &result, target, disp, "compare_and_swap")) {
    w.flush_local(target);
  }
  return result;
}

/// Starts combining *value into one target element atomically, the previous value landing in
/// *result; returns the request (MPI_Rget_accumulate), or an empty one when the update was
/// applied in place or the process keeps most_outstanding_requests already (then *result holds
/// it already). *value and *result must stay until the request completes. Local; passive epoch
/// only.
template <accumulable T>
[[nodiscard]] request rfetch_and_op(
    window& w, const T* value, T* result, int target, MPI_Aint disp, reduce_op op) {
  if (detail::applied_in_place<T>(w, target, disp, 1, op, [&](auto* at) {
        *result = fetch_and_combine_in_place(at, *value, op);
      })) {
    return request{};
  }
  if (w.owner_applies_updates()) {  // a round trip: done when it returns
    owner_updates::fetch(w, std::span<const T>(value, 1), nullptr, result, target, disp, op);
    return request{};
  }
  const window::access a = w.reading_from("an asynchronous atomic", target, disp, sizeof(T));
  w.note_write(target);
  const MPI_Datatype type = layout_of<T>().type;
  MPI_Request r = MPI_REQUEST_NULL;
  check(MPI_Rget_accumulate(value, 1, type, result, 1, type, target, a.disp, 1, type, to_mpi(op),
                            a.handle, &r),
        "MPI_Rget_accumulate");
  statistics::count(&rma_stats::atomics, sizeof(T));
  return keep_or_complete(r, "MPI_Rget_accumulate");
}

/// Starts a put and returns its request (empty, the put done at the origin, where the process
/// keeps most_outstanding_requests already); `from` must stay unchanged until the request
/// completes. Local; passive epoch only. Remote completion comes with the next flush or sync
/// point.
template <transferable T>
[[nodiscard]] request rput(window& w, std::span<const T> from, int target, MPI_Aint disp) {
  w.require_passive("rput");
  const window::access a = w.writing_to(target, disp, from.size_bytes());
  const element_layout l = layout_of<T>();
  const mpi_count c(l.type, from.size() * static_cast<std::size_t>(l.per_element));
  MPI_Request r = MPI_REQUEST_NULL;
  check(
      MPI_Rput(from.data(), c.count(), c.type(), target, a.disp, c.count(), c.type(), a.handle, &r),
      "MPI_Rput");
  statistics::count(&rma_stats::puts, from.size_bytes());
  return keep_or_complete(r, "MPI_Rput");
}

/// Starts a get and returns its request (empty, the data arrived, where the process keeps
/// most_outstanding_requests already); `into` holds the data once the request completes.
/// Local; passive epoch only.
template <transferable T>
[[nodiscard]] request rget(window& w, std::span<T> into, int target, MPI_Aint disp) {
  const window::access a = w.reading_from("rget", target, disp, into.size_bytes());
  const element_layout l = layout_of<T>();
  const mpi_count c(l.type, into.size() * static_cast<std::size_t>(l.per_element));
  MPI_Request r = MPI_REQUEST_NULL;
  check(
      MPI_Rget(into.data(), c.count(), c.type(), target, a.disp, c.count(), c.type(), a.handle, &r),
      "MPI_Rget");
  statistics::count(&rma_stats::gets, into.size_bytes());
  return keep_or_complete(r, "MPI_Rget");
}

/// A strided pattern: `count` blocks of `block` elements, block starts `stride` elements apart.
struct strided {
  std::size_t count;
  std::size_t block;
  std::size_t stride;
  /// Elements from the first to the last one touched.
  [[nodiscard]] std::size_t extent() const noexcept {
    return count == 0 ? 0 : (count - 1) * stride + block;
  }
};

namespace detail {
// The cached derived datatype for `shape` over T, or nothing for an empty pattern.
template <transferable T>
MPI_Datatype strided_of(const strided& shape) {
  if (shape.block > shape.stride && shape.count > 1) {
    throw usage_error("a strided pattern's blocks may not overlap (block > stride)");
  }
  const element_layout l = layout_of<T>();
  const int per = l.per_element;
  return strided_type(l.type, to_count(shape.count), to_count(shape.block) * per,
                      to_count(shape.stride) * per);
}
}  // namespace detail

/// Puts the `origin` pattern of elements starting at `from` into the `target_shape` pattern at
/// `disp` (both patterns hold the same number of elements). One MPI_Put with cached vector
/// datatypes. Local; like put, `from` is reusable on return in the passive epoch.
template <transferable T>
void put_strided(window& w,
                 const T* from,
                 const strided& origin,
                 int target,
                 MPI_Aint disp,
                 const strided& target_shape) {
  if (origin.count * origin.block != target_shape.count * target_shape.block) {
    throw usage_error("put_strided needs origin and target patterns of the same element count");
  }
  if (origin.count * origin.block == 0)
    return;
  const window::access a = w.writing_to(target, disp, target_shape.extent() * sizeof(T));
  check(MPI_Put(from, 1, detail::strided_of<T>(origin), target, a.disp, 1,
                detail::strided_of<T>(target_shape), a.handle),
        "MPI_Put");
  statistics::count(&rma_stats::puts, origin.count * origin.block * sizeof(T));
  if (a.passive)
    detail::complete_locally(a.handle, target);
}

/// Gets the `target_shape` pattern at `disp` into the `origin` pattern at `into`. Local;
/// passive epoch only; returns once the data has arrived.
template <transferable T>
void get_strided(window& w,
                 T* into,
                 const strided& origin,
                 int target,
                 MPI_Aint disp,
                 const strided& target_shape) {
  if (origin.count * origin.block != target_shape.count * target_shape.block) {
    throw usage_error("get_strided needs origin and target patterns of the same element count");
  }
  if (origin.count * origin.block == 0)
    return;
  const window::access a =
      w.reading_from("a blocking get", target, disp, target_shape.extent() * sizeof(T));
  check(MPI_Get(into, 1, detail::strided_of<T>(origin), target, a.disp, 1,
                detail::strided_of<T>(target_shape), a.handle),
        "MPI_Get");
  statistics::count(&rma_stats::gets, origin.count * origin.block * sizeof(T));
  detail::complete_locally(a.handle, target);
}

}  // namespace pgas::runtime
