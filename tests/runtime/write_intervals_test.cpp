// Which later writes must wait for a process's pending writes to one target (the record behind
// the library's write-order rule): overlapping puts, a put over an accumulate, an accumulate
// over a put wait; accumulates over accumulates and disjoint writes do not; a full record
// makes every write wait. White-box; that the window consults the record end to end is
// write_order_test's run under the put-reordering layer (write_order_test.reordered_puts.*).
#include "write_intervals.hpp"

#include <gtest/gtest.h>

namespace {

using pgas::runtime::write_intervals;
using pgas::runtime::write_kind;

TEST(WriteIntervals, only_overlaps_that_mpi_leaves_unordered_must_wait) {
  write_intervals w;
  w.record(0, 8, write_kind::put);
  w.record(64, 72, write_kind::accumulate);
  EXPECT_TRUE(w.must_wait(4, 12, write_kind::put));           // put over a put
  EXPECT_TRUE(w.must_wait(0, 8, write_kind::accumulate));     // accumulate over a put
  EXPECT_TRUE(w.must_wait(64, 72, write_kind::put));          // put over an accumulate
  EXPECT_FALSE(w.must_wait(64, 72, write_kind::accumulate));  // ordered by MPI
  EXPECT_FALSE(w.must_wait(8, 64, write_kind::put));          // touching, not overlapping
  EXPECT_FALSE(w.must_wait(72, 80, write_kind::put));
}

TEST(WriteIntervals, consecutive_writes_of_one_kind_share_one_range) {
  write_intervals w;
  for (long k = 0; k < 1000; ++k) w.record(8 * k, 8 * k + 8, write_kind::put);
  EXPECT_FALSE(w.must_wait(8000, 8008, write_kind::put));  // a thousand writes, one range, not full
  EXPECT_TRUE(w.must_wait(7992, 8000, write_kind::put));
}

TEST(WriteIntervals, a_full_record_makes_every_write_wait_until_cleared) {
  write_intervals w;
  for (long k = 0; k < static_cast<long>(write_intervals::capacity); ++k)
    w.record(16 * k, 16 * k + 8, write_kind::put);
  EXPECT_TRUE(w.must_wait(1 << 20, (1 << 20) + 8, write_kind::accumulate));
  w.clear();
  EXPECT_FALSE(w.must_wait(0, 8, write_kind::put));
}

}  // namespace
