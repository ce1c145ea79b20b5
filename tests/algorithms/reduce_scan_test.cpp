// reduce, transform_reduce, dot, the queries and the scans against a serial reference, typed
// over the distributions; non-commutative ops keep global order.
#include <gtest/gtest.h>

#include "support.hpp"
#include <algorithm>
#include <functional>
#include <numeric>
#include <vector>

namespace {

using namespace pgas_test;
TYPED_TEST_SUITE(Algorithms, Distributions);

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
    EXPECT_EQ(pgas::count_if(a, neg),
              static_cast<std::size_t>(std::count_if(ref.begin(), ref.end(), neg)));
    EXPECT_EQ(pgas::find_if(a, neg),
              static_cast<std::size_t>(std::find_if(ref.begin(), ref.end(), neg) - ref.begin()));
    EXPECT_EQ(pgas::find(a, 12345L), n);
    // Both answers: true where every value passes, and false where exactly one might not.
    EXPECT_EQ(pgas::all_of(a, [](long x) { return x >= -500; }), true);
    const auto above_last = [&](long x) { return n == 0 || x != ref.back(); };
    EXPECT_EQ(pgas::all_of(a, above_last), std::all_of(ref.begin(), ref.end(), above_last));
    EXPECT_EQ(pgas::any_of(a, neg), std::any_of(ref.begin(), ref.end(), neg));
    EXPECT_EQ(pgas::none_of(a, neg), std::none_of(ref.begin(), ref.end(), neg));
    EXPECT_TRUE(pgas::equal(a, b));
    const auto mn = pgas::min_element(a);
    const auto mxe = pgas::max_element(a);
    if (n == 0) {
      EXPECT_EQ(mn.index, 0u);
    } else {
      EXPECT_EQ(mn.index,
                static_cast<std::size_t>(std::min_element(ref.begin(), ref.end()) - ref.begin()));
      EXPECT_EQ(mn.value, *std::min_element(ref.begin(), ref.end()));
      EXPECT_EQ(mxe.index,
                static_cast<std::size_t>(std::max_element(ref.begin(), ref.end()) - ref.begin()));
      EXPECT_EQ(mxe.value, *std::max_element(ref.begin(), ref.end()));
    }
    if (n > 0) {
      if (pgas::this_image() == 0)
        b[n - 1] = 99999;
      pgas::sync_all();
      EXPECT_FALSE(pgas::equal(a, b));
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
  for (std::size_t n :
       {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{10}, std::size_t{257}}) {
    std::vector<mat2> ref(n);
    for (std::size_t i = 0; i < n; ++i)
      ref[i] = {static_cast<long>(i % 5) + 1, 1, static_cast<long>(i % 3), 1};
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
    if (in.layout().image_ordered()) {  // reduce folds in image order: block only
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

}  // namespace
