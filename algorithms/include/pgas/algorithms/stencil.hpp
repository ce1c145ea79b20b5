#pragma once
// pgas::stencil_for_each: a halo exchange, then a user kernel over every interior point.

#include <pgas/matrix.hpp>
#include <pgas/runtime/error.hpp>

#include <cstddef>
#include <string>
#include <utility>

namespace pgas {

/// One point of a stencil sweep: p(di, dj) reads the input at offset (di, dj), ghosts included.
template <class T>
class stencil_point {
 public:
  /// `row_start` is column 0 of the point's row: the column is worked out from it only when
  /// asked, so a sweep's loop carries one pointer per point, not a column counter too.
  stencil_point(const T* centre, std::ptrdiff_t stride, std::size_t row, const T* row_start) noexcept
      : centre_{centre}, row_start_{row_start}, stride_{stride}, row_{row} {}
  [[nodiscard]] const T& operator()(std::ptrdiff_t di, std::ptrdiff_t dj) const noexcept {
    return centre_[di * stride_ + dj];
  }
  /// The point's global row and column. Local.
  [[nodiscard]] std::size_t row() const noexcept { return row_; }
  [[nodiscard]] std::size_t col() const noexcept { return static_cast<std::size_t>(centre_ - row_start_); }

 private:
  const T* centre_;
  const T* row_start_;
  std::ptrdiff_t stride_;
  std::size_t row_;
};

/// Fills in's ghost cells from the neighbours, then calls f(point, out(i, j)) for every point
/// this image owns that lies at least `radius` from the matrix edge (every point, for a
/// periodic matrix); f reads the input around the point and updates the output element.
/// Collective (the halo exchange); the writes to out are local. Throws usage_error on every
/// image if the shapes differ or the halo is narrower than the radius. f is called once per
/// point: let it capture small values (radius, a weights pointer) by value, so the loop keeps
/// them in registers rather than reloading them through references.
template <class T, class F>
void stencil_for_each(matrix<T>& in, matrix<T>& out, std::size_t radius, F f) {
  if (in.rows() != out.rows() || in.cols() != out.cols()) {
    throw usage_error("stencil_for_each: the input and output matrices differ in shape");
  }
  if (in.halo() < radius) {
    throw usage_error("stencil_for_each: the input's halo (" + std::to_string(in.halo()) +
                      ") is narrower than the stencil radius (" + std::to_string(radius) + ")");
  }
  in.exchange_halo();
  const bool periodic = in.edges() == boundary::periodic;
  const std::size_t lo = periodic ? 0 : radius;
  const std::size_t row_hi = periodic ? in.rows() : (in.rows() > radius ? in.rows() - radius : 0);
  const std::size_t col_hi = periodic ? in.cols() : (in.cols() > radius ? in.cols() - radius : 0);
  const std::size_t first = in.first_row();
  const auto stride = static_cast<std::ptrdiff_t>(in.stride());
  const tile_view<const T> from = std::as_const(in).local();
  const tile_view<T> to = out.local();
  for (std::size_t i = 0; i < in.local_rows(); ++i) {
    const std::size_t g = first + i;
    if (g < lo || g >= row_hi) continue;
    const T* in_row = from.row(static_cast<std::ptrdiff_t>(i));
    T* out_row = to.row(static_cast<std::ptrdiff_t>(i));
    // Pointers, not an index: the loop keeps few values live, so the kernel's stay in registers.
    const T* centre = in_row + lo;
    for (T* o = out_row + lo; o < out_row + col_hi; ++o, ++centre) {
      f(stencil_point<T>(centre, stride, g, in_row), *o);
    }
  }
}

}  // namespace pgas
