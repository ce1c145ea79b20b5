// The algorithms on n-dimensional arrays: an ndarray's own cells (halos excluded) are a
// distributed range in row-major global order, in 1, 2 and 3 dimensions, on grids that split
// one dimension or two, with extents that do not divide evenly; a matrix is a 2-D ndarray.
#include <pgas/algorithms.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <functional>
#include <vector>

namespace {

constexpr long ghost = -1000;  // what ghost cells start as: no algorithm may touch or count them

template <std::size_t N>
std::size_t cells(const std::array<std::size_t, N>& extents) {
  std::size_t n = 1;
  for (std::size_t e : extents) n *= e;
  return n;
}

// Every image checks, cell by cell through its tile's view, that the cell at global index g
// (row-major) holds want(g), and that every ghost cell still holds `ghost`. Returns the
// mismatches over all images.
template <std::size_t N, class F>
std::size_t mismatches(const pgas::ndarray<long, N>& a, F want) {
  const auto v = a.local();
  const auto origin = a.local_origin();
  std::size_t wrong = 0;
  std::array<std::size_t, N> sizes{};
  std::size_t total = 1;
  for (std::size_t d = 0; d < N; ++d) {
    sizes[d] = v.extent(d) + 2 * v.halo(d);
    total *= sizes[d];
  }
  for (std::size_t k = 0; v.extent(0) > 0 && k < total; ++k) {
    std::array<std::ptrdiff_t, N> at{};
    bool is_ghost = false;
    std::size_t rest = k;
    for (std::size_t d = N; d-- > 0;) {
      at[d] = static_cast<std::ptrdiff_t>(rest % sizes[d]) - static_cast<std::ptrdiff_t>(v.halo(d));
      rest /= sizes[d];
      is_ghost = is_ghost || at[d] < 0 || at[d] >= static_cast<std::ptrdiff_t>(v.extent(d));
    }
    std::size_t g = 0;
    for (std::size_t d = 0; d < N; ++d)
      g = g * a.extent(d) + origin[d] + static_cast<std::size_t>(at[d]);
    const long got = std::apply([&v](auto... i) { return v(i...); }, at);
    wrong += (is_ghost ? got != ghost : got != want(g)) ? 1U : 0U;
  }
  return pgas::co_sum(wrong);
}

template <std::size_t N>
void every_algorithm(const std::array<std::size_t, N>& extents, const pgas::grid<N>& g) {
  const std::size_t n = cells(extents);
  pgas::ndarray<long, N> a(extents, g, 1, pgas::boundary::fixed, ghost);
  pgas::ndarray<long, N> b(extents, g, 1, pgas::boundary::fixed, ghost);
  static_assert(pgas::distributed_range<pgas::ndarray<long, N>>);
  EXPECT_EQ(a.size(), n);

  pgas::fill(a, 7L);
  EXPECT_EQ(mismatches(a, [](std::size_t) { return 7L; }), 0U);
  EXPECT_EQ(pgas::count(a, 7L), n);

  pgas::iota(a, 3L);  // each cell: 3 + its row-major global index
  EXPECT_EQ(mismatches(a, [](std::size_t i) { return 3L + static_cast<long>(i); }), 0U);

  pgas::for_each(a, [](long& x) { x *= 2; });
  EXPECT_EQ(mismatches(a, [](std::size_t i) { return 2 * (3L + static_cast<long>(i)); }), 0U);

  const auto sum_to = [](std::size_t m) { return static_cast<long>(m * (m - 1) / 2); };
  const long total = 2 * (3L * static_cast<long>(n) + (n > 0 ? sum_to(n) : 0));
  EXPECT_EQ(pgas::reduce(a), total);
  EXPECT_EQ(pgas::reduce(a, 0L, std::plus<>{}), total);
  EXPECT_EQ(pgas::transform_reduce(a, 0L, std::plus<>{}, [](long x) { return x / 2; }), total / 2);
  std::size_t multiples_of_4 = 0;
  for (std::size_t i = 0; i < n; ++i) multiples_of_4 += (2 * (3 + i)) % 4 == 0 ? 1U : 0U;
  EXPECT_EQ(pgas::count_if(a, [](long x) { return x % 4 == 0; }), multiples_of_4);

  pgas::transform(a, b, [](long x) { return x + 1; });
  EXPECT_EQ(mismatches(b, [](std::size_t i) { return 2 * (3L + static_cast<long>(i)) + 1; }), 0U);

  if (n > 0) {
    // The least value at a cell in the middle, ties to the earlier index; the greatest twice.
    const std::size_t middle = n / 2;
    pgas::for_each(pgas::views::enumerate(b), [middle, n](auto&& e) {
      auto&& [i, x] = e;
      if (i == middle)
        x = -5;
      if (i == n - 1 || i == 0)
        x = 1'000'000;
    });
    const auto least = pgas::min_element(b);
    EXPECT_EQ(least.index, n == 1 ? 0 : middle);
    EXPECT_EQ(least.value, n == 1 ? 1'000'000 : -5);
    const auto most = pgas::max_element(b);
    EXPECT_EQ(most.index, 0U);
    EXPECT_EQ(most.value, 1'000'000);
  }
}

TEST(NdarrayAlgorithms, one_dimension_split_over_every_image) {
  const std::size_t p = pgas::num_images();
  every_algorithm<1>({1001}, pgas::grid<1>({p}));
  every_algorithm<1>({3}, pgas::grid<1>({p}));  // some images own nothing at 4
}

TEST(NdarrayAlgorithms, two_dimensions_by_rows_columns_and_both) {
  const std::size_t p = pgas::num_images();
  every_algorithm<2>({37, 23}, pgas::grid<2>({p, 1}));
  every_algorithm<2>({37, 23}, pgas::grid<2>({1, p}));
  every_algorithm<2>({37, 23}, pgas::grid<2>{});  // MPI_Dims_create's: 2 x 2 at 4 images
}

TEST(NdarrayAlgorithms, three_dimensions) {
  const std::size_t p = pgas::num_images();
  every_algorithm<3>({5, 7, 9}, pgas::grid<3>({1, p, 1}));
  every_algorithm<3>({5, 7, 9}, pgas::grid<3>{});
}

TEST(NdarrayAlgorithms, a_matrix_is_a_2d_ndarray) {
  pgas::matrix<long> m(30, 11, 2, pgas::boundary::periodic, ghost);
  pgas::ndarray<long, 2>& cells = m;  // no conversion: the same object
  EXPECT_EQ(&cells, &m.cells());
  pgas::iota(m, 0L);
  EXPECT_EQ(pgas::reduce(m), 30L * 11 * (30 * 11 - 1) / 2);
  EXPECT_EQ(mismatches(cells, [](std::size_t i) { return static_cast<long>(i); }), 0U);
  const pgas::tile_view<long> t = m.local();
  for (std::size_t i = 0; i < m.local_rows(); ++i) {
    EXPECT_EQ(t.row(static_cast<std::ptrdiff_t>(i))[0],
              static_cast<long>((m.first_row() + i) * 11));
  }
  EXPECT_EQ(t.halo(), 2U);
}

TEST(NdarrayAlgorithms, arrays_of_other_grids_or_extents_are_not_aligned) {
  const std::size_t p = pgas::num_images();
  pgas::ndarray<long, 2> rows({8, 6}, pgas::grid<2>({p, 1}));
  pgas::ndarray<long, 2> cols({8, 6}, pgas::grid<2>({1, p}));
  pgas::ndarray<long, 2> other({6, 8}, pgas::grid<2>({p, 1}));
  pgas::ndarray<long, 2> same({8, 6}, pgas::grid<2>({p, 1}));
  EXPECT_EQ(rows.layout(), same.layout());
  EXPECT_NE(rows.layout(), other.layout());
  if (p > 1) {
    EXPECT_NE(rows.layout(), cols.layout());
    EXPECT_THROW(pgas::transform(rows, cols, [](long x) { return x; }), pgas::usage_error);
  }
}

}  // namespace
