#pragma once
// pgas::transpose of a sparse matrix (bale's transpose_matrix): every non-zero (r, c) becomes
// (c, r) and travels to its new row's owner through the owner-side engine, as the matrix's
// construction sends any entries. One image's work is its share of the non-zeros.

#include <pgas/sparse/sparse_matrix.hpp>

#include <cstddef>
#include <span>
#include <vector>

namespace pgas {

/// The transpose of m: a cols() x rows() matrix over m's team, rows laid out by m's kind of
/// distribution. Collective over m's team.
template <class T, distribution Dist>
[[nodiscard]] sparse_matrix<T, Dist> transpose(const sparse_matrix<T, Dist>& m) {
  std::vector<entry<T>> flipped;
  flipped.reserve(m.local_nnz());
  for (std::size_t k = 0; k < m.local_rows(); ++k) {
    const std::size_t r = m.global_row(k);
    const auto row = m.row(k);
    for (std::size_t j = 0; j < row.cols.size(); ++j)
      flipped.push_back({row.cols[j], r, row.values[j]});
  }
  return sparse_matrix<T, Dist>(m.team(), m.cols(), m.rows(), std::span<const entry<T>>(flipped),
                                m.distribution());
}

}  // namespace pgas
