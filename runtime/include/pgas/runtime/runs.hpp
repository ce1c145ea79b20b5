#pragma once
// One-sided transfers of many elements scattered at either end: the elements form runs of
// consecutive elements at the origin and at the target, and each side travels as one derived
// datatype (MPI_Type_create_hindexed), so one call moves them all (MPI-4.1 §12.3, §5.1).

#include <pgas/runtime/ask_ahead.hpp>
#include <pgas/runtime/datatype.hpp>
#include <pgas/runtime/element_runs.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/prefetch.hpp>
#include <pgas/runtime/rma.hpp>
#include <pgas/runtime/window.hpp>

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

namespace pgas::runtime {

/// How one side of a transfer travels: `count` of `type` from `offset` elements past the base,
/// the type owned when derived.
struct runs_datatype {
  owned_datatype derived;  // empty for one contiguous run
  MPI_Datatype type;
  int count;
  MPI_Aint offset;  // 0 unless allowed
};

/// The committed datatype for `runs` of elements of `element_bytes` bytes, each element being
/// `per_element` of `base`: one run is a plain count, equal runs at equal spacing a vector type,
/// others an hindexed type. With `may_offset` the type may start at the first run (then
/// `offset` says where); without, it starts at element 0. Local.
[[nodiscard]] runs_datatype datatype_of_runs(const element_runs& runs,
                                             MPI_Datatype base,
                                             int per_element,
                                             std::size_t element_bytes,
                                             bool may_offset);

/// A put built once and issued many times (a halo exchange's, every sweep): both sides'
/// datatypes are made and committed when it is prepared, not at each issue.
struct prepared_put {
  runs_datatype origin;
  runs_datatype target;
  int target_rank = MPI_PROC_NULL;
  MPI_Aint disp = 0;
  std::size_t origin_byte_offset = 0;  // where the origin type starts in the buffer
  std::size_t target_bytes = 0;        // from disp to one past the last byte written
  std::size_t bytes = 0;               // bytes moved
};

/// Issues `p` from `from`, the buffer its origin runs count from: one MPI_Put. Local; in the
/// passive epoch returns once `from` may be reused, inside a neighbourhood or fence phase the
/// put completes at the phase's end.
void put_prepared(window& w, const void* from, const prepared_put& p);

/// The other end of a prepared_put that travels as a message (window::begin_neighbour_messages):
/// where the put would write in this process's memory of the window, as one datatype.
struct prepared_receive {
  runs_datatype into;
  int source_rank = MPI_PROC_NULL;
  std::size_t byte_offset = 0;  // from the buffer given to where `into` starts
  std::size_t bytes = 0;        // bytes received
};

/// Sends the origin side of `p` from `from` (the buffer its origin runs count from) to its
/// target as one message of an exchange begun on `w`; receives `r` into `into`, the buffer the
/// receive's runs count from. Local.
void send_prepared(window& w, const void* from, const prepared_put& p);
void receive_prepared(window& w, void* into, const prepared_receive& r);

namespace detail {
// The origin side may start anywhere in this process's buffer; the target side starts at the
// displacement given (target runs start at 0 there).
template <transferable T>
runs_datatype origin_runs_of(const element_runs& r) {
  const element_layout l = layout_of<T>();
  return datatype_of_runs(r, l.type, l.per_element, sizeof(T), true);
}
template <transferable T>
runs_datatype target_runs_of(const element_runs& r) {
  const element_layout l = layout_of<T>();
  return datatype_of_runs(r, l.type, l.per_element, sizeof(T), false);
}
// Throws usage_error unless both sides carry the same number of elements.
void require_same_elements(const element_runs& origin,
                           const element_runs& target,
                           const char* what);

}  // namespace detail

/// Prepares a put of the `origin` runs of a buffer of T into the `target` runs at `disp` on
/// `target` (target starts at least 0), for put_prepared. Local.
template <transferable T>
[[nodiscard]] prepared_put prepare_put_runs(const element_runs& origin,
                                            int target,
                                            MPI_Aint disp,
                                            const element_runs& target_runs) {
  detail::require_same_elements(origin, target_runs, "prepare_put_runs");
  prepared_put p;
  p.origin = detail::origin_runs_of<T>(origin);
  p.target = detail::target_runs_of<T>(target_runs);
  p.target_rank = target;
  p.disp = disp;
  p.origin_byte_offset = static_cast<std::size_t>(p.origin.offset) * sizeof(T);
  p.target_bytes = static_cast<std::size_t>(target_runs.end()) * sizeof(T);
  p.bytes = origin.elements() * sizeof(T);
  return p;
}

/// Prepares the receive of what image `source`'s prepared_put of the same elements writes here:
/// the `runs` at `disp` (runs start at least 0), for receive_prepared. Local.
template <transferable T>
[[nodiscard]] prepared_receive prepare_receive_runs(int source,
                                                    MPI_Aint disp,
                                                    const element_runs& runs) {
  prepared_receive r;
  r.into = detail::target_runs_of<T>(runs);
  r.source_rank = source;
  r.byte_offset = static_cast<std::size_t>(disp) * sizeof(T);
  r.bytes = runs.elements() * sizeof(T);
  return r;
}

/// Starts writing the `origin` runs of elements at `from` into the `target` runs at `disp`
/// (where target element 0 is; target starts are at least 0) with one MPI_Put, and returns
/// what the window said of it. `from` may be reused once window::flush(target) returns (or the
/// phase's next fence). Local.
template <transferable T>
window::access start_put_runs(window& w,
                              const T* from,
                              const element_runs& origin,
                              int target,
                              MPI_Aint disp,
                              const element_runs& target_runs) {
  detail::require_same_elements(origin, target_runs, "put_runs");
  const window::access a =
      w.writing_to(target, disp, static_cast<std::size_t>(target_runs.end()) * sizeof(T));
  if (origin.empty())
    return a;
  const runs_datatype o = detail::origin_runs_of<T>(origin);
  const runs_datatype t = detail::target_runs_of<T>(target_runs);
  check(MPI_Put(from + o.offset, o.count, o.type, target, a.disp, t.count, t.type, a.handle),
        "MPI_Put");
  statistics::count(&rma_stats::puts, origin.elements() * sizeof(T));
  return a;
}

/// As start_put_runs, and returns once `from` may be reused (in the passive epoch); complete at
/// the target at the next sync point. Local.
template <transferable T>
void put_runs(window& w,
              const T* from,
              const element_runs& origin,
              int target,
              MPI_Aint disp,
              const element_runs& target_runs) {
  if (origin.empty())
    return;
  const window::access a = start_put_runs(w, from, origin, target, disp, target_runs);
  if (a.passive)
    detail::complete_locally(a.handle, target);
}

/// Starts reading the `target` runs at `disp` into the `origin` runs at `into` with one
/// MPI_Get, after this process's own earlier writes to `target` are complete. The data has
/// arrived once window::flush(target) returns. Not a request: MPICH 4.0 completes an MPI_Rget's
/// request with a derived datatype before the data is there (docs/platform.md); a flush is the
/// rule every MPI keeps (MPI-4.1 §12.5.4). Local; passive epoch only (`what` names the read
/// in the usage_error otherwise).
template <transferable T>
MPI_Win start_get_runs(window& w,
                       T* into,
                       const element_runs& origin,
                       int target,
                       MPI_Aint disp,
                       const element_runs& target_runs,
                       const char* what = "an asynchronous get") {
  detail::require_same_elements(origin, target_runs, "get_runs");
  const window::access a =
      w.reading_from(what, target, disp, static_cast<std::size_t>(target_runs.end()) * sizeof(T));
  if (origin.empty())
    return a.handle;
  const runs_datatype o = detail::origin_runs_of<T>(origin);
  const runs_datatype t = detail::target_runs_of<T>(target_runs);
  check(MPI_Get(into + o.offset, o.count, o.type, target, a.disp, t.count, t.type, a.handle),
        "MPI_Get");
  statistics::count(&rma_stats::gets, origin.elements() * sizeof(T));
  return a.handle;
}

/// As start_get_runs, and returns once the data has arrived. Local.
template <transferable T>
void get_runs(window& w,
              T* into,
              const element_runs& origin,
              int target,
              MPI_Aint disp,
              const element_runs& target_runs) {
  if (origin.empty())
    return;
  detail::complete_locally(
      start_get_runs(w, into, origin, target, disp, target_runs, "a blocking get"), target);
}

/// Reads `count` elements, `stride` elements apart from `disp` on `target`, into into[0..count)
/// with one MPI_Get of a vector datatype, after this process's own earlier writes to `target` are
/// complete, and returns once they have arrived: a long strided pattern in one datatype built at
/// once, not described run by run. Local; passive epoch only.
template <transferable T>
void get_strided(
    window& w, T* into, std::size_t count, std::size_t stride, int target, MPI_Aint disp) {
  if (count == 0)
    return;
  const window::access a =
      w.reading_from("a blocking get", target, disp, ((count - 1) * stride + 1) * sizeof(T));
  const element_layout l = layout_of<T>();
  owned_datatype every_stride;
  check(MPI_Type_create_hvector(to_count(count), l.per_element,
                                static_cast<MPI_Aint>(stride * sizeof(T)), l.type,
                                every_stride.out()),
        "MPI_Type_create_hvector");
  check(MPI_Type_commit(every_stride.out()), "MPI_Type_commit");
  check(MPI_Get(into, to_count(count * static_cast<std::size_t>(l.per_element)), l.type, target,
                a.disp, 1, every_stride.get(), a.handle),
        "MPI_Get");
  statistics::count(&rma_stats::gets, count * sizeof(T));
  detail::complete_locally(a.handle, target);
}

/// Starts combining the `origin` runs at `from` into the `target` runs at `disp` with `op`,
/// atomically per element with respect to other accumulates. The target runs must not overlap.
/// One MPI_Accumulate, or the update applied in place (in_place_updates.hpp): then it is done
/// and nothing is returned; otherwise what the window said of the operation, and `from` may be
/// reused once window::flush(target) returns. Local.
template <accumulable T>
std::optional<window::access> start_accumulate_runs(window& w,
                                                    const T* from,
                                                    const element_runs& origin,
                                                    int target,
                                                    MPI_Aint disp,
                                                    const element_runs& target_runs,
                                                    reduce_op op) {
  detail::require_same_elements(origin, target_runs, "accumulate_runs");
  if (origin.empty())
    return std::nullopt;
  if (detail::applied_in_place<T>(
          w, target, disp, static_cast<std::size_t>(target_runs.end()), op,
          [&](auto* to) {
            detail::for_each_paired_element(
                origin, target_runs,
                [&](MPI_Aint o, MPI_Aint t) {
                  (void)fetch_and_combine_in_place(to + t, from[o], op);
                },
                [](std::size_t n, auto&& body) {
                  for_each_piece_asking_ahead(scattered_loop::updates_in_place, n, body);
                },
                [&](MPI_Aint t) { prefetch_for_write(to + t); });
          },
          origin.elements())) {
    return std::nullopt;
  }
  if (w.owner_applies_updates()) {
    // Applied by the owner: complete, like MPI's, at the next flush of the target.
    owner_updates::update(w, from, origin, target, disp, target_runs, op);
    return window::access{w.native(), true, target == w.rank(), disp};
  }
  const window::access a =
      w.writing_to(target, disp, static_cast<std::size_t>(target_runs.end()) * sizeof(T),
                   write_kind::accumulate);
  const runs_datatype o = detail::origin_runs_of<T>(origin);
  const runs_datatype t = detail::target_runs_of<T>(target_runs);
  check(MPI_Accumulate(from + o.offset, o.count, o.type, target, a.disp, t.count, t.type,
                       to_mpi(op), a.handle),
        "MPI_Accumulate");
  statistics::count(&rma_stats::accumulates, origin.elements() * sizeof(T));
  return a;
}

/// As start_accumulate_runs, and returns once `from` may be reused; complete at the target at
/// the next sync point. Local.
template <accumulable T>
void accumulate_runs(window& w,
                     const T* from,
                     const element_runs& origin,
                     int target,
                     MPI_Aint disp,
                     const element_runs& target_runs,
                     reduce_op op) {
  if (w.owner_applies_updates() && !w.updates_in_place()) {
    detail::require_same_elements(origin, target_runs, "accumulate_runs");
    require_op_defined<T>(op);
    owner_updates::update(w, from, origin, target, disp, target_runs, op);
    return;
  }
  const std::optional<window::access> a =
      start_accumulate_runs(w, from, origin, target, disp, target_runs, op);
  if (a)
    detail::after_accumulate(w, *a, target, false);
}

}  // namespace pgas::runtime
