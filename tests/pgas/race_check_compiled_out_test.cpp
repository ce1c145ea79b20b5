// The race checker (PGAS_CHECK=1) in a program compiled with PGAS_RACE_CHECK=0, as every program
// built with NDEBUG is by default: single-element accesses are not seen (they cost nothing),
// the program knows it and says so, and transfers are still checked.
#undef PGAS_RACE_CHECK
#define PGAS_RACE_CHECK 0  // NOLINT: what this test is about; the test library sets 1
#include <pgas/pgas.hpp>

#include <gtest/gtest.h>

#include "../support/races_in.hpp"
#include "../support/ring_neighbours.hpp"
#include <cstddef>
#include <span>
#include <vector>

namespace {

using pgas_test::races_in;

using pgas_test::me;

TEST(RaceCheckCompiledOut, the_program_knows_element_accesses_go_unseen) {
  ASSERT_TRUE(pgas::race_check_enabled()) << "run with PGAS_CHECK=1";
  EXPECT_FALSE(pgas::race_check_sees_element_accesses());
}

TEST(RaceCheckCompiledOut, element_writes_are_not_seen_and_transfers_are) {
  if (pgas::num_images() < 2)
    GTEST_SKIP() << "one image has nobody to race with";
  pgas::array<long> a(8 * pgas::num_images());  // elements 0-7 on image 0
  // Racy, but compiled out: nothing recorded, nothing reported.
  EXPECT_EQ(races_in([&] {
              if (me() < 2)
                a[3] = static_cast<long>(me());
            }),
            0U);
  // The same race through a bulk put is still found.
  const std::vector<long> v(2, 7L);
  EXPECT_EQ(races_in([&] {
              if (me() < 2)
                pgas::put(a, 1, std::span<const long>(v));
            }),
            1U);
}

}  // namespace
