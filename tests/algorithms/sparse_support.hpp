#pragma once
// What the sparse tests share: entries every image makes alike from a seed, the serial matrix
// they sum to, the shapes tried, and a check of a distributed matrix's rows against a serial one.
#include <pgas/sparse.hpp>

#include <gtest/gtest.h>

#include "support.hpp"
#include <algorithm>
#include <cstddef>
#include <iterator>
#include <map>
#include <random>
#include <utility>
#include <vector>

namespace sparse_support {

using serial = std::map<std::pair<std::size_t, std::size_t>, double>;

inline std::size_t me() {
  return pgas::this_image();
}
inline std::size_t images() {
  return pgas::num_images();
}

// Image img's entries: about `per_image` of them at random places (repeats likely), values
// small integers so sums are exact.
inline std::vector<pgas::entry<double>> entries_of(std::size_t img,
                                                   std::size_t rows,
                                                   std::size_t cols,
                                                   std::size_t per_image) {
  std::vector<pgas::entry<double>> out;
  if (rows == 0 || cols == 0)
    return out;
  std::mt19937_64 gen(1000 + img * 7919 + rows * 31 + cols);
  for (std::size_t k = 0; k < per_image; ++k) {
    out.push_back({gen() % rows, gen() % cols, static_cast<double>(gen() % 9) + 1.0});
  }
  return out;
}

// The matrix every image's entries make, (row, col) -> summed value, for `images` images.
inline serial serial_matrix(std::size_t rows, std::size_t cols, std::size_t per_image) {
  serial m;
  for (std::size_t img = 0; img < images(); ++img) {
    for (const auto& e : entries_of(img, rows, cols, per_image)) m[{e.row, e.col}] += e.value;
  }
  return m;
}

struct shape {
  std::size_t rows;
  std::size_t cols;
  std::size_t per_image;
};
inline const std::vector<shape> shapes = {{0, 0, 0},  {1, 1, 3},    {1, 9, 20},    {2, 5, 4},
                                          {5, 3, 40}, {37, 11, 60}, {200, 300, 50}};

// The matrix of shape s, built from this image's entries, rows laid out by Dist.
template <class Dist>
pgas::sparse_matrix<double, Dist> matrix_of(const shape& s) {
  const auto mine = entries_of(me(), s.rows, s.cols, s.per_image);
  return pgas::sparse_matrix<double, Dist>(
      s.rows, s.cols, std::span<const pgas::entry<double>>(mine), pgas_test::make_dist<Dist>());
}

// Every image's rows of m hold exactly `want`'s entries of those rows; nnz() agrees.
template <class T, class Dist>
void expect_matrix(const pgas::sparse_matrix<T, Dist>& m, const serial& want) {
  EXPECT_EQ(m.nnz(), want.size());
  for (std::size_t k = 0; k < m.local_rows(); ++k) {
    const std::size_t r = m.global_row(k);
    const auto row = m.row(k);
    ASSERT_TRUE(std::is_sorted(row.cols.begin(), row.cols.end()));
    const auto from = want.lower_bound({r, 0});
    const auto to = want.lower_bound({r + 1, 0});
    ASSERT_EQ(static_cast<std::ptrdiff_t>(row.cols.size()), std::distance(from, to)) << "row " << r;
    auto it = from;
    for (std::size_t j = 0; j < row.cols.size(); ++j, ++it) {
      EXPECT_EQ(row.cols[j], it->first.second) << "row " << r;
      EXPECT_EQ(static_cast<double>(row.values[j]), it->second) << "row " << r;
    }
  }
}

// The whole of a distributed array, on every image.
template <class A>
std::vector<typename A::value_type> whole(const A& a) {
  std::vector<typename A::value_type> out(a.size());
  pgas::get(a, 0, std::span<typename A::value_type>(out));
  return out;
}

}  // namespace sparse_support
