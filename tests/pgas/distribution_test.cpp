// Distributions: index -> (image, offset) -> index round trips, for every size and image count.
#include <pgas/distribution.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace {

template <class D>
void check_round_trips(const D& unbound) {
  for (std::size_t p = 1; p <= 5; ++p) {
    for (std::size_t n : {0u, 1u, 2u, 3u, 4u, 5u, 7u, 10u, 16u, 17u, 100u, 1001u}) {
      const D d = unbound.bind(n, p);
      ASSERT_EQ(d.size(), n);
      ASSERT_EQ(d.images(), p);
      std::vector<std::size_t> seen(p, 0);
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t img = d.owner(i);
        ASSERT_LT(img, p) << "n=" << n << " p=" << p << " i=" << i;
        const std::size_t off = d.local_offset(i);
        ASSERT_LT(off, d.local_size(img)) << "n=" << n << " p=" << p << " i=" << i;
        ASSERT_EQ(d.global_index(img, off), i) << "n=" << n << " p=" << p;
        ASSERT_GT(d.run_end(i), i);
        ++seen[img];
      }
      std::size_t total = 0;
      for (std::size_t img = 0; img < p; ++img) {
        ASSERT_EQ(seen[img], d.local_size(img)) << "n=" << n << " p=" << p << " img=" << img;
        total += d.local_size(img);
      }
      ASSERT_EQ(total, n);
      ASSERT_EQ(d.local_size(p), 0u);  // images past the end own nothing
    }
  }
}

TEST(Distribution, block_round_trips_and_is_balanced) {
  check_round_trips(pgas::block{});
  const auto d = pgas::block{}.bind(10, 4);  // 3 3 2 2
  EXPECT_EQ(d.local_size(0), 3u);
  EXPECT_EQ(d.local_size(3), 2u);
  EXPECT_EQ(d.owner(5), 1u);
  EXPECT_EQ(d.owner(6), 2u);
  EXPECT_EQ(d.first_of(3), 8u);
  const auto few = pgas::block{}.bind(2, 4);  // fewer elements than images: 1 1 0 0
  EXPECT_EQ(few.local_size(1), 1u);
  EXPECT_EQ(few.local_size(2), 0u);
}

TEST(Distribution, cyclic_round_trips_and_deals_round_robin) {
  check_round_trips(pgas::cyclic{});
  const auto d = pgas::cyclic{}.bind(10, 4);
  EXPECT_EQ(d.owner(6), 2u);
  EXPECT_EQ(d.local_offset(6), 1u);
  EXPECT_EQ(d.local_size(1), 3u);
  EXPECT_EQ(d.local_size(3), 2u);
  EXPECT_EQ(d.run_end(6), 7u);
}

TEST(Distribution, block_cyclic_round_trips_with_partial_last_block) {
  for (std::size_t b : {1u, 2u, 3u, 16u}) check_round_trips(pgas::block_cyclic(b));
  const auto d = pgas::block_cyclic(3).bind(10, 2);  // blocks [0,3)->0 [3,6)->1 [6,9)->0 [9,10)->1
  EXPECT_EQ(d.owner(7), 0u);
  EXPECT_EQ(d.local_offset(7), 4u);
  EXPECT_EQ(d.local_size(0), 6u);
  EXPECT_EQ(d.local_size(1), 4u);
  EXPECT_EQ(d.run_end(4), 6u);
  EXPECT_EQ(d.run_end(9), 10u);
  EXPECT_EQ(pgas::block_cyclic(0).block_size(), 1u);  // a zero block is taken as one
}

}  // namespace
