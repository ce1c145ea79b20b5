// The sparse kernels against serial computations every image makes alike: transpose, permute,
// toposort, triangle_count and bfs on matrices of every shape (empty rows, images without rows,
// one row) over block, cyclic and block-cyclic rows; rmat's seed rule; Matrix Market round
// trips; and the inputs each kernel refuses.
#include <pgas/sparse.hpp>

#include <gtest/gtest.h>

#include "../support/scratch_file.hpp"
#include "sparse_support.hpp"
#include "support.hpp"
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <queue>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace sparse_support;
namespace fs = std::filesystem;

template <class Dist>
class SparseKernels : public ::testing::Test {};
TYPED_TEST_SUITE(SparseKernels, pgas_test::Distributions);

TYPED_TEST(SparseKernels, transpose_flips_every_entry) {
  for (const shape& s : shapes) {
    const auto m = matrix_of<TypeParam>(s);
    const auto t = pgas::transpose(m);
    EXPECT_EQ(t.rows(), s.cols);
    EXPECT_EQ(t.cols(), s.rows);
    serial want;
    for (const auto& [at, v] : serial_matrix(s.rows, s.cols, s.per_image))
      want[{at.second, at.first}] = v;
    expect_matrix(t, want);
  }
}

TYPED_TEST(SparseKernels, permute_moves_every_entry_where_the_permutations_say) {
  for (const shape& s : shapes) {
    const auto m = matrix_of<TypeParam>(s);
    const auto rperm = pgas::random_permutation(s.rows, 11);
    const auto cperm = pgas::random_permutation(s.cols, 12);
    const auto out = pgas::permute(m, rperm, cperm);
    const auto rp = whole(rperm);
    const auto cp = whole(cperm);
    serial want;
    for (const auto& [at, v] : serial_matrix(s.rows, s.cols, s.per_image))
      want[{rp[at.first], cp[at.second]}] = v;
    expect_matrix(out, want);
  }
}

// A matrix that is upper triangular with a full diagonal once its rows and columns are put
// back: U(i, j) for j >= i at random (the diagonal always), then rows and columns scrambled by
// permutations every image draws alike.
pgas::sparse_matrix<double> scrambled_triangle(std::size_t n, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::vector<std::size_t> rp(n), cp(n);
  for (std::size_t i = 0; i < n; ++i) rp[i] = cp[i] = i;
  std::shuffle(rp.begin(), rp.end(), gen);
  std::shuffle(cp.begin(), cp.end(), gen);
  std::vector<pgas::entry<double>> mine;
  for (std::size_t i = me(); i < n; i += images()) {
    for (std::size_t j = i; j < n; ++j) {
      if (j == i || gen() % 5 == 0)
        mine.push_back({rp[i], cp[j], 1.0 + static_cast<double>(j - i)});
    }
  }
  return pgas::sparse_matrix<double>(n, n, std::span<const pgas::entry<double>>(mine));
}

TEST(Toposort, puts_a_scrambled_triangle_back_in_order) {
  for (const std::size_t n :
       {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{120}}) {
    const auto m = scrambled_triangle(n, static_cast<unsigned>(n) + 3);
    const auto [rperm, cperm] = pgas::toposort(m);
    const auto ordered = pgas::permute(m, rperm, cperm);  // refuses what is not a permutation
    std::size_t diagonal = 0;
    for (std::size_t k = 0; k < ordered.local_rows(); ++k) {
      const std::size_t r = ordered.global_row(k);
      const auto row = ordered.row(k);
      ASSERT_FALSE(row.cols.empty()) << "row " << r;
      EXPECT_GE(row.cols.front(), r) << "row " << r << " has an entry below the diagonal";
      diagonal += row.cols.front() == r ? 1U : 0U;
    }
    EXPECT_EQ(pgas::co_sum(diagonal), n);
    EXPECT_EQ(ordered.nnz(), m.nnz());
    // Given its transpose, the same kind of answer.
    const auto [rp, cp] = pgas::toposort(m, pgas::transpose(m));
    const auto again = pgas::permute(m, rp, cp);
    std::size_t below = 0;
    for (std::size_t k = 0; k < again.local_rows(); ++k)
      below += again.row(k).cols.front() == again.global_row(k) ? 0U : 1U;
    EXPECT_EQ(pgas::co_sum(below), 0U);
  }
}

