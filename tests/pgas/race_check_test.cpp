// The race checker (PGAS_CHECK=1, which CTest sets for this binary): racy programs are
// reported — through element access, bulk, strided, gather/scatter, patches, the aggregator,
// futures, coarrays and vectors, with both images' lines — and race-free ones ordered by sync
// points, events, locks, sync_images, teams and futures are not. Images 0 and 1 do the racing;
// the others look on (one image alone has nobody to race with: those cases skip).
#include <pgas/pgas.hpp>

#include <gtest/gtest.h>

#include "../support/races_in.hpp"
#include "../support/ring_neighbours.hpp"
#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace {

using pgas_test::races_in;

constexpr pgas::reduce_op sum = pgas::reduce_op::sum;

using pgas_test::images;
using pgas_test::me;

// True when some image's newest report names this file at both lines, and says `text`.
bool reported_at(unsigned line_a, unsigned line_b, const std::string& text) {
  // Each line is known on the image that made the access; the report is on the owner's.
  line_a = static_cast<unsigned>(pgas::co_max(static_cast<long>(line_a)));
  line_b = static_cast<unsigned>(pgas::co_max(static_cast<long>(line_b)));
  bool found = false;
  const auto& all = pgas::race_reports();
  if (!all.empty()) {
    const std::string& last = all.back();
    const std::string a = "race_check_test.cpp:" + std::to_string(line_a);
    const std::string b = "race_check_test.cpp:" + std::to_string(line_b);
    found = last.find(a) != std::string::npos && last.find(b) != std::string::npos &&
            last.find(text) != std::string::npos;
  }
  return pgas::co_max(found ? 1 : 0) == 1;
}

class RaceCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(pgas::race_check_enabled()) << "run with PGAS_CHECK=1";
    ASSERT_TRUE(pgas::race_check_sees_element_accesses()) << "built with PGAS_RACE_CHECK=1";
    if (images() < 2)
      GTEST_SKIP() << "one image has nobody to race with";
  }
};

// ---- Racy programs: each is reported ----

TEST_F(RaceCheck, two_writes_of_one_element) {
  unsigned l1 = 0;
  pgas::array<long> a(8);
  const std::size_t races = races_in([&] {
    l1 = __LINE__ + 2;
    if (me() < 2)
      a[3] = static_cast<long>(me());
  });
  EXPECT_EQ(races, 1U);
  EXPECT_TRUE(reported_at(l1, l1, "element 3"));
}

TEST_F(RaceCheck, a_write_and_a_read_of_one_element) {
  unsigned l1 = 0;
  unsigned l2 = 0;
  pgas::array<long, pgas::cyclic> a(10);
  const std::size_t races = races_in([&] {
    if (me() == 0) {
      l1 = __LINE__ + 1;
      a[5] = 7;
    }
    if (me() == 1) {
      l2 = __LINE__ + 1;
      (void)a[5].get();
    }
  });
  EXPECT_EQ(races, 1U);
  EXPECT_TRUE(reported_at(l1, l2, "wrote"));
}

TEST_F(RaceCheck, a_bulk_put_and_an_overlapping_bulk_get) {
  unsigned l1 = 0;
  unsigned l2 = 0;
  pgas::array<double> a(40);
  std::vector<double> v(10, 1.0);
  const std::size_t races = races_in([&] {
    if (me() == 0) {
      l1 = __LINE__ + 1;
      pgas::put(a, 15, std::span<const double>(v));
    }
    if (me() == 1) {
      l2 = __LINE__ + 1;
      pgas::get(a, 20, std::span<double>(v));
    }
  });
  EXPECT_EQ(races, 1U);
  EXPECT_TRUE(reported_at(l1, l2, "element 2"));
}

TEST_F(RaceCheck, a_strided_put_and_an_element_read) {
  unsigned l1 = 0;
  unsigned l2 = 0;
  pgas::array<int> a(30);
  std::vector<int> v(5, 2);
  const std::size_t races = races_in([&] {
    if (me() == 0) {
      l1 = __LINE__ + 1;
      pgas::put_strided(a, 1, 6, std::span<const int>(v));
    }
    if (me() == 1) {
      l2 = __LINE__ + 1;
      (void)a[13].get();
    }
  });
  EXPECT_GE(races, 1U);
  EXPECT_TRUE(reported_at(l1, l2, "element 13"));
}

