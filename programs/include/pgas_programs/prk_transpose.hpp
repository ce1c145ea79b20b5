#pragma once
// The Parallel Research Kernels' Transpose on pgas, shared by the transpose example and its
// benchmark: A(i, j) = order * i + j; each iteration B += Aᵀ, then A += 1 (each image on its own
// tile). After E iterations B(i, j) = (order * j + i) * E + E (E - 1) / 2, which PRK checks as a
// summed absolute error below 1e-8.

#include <pgas/algorithms.hpp>

#include <cmath>
#include <cstddef>

namespace prk {

class transpose {
 public:
  /// Collective. Both matrices order x order on grid g (default: as square as the images allow).
  transpose(std::size_t order, const pgas::grid<2>& g)
      : order_{order}, a_({order, order}, g), b_({order, order}, g, 0, pgas::boundary::fixed, 0.0) {
    const auto v = a_.local();
    const auto o = a_.local_origin();
    for (std::size_t i = 0; i < v.extent(0); ++i) {
      double* row = &v(i, 0);
      for (std::size_t j = 0; j < v.extent(1); ++j)
        row[j] = static_cast<double>(order_ * (o[0] + i) + o[1] + j);
    }
    pgas::sync_all();
  }

  /// One PRK iteration: B += Aᵀ, then A += 1. Collective.
  void iterate() {
    pgas::transpose(b_, a_, pgas::reduce_op::sum);
    const auto v = a_.local();
    for (std::size_t i = 0; i < v.extent(0); ++i) {
      double* row = &v(i, 0);
      for (std::size_t j = 0; j < v.extent(1); ++j) row[j] += 1.0;
    }
    ++done_;
  }

  /// PRK's summed absolute error of B after the iterations done so far. Collective.
  [[nodiscard]] double error() const {
    const auto v = b_.local();
    const auto o = b_.local_origin();
    const auto e = static_cast<double>(done_);
    const double added = e * (e - 1) / 2;
    double sum = 0;
    for (std::size_t i = 0; i < v.extent(0); ++i) {
      for (std::size_t j = 0; j < v.extent(1); ++j) {
        const double want = static_cast<double>(order_ * (o[1] + j) + o[0] + i) * e + added;
        sum += std::fabs(v(i, j) - want);
      }
    }
    return pgas::co_sum(sum);
  }
  /// PRK's tolerance.
  static constexpr double epsilon = 1e-8;
  [[nodiscard]] const pgas::grid<2>& grid() const { return a_.grid(); }
  /// Bytes PRK counts per iteration: both matrices.
  [[nodiscard]] double bytes() const {
    return 2.0 * sizeof(double) * static_cast<double>(order_ * order_);
  }

 private:
  std::size_t order_;
  pgas::ndarray<double, 2> a_;
  pgas::ndarray<double, 2> b_;
  std::size_t done_ = 0;
};

}  // namespace prk