TEST(Toposort, refuses_what_no_permutation_orders) {
  // A 2-cycle: both rows keep two columns whatever is struck.
  std::vector<pgas::entry<double>> full;
  if (me() == 0)
    full = {{0, 0, 1.0}, {0, 1, 1.0}, {1, 0, 1.0}, {1, 1, 1.0}};
  const pgas::sparse_matrix<double> cycle(2, 2, std::span<const pgas::entry<double>>(full));
  EXPECT_THROW((void)pgas::toposort(cycle), pgas::usage_error);
  // An empty row: nothing can sit on its diagonal.
  std::vector<pgas::entry<double>> gap;
  if (me() == 0)
    gap = {{0, 0, 1.0}, {0, 1, 1.0}, {1, 2, 1.0}};
  const pgas::sparse_matrix<double> empty_row(3, 3, std::span<const pgas::entry<double>>(gap));
  EXPECT_THROW((void)pgas::toposort(empty_row), pgas::usage_error);
  // Two rows with only the same column.
  std::vector<pgas::entry<double>> same;
  if (me() == 0)
    same = {{0, 1, 1.0}, {1, 1, 1.0}};
  const pgas::sparse_matrix<double> twice(2, 2, std::span<const pgas::entry<double>>(same));
  EXPECT_THROW((void)pgas::toposort(twice), pgas::usage_error);
  const pgas::sparse_matrix<double> wide(2, 3, std::span<const pgas::entry<double>>());
  EXPECT_THROW((void)pgas::toposort(wide), pgas::usage_error);
  // A second matrix that is not the first one's transpose: the same shape and count.
  const auto m = scrambled_triangle(30, 4);
  EXPECT_THROW((void)pgas::toposort(m, m), pgas::usage_error);
}

// The serial adjacency (row -> sorted neighbours) of a graph matrix's entries.
std::vector<std::vector<std::size_t>> adjacency_of(const serial& g, std::size_t n) {
  std::vector<std::vector<std::size_t>> adj(n);
  for (const auto& [at, v] : g) adj[at.first].push_back(at.second);
  return adj;
}

// The places of a distributed matrix's entries, on every image: each image puts its rows'
// (row, col) pairs into one array in image order (the test's own path, not the kernels').
template <class T, class Dist>
serial everything_of(const pgas::sparse_matrix<T, Dist>& m) {
  serial out;
  std::vector<std::size_t> mine;
  for (std::size_t k = 0; k < m.local_rows(); ++k) {
    const auto row = m.row(k);
    for (const std::size_t c : row.cols) {
      mine.push_back(m.global_row(k));
      mine.push_back(c);
    }
  }
  pgas::array<std::size_t> pairs(2 * m.nnz());
  std::size_t offset = 0;
  for (std::size_t img = 0; img < images(); ++img) {
    const std::size_t n = pgas::co_broadcast(mine.size(), img);
    if (img == me() && n > 0)
      pgas::put(pairs, offset, std::span<const std::size_t>(mine));
    offset += n;
  }
  pairs.sync();
  const auto all = whole(pairs);
  for (std::size_t at = 0; at + 1 < all.size(); at += 2) out[{all[at], all[at + 1]}] = 1.0;
  return out;
}

TEST(TriangleCount, counts_each_triangle_once) {
  for (const std::size_t n :
       {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{40}, std::size_t{300}}) {
    const auto g = pgas::erdos_renyi(n, 12.0, 5);
    const auto adj = adjacency_of(everything_of(g), n);
    std::uint64_t want = 0;
    for (std::size_t i = 0; i < n; ++i) {
      for (const std::size_t j : adj[i]) {
        for (const std::size_t k : adj[j]) {
          if (i < j && j < k && std::binary_search(adj[i].begin(), adj[i].end(), k))
            ++want;
        }
      }
    }
    EXPECT_EQ(pgas::triangle_count(g), want) << "n = " << n;
  }
  // A complete graph on 6 vertices: 20 triangles, with its entries on one image only.
  std::vector<pgas::entry<int>> k6;
  if (me() == images() - 1) {
    for (std::size_t i = 0; i < 6; ++i) {
      for (std::size_t j = 0; j < 6; ++j) {
        if (i != j)
          k6.push_back({i, j, 1});
      }
    }
  }
  const pgas::sparse_matrix<int, pgas::cyclic> complete(6, 6,
                                                        std::span<const pgas::entry<int>>(k6));
  EXPECT_EQ(pgas::triangle_count(complete), 20U);
  // Two triangles and a complete graph on 4 vertices among 60000 vertices: so few columns per
  // image that they are sorted, not marked in a bitmap of every vertex.
  std::vector<pgas::entry<int>> few;
  if (me() == 0) {
    const std::vector<std::vector<std::size_t>> cliques = {
        {5, 31000, 59000}, {100, 12000, 45000}, {7, 20000, 40000, 59999}};
    for (const auto& c : cliques) {
      for (const std::size_t i : c) {
        for (const std::size_t j : c) {
          if (i != j)
            few.push_back({i, j, 1});
        }
      }
    }
  }
  const pgas::sparse_matrix<int> sparse(60000, 60000, std::span<const pgas::entry<int>>(few));
  EXPECT_EQ(pgas::triangle_count(sparse), 6U);
  const pgas::sparse_matrix<double> wide(2, 3, std::span<const pgas::entry<double>>());
  EXPECT_THROW((void)pgas::triangle_count(wide), pgas::usage_error);
  // A triangle stored one way only (its lower half): refused, not undercounted.
  std::vector<pgas::entry<int>> one_way;
  if (me() == 0)
    one_way = {{1, 0, 1}, {2, 0, 1}, {2, 1, 1}};
  const pgas::sparse_matrix<int> lower(3, 3, std::span<const pgas::entry<int>>(one_way));
  EXPECT_THROW((void)pgas::triangle_count(lower), pgas::usage_error);
}