TEST_F(RaceCheck, a_strided_get_and_an_element_write) {
  unsigned l1 = 0;
  unsigned l2 = 0;
  pgas::array<int, pgas::block_cyclic> a(30, pgas::block_cyclic{4});
  std::vector<int> v(10);
  const std::size_t races = races_in([&] {
    if (me() == 0) {
      l1 = __LINE__ + 1;
      a[22] = 4;
    }
    if (me() == 1) {
      l2 = __LINE__ + 1;
      pgas::get_strided(a, 1, 3, std::span<int>(v));
    }
  });
  EXPECT_GE(races, 1U);
  EXPECT_TRUE(reported_at(l1, l2, "element 22"));
}

TEST_F(RaceCheck, a_gather_and_a_write) {
  unsigned l1 = 0;
  unsigned l2 = 0;
  pgas::array<long> a(64);
  std::vector<std::size_t> indices{1, 40, 17, 63, 8};
  std::vector<long> out(indices.size());
  const std::size_t races = races_in([&] {
    if (me() == 0) {
      l1 = __LINE__ + 1;
      a[17] = 1;
    }
    if (me() == 1) {
      l2 = __LINE__ + 1;
      pgas::gather(a, indices, std::span<long>(out));
    }
  });
  EXPECT_GE(races, 1U);
  EXPECT_TRUE(reported_at(l1, l2, "element 17"));
}

TEST_F(RaceCheck, a_scatter_and_a_read) {
  unsigned l1 = 0;
  unsigned l2 = 0;
  pgas::array<long, pgas::cyclic> a(64);
  std::vector<std::size_t> indices{9, 33, 2};
  std::vector<long> values{1, 2, 3};
  const std::size_t races = races_in([&] {
    if (me() == 0) {
      l1 = __LINE__ + 1;
      pgas::scatter(a, indices, std::span<const long>(values));
    }
    if (me() == 1) {
      l2 = __LINE__ + 1;
      (void)a[33].get();
    }
  });
  EXPECT_GE(races, 1U);
  EXPECT_TRUE(reported_at(l1, l2, "element 33"));
}

TEST_F(RaceCheck, a_scatter_accumulate_and_a_plain_write) {
  unsigned l1 = 0;
  unsigned l2 = 0;
  pgas::array<long> a(64);
  std::vector<std::size_t> indices{5, 50, 5};
  std::vector<long> values{1, 2, 3};
  const std::size_t races = races_in([&] {
    if (me() == 0) {
      l1 = __LINE__ + 1;
      pgas::scatter_accumulate(a, indices, std::span<const long>(values), sum);
    }
    if (me() == 1) {
      l2 = __LINE__ + 1;
      a[50] = 9;
    }
  });
  EXPECT_GE(races, 1U);
  EXPECT_TRUE(reported_at(l1, l2, "element 50"));
}

TEST_F(RaceCheck, an_accumulate_and_a_plain_read) {
  unsigned l1 = 0;
  unsigned l2 = 0;
  pgas::array<long> a(8);
  const std::size_t races = races_in([&] {
    if (me() == 0) {
      l1 = __LINE__ + 1;
      a[6] += 2;
    }
    if (me() == 1) {
      l2 = __LINE__ + 1;
      (void)a[6].get();
    }
  });
  EXPECT_EQ(races, 1U);
  EXPECT_TRUE(reported_at(l1, l2, "accumulate or atomic"));
}

TEST_F(RaceCheck, an_atomic_and_a_plain_write) {
  unsigned l1 = 0;
  unsigned l2 = 0;
  pgas::array<long> a(8);
  const std::size_t races = races_in([&] {
    if (me() == 0) {
      l1 = __LINE__ + 1;
      (void)a[2].fetch_add(1);
    }
    if (me() == 1) {
      l2 = __LINE__ + 1;
      a[2] = 5;
    }
  });
  EXPECT_EQ(races, 1U);
  EXPECT_TRUE(reported_at(l1, l2, "element 2"));
}

TEST_F(RaceCheck, an_aggregator_update_and_a_plain_read) {
  unsigned l1 = 0;
  unsigned l2 = 0;
  pgas::array<long> a(100);
  const std::size_t races = races_in([&] {
    if (me() == 0) {
      pgas::aggregator<pgas::array<long>> agg(a, pgas::reduce_op::sum, 16);
      l1 = __LINE__ + 1;
      agg.add(42, 1);
    }
    if (me() == 1) {
      l2 = __LINE__ + 1;
      (void)a[42].get();
    }
  });
  EXPECT_EQ(races, 1U);
  EXPECT_TRUE(reported_at(l1, l2, "element 42"));
}

