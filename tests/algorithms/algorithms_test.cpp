// Every algorithm against a serial std:: reference computed on every image, typed over the
// distributions, with sizes 0, 1, fewer than images, uneven and 10^5.
#include <pgas/algorithms.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

template <class Dist>
Dist make_dist() {
  if constexpr (std::is_same_v<Dist, pgas::block_cyclic>) {
    return pgas::block_cyclic(4);
  } else {
    return Dist{};
  }
}

template <class Dist>
class Algorithms : public ::testing::Test {};
using Distributions = ::testing::Types<pgas::block, pgas::cyclic, pgas::block_cyclic>;
TYPED_TEST_SUITE(Algorithms, Distributions);

const std::vector<std::size_t> sizes = {0, 1, 3, 10, 1001, 100000};

// The same pseudo-random values on every image.
std::vector<long> reference_values(std::size_t n, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::vector<long> v(n);
  for (auto& x : v) x = static_cast<long>(gen() % 1000) - 500;
  return v;
}

// Fills a distributed range from the serial reference through its local part.
template <class A>
void load(A& a, const std::vector<long>& ref) {
  auto mine = a.local();
  for (std::size_t k = 0; k < mine.size(); ++k) mine[k] = ref[a.global_index(k)];
  pgas::sync_all();
}

template <class A>
std::vector<long> gather(A& a) {
  std::vector<long> out;
  pgas::copy(a, out, 0);
  return out;
}

TYPED_TEST(Algorithms, fill_iota_for_each_and_copy_to_root) {
  for (std::size_t n : sizes) {
    pgas::array<long, TypeParam> a(n, make_dist<TypeParam>());
    pgas::fill(a, 7L);
    EXPECT_EQ(pgas::count(a, 7L), n);
    pgas::iota(a, 5L);
    pgas::for_each(a, [](long& x) { x *= 2; });
    const auto all = gather(a);
    if (pgas::this_image() == 0) {
      std::vector<long> want(n);
      std::iota(want.begin(), want.end(), 5L);
      for (auto& x : want) x *= 2;
      EXPECT_EQ(all, want) << "n=" << n;
    }
    pgas::sync_all();
  }
}

TYPED_TEST(Algorithms, reduce_transform_reduce_dot_and_queries) {
  for (std::size_t n : sizes) {
    const auto ref = reference_values(n, 3);
    pgas::array<long, TypeParam> a(n, make_dist<TypeParam>());
    pgas::array<long, TypeParam> b(n, make_dist<TypeParam>());
    load(a, ref);
    load(b, ref);
    EXPECT_EQ(pgas::reduce(a), std::accumulate(ref.begin(), ref.end(), 0L));
    EXPECT_EQ(pgas::reduce(a, 10L, std::plus<>{}), std::accumulate(ref.begin(), ref.end(), 10L));
    const auto mx = [](long x, long y) { return std::max(x, y); };
    EXPECT_EQ(pgas::reduce(a, -100000L, mx), std::accumulate(ref.begin(), ref.end(), -100000L, mx));
    long dot = 0;
    for (long x : ref) dot += x * x;
    EXPECT_EQ(pgas::dot(a, b), dot);
    EXPECT_EQ(pgas::transform_reduce(a, b, 0L, std::plus<>{}, std::multiplies<>{}), dot);
    EXPECT_EQ(pgas::transform_reduce(a, 0L, std::plus<>{}, [](long x) { return x < 0 ? 1L : 0L; }),
              std::count_if(ref.begin(), ref.end(), [](long x) { return x < 0; }));
    const auto neg = [](long x) { return x < -490; };
    EXPECT_EQ(pgas::count_if(a, neg), static_cast<std::size_t>(std::count_if(ref.begin(), ref.end(), neg)));
    EXPECT_EQ(pgas::find_if(a, neg), static_cast<std::size_t>(std::find_if(ref.begin(), ref.end(), neg) - ref.begin()));
    EXPECT_EQ(pgas::find(a, 12345L), n);
    EXPECT_EQ(pgas::all_of(a, [](long x) { return x >= -500; }), true);
    EXPECT_EQ(pgas::any_of(a, neg), std::any_of(ref.begin(), ref.end(), neg));
    EXPECT_EQ(pgas::none_of(a, neg), std::none_of(ref.begin(), ref.end(), neg));
    EXPECT_TRUE(pgas::equal(a, b));
    const auto mn = pgas::min_element(a);
    const auto mxe = pgas::max_element(a);
    if (n == 0) {
      EXPECT_EQ(mn.index, 0u);
    } else {
      EXPECT_EQ(mn.index, static_cast<std::size_t>(std::min_element(ref.begin(), ref.end()) - ref.begin()));
      EXPECT_EQ(mn.value, *std::min_element(ref.begin(), ref.end()));
      EXPECT_EQ(mxe.index, static_cast<std::size_t>(std::max_element(ref.begin(), ref.end()) - ref.begin()));
      EXPECT_EQ(mxe.value, *std::max_element(ref.begin(), ref.end()));
    }
    if (n > 0) {
      if (pgas::this_image() == 0) b[n - 1] = 99999;
      pgas::sync_all();
      EXPECT_FALSE(pgas::equal(a, b));
    }
    pgas::sync_all();
  }
}