template <class Dist>
void expect_bfs_tree(std::size_t n, double degree, std::size_t source) {
  const auto er = pgas::erdos_renyi(n, degree, 9);
  // The same graph in Dist's row layout.
  std::vector<pgas::entry<double>> mine;
  for (std::size_t k = 0; k < er.local_rows(); ++k) {
    for (const std::size_t c : er.row(k).cols) mine.push_back({er.global_row(k), c, 1.0});
  }
  const pgas::sparse_matrix<double, Dist> g(n, n, std::span<const pgas::entry<double>>(mine),
                                            pgas_test::make_dist<Dist>());
  const auto adj = adjacency_of(everything_of(g), n);
  // Serial levels.
  std::vector<long> level(n, -1);
  std::queue<std::size_t> q;
  level[source] = 0;
  q.push(source);
  while (!q.empty()) {
    const std::size_t u = q.front();
    q.pop();
    for (const std::size_t v : adj[u]) {
      if (level[v] < 0) {
        level[v] = level[u] + 1;
        q.push(v);
      }
    }
  }
  const auto parent = whole(pgas::bfs(g, source));
  ASSERT_EQ(parent.size(), n);
  for (std::size_t v = 0; v < n; ++v) {
    if (level[v] < 0) {
      EXPECT_EQ(parent[v], -1) << "vertex " << v << " is not reachable";
      continue;
    }
    if (v == source) {
      EXPECT_EQ(parent[v], static_cast<std::int64_t>(source));
      continue;
    }
    ASSERT_GE(parent[v], 0) << "vertex " << v << " is reachable";
    const auto u = static_cast<std::size_t>(parent[v]);
    EXPECT_TRUE(std::binary_search(adj[u].begin(), adj[u].end(), v)) << "no edge " << u << "-" << v;
    EXPECT_EQ(level[u] + 1, level[v]) << "vertex " << v << "'s parent is not a level above it";
  }
}

TYPED_TEST(SparseKernels, bfs_gives_a_tree_of_shortest_paths) {
  expect_bfs_tree<TypeParam>(1, 0.0, 0);
  expect_bfs_tree<TypeParam>(2, 1.0, 1);
  expect_bfs_tree<TypeParam>(300, 1.5, 4);  // several components
  expect_bfs_tree<TypeParam>(500, 6.0, 499);
}

TEST(Bfs, refuses_a_source_past_the_last_row) {
  const auto g = pgas::erdos_renyi(10, 2.0, 1);
  EXPECT_THROW((void)pgas::bfs(g, 10), pgas::out_of_range);
  const pgas::sparse_matrix<double> wide(2, 3, std::span<const pgas::entry<double>>());
  EXPECT_THROW((void)pgas::bfs(wide, 0), pgas::usage_error);
}

TEST(Rmat, a_simple_symmetric_graph_that_depends_on_the_seed_alone) {
  for (const unsigned scale : {0U, 1U, 4U, 8U}) {
    const auto g = pgas::rmat(scale, 8, 21);
    const std::size_t n = std::size_t{1} << scale;
    serial want;
    for (std::uint64_t k = 0; k < 8 * n; ++k) {
      const auto [a, b] = pgas::detail::rmat_edge(21, k, scale);
      const std::size_t u = pgas::detail::scrambled_vertex(a, scale, 21);
      const std::size_t v = pgas::detail::scrambled_vertex(b, scale, 21);
      ASSERT_LT(u, n);
      ASSERT_LT(v, n);
      if (u != v) {
        want[{u, v}] = 1.0;
        want[{v, u}] = 1.0;
      }
    }
    EXPECT_EQ(g.rows(), n);
    expect_matrix(g, want);
  }
  // Scrambling is a bijection of the vertex numbers.
  std::set<std::uint64_t> seen;
  for (std::uint64_t v = 0; v < 1024; ++v) seen.insert(pgas::detail::scrambled_vertex(v, 10, 3));
  EXPECT_EQ(seen.size(), 1024U);
  EXPECT_LT(*seen.rbegin(), 1024U);
  EXPECT_THROW((void)pgas::rmat(41, 16, 1), pgas::usage_error);
}

