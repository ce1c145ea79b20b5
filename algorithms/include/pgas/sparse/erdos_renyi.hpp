#pragma once
// pgas::erdos_renyi: the adjacency matrix of a G(n, p) random graph, p = avg_degree / (n - 1):
// simple (no loops, no repeated edges), undirected (symmetric), values 1. Each row i's edges to
// larger vertices come from a generator seeded by the seed and i alone, so the graph depends on
// the seed only, never on the image count; images generate rows in blocks and each edge is
// entered both ways.

#include <pgas/sparse/random_permutation.hpp>
#include <pgas/sparse/sparse_matrix.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace pgas {

namespace detail {
// The neighbours j > i of vertex i in G(n, p), ascending: geometric jumps between successive
// edges (Batagelj and Brandes 2005), from a SplitMix64 stream of (seed, i).
[[nodiscard]] inline std::vector<std::size_t> erdos_renyi_row(std::uint64_t seed,
                                                              std::size_t i,
                                                              std::size_t n,
                                                              double p) {
  std::vector<std::size_t> out;
  if (p <= 0.0 || i + 1 >= n)
    return out;
  std::uint64_t state = mixed(mixed(seed) ^ (0xe7037ed1a0b428dbULL * (i + 1)));
  const double log_q = std::log1p(-std::min(p, 1.0 - 1e-16));
  for (std::size_t j = i;;) {
    state = mixed(state);
    // Uniform in (0, 1]: 53 random bits, never 0.
    const double u = (static_cast<double>(state >> 11) + 1.0) * 0x1.0p-53;
    const double skip = p >= 1.0 ? 0.0 : std::floor(std::log(u) / log_q);
    if (skip >= static_cast<double>(n - j))
      break;
    j += 1 + static_cast<std::size_t>(skip);
    if (j >= n)
      break;
    out.push_back(j);
  }
  return out;
}
}  // namespace detail

/// A G(n, p) graph with p = avg_degree / (n - 1) as a symmetric n x n sparse matrix of ones,
/// rows block distributed over the team in force. The same seed gives the same graph at any
/// image count. usage_error on every image for a negative or non-finite degree. Collective.
[[nodiscard]] inline sparse_matrix<double> erdos_renyi(std::size_t n,
                                                       double avg_degree,
                                                       std::uint64_t seed) {
  if (!(avg_degree >= 0.0) || !std::isfinite(avg_degree))
    throw usage_error("pgas::erdos_renyi: the average degree must be a finite number >= 0, not " +
                      std::to_string(avg_degree));
  const double p = n > 1 ? std::min(1.0, avg_degree / static_cast<double>(n - 1)) : 0.0;
  const block rows = block{}.bind(n, num_images());
  const std::size_t me = this_image();
  std::vector<entry<double>> edges;
  for (std::size_t k = 0; k < rows.local_size(me); ++k) {
    const std::size_t i = rows.global_index(me, k);
    for (const std::size_t j : detail::erdos_renyi_row(seed, i, n, p)) {
      edges.push_back({i, j, 1.0});
      edges.push_back({j, i, 1.0});
    }
  }
  return sparse_matrix<double>(n, n, std::span<const entry<double>>(edges));
}

}  // namespace pgas
