#pragma once
// pgas::permute (bale's permute_matrix): out(rperm[i], cperm[j]) = m(i, j). Each image reads the
// rperm values of its rows and the cperm values of the columns they name (one gather each), and
// its non-zeros travel to their new rows' owners through the engine, as any construction's do.
// Both permutations are checked first (one batch per owner each).

#include <pgas/sparse/column_values.hpp>
#include <pgas/sparse/permutation_check.hpp>
#include <pgas/sparse/sparse_matrix.hpp>
#include <pgas/transfers.hpp>

#include <cstddef>
#include <span>
#include <vector>

namespace pgas {

/// The matrix with out(rperm[i], cperm[j]) = m(i, j), over m's team and kind of distribution.
/// `rperm` and `cperm` are pgas::arrays of std::size_t (any distribution, m's team) holding
/// permutations of 0..rows()-1 and 0..cols()-1, complete (written before a sync point).
/// usage_error on every image if either is not. Collective over m's team.
template <class T, distribution Dist, class RowPerm, class ColPerm>
[[nodiscard]] sparse_matrix<T, Dist> permute(const sparse_matrix<T, Dist>& m,
                                             const RowPerm& rperm,
                                             const ColPerm& cperm) {
  detail::require_permutation(m.team(), rperm, m.rows(), "pgas::permute: rperm");
  detail::require_permutation(m.team(), cperm, m.cols(), "pgas::permute: cperm");
  std::vector<std::size_t> rows(m.local_rows());
  for (std::size_t k = 0; k < rows.size(); ++k) rows[k] = m.global_row(k);
  std::vector<std::size_t> new_rows(rows.size());
  gather(rperm, std::span<const std::size_t>(rows), std::span<std::size_t>(new_rows));
  const detail::column_values<std::size_t> new_col(m, cperm);
  std::vector<entry<T>> moved;
  moved.reserve(m.local_nnz());
  for (std::size_t k = 0; k < m.local_rows(); ++k) {
    const auto r = m.row(k);
    for (std::size_t j = 0; j < r.cols.size(); ++j)
      moved.push_back({new_rows[k], new_col[r.cols[j]], r.values[j]});
  }
  return sparse_matrix<T, Dist>(m.team(), m.rows(), m.cols(), std::span<const entry<T>>(moved),
                                m.distribution());
}

}  // namespace pgas
