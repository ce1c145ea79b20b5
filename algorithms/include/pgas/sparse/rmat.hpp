#pragma once
// pgas::rmat: Graph500's R-MAT graph (Chakrabarti, Zhan and Faloutsos 2004; A = 0.57,
// B = C = 0.19, D = 0.05): edge_factor · 2^scale edges, each placed by choosing one quadrant
// per bit of the vertex numbers, then vertex numbers scrambled so that degree does not follow
// the number. Edge k comes from a generator seeded by the seed and k alone, so the graph
// depends on the seed only, never on the image count; images generate edges in blocks. Loops
// are dropped, each edge is entered both ways and repeats are kept once: a simple undirected
// graph.

#include <pgas/distribution.hpp>
#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/sparse/random_permutation.hpp>
#include <pgas/sparse/sparse_matrix.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace pgas {

namespace detail {

// A bijection of 0..2^scale-1 that depends on the seed: odd multipliers and xor-shifts within
// the scale's bits, each invertible modulo 2^scale.
[[nodiscard]] inline std::uint64_t scrambled_vertex(std::uint64_t v,
                                                    unsigned scale,
                                                    std::uint64_t seed) noexcept {
  if (scale == 0)
    return 0;
  const std::uint64_t mask = scale >= 64 ? ~0ULL : (1ULL << scale) - 1;
  const std::uint64_t m1 = mixed(seed ^ 0x5851f42d4c957f2dULL) | 1;
  const std::uint64_t m2 = mixed(seed ^ 0x14057b7ef767814fULL) | 1;
  const unsigned shift = (scale + 1) / 2;
  v = (v * m1) & mask;
  v ^= v >> shift;
  v = (v * m2) & mask;
  v ^= v >> shift;
  return v;
}

// Edge k of the R-MAT graph of 2^scale vertices, before scrambling.
[[nodiscard]] inline std::pair<std::uint64_t, std::uint64_t> rmat_edge(std::uint64_t seed,
                                                                       std::uint64_t k,
                                                                       unsigned scale) noexcept {
  std::uint64_t state = mixed(mixed(seed) ^ (0x9e6c63d0676a9a99ULL * (k + 1)));
  std::uint64_t u = 0;
  std::uint64_t v = 0;
  for (unsigned bit = 0; bit < scale; ++bit) {
    state = mixed(state);
    const double r = static_cast<double>(state >> 11) * 0x1.0p-53;  // uniform in [0, 1)
    // Quadrants: A (0, 0) 0.57, B (0, 1) 0.19, C (1, 0) 0.19, D (1, 1) 0.05.
    const std::uint64_t row_bit = r >= 0.76 ? 1 : 0;
    const std::uint64_t col_bit = (r >= 0.57 && r < 0.76) || r >= 0.95 ? 1 : 0;
    u = (u << 1) | row_bit;
    v = (v << 1) | col_bit;
  }
  return {u, v};
}

}  // namespace detail

/// Graph500's R-MAT graph of 2^scale vertices and about edge_factor · 2^scale edges (fewer once
/// loops and repeats go) as a symmetric sparse matrix of ones, rows block distributed over the
/// team in force. The same seed gives the same graph at any image count. usage_error on every
/// image for a scale above 40. Collective.
[[nodiscard]] inline sparse_matrix<double> rmat(unsigned scale,
                                                std::size_t edge_factor,
                                                std::uint64_t seed) {
  runtime::require_environment("pgas::rmat");
  if (scale > 40)
    throw usage_error("pgas::rmat: scale " + std::to_string(scale) + " is past 40");
  const std::size_t n = std::size_t{1} << scale;
  const std::size_t edges = edge_factor * n;
  const block share = block{}.bind(edges, num_images());
  const std::size_t me = this_image();
  std::vector<entry<double>> both_ways;
  both_ways.reserve(2 * share.local_size(me));
  for (std::size_t i = 0; i < share.local_size(me); ++i) {
    const std::uint64_t k = share.global_index(me, i);
    const auto [a, b] = detail::rmat_edge(seed, k, scale);
    const std::size_t u = detail::scrambled_vertex(a, scale, seed);
    const std::size_t v = detail::scrambled_vertex(b, scale, seed);
    if (u == v)
      continue;
    both_ways.push_back({u, v, 1.0});
    both_ways.push_back({v, u, 1.0});
  }
  return sparse_matrix<double>(n, n, std::span<const entry<double>>(both_ways), block{},
                               repeated_entries::keep_one);
}

}  // namespace pgas