TEST_F(RaceCheck, a_future_does_not_order_another_image) {
  unsigned l1 = 0;
  unsigned l2 = 0;
  pgas::array<long> a(8);
  const std::size_t races = races_in([&] {
    if (me() == 0) {
      l1 = __LINE__ + 1;
      a[1].async_put(3).wait();
    }
    if (me() == 1) {
      l2 = __LINE__ + 1;
      (void)a[1].async_get().get();
    }
  });
  EXPECT_EQ(races, 1U);
  EXPECT_TRUE(reported_at(l1, l2, "element 1"));
}

TEST_F(RaceCheck, a_coarray_copy_written_while_its_image_reads_it) {
  unsigned l1 = 0;
  unsigned l2 = 0;
  pgas::coarray<long> x;
  const std::size_t races = races_in([&] {
    if (me() == 0) {
      l1 = __LINE__ + 1;
      x(1) = 5;
    }
    if (me() == 1) {
      l2 = __LINE__ + 1;
      (void)x(1).get();
    }
  });
  EXPECT_EQ(races, 1U);
  EXPECT_TRUE(reported_at(l1, l2, "wrote"));
}

TEST_F(RaceCheck, a_coarray_of_arrays_element) {
  unsigned l1 = 0;
  pgas::coarray<int[4]> x;
  const std::size_t races = races_in([&] {
    if (me() < 2) {
      l1 = __LINE__ + 1;
      x(1)[2] = static_cast<int>(me());
    }
  });
  EXPECT_EQ(races, 1U);
  EXPECT_TRUE(reported_at(l1, l1, "wrote"));
}

TEST_F(RaceCheck, a_vector_element) {
  unsigned l1 = 0;
  unsigned l2 = 0;
  pgas::vector<long> v(20);
  const std::size_t races = races_in([&] {
    if (me() == 0) {
      l1 = __LINE__ + 1;
      v[11] = 1;
    }
    if (me() == 1) {
      l2 = __LINE__ + 1;
      (void)v[11].get();
    }
  });
  EXPECT_EQ(races, 1U);
  EXPECT_TRUE(reported_at(l1, l2, "element 11"));
}

TEST_F(RaceCheck, overlapping_patches) {
  unsigned l1 = 0;
  unsigned l2 = 0;
  pgas::ndarray<double, 2> a({8, 8});
  std::vector<double> in(16, 1.0);
  std::vector<double> out(16);
  const std::size_t races = races_in([&] {
    if (me() == 0) {
      l1 = __LINE__ + 1;
      pgas::put_patch(a, {2, 2}, {4, 4}, std::span<const double>(in));
    }
    if (me() == 1) {
      l2 = __LINE__ + 1;
      pgas::get_patch(a, {4, 4}, {4, 4}, std::span<double>(out));
    }
  });
  EXPECT_GE(races, 1U);
  EXPECT_TRUE(reported_at(l1, l2, "read"));
}

TEST_F(RaceCheck, an_event_posted_before_the_write) {
  unsigned l1 = 0;
  unsigned l2 = 0;
  pgas::array<long> a(4);
  pgas::event ev;
  const std::size_t races = races_in([&] {
    if (me() == 0) {
      ev.post(1);
      l1 = __LINE__ + 1;  // after the post, so the wait orders nothing
      a[0] = 1;
    }
    if (me() == 1) {
      ev.wait();
      l2 = __LINE__ + 1;
      (void)a[0].get();
    }
  });
  EXPECT_EQ(races, 1U);
  EXPECT_TRUE(reported_at(l1, l2, "element 0"));
}

TEST_F(RaceCheck, a_write_outside_the_lock_others_take) {
  unsigned l1 = 0;
  unsigned l2 = 0;
  pgas::array<long> a(4);
  pgas::lock_type lk;
  const std::size_t races = races_in([&] {
    if (me() == 0) {
      l1 = __LINE__ + 1;  // no lock
      a[2] = 1;
    }
    if (me() == 1) {
      lk.lock(0);
      l2 = __LINE__ + 1;
      a[2] = 2;
      lk.unlock(0);
    }
  });
  EXPECT_EQ(races, 1U);
  EXPECT_TRUE(reported_at(l1, l2, "element 2"));
}

