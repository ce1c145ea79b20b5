// global_ref: accumulates and atomics from every image on one element and on random elements
// give exact totals; futures; a short program mixing every kind of access.
#include <pgas/pgas.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace {

template <class Dist>
class GlobalRef : public ::testing::Test {};
using Distributions = ::testing::Types<pgas::block, pgas::cyclic, pgas::block_cyclic>;
TYPED_TEST_SUITE(GlobalRef, Distributions);

TYPED_TEST(GlobalRef, plus_equal_is_atomic_with_other_accumulates) {
  pgas::array<long, TypeParam> a(5);
  constexpr long rounds = 300;
  for (long k = 0; k < rounds; ++k) {
    a[0] += 1;
    a[4] += 2;
    a[2] -= 1;
  }
  pgas::sync_all();
  const auto p = static_cast<long>(pgas::num_images());
  EXPECT_EQ(static_cast<long>(a[0]), rounds * p);
  EXPECT_EQ(static_cast<long>(a[4]), 2 * rounds * p);
  EXPECT_EQ(static_cast<long>(a[2]), -rounds * p);
  pgas::sync_all();
}

TYPED_TEST(GlobalRef, fetch_add_hands_out_each_ticket_once_and_mixes_with_plus_equal) {
  pgas::array<long, TypeParam> a(3);
  constexpr int per_image = 100;
  constexpr long high = 1L << 32;
  std::vector<long> tickets;
  for (int k = 0; k < per_image; ++k) {
    // Accumulates of another kind interleave without breaking atomicity: they count in the high
    // bits, tickets in the low ones, and a lost update of either shows.
    tickets.push_back(a[1].fetch_add(1) & (high - 1));
    a[1] += high;
  }
  const auto p = pgas::num_images();
  std::vector<long> all(tickets.size() * p);
  for (std::size_t img = 0; img < p; ++img) {
    for (int k = 0; k < per_image; ++k) {
      // Gather through a coarray-free path: each image publishes its tickets one by one.
      all[img * per_image + static_cast<std::size_t>(k)] =
          pgas::co_broadcast(tickets[static_cast<std::size_t>(k)], img);
    }
  }
  std::sort(all.begin(), all.end());
  for (std::size_t k = 0; k < all.size(); ++k) EXPECT_EQ(all[k], static_cast<long>(k));
  pgas::sync_all();
  const long total = static_cast<long>(p) * per_image;
  EXPECT_EQ(a[1].get(), total * high + total);
  pgas::sync_all();
}

TYPED_TEST(GlobalRef, random_updates_from_all_images_give_exact_totals) {
  const std::size_t n = 64;
  pgas::array<long, TypeParam> a(n);
  std::vector<long> expected(n, 0);
  for (std::size_t img = 0; img < pgas::num_images(); ++img) {
    std::mt19937 gen(static_cast<unsigned>(img) + 11);  // every image replays every stream
    for (int k = 0; k < 500; ++k) {
      const std::size_t i = gen() % n;
      const long v = static_cast<long>(gen() % 7);
      expected[i] += v;
      if (img == pgas::this_image())
        a[i] += v;
    }
  }
  pgas::sync_all();
  for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(static_cast<long>(a[i]), expected[i]) << i;
  pgas::sync_all();
}

TEST(GlobalRefAtomics, compare_exchange_lets_one_image_win_and_reports_the_value) {
  pgas::array<int> a(1);
  int expected = 0;
  const bool won = a[0].compare_exchange(expected, static_cast<int>(pgas::this_image()) + 1);
  EXPECT_EQ(pgas::co_sum(won ? 1 : 0), 1);
  if (!won) {
    EXPECT_GE(expected, 1);  // the loser learns the winner's value
  }
  pgas::sync_all();
  // A spin lock built on compare_exchange guards a non-atomic read-modify-write.
  pgas::array<int> lock_and_counter(2);
  for (int k = 0; k < 20; ++k) {
    int free_flag = 0;
    while (!lock_and_counter[0].compare_exchange(free_flag, 1)) free_flag = 0;
    const int v = lock_and_counter[1].atomic_load();
    lock_and_counter[1].exchange(v + 1);
    (void)lock_and_counter[0].exchange(0);
  }
  pgas::sync_all();
  EXPECT_EQ(static_cast<int>(lock_and_counter[1]), 20 * static_cast<int>(pgas::num_images()));
  pgas::sync_all();
}

TEST(GlobalRefAtomics, multiply_and_bitwise_accumulates) {
  pgas::array<unsigned> a(3, pgas::block{}, 1u);
  a[0] *= 2u;
  a[1] |= 1u << pgas::this_image();
  a[2] ^= 3u;
  pgas::sync_all();
  const auto p = static_cast<unsigned>(pgas::num_images());
  EXPECT_EQ(static_cast<unsigned>(a[0]), 1u << p);
  EXPECT_EQ(static_cast<unsigned>(a[1]), (1u << p) - 1u);
  EXPECT_EQ(static_cast<unsigned>(a[2]), p % 2 == 1 ? 2u : 1u);
  pgas::sync_all();
}

