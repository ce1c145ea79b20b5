// Fortran 2018 parity on one-sided atomics: events (many concurrent posters, counts, data
// visible after a wait, a ring of point-to-point hand-offs), locks (mutual exclusion under
// contention with plain get + put, try_lock, FIFO hand-off so no image starves, several lock
// images at once), critical with std::lock_guard, and the complete atomics on global_ref
// exact under contention. Also registered with PGAS_SHARED_MEMORY=0.
#include <pgas/pgas.hpp>

#include <gtest/gtest.h>

#include "../support/ring_neighbours.hpp"
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

namespace pgas {
// Reads the lock's queue tail: the image that asked last (or holds it), -1 when free.
struct lock_queue_inspection {
  static long last_asked(lock_type& lk, std::size_t img) {
    return static_cast<long>(lk.cells_[lk.tail(img)].atomic_load()) - 1;
  }
};
}  // namespace pgas

namespace {

using pgas_test::images;
using pgas_test::me;

TEST(Event, every_post_of_many_concurrent_posters_is_counted) {
  pgas::event ev;
  constexpr int posts = 50;
  for (int k = 0; k < posts; ++k) ev.post(0);
  if (me() == 0) {
    ev.wait(static_cast<std::int64_t>(posts * images()));
    EXPECT_EQ(ev.query(), 0);
  }
  pgas::sync_all();
  EXPECT_EQ(ev.query(), 0);
}

// Posts to several images, interleaved: each image's count is its own. On one node each
// poster keeps a running total per image it posts to (runtime/signal.hpp); one total for all of
// them would count a post to one image as several at another.
TEST(Event, posts_to_several_images_are_counted_at_each) {
  pgas::event ev;
  // Image j gets j + 1 posts from every image, round after round in image order.
  for (std::size_t round = 0; round < images(); ++round) {
    for (std::size_t j = 0; j < images(); ++j) {
      if (round <= j)
        ev.post(j);
    }
  }
  const auto mine = static_cast<std::int64_t>((me() + 1) * images());
  ev.wait(mine);
  EXPECT_EQ(ev.query(), 0);
  pgas::sync_all();
  EXPECT_EQ(ev.query(), 0);
  pgas::sync_all();  // nobody posts again before everyone has looked
  // Again, in the other order: the totals go on from where they were.
  for (std::size_t j = images(); j-- > 0;) ev.post(j);
  ev.wait(static_cast<std::int64_t>(images()));
  pgas::sync_all();
  EXPECT_EQ(ev.query(), 0);
}

TEST(Event, what_the_poster_wrote_is_visible_after_the_wait) {
  pgas::event ev;
  pgas::array<long> data(4 * images());
  const std::size_t next = (me() + 1) % images();
  // A ring: each image writes the next image's elements, then posts to it.
  for (int round = 1; round <= 20; ++round) {
    for (std::size_t k = 0; k < 4; ++k) data[4 * next + k] = round * 100 + static_cast<long>(k);
    ev.post(next);
    ev.wait();
    for (std::size_t k = 0; k < 4; ++k)
      EXPECT_EQ(data[4 * me() + k].get(), round * 100 + static_cast<long>(k));
    pgas::sync_all();  // nobody overwrites before everyone has checked
  }
}

// A post orders the poster's plain stores into its own part too: the image posted to reads them
// from it after the wait (through MPI and between nodes a get of the poster's memory, which
// the post's ordering of those stores before its message must let see them).
TEST(Event, what_the_poster_stored_in_its_own_part_is_read_by_the_image_posted_to) {
  pgas::event ev;
  pgas::array<long> data(64 * images());
  const std::size_t before = (me() + images() - 1) % images();
  std::span<long> mine = data.local();
  for (int round = 1; round <= 20; ++round) {
    for (std::size_t k = 0; k < mine.size(); ++k) mine[k] = round * 1000 + static_cast<long>(k);
    ev.post((me() + 1) % images());
    ev.wait();
    std::vector<long> theirs(64);
    pgas::get(data, 64 * before, std::span<long>(theirs));
    for (std::size_t k = 0; k < theirs.size(); ++k)
      EXPECT_EQ(theirs[k], round * 1000 + static_cast<long>(k)) << "round " << round;
    pgas::sync_all();  // nobody stores the next round before everyone has read this one
  }
}

// A post orders every write the poster made before it, not only those to the image posted to:
// element writes and a bulk write to a third image, and a remote call run there, are seen by
// the image posted to once its wait returns (through MPI and between nodes a post is a message
// that does not wait for the one it follows to the image posted to, but does for the others).
TEST(Event, writes_to_a_third_image_are_visible_to_the_image_posted_to) {
  if (images() < 3)
    GTEST_SKIP() << "needs a poster, a waiter and a third image";
  pgas::event ev;
  pgas::array<long> data(8 * images());
  static long called = 0;
  called = 0;
  pgas::sync_all();
  for (int round = 1; round <= 10; ++round) {
    if (me() == 0) {
      for (std::size_t k = 0; k < 4; ++k) data[8 * 2 + k] = round * 10 + static_cast<long>(k);
      const std::vector<long> bulk(4, round);
      pgas::put(data, 8 * 2 + 4, std::span<const long>(bulk));
      pgas::rpc_ff(
          2, [](long r) { called = r; }, static_cast<long>(round));
      data[8 * 1] = round;  // and one to the image posted to
      ev.post(1);
      // Away from pgas for a while, so that nothing it still holds goes out meanwhile: a post
      // that did not first see image 2 apply what image 0 sent it would let image 1 read old
      // values. The right result does not depend on this pause; it only makes a wrong one show.
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    } else if (me() == 1) {
      ev.wait();
      for (std::size_t k = 0; k < 4; ++k)
        EXPECT_EQ(data[8 * 2 + k].get(), round * 10 + static_cast<long>(k));
      for (std::size_t k = 4; k < 8; ++k) EXPECT_EQ(data[8 * 2 + k].get(), round);
      EXPECT_EQ(data[8 * 1].get(), round);
      EXPECT_EQ(pgas::rpc(2, [] { return called; }).get(), round);
    }
    pgas::sync_all();
  }
}

TEST(Event, wait_for_several_takes_them_all_and_query_does_not_block) {
  pgas::event ev;
  EXPECT_EQ(ev.query(), 0);
  pgas::sync_all();
  ev.post(me());
  ev.post(me());
  ev.post(me());
  EXPECT_EQ(ev.query(), 3);
  ev.wait(2);
  EXPECT_EQ(ev.query(), 1);
  ev.wait();
  EXPECT_EQ(ev.query(), 0);
  pgas::sync_all();
}

// query() alone sees others' posts: where the owner applies them (PGAS_SHARED_MEMORY=0, between
// nodes) it must run the handlers that bring them, since nothing else here makes progress. A
// query that only read memory would spin here for ever (CTest's timeout reports it).
TEST(Event, query_alone_sees_the_posts_of_other_images) {
  pgas::event ev;
  if (me() != 0) {
    ev.post(0);
  } else if (images() > 1) {
    const auto others = static_cast<std::int64_t>(images() - 1);
    while (ev.query() < others) {
    }
    EXPECT_EQ(ev.query(), others);
    ev.wait(others);
    EXPECT_EQ(ev.query(), 0);
  }
  pgas::sync_all();
}

TEST(Lock, plain_get_and_put_inside_the_lock_lose_no_increment) {
  pgas::lock_type lk;
  pgas::array<long> counters(2);  // both on image 0 when there is one image, else spread
  constexpr int rounds = 60;
  for (int r = 0; r < rounds; ++r) {
    lk.lock(0);
    const long a = counters[0].get();
    const long b = counters[1].get();
    counters[0] = a + 1;
    counters[1] = b + 2;
    lk.unlock(0);
  }
  pgas::sync_all();
  EXPECT_EQ(counters[0].get(), rounds * static_cast<long>(images()));
  EXPECT_EQ(counters[1].get(), 2 * rounds * static_cast<long>(images()));
}

TEST(Lock, the_lock_passes_in_the_order_images_asked_so_nobody_starves) {
  // Image 0 holds the lock; image k asks for it only once image k - 1 is in the queue, so the
  // order of asking is 0, 1, 2, ... whatever the timing. A fair lock passes it in that order.
  pgas::lock_type lk;
  pgas::array<long> order(images());  // holder k writes k + 1 into place k
  pgas::array<long> next(1);
  const auto last_asked = [&] { return pgas::lock_queue_inspection::last_asked(lk, 0); };
  // While image 0 holds the lock nobody else can count a hold in next[0]; the second condition
  // only lets a broken lock run through (and fail below) instead of waiting forever.
  // (An atomic read: the holders change it meanwhile, so a plain read would race.)
  const auto holds = [&] { return next[0].atomic_load(); };
  if (me() == 0) {
    lk.lock(0);
    while (last_asked() != static_cast<long>(images()) - 1 && holds() < 1) pgas::progress();
  } else {
    const long k = static_cast<long>(me());
    while (last_asked() != k - 1 && (k == 1 || holds() < k - 1)) pgas::progress();
    lk.lock(0);
  }
  const long at = next[0].atomic_load();
  order[static_cast<std::size_t>(at)] = static_cast<long>(me()) + 1;
  next[0].atomic_store(at + 1);
  lk.unlock(0);
  pgas::sync_all();
  for (std::size_t k = 0; k < images(); ++k)
    EXPECT_EQ(order[k].get(), static_cast<long>(k) + 1) << "hold " << k;
  pgas::sync_all();
}

TEST(Lock, try_lock_fails_while_another_image_holds_it) {
  pgas::lock_type lk;
  pgas::event ev;
  if (me() == 0)
    lk.lock(0);
  pgas::sync_all();
  if (me() != 0) {
    EXPECT_FALSE(lk.try_lock(0));
  }
  pgas::sync_all();
  if (me() == 0)
    lk.unlock(0);
  pgas::sync_all();
  const bool got = lk.try_lock(0);
  const long winners = pgas::co_sum(got ? 1L : 0L);
  EXPECT_GE(winners, 1);  // the first to try gets it; the others may or may not
  if (got)
    lk.unlock(0);
  pgas::sync_all();
}

TEST(Lock, locks_on_several_images_are_independent) {
  pgas::lock_type lk;
  pgas::array<long> sums(images());
  for (int r = 0; r < 10; ++r) {
    for (std::size_t img = 0; img < images(); ++img) lk.lock(img);  // all of them, in order
    for (std::size_t img = 0; img < images(); ++img) sums[img] = sums[img].get() + 1;
    for (std::size_t img = images(); img-- > 0;) lk.unlock(img);
  }
  pgas::sync_all();
  for (std::size_t img = 0; img < images(); ++img)
    EXPECT_EQ(sums[img].get(), 10 * static_cast<long>(images()));
}

TEST(Critical, lock_guard_lets_one_image_in_at_a_time) {
  pgas::critical cs;
  pgas::array<long> inside(1);
  pgas::array<long> most(1);
  for (int r = 0; r < 40; ++r) {
    std::lock_guard guard(cs);
    const long now = inside[0].get() + 1;
    inside[0] = now;
    if (now > most[0].get())
      most[0] = now;
    inside[0] = now - 1;
  }
  pgas::sync_all();
  EXPECT_EQ(most[0].get(), 1);
  EXPECT_EQ(inside[0].get(), 0);
}

TEST(Atomics, fetch_ops_min_max_store_and_async_forms_are_exact_under_contention) {
  pgas::array<std::int64_t> a(6);
  pgas::array<double> d(2);
  if (me() == 0) {
    a[1] = -1;  // all bits: fetch_and clears them one image at a time
    a[3] = 1000;
    d[0] = 1e9;
    d[1] = -1e9;
  }
  pgas::sync_all();
  const auto bit = static_cast<std::int64_t>(1) << me();
  (void)a[0].fetch_or(bit);
  (void)a[1].fetch_and(~bit);
  (void)a[2].fetch_xor(bit | 256);
  (void)a[3].fetch_min(static_cast<std::int64_t>(me()) * 10);
  (void)a[4].fetch_max(static_cast<std::int64_t>(me()) * 10);
  (void)d[0].fetch_min(static_cast<double>(me()) + 0.5);
  (void)d[1].fetch_max(static_cast<double>(me()) + 0.5);
  auto added = a[5].async_fetch_add(3);
  const std::int64_t before_add = added.get();
  EXPECT_EQ(before_add % 3, 0);
  pgas::sync_all();
  const std::int64_t all_bits = (static_cast<std::int64_t>(1) << images()) - 1;
  EXPECT_EQ(a[0].get(), all_bits);
  EXPECT_EQ(a[1].get(), ~all_bits);
  EXPECT_EQ(a[2].get(), all_bits ^ (images() % 2 == 1 ? 256 : 0));
  EXPECT_EQ(a[3].get(), 0);
  EXPECT_EQ(a[4].get(), 10 * (static_cast<std::int64_t>(images()) - 1));
  EXPECT_DOUBLE_EQ(d[0].get(), 0.5);
  EXPECT_DOUBLE_EQ(d[1].get(), static_cast<double>(images()) - 0.5);
  EXPECT_EQ(a[5].get(), 3 * static_cast<std::int64_t>(images()));
  pgas::sync_all();
  // A counter bumped with async compare-exchange retries: every image's increments land.
  for (int k = 0; k < 30; ++k) {
    std::int64_t seen = a[5].atomic_load();
    for (;;) {
      const std::int64_t previous = a[5].async_compare_exchange(seen, seen + 1).get();
      if (previous == seen)
        break;
      seen = previous;
    }
  }
  if (me() == 0)
    a[0].atomic_store(42);
  pgas::sync_all();
  EXPECT_EQ(a[5].get(),
            3 * static_cast<std::int64_t>(images()) + 30 * static_cast<std::int64_t>(images()));
  EXPECT_EQ(a[0].atomic_load(), 42);
  pgas::sync_all();
}

}  // namespace