TYPED_TEST(Algorithms, transform_and_copy_between_distributions) {
  for (std::size_t n : sizes) {
    const auto ref = reference_values(n, 5);
    pgas::array<long, TypeParam> a(n, make_dist<TypeParam>());
    load(a, ref);
    pgas::array<long, TypeParam> same(n, make_dist<TypeParam>());
    pgas::array<long, pgas::block> blocked(n);
    pgas::array<long, pgas::cyclic> dealt(n);
    pgas::transform(a, same, [](long x) { return 3 * x; });
    pgas::transform(a, blocked, [](long x) { return x + 1; });
    pgas::copy(a, dealt);
    pgas::transform(same, a, blocked, [](long x, long y) { return x - 3 * y; });  // aligned inputs
    // Scattered from the last image: runs of one for cyclic, whole blocks for block.
    pgas::array<long, TypeParam> scattered(n, make_dist<TypeParam>());
    pgas::copy(std::span<const long>(ref), scattered, pgas::num_images() - 1);
    EXPECT_TRUE(pgas::equal(scattered, a));
    const auto g_same = gather(same);
    const auto g_dealt = gather(dealt);
    const auto g_blocked = gather(blocked);
    if (pgas::this_image() == 0) {
      for (std::size_t i = 0; i < n; ++i) {
        EXPECT_EQ(g_same[i], 3 * ref[i]);
        EXPECT_EQ(g_dealt[i], ref[i]);
        EXPECT_EQ(g_blocked[i], 0);
      }
    }
    pgas::sync_all();
  }
}

TYPED_TEST(Algorithms, scans_match_std_including_in_place) {
  for (std::size_t n : sizes) {
    const auto ref = reference_values(n, 7);
    pgas::array<long, TypeParam> in(n, make_dist<TypeParam>());
    pgas::array<long, TypeParam> out(n, make_dist<TypeParam>());
    load(in, ref);
    std::vector<long> want(n);
    pgas::inclusive_scan(in, out);
    auto got = gather(out);
    std::inclusive_scan(ref.begin(), ref.end(), want.begin());
    if (pgas::this_image() == 0) {
      EXPECT_EQ(got, want) << "inclusive n=" << n;
    }
    pgas::exclusive_scan(in, out, 100L);
    got = gather(out);
    std::exclusive_scan(ref.begin(), ref.end(), want.begin(), 100L);
    if (pgas::this_image() == 0) {
      EXPECT_EQ(got, want) << "exclusive n=" << n;
    }
    pgas::inclusive_scan(in, in);
    got = gather(in);
    std::inclusive_scan(ref.begin(), ref.end(), want.begin());
    if (pgas::this_image() == 0) {
      EXPECT_EQ(got, want) << "in place n=" << n;
    }
    pgas::sync_all();
  }
}

// 2x2 integer matrices under multiplication: associative, not commutative.
struct mat2 {
  long a, b, c, d;
  friend bool operator==(const mat2&, const mat2&) = default;
};
mat2 mul(const mat2& x, const mat2& y) {
  constexpr long p = 1000003;
  return {(x.a * y.a + x.b * y.c) % p, (x.a * y.b + x.b * y.d) % p, (x.c * y.a + x.d * y.c) % p,
          (x.c * y.b + x.d * y.d) % p};
}