TEST_F(RaceCheck, sync_memory_orders_nothing_between_images) {
  unsigned l1 = 0;
  unsigned l2 = 0;
  pgas::array<long> a(4);
  const std::size_t races = races_in([&] {
    if (me() == 0) {
      l1 = __LINE__ + 1;
      a[3] = 1;
      pgas::sync_memory();
    }
    if (me() == 1) {
      pgas::sync_memory();
      l2 = __LINE__ + 1;
      (void)a[3].get();
    }
  });
  EXPECT_EQ(races, 1U);
  EXPECT_TRUE(reported_at(l1, l2, "element 3"));
}

TEST_F(RaceCheck, a_write_after_the_sync_images_that_ordered_the_read) {
  unsigned l2 = 0;
  unsigned l3 = 0;
  pgas::array<long> a(4);
  const std::size_t races = races_in([&] {
    if (me() == 1)
      (void)a[1].get();
    if (me() < 2)
      pgas::sync_images({1 - me()});
    if (me() == 1) {
      l2 = __LINE__ + 1;  // ordered after the read (same image), but ...
      a[1] = 1;
    }
    if (me() == 0) {
      l3 = __LINE__ + 1;  // ... this one races with it
      a[1] = 2;
    }
  });
  EXPECT_EQ(races, 1U);
  EXPECT_TRUE(reported_at(l2, l3, "element 1"));
}

TEST_F(RaceCheck, a_sub_team_barrier_does_not_order_an_image_outside_it) {
  unsigned l1 = 0;
  unsigned l2 = 0;
  pgas::array<long> a(4);
  const pgas::team pair = pgas::team::world().split(me() == 0 ? 0 : 1);
  const std::size_t races = races_in([&] {
    if (me() == 0) {
      l1 = __LINE__ + 1;
      a[2] = 1;
    }
    if (me() != 0)
      pgas::sync_all(pair);
    if (me() == 1) {
      l2 = __LINE__ + 1;
      (void)a[2].get();
    }
  });
  EXPECT_EQ(races, 1U);
  EXPECT_TRUE(reported_at(l1, l2, "element 2"));
}

TEST_F(RaceCheck, a_race_is_found_when_the_container_goes) {
  unsigned l1 = 0;
  std::size_t before = pgas::race_reports().size();
  pgas::sync_all();
  {
    pgas::array<long> a(4);
    if (me() < 2) {
      l1 = __LINE__ + 1;
      a[0] = 1;
    }
  }  // destroyed: its accesses are checked now
  EXPECT_EQ(pgas::co_sum(pgas::race_reports().size() - before), 1U);
  EXPECT_TRUE(reported_at(l1, l1, "element 0"));
  before = pgas::race_reports().size();
  pgas::sync_all();
  EXPECT_EQ(pgas::co_sum(pgas::race_reports().size() - before), 0U);  // reported once
}

// ---- Race-free programs: nothing is reported ----

TEST_F(RaceCheck, silent_a_write_then_a_sync_all_then_reads) {
  pgas::array<long> a(8);
  const std::size_t races = races_in([&] {
    if (me() == 0)
      a[4] = 1;
    pgas::sync_all();
    (void)a[4].get();
  });
  EXPECT_EQ(races, 0U);
}

TEST_F(RaceCheck, silent_accumulates_of_one_element_from_every_image) {
  pgas::array<long> a(8);
  const std::size_t races = races_in([&] {
    a[0] += 1;
    (void)a[0].fetch_add(1);
    a[0].atomic_store(3);
    (void)a[0].atomic_load();
  });
  EXPECT_EQ(races, 0U);
}

TEST_F(RaceCheck, silent_reads_of_one_element_from_every_image) {
  pgas::array<long> a(8);
  std::vector<long> out(8);
  const std::size_t races = races_in([&] {
    (void)a[2].get();
    pgas::get(a, 0, std::span<long>(out));
  });
  EXPECT_EQ(races, 0U);
}

TEST_F(RaceCheck, silent_each_image_writes_its_own_elements) {
  pgas::array<long, pgas::cyclic> a(4 * images());
  std::vector<long> v(4, 1);
  const std::size_t races = races_in([&] {
    a[(me() + 1) % images()] = 1;
    pgas::put_strided(a, me() + images(), images(), std::span<const long>(v).first(3));
  });
  EXPECT_EQ(races, 0U);
}

