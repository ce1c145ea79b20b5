#pragma once
// pgas::multiply: y = m·x for a sparse matrix and distributed vectors of any distributions.
// Each image reads the x values its rows' columns name (one gather: a request per owner),
// computes its rows, and writes them into its part of y where that part holds the same rows,
// or to y's owners (one scatter) otherwise. Work per image is its share
// of the non-zeros.

#include <pgas/sparse/column_values.hpp>
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
  // This image's rows of y: written in place where y's part here holds exactly them (the
  // same layout as the rows), sent to their owners otherwise.
  const auto mine = y.local();
  bool in_place = mine.size() == m.local_rows();
  for (std::size_t k = 0; in_place && k < mine.size(); ++k)
    in_place = y.global_index(k) == m.global_row(k);
  std::vector<T> sums(in_place ? 0 : m.local_rows());
  for (std::size_t k = 0; k < m.local_rows(); ++k) {
    const auto r = m.row(k);
    T sum{};
    for (std::size_t j = 0; j < r.cols.size(); ++j)
      sum = static_cast<T>(sum + r.values[j] * x_at[r.cols[j]]);
    (in_place ? mine[k] : sums[k]) = sum;
  }
  if (!in_place) {
    std::vector<std::size_t> rows(m.local_rows());
    for (std::size_t k = 0; k < rows.size(); ++k) rows[k] = m.global_row(k);
    scatter(y, std::span<const std::size_t>(rows), std::span<const T>(sums));
  }
  runtime::sync_all(m.team().native());
}

}  // namespace pgas
