// fill, iota, for_each, transform and copy (also between distributions and to and from a
// root) against a serial reference, typed over the distributions.
#include <gtest/gtest.h>

#include "support.hpp"
#include <algorithm>
#include <numeric>
#include <vector>

namespace {

using namespace pgas_test;
TYPED_TEST_SUITE(Algorithms, Distributions);

TYPED_TEST(Algorithms, fill_iota_for_each_and_copy_to_root) {
  for (std::size_t n : sizes) {
    pgas::array<long, TypeParam> a(n, make_dist<TypeParam>());
    pgas::fill(a, 7L);
    EXPECT_EQ(mismatches(a, [](std::size_t) { return 7L; }), 0u) << "n=" << n;
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

TYPED_TEST(Algorithms, transform_and_copy_between_distributions) {
  for (std::size_t n : sizes) {
    const auto ref = reference_values(n, 5);
    pgas::array<long, TypeParam> a(n, make_dist<TypeParam>());
    load(a, ref);
    pgas::array<long, TypeParam> same(n, make_dist<TypeParam>());
    pgas::array<long, pgas::block> blocked(n);
    pgas::array<long, pgas::cyclic> dealt(n);
    const auto at = [&](auto f) { return [&ref, f](std::size_t i) { return f(ref[i]); }; };
    pgas::transform(a, same, [](long x) { return 3 * x; });
    pgas::transform(a, blocked, [](long x) { return x + 1; });
    pgas::copy(a, dealt);
    EXPECT_EQ(mismatches(same, at([](long x) { return 3 * x; })), 0u) << "n=" << n;
    EXPECT_EQ(mismatches(blocked, at([](long x) { return x + 1; })), 0u) << "n=" << n;
    EXPECT_EQ(mismatches(dealt, at([](long x) { return x; })), 0u) << "n=" << n;
    pgas::sync_all();
    // Aligned inputs, another distribution out (which held x + 1): 3x - 2x = x.
    pgas::transform(same, a, blocked, [](long x, long y) { return x - 2 * y; });
    EXPECT_EQ(mismatches(blocked, at([](long x) { return x; })), 0u) << "n=" << n;
    // Scattered from the last image: runs of one for cyclic, whole blocks for block.
    pgas::array<long, TypeParam> scattered(n, make_dist<TypeParam>());
    pgas::copy(std::span<const long>(ref), scattered, pgas::num_images() - 1);
    EXPECT_EQ(mismatches(scattered, at([](long x) { return x; })), 0u) << "n=" << n;
    const auto g_same = gather(same);
    if (pgas::this_image() == 0) {
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < n; ++i) wrong += g_same[i] != 3 * ref[i] ? 1u : 0u;
      EXPECT_EQ(wrong, 0u) << "n=" << n;
    }
    pgas::sync_all();
  }
}

}  // namespace
