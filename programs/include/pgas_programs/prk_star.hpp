#pragma once
// The Parallel Research Kernels star stencil on pgas::matrix, shared by the heat2d example and
// the stencil benchmark: input field, one sweep (out += star(in), then in += 1), and the local
// part of the L1 norm the PRK check uses.

#include <pgas/algorithms.hpp>

#include <cmath>
#include <cstddef>
#include <vector>

namespace prk {

/// weight[k] for offset k = 1..R along each axis; the -k side has -weight[k].
inline std::vector<double> star_weights(std::size_t radius) {
  std::vector<double> w(radius + 1, 0.0);
  for (std::size_t k = 1; k <= radius; ++k) w[k] = 1.0 / (2.0 * static_cast<double>(k * radius));
  return w;
}

/// in(i, j) = i + j on every point this image owns.
inline void fill_input(pgas::matrix<double>& in) {
  const auto tile = in.local();
  for (std::size_t i = 0; i < in.local_rows(); ++i) {
    double* row = tile.row(static_cast<std::ptrdiff_t>(i));
    for (std::size_t j = 0; j < in.cols(); ++j) row[j] = static_cast<double>(in.first_row() + i + j);
  }
}

/// One PRK iteration: out += star(in) over the interior (after a halo exchange), then in += 1.
/// Collective.
inline void sweep(pgas::matrix<double>& in, pgas::matrix<double>& out, std::size_t radius,
                  const std::vector<double>& w) {
  const auto r = static_cast<std::ptrdiff_t>(radius);
  // Captured by value: the kernel's loop keeps them in registers instead of reloading them
  // through references on every point.
  const double* weight = w.data();
  pgas::stencil_for_each(in, out, radius, [r, weight](const pgas::stencil_point<double>& c, double& o) {
    double s = 0;
    for (std::ptrdiff_t k = 1; k <= r; ++k) {
      const double wk = weight[k];
      s += wk * (c(0, k) - c(0, -k)) + wk * (c(k, 0) - c(-k, 0));
    }
    o += s;
  });
  const auto tile = in.local();
  for (std::size_t i = 0; i < in.local_rows(); ++i) {
    double* row = tile.row(static_cast<std::ptrdiff_t>(i));
    for (std::size_t j = 0; j < in.cols(); ++j) row[j] += 1.0;
  }
}

/// The sum of |out| over this image's interior points (at least `radius` from every edge).
inline double local_interior_l1(const pgas::matrix<double>& out, std::size_t radius) {
  const std::size_t n = out.rows();
  double s = 0;
  const auto tile = out.local();
  for (std::size_t i = 0; i < out.local_rows(); ++i) {
    const std::size_t g = out.first_row() + i;
    if (g < radius || g >= n - radius) continue;
    for (std::size_t j = radius; j < out.cols() - radius; ++j) {
      s += std::fabs(tile(static_cast<std::ptrdiff_t>(i), static_cast<std::ptrdiff_t>(j)));
    }
  }
  return s;
}

}  // namespace prk
