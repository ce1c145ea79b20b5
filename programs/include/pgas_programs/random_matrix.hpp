#pragma once
// Random sparse inputs the sparse examples and benchmarks share: square matrices with a given
// number of non-zeros per row at random columns, and upper triangles with a full diagonal
// (toposort's input before it is scrambled), both the same at any image count.

#include <pgas/sparse.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace pgas_programs {

// SplitMix64's step: a stream of 64-bit values from any start.
inline std::uint64_t next_random(std::uint64_t& state) {
  std::uint64_t v = (state += 0x9e3779b97f4a7c15ULL);
  v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9ULL;
  v = (v ^ (v >> 27)) * 0x94d049bb133111ebULL;
  return v ^ (v >> 31);
}

// A square matrix with about `per_row` non-zeros in each row at random columns; rows generated
// by their owners from the seed and the row alone.
inline pgas::sparse_matrix<double> random_matrix(std::size_t n,
                                                 double per_row,
                                                 std::uint64_t seed) {
  const pgas::block rows = pgas::block{}.bind(n, pgas::num_images());
  const std::size_t me = pgas::this_image();
  std::vector<pgas::entry<double>> mine;
  for (std::size_t k = 0; k < rows.local_size(me); ++k) {
    const std::size_t i = rows.global_index(me, k);
    std::uint64_t state = seed ^ (0x2545f4914f6cdd1dULL * (i + 1));
    const auto count = static_cast<std::size_t>(per_row);
    for (std::size_t e = 0; e < count; ++e) {
      const std::uint64_t r = next_random(state);
      mine.push_back({i, r % n, static_cast<double>(1 + r % 7)});
    }
  }
  return pgas::sparse_matrix<double>(n, n, std::span<const pgas::entry<double>>(mine));
}

// bale's topo input before it is scrambled: the upper triangle of an Erdős–Rényi graph with
// every loop, about `per_row` non-zeros in each row on average (bale takes the lower triangle
// of such a graph; the transpose orders alike).
inline pgas::sparse_matrix<double> triangle_with_diagonal(std::size_t n,
                                                          double per_row,
                                                          std::uint64_t seed) {
  const pgas::sparse_matrix<double> g =
      pgas::erdos_renyi(n, 2.0 * std::max(0.0, per_row - 1.0), seed);
  std::vector<pgas::entry<double>> mine;
  for (std::size_t k = 0; k < g.local_rows(); ++k) {
    const std::size_t i = g.global_row(k);
    mine.push_back({i, i, 1.0});
    for (const std::size_t j : g.row(k).cols) {
      if (j > i)
        mine.push_back({i, j, 1.0});
    }
  }
  return pgas::sparse_matrix<double>(n, n, std::span<const pgas::entry<double>>(mine));
}

}  // namespace pgas_programs
