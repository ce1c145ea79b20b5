#pragma once
// pgas::detail::store_row_values: a value per local row of a sparse matrix into a distributed
// array of the matrix's rows. Where the array's part on this image holds exactly these rows (the
// same layout: the usual case) they are copied in place; otherwise each goes to its owner (one
// scatter).

#include <pgas/transfers.hpp>

#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

namespace pgas::detail {

/// y[m.global_row(k)] = values[k] for every local row k of m. Local; complete at the next sync
/// point.
template <class Matrix, class Array, class V>
void store_row_values(const Matrix& m, Array& y, std::span<const V> values) {
  const auto mine = y.local();
  bool in_place = mine.size() == m.local_rows();
  for (std::size_t k = 0; in_place && k < mine.size(); ++k)
    in_place = y.global_index(k) == m.global_row(k);
  if (in_place) {
    std::copy(values.begin(), values.end(), mine.begin());
    return;
  }
  std::vector<std::size_t> rows(m.local_rows());
  for (std::size_t k = 0; k < rows.size(); ++k) rows[k] = m.global_row(k);
  scatter(y, std::span<const std::size_t>(rows), values);
}

}  // namespace pgas::detail