TYPED_TEST(Algorithms, scan_and_reduce_with_a_non_commutative_op_keep_global_order) {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{10}, std::size_t{257}}) {
    std::vector<mat2> ref(n);
    for (std::size_t i = 0; i < n; ++i) ref[i] = {static_cast<long>(i % 5) + 1, 1, static_cast<long>(i % 3), 1};
    pgas::array<mat2, TypeParam> in(n, make_dist<TypeParam>());
    pgas::array<mat2, TypeParam> out(n, make_dist<TypeParam>());
    for (std::size_t k = 0; k < in.local().size(); ++k) in.local()[k] = ref[in.global_index(k)];
    pgas::sync_all();
    pgas::inclusive_scan(in, out, mul);
    std::vector<mat2> got;
    pgas::copy(out, got, 0);
    std::vector<mat2> want(n);
    std::inclusive_scan(ref.begin(), ref.end(), want.begin(), mul);
    if (pgas::this_image() == 0) {
      EXPECT_TRUE(got == want) << "n=" << n;
    }
    const mat2 id{1, 0, 0, 1};
    if (pgas::layout{}.kind == in.layout().kind) {  // reduce folds in image order: block only
      EXPECT_TRUE(pgas::reduce(in, id, mul) == std::accumulate(ref.begin(), ref.end(), id, mul));
    }
    pgas::exclusive_scan(in, out, id, mul);
    pgas::copy(out, got, 0);
    std::exclusive_scan(ref.begin(), ref.end(), want.begin(), id, mul);
    if (pgas::this_image() == 0) {
      EXPECT_TRUE(got == want) << "exclusive n=" << n;
    }
    pgas::sync_all();
  }
}

TYPED_TEST(Algorithms, sort_matches_std_sort_and_keeps_each_share) {
  for (std::size_t n : sizes) {
    const auto ref = reference_values(n, 11);  // many duplicates: values in [-500, 500)
    pgas::array<long, TypeParam> a(n, make_dist<TypeParam>());
    load(a, ref);
    const std::size_t share = a.local().size();
    pgas::sort(a);
    EXPECT_EQ(a.local().size(), share);
    auto got = gather(a);
    auto want = ref;
    std::sort(want.begin(), want.end());
    if (pgas::this_image() == 0) {
      EXPECT_EQ(got, want) << "n=" << n;
    }
    pgas::sort(a, std::greater<>{});
    got = gather(a);
    std::sort(want.begin(), want.end(), std::greater<>{});
    if (pgas::this_image() == 0) {
      EXPECT_EQ(got, want) << "descending n=" << n;
    }
    pgas::sync_all();
  }
}

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
    EXPECT_EQ(pgas::reduce(pgas::views::take(a, k)), std::accumulate(ref.begin(), ref.begin() + static_cast<std::ptrdiff_t>(k), 0L));
    EXPECT_EQ(pgas::reduce(pgas::views::drop(a, k)), std::accumulate(ref.begin() + static_cast<std::ptrdiff_t>(k), ref.end(), 0L));
    EXPECT_EQ(pgas::reduce(pgas::views::take(pgas::views::transform(a, [](long x) { return 2 * x; }), k)),
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
        for (std::size_t i = 0; i + 1 < n; ++i) EXPECT_EQ(ga[i], ref[i + 1]) << "n=" << n << " i=" << i;
      }
      load(a, ref);
    }
    long local_sum = 0;
    for (long x : pgas::views::local(a)) local_sum += x;
    EXPECT_EQ(pgas::co_sum(local_sum), std::accumulate(ref.begin(), ref.end(), 0L));
    pgas::sync_all();
  }
}

TYPED_TEST(Algorithms, histogram_counts_every_update_exactly) {
  // 100000 bins for 5000 updates take the sparse path (per-owner accumulates); the rest dense.
  for (std::size_t bins_n : {std::size_t{1}, std::size_t{7}, std::size_t{1000}, std::size_t{100000}}) {
    pgas::array<long, TypeParam> bins(bins_n, make_dist<TypeParam>());
    // Every image makes its own updates; every image can recompute every image's updates.
    std::vector<long> want(bins_n, 0);
    std::vector<std::size_t> mine;
    for (std::size_t img = 0; img < pgas::num_images(); ++img) {
      std::mt19937 gen(static_cast<unsigned>(img * 31 + bins_n));
      const std::size_t updates = img == 1 ? 0 : 5000;  // image 1 sends nothing at all
      for (std::size_t u = 0; u < updates; ++u) {
        const std::size_t k = gen() % bins_n;
        ++want[k];
        if (img == pgas::this_image()) mine.push_back(k);
      }
    }
    pgas::histogram(bins, mine);
    pgas::histogram(bins, std::vector<std::size_t>{});  // no updates anywhere is fine
    const auto got = gather(bins);
    if (pgas::this_image() == 0) {
      EXPECT_EQ(got, want) << "bins=" << bins_n;
    }
    pgas::sync_all();
  }
}

