// The kept scratch: large blocks come back for the next call, small ones are the heap's, and
// what is kept stays within its bound however much is given back.

#include <pgas/runtime/kept_scratch.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

using pgas::runtime::give_back_scratch;
using pgas::runtime::kept_scratch_bytes;
using pgas::runtime::kept_scratch_most;
using pgas::runtime::kept_scratch_smallest;
using pgas::runtime::take_scratch;

constexpr std::size_t large = 4 * kept_scratch_smallest;

TEST(KeptScratch, a_large_block_given_back_serves_the_next_call_of_its_size) {
  const std::size_t before = kept_scratch_bytes();
  void* const first = take_scratch(large);
  give_back_scratch(first, large);
  EXPECT_GT(kept_scratch_bytes(), before);
  // A little less, as the next call's buckets may be: the same block, mapped already.
  void* const second = take_scratch(large - 100);
  EXPECT_EQ(second, first);
  EXPECT_EQ(kept_scratch_bytes(), before);
  give_back_scratch(second, large - 100);
}

TEST(KeptScratch, a_block_is_not_spent_on_a_much_smaller_call) {
  void* const big = take_scratch(8 * large);
  give_back_scratch(big, 8 * large);
  void* const small = take_scratch(large);
  EXPECT_NE(small, big);
  give_back_scratch(small, large);
}

TEST(KeptScratch, small_blocks_are_not_kept) {
  const std::size_t before = kept_scratch_bytes();
  void* const p = take_scratch(kept_scratch_smallest / 2);
  give_back_scratch(p, kept_scratch_smallest / 2);
  EXPECT_EQ(kept_scratch_bytes(), before);
}

TEST(KeptScratch, what_is_kept_stays_within_its_bound) {
  // Given back all at once, more than the bound: the blocks past it are freed.
  const std::size_t block = kept_scratch_most / 8;
  std::vector<void*> held;
  for (int k = 0; k < 12; ++k) held.push_back(take_scratch(block));
  for (void* p : held) give_back_scratch(p, block);
  EXPECT_LE(kept_scratch_bytes(), kept_scratch_most);
  EXPECT_GT(kept_scratch_bytes(), kept_scratch_most / 2);
}

TEST(KeptScratch, vectors_on_it_hold_what_they_are_given) {
  for (std::uint32_t round = 0; round < 3; ++round) {
    pgas::runtime::scratch_vector<std::uint32_t> v(large / sizeof(std::uint32_t), 7U + round);
    for (const std::uint32_t x : v) ASSERT_EQ(x, 7U + round);
    v.push_back(1);
    EXPECT_EQ(v.back(), 1U);
  }
}

}  // namespace
