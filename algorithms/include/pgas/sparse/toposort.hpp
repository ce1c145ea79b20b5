#pragma once
// pgas::toposort (bale's topo): row and column permutations that make a permuted upper
// triangular matrix upper triangular again. A row left with one non-zero is a pivot: it and its
// column take the last free position, and the column is struck from every other row. Each row
// keeps its count of non-zeros and the sum of their columns, so the one left is known without a
// search. Pivots are taken in rounds: every image's pivots at once (positions from a prefix sum
// of the counts), their columns handed to the columns' owners (who know the columns' rows from
// the transpose), and each struck entry handed to its row's owner — batches through the engine.

#include <pgas/array.hpp>
#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/sparse/owner_batches.hpp>
#include <pgas/sparse/random_permutation.hpp>
#include <pgas/sparse/sparse_matrix.hpp>
#include <pgas/sparse/transpose.hpp>
#include <pgas/transfers.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace pgas {

namespace detail {

struct placed_column {
  std::size_t col;
  std::size_t position;
};
struct struck_entry {
  std::size_t row;
  std::size_t col;
};

template <class Dist>
struct topo_columns {
  Dist cols;                            // the transpose's distribution: who owns a column
  std::vector<unsigned char> placed;    // of this image's columns
  std::vector<std::size_t> placed_now;  // local columns placed in this round
  std::vector<std::size_t> index;       // (col, position) pairs for cperm, flattened
  std::vector<std::size_t> position;
  bool repeated = false;  // two pivots claimed one column
};
template <class Dist>
void place_columns(topo_columns<Dist>& s, std::size_t, std::span<const placed_column> got) {
  for (const placed_column& p : got) {
    const std::size_t k = s.cols.local_offset(p.col);
    if (s.placed[k] != 0) {
      s.repeated = true;
      continue;
    }
    s.placed[k] = 1;
    s.placed_now.push_back(k);
    s.index.push_back(p.col);
    s.position.push_back(p.position);
  }
}

template <class Dist>
struct topo_rows {
  Dist rows;
  std::vector<std::size_t> count;      // non-zeros left in each local row
  std::vector<std::uint64_t> col_sum;  // the sum of their columns
};
template <class Dist>
void strike(topo_rows<Dist>& s, std::size_t, std::span<const struck_entry> got) {
  for (const struck_entry& e : got) {
    const std::size_t k = s.rows.local_offset(e.row);
    --s.count[k];
    s.col_sum[k] -= e.col;
  }
}

// toposort's rounds, given m (square) and its transpose.
template <class T, distribution Dist>
[[nodiscard]] std::pair<pgas::array<std::size_t>, pgas::array<std::size_t>> toposort_rounds(
    const sparse_matrix<T, Dist>& m, const sparse_matrix<T, Dist>& by_column) {
  const std::size_t n = m.rows();
  const MPI_Comm comm = m.team().native();
  detail::topo_rows<Dist> rows{m.distribution(), {}, {}};
  for (std::size_t k = 0; k < m.local_rows(); ++k) {
    const auto r = m.row(k);
    rows.count.push_back(r.cols.size());
    std::uint64_t sum = 0;
    for (const std::size_t c : r.cols) sum += c;
    rows.col_sum.push_back(sum);
  }
  detail::topo_columns<Dist> cols{by_column.distribution(),
                                  std::vector<unsigned char>(by_column.local_rows(), 0),
                                  {},
                                  {},
                                  {},
                                  false};
  std::vector<unsigned char> row_placed(m.local_rows(), 0);
  std::vector<std::size_t> rperm_index, rperm_position;
  std::size_t placed = 0;  // on every image
  {
    detail::batches_to_owners<detail::placed_column, detail::topo_columns<Dist>,
                              &detail::place_columns<Dist>>
        to_columns(m.team(), cols);
    detail::batches_to_owners<detail::struck_entry, detail::topo_rows<Dist>, &detail::strike<Dist>>
        to_rows(m.team(), rows);
    std::vector<std::size_t> pivots;
    while (placed < n) {
      pivots.clear();
      for (std::size_t k = 0; k < row_placed.size(); ++k) {
        if (row_placed[k] == 0 && rows.count[k] == 1)
          pivots.push_back(k);
      }
      const auto mine = static_cast<unsigned long long>(pivots.size());
      const auto all = runtime::allreduce(mine, runtime::reduce_op::sum, comm);
      if (all == 0) {
        throw usage_error("pgas::toposort: no row and column permutation makes this " +
                          std::to_string(n) + " x " + std::to_string(n) +
                          " matrix upper triangular with a full diagonal (" +
                          std::to_string(n - placed) + " rows are left that cannot be ordered)");
      }
      const auto before = runtime::exclusive_prefix(mine, runtime::reduce_op::sum, 0ULL, comm);
      // This round's positions, from the last free one down.
      std::size_t position = n - 1 - placed - static_cast<std::size_t>(before);
      for (const std::size_t k : pivots) {
        row_placed[k] = 1;
        rperm_index.push_back(m.global_row(k));
        rperm_position.push_back(position);
        const auto col = static_cast<std::size_t>(rows.col_sum[k]);
        to_columns.push(by_column.owner(col), {col, position});
        --position;
      }
      placed += static_cast<std::size_t>(all);
      to_columns.deliver();
      if (runtime::allreduce(static_cast<int>(cols.repeated), runtime::reduce_op::max, comm) != 0) {
        throw usage_error(
            "pgas::toposort: no row and column permutation makes this matrix upper triangular "
            "with a full diagonal (two rows are left with only the same column)");
      }
      // Strike the placed columns from their rows.
      for (const std::size_t c : cols.placed_now) {
        const std::size_t col = by_column.global_row(c);
        for (const std::size_t r : by_column.row(c).cols) to_rows.push(m.owner(r), {r, col});
      }
      cols.placed_now.clear();
      to_rows.deliver();
    }
  }
  pgas::array<std::size_t> rperm(m.team(), n);
  pgas::array<std::size_t> cperm(m.team(), n);
  scatter(rperm, std::span<const std::size_t>(rperm_index),
          std::span<const std::size_t>(rperm_position));
  scatter(cperm, std::span<const std::size_t>(cols.index),
          std::span<const std::size_t>(cols.position));
  rperm.sync();
  return {std::move(rperm), std::move(cperm)};
}

}  // namespace detail

