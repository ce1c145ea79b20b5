#pragma once
// One image moving many elements on its own: ranges, strided ranges and index lists, read
// into or written from this image's buffer. No other image takes part. Each owner reached
// through MPI gets one operation with a derived datatype per side (or one per
// detail::max_runs_per_operation runs); elements in this process's memory are copied.
// Works on every container with global indices (array, array_view, vector) and on the image
// parts of a coarray<T[N]> (`pgas::get(x(img), 0, out)`). The functions users call; how the
// elements travel is detail/locality.hpp's choice.

#include <pgas/detail/combine_duplicates.hpp>
#include <pgas/detail/locality.hpp>
#include <pgas/detail/started_transfers.hpp>
#include <pgas/detail/transfer_checks.hpp>
#include <pgas/detail/walks.hpp>
#include <pgas/future.hpp>
#include <pgas/reduce_op.hpp>
#include <pgas/runtime/datatype.hpp>
#include <pgas/runtime/in_place_updates.hpp>
#include <pgas/runtime/reduce_op.hpp>
#include <pgas/runtime/watchdog.hpp>

#include <cstddef>
#include <span>
#include <type_traits>
#include <vector>

namespace pgas {

/// Reads c[first .. first + out.size()) into out. Local; blocks until out holds the data; sees
/// this image's own earlier writes. Throws out_of_range, before anything moves, for a range
/// past the end.
template <class C>
requires detail::transfer_container<const C>
void get(const C& c,
         std::size_t first,
         std::span<detail::element_of<const C>> out,
         runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in called("pgas::get", where);
  detail::require_range("pgas::get", first, out.size(), c.size());
  detail::read_elements(out, detail::range_walk(c, first, out.size()), nullptr);
}

/// Writes in to c[first .. first + in.size()). Local; returns once in may be reused; the data
/// is complete at the next sync point.
template <class C>
requires detail::transfer_container<std::remove_reference_t<C>>
void put(C&& c,
         std::size_t first,
         std::span<const detail::element_of<std::remove_reference_t<C>>> in,
         runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in called("pgas::put", where);
  detail::require_range("pgas::put", first, in.size(), c.size());
  detail::write_elements(in, detail::range_walk(c, first, in.size()), nullptr);
}

/// Starts reading c[first .. first + out.size()) into out; the future is ready when out holds
/// the data. out must stay alive and untouched until then. Local.
template <class C>
requires detail::transfer_container<const C>
[[nodiscard]] future<void> async_get(
    const C& c,
    std::size_t first,
    std::span<detail::element_of<const C>> out,
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in called("pgas::async_get", where);
  detail::require_range("pgas::async_get", first, out.size(), c.size());
  return detail::future_of(c, [&](detail::started_transfers* started) {
    detail::read_elements(out, detail::range_walk(c, first, out.size()), started);
  });
}

/// Starts writing in to c[first .. first + in.size()); the future is ready when in may be
/// reused, which must not happen before. The data is complete at the next sync point. Local.
template <class C>
requires detail::transfer_container<std::remove_reference_t<C>>
[[nodiscard]] future<void> async_put(
    C&& c,
    std::size_t first,
    std::span<const detail::element_of<std::remove_reference_t<C>>> in,
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in called("pgas::async_put", where);
  detail::require_range("pgas::async_put", first, in.size(), c.size());
  return detail::future_of(c, [&](detail::started_transfers* started) {
    detail::write_elements(in, detail::range_walk(c, first, in.size()), started);
  });
}

/// Reads c[first], c[first + stride], ... (out.size() of them) into out. One operation per
/// owner. Local; blocks. Stride 0 is a usage_error, a pattern past the end out_of_range.
template <class C>
requires detail::transfer_container<const C>
void get_strided(
    const C& c,
    std::size_t first,
    std::size_t stride,
    std::span<detail::element_of<const C>> out,
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in called("pgas::get_strided", where);
  detail::require_strided("pgas::get_strided", first, stride, out.size(), c.size());
  detail::read_elements(out, detail::strided_walk(c, first, stride, out.size()), nullptr);
}

/// Writes in to c[first], c[first + stride], ... One operation per owner. Local; returns once
/// in may be reused; complete at the next sync point.
template <class C>
requires detail::transfer_container<std::remove_reference_t<C>>
void put_strided(
    C&& c,
    std::size_t first,
    std::size_t stride,
    std::span<const detail::element_of<std::remove_reference_t<C>>> in,
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in called("pgas::put_strided", where);
  detail::require_strided("pgas::put_strided", first, stride, in.size(), c.size());
  detail::write_elements(in, detail::strided_walk(c, first, stride, in.size()), nullptr);
}

/// out[k] = c[indices[k]] for every k. Requests are grouped per owner: one get each (or one per
/// detail::max_runs_per_operation runs). Not collective. Local; blocks. Throws, before
/// anything moves, usage_error if the lengths differ and out_of_range for an index past the end.
template <class C>
requires detail::transfer_container<const C>
void gather(
    const C& c,
    std::span<const std::size_t> indices,
    std::span<detail::element_of<const C>> out,
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in called("pgas::gather", where);
  detail::require_same_length("pgas::gather", indices.size(), out.size());
  detail::require_indices("pgas::gather", indices, c.size());
  detail::read_listed(c, indices, out, nullptr, "pgas::gather");
}

/// As gather, returning at once; the future is ready when out holds every element. indices and
/// out must stay alive and untouched until then. Local.
template <class C>
requires detail::transfer_container<const C>
[[nodiscard]] future<void> async_gather(
    const C& c,
    std::span<const std::size_t> indices,
    std::span<detail::element_of<const C>> out,
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in called("pgas::async_gather", where);
  detail::require_same_length("pgas::async_gather", indices.size(), out.size());
  detail::require_indices("pgas::async_gather", indices, c.size());
  return detail::future_of(c, [&](detail::started_transfers* started) {
    detail::read_listed(c, indices, out, started, "pgas::async_gather");
  });
}

/// c[indices[k]] = values[k] for every k; where an index is listed twice the later value wins.
/// One put per owner. Not collective. Local; returns once values may be reused; complete at
/// the next sync point. Throws as gather does, before anything moves.
template <class C>
requires detail::transfer_container<std::remove_reference_t<C>>
void scatter(
    C&& c,
    std::span<const std::size_t> indices,
    std::span<const detail::element_of<std::remove_reference_t<C>>> values,
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in called("pgas::scatter", where);
  using T = detail::element_of<std::remove_reference_t<C>>;
  detail::require_same_length("pgas::scatter", indices.size(), values.size());
  detail::require_indices("pgas::scatter", indices, c.size());
  std::vector<std::size_t> distinct(indices.begin(), indices.end());
  std::vector<T> last(values.begin(), values.end());
  detail::combine_duplicates(distinct, last, reduce_op::replace);
  detail::write_elements(std::span<const T>(last),
                         detail::list_walk(c, std::span<const std::size_t>(distinct)), nullptr);
}

/// c[indices[k]] = c[indices[k]] op values[k] for every k, atomically with respect to other
/// images' accumulates; updates of one index are combined here first. One accumulate per owner.
/// Not collective. Local; complete at the next sync point. Throws as gather does, before
/// anything moves, and usage_error for a bitwise or logical op on floating point.
template <class C>
requires detail::transfer_container<std::remove_reference_t<C>> &&
    runtime::accumulable<detail::element_of<std::remove_reference_t<C>>>
void scatter_accumulate(
    C&& c,
    std::span<const std::size_t> indices,
    std::span<const detail::element_of<std::remove_reference_t<C>>> values,
    reduce_op op,
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in called("pgas::scatter_accumulate", where);
  using T = detail::element_of<std::remove_reference_t<C>>;
  detail::require_same_length("pgas::scatter_accumulate", indices.size(), values.size());
  detail::require_indices("pgas::scatter_accumulate", indices, c.size());
  runtime::require_op_defined<T>(op);
  std::vector<std::size_t> listed(indices.begin(), indices.end());
  std::vector<T> combined(values.begin(), values.end());
  std::vector<detail::owner_share<T>> shares;
  detail::note_listed(c, indices, detail::race_access::update);
  detail::accumulate_scattered(c, listed, combined, op, shares);
}

}  // namespace pgas
