// pgas::sparse_matrix, pgas::multiply and pgas::random_permutation against serial computations
// every image makes alike: matrices of every shape (empty rows, images without rows, one
// row), entries for any rows on any image with repeats, over block, cyclic and block-cyclic
// rows.
#include <pgas/sparse.hpp>

#include <gtest/gtest.h>

#include "sparse_support.hpp"
#include "support.hpp"
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

namespace {

using namespace sparse_support;

template <class Dist>
class SparseMatrix : public ::testing::Test {};
TYPED_TEST_SUITE(SparseMatrix, pgas_test::Distributions);

TYPED_TEST(SparseMatrix, rows_hold_every_images_entries_summed_and_sorted) {
  // Entries travel with 32-bit indices where the shape allows, with full ones otherwise: both.
  for (const std::size_t limit : {std::size_t{UINT32_MAX}, std::size_t{0}})
    for (const shape& s : shapes) {
      pgas::detail::testing::compact_index_limit = limit;
      const auto m = matrix_of<TypeParam>(s);
      const auto want = serial_matrix(s.rows, s.cols, s.per_image);
      EXPECT_EQ(m.rows(), s.rows);
      EXPECT_EQ(m.cols(), s.cols);
      EXPECT_EQ(m.nnz(), want.size());
      std::size_t seen = 0;
      for (std::size_t k = 0; k < m.local_rows(); ++k) {
        const std::size_t r = m.global_row(k);
        EXPECT_EQ(m.owner(r), me());
        const auto row = m.row(k);
        ASSERT_EQ(row.cols.size(), row.values.size());
        EXPECT_TRUE(std::is_sorted(row.cols.begin(), row.cols.end()));
        for (std::size_t j = 0; j < row.cols.size(); ++j) {
          const auto it = want.find({r, row.cols[j]});
          ASSERT_NE(it, want.end()) << "row " << r << " col " << row.cols[j];
          EXPECT_EQ(row.values[j], it->second);
        }
        const auto from = want.lower_bound({r, 0});
        const auto to = want.lower_bound({r + 1, 0});
        EXPECT_EQ(static_cast<std::ptrdiff_t>(row.cols.size()), std::distance(from, to));
        seen += row.cols.size();
      }
      EXPECT_EQ(seen, m.local_nnz());
      EXPECT_EQ(pgas::co_sum(seen), want.size());
    }
  pgas::detail::testing::compact_index_limit = UINT32_MAX;
}

TYPED_TEST(SparseMatrix, multiply_matches_a_serial_product) {
  for (const shape& s : shapes) {
    const auto m = matrix_of<TypeParam>(s);
    pgas::array<double, pgas::cyclic> x(s.cols);  // another distribution than the rows'
    for (std::size_t k = 0; k < x.local().size(); ++k)
      x.local()[k] = static_cast<double>(x.global_index(k) % 7) - 3.0;
    pgas::array<double> y(s.rows);
    pgas::sync_all();
    pgas::multiply(m, x, y);
    std::vector<double> want(s.rows, 0.0);
    for (const auto& [at, v] : serial_matrix(s.rows, s.cols, s.per_image))
      want[at.first] += v * (static_cast<double>(at.second % 7) - 3.0);
    for (std::size_t k = 0; k < y.local().size(); ++k)
      EXPECT_EQ(y.local()[k], want[y.global_index(k)]) << "row " << y.global_index(k);
    pgas::sync_all();
  }
}

TEST(SparseMatrixErrors, an_entry_outside_on_one_image_is_refused_everywhere) {
  std::vector<pgas::entry<double>> mine{{0, 0, 1.0}};
  if (me() == images() - 1)
    mine.push_back({4, 0, 1.0});  // past the 4 rows
  EXPECT_THROW((pgas::sparse_matrix<double>(4, 4, std::span<const pgas::entry<double>>(mine))),
               pgas::out_of_range);
  const std::size_t rows = me() == 0 ? 4 : 5;
  if (images() > 1) {
    EXPECT_THROW((pgas::sparse_matrix<double>(rows, 4, std::span<const pgas::entry<double>>())),
                 pgas::usage_error);
  }
  pgas::sparse_matrix<double> m(4, 4, std::span<const pgas::entry<double>>());
  pgas::array<double> x(3);
  pgas::array<double> y(4);
  EXPECT_THROW(pgas::multiply(m, x, y), pgas::usage_error);
  EXPECT_THROW((void)m.owner(4), pgas::out_of_range);
  EXPECT_THROW((void)m.row(m.local_rows()), pgas::out_of_range);
  EXPECT_THROW((void)m.global_row(m.local_rows()), pgas::out_of_range);
  pgas::sync_all();
}

TEST(RandomPermutation, holds_every_index_once_and_depends_on_the_seed_alone) {
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{1000}}) {
    const pgas::array<std::size_t> p = pgas::random_permutation(n, 42);
    std::vector<std::size_t> all(n);
    pgas::get(p, 0, std::span<std::size_t>(all));
    // The same algorithm on one image, here: what every image count must give.
    std::vector<std::pair<std::uint64_t, std::size_t>> keyed(n);
    for (std::size_t i = 0; i < n; ++i)
      keyed[i] = {pgas::detail::mixed(pgas::detail::mixed(42) ^ i), i};
    std::sort(keyed.begin(), keyed.end());
    for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(all[i], keyed[i].second) << i;
    std::vector<std::size_t> sorted = all;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(sorted[i], i);
    if (n >= 7) {
      const pgas::array<std::size_t> q = pgas::random_permutation(n, 43);
      std::vector<std::size_t> other(n);
      pgas::get(q, 0, std::span<std::size_t>(other));
      EXPECT_NE(other, all);
    }
    pgas::sync_all();
  }
}

TEST(ErdosRenyi, a_simple_symmetric_graph_that_depends_on_the_seed_alone) {
  for (const std::size_t n :
       {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{50}, std::size_t{2000}}) {
    const pgas::sparse_matrix<double> g = pgas::erdos_renyi(n, 8.0, 7);
    // The same rows generated here, serially: what every image count must give.
    const double p = n > 1 ? std::min(1.0, 8.0 / static_cast<double>(n - 1)) : 0.0;
    std::map<std::pair<std::size_t, std::size_t>, double> want;
    for (std::size_t i = 0; i < n; ++i) {
      for (const std::size_t j : pgas::detail::erdos_renyi_row(7, i, n, p)) {
        ASSERT_GT(j, i);
        ASSERT_LT(j, n);
        want[{i, j}] = 1.0;
        want[{j, i}] = 1.0;
      }
    }
    EXPECT_EQ(g.nnz(), want.size());
    for (std::size_t k = 0; k < g.local_rows(); ++k) {
      const std::size_t r = g.global_row(k);
      const auto row = g.row(k);
      for (std::size_t j = 0; j < row.cols.size(); ++j) {
        EXPECT_NE(row.cols[j], r) << "a loop";
        EXPECT_EQ(row.values[j], 1.0);
        EXPECT_EQ(want.count({r, row.cols[j]}), 1U);
      }
    }
    if (n == 2000) {  // about 8 neighbours each, for this seed
      const double degree = static_cast<double>(g.nnz()) / static_cast<double>(n);
      EXPECT_GT(degree, 7.0);
      EXPECT_LT(degree, 9.0);
    }
    pgas::sync_all();
  }
  EXPECT_THROW((void)pgas::erdos_renyi(10, -1.0, 1), pgas::usage_error);
}

}  // namespace
