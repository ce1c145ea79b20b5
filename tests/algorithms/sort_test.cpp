// sort against std::sort, typed over the distributions.
#include <gtest/gtest.h>

#include "support.hpp"
#include <algorithm>
#include <vector>

namespace {

using namespace pgas_test;
TYPED_TEST_SUITE(Algorithms, Distributions);

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

}  // namespace