TEST(Histogram, distributed_indices_count_each_images_local_part) {
  pgas::array<long> bins(10);
  pgas::array<std::size_t> idx(20);
  pgas::for_each(pgas::views::enumerate(idx), [](auto&& p) {
    auto&& [i, v] = p;
    v = i % 10;
  });
  pgas::histogram(bins, idx);
  EXPECT_EQ(pgas::reduce(bins), 20);
  EXPECT_EQ(pgas::count(bins, 2L), 10u);
}

TEST(Stencil, five_point_average_over_interior_points) {
  const std::size_t n = 12;
  pgas::matrix<double> in(n, n, 1);
  pgas::matrix<double> out(n, n, 1);
  for (std::size_t i = 0; i < in.local_rows(); ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      in.local()(static_cast<std::ptrdiff_t>(i), static_cast<std::ptrdiff_t>(j)) =
          static_cast<double>((in.first_row() + i) * n + j);
    }
  }
  pgas::sync_all();
  pgas::stencil_for_each(in, out, 1, [](const pgas::stencil_point<double>& p, double& o) {
    o = (p(-1, 0) + p(1, 0) + p(0, -1) + p(0, 1)) / 4.0;
  });
  pgas::sync_all();
  // The average of the four neighbours of a linear field is the centre value.
  for (std::size_t i = 1; i + 1 < n; ++i) {
    for (std::size_t j = 1; j + 1 < n; ++j) EXPECT_DOUBLE_EQ(out(i, j).get(), static_cast<double>(i * n + j));
  }
  EXPECT_EQ(out(0, 5).get(), 0.0);  // the boundary is not touched
  pgas::sync_all();
  // Every point knows its global row and column.
  pgas::stencil_for_each(in, out, 1, [](const pgas::stencil_point<double>& p, double& o) {
    o = static_cast<double>(p.row() * 1000 + p.col());
  });
  pgas::sync_all();
  for (std::size_t i = 1; i + 1 < n; ++i) {
    for (std::size_t j = 1; j + 1 < n; ++j) EXPECT_EQ(out(i, j).get(), static_cast<double>(i * 1000 + j));
  }
  pgas::sync_all();
}

}  // namespace

namespace {

TEST(AccumulateAt, xor_max_and_sum_updates_from_every_image_are_exact) {
  pgas::array<std::uint64_t, pgas::cyclic> x(64);
  pgas::array<long> hi(64, pgas::block{}, -1000L);
  std::vector<std::uint64_t> want_x(64, 0);
  std::vector<long> want_hi(64, -1000);
  std::vector<std::size_t> idx;
  std::vector<std::uint64_t> vals;
  for (std::size_t img = 0; img < pgas::num_images(); ++img) {
    std::mt19937_64 gen(img + 77);
    for (int u = 0; u < 300; ++u) {
      const std::size_t k = gen() % 64;
      const std::uint64_t v = gen();
      want_x[k] ^= v;
      want_hi[k] = std::max(want_hi[k], static_cast<long>(v % 1000));
      if (img == pgas::this_image()) {
        idx.push_back(k);
        vals.push_back(v);
      }
    }
  }
  pgas::accumulate_at(x, std::span<const std::size_t>(idx), std::span<const std::uint64_t>(vals), pgas::reduce_op::bxor);
  std::vector<long> small(vals.size());
  for (std::size_t u = 0; u < vals.size(); ++u) small[u] = static_cast<long>(vals[u] % 1000);
  pgas::accumulate_at(hi, std::span<const std::size_t>(idx), std::span<const long>(small), pgas::reduce_op::max);
  for (std::size_t k = 0; k < 64; ++k) {
    EXPECT_EQ(static_cast<std::uint64_t>(x[k]), want_x[k]);
    EXPECT_EQ(static_cast<long>(hi[k]), want_hi[k]);
  }
  pgas::sync_all();
}

}  // namespace

namespace {

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
  for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(static_cast<long>(sums[i]), static_cast<long>(40 * i + 6));
  EXPECT_EQ(pgas::count_if(pgas::views::rows(m), [](std::span<long> row) { return row[0] % 20 == 0; }), 6u);
  pgas::sync_all();
}

}  // namespace
