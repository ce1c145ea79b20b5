#pragma once
// Patches of an ndarray (Global Arrays' NGA_Get / NGA_Put / NGA_Acc): one image reads, writes
// or accumulates a box of elements, its own buffer holding the box row-major. No other image
// takes part. The box is cut at tile borders; each tile reached through MPI gets one operation
// whose datatypes cover its part of the box on both sides (a vector type for a 2-D part, an
// indexed one of rows for more dimensions, up to detail::max_runs_per_operation rows each);
// tiles in this process's memory (its own, or a same-node peer's) are copied directly.

#include <pgas/detail/tile_layout.hpp>
#include <pgas/future.hpp>
#include <pgas/ndarray.hpp>
#include <pgas/reduce_op.hpp>
#include <pgas/runtime/combine.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/watchdog.hpp>
#include <pgas/transfers.hpp>

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <type_traits>

namespace pgas {

namespace detail {

template <std::size_t N>
std::string box_text(const std::array<std::size_t, N>& v) {
  std::string s = "{";
  for (std::size_t d = 0; d < N; ++d) s += (d ? ", " : "") + std::to_string(v[d]);
  return s + "}";
}

// Throws, before anything moves, out_of_range for a box leaving the array and usage_error for
// a buffer of another size than the box.
template <std::size_t N>
void require_patch(const char* what,
                   const tile_layout<N>& layout,
                   const std::array<std::size_t, N>& first,
                   const std::array<std::size_t, N>& sizes,
                   std::size_t buffer) {
  std::size_t elements = 1;
  for (std::size_t d = 0; d < N; ++d) {
    const std::size_t n = layout.extent(d);
    if (first[d] > n || sizes[d] > n - first[d]) {
      throw out_of_range(std::string(what) + ": the patch from " + box_text<N>(first) + " of " +
                         box_text<N>(sizes) + " elements leaves the array along dimension " +
                         std::to_string(d) + " (extent " + std::to_string(n) + ")");
    }
    elements *= sizes[d];
  }
  if (elements != buffer) {
    throw usage_error(std::string(what) + ": the patch holds " + std::to_string(elements) +
                      " elements but the buffer " + std::to_string(buffer));
  }
}

// Calls add(position in the patch buffer, element, length, 1) for every row (a run along the
// last dimension) of the box's part in every tile the box crosses.
// `Array` is an ndarray, const for reads: its elements come as pointers to const then.
template <class Array, std::size_t N, class Add>
void for_each_patch_row(Array& a,
                        const std::array<std::size_t, N>& first,
                        const std::array<std::size_t, N>& sizes,
                        Add add) {
  using index = std::array<std::size_t, N>;
  const tile_layout<N>& layout = a.tiles();
  index buffer_strides{};
  std::size_t step = 1;
  for (std::size_t d = N; d-- > 0;) {
    buffer_strides[d] = step;
    step *= sizes[d];
  }
  index first_tile{};
  index tiles{};
  for (std::size_t d = 0; d < N; ++d) {
    if (sizes[d] == 0)
      return;
    first_tile[d] = layout.split(d).owner(first[d]);
    tiles[d] = layout.split(d).owner(first[d] + sizes[d] - 1) - first_tile[d] + 1;
  }
  // Every tile crossed, then every row of the box inside it.
  for_each_index<N>(tiles, [&](const index& tile) {
    index lo{};
    index part{};
    for (std::size_t d = 0; d < N; ++d) {
      const std::size_t c = first_tile[d] + tile[d];
      const std::size_t start = std::max(first[d], layout.split(d).first_of(c));
      const std::size_t end = std::min(first[d] + sizes[d],
                                       layout.split(d).first_of(c) + layout.split(d).local_size(c));
      lo[d] = start;
      part[d] = end - start;
    }
    for_each_box_row<N>(part, [&](const index& at) {
      index g{};
      std::size_t position = 0;
      for (std::size_t d = 0; d < N; ++d) {
        g[d] = lo[d] + at[d];
        position += (g[d] - first[d]) * buffer_strides[d];
      }
      add(position, a.element(g), part[N - 1], std::size_t{1});
    });
  });
}

// The walk the transfers take: writable elements through a writable array, const ones through
// a const array.
template <class Array, std::size_t N>
auto patch_walk(Array& a,
                const std::array<std::size_t, N>& first,
                const std::array<std::size_t, N>& sizes) {
  return [&a, first, sizes](auto add) { for_each_patch_row(a, first, sizes, add); };
}

}  // namespace detail

/// Reads the box of `sizes` elements from `first` into `out`, row-major. Local; blocks until
/// out holds it; sees this image's own earlier writes. Throws, before anything moves,
/// out_of_range for a box leaving the array and usage_error for an `out` of another size.
template <class T, std::size_t N>
void get_patch(
    const ndarray<T, N>& a,
    const std::array<std::size_t, N>& first,
    const std::array<std::size_t, N>& sizes,
    std::type_identity_t<std::span<T>> out,
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in called("pgas::get_patch", where);
  detail::require_patch<N>("pgas::get_patch", a.tiles(), first, sizes, out.size());
  detail::read_elements(out, detail::patch_walk(a, first, sizes), nullptr);
}

/// Starts reading the box into out; the future is ready when out holds it. out must stay alive
/// and untouched until then. Local.
template <class T, std::size_t N>
[[nodiscard]] future<void> async_get_patch(
    const ndarray<T, N>& a,
    const std::array<std::size_t, N>& first,
    const std::array<std::size_t, N>& sizes,
    std::type_identity_t<std::span<T>> out,
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in called("pgas::async_get_patch", where);
  detail::require_patch<N>("pgas::async_get_patch", a.tiles(), first, sizes, out.size());
  return detail::future_of(a, [&](detail::started_transfers* started) {
    detail::read_elements(out, detail::patch_walk(a, first, sizes), started);
  });
}

/// Writes `in` (row-major) to the box of `sizes` elements from `first`. Local; returns once in
/// may be reused; complete at the next sync point. Throws as get_patch does.
template <class T, std::size_t N>
void put_patch(
    ndarray<T, N>& a,
    const std::array<std::size_t, N>& first,
    const std::array<std::size_t, N>& sizes,
    std::type_identity_t<std::span<const T>> in,
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in called("pgas::put_patch", where);
  detail::require_patch<N>("pgas::put_patch", a.tiles(), first, sizes, in.size());
  detail::write_elements(in, detail::patch_walk(a, first, sizes), nullptr);
}

/// Starts writing in to the box; the future is ready when in may be reused, which must not
/// happen before. Complete at the next sync point. Local.
template <class T, std::size_t N>
[[nodiscard]] future<void> async_put_patch(
    ndarray<T, N>& a,
    const std::array<std::size_t, N>& first,
    const std::array<std::size_t, N>& sizes,
    std::type_identity_t<std::span<const T>> in,
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in called("pgas::async_put_patch", where);
  detail::require_patch<N>("pgas::async_put_patch", a.tiles(), first, sizes, in.size());
  return detail::future_of(a, [&](detail::started_transfers* started) {
    detail::write_elements(in, detail::patch_walk(a, first, sizes), started);
  });
}

/// a(box) = a(box) op in, element by element, atomically per element with respect to other
/// accumulates. Local; returns once in may be reused; complete at the next sync point. Throws as
/// get_patch does, and usage_error for a bitwise or logical op on floating point.
template <class T, std::size_t N>
requires runtime::accumulable<T>
void accumulate_patch(
    ndarray<T, N>& a,
    const std::array<std::size_t, N>& first,
    const std::array<std::size_t, N>& sizes,
    std::type_identity_t<std::span<const T>> in,
    reduce_op op,
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in called("pgas::accumulate_patch", where);
  detail::require_patch<N>("pgas::accumulate_patch", a.tiles(), first, sizes, in.size());
  runtime::require_op_defined<T>(op);
  detail::accumulate_elements(in, detail::patch_walk(a, first, sizes), op);
}

/// Starts the accumulate; the future is ready when in may be reused. Local.
template <class T, std::size_t N>
requires runtime::accumulable<T>
[[nodiscard]] future<void> async_accumulate_patch(
    ndarray<T, N>& a,
    const std::array<std::size_t, N>& first,
    const std::array<std::size_t, N>& sizes,
    std::type_identity_t<std::span<const T>> in,
    reduce_op op,
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in called("pgas::async_accumulate_patch", where);
  detail::require_patch<N>("pgas::async_accumulate_patch", a.tiles(), first, sizes, in.size());
  runtime::require_op_defined<T>(op);
  return detail::future_of(a, [&](detail::started_transfers* started) {
    detail::accumulate_elements(in, detail::patch_walk(a, first, sizes), op, started);
  });
}

}  // namespace pgas
