#pragma once
// pgas::stencil_for_each: a user kernel over every interior point of a 2-D array, computed
// while the halo exchange is in flight where the kernel needs no ghost cell.

#include <pgas/detail/wire.hpp>
#include <pgas/halo_exchange.hpp>
#include <pgas/matrix.hpp>
#include <pgas/ndarray.hpp>
#include <pgas/runtime/error.hpp>

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>

namespace pgas {

/// One point of a stencil sweep: p(di, dj) reads the input at offset (di, dj), ghosts included.
template <class T>
class stencil_point {
 public:
  /// `row_start` is the point's row at the tile's first column, global column `first_col`: the
  /// column is worked out from them only when asked, so a sweep's loop carries one pointer per
  /// point, not a column counter too.
  stencil_point(const T* centre,
                std::ptrdiff_t stride,
                std::size_t row,
                const T* row_start,
                std::size_t first_col = 0) noexcept
      : centre_{centre}, row_start_{row_start}, stride_{stride}, row_{row}, first_col_{first_col} {}
  [[nodiscard]] const T& operator()(std::ptrdiff_t di, std::ptrdiff_t dj) const noexcept {
    return centre_[di * stride_ + dj];
  }
  /// The point's global row and column. Local.
  [[nodiscard]] std::size_t row() const noexcept { return row_; }
  [[nodiscard]] std::size_t col() const noexcept {
    return first_col_ + static_cast<std::size_t>(centre_ - row_start_);
  }

 private:
  const T* centre_;
  const T* row_start_;
  std::ptrdiff_t stride_;
  std::size_t row_;
  std::size_t first_col_;
};

namespace detail::wire {
// Points into this image's tile: it cannot travel in a remote call.
template <class T>
inline constexpr bool refers_to_memory_here<stencil_point<T>> = true;
}  // namespace detail::wire

namespace detail {

// How many interior points stencil_for_each computes between two tests of the halo exchange:
// a test costs about a microsecond, this many points of a small stencil some tens.
inline constexpr std::size_t stencil_points_per_test = 16384;

// Calls f(point, out element) for the tile-local points [r0, r1) x [c0, c1). f by value: a
// local copy's captures stay in registers through the loop. Out of line: inlined into a large
// caller (a program's main), GCC 12 kept the caller's values in registers and spilled a row
// pointer and a vector to the stack on every iteration of the point loop.
template <class T, class F>
[[gnu::noinline]] void sweep_block(const ndarray_view<const T, 2>& from,
                                   const ndarray_view<T, 2>& to,
                                   std::size_t first_row,
                                   std::size_t first_col,
                                   std::size_t r0,
                                   std::size_t r1,
                                   std::size_t c0,
                                   std::size_t c1,
                                   F f) {
  if (c0 >= c1)
    return;
  const auto stride = static_cast<std::ptrdiff_t>(from.stride(0));
  for (std::size_t i = r0; i < r1; ++i) {
    const auto li = static_cast<std::ptrdiff_t>(i);
    const T* in_row = &from(li, 0);
    T* out_row = &to(li, 0);
    // Pointers, not an index: the loop keeps few values live, so the kernel's stay in registers.
    const T* centre = in_row + c0;
    for (T* o = out_row + c0; o < out_row + c1; ++o, ++centre) {
      f(stencil_point<T>(centre, stride, first_row + i, in_row, first_col), *o);
    }
  }
}

}  // namespace detail

/// Fills in's ghost cells from the neighbours, and calls f(point, out(i, j)) for every point
/// this image owns that lies at least `radius` from the array's edge (every point, when
/// periodic); f reads the input around the point, at most the input's halo away, and updates
/// the output element. The halo exchange is split: points at least the halo away from the
/// tile's sides are computed while the ghosts are in flight, the rest after they arrive (the
/// points are visited in no fixed order). Collective (the halo exchange);
/// the writes to out are local. Throws usage_error on every image if the shapes or grids differ
/// or the halo is narrower than the radius. f is called once per point: let it capture small
/// values (radius, a weights pointer) by value, so the loop keeps them in registers rather than
/// reloading them through references.
template <class T, class F>
void stencil_for_each(ndarray<T, 2>& in, ndarray<T, 2>& out, std::size_t radius, F f) {
  if (in.extents() != out.extents() || !(in.grid() == out.grid())) {
    throw usage_error("stencil_for_each: the input and output arrays differ in shape or grid");
  }
  if (in.halo(0) < radius || in.halo(1) < radius) {
    throw usage_error("stencil_for_each: the input's halo (" +
                      std::to_string(std::min(in.halo(0), in.halo(1))) +
                      ") is narrower than the stencil radius (" + std::to_string(radius) + ")");
  }
  halo_exchange ghosts = in.exchange_halo_begin();
  const ndarray_view<const T, 2> from = std::as_const(in).local();
  const ndarray_view<T, 2> to = out.local();
  const auto origin = in.local_origin();
  // The points to compute, as tile-local bounds: at least radius from the array's edge.
  const bool periodic = in.edges() == boundary::periodic;
  std::size_t lo[2];
  std::size_t hi[2];
  for (std::size_t d = 0; d < 2; ++d) {
    const std::size_t n = in.extent(d);
    const std::size_t g_lo = periodic ? 0 : radius;
    const std::size_t g_hi = periodic ? n : (n > radius ? n - radius : 0);
    const std::size_t first = origin[d];
    const std::size_t last = first + from.extent(d);
    lo[d] = std::clamp(g_lo, first, last) - first;
    hi[d] = std::clamp(g_hi, first, last) - first;
    if (hi[d] < lo[d])
      hi[d] = lo[d];
  }
  // The interior: points that read no ghost cell. The kernel may read as far as the halo
  // reaches (radius only says how far from the array's edge points start), so the interior
  // keeps the halo's width from the tile's sides: lo <= in_lo <= in_hi <= hi.
  std::size_t in_lo[2];
  std::size_t in_hi[2];
  for (std::size_t d = 0; d < 2; ++d) {
    const std::size_t reach = in.halo(d);
    in_lo[d] = std::clamp(reach, lo[d], hi[d]);
    in_hi[d] = std::clamp(from.extent(d) > reach ? from.extent(d) - reach : 0, in_lo[d], hi[d]);
  }
  const auto block = [&](std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1) {
    detail::sweep_block(from, to, origin[0], origin[1], r0, r1, c0, c1, f);
  };
  // Interior rows in blocks, asking after each whether the ghosts have arrived. Once they have,
  // the rest of the tile goes row by row, sides and interior in one pass: a separate pass down
  // the side columns would miss the cache on every row, which costs more than the exchange
  // when the neighbours share the node. The rows done before then get their sides last.
  const std::size_t inner_width = std::max<std::size_t>(1, in_hi[1] - in_lo[1]);
  const std::size_t rows_per_test =
      std::max<std::size_t>(1, detail::stencil_points_per_test / inner_width);
  std::size_t row = in_lo[0];
  while (row < in_hi[0]) {
    const std::size_t end = std::min(in_hi[0], row + rows_per_test);
    block(row, end, in_lo[1], in_hi[1]);
    row = end;
    if (ghosts.test())
      break;
  }
  ghosts.wait();
  block(lo[0], in_lo[0], lo[1], hi[1]);
  block(row, hi[0], lo[1], hi[1]);
  block(in_lo[0], row, lo[1], in_lo[1]);
  block(in_lo[0], row, in_hi[1], hi[1]);
}

}  // namespace pgas