TEST(Permute, refuses_what_is_not_a_permutation) {
  const auto m = pgas::erdos_renyi(12, 3.0, 2);
  const auto good = pgas::random_permutation(12, 1);
  pgas::array<std::size_t> repeated(12);
  pgas::array<std::size_t> too_large(12);
  for (std::size_t k = 0; k < repeated.local().size(); ++k) {
    const std::size_t i = repeated.global_index(k);
    repeated.local()[k] = i == 5 ? 4 : i;
    too_large.local()[k] = i == 11 ? 12 : i;
  }
  pgas::sync_all();
  const pgas::array<std::size_t> short_one(11);
  EXPECT_THROW((void)pgas::permute(m, repeated, good), pgas::usage_error);
  EXPECT_THROW((void)pgas::permute(m, good, too_large), pgas::usage_error);
  EXPECT_THROW((void)pgas::permute(m, short_one, good), pgas::usage_error);
  EXPECT_EQ(pgas::permute(m, good, good).nnz(), m.nnz());
}

using pgas_test::scratch_file;

TYPED_TEST(SparseKernels, matrix_market_round_trips) {
  for (const shape& s : shapes) {
    const auto m = matrix_of<TypeParam>(s);
    const scratch_file f("round_trip.mtx");
    pgas::matrix_market::write(m, f.name());
    const auto back = pgas::matrix_market::read<double>(f.name());
    EXPECT_EQ(back.rows(), s.rows);
    EXPECT_EQ(back.cols(), s.cols);
    expect_matrix(back, serial_matrix(s.rows, s.cols, s.per_image));
  }
  // Values that need every digit come back exact.
  std::vector<pgas::entry<double>> exact;
  if (me() == 0)
    exact = {{0, 1, 0.1}, {1, 0, 1.0 / 3.0}, {2, 2, -1e-300}};
  const pgas::sparse_matrix<double> m(3, 3, std::span<const pgas::entry<double>>(exact));
  const scratch_file f("exact.mtx");
  pgas::matrix_market::write(m, f.name());
  expect_matrix(pgas::matrix_market::read<double>(f.name()),
                serial{{{0, 1}, 0.1}, {{1, 0}, 1.0 / 3.0}, {{2, 2}, -1e-300}});
}

TEST(MatrixMarket, reads_symmetric_pattern_and_comments) {
  const scratch_file sym("symmetric.mtx");
  sym.holds(
      "%%MatrixMarket matrix coordinate real symmetric\n% a comment\n%\n4 4 4\n1 1 2.5\n"
      "3 1 -1\n4 2 7\n4 4 1e3\n");
  expect_matrix(
      pgas::matrix_market::read<double>(sym.name()),
      serial{{{0, 0}, 2.5}, {{0, 2}, -1}, {{2, 0}, -1}, {{1, 3}, 7}, {{3, 1}, 7}, {{3, 3}, 1e3}});
  const scratch_file pattern("pattern.mtx");
  pattern.holds("%%MatrixMarket matrix coordinate pattern general\n2 3 2\n1 3\n2 1\n");
  expect_matrix(pgas::matrix_market::read<int>(pattern.name()), serial{{{0, 2}, 1}, {{1, 0}, 1}});
}

TEST(MatrixMarket, refuses_what_is_not_such_a_file) {
  const scratch_file f("bad.mtx");
  EXPECT_THROW((void)pgas::matrix_market::read<double>(f.name() + ".none"), pgas::io_error);
  f.holds("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n");
  EXPECT_THROW((void)pgas::matrix_market::read<double>(f.name()), pgas::io_error);
  const scratch_file g("bad_line.mtx");
  g.holds("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 x 1\n");
  EXPECT_THROW((void)pgas::matrix_market::read<double>(g.name()), pgas::io_error);
  const scratch_file h("short.mtx");
  h.holds("%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n2 2 1\n");
  EXPECT_THROW((void)pgas::matrix_market::read<double>(h.name()), pgas::io_error);
  const scratch_file o("outside.mtx");
  o.holds("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n");
  EXPECT_THROW((void)pgas::matrix_market::read<double>(o.name()), pgas::out_of_range);
}

}  // namespace
