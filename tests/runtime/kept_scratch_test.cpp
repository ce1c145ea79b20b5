// The kept scratch: large blocks come back for the next call, small ones are the heap's, and
// what is kept stays within its bound however much is given back.

#include <pgas/runtime/kept_scratch.hpp>
#include <pgas/runtime/machine.hpp>

#include <gtest/gtest.h>

#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
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

// The kernel's answer for the mapping that holds `p`: its THPeligible line in /proc/self/smaps
// (1 when huge pages may back it), or -1 where the kernel does not say.
int huge_pages_eligible(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    std::uintptr_t from = 0;
    std::uintptr_t to = 0;
    if (std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR, &from, &to) == 2 &&
        line.find(':') > line.find(' ')) {
      inside = from <= at && at < to;
    } else if (inside && line.rfind("THPeligible:", 0) == 0) {
      return std::stoi(line.substr(12));
    }
  }
  return -1;
}

// Huge pages where the kernel backs a program's memory with them when asked ("madvise") or
// always.
bool huge_pages_offered() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(f, modes);
  return modes.find("[always]") != std::string::npos ||
         modes.find("[madvise]") != std::string::npos;
}

TEST(KeptScratch, a_block_of_huge_pages_starts_at_one_and_may_be_backed_by_them) {
  const std::size_t huge = pgas::runtime::transparent_huge_page_bytes();
  if (!pgas::runtime::kept_scratch_maps_huge_pages()) {
    GTEST_SKIP() << "no transparent huge pages here, or a sanitizer build (blocks on the heap)";
  }
  const std::size_t bytes = 3 * huge;
  auto* const p = static_cast<std::byte*>(take_scratch(bytes));
  // The header is the block's first bytes: the block itself starts on a huge page.
  EXPECT_EQ((reinterpret_cast<std::uintptr_t>(p) - 64) % huge, 0U);
  std::memset(p, 0x5A, bytes);  // every byte asked for is there
  EXPECT_EQ(static_cast<unsigned char>(p[bytes - 1]), 0x5AU);
  if (huge_pages_offered()) {
    const int eligible = huge_pages_eligible(p);
    if (eligible >= 0) {
      EXPECT_EQ(eligible, 1);
    }
  }
  give_back_scratch(p, bytes);
  // Kept, and served again to a call of its size.
  void* const again = take_scratch(bytes);
  EXPECT_EQ(again, p);
  give_back_scratch(again, bytes);
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