TEST_F(RaceCheck, silent_an_event_orders_the_write_before_the_read) {
  pgas::array<long> a(4);
  pgas::event ev;
  const std::size_t races = races_in([&] {
    if (me() == 0) {
      a[0] = 1;
      ev.post(1);
    }
    if (me() == 1) {
      ev.wait();
      (void)a[0].get();
      a[0] = 2;
    }
  });
  EXPECT_EQ(races, 0U);
}

TEST_F(RaceCheck, silent_events_pass_an_element_round_a_ring) {
  pgas::array<long> a(2);
  pgas::event ev;
  const std::size_t races = races_in([&] {
    const std::size_t next = (me() + 1) % images();
    if (me() != 0)
      ev.wait();
    a[1] = a[1].get() + 1;
    ev.post(next);
    if (me() == 0)
      ev.wait();
  });
  EXPECT_EQ(races, 0U);
  EXPECT_EQ(a[1].get(), static_cast<long>(images()));
}

TEST_F(RaceCheck, silent_a_lock_orders_every_holder) {
  pgas::array<long> a(2);
  pgas::lock_type lk;
  const std::size_t races = races_in([&] {
    for (int k = 0; k < 3; ++k) {
      lk.lock(1);
      a[0] = a[0].get() + 1;
      lk.unlock(1);
    }
  });
  EXPECT_EQ(races, 0U);
  EXPECT_EQ(a[0].get(), 3 * static_cast<long>(images()));
}

TEST_F(RaceCheck, silent_try_lock_orders_too) {
  pgas::array<long> a(2);
  pgas::lock_type lk;
  const std::size_t races = races_in([&] {
    while (!lk.try_lock(0))
      pgas::progress();  // between tries, serve others (MPICH's shared-memory atomics need it)
    a[1] = a[1].get() + 1;
    lk.unlock(0);
  });
  EXPECT_EQ(races, 0U);
  EXPECT_EQ(a[1].get(), static_cast<long>(images()));
}

TEST_F(RaceCheck, silent_a_critical_section) {
  pgas::array<long> a(2);
  pgas::critical cs;
  const std::size_t races = races_in([&] {
    const std::lock_guard guard(cs);
    a[0] = a[0].get() + 2;
  });
  EXPECT_EQ(races, 0U);
}

TEST_F(RaceCheck, silent_sync_images_orders_pairs) {
  pgas::array<long> a(images());
  const std::size_t races = races_in([&] {
    const std::size_t next = (me() + 1) % images();
    const std::size_t prev = (me() + images() - 1) % images();
    a[next] = static_cast<long>(me());
    if (next == prev) {
      pgas::sync_images({next});
    } else {
      pgas::sync_images({next, prev});
    }
    (void)a[me()].get();
  });
  EXPECT_EQ(races, 0U);
}

TEST_F(RaceCheck, silent_sync_images_of_all) {
  pgas::array<long> a(4);
  const std::size_t races = races_in([&] {
    if (me() == 0)
      a[3] = 1;
    pgas::sync_images(pgas::all_images);
    (void)a[3].get();
  });
  EXPECT_EQ(races, 0U);
}

TEST_F(RaceCheck, silent_a_team_barrier_orders_its_members) {
  const pgas::team half = pgas::team::world().split(static_cast<int>(me() % 2));
  pgas::array<long> a(half, 4);
  const std::size_t races = races_in([&] {
    if (half.this_image() == 0)
      a[1] = 1;
    a.sync();
    (void)a[1].get();
  });
  EXPECT_EQ(races, 0U);
}

TEST_F(RaceCheck, silent_a_change_team_scope) {
  const pgas::team half = pgas::team::world().split(static_cast<int>(me() % 2));
  const std::size_t races = races_in([&] {
    const pgas::change_team scope(half);
    pgas::coarray<long> x;
    x((pgas::this_image() + 1) % pgas::num_images()) = 1;
    pgas::sync_all();
    (void)x(pgas::this_image()).get();
  });
  EXPECT_EQ(races, 0U);
}