/// Permutations (rperm, cperm) such that permute(m, rperm, cperm) is upper triangular with every
/// diagonal entry stored, for m (square) a row and column permutation of such a matrix; both
/// block distributed over m's team. usage_error on every image for a matrix that is not square
/// or that no permutation makes so. Collective over m's team.
template <class T, distribution Dist>
[[nodiscard]] std::pair<pgas::array<std::size_t>, pgas::array<std::size_t>> toposort(
    const sparse_matrix<T, Dist>& m) {
  detail::require_square("pgas::toposort", "the matrix", m);
  return detail::toposort_rounds(m, transpose(m));
}

/// The same, given m's transpose (as bale's topo is): the kernel then makes none. usage_error
/// on every image if `by_column` is not transpose(m) (its shape, layout or entries' places
/// differ: checked by a digest of the places, one pass and one sum).
template <class T, distribution Dist>
[[nodiscard]] std::pair<pgas::array<std::size_t>, pgas::array<std::size_t>> toposort(
    const sparse_matrix<T, Dist>& m, const sparse_matrix<T, Dist>& by_column) {
  detail::require_square("pgas::toposort", "the matrix", m);
  if (by_column.rows() != m.cols() || by_column.cols() != m.rows() ||
      by_column.team().size() != m.team().size() || by_column.nnz() != m.nnz() ||
      !detail::digests_agree(detail::local_places_digest(m, false),
                             detail::local_places_digest(by_column, true), m.team())) {
    throw usage_error("pgas::toposort: the second matrix must be the first one's transpose");
  }
  return detail::toposort_rounds(m, by_column);
}

}  // namespace pgas
