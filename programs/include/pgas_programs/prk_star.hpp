#pragma once
// The Parallel Research Kernels star stencil on pgas::ndarray<double, 2>, shared by the heat2d
// example and the stencil benchmark: input field, one sweep (out += star(in), then in += 1), and
// the local part of the L1 norm the PRK check uses.

#include <pgas/algorithms.hpp>

#include <cmath>
#include <cstddef>
#include <type_traits>
#include <vector>

namespace prk {

/// weight[k] for offset k = 1..R along each axis; the -k side has -weight[k].
inline std::vector<double> star_weights(std::size_t radius) {
  std::vector<double> w(radius + 1, 0.0);
  for (std::size_t k = 1; k <= radius; ++k) w[k] = 1.0 / (2.0 * static_cast<double>(k * radius));
  return w;
}

/// Calls body(r) with the stencil radius r as a compile-time constant (a
/// std::integral_constant<std::ptrdiff_t, R>) for radii 1 to 4, as PRK's kernels fix RADIUS
/// when they are built (so the compiler unrolls the loop over the radius and vectorises along
/// the row), and as a plain std::ptrdiff_t for any other radius.
template <class Body>
decltype(auto) with_radius(std::size_t radius, Body&& body) {
  switch (radius) {
    case 1:
      return body(std::integral_constant<std::ptrdiff_t, 1>{});
    case 2:
      return body(std::integral_constant<std::ptrdiff_t, 2>{});
    case 3:
      return body(std::integral_constant<std::ptrdiff_t, 3>{});
    case 4:
      return body(std::integral_constant<std::ptrdiff_t, 4>{});
    default:
      return body(static_cast<std::ptrdiff_t>(radius));
  }
}

/// PRK's second step, in += 1, over `rows` rows of `cols` values whose starts are `stride`
/// apart. One out-of-line function that every implementation of the kernel calls (the
/// benchmark's hand-written ones too): where the compiler placed this short loop inside each
/// caller, its alignment against the 64-byte line moved the pgas variant's sweep by some 6 %
/// from one build to the next, so a comparison measured the layout; shared, the loop is the
/// same machine code on both sides.
[[gnu::noinline]] inline void add_one_to_block(double* first,
                                               std::size_t rows,
                                               std::size_t cols,
                                               std::size_t stride) {
  for (std::size_t i = 0; i < rows; ++i) {
    double* row = first + i * stride;
    for (std::size_t j = 0; j < cols; ++j) row[j] += 1.0;
  }
}

/// in(i, j) = i + j on every point this image owns.
inline void fill_input(pgas::ndarray<double, 2>& in) {
  const auto tile = in.local();
  const auto o = in.local_origin();
  for (std::size_t i = 0; i < tile.extent(0); ++i) {
    double* row = &tile(i, 0);
    for (std::size_t j = 0; j < tile.extent(1); ++j)
      row[j] = static_cast<double>(o[0] + i + o[1] + j);
  }
}

/// One PRK iteration: out += star(in) over the interior (the halo exchange overlapped with the
/// tile's inner points), then in += 1. Collective.
inline void sweep(pgas::ndarray<double, 2>& in,
                  pgas::ndarray<double, 2>& out,
                  std::size_t radius,
                  const std::vector<double>& w) {
  // Captured by value: the kernel's loop keeps them in registers instead of reloading them
  // through references on every point.
  const double* weight = w.data();
  with_radius(radius, [&](auto r) {
    pgas::stencil_for_each(in, out, radius,
                           [r, weight](const pgas::stencil_point<double>& c, double& o) {
                             double s = 0;
                             for (std::ptrdiff_t k = 1; k <= r; ++k) {
                               const double wk = weight[k];
                               s += wk * (c(0, k) - c(0, -k)) + wk * (c(k, 0) - c(-k, 0));
                             }
                             o += s;
                           });
  });
  const auto tile = in.local();
  add_one_to_block(tile.data(), tile.extent(0), tile.extent(1), tile.stride(0));
}

/// The sum of |out| over this image's interior points (at least `radius` from every edge).
inline double local_interior_l1(const pgas::ndarray<double, 2>& out, std::size_t radius) {
  const auto tile = out.local();
  const auto o = out.local_origin();
  const std::size_t n0 = out.extent(0);
  const std::size_t n1 = out.extent(1);
  double s = 0;
  for (std::size_t i = 0; i < tile.extent(0); ++i) {
    const std::size_t gi = o[0] + i;
    if (gi < radius || gi + radius >= n0)
      continue;
    for (std::size_t j = 0; j < tile.extent(1); ++j) {
      const std::size_t gj = o[1] + j;
      if (gj < radius || gj + radius >= n1)
        continue;
      s += std::fabs(tile(i, j));
    }
  }
  return s;
}

}  // namespace prk