TEST_F(RaceCheck, silent_futures_complete_before_the_sync_point) {
  pgas::array<long> a(16);
  std::vector<long> v(4, 1);
  const std::size_t races = races_in([&] {
    if (me() == 0) {
      auto f = pgas::async_put(a, 4, std::span<const long>(v));
      f.wait();
    }
    pgas::sync_all();
    auto g = a[5].async_get();
    EXPECT_EQ(g.get(), 1);
  });
  EXPECT_EQ(races, 0U);
}

TEST_F(RaceCheck, silent_aggregators_of_every_image) {
  pgas::array<long> a(50);
  const std::size_t races = races_in([&] {
    {
      pgas::aggregator<pgas::array<long>> agg(a, pgas::reduce_op::sum, 8);
      for (std::size_t k = 0; k < 50; ++k) agg.add(k, 1);
    }
    std::vector<std::size_t> indices{1, 2, 3};
    std::vector<long> ones{1, 1, 1};
    pgas::scatter_accumulate(a, indices, std::span<const long>(ones), pgas::reduce_op::sum);
    pgas::sync_all();
    std::vector<long> out(3);
    pgas::gather(a, indices, std::span<long>(out));
  });
  EXPECT_EQ(races, 0U);
}

TEST_F(RaceCheck, silent_disjoint_patches) {
  pgas::ndarray<double, 2> a({8, 8});
  std::vector<double> in(8, 1.0);
  const std::size_t races = races_in([&] {
    if (me() < 2)
      pgas::put_patch(a, {4 * me(), 0}, {1, 8}, std::span<const double>(in));
    pgas::sync_all();
    std::vector<double> out(64);
    pgas::get_patch(a, {0, 0}, {8, 8}, std::span<double>(out));
  });
  EXPECT_EQ(races, 0U);
}

TEST_F(RaceCheck, silent_a_vector_written_then_read) {
  pgas::vector<long> v(10);
  const std::size_t races = races_in([&] {
    if (me() == 1)
      v[9] = 1;
    pgas::sync_all();
    EXPECT_EQ(v[9].get(), 1);
  });
  EXPECT_EQ(races, 0U);
}

TEST_F(RaceCheck, silent_each_image_its_own_coarray_copy) {
  pgas::coarray<int[4]> x;
  const std::size_t races = races_in([&] {
    x(me())[0] = 1;
    (void)x(me())[0].get();
  });
  EXPECT_EQ(races, 0U);
}

TEST_F(RaceCheck, silent_fence_steps_order_writes_and_reads) {
  pgas::array<int> a(2 * images());
  const std::size_t races = races_in([&] {
    {
      pgas::fence_phase phase(a);
      a[(2 * me() + 2) % a.size()] = 1;
      phase.fence();
      a[(2 * me() + 2) % a.size()] = 2;
    }  // its end is the last fence
    (void)a[2 * me()].get();
  });
  EXPECT_EQ(races, 0U);
}

TEST_F(RaceCheck, silent_events_order_transitively) {
  pgas::array<long> a(4);
  pgas::event first;
  pgas::event second;
  const std::size_t last = images() > 2 ? 2 : 0;
  const std::size_t races = races_in([&] {
    if (me() == 0) {
      a[1] = 5;
      first.post(1);
    }
    if (me() == 1) {
      first.wait();
      second.post(last);
    }
    if (me() == last) {
      second.wait();
      EXPECT_EQ(a[1].get(), 5);
    }
  });
  EXPECT_EQ(races, 0U);
}

TEST_F(RaceCheck, silent_an_async_gather_then_a_sync_then_writes) {
  pgas::array<long, pgas::cyclic> a(32);
  std::vector<std::size_t> indices{3, 30, 7, 12};
  std::vector<long> out(indices.size());
  const std::size_t races = races_in([&] {
    auto f = pgas::async_gather(a, indices, std::span<long>(out));
    f.wait();
    pgas::sync_all();
    if (me() == 1)
      pgas::scatter(a, indices, std::span<const long>(out));
  });
  EXPECT_EQ(races, 0U);
}

TEST_F(RaceCheck, silent_a_lock_on_one_image_guards_data_on_another) {
  pgas::array<long> a(images());
  pgas::lock_type lk;
  const std::size_t races = races_in([&] {
    lk.lock(images() - 1);
    a[0] = a[0].get() + 1;
    lk.unlock(images() - 1);
  });
  EXPECT_EQ(races, 0U);
  EXPECT_EQ(a[0].get(), static_cast<long>(images()));
}

}  // namespace