TEST(Futures, more_futures_than_requests_kept_outstanding_all_deliver) {
  // Past the requests a process keeps outstanding (runtime/request.hpp) the operations complete
  // as they start: every future still holds its value, and no MPI runs out of requests (MPICH
  // 4.0 ended the job at 10^6 such gets through MPI before the bound).
  const std::size_t n = pgas::runtime::most_outstanding_requests + 1000;
  constexpr std::size_t slots = 512;
  pgas::array<long, pgas::block> a(2 * slots * pgas::num_images());
  const std::size_t me = pgas::this_image();
  const std::size_t next = (me + 1) % pgas::num_images();
  const std::size_t first = a.distribution().first_of(next);
  for (std::size_t k = 0; k < 2 * slots; ++k)
    a.local()[k] = 7 * static_cast<long>(a.distribution().first_of(me) + k);
  pgas::sync_all();
  std::vector<pgas::future<long>> gets;
  std::vector<pgas::future<void>> puts;
  gets.reserve(n);
  puts.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    gets.push_back(a[first + i % slots].async_get());
    // The upper half of next's block, which nobody reads before the sync point.
    puts.push_back(a[first + slots + i % slots].async_put(static_cast<long>(i)));
  }
  EXPECT_LE(pgas::runtime::outstanding_requests(), pgas::runtime::most_outstanding_requests);
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_EQ(gets[i].get(), 7 * static_cast<long>(first + i % slots)) << "get " << i;
  for (pgas::future<void>& f : puts) f.get();
  pgas::sync_all();
  // The last put to each slot wins: image order is program order for one origin.
  const std::size_t mine = a.distribution().first_of(me);
  for (std::size_t k = 0; k < slots; ++k) {
    const std::size_t last = n - 1 - ((n - 1 - k) % slots);  // the last i with i % slots == k
    ASSERT_EQ(a.local()[slots + k], static_cast<long>(last)) << "slot " << k << " of " << mine;
  }
  pgas::sync_all();
}

TEST(Futures, async_get_then_and_when_all) {
  pgas::array<long, pgas::cyclic> a(20);
  for (std::size_t i = pgas::this_image(); i < 20; i += pgas::num_images())
    a[i] = 10 * static_cast<long>(i);
  pgas::sync_all();
  auto f = a[19].async_get();
  EXPECT_TRUE(f.valid());
  while (!f.ready()) {
  }
  EXPECT_EQ(f.get(), 190);
  EXPECT_FALSE(f.valid());
  EXPECT_THROW(f.wait(), pgas::usage_error);
  auto doubled = a[3].async_get().then([](long v) { return 2 * v; });
  // Each image its own element to write: a write of one element by every image is a race.
  auto both = pgas::when_all(a[1].async_get(), std::move(doubled),
                             a[10 + pgas::this_image()].async_put(-1));
  auto [one, sixty, done] = both.get();
  EXPECT_EQ(one, 10);
  EXPECT_EQ(sixty, 60);
  (void)done;
  pgas::sync_all();
  EXPECT_EQ(static_cast<long>(a[10]), -1);
  pgas::sync_all();
}

TEST(Futures, async_put_is_complete_by_the_next_sync_point_without_waiting) {
  pgas::array<int> a(pgas::num_images());
  {
    auto f = a[(pgas::this_image() + 1) % pgas::num_images()].async_put(
        static_cast<int>(pgas::this_image()) + 100);
    (void)f;
  }
  pgas::sync_all();
  const auto prev = (pgas::this_image() + pgas::num_images() - 1) % pgas::num_images();
  EXPECT_EQ(static_cast<int>(a[pgas::this_image()]), static_cast<int>(prev) + 100);
  pgas::sync_all();
}

TEST(Example, a_program_mixing_writes_accumulates_atomics_and_coarrays_runs) {
  pgas::array<long> a(1000);
  pgas::array<long, pgas::cyclic> c(1000);
  pgas::array<long, pgas::block_cyclic> d(1000, pgas::block_cyclic(16));
  if (pgas::this_image() == 0)
    a[999] = 7;
  a[pgas::this_image()] += 1;
  const long ticket = c[0].fetch_add(1);
  EXPECT_LT(ticket, static_cast<long>(pgas::num_images()));
  pgas::sync_all();
  const long v = a[999];
  EXPECT_EQ(v, 7);
  pgas::sync_all();
  for (long& x : a.local()) x *= 2;
  pgas::coarray<int> x;
  *x = 5;
  pgas::sync_all();
  x((pgas::this_image() + 1) % pgas::num_images()) = 1;
  pgas::sync_all();
  EXPECT_EQ(*x, 1);
  pgas::coarray<double[64]> halo;
  if (pgas::this_image() == 0)
    halo(0)[63] = 1.0;
  pgas::sync_all();
  EXPECT_EQ(halo(0)[63].get(), 1.0);
  const int total = pgas::co_sum(*x);
  EXPECT_EQ(total, static_cast<int>(pgas::num_images()));
  EXPECT_EQ(static_cast<long>(a[0]), 2);  // image 0 added 1, then doubled its part
  pgas::sync_all();
}

}  // namespace
