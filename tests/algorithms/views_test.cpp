// Distributed views: zip, enumerate, transform, take, drop, local and rows, called and
// composed with |, stay aligned and work as inputs and outputs.
#include <gtest/gtest.h>

#include "support.hpp"
#include <algorithm>
#include <functional>
#include <numeric>
#include <span>
#include <vector>

namespace {

using namespace pgas_test;
TYPED_TEST_SUITE(Algorithms, Distributions);

TYPED_TEST(Algorithms, views_compose_and_stay_aligned) {
  for (std::size_t n : sizes) {
    const auto ref = reference_values(n, 13);
    pgas::array<long, TypeParam> a(n, make_dist<TypeParam>());
    pgas::array<long, TypeParam> b(n, make_dist<TypeParam>());
    load(a, ref);
    pgas::iota(b, 0L);
    const long got = pgas::reduce(pgas::views::transform(pgas::views::zip(a, b), [](const auto& p) {
      const auto& [x, y] = p;
      return x * y;
    }));
    long want = 0;
    for (std::size_t i = 0; i < n; ++i) want += ref[i] * static_cast<long>(i);
    EXPECT_EQ(got, want) << "n=" << n;
    // enumerate pairs each element with its global index.
    EXPECT_TRUE(pgas::all_of(pgas::views::enumerate(b), [](const auto& p) {
      const auto& [i, v] = p;
      return static_cast<long>(i) == v;
    }));
    // take and drop: windows of global indices, usable as inputs and outputs.
    const std::size_t k = n / 3;
    EXPECT_EQ(pgas::reduce(pgas::views::take(a, k)),
              std::accumulate(ref.begin(), ref.begin() + static_cast<std::ptrdiff_t>(k), 0L));
    EXPECT_EQ(pgas::reduce(pgas::views::drop(a, k)),
              std::accumulate(ref.begin() + static_cast<std::ptrdiff_t>(k), ref.end(), 0L));
    EXPECT_EQ(
        pgas::reduce(pgas::views::take(pgas::views::transform(a, [](long x) { return 2 * x; }), k)),
        2 * std::accumulate(ref.begin(), ref.begin() + static_cast<std::ptrdiff_t>(k), 0L));
    EXPECT_EQ(pgas::views::drop(a, n + 5).size(), 0u);
    pgas::fill(pgas::views::drop(b, k), -1L);
    const auto gb = gather(b);
    if (pgas::this_image() == 0) {
      for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(gb[i], i < k ? static_cast<long>(i) : -1L);
    }
    // A take of one container copied into a drop of another: shifted, so not aligned.
    pgas::array<long, pgas::block> c(n + 2);
    pgas::copy(pgas::views::take(a, n), pgas::views::drop(c, 2));
    const auto gc = gather(c);
    if (pgas::this_image() == 0) {
      for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(gc[i + 2], ref[i]);
    }
    // Shifted within one container (a left shift): every image reads its inputs before any
    // image writes into a part that is another image's input, on one node and on many.
    if (n > 1) {
      pgas::copy(pgas::views::drop(a, 1), pgas::views::take(a, n - 1));
      const auto ga = gather(a);
      if (pgas::this_image() == 0) {
        for (std::size_t i = 0; i + 1 < n; ++i)
          EXPECT_EQ(ga[i], ref[i + 1]) << "n=" << n << " i=" << i;
      }
      load(a, ref);
    }
    long local_sum = 0;
    for (long x : pgas::views::local(a)) local_sum += x;
    EXPECT_EQ(pgas::co_sum(local_sum), std::accumulate(ref.begin(), ref.end(), 0L));
    pgas::sync_all();
  }
}

TYPED_TEST(Algorithms, views_compose_with_a_pipe_as_they_do_when_called) {
  namespace views = pgas::views;
  for (std::size_t n : sizes) {
    const auto ref = reference_values(n, 17);
    pgas::array<long, TypeParam> a(n, make_dist<TypeParam>());
    load(a, ref);
    const std::size_t k = n / 4;
    const std::size_t m = n / 2;
    // Elements k .. m-1 of 3*a, twice over: once piped, once called.
    auto piped =
        a | views::transform([](long x) { return 3 * x; }) | views::drop(k) | views::take(m - k);
    auto called =
        views::take(views::drop(views::transform(a, [](long x) { return 3 * x; }), k), m - k);
    EXPECT_EQ(piped.size(), m - k);
    EXPECT_EQ(piped.layout(), called.layout());
    const long want = 3 * std::accumulate(ref.begin() + static_cast<std::ptrdiff_t>(k),
                                          ref.begin() + static_cast<std::ptrdiff_t>(m), 0L);
    EXPECT_EQ(pgas::reduce(piped), want) << "n=" << n;
    EXPECT_EQ(pgas::reduce(called), want) << "n=" << n;
    // enumerate and local take no arguments: `r | enumerate`, `r | local`.
    EXPECT_TRUE(pgas::all_of(a | views::drop(k) | views::enumerate, [&ref, k](const auto& p) {
      const auto& [i, v] = p;
      return ref[i + k] == v;
    }));
    long local_sum = 0;
    for (long x : a | views::local) local_sum += x;
    EXPECT_EQ(pgas::co_sum(local_sum), std::accumulate(ref.begin(), ref.end(), 0L));
    // A piped view is an output too.
    pgas::fill(a | views::take(k), 9L);
    EXPECT_EQ(pgas::count_if(a, [](long x) { return x == 9; }),
              static_cast<std::size_t>(
                  std::count(ref.begin() + static_cast<std::ptrdiff_t>(k), ref.end(), 9L)) +
                  k);
    pgas::sync_all();
  }
}

TEST(RowsView, rows_of_a_matrix_pipe_like_the_other_views) {
  pgas::matrix<int> m(3 * pgas::num_images() + 1, 5, 1);
  for (auto row : pgas::views::local(m | pgas::views::rows)) row[0] = 1;
  pgas::sync_all();
  EXPECT_EQ(pgas::transform_reduce(m | pgas::views::rows, 0L, std::plus<>{},
                                   [](std::span<int> row) { return static_cast<long>(row[0]); }),
            static_cast<long>(m.rows()));
}

TEST(RowsView, matrix_rows_work_as_a_distributed_range_aligned_with_a_block_array) {
  const std::size_t n = 11;
  pgas::matrix<long> m(n, 4, 1);
  static_assert(pgas::distributed_range<pgas::views::rows_view<long>>);
  pgas::for_each(pgas::views::enumerate(pgas::views::rows(m)), [](auto&& p) {
    auto&& [i, row] = p;
    for (std::size_t j = 0; j < row.size(); ++j) row[j] = static_cast<long>(10 * i + j);
  });
  pgas::array<long> sums(n);
  pgas::transform(pgas::views::rows(m), sums, [](std::span<long> row) {
    long s = 0;
    for (long x : row) s += x;
    return s;
  });
  for (std::size_t i = 0; i < n; ++i)
    EXPECT_EQ(static_cast<long>(sums[i]), static_cast<long>(40 * i + 6));
  EXPECT_EQ(
      pgas::count_if(pgas::views::rows(m), [](std::span<long> row) { return row[0] % 20 == 0; }),
      6u);
  pgas::sync_all();
}

}  // namespace
