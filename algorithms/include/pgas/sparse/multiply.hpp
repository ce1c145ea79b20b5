#pragma once
// pgas::multiply: y = m·x for a sparse matrix and distributed vectors of any distributions.
// Each image reads the x values its rows' columns name (one gather: a request per owner),
// computes its rows, and stores them (store_row_values: in place where y's part holds them). Work
// per image is its share of the non-zeros.

#include <pgas/sparse/column_values.hpp>
#include <pgas/sparse/row_values.hpp>
#include <pgas/sparse/sparse_matrix.hpp>
#include <pgas/transfers.hpp>

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace pgas {

/// y = m·x. `x` holds m.cols() elements, `y` m.rows() (pgas::array<T>, any distribution).
/// Collective over m's team; x must be complete (written before a sync point); y is complete
/// on every image when it returns (it ends with a sync point of m's team). usage_error on every
/// image for vectors of other lengths.
template <class T, distribution Dist, class X, class Y>
void multiply(const sparse_matrix<T, Dist>& m, const X& x, Y& y) {
  if (x.size() != m.cols() || y.size() != m.rows()) {
    throw usage_error("pgas::multiply: a " + std::to_string(m.rows()) + " x " +
                      std::to_string(m.cols()) + " matrix needs x of " + std::to_string(m.cols()) +
                      " elements and y of " + std::to_string(m.rows()) + "; got " +
                      std::to_string(x.size()) + " and " + std::to_string(y.size()));
  }
  // The x values this image's rows name, each read once.
  const detail::column_values<T> x_at(m, x);
  // This image's rows of y.
  const std::size_t rows = m.local_rows();
  std::vector<T> sums(rows);
  x_at.with_lookup([&](const auto& x_of) {
    for (std::size_t k = 0; k < rows; ++k) {
      const auto r = m.row(k);
      T sum{};
      for (std::size_t j = 0; j < r.cols.size(); ++j)
        sum = static_cast<T>(sum + r.values[j] * x_of(r.cols[j]));
      sums[k] = sum;
    }
  });
  detail::store_row_values(m, y, std::span<const T>(sums));
  runtime::sync_all(m.team().native());
}

}  // namespace pgas
